//! End-to-end test of the streaming-crowd example through `stagecraft simulate`: the crowd's
//! loaded ring follows the scenario's camera down the street, every walker outside it has its
//! request demoted one rung, and the report prints the Motion phase's counters.

mod support;

use support::{stagecraft, stdout};

fn example() -> String {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../projects/streaming-crowd")
        .display()
        .to_string()
}

/// The example's state digest at frame 600 (change it only deliberately).
const GOLDEN_RING_600: &str = "b444b5e9a4b319cc180be257767f7b6f04920cb59fc37514cd90f9ea8884af0e";

#[test]
fn the_loaded_ring_follows_the_camera_and_demotes_the_walkers_outside_it() {
    let path = example();
    let output = stagecraft(&["simulate", &path, "--scenario", "ring-walk", "--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("JSON");
    let motion = report["motion"]
        .as_array()
        .expect("motion counters per frame");
    assert_eq!(motion.len(), 600);
    let at = |frame: usize, name: &str| motion[frame - 1][name].as_f64().expect(name) as u64;
    // 60 walkers, every one asking for Full (relevance 0.9) with room for all: the ring alone
    // decides who is Simulated, so outside == ring demotions == Simulated, and nobody is Stub.
    for frame in [60, 300, 600] {
        let outside = at(frame, "outside_ring");
        assert_eq!(at(frame, "ring_demotions"), outside, "frame {frame}");
        assert_eq!(at(frame, "simulated"), outside, "frame {frame}");
        assert_eq!(at(frame, "full") + outside, 60, "frame {frame}");
        assert_eq!(at(frame, "stub"), 0, "frame {frame}");
    }
    // The camera stands at x = −70 m until frame 60, then walks to +70 m by frame 540: who is
    // outside the 60 m ring changes as it goes.
    let outside: Vec<u64> = [60, 180, 300, 480, 600]
        .iter()
        .map(|&f| at(f, "outside_ring"))
        .collect();
    // (41 at frame 480 before walkers kept lanes past oncoming bodies and edged when boxed in.)
    assert_eq!(outside, vec![40, 45, 42, 42, 41]);
    assert_eq!(report["state_digest"], GOLDEN_RING_600);
}

#[test]
fn the_text_report_prints_the_motion_counters_after_the_population_rows() {
    let path = example();
    let output = stagecraft(&[
        "simulate",
        &path,
        "--scenario",
        "ring-walk",
        "--frames",
        "120",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    let motion = lines
        .iter()
        .position(|l| *l == "motion")
        .expect("a motion table");
    // Header + frames 60 and 120 of the population table come before it.
    assert_eq!(motion, 4, "{text}");
    let header: Vec<&str> = lines[motion + 1].split("  ").map(str::trim).collect();
    assert_eq!(
        header
            .iter()
            .filter(|h| !h.is_empty())
            .copied()
            .collect::<Vec<_>>(),
        [
            "frame",
            "updated",
            "skipped",
            "avoidance processed",
            "avoidance deferred",
            "full",
            "simulated",
            "stub",
            "forced full",
            "promotions",
            "demotions",
            "outside ring",
            "ring demotions",
            "governor demotions",
            "governor estimate ms",
            "governor budget ms",
        ]
    );
    let row: Vec<&str> = lines[motion + 3].split_whitespace().collect();
    assert_eq!(row[0], "120");
    assert_eq!(
        row[11],
        "42",
        "outside ring at frame 120: {}",
        lines[motion + 3]
    );
    assert_eq!(row[13], "0", "governor demotions: {}", lines[motion + 3]);
    assert_eq!(
        row[14],
        "1.260",
        "the governor's estimate: {}",
        lines[motion + 3]
    );
}
