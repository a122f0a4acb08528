//! The daily-seed file of a project (`daily-seeds.ron`): dispatched seeds keyed by `cell:date`,
//! each with its server signature (stored verbatim, not validated) and dispatch time, as the
//! specification's `DispatchDailySeed` stores them. The runtime reads no file and no clock: the
//! caller hands the text and names the time.

use super::chunk_library::decode_text;
use super::decode::Encode;
use super::node::{FieldPath, Locator};
use super::write::to_canonical_string;
use super::{Diagnostic, Severity};
use crate::ops::grid_mission::{daily_key, DailySeedBook, DailySeedRecord};

/// The daily-seed file's name in a project folder.
pub const DAILY_SEEDS_FILE: &str = "daily-seeds.ron";
/// Current schema version of daily-seed files.
pub const DAILY_SEEDS_SCHEMA: u32 = 1;

/// Every dispatched daily seed, sorted by `cell:date`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DailySeeds {
    /// The records, one per `cell:date`.
    pub seeds: Vec<DailySeed>,
}

crate::project::codec_macro::record_codec!(DailySeeds "DailySeeds" schema DAILY_SEEDS_SCHEMA {
    seeds: Vec<DailySeed>,
});

/// One dispatched seed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DailySeed {
    /// The procedural cell (graph) id, such as `PCG_Tactical`.
    pub cell_id: String,
    /// The UTC calendar day `YYYY-MM-DD`.
    pub date_id: String,
    /// The seed every client uses that day.
    pub seed: u64,
    /// The issuing server's signature, verbatim.
    pub server_signature: String,
    /// When it was dispatched, UTC (`YYYY-MM-DDTHH:MM:SSZ`).
    pub dispatch_utc: String,
}

crate::project::codec_macro::record_codec!(DailySeed "DailySeed" {
    cell_id: String,
    date_id: String,
    seed: u64,
    server_signature: String,
    dispatch_utc: String,
});

impl DailySeed {
    /// The `cell:date` key.
    pub fn key(&self) -> String {
        format!("{}:{}", self.cell_id, self.date_id)
    }
}

impl DailySeeds {
    /// Stores `seed` under its key (checked), keeping the file sorted; returns the record it
    /// replaces.
    pub fn dispatch(
        &mut self,
        seed: DailySeed,
    ) -> Result<Option<DailySeed>, crate::ops::grid_mission::DailyError> {
        daily_key(&seed.cell_id, &seed.date_id)?;
        let key = seed.key();
        match self.seeds.binary_search_by(|s| s.key().cmp(&key)) {
            Ok(at) => Ok(Some(std::mem::replace(&mut self.seeds[at], seed))),
            Err(at) => {
                self.seeds.insert(at, seed);
                Ok(None)
            }
        }
    }

    /// The record of `cell_id` on `date_id`, if dispatched.
    pub fn get(&self, cell_id: &str, date_id: &str) -> Option<&DailySeed> {
        self.seeds
            .iter()
            .find(|s| s.cell_id == cell_id && s.date_id == date_id)
    }

    /// The runtime's seed book of these records.
    pub fn book(&self) -> DailySeedBook {
        let mut book = DailySeedBook::new();
        for seed in &self.seeds {
            // Keys were checked when read or dispatched.
            let _ = book.dispatch(DailySeedRecord {
                cell_id: seed.cell_id.clone(),
                date_id: seed.date_id.clone(),
                seed: seed.seed,
                server_signature: seed.server_signature.clone(),
            });
        }
        book
    }

    /// The file's canonical text.
    pub fn to_text(&self) -> String {
        to_canonical_string(&self.encode())
    }
}

/// Reads a daily-seed file: the records when there is no error, and every diagnostic (parse,
/// schema, an invalid cell or date, a repeated `cell:date`), located.
pub fn read_daily_seeds(file: &str, text: &str) -> (Option<DailySeeds>, Vec<Diagnostic>) {
    let (value, root, mut diagnostics) = decode_text::<DailySeeds>(file, text);
    if let (Some(seeds), Some(root)) = (&value, &root) {
        let locator = Locator::new(root);
        let mut keys: Vec<String> = Vec::new();
        for (index, seed) in seeds.seeds.iter().enumerate() {
            let at = FieldPath::root().field("seeds").index(index);
            let problem = match daily_key(&seed.cell_id, &seed.date_id) {
                Err(error) => {
                    let field = match error {
                        crate::ops::grid_mission::DailyError::CellId { .. } => "cell_id",
                        _ => "date_id",
                    };
                    Some((
                        at.field(field),
                        error.to_string(),
                        "a cell id without `:` and a day YYYY-MM-DD",
                    ))
                }
                Ok(key) if keys.contains(&key) => Some((
                    at.clone(),
                    format!("a second seed for {key}"),
                    "one seed per cell and day",
                )),
                Ok(key) => {
                    keys.push(key);
                    None
                }
            };
            if let Some((path, message, expected)) = problem {
                let span = locator.deepest_at(root, &path).span;
                diagnostics.push(Diagnostic {
                    severity: Severity::Error,
                    file: file.to_owned(),
                    line: span.line,
                    column: span.column,
                    path,
                    message,
                    expected: expected.to_owned(),
                });
            }
        }
    }
    diagnostics.sort();
    let value = value.filter(|_| !diagnostics.iter().any(Diagnostic::is_error));
    (value, diagnostics)
}
