//! Generation service tests: the newest request wins, superseded runs are cancelled through their
//! token, edits elsewhere start nothing, a user's cancel keeps the previous content, typed errors,
//! and the shared observer's progress and timings.

use std::path::Path;
use std::sync::mpsc::{channel, Sender};
use std::time::{Duration, Instant};

use super::*;
use crate::session::fixtures::street_content;
use stagecraft_runtime::generate::{
    CacheOutcome, ExecutionMode, ExecutionObserver as _, GenerateRequest, Generator,
};
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::project::recipe_file;
use stagecraft_runtime::project::ParamValue;
use stagecraft_runtime::recipe::{compile, RecipeSource};

fn example() -> Project {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/street-block");
    let (_, loaded) = crate::project_io::load_dir(&dir).expect("example readable");
    loaded.project.expect("example loads")
}

const RECIPE: &str = "street-block";

/// Polls until the service is idle (at most ten seconds).
fn settle(service: &mut GenerationService) {
    let start = Instant::now();
    while service.is_busy() {
        assert!(start.elapsed() < Duration::from_secs(10), "still busy");
        service.poll();
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// A background service whose generator waits for a go-ahead per run.
fn gated() -> (GenerationService, Sender<()>) {
    let (go, gate) = channel::<()>();
    let service = GenerationService::custom_background(move |inputs: &GenerationInputs| {
        gate.recv_timeout(Duration::from_secs(10))
            .map_err(|_| GenerationError::Other("no go-ahead".into()))?;
        Ok(street_content(&inputs.recipe.id))
    });
    (service, go)
}

#[test]
fn the_newest_request_wins_and_matches_inline_generation() {
    let mut project = example();
    let mut service = GenerationService::background();
    service.sync_parts(1, 1, &project, Some(RECIPE));
    project.manifest.root_seed ^= 0x5eed;
    service.sync_parts(1, 2, &project, Some(RECIPE));
    // Whether it is still busy here depends on timing (the gated tests check busy states).
    settle(&mut service);
    let latest = service.latest().expect("a generation");
    assert_eq!(latest.key.revision, 2);
    let mut inline = GenerationService::inline();
    inline.sync_parts(1, 2, &project, Some(RECIPE));
    assert_eq!(
        latest.digest_hex(),
        inline.latest().and_then(|g| g.digest_hex())
    );
    assert!(latest.stages.values().all(|s| s.time_ms.is_some()));
}

#[test]
fn a_superseded_run_is_cancelled_through_its_token() {
    let project = example();
    let (mut service, go) = gated();
    service.sync_parts(1, 1, &project, Some(RECIPE));
    let first = service.running.as_ref().expect("running").0.clone();
    let mut edited = project.clone();
    edited.manifest.root_seed += 1;
    service.sync_parts(1, 2, &edited, Some(RECIPE));
    assert!(
        first.is_cancelled(),
        "the superseded run's token is cancelled"
    );
    let second = service.running.as_ref().expect("running").0.clone();
    assert!(!second.is_cancelled());
    go.send(()).expect("thread alive");
    let _ = go.send(());
    settle(&mut service);
    assert_eq!(service.latest().map(|g| g.key.revision), Some(2));
    assert_eq!(
        service.version(),
        1,
        "the superseded result was never shown"
    );
}

#[test]
fn an_edit_elsewhere_starts_no_generation() {
    let mut project = example();
    let mut service = GenerationService::inline();
    service.sync_parts(1, 1, &project, Some(RECIPE));
    assert_eq!(service.generations_started(), 1);
    let digest = service.latest().and_then(|g| g.digest_hex());
    // Every frame without an edit: nothing happens.
    for _ in 0..10 {
        assert!(!service.sync_parts(1, 1, &project, Some(RECIPE)));
    }
    // A scenario edit is a new revision with the same recipe inputs.
    if let Some(scenario) = project.scenarios.values_mut().next() {
        scenario.name.push_str(" (edited)");
    }
    service.sync_parts(1, 2, &project, Some(RECIPE));
    assert_eq!(service.generations_started(), 1);
    assert_eq!(service.latest().and_then(|g| g.digest_hex()), digest);
    // A recipe edit generates once.
    let stage = project
        .recipes
        .get_mut(RECIPE)
        .and_then(|r| r.stages.iter_mut().find(|s| s.operator == "street.block"))
        .expect("a street block stage");
    stage
        .parameters
        .insert("length_m".into(), ParamValue::Float(120.0));
    assert!(service.sync_parts(1, 3, &project, Some(RECIPE)));
    assert_eq!(service.generations_started(), 2);
    assert_ne!(service.latest().and_then(|g| g.digest_hex()), digest);
}

#[test]
fn cancelling_keeps_the_previous_content() {
    let project = example();
    let (mut service, go) = gated();
    service.sync_parts(1, 1, &project, Some(RECIPE));
    go.send(()).expect("thread alive");
    settle(&mut service);
    let before = service.content().cloned().expect("content");
    let mut edited = project.clone();
    edited.manifest.root_seed += 1;
    service.sync_parts(1, 2, &edited, Some(RECIPE));
    assert!(service.is_busy());
    service.cancel();
    assert!(!service.is_busy());
    assert!(service.was_cancelled());
    go.send(()).expect("thread alive");
    std::thread::sleep(Duration::from_millis(100));
    service.poll();
    let after = service.content().cloned().expect("content");
    assert!(Arc::ptr_eq(&before, &after), "the previous content stays");
    assert_eq!(service.latest().map(|g| g.key.revision), Some(1));
    // Nothing is asked again until the next edit.
    assert!(!service.sync_parts(1, 2, &edited, Some(RECIPE)));
    assert!(!service.is_busy());
}

#[test]
fn errors_are_typed() {
    let mut project = example();
    let mut service = GenerationService::inline();
    service.sync_parts(1, 1, &project, Some(RECIPE));
    assert!(service.problem().is_none());
    service.sync_parts(1, 2, &project, Some("no-such-recipe"));
    assert_eq!(
        service.problem(),
        Some(&GenerationError::MissingRecipe("no-such-recipe".into()))
    );
    assert_eq!(
        service.problem().map(ToString::to_string).as_deref(),
        Some("the recipe `no-such-recipe` is missing")
    );
    let stage = project
        .recipes
        .get_mut(RECIPE)
        .and_then(|r| r.stages.first_mut())
        .expect("a stage");
    stage.operator = "no.such-operator".into();
    service.sync_parts(1, 3, &project, Some(RECIPE));
    match service.problem() {
        Some(GenerationError::Compile {
            recipe,
            diagnostics,
        }) => {
            assert_eq!(recipe, RECIPE);
            assert!(diagnostics.iter().any(|d| d.is_error()));
        }
        other => panic!("expected a compile error, got {other:?}"),
    }
    assert!(
        service.content().is_some(),
        "a failure keeps the last content"
    );
    assert!(service.latest().is_some_and(|g| g.content().is_none()));
}

#[test]
fn the_observer_counts_every_stage_and_candidate() {
    let project = example();
    let inputs = GenerationInputs::of(&project, RECIPE).expect("inputs");
    let file = recipe_file(RECIPE);
    let plan = compile(
        &inputs.recipe,
        &inputs.families,
        &Registry::standard(),
        RecipeSource {
            file: &file,
            tree: None,
        },
    )
    .plan
    .expect("compiles");
    let heard = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&heard);
    let observer = StageObserver::new(&plan).with_hook(Box::new(move |progress| {
        if let Ok(mut heard) = sink.lock() {
            heard.push(progress);
        }
    }));
    let before = observer.progress();
    assert_eq!(before.stages_done, 0);
    assert_eq!(before.stages_total, plan.stages().len() as u64);
    assert_eq!(before.fraction(), 0.0);
    let request = GenerateRequest {
        root_seed: inputs.seed,
        mode: ExecutionMode::Serial,
        generation: 1,
    };
    Generator::new()
        .generate(&plan, &request, &CancelToken::new(), &observer)
        .expect("generates");
    let after = observer.progress();
    assert_eq!(after.stages_done, after.stages_total);
    assert_eq!(after.candidates_done, after.candidates_total);
    assert_eq!(after.fraction(), 1.0);
    let heard = heard.lock().expect("lock").clone();
    // One report per finished stage, plus one per piece of a long kernel, never going back.
    assert!(heard.len() >= plan.stages().len(), "{heard:?}");
    assert!(heard
        .windows(2)
        .all(|pair| pair[0].candidates_done <= pair[1].candidates_done));
    assert_eq!(heard.last(), Some(&after));
    assert_eq!(observer.timings().len(), plan.stages().len());
    // A running stage's own reports count before it finishes, capped at its estimate.
    let running = StageObserver::new(&plan);
    let stage = plan.stages()[0].id();
    let estimate = plan.stages()[0].capacity().candidates;
    running.stage_progress(stage, 7.min(estimate));
    assert_eq!(running.progress().candidates_done, 7.min(estimate));
    running.stage_progress(stage, u64::MAX);
    assert_eq!(running.progress().candidates_done, estimate);
    running.stage_finished(stage, CacheOutcome::Hit, true);
    assert_eq!(running.progress().candidates_done, estimate);
    assert_eq!(running.progress().stages_done, 1);
}

#[test]
fn the_focus_follows_the_selection_then_the_scenario() {
    let project = example();
    let scenario = project.scenarios.keys().next().cloned();
    assert_eq!(
        focus_recipe_in(&project, None, scenario.as_deref(), None).as_deref(),
        Some(RECIPE)
    );
    let selected = DocId::Recipe(RECIPE.into());
    assert_eq!(
        focus_recipe_in(&project, Some(&selected), None, None).as_deref(),
        Some(RECIPE)
    );
    assert_eq!(
        focus_recipe_in(&Project::default(), None, None, Some(RECIPE)),
        None
    );
}

#[test]
fn the_service_applies_the_recipes_overrides_and_an_edit_of_them_regenerates() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/pine-clearing");
    let (_, loaded) = crate::project_io::load_dir(&dir).expect("example readable");
    let mut project = loaded.project.expect("example loads");
    let mut service = GenerationService::inline();
    service.sync_parts(1, 1, &project, Some("pine-clearing"));
    // The same digest `stagecraft generate` prints (pinned in tests/tests/generate.rs).
    let golden = "b88ad45c69d67223af80fbc024b6d8ab6129d439ef5cba8e1182463b1050aa85";
    assert_eq!(
        service.latest().and_then(|g| g.digest_hex()).as_deref(),
        Some(golden)
    );
    let set = project
        .overrides
        .get_mut("pine-clearing-edits")
        .expect("set");
    set.overrides.clear();
    set.mutations.clear();
    service.sync_parts(1, 2, &project, Some("pine-clearing"));
    let latest = service.latest().expect("a generation");
    assert_eq!(latest.key.revision, 2, "editing the overrides regenerated");
    assert_eq!(
        latest.digest_hex().as_deref(),
        Some("afe959275630563ac05e49f1a29d09fef56af11360bab9d088204ae9e7ca7931"),
        "without edits: the base digest"
    );
}

