//! Session tests: scrubbing determinism through the session, re-simulating to the same frame after
//! an edit, regenerating after a recipe edit, and playback.

use std::path::Path;

use super::*;
use crate::service::{focus_recipe_in, GenerationError, GenerationInputs, GenerationService};
use crate::session::fixtures::street_content;
use stagecraft_runtime::project::Project;

/// A session with its own generation service, synced over bare projects (each sync is a new
/// revision, as if the project had been edited).
struct Rig {
    service: GenerationService,
    session: Session,
    revision: u64,
}

impl Rig {
    fn new(service: GenerationService) -> Rig {
        Rig {
            service,
            session: Session::default(),
            revision: 0,
        }
    }

    /// The runtime generator, in the calling thread.
    fn real() -> Rig {
        Rig::new(GenerationService::inline())
    }

    /// The example street block's content without the generator.
    fn fixture() -> Rig {
        Rig::new(GenerationService::custom(|inputs: &GenerationInputs| {
            Ok(street_content(&inputs.recipe.id))
        }))
    }

    fn sync_project(&mut self, project: &Project, selected: Option<&DocId>) -> bool {
        self.revision += 1;
        self.session.choose_scenario_for(project, selected);
        let recipe = focus_recipe_in(
            project,
            selected,
            self.session.scenario_id(),
            self.service.recipe(),
        );
        self.service
            .sync_parts(0, self.revision, project, recipe.as_deref());
        self.session.sync_project(project, selected, &self.service)
    }
}

impl std::ops::Deref for Rig {
    type Target = Session;
    fn deref(&self) -> &Session {
        &self.session
    }
}

impl std::ops::DerefMut for Rig {
    fn deref_mut(&mut self) -> &mut Session {
        &mut self.session
    }
}

/// The street-block example project.
fn example() -> Project {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/street-block");
    let (_, loaded) = crate::project_io::load_dir(&dir).expect("example readable");
    loaded.project.expect("example loads")
}

fn synced(project: &Project) -> Rig {
    let mut session = Rig::fixture();
    session.sync_project(project, None);
    assert!(session.problem().is_none(), "{:?}", session.problem());
    session
}

fn digest(session: &Rig) -> [u8; 32] {
    session.world().expect("world").state_digest()
}

/// The digest of a fresh world over the same content stepped straight to `frame`.
fn straight_digest(project: &Project, scenario_id: &str, frame: u64) -> [u8; 32] {
    let content = street_content("street-block");
    let scenario = &project.scenarios[scenario_id];
    let mut world = content
        .world(scenario, project.manifest.root_seed)
        .expect("world");
    for _ in 0..frame {
        world.step();
    }
    world.state_digest()
}

#[test]
fn the_session_runs_the_first_scenario_over_its_recipe() {
    let project = example();
    let session = synced(&project);
    assert_eq!(session.scenario_id(), Some("crosswalk-rush"));
    assert_eq!(session.frame(), 0);
    assert_eq!(session.last_frame(), 1200);
    let routes: Vec<String> = session
        .content()
        .expect("content")
        .sim_space()
        .expect("space")
        .routes
        .into_iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(routes, ["crosswalk.0", "sidewalk.north", "sidewalk.south"]);
}

#[test]
fn every_source_of_the_example_spawns_pedestrians() {
    // The no-spawn box covers only the carriageway, so the crossers spawn on the kerbs.
    let project = example();
    let mut session = synced(&project);
    session.step(600);
    let world = session.world().expect("world");
    // Every source creates its whole target behind the opening fade (created counts new
    // entities; the peds a source hosts now can differ, since cross-source reuse moves pooled
    // peds to the source that readmits them). The south sidewalk creates one more: a ped it
    // retired at frame 53 could not rejoin it in the same use (a later source generation is
    // needed), so its shortfall was met by a new ped.
    let created: Vec<u64> = world.source_statuses().iter().map(|s| s.created).collect();
    assert_eq!(created, [24, 25, 8, 1], "north, south, crossers, courier");
    assert_eq!(world.agent_count(), 58);
    assert!(world.counters().rejected_no_spawn_box > 0);
}

