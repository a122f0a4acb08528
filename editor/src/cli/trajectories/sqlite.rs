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
//! For speed the rows go into one transaction with journaling and syncing off (a failed run
//! leaves only the staged temp file, never the target), [`ROWS_PER_INSERT`] rows per execution
//! of one prepared multi-row `INSERT` (the rows of consecutive frames are gathered until a batch
//! is full). The index exists from the start and grows with the rows on the writer thread, so the
//! end of a run has no index to build (a file about a fifth larger than one indexed at the end,
//! for a shorter wait).

use anyhow::Context as _;
use rusqlite::{params, Connection};
use stagecraft_runtime::sim::trajectory::{state_name, tier_name};

use super::geometry::WalkableArea;
use super::lives::TrajectoryLives;
use super::{FrameWriter, RunInfo, SampledFrame};
use crate::output_file::StagedOutputFile;

/// The JuPedSim database version written.
pub const JUPEDSIM_DATABASE_VERSION: u32 = 2;

const SCHEMA: &str = "
    PRAGMA journal_mode = OFF;
    PRAGMA synchronous = OFF;
    PRAGMA locking_mode = EXCLUSIVE;
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
    BEGIN;
";

/// Rows one execution of the prepared `INSERT` writes (all but the last batch of a run).
pub const ROWS_PER_INSERT: usize = 64;

/// Values of one `trajectory_data` row.
const VALUES_PER_ROW: usize = 12;

/// The `INSERT` of `rows` rows, its parameters numbered in row order.
fn insert_sql(rows: usize) -> String {
    let mut sql = String::from("INSERT INTO trajectory_data VALUES ");
    for row in 0..rows {
        sql.push_str(if row == 0 { "(" } else { ",(" });
        sql.push_str(&["?"; VALUES_PER_ROW].join(","));
        sql.push(')');
    }
    sql
}

/// One `trajectory_data` row waiting for its batch.
#[derive(Debug, Clone, Copy)]
struct PendingRow {
    sample: i64,
    trajectory: i64,
    /// pos x, y, ori x, y, vel x, y, heading.
    numbers: [f64; 7],
    state: &'static str,
    tier: &'static str,
    agent: i64,
}

/// Writes a JuPedSim database into a staged file.
pub struct SqliteWriter {
    staged: StagedOutputFile,
    connection: Connection,
    info: RunInfo,
    samples: u64,
    lives: TrajectoryLives,
    /// Rows not yet inserted (fewer than a batch between frames).
    pending: Vec<PendingRow>,
    /// The `INSERT` of one batch.
    insert_batch: String,
}

impl SqliteWriter {
    /// Creates the tables in the staged file and opens the rows' transaction.
    pub fn create(staged: StagedOutputFile, info: &RunInfo) -> anyhow::Result<SqliteWriter> {
        let connection = Connection::open(staged.path()).context("cannot open the database")?;
        connection
            .execute_batch(SCHEMA)
            .context("cannot create the trajectory tables")?;
        Ok(SqliteWriter {
            staged,
            connection,
            info: info.clone(),
            samples: 0,
            lives: TrajectoryLives::default(),
            pending: Vec::new(),
            insert_batch: insert_sql(ROWS_PER_INSERT),
        })
    }

    /// Inserts the pending rows in batches of [`ROWS_PER_INSERT`]; with `all`, the rest too (in
    /// one shorter statement), else the rest stays pending.
    fn insert_pending(&mut self, all: bool) -> anyhow::Result<()> {
        let mut batches = self.pending.chunks_exact(ROWS_PER_INSERT);
        let mut insert = self.connection.prepare_cached(&self.insert_batch)?;
        for batch in &mut batches {
            bind_rows(&mut insert, batch)?;
            insert.raw_execute()?;
        }
        let rest = batches.remainder().len();
        let done = self.pending.len() - rest;
        if all && rest > 0 {
            let mut insert = self.connection.prepare(&insert_sql(rest))?;
            bind_rows(&mut insert, &self.pending[done..])?;
            insert.raw_execute()?;
            self.pending.clear();
        } else {
            self.pending.drain(..done);
        }
        Ok(())
    }

    fn metadata(&self, walkable: &WalkableArea) -> Vec<(&'static str, String)> {
        let info = &self.info;
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
}

/// Binds `rows` to the parameters of a multi-row `INSERT` of as many rows.
fn bind_rows(insert: &mut rusqlite::Statement<'_>, rows: &[PendingRow]) -> rusqlite::Result<()> {
    for (first, row) in (1..).step_by(VALUES_PER_ROW).zip(rows) {
        insert.raw_bind_parameter(first, row.sample)?;
        insert.raw_bind_parameter(first + 1, row.trajectory)?;
        for (offset, value) in (2..).zip(row.numbers) {
            insert.raw_bind_parameter(first + offset, value)?;
        }
        insert.raw_bind_parameter(first + 9, row.state)?;
        insert.raw_bind_parameter(first + 10, row.tier)?;
        insert.raw_bind_parameter(first + 11, row.agent)?;
    }
    Ok(())
}

impl FrameWriter for SqliteWriter {
    fn write_frame(&mut self, frame: &SampledFrame) -> anyhow::Result<()> {
        let sample = frame.frame / self.info.every_frames;
        for row in &frame.rows {
            let trajectory = self.lives.id_of(row.id.bits(), sample);
            self.pending.push(PendingRow {
                sample: sample as i64,
                trajectory,
                numbers: [
                    row.position_m.x,
                    row.position_m.y,
                    row.facing.x,
                    row.facing.y,
                    row.velocity_m_s.x,
                    row.velocity_m_s.y,
                    row.heading_rad(),
                ],
                state: state_name(row.state),
                tier: tier_name(row.tier),
                agent: row.id.bits() as i64,
            });
        }
        self.samples += 1;
        self.insert_pending(false)
    }

    fn finish(mut self: Box<Self>, walkable: &WalkableArea) -> anyhow::Result<()> {
        self.insert_pending(true)?;
        let this = *self;
        let hash = walkable.hash();
        {
            let c = &this.connection;
            c.execute(
                "INSERT INTO geometry VALUES (?1, ?2)",
                params![hash, walkable.wkt],
            )?;
            let mut frame = c.prepare("INSERT INTO frame_data VALUES (?1, ?2)")?;
            for sample in 0..this.samples {
                frame.execute(params![sample as i64, hash])?;
            }
            let mut meta = c.prepare("INSERT INTO metadata VALUES (?1, ?2)")?;
            for (key, value) in this.metadata(walkable) {
                meta.execute(params![key, value])?;
            }
            c.execute_batch("COMMIT;")?;
        }
        this.connection
            .close()
            .map_err(|(_, error)| error)
            .context("cannot close the database")?;
        this.staged.commit()
    }
}
