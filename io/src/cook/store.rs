//! The on-disk stage cache (`<project>/.stagecraft/cache` or `--cache DIR`): stage products by
//! cache key, each written into private staging, read back and compared with the bytes whose
//! size and digests its completion manifest records (the caller computed them from those bytes;
//! decoding them again would only re-check the encoder), then published with its completion
//! manifest (`entry.ron`) last; every hit re-verifies length, digests and schema,
//! and a corrupt entry is discarded. The record of each stage's last key explains misses.
//!
//! Layout: `entries/<key>/product.bin` + `entries/<key>/entry.ron`, `last/<scope>.<stage>.ron`,
//! `staging/` (private, removed after use; what a killed cook left there is removed by the next
//! cook once its process is gone).
//!
//! Syncing: by default every entry's files and folder are fsynced before it is published (and a
//! key record is written with [`atomic_write`](crate::atomic_write::atomic_write)).
//! [`DiskCache::unsynced`] publishes without fsync (the farm's tasks): a process that dies at any
//! point still leaves only whole entries or private staging (publication is one rename of a
//! verified folder); what a machine that loses power may lose is recent entries, and any it leaves
//! damaged fails the verification every lookup does — a miss, cooked again. A cache's integrity
//! rests on that verification, never on the syncs; they only make an entry more likely to survive
//! a crash.

use std::collections::BTreeSet;
use std::fs;
use std::io::{self, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::Context as _;
use stagecraft_runtime::content::Product;
use stagecraft_runtime::cook::codec::MAX_PRODUCT_BYTES;
use stagecraft_runtime::project::parse::MAX_SOURCE_BYTES;

use super::bundle_io::file_error;
use crate::bounded_read::{read_regular, Links, ReadProblem};
use stagecraft_runtime::cook::{
    check_product_in, explain_miss, plan_eviction, CacheEntry, CacheEntryInfo, CookError,
    CookedStage, KeyRecord, StoreMiss,
};

/// The default byte budget of a cache (1 GiB).
pub const DEFAULT_BUDGET_BYTES: u64 = 1 << 30;

/// A verified hit: the product and its file bytes.
#[derive(Debug, Clone)]
pub struct StoreHit {
    /// The entry's completion manifest.
    pub entry: CacheEntry,
    /// The decoded product.
    pub product: Product,
}

/// An on-disk stage cache.
#[derive(Debug, Clone)]
pub struct DiskCache {
    root: PathBuf,
    /// Fsync each entry before publishing it (see the module documentation).
    sync: bool,
    /// Tests: called with an entry's staging folder once its files are written and verified,
    /// just before it is published.
    before_publish: Option<fn(&Path)>,
}

static STAGING_COUNTER: AtomicU64 = AtomicU64::new(0);

/// An entry's completion manifest, written last.
const ENTRY_NAME: &str = "entry.ron";

/// An entry's product file.
const PRODUCT_NAME: &str = "product.bin";

/// A cache text file (`entry.ron`, `last/*.ron`): a regular file, never a link (cook writes
/// none), at most the source size limit, UTF-8.
fn read_cache_text(path: &Path) -> Result<String, CookError> {
    let bytes =
        read_regular(path, MAX_SOURCE_BYTES as u64, Links::Refuse).map_err(|p| match p {
            ReadProblem::Missing => CookError::File {
                why: "does not exist (an incomplete entry)".to_owned(),
            },
            other => file_error(other),
        })?;
    String::from_utf8(bytes).map_err(|_| CookError::invalid("text", "not UTF-8".to_owned()))
}

/// A published entry: a folder (not a link) whose `entry.ron` is a regular file.
fn is_complete(dir: &Path) -> bool {
    fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir())
        && fs::symlink_metadata(dir.join(ENTRY_NAME)).is_ok_and(|m| m.is_file())
}

/// Removes whatever is at `path` — a folder with its contents, or a file or link itself (never
/// what a link leads to).
fn discard(path: &Path) {
    match fs::symlink_metadata(path) {
        Ok(metadata) if metadata.is_dir() => {
            let _ = fs::remove_dir_all(path);
        }
        Ok(_) => {
            let _ = fs::remove_file(path);
        }
        Err(_) => {}
    }
}

