//! Read APIs for panels and reports: per-source status (target, ambient, mission, attached,
//! pending, pooled, quarantined), the lifetime "why did nothing spawn" summary (which gate
//! rejected, how many times, and what would unblock it), and the same answer for one frame and
//! place ([`FrameSpawnReport`]: that frame's rejections from the event log, and the candidates
//! it drew grouped by where they stood along the source's route).

use super::{Demand, SPAWN_REJECTIONS};
use crate::project::Vec2;
use crate::sim::state::{Event, EventDetail, EventKind, SpawnRejection};

/// One source's numbers at the current frame; each is distinct, never a sum of the others.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceStatus {
    /// The source's id.
    pub id: String,
    /// How many it aims to keep.
    pub target: u32,
    /// How many attached peds it may host.
    pub capacity: u32,
    /// Ambient members (Mission peds excluded).
    pub ambient: u64,
    /// Members claimed by a script.
    pub mission: u64,
    /// The members its target counts: ambient members for an ambient source, every attached
    /// ped for a mission source.
    pub members: u64,
    /// Attached peds (what capacity counts: ambient and mission).
    pub attached: u64,
    /// The pending demand, if any.
    pub pending: Option<Demand>,
    /// Pool entries retired from this source.
    pub pooled: u64,
    /// Of which still in quarantine.
    pub quarantined: u64,
    /// New entities created so far.
    pub created: u64,
    /// Pooled entities readmitted so far.
    pub reused: u64,
    /// Current source generation.
    pub generation: u32,
}

impl SourceStatus {
    /// Whether the source has fewer of the members its target counts than its target (a
    /// mission source counts every attached ped, an ambient one its ambient members).
    pub fn is_short(&self) -> bool {
        self.members < u64::from(self.target)
    }
}

/// Why a source did not spawn: its rejections by gate, most frequent first.
#[derive(Clone, Debug, PartialEq)]
pub struct SpawnReport {
    /// The source's status.
    pub status: SourceStatus,
    /// `(gate, times)` for every gate that rejected at least once, most frequent first (ties
    /// in gate order).
    pub rejections: Vec<(SpawnRejection, u64)>,
    /// The last rejection and its frame.
    pub last: Option<(u64, SpawnRejection)>,
}

impl SpawnReport {
    /// Sorts a per-gate table into the report's order.
    pub fn ranked(table: &[u64]) -> Vec<(SpawnRejection, u64)> {
        let mut ranked: Vec<(SpawnRejection, u64)> = SPAWN_REJECTIONS
            .iter()
            .zip(table)
            .filter(|(_, n)| **n > 0)
            .map(|(r, n)| (*r, *n))
            .collect();
        ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked
    }

    /// The answer in words: which gate rejected, how many times, and what would unblock it.
    pub fn text(&self) -> String {
        let s = &self.status;
        if s.members > u64::from(s.target) {
            return format!(
                "`{}` is above its target ({} of {})",
                s.id, s.members, s.target
            );
        }
        if s.pending.is_none() && !s.is_short() {
            return format!(
                "`{}` is at its target ({} of {})",
                s.id, s.members, s.target
            );
        }
        match self.rejections.first() {
            None => format!("`{}` has not been given a cycle yet", s.id),
            Some((reason, times)) => format!(
                "`{}` is short ({} of {}): rejected {times} times by {reason:?}; needs {}",
                s.id,
                s.members,
                s.target,
                reason.remedy()
            ),
        }
    }
}

/// One spawn candidate a step drew and put through admission: where it stood and what the gates
/// said. Batch-wide refusals (no valid view, capacity, quarantine) draw nothing and so have no mark.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq)]
pub struct CandidateMark {
    /// Index of the source that drew it.
    pub source: u16,
    /// Ground position of its feet root, meters.
    pub position: Vec2,
    /// Its progress along the source's route, meters (where on the route it stood).
    pub distance_m: f64,
    /// `None`: admitted; otherwise the gate that refused it.
    pub rejection: Option<SpawnRejection>,
}

