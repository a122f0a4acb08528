//! Snapshot files end to end: `simulate --save-snapshot` then `--from-snapshot` ends with the
//! straight run's digest (crossings, tasks, scene changes); files of another scenario or
//! configuration, damaged files and files of the old format version are refused with the
//! reason; a world saved mid-knockdown continues bit for bit; and the editor's File → Save snapshot… / Restore snapshot… round trip through the app.

mod support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use stagecraft_editor::app::actions::Action;
use stagecraft_runtime::sim::read_snapshot_header;
use support::{example, harness, stagecraft, stdout, wait_until};

fn project(name: &str) -> PathBuf {
    support::repo_root().join("projects").join(name)
}

/// `stagecraft simulate` of `scenario` to frame 300 with `extra` arguments: (exit code, stdout).
fn simulate(project: &Path, scenario: &str, extra: &[&str]) -> (Option<i32>, String) {
    let path = project.display().to_string();
    let mut args = vec![
        "simulate",
        &path,
        "--scenario",
        scenario,
        "--frames",
        "300",
        "--every",
        "0",
    ];
    args.extend_from_slice(extra);
    let output = stagecraft(&args);
    // A refusal goes to stderr (the command line's contract), a report to stdout.
    let text = match output.status.code() {
        Some(0) => stdout(&output),
        _ => String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    (output.status.code(), text)
}

/// The `state digest …` line of a text report.
fn digest_line(text: &str) -> String {
    text.lines()
        .find(|l| l.starts_with("state digest "))
        .unwrap_or_else(|| panic!("no digest in {text}"))
        .to_owned()
}

#[test]
fn a_snapshot_file_continued_to_frame_300_prints_the_straight_runs_digest() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cases = [
        (
            "street-block",
            "crosswalk-rush",
            ["1", "137", "299"].as_slice(),
        ),
        ("street-lifecycle", "redirect", ["150"].as_slice()),
        (
            "street-lifecycle",
            "blocked-wait-resume",
            ["90", "200"].as_slice(),
        ),
        // Knocked down at frame 40, the intent cancelled at 50: saved lying on the ground, and
        // after the recovery (the physics scene stays in the world).
        (
            "street-lifecycle",
            "cancel-knockdown",
            ["45", "120"].as_slice(),
        ),
    ];
    for (name, scenario, frames) in cases {
        let project = project(name);
        let (code, straight) = simulate(&project, scenario, &[]);
        assert_eq!(code, Some(0), "{straight}");
        let straight = digest_line(&straight);
        for at in frames {
            let file = dir.path().join(format!("{scenario}-{at}.stgsnap"));
            let file_arg = file.display().to_string();
            let (code, saved) = simulate(
                &project,
                scenario,
                &["--snapshot-at", at, "--save-snapshot", &file_arg],
            );
            assert_eq!(code, Some(0), "{saved}");
            assert_eq!(digest_line(&saved), straight, "{scenario} saving at {at}");
            let header = read_snapshot_header(&std::fs::read(&file).expect("written"))
                .expect("a snapshot file");
            assert_eq!(header.frame.to_string(), *at);
            assert_eq!(header.scenario, scenario);
            let (code, continued) = simulate(&project, scenario, &["--from-snapshot", &file_arg]);
            assert_eq!(code, Some(0), "{continued}");
            assert_eq!(
                digest_line(&continued),
                straight,
                "{scenario} from {at}: {continued}"
            );
            assert!(continued.contains("frame 300 "), "{continued}");
        }
    }
}

#[test]
fn a_snapshot_of_another_scenario_or_seed_is_refused_with_the_reason() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("rush.stgsnap");
    let file_arg = file.display().to_string();
    let street = project("street-block");
    let (code, text) = simulate(&street, "crosswalk-rush", &["--save-snapshot", &file_arg]);
    assert_eq!(code, Some(0), "{text}");
    let (code, text) = simulate(&street, "panic-flee", &["--from-snapshot", &file_arg]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("the snapshot is of scenario `crosswalk-rush`, not of `panic-flee`"),
        "{text}"
    );
    assert!(!text.contains("state digest"), "{text}");
    // The same scenario under another root seed: another configuration.
    let copy = example("street-block");
    let manifest = copy.dir.join("stagecraft.ron");
    let text = std::fs::read_to_string(&manifest).expect("manifest");
    let seed_line = text
        .lines()
        .find(|l| l.trim_start().starts_with("root_seed:"))
        .expect("a root seed");
    std::fs::write(
        &manifest,
        text.replace(seed_line, "    root_seed: 987654321,"),
    )
    .expect("write");
    let (code, text) = simulate(&copy.dir, "crosswalk-rush", &["--from-snapshot", &file_arg]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("was taken under another configuration"),
        "{text}"
    );
    assert!(text.contains("the seed, the generated content"), "{text}");
}

