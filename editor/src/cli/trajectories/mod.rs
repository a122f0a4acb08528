//! `stagecraft simulate … --trajectories FILE [--trajectory-every N]`: every agent's position,
//! velocity, heading, state and tier at every N-th frame, written as JuPedSim's SQLite
//! trajectory database (`.sqlite`, `.db`; PedPy's `load_trajectory_from_jupedsim_sqlite` reads
//! it), CSV (`.csv`) or Parquet (`.parquet`). The formats, columns and axes are in
//! `docs/trajectories.md`.
//!
//! The rows come from the runtime ([`World::copy_trajectory_columns`], a pure read: the agent
//! columns a row needs, one `memcpy` each into buffers the writer hands back); this module only
//! writes them. A [`TrajectoryRecorder`] copies each sampled frame's columns out of the world and
//! hands them to a writer thread (a bounded queue: the simulation waits when the writer falls
//! behind, so memory stays bounded), which turns them into rows (`TrajectoryColumns::rows`,
//! the same rows as `World::trajectory_rows`), creates the file and writes it as a staged file
//! that is put in place by the crate's output-file rule (`output_file::StagedOutputFile`) once
//! the run ends. The simulation's thread only copies and hands over: no per-row work, no
//! allocation once the buffers have grown, no system call per frame (the writer polls). The
//! bytes depend only on the frames written, never on the thread's timing.

pub mod agent_slots;
mod background_sync;
#[cfg(test)]
mod content_tests;
mod csv_file;
pub mod geometry;
pub mod lives;
mod parquet_file;
mod sqlite;
mod sqlite_pages;

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::thread::JoinHandle;

use anyhow::Context as _;
use stagecraft_runtime::sim::{TrajectoryColumns, TrajectoryRow, World};

use crate::output_file::StagedOutputFile;
use background_sync::BackgroundSync;
use geometry::{Bounds, WalkableArea};

/// Sampled frames the simulation may run ahead of the writer thread.
const FRAMES_IN_FLIGHT: usize = 16;

/// How long the writer thread waits before it looks at an empty queue again.
const WRITER_POLL: std::time::Duration = std::time::Duration::from_micros(500);

/// The next sampled frame from the simulation, `None` once the queue is closed and empty. The
/// writer polls instead of blocking on the queue: a receiver blocked on it would make every
/// `send` of the simulation's thread wake it (a system call and a context switch per frame on
/// the thread that steps); an idle writer parks for [`WRITER_POLL`] at a time, and
/// `TrajectoryRecorder::finish` unparks it.
fn next_frame(queue: &Receiver<SampledFrame>) -> Option<SampledFrame> {
    loop {
        match queue.try_recv() {
            Ok(frame) => return Some(frame),
            Err(mpsc::TryRecvError::Disconnected) => return None,
            Err(mpsc::TryRecvError::Empty) => std::thread::park_timeout(WRITER_POLL),
        }
    }
}

/// Rows written between two background syncs of the file (about 1 to 2 MiB in every format).
pub const SYNC_EVERY_ROWS: u64 = 16_384;

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

/// One sampled frame: the simulation frame and the world's trajectory columns at it.
#[derive(Debug, Clone, Default)]
pub struct SampledFrame {
    /// Simulation frame index.
    pub frame: u64,
    /// `World::copy_trajectory_columns` at that frame (pooled rows flagged).
    pub columns: TrajectoryColumns,
}

impl SampledFrame {
    /// The frame's rows (`World::trajectory_rows` at that frame), in the world's row order.
    pub fn rows(&self) -> impl Iterator<Item = TrajectoryRow> + '_ {
        self.columns.rows()
    }
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
    /// Distinct agents in the rows, and whether each one was seen.
    agents: u64,
    seen: agent_slots::AgentSlots<bool>,
    bounds: Bounds,
}

