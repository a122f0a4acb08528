//! JuPedSim's SQLite trajectory database, schema version 2 — the newest version PedPy's
//! `load_walkable_area_from_jupedsim_sqlite` accepts (JuPedSim's own writer moved on to 3, which
//! drops `ori_x`/`ori_y`; PedPy refuses it). Tables as JuPedSim's `SqliteTrajectoryWriter`
//! creates them:
//!
//! - `trajectory_data(frame, id, pos_x, pos_y, ori_x, ori_y)` with index `frame_id_idx`, plus
//!   Stagecraft's columns `vel_x`, `vel_y`, `heading_rad`, `state`, `tier` (PedPy selects its
//!   columns by name, so extra ones are read past) and `agent_id`; `frame` is the sample index
//!   (simulation frame / N), `id` the trajectory id of one continuous presence (`lives`: a ped
//!   readmitted from the pool starts a new one), `agent_id` the agent's packed id, `ori` the
//!   unit facing;
//! - `metadata(key, value)`: `version` = 2, `fps` = 1 / (fixed step × N), the walkable area's
//!   `xmin`, `xmax`, `ymin`, `ymax`, and `stagecraft_*` keys (scenario, seed, step, N);
//! - `geometry(hash, wkt)` with one row, the walkable area, and `frame_data(frame,
//!   geometry_hash)` naming it for every sampled frame.
//!
//! SQLite itself creates the file with every table and index ([`PAGE_SIZE`]-byte pages, no
//! journal) and, at the end, writes the small tables; the rows of `trajectory_data` and the
//! entries of `frame_id_idx` are written as b-tree pages by [`super::sqlite_pages`] while the
//! run goes on (SQLite's insert path costs about three times the simulation's time per row).
//! A frame's index entries, keyed `(frame, id, rowid)`, are sorted by trajectory id before they
//! are appended; frames come in increasing order.

use anyhow::Context as _;
use rusqlite::{params, Connection};
use stagecraft_runtime::sim::trajectory::{state_name, tier_name};

use super::geometry::WalkableArea;
use super::lives::TrajectoryLives;
use super::sqlite_pages::{BulkTable, Value};
use super::{FrameWriter, RunInfo, SampledFrame};
use crate::output_file::StagedOutputFile;

/// The JuPedSim database version written.
pub const JUPEDSIM_DATABASE_VERSION: u32 = 2;

/// Bytes per database page: SQLite's default.
pub const PAGE_SIZE: u32 = 4096;

/// Settings of both connections: no rollback journal (a failed run leaves only the staged temp
/// file, never the target), no syncs (the staged file is synced once, at commit).
const SETTINGS: &str = "
    PRAGMA journal_mode = OFF;
    PRAGMA synchronous = OFF;
    PRAGMA locking_mode = EXCLUSIVE;
";

