//! `stagecraft simulate … --trajectories FILE [--trajectory-every N]`: every agent's position,
//! velocity, heading, state and tier at every N-th frame, written as JuPedSim's SQLite
//! trajectory database (`.sqlite`, `.db`; PedPy's `load_trajectory_from_jupedsim_sqlite` reads
//! it), CSV (`.csv`) or Parquet (`.parquet`). The formats, columns and axes are in
//! `docs/trajectories.md`.
//!
//! The rows come from the runtime ([`World::trajectory_rows`], a pure read); this module only
//! writes them. A [`TrajectoryRecorder`] copies each sampled frame's rows out of the world and
//! hands them to a writer thread (a bounded queue: the simulation waits when the writer falls
//! behind, so memory stays bounded), which writes them into a staged file that is put in place
//! by the crate's output-file rule (`output_file::StagedOutputFile`) once the run ends. The
//! bytes depend only on the frames written, never on the thread's timing.

mod csv_file;
pub mod geometry;
mod parquet_file;
mod sqlite;

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::thread::JoinHandle;

use anyhow::Context as _;
use stagecraft_runtime::sim::{TrajectoryRow, World};

use crate::output_file::StagedOutputFile;
use geometry::{Bounds, WalkableArea};

/// Sampled frames the simulation may run ahead of the writer thread.
const FRAMES_IN_FLIGHT: usize = 16;

/// The trajectory flags of `stagecraft simulate`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct TrajectoryArgs {
    /// Write every agent's position, velocity, heading, state and tier to FILE: `.sqlite` or
    /// `.db` (JuPedSim's trajectory database, read by PedPy), `.csv` or `.parquet`
    /// (docs/trajectories.md).
    #[arg(long, value_name = "FILE")]
    pub trajectories: Option<PathBuf>,
    /// Record every N-th frame in --trajectories (default 1: every frame).
    #[arg(long, value_name = "N", requires = "trajectories",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub trajectory_every: Option<u64>,
}

/// A trajectory file's format, from its name's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrajectoryFormat {
    /// JuPedSim's SQLite trajectory database (schema version 2).
    Sqlite,
    /// Comma-separated values with a header row.
    Csv,
    /// Apache Parquet, one row group per batch of frames.
    Parquet,
}

impl TrajectoryFormat {
    /// The format `path`'s extension names (case-insensitive), or an error listing them.
    pub fn of_path(path: &Path) -> anyhow::Result<TrajectoryFormat> {
        let extension = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("sqlite" | "db") => Ok(TrajectoryFormat::Sqlite),
            Some("csv") => Ok(TrajectoryFormat::Csv),
            Some("parquet") => Ok(TrajectoryFormat::Parquet),
            _ => anyhow::bail!(
                "--trajectories {}: the file name must end in .sqlite or .db (JuPedSim's SQLite \
                 format), .csv or .parquet",
                path.display()
            ),
        }
    }

    /// The format's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            TrajectoryFormat::Sqlite => "jupedsim-sqlite",
            TrajectoryFormat::Csv => "csv",
            TrajectoryFormat::Parquet => "parquet",
        }
    }
}

/// What a trajectory file says about the run besides its rows.
#[derive(Debug, Clone)]
pub struct RunInfo {
    /// The scenario's id.
    pub scenario: String,
    /// The world's seed.
    pub seed: u64,
    /// Seconds per simulation frame.
    pub fixed_step_s: f64,
    /// Frames between two sampled frames (≥ 1).
    pub every_frames: u64,
    /// The walkable area from the content (`None`: a bounding box of the rows is written).
    pub walkable: Option<geo::MultiPolygon<f64>>,
}

impl RunInfo {
    /// Seconds of the simulation frame `frame`.
    pub fn time_s(&self, frame: u64) -> f64 {
        frame as f64 * self.fixed_step_s
    }
}

/// One sampled frame: the simulation frame and its rows in the world's row order.
#[derive(Debug, Clone, Default)]
pub struct SampledFrame {
    /// Simulation frame index.
    pub frame: u64,
    /// The rows of `World::trajectory_rows` at that frame.
    pub rows: Vec<TrajectoryRow>,
}

/// A writer of one format: frames in order, then the walkable area once at the end.
trait FrameWriter: Send {
    /// Writes one sampled frame.
    fn write_frame(&mut self, frame: &SampledFrame) -> anyhow::Result<()>;
    /// Writes what comes after the frames and puts the file in place.
    fn finish(self: Box<Self>, walkable: &WalkableArea) -> anyhow::Result<()>;
}

/// What the writer thread counted.
#[derive(Debug, Clone, Default)]
struct Totals {
    frames: u64,
    frames_with_rows: u64,
    rows: u64,
    agents: std::collections::BTreeSet<u64>,
    bounds: Bounds,
}

impl Totals {
    fn add(&mut self, frame: &SampledFrame) {
        self.frames += 1;
        self.frames_with_rows += u64::from(!frame.rows.is_empty());
        self.rows += frame.rows.len() as u64;
        for row in &frame.rows {
            self.agents.insert(row.id.bits());
            self.bounds.add(row.position_m.x, row.position_m.y);
        }
    }
}

