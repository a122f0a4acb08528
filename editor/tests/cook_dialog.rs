//! The Cook dialog: File → Cook bundle… cooks the open project on its own thread (the UI keeps
//! stepping), shows the bundle digest and the hit and miss counts, and Verify checks the bundle.

mod support;

use std::time::Duration;

use egui_kittest::kittest::Queryable;

use stagecraft_editor::app::actions::Action;
use stagecraft_editor::app::dialogs::Dialog;
use support::{example, harness, wait_until};

/// The street block's cooked bundle digest (tests/tests/cook.rs pins the same).
const STREET_BLOCK: &str = "36506730eb5d5110d6f36618092810708ab622f09961fe4f4d8ab19ed9e3053f";

fn summary(
    app: &stagecraft_editor::app::StagecraftApp,
) -> Option<&stagecraft_editor::app::cook_dialog::CookSummary> {
    match app.dialog() {
        Some(Dialog::Cook { summary, .. }) => summary.as_ref(),
        _ => None,
    }
}

#[test]
fn the_cook_dialog_cooks_without_blocking_and_verifies() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    harness.state_mut().perform(Action::Cook);
    harness.run_steps(2);
    let out = example.dir.with_file_name("street-block-bundle");
    assert!(matches!(
        harness.state().dialog(),
        Some(Dialog::Cook { path, .. }) if *path == out.display().to_string()
    ));
    harness.get_by_label("Cook").click();
    let took = wait_until(&mut harness, Duration::from_secs(60), |app| {
        summary(app).is_some()
    });
    assert!(took.is_some(), "the cook finished");
    let done = summary(harness.state()).cloned().expect("summary");
    assert_eq!(done.digest, STREET_BLOCK);
    assert_eq!((done.hits, done.misses), (0, 3));
    assert!(
        done.lines[0].contains("street.block: miss: no entry"),
        "{:?}",
        done.lines
    );
    assert!(out.join("manifest.ron").is_file());
    // The modal re-centres once the summary makes it taller; click where it settled.
    harness.run_steps(3);
    harness.get_by_label("Verify").click();
    let verified = wait_until(&mut harness, Duration::from_secs(60), |app| {
        summary(app).is_some_and(|s| s.verified.is_some())
    });
    assert!(
        verified.is_some(),
        "status {:?}, dialog {:?}",
        harness.state().status(),
        harness.state().dialog()
    );
    let verified = summary(harness.state()).and_then(|s| s.verified.clone());
    assert!(
        matches!(&verified, Some(Ok(text)) if text.starts_with("3 products")),
        "{verified:?}"
    );
    // A second cook is served from the project's cache.
    harness.run_steps(3);
    harness.get_by_label("Cook").click();
    wait_until(&mut harness, Duration::from_secs(60), |app| {
        summary(app).is_some_and(|s| s.verified.is_none() && s.hits == 3)
    })
    .expect("a warm cook");
}
