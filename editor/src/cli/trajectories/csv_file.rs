//! Trajectories as CSV: one header row of [`super::COLUMNS`], then one row per agent per sampled
//! frame, comma-separated, `\n`-terminated, numbers in their shortest round-trip decimal form and
//! names unquoted (none holds a comma or quote). The walkable area is not in a CSV file
//! (`docs/trajectories.md`).

use std::io::{BufWriter, Write as _};

use anyhow::Context as _;
use stagecraft_runtime::sim::trajectory::{state_name, tier_name};

use super::geometry::WalkableArea;
use super::{FrameWriter, RunInfo, SampledFrame, COLUMNS};
use crate::output_file::StagedOutputFile;

/// Writes CSV rows into a staged file.
pub struct CsvWriter {
    staged: StagedOutputFile,
    out: BufWriter<std::fs::File>,
    info: RunInfo,
    /// One row's text (scratch).
    line: String,
}

impl CsvWriter {
    /// Writes the header into the staged file.
    pub fn create(staged: StagedOutputFile, info: &RunInfo) -> anyhow::Result<CsvWriter> {
        let file = staged
            .file()
            .try_clone()
            .context("cannot open the CSV file")?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        writeln!(out, "{}", COLUMNS.join(","))?;
        Ok(CsvWriter {
            staged,
            out,
            info: info.clone(),
            line: String::new(),
        })
    }
}

/// Appends `value` and a comma to `line`.
fn push_number(line: &mut String, value: f64) {
    let mut buffer = zmij::Buffer::new();
    line.push_str(buffer.format(value));
    line.push(',');
}

impl FrameWriter for CsvWriter {
    fn write_frame(&mut self, frame: &SampledFrame) -> anyhow::Result<()> {
        use std::fmt::Write as _;
        let time_s = self.info.time_s(frame.frame);
        let line = &mut self.line;
        for row in &frame.rows {
            line.clear();
            let id = row.id;
            let _ = write!(line, "{},", frame.frame);
            push_number(line, time_s);
            let _ = write!(line, "{},{},{},", id.bits(), id.source(), id.ordinal());
            for value in [
                row.position_m.x,
                row.position_m.y,
                row.velocity_m_s.x,
                row.velocity_m_s.y,
                row.heading_rad(),
            ] {
                push_number(line, value);
            }
            line.push_str(state_name(row.state));
            line.push(',');
            line.push_str(tier_name(row.tier));
            line.push('\n');
            self.out.write_all(line.as_bytes())?;
        }
        Ok(())
    }

    fn finish(self: Box<Self>, _walkable: &WalkableArea) -> anyhow::Result<()> {
        let this = *self;
        let file = this
            .out
            .into_inner()
            .map_err(|error| error.into_error())
            .context("cannot write the CSV file")?;
        drop(file);
        this.staged.commit()
    }
}
