//! A b-tree built bottom-up from cells that arrive in key order (fileformat2 §1.6): leaves
//! are appended to the file as they fill, the interior levels are built at the end from one
//! `(child page, separator)` pair per page of the level below, and the top page is written
//! into the root page SQLite allocated for the tree (a tree that fits one leaf is that leaf).
//!
//! In a table b-tree every row is in a leaf and an interior cell holds the largest rowid of
//! its child. In an index b-tree every key is stored exactly once: the key that would start
//! a new leaf moves up as the separator between two leaves instead (the interior cell is the
//! child page followed by the same bytes as a leaf cell). Every page gets at least one cell:
//! a key left over at the end pushes the full leaf's last key up in its place, and a level's
//! last page never gets a single child.

use anyhow::ensure;

use super::file::PageFile;
use super::page::{PageBuilder, PageKind};
use super::record::put_varint;

/// Which kind of b-tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeKind {
    /// Rows keyed by rowid.
    Table,
    /// Keys (records) with no data.
    Index,
}

/// A child page and the separator after it: the bytes of its interior cell after the page
/// number.
type Child = (u32, Vec<u8>);

/// A b-tree being built.
#[derive(Debug)]
pub struct TreeBuilder {
    kind: TreeKind,
    root: u32,
    leaf: PageBuilder,
    /// The leaves written so far (all but the last), with their separators.
    children: Vec<Child>,
    /// The largest rowid on the leaf (table).
    last_rowid: i64,
    /// The key that goes up once another key follows it (index).
    separator: Option<Vec<u8>>,
}

impl TreeBuilder {
    /// An empty tree whose top page will be written into page `root`.
    pub fn new(kind: TreeKind, root: u32, page_size: usize) -> TreeBuilder {
        let leaf = match kind {
            TreeKind::Table => PageKind::TableLeaf,
            TreeKind::Index => PageKind::IndexLeaf,
        };
        TreeBuilder {
            kind,
            root,
            leaf: PageBuilder::new(leaf, page_size),
            children: Vec::new(),
            last_rowid: 0,
            separator: None,
        }
    }

    /// Adds a table row's leaf cell (`rowid` above every earlier one).
    pub fn push_row(&mut self, file: &mut PageFile, rowid: i64, cell: &[u8]) -> anyhow::Result<()> {
        debug_assert_eq!(self.kind, TreeKind::Table);
        if !self.leaf.fits(cell.len()) {
            let page = file.append(self.leaf.finish(None))?;
            let mut separator = Vec::with_capacity(9);
            put_varint(&mut separator, self.last_rowid as u64);
            self.children.push((page, separator));
            self.leaf.clear();
        }
        ensure!(
            self.leaf.fits(cell.len()),
            "a row of {} bytes does not fit a page",
            cell.len()
        );
        self.leaf.push(cell);
        self.last_rowid = rowid;
        Ok(())
    }

    /// Adds an index key's leaf cell (above every earlier key).
    pub fn push_key(&mut self, file: &mut PageFile, cell: &[u8]) -> anyhow::Result<()> {
        debug_assert_eq!(self.kind, TreeKind::Index);
        if let Some(separator) = self.separator.take() {
            let page = file.append(self.leaf.finish(None))?;
            self.children.push((page, separator));
            self.leaf.clear();
        }
        if self.leaf.fits(cell.len()) {
            self.leaf.push(cell);
        } else {
            ensure!(
                self.leaf.cells() >= 2,
                "index keys of {} bytes do not fit",
                cell.len()
            );
            self.separator = Some(cell.to_vec());
        }
        Ok(())
    }

    /// Writes the last leaf and the interior levels; the top page goes into the root page.
    pub fn finish(mut self, file: &mut PageFile) -> anyhow::Result<()> {
        if let Some(last_key) = self.separator.take() {
            // The full leaf's last key goes up; the left-over key makes the last leaf.
            let up = self.leaf.pop().unwrap_or_default();
            let page = file.append(self.leaf.finish(None))?;
            self.children.push((page, up));
            self.leaf.clear();
            self.leaf.push(&last_key);
        }
        if self.children.is_empty() {
            file.write_root(self.root, self.leaf.finish(None))?;
            return Ok(());
        }
        let mut last = file.append(self.leaf.finish(None))?;
        let interior = match self.kind {
            TreeKind::Table => PageKind::TableInterior,
            TreeKind::Index => PageKind::IndexInterior,
        };
        let mut page = PageBuilder::new(interior, file.page_size());
        let mut children = std::mem::take(&mut self.children);
        loop {
            match build_level(file, &mut page, &children, last)? {
                Level::Top => return Ok(file.write_root(self.root, page.finish(Some(last)))?),
                Level::Pages(above, above_last) => (children, last) = (above, above_last),
            }
        }
    }
}

/// What one interior level became.
enum Level {
    /// It fits one page, left in the builder (its right child is the level's last child).
    Top,
    /// Its pages, appended, as the children of the level above.
    Pages(Vec<Child>, u32),
}

/// Packs `children` (then `last`) into interior pages: each page as many cells as fit, its
/// right child the next child, whose separator goes up; a page never leaves a single child to
/// the next one.
fn build_level(
    file: &mut PageFile,
    page: &mut PageBuilder,
    children: &[Child],
    last: u32,
) -> anyhow::Result<Level> {
    let mut above = Vec::new();
    let mut cell = Vec::new();
    let mut next = 0;
    loop {
        page.clear();
        let mut end = next;
        while let Some((child, separator)) = children.get(end) {
            cell.clear();
            cell.extend_from_slice(&child.to_be_bytes());
            cell.extend_from_slice(separator);
            if !page.fits(cell.len()) {
                break;
            }
            page.push(&cell);
            end += 1;
        }
        if end == children.len() {
            if above.is_empty() {
                return Ok(Level::Top);
            }
            let number = file.append(page.finish(Some(last)))?;
            return Ok(Level::Pages(above, number));
        }
        if end + 1 == children.len() {
            // Only `last` would be left for the next page: this one ends a child earlier.
            page.pop();
            end -= 1;
        }
        ensure!(end > next, "interior cells do not fit two to a page");
        // Cells next..end-1 on the page, child `end` its right child, its separator goes up.
        let (right, separator) = &children[end];
        let number = file.append(page.finish(Some(*right)))?;
        above.push((number, separator.clone()));
        next = end + 1;
    }
}
