//! Every value of every row the three writers put in their files, read back and compared with the
//! rows the world gives at each sampled frame: the fast paths (batched SQLite inserts, CSV text
//! formatted into a byte buffer, Parquet column buffers) write what the rows say, in their order,
//! across batch and buffer boundaries.

use std::path::Path;

use stagecraft_runtime::sim::trajectory::{state_name, tier_name};
use stagecraft_runtime::sim::{long_street_world, TrajectoryRow};

use super::{RunInfo, TrajectoryRecorder, TrajectorySummary, COLUMNS};

/// Walkers on the street: not a multiple of the SQLite batch, so batches span frames.
const WALKERS: usize = 45;
/// Frames stepped after frame 0.
const FRAMES: u64 = 37;

fn info(every_frames: u64) -> RunInfo {
    RunInfo {
        scenario: "street".to_owned(),
        seed: 7,
        fixed_step_s: 0.05,
        every_frames,
        walkable: None,
    }
}

/// Steps the street [`FRAMES`] frames recording every `every`-th into `path`: the summary and
/// every sampled frame's `(frame, rows)` as the world gave them.
fn record(path: &Path, every: u64) -> (TrajectorySummary, Vec<(u64, Vec<TrajectoryRow>)>) {
    let mut world = long_street_world(WALKERS, 7).expect("street");
    let mut recorder = TrajectoryRecorder::start(path, info(every)).expect("starts");
    let mut expected = Vec::new();
    loop {
        recorder.record(&world);
        if world.frame().is_multiple_of(every) {
            expected.push((world.frame(), world.trajectory_rows().collect()));
        }
        if world.frame() == FRAMES {
            break;
        }
        world.step();
    }
    (recorder.finish().expect("finishes"), expected)
}

/// The rows flattened in file order: `(frame, row)`.
fn flat(frames: &[(u64, Vec<TrajectoryRow>)]) -> Vec<(u64, TrajectoryRow)> {
    frames
        .iter()
        .flat_map(|(frame, rows)| rows.iter().map(move |row| (*frame, *row)))
        .collect()
}

/// One `trajectory_data` row read back: frame, id, the seven reals, state, tier, agent id.
type Row = (i64, i64, [f64; 7], String, String, i64);

#[test]
fn the_sqlite_rows_are_the_worlds_rows_in_order() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("street.sqlite");
    let (summary, frames) = record(&path, 2);
    let expected = flat(&frames);
    // Frames 0, 2, …, 36: 19 samples of 45 walkers, 855 rows (13 batches of 64 and 23 more).
    assert_eq!((summary.frames, summary.rows), (19, 855));
    assert_eq!(expected.len(), 855);
    let db = rusqlite::Connection::open(&path).expect("opens");
    let mut query = db
        .prepare(
            "SELECT frame, id, pos_x, pos_y, ori_x, ori_y, vel_x, vel_y, heading_rad, state, \
             tier, agent_id FROM trajectory_data ORDER BY rowid",
        )
        .expect("query");
    let rows: Vec<Row> = query
        .query_map([], |r| {
            let mut numbers = [0.0; 7];
            for (i, n) in numbers.iter_mut().enumerate() {
                *n = r.get(i + 2)?;
            }
            Ok((
                r.get(0)?,
                r.get(1)?,
                numbers,
                r.get(9)?,
                r.get(10)?,
                r.get(11)?,
            ))
        })
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("read");
    assert_eq!(rows.len(), expected.len());
    let mut lives = super::lives::TrajectoryLives::default();
    for ((frame, row), got) in expected.iter().zip(&rows) {
        let sample = frame / 2;
        let want: Row = (
            sample as i64,
            lives.id_of(row.id.bits(), sample),
            [
                row.position_m.x,
                row.position_m.y,
                row.facing.x,
                row.facing.y,
                row.velocity_m_s.x,
                row.velocity_m_s.y,
                row.heading_rad(),
            ],
            state_name(row.state).to_owned(),
            tier_name(row.tier).to_owned(),
            row.id.bits() as i64,
        );
        assert_eq!(got, &want, "frame {frame}");
    }
    let index: String = db
        .query_row(
            "SELECT sql FROM sqlite_master WHERE name = 'frame_id_idx'",
            [],
            |r| r.get(0),
        )
        .expect("the index");
    assert_eq!(
        index,
        "CREATE INDEX frame_id_idx ON trajectory_data(frame, id)"
    );
    let check: String = db
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .expect("checked");
    assert_eq!(check, "ok");
    a_frame_is_read_through_the_index(&db, &rows);
}

