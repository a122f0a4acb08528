//! The agent rows one walker's step sees: the columns the walking loop reads or writes, as
//! slices of one range of rows ([`WalkRows`]), so that disjoint ranges of the world's rows can
//! step at once, each in place (`sim::motion::parallel`), without copying them out and back.
//!
//! A step of row `r` reads and writes only row `r` of these columns (its neighbours' bodies
//! come from the neighbour grid), so a view of a range holds everything its rows' steps need.

use crate::project::Vec2;
use crate::sim::state::{AgentState, Agents, Liveness, WalkDecision};

/// Declares [`WalkRows`] over the listed columns of [`Agents`]: the `read` ones shared, the
/// `write` ones exclusive.
macro_rules! walk_rows {
    (
        read { $($(#[$rdoc:meta])* $read:ident: $rty:ty,)* }
        write { $($(#[$wdoc:meta])* $write:ident: $wty:ty,)* }
    ) => {
        /// One range of agent rows as the walking loop sees them (row 0 of the view is the
        /// range's first row): the columns a walker's step reads, and those it writes.
        #[derive(Debug)]
        pub struct WalkRows<'a> {
            $($(#[$rdoc])* pub $read: &'a [$rty],)*
            $($(#[$wdoc])* pub $write: &'a mut [$wty],)*
        }

        impl<'a> WalkRows<'a> {
            /// Every row of `agents`.
            #[inline]
            pub fn of(agents: &'a mut Agents) -> WalkRows<'a> {
                WalkRows {
                    $($read: &agents.$read,)*
                    $($write: &mut agents.$write,)*
                }
            }

            /// The view's rows before `mid` and from `mid` on (`mid` at most [`WalkRows::len`]).
            #[inline]
            pub fn split_at(self, mid: usize) -> (WalkRows<'a>, WalkRows<'a>) {
                $(let $read = self.$read.split_at(mid);)*
                $(let $write = self.$write.split_at_mut(mid);)*
                (
                    WalkRows { $($read: $read.0,)* $($write: $write.0,)* },
                    WalkRows { $($read: $read.1,)* $($write: $write.1,)* },
                )
            }
        }
    };
}

walk_rows! {
    read {
        /// The route each walks.
        route: u16,
        /// Its route's span in the flat route-point table.
        route_offset: u32,
        /// Its route's number of points.
        route_len: u32,
        /// Its own path's offset from its route's line, meters.
        path_offset_m: f64,
        /// Whether it stops at its route's goal.
        stops_at_route_end: bool,
        /// Walking speed, meters per second.
        speed_m_s: f64,
        /// Progress watch.
        liveness: Liveness,
        /// Whether its motion updates this step.
        updated: bool,
        /// Exit it flees to.
        flee_exit: u16,
        /// Goal of a traveller, threat of a fleer.
        target: Option<Vec2>,
    }
    write {
        /// Distance along its route, meters.
        distance_m: f64,
        /// Its walking direction along its route.
        direction: i8,
        /// Ground position, meters.
        position: Vec2,
        /// Unit facing direction.
        facing: Vec2,
        /// The point it walked towards.
        goal: Vec2,
        /// Fan angle of its last avoidance, degrees.
        steer_deg: i8,
        /// Steps since its last update.
        skipped_steps: u32,
        /// Fixed steps it was updated.
        steps: u64,
        /// What its step decided.
        walk_decision: WalkDecision,
        /// Its state.
        state: AgentState,
    }
}

impl WalkRows<'_> {
    /// Rows in the view.
    pub fn len(&self) -> usize {
        self.position.len()
    }

    /// Whether the view has no rows.
    pub fn is_empty(&self) -> bool {
        self.position.is_empty()
    }
}

/// `rows` agents with every column a view holds filled: row `r` at (r, −r), speed r / 2,
/// `r` steps (for tests of views).
#[cfg(test)]
pub(crate) fn test_agents(rows: usize) -> Agents {
    let mut agents = Agents::default();
    for row in 0..rows {
        let value = row as f64;
        agents.position.push(Vec2 {
            x: value,
            y: -value,
        });
        agents.speed_m_s.push(value * 0.5);
        agents.steps.push(row as u64);
    }
    agents.route.resize(rows, 0);
    agents.route_offset.resize(rows, 0);
    agents.route_len.resize(rows, 0);
    agents.path_offset_m.resize(rows, 0.0);
    agents.stops_at_route_end.resize(rows, false);
    agents.liveness.resize(rows, Liveness::default());
    agents.updated.resize(rows, false);
    agents.flee_exit.resize(rows, 0);
    agents.target.resize(rows, None);
    agents.distance_m.resize(rows, 0.0);
    agents.direction.resize(rows, 1);
    agents.facing.resize(rows, Vec2::default());
    agents.goal.resize(rows, Vec2::default());
    agents.steer_deg.resize(rows, 0);
    agents.skipped_steps.resize(rows, 0);
    agents.walk_decision.resize(rows, WalkDecision::Idle);
    agents.state.resize(rows, AgentState::Walking);
    agents
}

#[cfg(test)]
mod tests {
    use super::{test_agents as agents, WalkRows};
    use crate::project::Vec2;

    #[test]
    fn a_split_view_writes_each_half_in_place() {
        let mut agents = agents(5);
        {
            let (low, high) = WalkRows::of(&mut agents).split_at(2);
            assert_eq!((low.len(), high.len()), (2, 3));
            // Row 0 of the upper view is row 2 of the agents.
            assert_eq!(high.speed_m_s[0], 1.0);
            assert_eq!(high.position[0], Vec2 { x: 2.0, y: -2.0 });
            low.steps[1] += 10;
            high.position[2] = Vec2 { x: 40.0, y: 41.0 };
        }
        assert_eq!(agents.steps, vec![0, 11, 2, 3, 4]);
        assert_eq!(agents.position[4], Vec2 { x: 40.0, y: 41.0 });
        assert_eq!(agents.position[3], Vec2 { x: 3.0, y: -3.0 });
    }

    #[test]
    fn an_empty_split_keeps_every_row_on_one_side() {
        let mut agents = agents(3);
        let (low, high) = WalkRows::of(&mut agents).split_at(0);
        assert!(low.is_empty());
        assert_eq!(high.len(), 3);
        assert_eq!(high.speed_m_s, &[0.0, 0.5, 1.0]);
    }
}
