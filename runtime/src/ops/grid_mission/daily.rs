//! Daily seeds: records keyed by `cell:date`, UTC calendar-day ids, and daily mission generation.
//!
//! No clock is read here: the caller names the day. Every client that holds the same dispatched seed
//! solves a bit-identical layout. Signature validation and the service that issues seeds are outside
//! the runtime.

use std::collections::BTreeMap;

use thiserror::Error;

use super::{solve_mission, MissionError, MissionRequest};
use crate::content::{DailyKey, MissionLayout};

/// A dispatched daily seed.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DailySeedRecord {
    /// The procedural cell (graph) id; must not contain `:`.
    pub cell_id: String,
    /// The UTC calendar day, `YYYY-MM-DD`.
    pub date_id: String,
    /// The seed every client uses that day.
    pub seed: u64,
    /// The issuing server's signature, stored verbatim (not validated here).
    pub server_signature: String,
}

/// Dispatched daily seeds keyed by `cell:date`, in key order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DailySeedBook {
    records: BTreeMap<String, DailySeedRecord>,
}

impl DailySeedBook {
    /// An empty book.
    pub fn new() -> DailySeedBook {
        DailySeedBook::default()
    }

    /// Stores `record` under its `cell:date` key, returning the record it replaces.
    pub fn dispatch(
        &mut self,
        record: DailySeedRecord,
    ) -> Result<Option<DailySeedRecord>, DailyError> {
        let key = daily_key(&record.cell_id, &record.date_id)?;
        Ok(self.records.insert(key, record))
    }

    /// The record for `cell_id` on `date_id`, if dispatched.
    pub fn get(&self, cell_id: &str, date_id: &str) -> Option<&DailySeedRecord> {
        let key = daily_key(cell_id, date_id).ok()?;
        self.records.get(&key)
    }

    /// Every record, in key order.
    pub fn records(&self) -> impl Iterator<Item = &DailySeedRecord> {
        self.records.values()
    }
}

/// A daily-seed operation that cannot be done.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DailyError {
    /// The cell id is empty or contains `:`, which would make keys ambiguous.
    #[error("cell id {cell_id:?} is empty or contains ':'")]
    CellId {
        /// The id given.
        cell_id: String,
    },
    /// The date is not a valid `YYYY-MM-DD` calendar day (years 1..=9999).
    #[error("{date:?} is not a calendar day YYYY-MM-DD")]
    Date {
        /// The date given.
        date: String,
    },
    /// No seed was dispatched for the key.
    #[error("no daily seed dispatched for {key}")]
    NoSeed {
        /// The `cell:date` key.
        key: String,
    },
    /// The solver failed.
    #[error(transparent)]
    Mission(#[from] MissionError),
}

/// The book key of a cell and day: `cell:date`, both validated.
pub fn daily_key(cell_id: &str, date_id: &str) -> Result<String, DailyError> {
    if cell_id.is_empty() || cell_id.contains(':') {
        return Err(DailyError::CellId {
            cell_id: cell_id.to_owned(),
        });
    }
    parse_date_id(date_id)?;
    Ok(format!("{cell_id}:{date_id}"))
}

/// The day id `YYYY-MM-DD` of a UTC calendar day.
pub fn daily_date_id(year: u32, month: u32, day: u32) -> Result<String, DailyError> {
    let text = format!("{year:04}-{month:02}-{day:02}");
    if (1..=9999).contains(&year)
        && (1..=12).contains(&month)
        && (1..=days_in_month(year, month)).contains(&day)
    {
        Ok(text)
    } else {
        Err(DailyError::Date { date: text })
    }
}

/// Parses a strict `YYYY-MM-DD` day id into (year, month, day).
pub fn parse_date_id(date_id: &str) -> Result<(u32, u32, u32), DailyError> {
    let invalid = || DailyError::Date {
        date: date_id.to_owned(),
    };
    let bytes = date_id.as_bytes();
    let digits_at = |range: std::ops::Range<usize>| {
        bytes
            .get(range.clone())
            .filter(|part| part.iter().all(u8::is_ascii_digit))
            .and_then(|_| date_id.get(range))
            .and_then(|part| part.parse::<u32>().ok())
    };
    if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return Err(invalid());
    }
    let (year, month, day) = match (digits_at(0..4), digits_at(5..7), digits_at(8..10)) {
        (Some(y), Some(m), Some(d)) => (y, m, d),
        _ => return Err(invalid()),
    };
    daily_date_id(year, month, day).map_err(|_| invalid())?;
    Ok((year, month, day))
}

/// Days in `month` of `year` (Gregorian).
fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        // Leap: divisible by 4 and not by 100, or divisible by 400.
        2 if matches!((year % 4, year % 100, year % 400), (0, 1.., _) | (_, _, 0)) => 29,
        2 => 28,
        _ => 0,
    }
}

/// Solves `template` with the seed dispatched for `cell_id` on `date_id`; the layout carries the
/// daily key.
pub fn solve_daily_mission(
    book: &DailySeedBook,
    cell_id: &str,
    date_id: &str,
    template: &MissionRequest,
) -> Result<MissionLayout, DailyError> {
    let key = daily_key(cell_id, date_id)?;
    let record = book
        .get(cell_id, date_id)
        .ok_or(DailyError::NoSeed { key })?;
    let request = MissionRequest {
        seed: record.seed,
        ..template.clone()
    };
    let mut layout = solve_mission(&request)?;
    layout.daily = Some(DailyKey {
        cell_id: cell_id.to_owned(),
        date_id: date_id.to_owned(),
    });
    Ok(layout)
}