/// `WHERE frame = ? ORDER BY id` is answered from `frame_id_idx` (the rows' pages are written
/// by `sqlite_pages`, the index's too) and gives that frame's rows by trajectory id.
fn a_frame_is_read_through_the_index(db: &rusqlite::Connection, rows: &[Row]) {
    let sql = "SELECT id, pos_x FROM trajectory_data WHERE frame = ?1 ORDER BY id";
    let plan: String = db
        .query_row(&format!("EXPLAIN QUERY PLAN {sql}"), [5], |r| r.get(3))
        .expect("plan");
    assert_eq!(
        plan,
        "SEARCH trajectory_data USING INDEX frame_id_idx (frame=?)"
    );
    for frame in [0, 5, 18, 19] {
        let mut query = db.prepare(sql).expect("sql");
        let got: Vec<(i64, u64)> = query
            .query_map([frame], |r| Ok((r.get(0)?, r.get::<_, f64>(1)?.to_bits())))
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("read");
        let mut want: Vec<(i64, u64)> = rows
            .iter()
            .filter(|row| row.0 == frame)
            .map(|row| (row.1, row.2[0].to_bits()))
            .collect();
        want.sort();
        assert_eq!(got.len(), if frame < 19 { 45 } else { 0 });
        assert_eq!(got, want, "frame {frame}");
    }
}

/// One CSV line as `fmt` writes it (the integers by `Display`), the reference for the fast path.
fn csv_line(frame: u64, row: &TrajectoryRow) -> String {
    let number = |value: f64| zmij::Buffer::new().format(value).to_owned();
    let id = row.id;
    format!(
        "{frame},{},{},{},{},{},{},{},{},{},{},{}",
        number(frame as f64 * 0.05),
        id.bits(),
        id.source(),
        id.ordinal(),
        number(row.position_m.x),
        number(row.position_m.y),
        number(row.velocity_m_s.x),
        number(row.velocity_m_s.y),
        number(row.heading_rad()),
        state_name(row.state),
        tier_name(row.tier),
    )
}

#[test]
fn the_csv_lines_are_the_worlds_rows_formatted() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("street.csv");
    let (summary, frames) = record(&path, 1);
    let expected = flat(&frames);
    assert_eq!((summary.frames, summary.rows), (38, 38 * 45));
    let text = std::fs::read_to_string(&path).expect("written");
    let mut want = COLUMNS.join(",") + "\n";
    for (frame, row) in &expected {
        want.push_str(&csv_line(*frame, row));
        want.push('\n');
    }
    assert_eq!(text, want);
}

#[test]
fn the_parquet_columns_are_the_worlds_rows() {
    use parquet::file::reader::{FileReader as _, SerializedFileReader};
    use parquet::record::RowAccessor as _;

    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("street.parquet");
    let (summary, frames) = record(&path, 3);
    let expected = flat(&frames);
    // Frames 0, 3, …, 36: 13 samples.
    assert_eq!((summary.frames, summary.rows), (13, 13 * 45));
    let reader = SerializedFileReader::new(std::fs::File::open(&path).expect("written"))
        .expect("a Parquet file");
    let rows: Vec<parquet::record::Row> = reader
        .get_row_iter(None)
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("read");
    assert_eq!(rows.len(), expected.len());
    for ((frame, row), got) in expected.iter().zip(&rows) {
        let id = row.id;
        let integers = [0, 2, 4].map(|i| got.get_long(i).expect("integer"));
        assert_eq!(
            integers,
            [*frame as i64, id.bits() as i64, i64::from(id.ordinal())]
        );
        assert_eq!(got.get_int(3).ok(), Some(id.source() as i32));
        let numbers = [1, 5, 6, 7, 8, 9].map(|i| got.get_double(i).expect("number"));
        let want = [
            *frame as f64 * 0.05,
            row.position_m.x,
            row.position_m.y,
            row.velocity_m_s.x,
            row.velocity_m_s.y,
            row.heading_rad(),
        ];
        assert_eq!(numbers.map(f64::to_bits), want.map(f64::to_bits));
        let names = [10, 11].map(|i| got.get_string(i).expect("name").clone());
        assert_eq!(names, [state_name(row.state), tier_name(row.tier)]);
    }
}
