//! `stagecraft simulate --trajectories`: the street-block example's crosswalk rush written as
//! JuPedSim's SQLite database, CSV and Parquet, read back and compared with the world the same
//! scenario steps to (row counts = agents × sampled frames, a known agent's position = the
//! agent column's at that frame, bit for bit), and the same run writing the same CSV bytes.

mod example_world;

use std::collections::BTreeMap;
use std::path::Path;

use stagecraft_editor::cli::trajectories::TrajectoryArgs;
use stagecraft_editor::cli::{simulate, SimulateOptions};
use stagecraft_runtime::sim::World;
use stagecraft_tests::example_project;

const FRAMES: u64 = 240;
const EVERY: u64 = 20;

/// Runs crosswalk-rush for [`FRAMES`] frames writing `file` every [`EVERY`] frames; the JSON
/// report.
fn run(file: &Path) -> serde_json::Value {
    let options = SimulateOptions {
        scenario: "crosswalk-rush",
        frames: Some(FRAMES),
        json: true,
        trajectories: TrajectoryArgs {
            trajectories: Some(file.to_path_buf()),
            trajectory_every: Some(EVERY),
        },
        ..SimulateOptions::default()
    };
    let mut out = Vec::new();
    let code = simulate(&example_project("street-block"), &options, &mut out).expect("runs");
    let text = String::from_utf8(out).expect("UTF-8");
    assert_eq!(code, 0, "{text}");
    serde_json::from_str(&text).expect("a JSON report")
}

/// Every unpooled agent's `(packed id, x, y)` at each sampled frame of the same run, from the
/// agent columns.
fn expected() -> BTreeMap<u64, Vec<(u64, f64, f64)>> {
    let mut world: World =
        example_world::example_world("street-block", "street-block", "crosswalk-rush");
    let mut frames = BTreeMap::new();
    loop {
        if world.frame().is_multiple_of(EVERY) {
            let a = world.agents();
            let rows = (0..a.len())
                .filter(|&row| !a.pooled[row])
                .map(|row| (a.id[row], a.position[row].x, a.position[row].y))
                .collect();
            frames.insert(world.frame(), rows);
        }
        if world.frame() == FRAMES {
            return frames;
        }
        world.step();
    }
}

