//! One B-tree page being filled (fileformat2 §1.6): an 8-byte header (12 on interior pages,
//! whose last 4 bytes are the right-most child), the cell pointer array after it (2-byte
//! big-endian offsets in key order), and the cells packed from the end of the page downwards.
//! No freeblocks, no fragments and no reserved bytes, as a freshly built page has. Never page 1
//! (whose 100-byte database header shifts everything).

/// A B-tree page's kind: its first byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageKind {
    /// Interior page of an index b-tree (cells: child page, key).
    IndexInterior = 0x02,
    /// Interior page of a table b-tree (cells: child page, rowid).
    TableInterior = 0x05,
    /// Leaf page of an index b-tree (cells: key).
    IndexLeaf = 0x0a,
    /// Leaf page of a table b-tree (cells: rowid, record).
    TableLeaf = 0x0d,
}

impl PageKind {
    /// Bytes of the page header.
    fn header_len(self) -> usize {
        match self {
            PageKind::IndexInterior | PageKind::TableInterior => 12,
            PageKind::IndexLeaf | PageKind::TableLeaf => 8,
        }
    }
}

/// A page's bytes while cells are added.
#[derive(Debug, Clone)]
pub struct PageBuilder {
    kind: PageKind,
    bytes: Vec<u8>,
    cells: usize,
    /// Offset of the lowest cell (the page size while there is none).
    content_start: usize,
}

impl PageBuilder {
    /// An empty page of `page_size` bytes.
    pub fn new(kind: PageKind, page_size: usize) -> PageBuilder {
        PageBuilder {
            kind,
            bytes: vec![0; page_size],
            cells: 0,
            content_start: page_size,
        }
    }

    /// Cells on the page.
    pub fn cells(&self) -> usize {
        self.cells
    }

    /// Empties the page.
    pub fn clear(&mut self) {
        self.bytes.fill(0);
        self.cells = 0;
        self.content_start = self.bytes.len();
    }

    /// Whether a cell of `len` bytes (and its pointer) still fits.
    pub fn fits(&self, len: usize) -> bool {
        self.kind.header_len() + 2 * (self.cells + 1) + len <= self.content_start
    }

    /// Adds a cell after the others (the caller checked [`PageBuilder::fits`]).
    pub fn push(&mut self, cell: &[u8]) {
        debug_assert!(self.fits(cell.len()));
        self.content_start -= cell.len();
        let start = self.content_start;
        self.bytes[start..start + cell.len()].copy_from_slice(cell);
        let pointer = self.kind.header_len() + 2 * self.cells;
        // Offsets below 65536: `content_start` < page size ≤ 65536 once a cell is stored.
        self.bytes[pointer..pointer + 2].copy_from_slice(&(start as u16).to_be_bytes());
        self.cells += 1;
    }

    /// Takes the last cell back off the page (`None` on an empty page).
    pub fn pop(&mut self) -> Option<Vec<u8>> {
        let last = self.cells.checked_sub(1)?;
        let end = if last == 0 {
            self.bytes.len()
        } else {
            let pointer = self.kind.header_len() + 2 * (last - 1);
            usize::from(u16::from_be_bytes([
                self.bytes[pointer],
                self.bytes[pointer + 1],
            ]))
        };
        let cell = self.bytes[self.content_start..end].to_vec();
        self.bytes[self.content_start..end].fill(0);
        let pointer = self.kind.header_len() + 2 * last;
        self.bytes[pointer..pointer + 2].fill(0);
        self.content_start = end;
        self.cells = last;
        Some(cell)
    }

    /// The finished page: its header written (`right_child` on an interior page).
    pub fn finish(&mut self, right_child: Option<u32>) -> &[u8] {
        let header = &mut self.bytes[..12];
        header[0] = self.kind as u8;
        header[1..3].fill(0);
        header[3..5].copy_from_slice(&(self.cells as u16).to_be_bytes());
        // A content area starting at 65536 is written as 0.
        header[5..7].copy_from_slice(&(self.content_start as u16).to_be_bytes());
        header[7] = 0;
        if self.kind.header_len() == 12 {
            header[8..12].copy_from_slice(&right_child.unwrap_or(0).to_be_bytes());
        }
        &self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_fill_from_the_end_and_pointers_from_the_header() {
        let mut page = PageBuilder::new(PageKind::TableInterior, 512);
        page.push(&[1, 2, 3]);
        page.push(&[4, 5]);
        assert!(page.fits(512 - 12 - 4 - 5 - 2));
        assert!(!page.fits(512 - 12 - 4 - 5 - 1));
        let bytes = page.finish(Some(0x0102_0304)).to_vec();
        assert_eq!(
            bytes[..16],
            [5, 0, 0, 0, 2, 0x01, 0xfb, 0, 1, 2, 3, 4, 0x01, 0xfd, 0x01, 0xfb]
        );
        assert_eq!(bytes[507..], [4, 5, 1, 2, 3]);
        assert_eq!(page.pop(), Some(vec![4, 5]));
        assert_eq!(page.cells(), 1);
        let bytes = page.finish(None).to_vec();
        assert_eq!(bytes[3..7], [0, 1, 0x01, 0xfd]);
        assert_eq!(page.pop(), Some(vec![1, 2, 3]));
        assert_eq!(page.pop(), None);
        let mut big = PageBuilder::new(PageKind::TableLeaf, 65536);
        assert_eq!(big.finish(None)[5..7], [0, 0]);
    }
}
