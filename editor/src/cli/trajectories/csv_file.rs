//! Trajectories as CSV: one header row of [`super::COLUMNS`], then one row per agent per sampled
//! frame, comma-separated, `\n`-terminated, numbers in their shortest round-trip decimal form and
//! names unquoted (none holds a comma or quote). The walkable area is not in a CSV file
//! (`docs/trajectories.md`).
//!
//! The text is formatted straight into a byte buffer (integers by `itoa`, numbers by `zmij`, the
//! frame's `frame,time_s,` prefix once per frame) that goes to the file in blocks of
//! [`FLUSH_BYTES`]: the writer thread must keep up with the simulation.

use std::io::Write as _;

use anyhow::Context as _;
use stagecraft_runtime::sim::trajectory::{state_name, tier_name};

use super::geometry::WalkableArea;
use super::{FrameWriter, RunInfo, SampledFrame, COLUMNS};
use crate::output_file::StagedOutputFile;

/// Bytes of text gathered before they are written to the file.
pub const FLUSH_BYTES: usize = 1 << 20;

/// Writes CSV rows into a staged file.
pub struct CsvWriter {
    staged: StagedOutputFile,
    file: std::fs::File,
    info: RunInfo,
    /// Text not yet written to the file.
    text: Vec<u8>,
    /// The current frame's `frame,time_s,` (scratch).
    prefix: Vec<u8>,
}

impl CsvWriter {
    /// Writes the header into the staged file.
    pub fn create(staged: StagedOutputFile, info: &RunInfo) -> anyhow::Result<CsvWriter> {
        let file = staged
            .file()
            .try_clone()
            .context("cannot open the CSV file")?;
        let mut text = Vec::with_capacity(FLUSH_BYTES + (1 << 16));
        text.extend_from_slice(COLUMNS.join(",").as_bytes());
        text.push(b'\n');
        Ok(CsvWriter {
            staged,
            file,
            info: info.clone(),
            text,
            prefix: Vec::new(),
        })
    }
}

/// Appends `value` and a comma to `text`.
fn push_number(text: &mut Vec<u8>, numbers: &mut zmij::Buffer, value: f64) {
    text.extend_from_slice(numbers.format(value).as_bytes());
    text.push(b',');
}

/// Appends `value` and a comma to `text`.
fn push_integer(text: &mut Vec<u8>, integers: &mut itoa::Buffer, value: impl itoa::Integer) {
    text.extend_from_slice(integers.format(value).as_bytes());
    text.push(b',');
}

impl FrameWriter for CsvWriter {
    fn write_frame(&mut self, frame: &SampledFrame) -> anyhow::Result<()> {
        let mut integers = itoa::Buffer::new();
        let mut numbers = zmij::Buffer::new();
        let prefix = &mut self.prefix;
        prefix.clear();
        push_integer(prefix, &mut integers, frame.frame);
        push_number(prefix, &mut numbers, self.info.time_s(frame.frame));
        let text = &mut self.text;
        for row in frame.rows() {
            let id = row.id;
            text.extend_from_slice(prefix);
            push_integer(text, &mut integers, id.bits());
            push_integer(text, &mut integers, id.source());
            push_integer(text, &mut integers, id.ordinal());
            for value in [
                row.position_m.x,
                row.position_m.y,
                row.velocity_m_s.x,
                row.velocity_m_s.y,
                row.heading_rad(),
            ] {
                push_number(text, &mut numbers, value);
            }
            text.extend_from_slice(state_name(row.state).as_bytes());
            text.push(b',');
            text.extend_from_slice(tier_name(row.tier).as_bytes());
            text.push(b'\n');
            if text.len() >= FLUSH_BYTES {
                self.file.write_all(text)?;
                text.clear();
            }
        }
        Ok(())
    }

    fn finish(self: Box<Self>, _walkable: &WalkableArea) -> anyhow::Result<()> {
        let mut this = *self;
        this.file
            .write_all(&this.text)
            .context("cannot write the CSV file")?;
        drop(this.file);
        this.staged.commit()
    }
}