#[test]
fn scrubbing_through_the_session_is_bit_identical_to_stepping() {
    let project = example();
    let mut session = synced(&project);
    session.step(600);
    let at_600 = digest(&session);
    assert_eq!(at_600, straight_digest(&project, "crosswalk-rush", 600));
    assert!(session.world().expect("world").agent_count() > 10);
    // Back to an earlier frame and forward again, one frame back, a jump between checkpoints.
    session.seek(37);
    assert_eq!(
        digest(&session),
        straight_digest(&project, "crosswalk-rush", 37)
    );
    session.seek(600);
    assert_eq!(digest(&session), at_600);
    session.step(1);
    session.step_back();
    assert_eq!(session.frame(), 600);
    assert_eq!(digest(&session), at_600);
    session.seek(0);
    assert_eq!(session.frame(), 0);
}

#[test]
fn editing_the_scenario_while_paused_resimulates_to_the_same_frame() {
    let mut project = example();
    let mut session = synced(&project);
    session.step(250);
    let before = digest(&session);
    let world_version = session.world_version();
    let scenario = project
        .scenarios
        .get_mut("crosswalk-rush")
        .expect("scenario");
    scenario.sources[0].target_count = 5;
    assert!(session.sync_project(&project, None));
    assert_eq!(session.frame(), 250);
    assert!(session.world_version() > world_version);
    assert_ne!(digest(&session), before);
    assert_eq!(
        digest(&session),
        straight_digest(&project, "crosswalk-rush", 250)
    );
    // Nothing changed: nothing is rebuilt.
    assert!(!session.sync_project(&project, None));
}

#[test]
fn editing_the_recipe_regenerates_and_keeps_the_frame() {
    let mut project = example();
    let mut session = synced(&project);
    session.step(80);
    let version = session.content_version();
    let recipe = project.recipes.get_mut("street-block").expect("recipe");
    recipe.label.push_str(" (edited)");
    let world_version = session.world_version();
    assert!(session.sync_project(&project, None));
    assert_eq!(session.content_version(), version + 1);
    assert_eq!(session.frame(), 80);
    assert_eq!(
        session.world_version(),
        world_version,
        "same routes: the world is kept"
    );
}

#[test]
fn a_longer_street_rebuilds_the_world_at_the_same_frame() {
    use stagecraft_runtime::project::ParamValue;
    let mut project = example();
    let mut session = Rig::real();
    session.sync_project(&project, None);
    session.step(150);
    let (world_version, before) = (session.world_version(), digest(&session));
    let recipe = project.recipes.get_mut("street-block").expect("recipe");
    let stage = recipe
        .stages
        .iter_mut()
        .find(|s| s.operator == "street.block")
        .expect("a street block stage");
    stage
        .parameters
        .insert("length_m".into(), ParamValue::Float(120.0));
    assert!(session.sync_project(&project, None));
    assert_eq!(session.problem(), None);
    assert!(session.world_version() > world_version);
    assert_eq!(session.frame(), 150);
    assert_ne!(digest(&session), before);
}

#[test]
fn a_scenario_naming_a_missing_route_reports_why() {
    let mut project = example();
    let scenario = project
        .scenarios
        .get_mut("crosswalk-rush")
        .expect("scenario");
    scenario.sources[0].route = "sidewalk.nowhere".into();
    let mut session = Rig::fixture();
    session.sync_project(&project, None);
    assert!(session.timeline().is_none());
    assert!(session
        .problem()
        .is_some_and(|p| p.contains("sidewalk.nowhere")));
    // Failing generation is reported, not a panic.
    let mut failing = Rig::new(GenerationService::custom(|_: &GenerationInputs| {
        Err(GenerationError::Other("stage 2 failed".into()))
    }));
    failing.sync_project(&example(), None);
    assert_eq!(failing.problem(), Some("stage 2 failed"));
}

#[test]
fn playback_follows_real_time_and_speed_and_stops_at_the_end() {
    let project = example();
    let mut session = synced(&project);
    assert_eq!(session.tick(1.0), 0, "paused");
    session.toggle_play();
    assert!(session.playing);
    // 0.05 s per frame: one real second at 1× is 20 frames.
    assert_eq!(session.tick(1.0), 20);
    session.speed = 2.0;
    assert_eq!(session.tick(0.5), 20);
    // A long stall is capped.
    assert_eq!(session.tick(100.0), MAX_STEPS_PER_TICK);
    session.seek(1190);
    assert_eq!(session.tick(10.0), 10);
    assert!(!session.playing, "stops at the scenario's last frame");
    // Play from the end starts over.
    session.toggle_play();
    assert_eq!(session.frame(), 0);
}

