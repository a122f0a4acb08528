//! The database file under construction: its header read once (fileformat2 §1.3) to check that
//! it is a database this module can append to, pages appended at its end, root pages written in
//! place and the header's page count and change counter updated at the end.

use std::fs::File;
use std::io::{BufWriter, Read as _, Seek as _, SeekFrom, Write as _};
use std::path::Path;

use anyhow::{bail, ensure, Context as _};

/// Bytes of the database header on page 1.
const HEADER_LEN: usize = 100;

/// A database file with pages appended at its end.
#[derive(Debug)]
pub struct PageFile {
    out: BufWriter<File>,
    page_size: usize,
    /// The number the next appended page gets.
    next_page: u32,
}

/// A header field: big-endian `u32` at `offset`.
fn field(header: &[u8; HEADER_LEN], offset: usize) -> u32 {
    u32::from_be_bytes([
        header[offset],
        header[offset + 1],
        header[offset + 2],
        header[offset + 3],
    ])
}

impl PageFile {
    /// Opens the database at `path` (closed by SQLite, with no journal beside it) to append
    /// pages: refused unless UTF-8, schema format 4, no reserved bytes, no auto-vacuum, an empty
    /// freelist and a valid in-header size that matches the file's length.
    pub fn open(path: &Path) -> anyhow::Result<PageFile> {
        let mut file = File::options().read(true).write(true).open(path)?;
        let mut header = [0u8; HEADER_LEN];
        file.read_exact(&mut header)
            .context("not an SQLite database")?;
        ensure!(
            header.starts_with(b"SQLite format 3\0"),
            "not an SQLite database"
        );
        let page_size = match u16::from_be_bytes([header[16], header[17]]) {
            1 => 65536,
            size => usize::from(size),
        };
        let pages = field(&header, 28);
        let checks = [
            (header[20] == 0, "reserved bytes per page"),
            (
                field(&header, 32) == 0 && field(&header, 36) == 0,
                "free pages",
            ),
            (field(&header, 44) == 4, "a schema format other than 4"),
            (field(&header, 52) == 0, "auto-vacuum"),
            (field(&header, 56) == 1, "a text encoding other than UTF-8"),
            (
                field(&header, 24) == field(&header, 92),
                "a stale page count",
            ),
        ];
        for (ok, what) in checks {
            if !ok {
                bail!("the database has {what}: pages cannot be appended to it");
            }
        }
        let len = file.metadata()?.len();
        ensure!(
            len == u64::from(pages) * page_size as u64,
            "the database's length {len} is not its {pages} pages of {page_size} bytes"
        );
        file.seek(SeekFrom::End(0))?;
        Ok(PageFile {
            out: BufWriter::with_capacity(1 << 16, file),
            page_size,
            next_page: pages + 1,
        })
    }

    /// Bytes per page.
    pub fn page_size(&self) -> usize {
        self.page_size
    }

    /// Appends a page; its number.
    pub fn append(&mut self, page: &[u8]) -> std::io::Result<u32> {
        debug_assert_eq!(page.len(), self.page_size);
        self.out.write_all(page)?;
        let number = self.next_page;
        self.next_page += 1;
        Ok(number)
    }

    /// Writes `page` over page `number` (a root page that SQLite allocated).
    pub fn write_root(&mut self, number: u32, page: &[u8]) -> std::io::Result<()> {
        debug_assert!(number > 1 && number < self.next_page);
        self.out.flush()?;
        let file = self.out.get_mut();
        file.seek(SeekFrom::Start(
            u64::from(number - 1) * self.page_size as u64,
        ))?;
        file.write_all(page)?;
        file.seek(SeekFrom::End(0))?;
        Ok(())
    }

    /// Writes the header's page count, bumps its change counter (and the counter the page
    /// count is valid for) and flushes; the file, for the caller to sync.
    pub fn finish(self) -> anyhow::Result<File> {
        let pages = self.next_page - 1;
        let mut file = self.out.into_inner().map_err(|e| e.into_error())?;
        let mut header = [0u8; HEADER_LEN];
        file.seek(SeekFrom::Start(0))?;
        file.read_exact(&mut header)?;
        let counter = field(&header, 24).wrapping_add(1).to_be_bytes();
        header[24..28].copy_from_slice(&counter);
        header[28..32].copy_from_slice(&pages.to_be_bytes());
        header[92..96].copy_from_slice(&counter);
        file.seek(SeekFrom::Start(0))?;
        file.write_all(&header)?;
        file.flush()?;
        Ok(file)
    }
}
