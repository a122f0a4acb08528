//! Watches the running world's population sources frame by frame and notices a source that has
//! spawned nothing for [`STALL_FRAMES`] frames while below its target, with the rejection reason
//! that stopped it most often. The Diagnostics tab shows these as warnings (until a Population
//! tab exists), so "Play shows 0 agents" is never silent.
//!
//! It only reads the world: each source's lifetime rejection table (so frames the UI skipped
//! while playing fast still count) and the agents per source. Every stalled source gets a
//! reason: the gate that refused it most since its last birth with what would unblock it, or,
//! when no gate refused anything, why no birth was attempted (population paused, a demand
//! waiting for a cycle, no cycle given). A rebuilt world, or a step back, starts the watch again from
//! what the world holds then.

use egui::{RichText, Ui};
use stagecraft_runtime::sim::population::SPAWN_REJECTIONS;
use stagecraft_runtime::sim::{SpawnRejection, World};

/// Frames without a birth after which a source below its target is reported (5 s at 20 Hz).
pub const STALL_FRAMES: u64 = 100;

/// One source's watch.
#[derive(Clone, Debug, Default, PartialEq)]
struct SourceWatch {
    /// Agents from the source seen last frame.
    agents: usize,
    /// The frame of its last birth seen (or the frame the watch started from).
    last_birth_frame: u64,
    /// The source's lifetime rejection table (by gate, `SPAWN_REJECTIONS` order) at that frame.
    baseline: Vec<u64>,
}

/// A source that has not spawned anything for a while.
#[derive(Clone, Debug, PartialEq)]
pub struct StalledSource {
    /// The source's id.
    pub source: String,
    /// Frames since its last birth (or since the start).
    pub frames: u64,
    /// Agents born from it so far, and its target.
    pub agents: usize,
    /// Its target count.
    pub target: u32,
    /// The most frequent rejection reason, with its count and the count of all rejections.
    pub dominant: Option<(SpawnRejection, u64, u64)>,
    /// When no gate refused anything: why no birth was attempted, and what would unblock it.
    pub idle: Option<String>,
}

impl StalledSource {
    /// The warning in words.
    pub fn message(&self) -> String {
        let why = match (self.dominant, &self.idle) {
            (Some((reason, count, total)), _) => format!(
                "; most attempts were rejected because {} ({count} of {total}); needs {}",
                reason_text(reason),
                reason.remedy()
            ),
            (None, Some(idle)) => format!("; {idle}"),
            (None, None) => String::new(),
        };
        format!(
            "Source `{}` has spawned nothing for {} frames ({} of {} agents){why}.",
            self.source, self.frames, self.agents, self.target
        )
    }
}

/// Why a birth attempt was rejected, in words.
pub fn reason_text(reason: SpawnRejection) -> &'static str {
    reason.describe()
}

/// The watch over one world.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SpawnWatch {
    world_version: Option<u64>,
    frame: u64,
    sources: Vec<SourceWatch>,
}

impl SpawnWatch {
    /// Takes in the world as it is now (once per UI frame is enough; several steps between two
    /// looks count only the last step's rejections).
    pub fn observe(&mut self, world: &World, world_version: u64) {
        let frame = world.frame();
        let counts = agents_per_source(world);
        let restart = self.world_version != Some(world_version)
            || frame < self.frame
            || self.sources.len() != counts.len();
        if restart {
            self.world_version = Some(world_version);
            self.frame = frame;
            self.sources = counts
                .iter()
                .enumerate()
                .map(|(source, &agents)| SourceWatch {
                    agents,
                    // A source with no agent at all has spawned nothing since frame 0.
                    last_birth_frame: if agents == 0 { 0 } else { frame },
                    baseline: if agents == 0 {
                        vec![0; SPAWN_REJECTIONS.len()]
                    } else {
                        rejection_table(world, source)
                    },
                })
                .collect();
            return;
        }
        if frame == self.frame {
            return;
        }
        self.frame = frame;
        for (source, (watch, agents)) in self.sources.iter_mut().zip(&counts).enumerate() {
            if *agents > watch.agents {
                watch.last_birth_frame = frame;
                watch.baseline = rejection_table(world, source);
            }
            watch.agents = *agents;
        }
    }