impl Totals {
    fn add(&mut self, frame: &SampledFrame) {
        self.frames += 1;
        let mut rows = 0;
        for row in frame.rows() {
            rows += 1;
            let seen = self.seen.get_mut(row.id);
            self.agents += u64::from(!*seen);
            *seen = true;
            self.bounds.add(row.position_m.x, row.position_m.y);
        }
        self.frames_with_rows += u64::from(rows > 0);
        self.rows += rows;
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
    spare: Receiver<TrajectoryColumns>,
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
        let sync = staged.file().try_clone().ok().map(BackgroundSync::start);
        let (frames, queue) = mpsc::sync_channel::<SampledFrame>(FRAMES_IN_FLIGHT);
        let (spare_out, spare) = mpsc::channel();
        let writer_info = info.clone();
        let thread = std::thread::Builder::new()
            .name("trajectories".to_owned())
            .spawn(move || -> anyhow::Result<(Box<dyn FrameWriter>, Totals)> {
                // Created here, not on the simulation's thread (SQLite's schema takes about a
                // millisecond); an error is reported by `finish`.
                let written = create_writer(format, staged, &writer_info)
                    .and_then(|writer| write_frames(writer, &queue, &spare_out, sync.as_ref()));
                // The final sync (at commit) does the rest.
                if let Some(sync) = sync {
                    sync.stop();
                }
                written
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
        // A buffer the writer is done with (no allocation once the queue is full of them).
        let mut columns = self.spare.try_recv().unwrap_or_default();
        world.copy_trajectory_columns(&mut columns);
        let frame = SampledFrame {
            frame: world.frame(),
            columns,
        };
        if frames.send(frame).is_err() {
            // The writer stopped on an error; `finish` returns it.
            self.frames = None;
        }
    }

    /// Waits for the writer, writes the walkable area and puts the file in place.
    pub fn finish(mut self) -> anyhow::Result<TrajectorySummary> {
        self.frames = None;
        // The writer may be waiting out its poll interval: it sees the queue closed now.
        self.thread.thread().unpark();
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
            agents: totals.agents,
            walkable_from,
        })
    }
}

/// The writer of `format` in the staged file.
fn create_writer(
    format: TrajectoryFormat,
    staged: StagedOutputFile,
    info: &RunInfo,
) -> anyhow::Result<Box<dyn FrameWriter>> {
    Ok(match format {
        TrajectoryFormat::Sqlite => Box::new(sqlite::SqliteWriter::create(staged, info)?),
        TrajectoryFormat::Csv => Box::new(csv_file::CsvWriter::create(staged, info)?),
        TrajectoryFormat::Parquet => Box::new(parquet_file::ParquetWriter::create(staged, info)?),
    })
}