/// Candidates one source drew at one place in one frame, and what admission said of them.
/// Candidates whose route progress rounds to the same centimetre share a place.
#[derive(Clone, Debug, PartialEq)]
pub struct PlaceOutcome {
    /// Progress along the source's route, meters (the place's first candidate's).
    pub distance_m: f64,
    /// Ground position of the place's first candidate, meters.
    pub position: Vec2,
    /// Candidates admitted there.
    pub admitted: u64,
    /// `(gate, times)` for every gate that refused a candidate there, most frequent first (ties
    /// in gate order).
    pub rejections: Vec<(SpawnRejection, u64)>,
}

/// Why a source did or did not spawn at one frame, and where: the answer to "why did nothing
/// spawn here at this frame".
#[derive(Clone, Debug, PartialEq)]
pub struct FrameSpawnReport {
    /// The frame.
    pub frame: u64,
    /// The source's id.
    pub id: String,
    /// Its route's id.
    pub route: String,
    /// Peds its batches realized this frame.
    pub spawned: u64,
    /// `(gate, times)` of the frame's rejections from the event log, most frequent first (ties
    /// in gate order); batch-wide refusals included.
    pub rejections: Vec<(SpawnRejection, u64)>,
    /// The candidates it drew this frame by place, in route order; `None` when the world no
    /// longer holds that frame's candidates.
    pub places: Option<Vec<PlaceOutcome>>,
    /// False when the bounded log dropped rejections of this frame (the counts are then a
    /// lower bound).
    pub complete: bool,
}

impl FrameSpawnReport {
    /// The report of source `source` (id `id`, on route `route`) at `frame` from the frame's
    /// events (`events`: the log's events of that frame, any source) and the candidates it drew
    /// then (`marks`: that frame's marks, any source; `None` when unknown).
    pub fn build(
        frame: u64,
        source: u16,
        id: &str,
        route: &str,
        events: &[Event],
        marks: Option<&[CandidateMark]>,
        complete: bool,
    ) -> FrameSpawnReport {
        let mut table = [0u64; SPAWN_REJECTIONS.len()];
        let mut spawned = 0;
        for event in events
            .iter()
            .filter(|e| e.frame == frame && e.source == Some(source))
        {
            match (event.kind, event.detail) {
                (EventKind::Rejected, EventDetail::Rejection(reason)) => {
                    table[reason as usize] += 1;
                }
                (EventKind::Realized, EventDetail::Batch { items, .. }) => {
                    spawned += u64::from(items);
                }
                _ => {}
            }
        }
        let places = marks.map(|marks| {
            // (centimetre of progress, place, per-gate table), in route order.
            let mut places: Vec<(i64, PlaceOutcome, [u64; SPAWN_REJECTIONS.len()])> = Vec::new();
            for mark in marks.iter().filter(|m| m.source == source) {
                let key = (mark.distance_m * 100.0).round() as i64;
                let at = match places.binary_search_by_key(&key, |p| p.0) {
                    Ok(at) => at,
                    Err(at) => {
                        let place = PlaceOutcome {
                            distance_m: mark.distance_m,
                            position: mark.position,
                            admitted: 0,
                            rejections: Vec::new(),
                        };
                        places.insert(at, (key, place, [0; SPAWN_REJECTIONS.len()]));
                        at
                    }
                };
                match mark.rejection {
                    None => places[at].1.admitted += 1,
                    Some(reason) => places[at].2[reason as usize] += 1,
                }
            }
            places
                .into_iter()
                .map(|(_, mut place, table)| {
                    place.rejections = SpawnReport::ranked(&table);
                    place
                })
                .collect()
        });
        FrameSpawnReport {
            frame,
            id: id.to_owned(),
            route: route.to_owned(),
            spawned,
            rejections: SpawnReport::ranked(&table),
            places,
            complete,
        }
    }

    /// Rejections of the frame in all.
    pub fn rejected(&self) -> u64 {
        self.rejections.iter().map(|(_, n)| n).sum()
    }

