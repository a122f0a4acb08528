//! The crossing columns of `stagecraft simulate`: the runtime's `CrossingSample` of the shown
//! frames as a text table (only when the content has a crosswalk) and of every kept frame in
//! `--json` (`crossings`), and each crosswalk's signal, gate, phases and queues at the end
//! (`crosswalks`). The same numbers the editor's Crossings tab shows.

use stagecraft_runtime::sim::{CounterHistory, CrossingSample, CrosswalkPhase, World};

/// The crossing table of the `shown` frames (the last one may be past the history: the world's
/// own sample then) and a line per crosswalk; empty when the content has no crosswalk.
pub fn crossings_text(history: &CounterHistory, shown: &[u64], world: &World) -> String {
    if world.config().space.crosswalks.is_empty() {
        return String::new();
    }
    let mut text = String::from("crossings\n");
    let names = CrossingSample::default().rows().map(|(name, _)| name);
    text.push_str(&format!("{:>7}", "frame"));
    for name in names {
        text.push_str(&format!("  {name}"));
    }
    text.push('\n');
    for &frame in shown {
        let sample = history
            .crossings()
            .iter()
            .find(|(f, _)| *f == frame)
            .map(|(_, s)| *s)
            .or_else(|| (frame == world.frame()).then(|| world.crossing_sample()));
        let Some(sample) = sample else { continue };
        text.push_str(&format!("{frame:>7}"));
        for (name, value) in sample.rows() {
            let value = if name.ends_with(" s") {
                format!("{value:.2}")
            } else {
                format!("{value:.0}")
            };
            text.push_str(&format!("  {value:>width$}", width = name.len()));
        }
        text.push('\n');
    }
    for report in world.crosswalk_reports() {
        let s = &report.signal;
        let phases: Vec<String> = CrosswalkPhase::ALL
            .iter()
            .zip(report.phases)
            .map(|(p, n)| format!("{} {n}", p.name()))
            .collect();
        text.push_str(&format!(
            "crosswalk {} (signal {}): {} for {:.2} s, gate {}, {} · queues {}/{} and {}/{}\n",
            report.id,
            report.signal_id,
            s.phase.name(),
            s.elapsed_s,
            if s.gate_open { "open" } else { "closed" },
            phases.join(" · "),
            report.queued[0],
            report.slots_per_side,
            report.queued[1],
            report.slots_per_side,
        ));
    }
    text
}

/// One sample as a JSON object of its named rows.
pub fn sample_json(sample: &CrossingSample) -> serde_json::Value {
    serde_json::Value::Object(
        sample
            .rows()
            .iter()
            .map(|(name, value)| ((*name).to_owned(), serde_json::json!(value)))
            .collect(),
    )
}

/// `(crossings, crosswalks)` of the `--json` report: the sample of every kept frame, and each
/// crosswalk at the end.
pub fn crossings_json(history: &CounterHistory, world: &World) -> [serde_json::Value; 2] {
    let frames: Vec<serde_json::Value> = history
        .crossings()
        .iter()
        .map(|(_, s)| sample_json(s))
        .collect();
    let crosswalks: Vec<serde_json::Value> = world
        .crosswalk_reports()
        .iter()
        .map(|r| {
            let phases: serde_json::Map<String, serde_json::Value> = CrosswalkPhase::ALL
                .iter()
                .zip(r.phases)
                .map(|(p, n)| (p.name().to_owned(), serde_json::json!(n)))
                .collect();
            serde_json::json!({
                "id": r.id,
                "signal": r.signal_id,
                "signal_phase": r.signal.phase.name(),
                "time_in_phase_s": r.signal.elapsed_s,
                "gate_open": r.signal.gate_open,
                "gate_closures": r.signal.gate_closures,
                "walk_phases": r.signal.walk_phases,
                "phases": phases,
                "queued": r.queued,
                "slots_per_side": r.slots_per_side,
            })
        })
        .collect();
    [
        serde_json::Value::Array(frames),
        serde_json::Value::Array(crosswalks),
    ]
}