    /// The sources below their target that have spawned nothing for [`STALL_FRAMES`] frames,
    /// in scenario order.
    pub fn stalled(&self, world: &World) -> Vec<StalledSource> {
        let mut stalled = Vec::new();
        let sources = self.sources.iter().zip(&world.config().sources);
        for (index, (watch, config)) in sources.enumerate() {
            let frames = self.frame.saturating_sub(watch.last_birth_frame);
            if frames < STALL_FRAMES || watch.agents >= config.target_count as usize {
                continue;
            }
            let since: Vec<u64> = rejection_table(world, index)
                .iter()
                .zip(&watch.baseline)
                .map(|(now, then)| now.saturating_sub(*then))
                .collect();
            let total: u64 = since.iter().sum();
            let dominant = SPAWN_REJECTIONS
                .iter()
                .zip(&since)
                .filter(|(_, n)| **n > 0)
                .max_by_key(|(reason, n)| (**n, std::cmp::Reverse(**reason)))
                .map(|(reason, n)| (*reason, *n, total));
            stalled.push(StalledSource {
                source: config.id.clone(),
                frames,
                agents: watch.agents,
                target: config.target_count,
                dominant,
                idle: dominant.is_none().then(|| idle_reason(world, index)),
            });
        }
        stalled
    }
}

/// Source `index`'s lifetime rejections by gate (`SPAWN_REJECTIONS` order).
fn rejection_table(world: &World, index: usize) -> Vec<u64> {
    let mut table = vec![0; SPAWN_REJECTIONS.len()];
    if let Some(report) = world.spawn_report(index) {
        for (reason, count) in report.rejections {
            if let Some(slot) = SPAWN_REJECTIONS.iter().position(|r| *r == reason) {
                table[slot] = count;
            }
        }
    }
    table
}

/// Why a short source that no gate refused made no birth, and what would unblock it.
fn idle_reason(world: &World, index: usize) -> String {
    let population = world.population();
    if let Some(until) = population.paused_until_frame {
        return format!(
            "no birth was attempted: a PausePopulation directive pauses the population until \
             frame {until}; needs the pause to end"
        );
    }
    let rate = world.config().scenario.population.clocks.ped.rate();
    let sources = world.config().sources.len();
    let waiting = match world.spawn_report(index).and_then(|r| r.status.pending) {
        Some(_) => "its demand waits for a ped cycle",
        None => "no ped cycle has reached it yet",
    };
    format!(
        "no birth was attempted: {waiting} (population runs {rate:.3} ped cycles per second, \
         shared by {sources} sources); needs a higher population.ped_frame_rate or \
         ped_cycles_per_frame"
    )
}

/// Agents alive per source, by source index (from the Motion Frames).
fn agents_per_source(world: &World) -> Vec<usize> {
    let mut counts = vec![0; world.config().sources.len()];
    for frame in world.motion_frames() {
        if let Some(count) = counts.get_mut(usize::from(frame.tags.source)) {
            *count += 1;
        }
    }
    counts
}