#[test]
fn the_real_generator_previews_the_example_street_block() {
    let project = example();
    let mut session = Rig::real();
    session.sync_project(&project, None);
    assert_eq!(session.problem(), None);
    let content = session.content().expect("generated");
    assert_eq!(content.recipe(), "street-block");
    assert!(content.street_blocks().count() == 1);
    assert!(!content.sim_space().expect("space").routes.is_empty());
    assert!(content
        .stages()
        .iter()
        .any(|s| matches!(s.product.as_ref(), stagecraft_runtime::content::Product::PlacedObjects(p) if !p.objects.is_empty())));
    session.step(100);
    assert!(session.world().expect("world").agent_count() > 5);
    // Generating again with unchanged inputs does nothing; a changed seed regenerates.
    assert!(!session.sync_project(&project, None));
    let mut reseeded = project.clone();
    reseeded.manifest.root_seed += 1;
    assert!(session.sync_project(&reseeded, None));
    assert_eq!(session.frame(), 100);
}

#[test]
fn an_edit_at_frame_zero_rebuilds_at_frame_zero() {
    let mut project = example();
    let mut session = synced(&project);
    let scenario = project
        .scenarios
        .get_mut("crosswalk-rush")
        .expect("scenario");
    scenario.name.push_str(" (edited)");
    assert!(session.sync_project(&project, None));
    assert_eq!(session.frame(), 0);
}

/// Syncs `session` with `project` until its content is generated (at most ten seconds).
fn sync_until_generated(session: &mut Rig, project: &Project) {
    let start = std::time::Instant::now();
    session.sync_project(project, None);
    while session.service.is_busy() {
        assert!(
            start.elapsed().as_secs() < 10,
            "no content within ten seconds"
        );
        std::thread::sleep(std::time::Duration::from_millis(2));
        session.sync_project(project, None);
    }
}

#[test]
fn background_generation_shows_what_inline_generation_shows() {
    let mut project = example();
    let mut inline = Rig::real();
    let mut background = Rig::new(GenerationService::background());
    inline.sync_project(&project, None);
    sync_until_generated(&mut background, &project);
    let bundle = |session: &Rig| session.content().expect("content").bundle.digest();
    assert_eq!(bundle(&background), bundle(&inline));
    assert_eq!(background.content_version(), 1);
    assert_eq!(digest(&background), digest(&inline));

    // An edit keeps the previous content on show until the new one arrives.
    project.manifest.root_seed ^= 0x5eed;
    let before = bundle(&background);
    background.sync_project(&project, None);
    if background.service.is_busy() {
        assert_eq!(bundle(&background), before);
    }
    sync_until_generated(&mut background, &project);
    inline.sync_project(&project, None);
    assert_ne!(bundle(&background), before);
    assert_eq!(bundle(&background), bundle(&inline));
    assert_eq!(background.content_version(), 2);
    background.step(120);
    inline.step(120);
    assert_eq!(digest(&background), digest(&inline));
}

#[test]
fn a_changed_motion_profile_alone_rebuilds_the_world_at_the_same_frame() {
    use stagecraft_runtime::sim::config::profiles::{standard_profile, WALKING};
    use stagecraft_runtime::sim::scenario::profiles::profile_document;
    let mut project = example();
    let mut session = synced(&project);
    session.step(40);
    let world_version = session.world_version();
    let mut walking = profile_document(&standard_profile(WALKING).expect("walking"));
    walking.speed_m_s = 1.1;
    project.motions.insert("walking".into(), walking.clone());
    assert!(session.sync_project(&project, None), "a new profile");
    assert_eq!(session.world_version(), world_version + 1);
    assert_eq!(session.frame(), 40);
    let world = session.world().expect("world");
    assert_eq!(
        world.config().scenario.motion.profiles.get(0).speed_m_s,
        1.1
    );
    assert!(!session.sync_project(&project, None), "nothing changed");
    walking.speed_m_s = 1.2;
    project.motions.insert("walking".into(), walking);
    assert!(session.sync_project(&project, None), "an edited profile");
    assert_eq!(session.world_version(), world_version + 2);
}
