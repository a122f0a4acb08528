//! Trajectories as Apache Parquet: the columns of [`super::COLUMNS`] (INT64 frame, id and
//! ordinal, INT32 source, DOUBLE numbers, UTF-8 strings for state and tier), uncompressed, with
//! dictionary encoding for the columns of few values (frame, time, source, state, tier) and plain
//! encoding for [`PLAIN_COLUMNS`]; the run's facts and the walkable area's WKT in the file's
//! key-value metadata (`stagecraft_*`). Written with the `parquet` crate's low-level column
//! writers (no Arrow, no codecs: a small build).
//!
//! A row group is written as soon as a frame brings the buffered rows to [`ROW_GROUP_ROWS`] or
//! more: the groups are encoded on the writer thread while the simulation runs, and the end of a
//! run has at most one small group left to encode.

use std::io::BufWriter;
use std::sync::Arc;

use anyhow::Context as _;
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int32Type, Int64Type};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::ColumnPath;
use stagecraft_runtime::sim::trajectory::{state_name, tier_name};
use stagecraft_runtime::sim::{AgentState, Tier};

use super::geometry::WalkableArea;
use super::{FrameWriter, RunInfo, SampledFrame};
use crate::output_file::StagedOutputFile;

/// Rows buffered before a row group is written.
pub const ROW_GROUP_ROWS: usize = 8192;

const SCHEMA: &str = "
    message stagecraft_trajectories {
        REQUIRED INT64 frame;
        REQUIRED DOUBLE time_s;
        REQUIRED INT64 id;
        REQUIRED INT32 source;
        REQUIRED INT64 ordinal;
        REQUIRED DOUBLE x_m;
        REQUIRED DOUBLE y_m;
        REQUIRED DOUBLE vx_m_s;
        REQUIRED DOUBLE vy_m_s;
        REQUIRED DOUBLE heading_rad;
        REQUIRED BYTE_ARRAY state (STRING);
        REQUIRED BYTE_ARRAY tier (STRING);
    }
";

/// The buffered rows of the next row group, column by column.
#[derive(Default)]
struct Columns {
    frame: Vec<i64>,
    time_s: Vec<f64>,
    id: Vec<i64>,
    source: Vec<i32>,
    ordinal: Vec<i64>,
    /// x, y, vx, vy, heading.
    numbers: [Vec<f64>; 5],
    state: Vec<ByteArray>,
    tier: Vec<ByteArray>,
}

impl Columns {
    fn len(&self) -> usize {
        self.frame.len()
    }

    fn clear(&mut self) {
        self.frame.clear();
        self.time_s.clear();
        self.id.clear();
        self.source.clear();
        self.ordinal.clear();
        self.numbers.iter_mut().for_each(Vec::clear);
        self.state.clear();
        self.tier.clear();
    }
}

/// Writes Parquet row groups into a staged file.
pub struct ParquetWriter {
    staged: StagedOutputFile,
    writer: SerializedFileWriter<BufWriter<std::fs::File>>,
    info: RunInfo,
    columns: Columns,
    /// Each state's and tier's name as a value (static: a clone copies a pointer).
    state_names: Vec<ByteArray>,
    tier_names: Vec<ByteArray>,
}

impl ParquetWriter {
    /// Opens the Parquet file in the staged file.
    pub fn create(staged: StagedOutputFile, info: &RunInfo) -> anyhow::Result<ParquetWriter> {
        let schema = Arc::new(parse_message_type(SCHEMA)?);
        let file = staged
            .file()
            .try_clone()
            .context("cannot open the Parquet file")?;
        let properties = Arc::new(writer_properties());
        let writer =
            SerializedFileWriter::new(BufWriter::with_capacity(1 << 20, file), schema, properties)?;
        let states = [
            AgentState::Walking,
            AgentState::Holding,
            AgentState::Travelling,
            AgentState::Arrived,
            AgentState::Fleeing,
            AgentState::KnockedDown,
            AgentState::Pooled,
        ];
        Ok(ParquetWriter {
            staged,
            writer,
            info: info.clone(),
            columns: Columns::default(),
            state_names: states.map(|s| static_text(state_name(s))).to_vec(),
            tier_names: Tier::ALL.map(|t| static_text(tier_name(t))).to_vec(),
        })
    }