#[test]
fn the_sqlite_file_is_jupedsims_format_with_every_agent_at_every_sampled_frame() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("rush.sqlite");
    let report = run(&file);
    let expected = expected();
    let rows: usize = expected.values().map(Vec::len).sum();
    let summary = &report["trajectories"];
    assert_eq!(summary["frames"], FRAMES / EVERY + 1);
    assert_eq!(summary["rows"], rows);
    assert_eq!(summary["format"], "jupedsim-sqlite");
    assert_eq!(summary["walkable_from"], "content");
    assert!(rows > 100, "{rows} rows");

    let db = rusqlite::Connection::open(&file).expect("opens");
    let meta = |key: &str| -> String {
        db.query_row("SELECT value FROM metadata WHERE key = ?1", [key], |r| {
            r.get(0)
        })
        .expect(key)
    };
    assert_eq!(meta("version"), "2");
    // 1 / (0.05 s × 20 frames).
    assert_eq!(meta("fps"), "1");
    assert_eq!(meta("stagecraft_scenario"), "crosswalk-rush");
    for (frame, agents) in &expected {
        let sample = (frame / EVERY) as i64;
        let count: i64 = db
            .query_row(
                "SELECT count(*) FROM trajectory_data WHERE frame = ?1",
                [sample],
                |r| r.get(0),
            )
            .expect("count");
        assert_eq!(count as usize, agents.len(), "frame {frame}");
        // A known agent: the last one of the frame, at its column's position bit for bit.
        if let Some(&(id, x, y)) = agents.last() {
            let (pos_x, pos_y): (f64, f64) = db
                .query_row(
                    "SELECT pos_x, pos_y FROM trajectory_data WHERE frame = ?1 AND agent_id = ?2",
                    [sample, id as i64],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .expect("the agent's row");
            assert_eq!(
                (pos_x.to_bits(), pos_y.to_bits()),
                (x.to_bits(), y.to_bits())
            );
        }
    }
    let frame_data: i64 = db
        .query_row("SELECT count(*) FROM frame_data", [], |r| r.get(0))
        .expect("frame_data");
    assert_eq!(frame_data as u64, FRAMES / EVERY + 1);
    let (hash, wkt): (i64, String) = db
        .query_row("SELECT hash, wkt FROM geometry", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .expect("one geometry");
    assert!(wkt.starts_with("POLYGON (("), "{wkt}");
    let referenced: i64 = db
        .query_row(
            "SELECT count(*) FROM frame_data WHERE geometry_hash = ?1",
            [hash],
            |r| r.get(0),
        )
        .expect("references");
    assert_eq!(referenced, frame_data);
}

#[test]
fn the_csv_file_has_the_documented_header_and_the_same_bytes_every_run() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (first, second) = (dir.path().join("a.csv"), dir.path().join("b.csv"));
    let report = run(&first);
    run(&second);
    let text = std::fs::read_to_string(&first).expect("written");
    assert_eq!(text.as_bytes(), std::fs::read(&second).expect("written"));
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("frame,time_s,id,source,ordinal,x_m,y_m,vx_m_s,vy_m_s,heading_rad,state,tier")
    );
    let expected = expected();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), expected.values().map(Vec::len).sum::<usize>());
    assert_eq!(report["trajectories"]["rows"], rows.len());
    let at_200: Vec<&Vec<&str>> = rows.iter().filter(|r| r[0] == "200").collect();
    assert_eq!(at_200.len(), expected[&200].len());
    let (id, x, y) = expected[&200][0];
    let row = at_200
        .iter()
        .find(|r| r[2] == id.to_string())
        .expect("the agent's row");
    assert_eq!(row[1], "10.0");
    assert_eq!(row[5].parse::<f64>().expect("x"), x);
    assert_eq!(row[6].parse::<f64>().expect("y"), y);
    assert_eq!(row[3], (id >> 32).to_string());
    assert!(["walking", "holding", "travelling", "arrived"].contains(&row[10]));
    assert!(["full", "simulated", "stub"].contains(&row[11]));
}

#[test]
fn the_parquet_file_holds_the_same_rows() {
    use parquet::file::reader::{FileReader as _, SerializedFileReader};
    use parquet::record::RowAccessor as _;

    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("rush.parquet");
    run(&file);
    let expected = expected();
    let reader = SerializedFileReader::new(std::fs::File::open(&file).expect("written"))
        .expect("a Parquet file");
    let metadata = reader.metadata().file_metadata();
    assert_eq!(
        metadata.num_rows() as usize,
        expected.values().map(Vec::len).sum::<usize>()
    );
    let keys: BTreeMap<&str, &str> = metadata
        .key_value_metadata()
        .expect("key-value metadata")
        .iter()
        .map(|kv| (kv.key.as_str(), kv.value.as_deref().unwrap_or("")))
        .collect();
    assert_eq!(keys["stagecraft_every_frames"], "20");
    assert!(keys["stagecraft_walkable_wkt"].starts_with("POLYGON (("));
    let (id, x, y) = expected[&200][0];
    let row = reader
        .get_row_iter(None)
        .expect("rows")
        .map(|row| row.expect("a row"))
        .find(|row| row.get_long(0).ok() == Some(200) && row.get_long(2).ok() == Some(id as i64))
        .expect("the agent's row");
    assert_eq!(row.get_double(5).ok(), Some(x));
    assert_eq!(row.get_double(6).ok(), Some(y));
}

#[test]
fn an_unknown_extension_is_refused_before_any_work() {
    let dir = tempfile::tempdir().expect("temp dir");
    let options = SimulateOptions {
        scenario: "crosswalk-rush",
        frames: Some(10),
        trajectories: TrajectoryArgs {
            trajectories: Some(dir.path().join("rush.txt")),
            trajectory_every: None,
        },
        ..SimulateOptions::default()
    };
    let error =
        simulate(&example_project("street-block"), &options, &mut Vec::new()).expect_err("refused");
    assert!(
        error.to_string().contains("must end in .sqlite or .db"),
        "{error}"
    );
    assert_eq!(std::fs::read_dir(dir.path()).expect("dir").count(), 0);
}