    /// The answer in words: what the source did this frame; for each gate that rejected, how
    /// many times and where (the place along the route and on the ground, or that the refusal
    /// came before any candidate was drawn); and what would unblock the most frequent gate.
    pub fn text(&self) -> String {
        let head = format!("`{}` at frame {}", self.id, self.frame);
        let mut parts: Vec<String> = Vec::new();
        if self.spawned > 0 {
            parts.push(format!("spawned {}", self.spawned));
        }
        let Some(top) = self.rejections.first() else {
            if self.spawned == 0 {
                return format!("{head}: no spawn attempt this frame");
            }
            let admitted: Vec<String> = self
                .places
                .iter()
                .flatten()
                .filter(|p| p.admitted > 0)
                .map(|p| self.place_text(p))
                .collect();
            if !admitted.is_empty() {
                parts[0].push_str(&format!(" {}", admitted.join(", ")));
            }
            return format!("{head}: {}", parts.join("; "));
        };
        let total = self.rejected();
        let bound = if self.complete { "" } else { " at least" };
        let times = if total == 1 { "time" } else { "times" };
        let mut gates: Vec<String> = Vec::new();
        for (reason, times) in &self.rejections {
            let mut placed = 0;
            let mut wheres: Vec<String> = Vec::new();
            for place in self.places.iter().flatten() {
                if let Some((_, n)) = place.rejections.iter().find(|(r, _)| r == reason) {
                    placed += n;
                    wheres.push(format!("×{n} {}", self.place_text(place)));
                }
            }
            let unplaced = times.saturating_sub(placed);
            if unplaced > 0 {
                wheres.push(match &self.places {
                    Some(_) => format!("×{unplaced} before any candidate was drawn"),
                    None => format!("×{unplaced} (places not held for this frame)"),
                });
            }
            gates.push(format!("{reason:?} {}", wheres.join(", ")));
        }
        parts.push(format!(
            "rejected{bound} {total} {times}: {}",
            gates.join("; ")
        ));
        format!(
            "{head}: {}; would unblock it: {}",
            parts.join("; "),
            top.0.remedy()
        )
    }