    /// Writes the buffered rows as one row group.
    fn flush(&mut self) -> anyhow::Result<()> {
        if self.columns.len() == 0 {
            return Ok(());
        }
        let c = &self.columns;
        let mut group = self.writer.next_row_group()?;
        let mut index = 0;
        while let Some(mut column) = group.next_column()? {
            match index {
                0 => column
                    .typed::<Int64Type>()
                    .write_batch(&c.frame, None, None)?,
                1 => column
                    .typed::<DoubleType>()
                    .write_batch(&c.time_s, None, None)?,
                2 => column.typed::<Int64Type>().write_batch(&c.id, None, None)?,
                3 => column
                    .typed::<Int32Type>()
                    .write_batch(&c.source, None, None)?,
                4 => column
                    .typed::<Int64Type>()
                    .write_batch(&c.ordinal, None, None)?,
                5..=9 => {
                    let values = &c.numbers[index - 5];
                    column
                        .typed::<DoubleType>()
                        .write_batch(values, None, None)?
                }
                10 => column
                    .typed::<ByteArrayType>()
                    .write_batch(&c.state, None, None)?,
                _ => column
                    .typed::<ByteArrayType>()
                    .write_batch(&c.tier, None, None)?,
            };
            column.close()?;
            index += 1;
        }
        group.close()?;
        self.columns.clear();
        Ok(())
    }
}

/// The columns written without a dictionary: nearly every value differs (positions, velocities,
/// headings) or the dictionary saves too little for what it costs to build (ids).
pub const PLAIN_COLUMNS: [&str; 7] = [
    "id",
    "ordinal",
    "x_m",
    "y_m",
    "vx_m_s",
    "vy_m_s",
    "heading_rad",
];

/// Dictionary encoding (the default) but for [`PLAIN_COLUMNS`].
fn writer_properties() -> WriterProperties {
    PLAIN_COLUMNS
        .iter()
        .fold(WriterProperties::builder(), |builder, column| {
            builder.set_column_dictionary_enabled(ColumnPath::from(*column), false)
        })
        .build()
}

/// A name as a value whose clones share the static bytes (no reference count to update).
fn static_text(name: &'static str) -> ByteArray {
    ByteArray::from(bytes::Bytes::from_static(name.as_bytes()))
}

/// `tier`'s index in `Tier::ALL`.
fn tier_index(tier: Tier) -> usize {
    Tier::ALL.iter().position(|&t| t == tier).unwrap_or(0)
}

impl FrameWriter for ParquetWriter {
    fn write_frame(&mut self, frame: &SampledFrame) -> anyhow::Result<()> {
        let time_s = self.info.time_s(frame.frame);
        let c = &mut self.columns;
        for row in frame.rows() {
            c.frame.push(frame.frame as i64);
            c.time_s.push(time_s);
            c.id.push(row.id.bits() as i64);
            c.source.push(row.id.source() as i32);
            c.ordinal.push(i64::from(row.id.ordinal()));
            let values = [
                row.position_m.x,
                row.position_m.y,
                row.velocity_m_s.x,
                row.velocity_m_s.y,
                row.heading_rad(),
            ];
            for (column, value) in c.numbers.iter_mut().zip(values) {
                column.push(value);
            }
            c.state
                .push(self.state_names[usize::from(row.state.code())].clone());
            c.tier.push(self.tier_names[tier_index(row.tier)].clone());
        }
        if self.columns.len() >= ROW_GROUP_ROWS {
            self.flush()?;
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>, walkable: &WalkableArea) -> anyhow::Result<()> {
        self.flush()?;
        let info = &self.info;
        let fps = 1.0 / (info.fixed_step_s * info.every_frames as f64);
        for (key, value) in [
            ("stagecraft_scenario", info.scenario.clone()),
            ("stagecraft_seed", info.seed.to_string()),
            ("stagecraft_fixed_step_s", info.fixed_step_s.to_string()),
            ("stagecraft_every_frames", info.every_frames.to_string()),
            ("stagecraft_fps", fps.to_string()),
            ("stagecraft_axes", "x east, y north, meters".to_owned()),
            ("stagecraft_walkable_from", walkable.from.to_owned()),
            ("stagecraft_walkable_wkt", walkable.wkt.clone()),
        ] {
            self.writer
                .append_key_value_metadata(KeyValue::new(key.to_owned(), value));
        }
        let this = *self;
        let out = this.writer.into_inner()?;
        out.into_inner()
            .map_err(|error| error.into_error())
            .context("cannot write the Parquet file")?;
        this.staged.commit()
    }
}