/// The writer thread's loop: writes the queued frames until the queue closes, hands each
/// frame's buffers back through `spare_out` and nudges `sync` every [`SYNC_EVERY_ROWS`] rows.
fn write_frames(
    mut writer: Box<dyn FrameWriter>,
    queue: &Receiver<SampledFrame>,
    spare_out: &mpsc::Sender<TrajectoryColumns>,
    sync: Option<&BackgroundSync>,
) -> anyhow::Result<(Box<dyn FrameWriter>, Totals)> {
    let mut totals = Totals::default();
    let mut next_sync = SYNC_EVERY_ROWS;
    while let Some(frame) = next_frame(queue) {
        writer.write_frame(&frame)?;
        totals.add(&frame);
        // The recorder reuses the buffers; gone when it has finished.
        let _ = spare_out.send(frame.columns);
        if totals.rows >= next_sync {
            next_sync = totals.rows + SYNC_EVERY_ROWS;
            sync.iter().for_each(|sync| sync.nudge());
        }
    }
    Ok((writer, totals))
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser as _;
    use stagecraft_runtime::sim::long_street_world;

    fn info(every_frames: u64) -> RunInfo {
        RunInfo {
            scenario: "street".to_owned(),
            seed: 7,
            fixed_step_s: 0.05,
            every_frames,
            walkable: None,
        }
    }

    /// Steps a 20-walker street `frames` frames recording into `path`; the summary.
    fn record(path: &Path, frames: u64, every: u64) -> TrajectorySummary {
        let mut world = long_street_world(20, 7).expect("street");
        let mut recorder = TrajectoryRecorder::start(path, info(every)).expect("starts");
        recorder.record(&world);
        for _ in 0..frames {
            world.step();
            recorder.record(&world);
        }
        recorder.finish().expect("finishes")
    }

    #[test]
    fn the_extension_names_the_format() {
        let format = |name: &str| TrajectoryFormat::of_path(Path::new(name)).ok();
        assert_eq!(format("a/run.sqlite"), Some(TrajectoryFormat::Sqlite));
        assert_eq!(format("run.DB"), Some(TrajectoryFormat::Sqlite));
        assert_eq!(format("run.csv"), Some(TrajectoryFormat::Csv));
        assert_eq!(format("run.parquet"), Some(TrajectoryFormat::Parquet));
        assert_eq!(format("run.json"), None);
        assert_eq!(format("run"), None);
    }

    #[test]
    fn the_flags_parse_and_refuse_an_interval_of_zero_or_without_a_file() {
        let parse = |extra: &[&str]| {
            let args = ["stagecraft", "simulate", "p", "--scenario", "s"];
            crate::cli::Cli::try_parse_from(args.iter().chain(extra))
        };
        let Ok(cli) = parse(&["--trajectories", "x.csv", "--trajectory-every", "3"]) else {
            panic!("parses");
        };
        let Some(crate::cli::Command::Simulate { trajectories, .. }) = cli.command else {
            panic!("simulate");
        };
        assert_eq!(trajectories.trajectories, Some(PathBuf::from("x.csv")));
        assert_eq!(trajectories.trajectory_every, Some(3));
        assert!(parse(&["--trajectories", "x.csv", "--trajectory-every", "0"]).is_err());
        assert!(parse(&["--trajectory-every", "2"]).is_err());
    }

    #[test]
    fn a_csv_holds_every_agent_at_every_sampled_frame() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("street.csv");
        let summary = record(&path, 30, 4);
        // Frames 0, 4, …, 28: 8 sampled frames of 20 walkers.
        assert_eq!((summary.frames, summary.rows, summary.agents), (8, 160, 20));
        assert_eq!(summary.walkable_from, "bounding-box");
        let text = std::fs::read_to_string(&path).expect("written");
        assert_eq!(text.lines().count(), 161);
        assert_eq!(text.lines().next(), Some(COLUMNS.join(",").as_str()));
        let frames: std::collections::BTreeSet<&str> = text
            .lines()
            .skip(1)
            .map(|l| &l[..l.find(',').unwrap_or(0)])
            .collect();
        assert_eq!(frames.len(), 8);
        assert!(frames.contains("28") && !frames.contains("30"));
        // No temp file is left beside it.
        assert_eq!(std::fs::read_dir(dir.path()).expect("dir").count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn a_pipe_gets_the_finished_bytes_and_stays_a_pipe() {
        let dir = tempfile::tempdir().expect("temp dir");
        let fifo = dir.path().join("pipe.csv");
        let status = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(status.expect("mkfifo").success());
        let reader = {
            let fifo = fifo.clone();
            std::thread::Builder::new()
                .name("pipe-reader".to_owned())
                .spawn(move || std::fs::read_to_string(fifo).expect("reads"))
                .expect("spawns")
        };
        let summary = record(&fifo, 3, 1);
        let text = reader.join().expect("reader");
        assert_eq!(text.lines().count() as u64, summary.rows + 1);
        assert_eq!(summary.rows, 80);
        use std::os::unix::fs::FileTypeExt as _;
        let kind = std::fs::metadata(&fifo).expect("still there").file_type();
        assert!(kind.is_fifo());
    }

    #[test]
    fn a_folder_is_refused_before_anything_is_written() {
        let dir = tempfile::tempdir().expect("temp dir");
        let folder = dir.path().join("x.sqlite");
        std::fs::create_dir(&folder).expect("mkdir");
        let error = TrajectoryRecorder::start(&folder, info(1)).expect_err("refused");
        assert!(format!("{error:#}").contains("is a folder"), "{error:#}");
        assert_eq!(std::fs::read_dir(dir.path()).expect("dir").count(), 1);
    }
}