    /// "at 50.30 m along sidewalk.north (10.30, 6.25)".
    fn place_text(&self, place: &PlaceOutcome) -> String {
        format!(
            "at {:.2} m along {} ({:.2}, {:.2})",
            place.distance_m, self.route, place.position.x, place.position.y
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(target: u32, ambient: u64, mission: u64, members: u64) -> SourceStatus {
        SourceStatus {
            id: "s".into(),
            target,
            capacity: 8,
            ambient,
            mission,
            members,
            attached: ambient + mission,
            pending: None,
            pooled: 0,
            quarantined: 0,
            created: ambient + mission,
            reused: 0,
            generation: 0,
        }
    }

    #[test]
    fn a_source_is_at_its_target_by_the_members_its_target_counts() {
        // A mission source of three attached (claimed) peds has no ambient member and is full.
        let mission = SpawnReport {
            status: status(3, 0, 3, 3),
            rejections: Vec::new(),
            last: None,
        };
        assert!(!mission.status.is_short());
        assert_eq!(mission.text(), "`s` is at its target (3 of 3)");
        // An ambient source whose two members include a claimed one is one short.
        let ambient = SpawnReport {
            status: status(2, 1, 1, 1),
            rejections: SpawnReport::ranked(&[0, 4]),
            last: None,
        };
        assert!(ambient.status.is_short());
        assert_eq!(
            ambient.text(),
            format!(
                "`s` is short (1 of 2): rejected 4 times by {:?}; needs {}",
                SPAWN_REJECTIONS[1],
                SPAWN_REJECTIONS[1].remedy()
            )
        );
    }

    #[test]
    fn a_source_above_its_target_is_never_said_to_be_at_it() {
        // Three ambient members of a target of two (a claimed ped released back, say).
        let above = SpawnReport {
            status: status(2, 3, 0, 3),
            rejections: Vec::new(),
            last: None,
        };
        assert_eq!(above.text(), "`s` is above its target (3 of 2)");
    }

    fn event(frame: u64, kind: EventKind, source: u16, detail: EventDetail) -> Event {
        Event {
            seq: 0,
            frame,
            kind,
            handle: None,
            source: Some(source),
            detail,
            position: None,
        }
    }

    fn mark(source: u16, x: f64, rejection: Option<SpawnRejection>) -> CandidateMark {
        CandidateMark {
            source,
            position: Vec2 { x, y: 0.0 },
            distance_m: x + 50.0,
            rejection,
        }
    }

    #[test]
    fn a_frame_report_says_which_gate_rejected_how_often_and_where() {
        use SpawnRejection::{InsideFrustum, OccupiedByPed, PoolQuarantine};
        let rejected = |frame, source, reason| {
            event(
                frame,
                EventKind::Rejected,
                source,
                EventDetail::Rejection(reason),
            )
        };
        let events = [
            rejected(6, 1, OccupiedByPed),
            rejected(7, 1, OccupiedByPed),
            rejected(7, 1, PoolQuarantine),
            rejected(7, 0, InsideFrustum),
            rejected(7, 1, OccupiedByPed),
            rejected(7, 1, InsideFrustum),
        ];
        // Two candidates at the same centimetre are one place; another source's are not counted.
        let marks = [
            mark(1, 0.3, Some(OccupiedByPed)),
            mark(0, -10.0, Some(InsideFrustum)),
            mark(1, 0.304, Some(OccupiedByPed)),
            mark(1, -20.0, Some(InsideFrustum)),
        ];
        let report = FrameSpawnReport::build(7, 1, "late", "walk", &events, Some(&marks), true);
        assert_eq!(report.spawned, 0);
        assert_eq!(report.rejected(), 4);
        assert_eq!(
            report.rejections,
            [(OccupiedByPed, 2), (InsideFrustum, 1), (PoolQuarantine, 1)]
        );
        let places = report.places.clone().expect("known");
        assert_eq!(
            places
                .iter()
                .map(|p| (p.distance_m, p.admitted, p.rejections.clone()))
                .collect::<Vec<_>>(),
            [
                (30.0, 0, vec![(InsideFrustum, 1)]),
                (50.3, 0, vec![(OccupiedByPed, 2)]),
            ]
        );
        assert_eq!(
            report.text(),
            "`late` at frame 7: rejected 4 times: OccupiedByPed ×2 at 50.30 m along walk \
             (0.30, 0.00); InsideFrustum ×1 at 30.00 m along walk (-20.00, 0.00); \
             PoolQuarantine ×1 before any candidate was drawn; would unblock it: the ped \
             standing there moving away"
        );
        // Without the frame's candidates the counts stay and the places are said to be unknown.
        let unknown = FrameSpawnReport::build(7, 1, "late", "walk", &events[..3], None, false);
        assert_eq!(
            unknown.text(),
            "`late` at frame 7: rejected at least 2 times: OccupiedByPed ×1 (places not held \
             for this frame); PoolQuarantine ×1 (places not held for this frame); would unblock \
             it: the ped standing there moving away"
        );
    }

    #[test]
    fn a_frame_report_says_where_a_source_spawned_or_that_it_did_not_try() {
        let events = [event(
            8,
            EventKind::Realized,
            1,
            EventDetail::Batch {
                items: 1,
                reused: 0,
            },
        )];
        let marks = [mark(1, 0.3, None)];
        let spawned = FrameSpawnReport::build(8, 1, "late", "walk", &events, Some(&marks), true);
        assert_eq!(spawned.spawned, 1);
        assert_eq!(
            spawned.text(),
            "`late` at frame 8: spawned 1 at 50.30 m along walk (0.30, 0.00)"
        );
        let idle = FrameSpawnReport::build(9, 1, "late", "walk", &events, Some(&[]), true);
        assert_eq!(
            idle.text(),
            "`late` at frame 9: no spawn attempt this frame"
        );
    }
}