/// The warnings of `stalled`, one line each, in the warning colour.
pub fn warnings_ui(ui: &mut Ui, stalled: &[StalledSource]) {
    for source in stalled {
        ui.label(
            RichText::new(format!("⚠ {}", source.message())).color(ui.visuals().warn_fg_color),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::fixtures::street_content;
    use stagecraft_runtime::project::{Box3, Directive, DirectiveCommand, Scenario, Target, Vec3};

    fn scenario(no_spawn_half_m: Option<f64>) -> Scenario {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/street-block");
        let (_, loaded) = crate::project_io::load_dir(&dir).expect("example readable");
        let mut scenario =
            loaded.project.expect("example loads").scenarios["crosswalk-rush"].clone();
        scenario.no_spawn_box = no_spawn_half_m.map(|h| Box3 {
            min: Vec3 {
                x: -h,
                y: -h,
                z: -h,
            },
            max: Vec3 { x: h, y: h, z: h },
        });
        scenario
    }

    fn watched(scenario: &Scenario, frames: u64) -> (World, SpawnWatch) {
        let content = street_content("r");
        let mut world = content.world(scenario, 7).expect("world");
        let mut watch = SpawnWatch::default();
        watch.observe(&world, 1);
        for _ in 0..frames {
            world.step();
            watch.observe(&world, 1);
        }
        (world, watch)
    }

    #[test]
    fn a_source_blocked_by_the_no_spawn_box_is_reported_with_that_reason() {
        let (world, watch) = watched(&scenario(Some(100.0)), STALL_FRAMES + 20);
        // The no-spawn box blocks ambient births only: the courier (a mission source) is born.
        assert_eq!(world.agent_count(), 1);
        let stalled = watch.stalled(&world);
        assert_eq!(stalled.len(), world.config().sources.len() - 1);
        for source in &stalled {
            assert_eq!(source.frames, STALL_FRAMES + 20);
            let Some((reason, count, total)) = source.dominant else {
                panic!("a reason for {}", source.source);
            };
            assert_eq!(reason, SpawnRejection::NoSpawnBox);
            assert_eq!(count, total);
            assert!(count >= STALL_FRAMES, "{count}");
        }
        let message = stalled[0].message();
        assert!(
            message.contains("has spawned nothing for 120 frames"),
            "{message}"
        );
        assert!(message.contains("inside the no-spawn box"), "{message}");
    }

    #[test]
    fn sources_that_spawn_are_not_reported_and_a_late_start_counts_from_the_world() {
        let (world, watch) = watched(&scenario(None), STALL_FRAMES + 20);
        assert!(world.agent_count() > 0);
        assert_eq!(watch.stalled(&world), Vec::new());
        // Not enough frames yet: no warning.
        let (world, watch) = watched(&scenario(Some(100.0)), STALL_FRAMES - 1);
        assert_eq!(watch.stalled(&world), Vec::new());
        // A watch that starts late on an empty world counts from frame 0.
        let (world, _) = watched(&scenario(Some(100.0)), STALL_FRAMES + 5);
        let mut late = SpawnWatch::default();
        late.observe(&world, 9);
        let stalled = late.stalled(&world);
        assert_eq!(stalled[0].frames, STALL_FRAMES + 5);
        assert_eq!(
            stalled[0].dominant.map(|d| d.0),
            Some(SpawnRejection::NoSpawnBox)
        );
    }

    #[test]
    fn a_watch_that_looks_every_tenth_frame_still_names_the_gate_and_the_remedy() {
        let content = street_content("r");
        let mut world = content.world(&scenario(Some(100.0)), 7).expect("world");
        let mut watch = SpawnWatch::default();
        watch.observe(&world, 1);
        for _ in 0..(STALL_FRAMES + 20) / 10 {
            for _ in 0..10 {
                world.step();
            }
            watch.observe(&world, 1);
        }
        let stalled = watch.stalled(&world);
        assert_eq!(stalled.len(), world.config().sources.len() - 1);
        for source in &stalled {
            let (reason, count, total) = source.dominant.expect("a gate");
            assert_eq!(reason, SpawnRejection::NoSpawnBox);
            assert_eq!(count, total);
            assert!(count >= STALL_FRAMES, "{count}");
            assert_eq!(source.idle, None);
        }
        let message = stalled[0].message();
        assert!(
            message.ends_with("; needs clear the no-spawn box or draw outside it."),
            "{message}"
        );
    }

    #[test]
    fn a_source_no_gate_refused_is_explained_with_what_holds_it() {
        // Paused from frame 1 (frame 1's own cycle still ran): the pause is named.
        let mut paused = scenario(None);
        paused.directives = vec![Directive {
            frame: 1,
            target: Target::World,
            command: DirectiveCommand::PausePopulation { duration_s: 30.0 },
            ..Default::default()
        }];
        let content = street_content("r");
        let mut world = content.world(&paused, 7).expect("world");
        let mut watch = SpawnWatch::default();
        for _ in 0..2 {
            world.step();
        }
        let before_pause = world.agent_count();
        let baseline: Vec<Vec<u64>> = (0..world.config().sources.len())
            .map(|i| rejection_table(&world, i))
            .collect();
        for _ in 0..STALL_FRAMES + 20 {
            world.step();
            watch.observe(&world, 1);
        }
        assert_eq!(
            world.agent_count(),
            before_pause,
            "nobody born while paused"
        );
        let idle: Vec<String> = (0..world.config().sources.len())
            .filter(|i| rejection_table(&world, *i) == baseline[*i])
            .map(|i| idle_reason(&world, i))
            .collect();
        assert!(!idle.is_empty());
        for text in &idle {
            assert_eq!(
                text,
                "no birth was attempted: a PausePopulation directive pauses the population \
                 until frame 601; needs the pause to end"
            );
        }
        // A ped cycle rate so low that no cycle comes: every source says so.
        let mut slow = scenario(None);
        slow.population.ped_frame_rate = 0.001;
        slow.population.ped_cycles_per_frame = 1.0;
        slow.directives.clear();
        let (world, watch) = watched(&slow, STALL_FRAMES + 20);
        assert_eq!(world.agent_count(), 0);
        let stalled = watch.stalled(&world);
        assert_eq!(stalled.len(), world.config().sources.len());
        for source in &stalled {
            assert_eq!(source.dominant, None);
            let idle = source.idle.as_deref().expect("a reason");
            assert!(
                idle.starts_with("no birth was attempted: no ped cycle has reached it yet"),
                "{idle}"
            );
            assert!(
                idle.contains("(population runs 0.001 ped cycles per second"),
                "{idle}"
            );
            assert!(source.message().ends_with("ped_cycles_per_frame."));
        }
    }
}
