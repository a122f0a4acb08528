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
use record::{put_record, put_varint};
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
    cell: Vec<u8>,
    /// The record being encoded.
    record: Vec<u8>,
    key_values: Vec<Value<'static>>,
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
            record: Vec::new(),
            key_values: Vec::new(),
        })
    }

    /// Appends a row with the next rowid; that rowid.
    pub fn push_row(&mut self, values: &[Value<'_>]) -> anyhow::Result<i64> {
        self.record.clear();
        let len = put_record(&mut self.record, values)?;
        ensure!(
            len <= self.max_row_record,
            "a row of {len} bytes needs an overflow page"
        );
        let rowid = self.rowid + 1;
        self.cell.clear();
        put_varint(&mut self.cell, len as u64);
        put_varint(&mut self.cell, rowid as u64);
        self.cell.extend_from_slice(&self.record);
        self.table.push_row(&mut self.file, rowid, &self.cell)?;
        self.rowid = rowid;
        Ok(rowid)
    }

    /// Appends the index entry of the row `rowid` with the integer key columns `key`; the
    /// entries must come in increasing (key, rowid) order.
    pub fn push_index_key(&mut self, key: &[i64], rowid: i64) -> anyhow::Result<()> {
        let entry = key.iter().copied().chain([rowid]);
        ensure!(
            self.last_key.is_empty() || entry.clone().cmp(self.last_key.iter().copied()).is_gt(),
            "index key {key:?} of row {rowid} is not above the last one {:?}",
            self.last_key
        );
        self.last_key.clear();
        self.last_key.extend(entry);
        self.key_values.clear();
        self.key_values
            .extend(self.last_key.iter().map(|&n| Value::Integer(n)));
        self.record.clear();
        let len = put_record(&mut self.record, &self.key_values)?;
        ensure!(
            len <= self.max_key_record,
            "an index key of {len} bytes needs an overflow page"
        );
        self.cell.clear();
        put_varint(&mut self.cell, len as u64);
        self.cell.extend_from_slice(&self.record);
        self.index.push_key(&mut self.file, &self.cell)
    }

    /// Writes both trees' last pages, their roots and the database header; the file, flushed
    /// but not synced.
    pub fn finish(mut self) -> anyhow::Result<std::fs::File> {
        self.table.finish(&mut self.file)?;
        self.index.finish(&mut self.file)?;
        self.file.finish()
    }
}