fn write_file(path: &Path, bytes: &[u8], sync: bool) -> io::Result<()> {
    let mut file = fs::File::create(path)?;
    file.write_all(bytes)?;
    if sync {
        file.sync_all()?;
    }
    Ok(())
}

/// Bytes compared at a time when a written product file is read back.
const VERIFY_CHUNK: usize = 1 << 20;

/// Reads the file just written at `path` back through a new handle, a chunk at a time, and
/// checks that it holds exactly `bytes`: no more, no less, no byte different.
fn verify_written(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let mut file = fs::File::open(path)?;
    let size = file.metadata()?.len();
    if size != bytes.len() as u64 {
        anyhow::bail!(
            "{PRODUCT_NAME} holds {size} bytes after {} were written",
            bytes.len()
        );
    }
    let mut buffer = vec![0; VERIFY_CHUNK.min(bytes.len())];
    for (index, expected) in bytes.chunks(VERIFY_CHUNK).enumerate() {
        let read = &mut buffer[..expected.len()];
        file.read_exact(read)?;
        if read != expected {
            anyhow::bail!(
                "{PRODUCT_NAME} read back differs from what was written (in bytes {}..{})",
                index * VERIFY_CHUNK,
                index * VERIFY_CHUNK + expected.len()
            );
        }
    }
    if file.read(&mut [0])? != 0 {
        anyhow::bail!("{PRODUCT_NAME} grew while it was read back");
    }
    Ok(())
}

/// How long a staging folder of a gone process must be left untouched before it is removed.
pub const STAGING_GRACE: std::time::Duration = std::time::Duration::from_secs(120);

/// Whether neither the folder nor any entry in it was modified within [`STAGING_GRACE`].
fn untouched(folder: &Path) -> bool {
    let modified = |path: &Path| fs::symlink_metadata(path).and_then(|m| m.modified()).ok();
    let entries = fs::read_dir(folder).into_iter().flatten().flatten();
    let newest = entries
        .filter_map(|e| modified(&e.path()))
        .chain(modified(folder))
        .max();
    newest
        .and_then(|t| SystemTime::now().duration_since(t).ok())
        .is_some_and(|age| age >= STAGING_GRACE)
}

impl DiskCache {
    /// The cache in `root` (created when something is stored).
    pub fn new(root: impl Into<PathBuf>) -> DiskCache {
        DiskCache {
            root: root.into(),
            sync: true,
            before_publish: None,
        }
    }

    /// This cache, publishing entries and key records without fsync (see the module
    /// documentation: still atomic and verified).
    pub fn unsynced(self) -> DiskCache {
        DiskCache {
            sync: false,
            ..self
        }
    }

    /// This cache calling `hook` with each entry's staging folder just before publishing it
    /// (tests: a process that dies there).
    pub fn with_publish_hook(self, hook: Option<fn(&Path)>) -> DiskCache {
        DiskCache {
            before_publish: hook,
            ..self
        }
    }