const SCHEMA: &str = "
    CREATE TABLE trajectory_data (
        frame INTEGER NOT NULL,
        id INTEGER NOT NULL,
        pos_x REAL NOT NULL,
        pos_y REAL NOT NULL,
        ori_x REAL NOT NULL,
        ori_y REAL NOT NULL,
        vel_x REAL NOT NULL,
        vel_y REAL NOT NULL,
        heading_rad REAL NOT NULL,
        state TEXT NOT NULL,
        tier TEXT NOT NULL,
        agent_id INTEGER NOT NULL);
    CREATE TABLE metadata(key TEXT NOT NULL UNIQUE PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE geometry(hash INTEGER NOT NULL, wkt TEXT NOT NULL);
    CREATE UNIQUE INDEX geometry_hash ON geometry(hash);
    CREATE TABLE frame_data(frame INTEGER NOT NULL, geometry_hash INTEGER NOT NULL);
    CREATE INDEX frame_id_idx ON trajectory_data(frame, id);
";

/// Writes a JuPedSim database into a staged file.
pub struct SqliteWriter {
    staged: StagedOutputFile,
    rows: BulkTable,
    info: RunInfo,
    samples: u64,
    lives: TrajectoryLives,
    /// The sampled frame's index entries: (trajectory id, rowid).
    keys: Vec<(i64, i64)>,
}

/// Creates the file's tables with SQLite; the root pages of `trajectory_data` and
/// `frame_id_idx`.
fn create_tables(path: &std::path::Path) -> anyhow::Result<(u32, u32)> {
    let connection = Connection::open(path).context("cannot open the database")?;
    connection
        .execute_batch(&format!(
            "PRAGMA page_size = {PAGE_SIZE};{SETTINGS}{SCHEMA}"
        ))
        .context("cannot create the trajectory tables")?;
    let root = |name: &str| -> rusqlite::Result<u32> {
        connection.query_row(
            "SELECT rootpage FROM sqlite_schema WHERE name = ?1",
            [name],
            |r| r.get(0),
        )
    };
    let roots = (root("trajectory_data")?, root("frame_id_idx")?);
    connection
        .close()
        .map_err(|(_, error)| error)
        .context("cannot close the database")?;
    Ok(roots)
}

impl SqliteWriter {
    /// Creates the tables in the staged file and opens it to append the rows.
    pub fn create(staged: StagedOutputFile, info: &RunInfo) -> anyhow::Result<SqliteWriter> {
        let (table_root, index_root) = create_tables(staged.path())?;
        let rows = BulkTable::open(staged.path(), table_root, index_root)
            .context("cannot append rows to the database")?;
        Ok(SqliteWriter {
            staged,
            rows,
            info: info.clone(),
            samples: 0,
            lives: TrajectoryLives::default(),
            keys: Vec::new(),
        })
    }
}

/// Writes the small tables with SQLite (after the rows' pages): the walkable area, `samples`
/// frames naming it and the metadata.
fn write_small_tables(
    path: &std::path::Path,
    info: &RunInfo,
    samples: u64,
    walkable: &WalkableArea,
) -> anyhow::Result<()> {
    let c = Connection::open(path).context("cannot open the database")?;
    c.execute_batch(SETTINGS)?;
    c.execute_batch("BEGIN;")?;
    let hash = walkable.hash();
    c.execute(
        "INSERT INTO geometry VALUES (?1, ?2)",
        params![hash, walkable.wkt],
    )?;
    {
        let mut frame = c.prepare("INSERT INTO frame_data VALUES (?1, ?2)")?;
        for sample in 0..samples {
            frame.execute(params![sample as i64, hash])?;
        }
        let mut meta = c.prepare("INSERT INTO metadata VALUES (?1, ?2)")?;
        for (key, value) in metadata(info, walkable) {
            meta.execute(params![key, value])?;
        }
    }
    c.execute_batch("COMMIT;")?;
    c.close()
        .map_err(|(_, error)| error)
        .context("cannot close the database")
}

/// The `metadata` rows.
fn metadata(info: &RunInfo, walkable: &WalkableArea) -> Vec<(&'static str, String)> {
    let fps = 1.0 / (info.fixed_step_s * info.every_frames as f64);
    let [xmin, ymin, xmax, ymax] = walkable.bounds;
    vec![
        ("version", JUPEDSIM_DATABASE_VERSION.to_string()),
        ("fps", fps.to_string()),
        ("xmin", xmin.to_string()),
        ("xmax", xmax.to_string()),
        ("ymin", ymin.to_string()),
        ("ymax", ymax.to_string()),
        ("stagecraft_scenario", info.scenario.clone()),
        ("stagecraft_seed", info.seed.to_string()),
        ("stagecraft_fixed_step_s", info.fixed_step_s.to_string()),
        ("stagecraft_every_frames", info.every_frames.to_string()),
        ("stagecraft_walkable_from", walkable.from.to_owned()),
        ("stagecraft_axes", "x east, y north, meters".to_owned()),
    ]
}

impl FrameWriter for SqliteWriter {
    fn write_frame(&mut self, frame: &SampledFrame) -> anyhow::Result<()> {
        let sample = (frame.frame / self.info.every_frames) as i64;
        self.keys.clear();
        for row in frame.rows() {
            let trajectory = self.lives.id_of(row.id.bits(), sample as u64);
            let values = [
                Value::Integer(sample),
                Value::Integer(trajectory),
                Value::Real(row.position_m.x),
                Value::Real(row.position_m.y),
                Value::Real(row.facing.x),
                Value::Real(row.facing.y),
                Value::Real(row.velocity_m_s.x),
                Value::Real(row.velocity_m_s.y),
                Value::Real(row.heading_rad()),
                Value::Text(state_name(row.state)),
                Value::Text(tier_name(row.tier)),
                Value::Integer(row.id.bits() as i64),
            ];
            let rowid = self.rows.push_row(&values)?;
            self.keys.push((trajectory, rowid));
        }
        if !self.keys.is_sorted() {
            self.keys.sort_unstable();
        }
        for &(trajectory, rowid) in &self.keys {
            self.rows.push_index_key(&[sample, trajectory], rowid)?;
        }
        self.samples += 1;
        Ok(())
    }

    fn finish(self: Box<Self>, walkable: &WalkableArea) -> anyhow::Result<()> {
        let this = *self;
        drop(this.rows.finish()?);
        write_small_tables(this.staged.path(), &this.info, this.samples, walkable)?;
        this.staged.commit()
    }
}