/// What a finished trajectory file holds.
#[derive(Debug, Clone, PartialEq)]
pub struct TrajectorySummary {
    /// The file written.
    pub path: PathBuf,
    /// Its format.
    pub format: TrajectoryFormat,
    /// Frames between two sampled frames.
    pub every_frames: u64,
    /// Sampled frames (frame 0 and every N-th after it, up to the run's last).
    pub frames: u64,
    /// Sampled frames with at least one row.
    pub frames_with_rows: u64,
    /// Rows written (agents × frames, summed over the sampled frames).
    pub rows: u64,
    /// Distinct agents in the rows.
    pub agents: u64,
    /// Where the walkable area came from: `content` or `bounding-box`.
    pub walkable_from: &'static str,
}

impl TrajectorySummary {
    /// The summary as the JSON report shows it.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "path": self.path.display().to_string(),
            "format": self.format.name(),
            "every_frames": self.every_frames,
            "frames": self.frames,
            "frames_with_rows": self.frames_with_rows,
            "rows": self.rows,
            "agents": self.agents,
            "walkable_from": self.walkable_from,
        })
    }

    /// The summary as one line of the text report.
    pub fn text(&self) -> String {
        format!(
            "trajectories: {} rows of {} agents over {} frames (every {}, {} with agents), \
             walkable area from {}, {} written to {}\n",
            self.rows,
            self.agents,
            self.frames,
            self.every_frames,
            self.frames_with_rows,
            self.walkable_from,
            self.format.name(),
            crate::cli::escape_controls(&self.path.display().to_string())
        )
    }
}

/// Records the sampled frames of a run into a trajectory file through a writer thread.
pub struct TrajectoryRecorder {
    path: PathBuf,
    format: TrajectoryFormat,
    info: RunInfo,
    frames: Option<SyncSender<SampledFrame>>,
    spare: Receiver<Vec<TrajectoryRow>>,
    thread: JoinHandle<anyhow::Result<(Box<dyn FrameWriter>, Totals)>>,
}

impl std::fmt::Debug for TrajectoryRecorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TrajectoryRecorder")
            .field("path", &self.path)
            .field("format", &self.format)
            .finish_non_exhaustive()
    }
}

impl TrajectoryRecorder {
    /// Stages `path` (refused before any work when the output-file rule refuses it, or its
    /// extension names no format) and starts the writer thread.
    pub fn start(path: &Path, info: RunInfo) -> anyhow::Result<TrajectoryRecorder> {
        let format = TrajectoryFormat::of_path(path)?;
        let staged = StagedOutputFile::create(path).context("cannot write the trajectories")?;
        let mut writer: Box<dyn FrameWriter> = match format {
            TrajectoryFormat::Sqlite => Box::new(sqlite::SqliteWriter::create(staged, &info)?),
            TrajectoryFormat::Csv => Box::new(csv_file::CsvWriter::create(staged, &info)?),
            TrajectoryFormat::Parquet => {
                Box::new(parquet_file::ParquetWriter::create(staged, &info)?)
            }
        };
        let (frames, queue) = mpsc::sync_channel::<SampledFrame>(FRAMES_IN_FLIGHT);
        let (spare_out, spare) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("trajectories".to_owned())
            .spawn(move || {
                let mut totals = Totals::default();
                for frame in queue {
                    writer.write_frame(&frame)?;
                    totals.add(&frame);
                    // The recorder reuses the buffer; gone when it has finished.
                    let _ = spare_out.send(frame.rows);
                }
                Ok((writer, totals))
            })
            .context("cannot start the trajectory writer")?;
        Ok(TrajectoryRecorder {
            path: path.to_path_buf(),
            format,
            info,
            frames: Some(frames),
            spare,
            thread,
        })
    }

    /// Records the world's current frame when it is a sampled one (a multiple of the sampling
    /// interval). After a write error nothing more is recorded; [`TrajectoryRecorder::finish`]
    /// reports it.
    pub fn record(&mut self, world: &World) {
        if !world.frame().is_multiple_of(self.info.every_frames) {
            return;
        }
        let Some(frames) = &self.frames else { return };
        let mut rows = self.spare.try_recv().unwrap_or_default();
        rows.clear();
        rows.extend(world.trajectory_rows());
        let frame = SampledFrame {
            frame: world.frame(),
            rows,
        };
        if frames.send(frame).is_err() {
            // The writer stopped on an error; `finish` returns it.
            self.frames = None;
        }
    }

    /// Waits for the writer, writes the walkable area and puts the file in place.
    pub fn finish(mut self) -> anyhow::Result<TrajectorySummary> {
        self.frames = None;
        let (writer, totals) = self
            .thread
            .join()
            .map_err(|_| anyhow::anyhow!("the trajectory writer panicked"))?
            .with_context(|| format!("cannot write the trajectories {}", self.path.display()))?;
        let walkable = WalkableArea::resolve(self.info.walkable.as_ref(), &totals.bounds);
        let walkable_from = walkable.from;
        writer
            .finish(&walkable)
            .with_context(|| format!("cannot write the trajectories {}", self.path.display()))?;
        Ok(TrajectorySummary {
            path: self.path,
            format: self.format,
            every_frames: self.info.every_frames,
            frames: totals.frames,
            frames_with_rows: totals.frames_with_rows,
            rows: totals.rows,
            agents: totals.agents.len() as u64,
            walkable_from,
        })
    }
}

/// The column names of the CSV and Parquet files, in order (`docs/trajectories.md`).
pub const COLUMNS: [&str; 12] = [
    "frame",
    "time_s",
    "id",
    "source",
    "ordinal",
    "x_m",
    "y_m",
    "vx_m_s",
    "vy_m_s",
    "heading_rad",
    "state",
    "tier",
];