    /// The cache folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn entry_dir(&self, key: &str) -> PathBuf {
        self.root.join("entries").join(key)
    }

    fn last_path(&self, scope: &str, stage: u32) -> PathBuf {
        self.root.join("last").join(format!("{scope}.{stage}.ron"))
    }

    /// The key record of the last cook of (`scope`, `stage`), if one was recorded and readable.
    pub fn last(&self, scope: &str, stage: u32) -> Option<KeyRecord> {
        let text = read_cache_text(&self.last_path(scope, stage)).ok()?;
        KeyRecord::parse(&text).ok()
    }

    /// Records `record` as the last key of its stage.
    pub fn set_last(&self, record: &KeyRecord) -> io::Result<()> {
        let path = self.last_path(&record.scope, record.stage);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        // The cache never writes links, pipes or folders: whatever else stands at the record's
        // path is removed (a link itself, never what it points to) so the write replaces it
        // instead of writing through it into a file that is not the cache's.
        remove_unless_regular(&path)?;
        let text = record.to_text();
        if self.sync {
            crate::atomic_write::atomic_write(&path, text.as_bytes())
        } else {
            crate::atomic_write::atomic_write_unsynced(&path, text.as_bytes())
        }
    }

    /// The product digest of the entry under `key`, from its completion manifest alone (no
    /// verification; for planning).
    pub fn peek_digest(&self, key: &str) -> Option<String> {
        self.peek_entry(key).map(|e| e.product.digest)
    }

    /// The completion manifest of the entry under `key` (no verification; for planning).
    pub fn peek_entry(&self, key: &str) -> Option<CacheEntry> {
        let text = read_cache_text(&self.entry_dir(key).join(ENTRY_NAME)).ok()?;
        CacheEntry::parse(&text).ok()
    }

    /// Looks `record` up: a verified hit, or why not. An entry that fails any check — not a
    /// folder, no `entry.ron`, a file that is not a regular file, damaged bytes — is discarded,
    /// and the miss says why, naming the file.
    pub fn lookup(&self, record: &KeyRecord) -> Result<StoreHit, StoreMiss> {
        let dir = self.entry_dir(&record.key);
        if let Err(error) = fs::symlink_metadata(&dir) {
            if error.kind() == io::ErrorKind::NotFound {
                return Err(explain_miss(
                    self.last(&record.scope, record.stage).as_ref(),
                    record,
                ));
            }
        }
        match self.verify_entry(&dir, record) {
            Ok(hit) => {
                // The completion manifest's modification time is the entry's last use.
                if let Ok(file) = fs::File::options().append(true).open(dir.join(ENTRY_NAME)) {
                    let _ = file.set_modified(SystemTime::now());
                }
                Ok(hit)
            }
            Err(error) => {
                discard(&dir);
                Err(StoreMiss::Corrupt(error.to_string()))
            }
        }
    }

    fn verify_entry(&self, dir: &Path, record: &KeyRecord) -> Result<StoreHit, CookError> {
        match fs::symlink_metadata(dir) {
            Ok(metadata) if metadata.is_dir() => {}
            found => {
                let error = match found {
                    Err(error) => file_error(ReadProblem::Io(error)),
                    Ok(_) => CookError::File {
                        why: "is not a folder (a cache entry is a folder of entry.ron and \
                              product.bin)"
                            .to_owned(),
                    },
                };
                return Err(error.in_file(&dir.display().to_string()));
            }
        }
        let entry_path = dir.join(ENTRY_NAME);
        let shown = entry_path.display().to_string();
        let text = read_cache_text(&entry_path).map_err(|e| e.in_file(&shown))?;
        let entry = CacheEntry::parse(&text).map_err(|e| e.in_file(&shown))?;
        if entry.record.key != record.key {
            return Err(CookError::invalid(
                "key",
                format!("key {} under {}", entry.record.key, record.key),
            )
            .in_file(&shown));
        }
        let product_path = dir.join(PRODUCT_NAME);
        let shown = product_path.display().to_string();
        let declared = entry.product.bytes;
        let bytes = read_regular(
            &product_path,
            declared.min(MAX_PRODUCT_BYTES),
            Links::Refuse,
        )
        .map_err(|problem| {
            match problem {
                ReadProblem::TooLarge { size, .. } => CookError::SizeMismatch {
                    what: "file size in bytes (entry.ron's `bytes`)".to_owned(),
                    declared,
                    actual: size,
                },
                ReadProblem::Missing => CookError::File {
                    why: "does not exist (an incomplete entry)".to_owned(),
                },
                other => file_error(other),
            }
            .in_file(&shown)
        })?;
        let product = check_product_in(&entry.product, &bytes, &shown)?;
        Ok(StoreHit { entry, product })
    }

    /// Stores a product file under `record`: staging, verification of what was written (read
    /// back and compared with `bytes`, which `product` describes: its size and digests were
    /// computed from them), the completion manifest last, then one rename publishes it. An entry
    /// another process published first is kept (it has the same key, so the same content).
    pub fn store(
        &self,
        record: &KeyRecord,
        product: &CookedStage,
        bytes: &[u8],
    ) -> anyhow::Result<()> {
        let target = self.entry_dir(&record.key);
        if is_complete(&target) {
            return Ok(());
        }
        let staging = self.root.join("staging").join(format!(
            "{}-{}-{}",
            record.key,
            std::process::id(),
            STAGING_COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        fs::create_dir_all(&staging)?;
        let result = (|| -> anyhow::Result<()> {
            if product.bytes != bytes.len() as u64 {
                anyhow::bail!(
                    "the entry says {} bytes for a product file of {}",
                    product.bytes,
                    bytes.len()
                );
            }
            write_file(&staging.join(PRODUCT_NAME), bytes, self.sync)?;
            verify_written(&staging.join(PRODUCT_NAME), bytes)?;
            let entry = CacheEntry {
                record: record.clone(),
                product: product.clone(),
            };
            write_file(
                &staging.join(ENTRY_NAME),
                entry.to_text().as_bytes(),
                self.sync,
            )?;
            if self.sync {
                fs::File::open(&staging)?.sync_all()?;
            }
            if let Some(hook) = self.before_publish {
                hook(&staging);
            }
            fs::create_dir_all(self.root.join("entries"))?;
            // What is in the way is a malformed entry (a published one is complete): it goes.
            if !is_complete(&target) {
                discard(&target);
            }
            if let Err(error) = fs::rename(&staging, &target) {
                if !is_complete(&target) {
                    return Err(error.into());
                }
            }
            Ok(())
        })();
        let _ = fs::remove_dir_all(&staging);
        result.with_context(|| {
            format!(
                "cannot store the cache entry {} (staged in {})",
                target.display(),
                staging.display()
            )
        })
    }

    /// Removes what killed cooks left: `staging/KEY-PID-N` folders whose process is gone and
    /// that nothing has touched for [`STAGING_GRACE`] (a cache may be shared by machines whose
    /// processes this one cannot see; a live store writes its folder continuously), and the
    /// `last/.stagecraft-save-PID-….tmp` files of interrupted key records whose process is gone.
    /// Returns how many were removed.
    pub fn remove_abandoned_staging(&self) -> usize {
        let mut removed = crate::temp_files::remove_stale_temp_in(&self.root.join("last"));
        let Ok(entries) = fs::read_dir(self.root.join("staging")) else {
            return removed;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            // KEY-PID-N: the process id is the second field from the end.
            let mut fields = name.to_str().unwrap_or_default().rsplitn(3, '-');
            let (_, pid, key) = (fields.next(), fields.next(), fields.next());
            let gone = key.is_some()
                && pid
                    .and_then(crate::leftovers::parse_pid)
                    .is_some_and(crate::leftovers::process_gone);
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            if gone
                && is_dir
                && untouched(&entry.path())
                && fs::remove_dir_all(entry.path()).is_ok()
            {
                removed += 1;
            }
        }
        removed
    }

    /// Every published entry with its size and last use.
    pub fn entries(&self) -> Vec<CacheEntryInfo> {
        let Ok(dir) = fs::read_dir(self.root.join("entries")) else {
            return Vec::new();
        };
        let mut entries: Vec<CacheEntryInfo> = dir
            .filter_map(Result::ok)
            .map(|e| {
                let key = e.file_name().to_string_lossy().into_owned();
                let path = e.path();
                let size = |name: &str| fs::metadata(path.join(name)).map(|m| m.len()).unwrap_or(0);
                let last_use = fs::metadata(path.join("entry.ron"))
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_nanos() as u64);
                CacheEntryInfo {
                    key,
                    bytes: size("product.bin") + size("entry.ron"),
                    last_use,
                }
            })
            .collect();
        entries.sort_by(|a, b| a.key.cmp(&b.key));
        entries
    }

    /// Evicts least recently used entries until the cache fits `budget_bytes`, never one whose
    /// key is in `in_use`; returns the evicted keys.
    /// An unlimited budget (`u64::MAX`) evicts nothing and lists nothing (a farm's item tasks:
    /// the assembling cook evicts for the whole cache).
    pub fn evict(&self, budget_bytes: u64, in_use: &BTreeSet<String>) -> Vec<String> {
        if budget_bytes == u64::MAX {
            return Vec::new();
        }
        let evicted = plan_eviction(&self.entries(), budget_bytes, in_use);
        for key in &evicted {
            let _ = fs::remove_dir_all(self.entry_dir(key));
        }
        evicted
    }
}

/// Removes what stands at `path` unless it is a regular file: a link (itself, not its target), a
/// pipe, a socket, a device node or a folder. Nothing there is fine.
fn remove_unless_regular(path: &Path) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_file() => Ok(()),
        Ok(meta) if meta.is_dir() => fs::remove_dir_all(path),
        Ok(_) => fs::remove_file(path),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(error),
    }
}