#[test]
fn damaged_and_foreign_files_are_refused_by_what_is_wrong() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("rush.stgsnap");
    let file_arg = file.display().to_string();
    let street = project("street-block");
    let (code, text) = simulate(&street, "crosswalk-rush", &["--save-snapshot", &file_arg]);
    assert_eq!(code, Some(0), "{text}");
    let bytes = std::fs::read(&file).expect("written");
    let cases: [(&str, Vec<u8>); 3] = [
        (
            "not a Stagecraft snapshot file",
            b"{ not: a snapshot }".to_vec(),
        ),
        (
            "is cut short: it ends inside the payload",
            bytes[..bytes.len() / 2].to_vec(),
        ),
        ("payload is damaged", {
            let mut flipped = bytes.clone();
            let last = flipped.len() - 3;
            flipped[last] ^= 1;
            flipped
        }),
    ];
    for (reason, damaged) in cases {
        let bad = dir.path().join("bad.stgsnap");
        std::fs::write(&bad, damaged).expect("write");
        let (code, text) = simulate(
            &street,
            "crosswalk-rush",
            &["--from-snapshot", &bad.display().to_string()],
        );
        assert_eq!(code, Some(1), "{text}");
        assert!(text.contains(reason), "{reason}: {text}");
    }
}

#[test]
fn a_file_of_the_first_format_version_is_refused_by_version() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("knock.stgsnap");
    let street = project("street-lifecycle");
    let (code, text) = simulate(
        &street,
        "escape-knockdown",
        &["--save-snapshot", &file.display().to_string()],
    );
    assert_eq!(code, Some(0), "a world after a knockdown is saved: {text}");
    // The same file stamped version 1 (which could not hold a knockdown).
    let mut bytes = std::fs::read(&file).expect("read");
    bytes[8..12].copy_from_slice(&1u32.to_le_bytes());
    std::fs::write(&file, bytes).expect("write");
    let (code, text) = simulate(
        &street,
        "escape-knockdown",
        &["--from-snapshot", &file.display().to_string()],
    );
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("snapshot format version 1 is not supported (this build reads version 4"),
        "{text}"
    );
}

/// The app's state digest and frame.
fn world_of(app: &stagecraft_editor::app::StagecraftApp) -> Option<(u64, String)> {
    let preview = app.preview().borrow();
    let world = preview.session.world()?;
    Some((world.frame(), world.state_digest_hex()))
}

#[test]
fn the_editor_saves_and_restores_a_snapshot_through_the_file_menu_actions() {
    let copy = example("street-block");
    let mut harness = harness(&copy.dir);
    wait_until(&mut harness, Duration::from_secs(120), |app| {
        world_of(app).is_some()
    })
    .expect("a world");
    let scenario = harness
        .state()
        .preview()
        .borrow()
        .session
        .scenario_id()
        .map(str::to_owned);
    assert_eq!(scenario.as_deref(), Some("crosswalk-rush"));
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("at-137.stgsnap");
    harness.state().preview().borrow_mut().session.step(137);
    harness
        .state_mut()
        .perform(Action::SaveSnapshotTo(file.clone()));
    let status = harness.state().status().map(|(s, e)| (s.to_owned(), e));
    assert_eq!(
        status,
        Some((
            format!("Saved the snapshot of frame 137 to {}", file.display()),
            false
        ))
    );
    harness.state().preview().borrow_mut().session.step(163);
    let straight = world_of(harness.state()).expect("world");
    assert_eq!(straight.0, 300);
    // Back to the start, then restore and continue: the same frame-300 state.
    harness.state().preview().borrow_mut().session.seek(5);
    harness
        .state_mut()
        .perform(Action::RestoreSnapshotFrom(file.clone()));
    let status = harness.state().status().map(|(s, e)| (s.to_owned(), e));
    assert_eq!(
        status,
        Some((
            format!(
                "Restored frame 137 of `crosswalk-rush` from {}",
                file.display()
            ),
            false
        ))
    );
    assert_eq!(world_of(harness.state()).map(|w| w.0), Some(137));
    harness.step();
    harness.state().preview().borrow_mut().session.step(163);
    assert_eq!(world_of(harness.state()), Some(straight.clone()));
    // The CLI's straight run ends in the same state.
    let (_, text) = simulate(&project("street-block"), "crosswalk-rush", &[]);
    assert_eq!(digest_line(&text), format!("state digest {}", straight.1));
    // A file that is not a snapshot: an error on the status line, the world unchanged.
    let bad = dir.path().join("bad.stgsnap");
    std::fs::write(&bad, b"nonsense").expect("write");
    harness
        .state_mut()
        .perform(Action::RestoreSnapshotFrom(bad));
    let (message, is_error) = harness.state().status().expect("a status");
    assert!(is_error);
    assert!(
        message.contains("not a Stagecraft snapshot file"),
        "{message}"
    );
    assert_eq!(world_of(harness.state()), Some(straight));
}