/// Freezing a stage's inputs asks once more (the whole recipe from the cache, then the stage
/// against them) and keeps the content on show; an edit of that stage re-runs it; an edit
/// elsewhere asks nothing; releasing asks once more.
#[test]
fn an_isolation_asks_once_and_keeps_the_content_on_show() {
    let mut project = example();
    let mut service = GenerationService::inline();
    service.sync_parts(1, 1, &project, Some(RECIPE));
    let content = Arc::clone(service.content().expect("content"));
    assert!(service.latest().expect("g").isolated.is_none());
    let frozen = Arc::new(FrozenInputs::freeze(&content.bundle, 3).expect("stage 3"));
    service.isolate(Some(Arc::clone(&frozen)));
    assert!(service.sync_parts(1, 1, &project, Some(RECIPE)));
    assert_eq!(service.generations_started(), 2);
    let latest = service.latest().expect("g");
    assert_eq!(latest.key.isolation, Some((3, frozen.digest())));
    assert!(Arc::ptr_eq(service.content().expect("content"), &content));
    let run = latest.isolated.as_ref().expect("isolated");
    assert!(run.cache_hit);
    let bundle = run.result.as_ref().expect("ran");
    assert_eq!(**bundle, content.bundle.isolated(3).expect("3"));
    // The same freeze again, or an edit of a scenario: nothing asked.
    service.isolate(Some(Arc::new(
        FrozenInputs::freeze(&content.bundle, 3).expect("3"),
    )));
    assert!(!service.sync_parts(1, 1, &project, Some(RECIPE)));
    project.scenarios.clear();
    service.sync_parts(1, 2, &project, Some(RECIPE));
    assert_eq!(service.generations_started(), 2);
    // The stage's own parameter: its re-run is the edited stage.
    let stage = project.recipes.get_mut(RECIPE).expect("recipe");
    let place = stage.stages.iter_mut().find(|s| s.id == 3).expect("3");
    place
        .parameters
        .insert("scale_max".into(), ParamValue::Int(1500));
    service.sync_parts(1, 3, &project, Some(RECIPE));
    let latest = service.latest().expect("g");
    let live = latest
        .content()
        .expect("content")
        .stage(3)
        .expect("3")
        .digest;
    let run = latest.isolated.as_ref().expect("isolated");
    assert_eq!(run.result.as_ref().expect("ran").stages[0].digest, live);
    assert_ne!(live, content.stage(3).expect("3").digest);
    service.isolate(None);
    service.sync_parts(1, 3, &project, Some(RECIPE));
    assert_eq!(service.generations_started(), 4);
    assert!(service.latest().expect("g").isolated.is_none());
}
