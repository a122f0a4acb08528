//! Rows appended to one SQLite table and one of its indexes by writing their B-tree pages
//! directly, following the documented database file format
//! (<https://www.sqlite.org/fileformat2.html>). SQLite's own insert path costs about 0.7 µs of
//! CPU per trajectory row (bytecode, cursor seeks and page balancing for every row), three
//! times what the simulation spends per agent-step; rows that arrive in rowid order with index
//! keys in key order need none of that: a record is encoded straight into a leaf page and full
//! pages are appended to the file. No maintained crate writes SQLite pages, hence this module.
//!
//! The subset written: table leaf (0x0D) and interior (0x05) pages, index leaf (0x0A) and
//! interior (0x02) pages, records of integers, reals and UTF-8 text, no overflow pages (a
//! payload that would overflow is refused), no freeblocks. Everything else — the schema, the
//! other tables, the empty table and index whose root pages these trees fill — is made by
//! SQLite itself: [`BulkTable::open`] takes a database SQLite created and closed (rollback
//! journal off, so no journal is left), and [`BulkTable::finish`] leaves a database SQLite
//! opens and writes to again. The caller gives rowids 1, 2, 3, … and index keys in strictly
//! increasing order (checked; an error otherwise).

mod file;
mod page;
mod record;
#[cfg(test)]
mod tests;
mod tree;

use std::path::Path;

use anyhow::ensure;

use file::PageFile;
pub use record::Value;
use record::{put_record, put_small_record, varint_bytes, MAX_COLUMNS};
use tree::{TreeBuilder, TreeKind};

/// A table and one index whose rows are being appended.
#[derive(Debug)]
pub struct BulkTable {
    file: PageFile,
    table: TreeBuilder,
    index: TreeBuilder,
    /// Rowid of the last row appended.
    rowid: i64,
    /// The last index key appended (its columns, then its rowid).
    last_key: Vec<i64>,
    /// The largest record a table leaf holds without an overflow page.
    max_row_record: usize,
    /// The largest record an index page holds without an overflow page.
    max_key_record: usize,
    /// The cell being encoded ([`encode_cell`]).
    cell: Vec<u8>,
}

impl BulkTable {
    /// Opens the database at `path`, whose table with root page `table_root` and index with
    /// root page `index_root` are empty, to append rows.
    pub fn open(path: &Path, table_root: u32, index_root: u32) -> anyhow::Result<BulkTable> {
        let file = PageFile::open(path)?;
        let usable = file.page_size();
        Ok(BulkTable {
            table: TreeBuilder::new(TreeKind::Table, table_root, usable),
            index: TreeBuilder::new(TreeKind::Index, index_root, usable),
            // fileformat2 §1.6: X = U-35 on table leaves, ((U-12)*64/255)-23 on index pages.
            max_row_record: usable - 35,
            max_key_record: (usable - 12) * 64 / 255 - 23,
            file,
            rowid: 0,
            last_key: Vec::new(),
            cell: Vec::new(),
        })
    }

    /// Appends a row with the next rowid; that rowid.
    pub fn push_row(&mut self, values: &[Value<'_>]) -> anyhow::Result<i64> {
        let rowid = self.rowid + 1;
        let cell = encode_cell(
            &mut self.cell,
            values,
            Some(rowid),
            self.max_row_record,
            "a row",
        )?;
        self.table.push_row(&mut self.file, rowid, cell)?;
        self.rowid = rowid;
        Ok(rowid)
    }

    /// Appends the index entry of the row `rowid` with the integer key columns `key`; the
    /// entries must come in increasing (key, rowid) order.
    pub fn push_index_key(&mut self, key: &[i64], rowid: i64) -> anyhow::Result<()> {
        ensure!(
            key.len() < MAX_COLUMNS,
            "an index key of {} columns (at most {})",
            key.len(),
            MAX_COLUMNS - 1
        );
        let mut entry = [Value::Integer(0); MAX_COLUMNS];
        for (value, &n) in entry.iter_mut().zip(key.iter().chain([&rowid])) {
            *value = Value::Integer(n);
        }
        let entry = &entry[..=key.len()];
        let above = self.last_key.is_empty()
            || key.iter().chain([&rowid]).cmp(self.last_key.iter()).is_gt();
        ensure!(
            above,
            "index key {key:?} of row {rowid} is not above the last one {:?}",
            self.last_key
        );
        self.last_key.clear();
        self.last_key.extend(key.iter().chain([&rowid]));
        let cell = encode_cell(
            &mut self.cell,
            entry,
            None,
            self.max_key_record,
            "an index key",
        )?;
        self.index.push_key(&mut self.file, cell)
    }

    /// Writes both trees' last pages, their roots and the database header; the file, flushed
    /// but not synced.
    pub fn finish(mut self) -> anyhow::Result<std::fs::File> {
        self.table.finish(&mut self.file)?;
        self.index.finish(&mut self.file)?;
        self.file.finish()
    }
}

/// Bytes before a cell's record: room for its length and rowid varints.
const CELL_PREFIX: usize = 18;

/// Encodes in `scratch` the cell of the record of `values` (with `rowid` after its length on a
/// table leaf); the cell's bytes. An error when the record cannot be stored or its bytes pass
/// `max_record` (`what` would need an overflow page). A small record ([`put_small_record`]) is
/// encoded in place after room for the prefix, which then goes right before it: no copy.
fn encode_cell<'s>(
    scratch: &'s mut Vec<u8>,
    values: &[Value<'_>],
    rowid: Option<i64>,
    max_record: usize,
    what: &str,
) -> anyhow::Result<&'s [u8]> {
    let room = CELL_PREFIX + max_record + 8;
    if scratch.len() < room {
        scratch.resize(room, 0);
    }
    let len = match put_small_record(&mut scratch[CELL_PREFIX..room], values) {
        Some(len) => len,
        None => {
            let mut record = Vec::new();
            let len = put_record(&mut record, values)?;
            ensure!(
                len <= max_record,
                "{what} of {len} bytes needs an overflow page"
            );
            scratch[CELL_PREFIX..CELL_PREFIX + len].copy_from_slice(&record);
            len
        }
    };
    ensure!(
        len <= max_record,
        "{what} of {len} bytes needs an overflow page"
    );
    let (length, length_len) = varint_bytes(len as u64);
    let (rowid, rowid_len) = rowid.map_or(([0; 9], 0), |rowid| varint_bytes(rowid as u64));
    let start = CELL_PREFIX - length_len - rowid_len;
    scratch[start..start + length_len].copy_from_slice(&length[..length_len]);
    scratch[start + length_len..CELL_PREFIX].copy_from_slice(&rowid[..rowid_len]);
    Ok(&scratch[start..CELL_PREFIX + len])
}
