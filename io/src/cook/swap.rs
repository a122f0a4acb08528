//! The bundle swap: putting a new bundle at `DIR` so that at every instant the old bundle or the
//! new one is intact on disk, and recovering what a killed swap left.
//!
//! A swap (1) recovers the leftovers of swaps whose process is gone ([`recover_swap`]); (2)
//! checks that `DIR` may be replaced: a new path, an empty folder or a complete bundle
//! ([`super::listing`]), any other folder only with `force`, never a folder that holds the
//! project or the cache, the file-system root or the home folder, never something that is not a
//! folder; (3) writes `.DIR.staging-PID` completely, manifest last, and syncs it; (4) renames
//! `DIR` to `.DIR.old-PID`; (5) renames the staging folder to `DIR`; (6) removes `.DIR.old-PID`.
//! A kill before (4) leaves `DIR` as it was; between (4) and (5) the old bundle whole at
//! `.DIR.old-PID`, which recovery renames back; after (5) the new bundle at `DIR`, and recovery
//! removes the old one.

use std::borrow::Cow;
use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use rayon::prelude::*;

use super::bundle_io::MANIFEST_NAME;
use super::listing::check_listing;
use crate::file_kind::kind_name;
use crate::leftovers::{pid_after, process_gone};

/// What a bundle swap may replace.
#[derive(Debug, Clone, Default)]
pub struct ReplacePolicy {
    /// Also replace a folder that is not a complete bundle (`cook --force`).
    pub force: bool,
    /// Folders that the bundle folder must never be or hold (the project, the cache).
    pub keep: Vec<PathBuf>,
    /// How the caller's user asks for `force`, named in the refusal (none: `--force`, the
    /// command's option; Python's `cook` says `force=True`).
    pub force_spelled: Option<&'static str>,
}

/// The points of a swap, in order; [`write_bundle_with`] calls its hook at each (the
/// fault-injection tests kill the process there).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwapStep {
    /// The product files are in the staging folder; its manifest is not yet.
    StagingPartial,
    /// The staging folder is complete and synced; `DIR` is untouched.
    StagingComplete,
    /// `DIR` was renamed to `.DIR.old-PID` and does not exist (only when there was a `DIR`).
    OldMovedAside,
    /// The new bundle is `DIR`; `.DIR.old-PID` is not removed yet.
    NewInPlace,
}

impl SwapStep {
    /// Every step, in order.
    pub const ALL: [SwapStep; 4] = [
        SwapStep::StagingPartial,
        SwapStep::StagingComplete,
        SwapStep::OldMovedAside,
        SwapStep::NewInPlace,
    ];
}

/// What [`recover_swap`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Recovery {
    /// The `.DIR.old-PID` folder renamed back to `DIR`.
    pub restored: Option<PathBuf>,
    /// The leftovers removed.
    pub removed: Vec<PathBuf>,
}

/// `.NAME.TAG-PID` next to `out`.
fn sibling(out: &Path, tag: &str, pid: u32) -> PathBuf {
    out.with_file_name(format!("{}{pid}", leftover_prefix(out, tag)))
}

fn leftover_prefix(out: &Path, tag: &str) -> String {
    let name = out
        .file_name()
        .map_or_else(|| "bundle".to_owned(), |n| n.to_string_lossy().into_owned());
    format!(".{name}.{tag}-")
}

fn parent_of(out: &Path) -> &Path {
    out.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

fn exists(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok()
}

/// Whether the leftover `name` (after `prefix`) is one to recover: its process is gone, or it is
/// this process — a swap starts with no leftover of its own, so one with this process's id is
/// an earlier swap's here or a killed process's whose id was reused (as in a fresh container).
fn recoverable(name: &str, prefix: &str) -> bool {
    pid_after(name, prefix, None).is_some_and(|pid| pid == std::process::id() || process_gone(pid))
}

/// Recovers what swaps into `out` left when their process was killed (only leftovers whose
/// process is gone, or that carry this process's id): when `out` does not exist, an old bundle
/// moved aside is renamed back; every other leftover (staging folders, superseded old bundles)
/// is removed.
pub fn recover_swap(out: &Path) -> anyhow::Result<Recovery> {
    let mut recovery = Recovery::default();
    let prefixes = [leftover_prefix(out, "old"), leftover_prefix(out, "staging")];
    let entries = match fs::read_dir(parent_of(out)) {
        Ok(entries) => entries,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(recovery),
        Err(error) => {
            return Err(error).with_context(|| format!("cannot list {}", parent_of(out).display()))
        }
    };
    let mut leftovers: Vec<(usize, String)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .filter_map(|name| {
            let kind = prefixes.iter().position(|p| recoverable(&name, p))?;
            Some((kind, name))
        })
        .collect();
    // Old bundles first, then by name: the same leftovers always recover the same way.
    leftovers.sort();
    for (kind, name) in leftovers {
        let path = out.with_file_name(&name);
        if kind == 0 && !exists(out) {
            fs::rename(&path, out).with_context(|| {
                format!("cannot restore {} to {}", path.display(), out.display())
            })?;
            recovery.restored = Some(path);
            continue;
        }
        remove_tree(&path).with_context(|| format!("cannot remove {}", path.display()))?;
        recovery.removed.push(path);
    }
    Ok(recovery)
}

fn remove_tree(path: &Path) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => fs::remove_dir_all(path),
        Ok(_) => fs::remove_file(path),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(error),
    }
}

/// Readies `out` for a swap: recovers what killed swaps left ([`recover_swap`]), then checks
/// that `out` may be replaced under `policy` (a cook calls this before any work, and the swap
/// again before writing).
pub fn prepare_out(out: &Path, policy: &ReplacePolicy) -> anyhow::Result<Recovery> {
    if out.file_name().is_none() {
        anyhow::bail!(
            "{}: name the bundle folder itself (its leftovers are named after it)",
            out.display()
        );
    }
    let recovery = recover_swap(out)?;
    check_replaceable(out, policy)?;
    Ok(recovery)
}

/// Why `out` may not be replaced by a bundle, if it may not.
fn check_replaceable(out: &Path, policy: &ReplacePolicy) -> anyhow::Result<()> {
    let metadata = match fs::symlink_metadata(out) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(error) => {
            return Err(error).with_context(|| format!("cannot inspect {}", out.display()))
        }
    };
    if !metadata.is_dir() {
        anyhow::bail!(
            "{} is {}, not a bundle folder; refusing to replace it",
            out.display(),
            kind_name(metadata.file_type())
        );
    }
    let real =
        fs::canonicalize(out).with_context(|| format!("cannot resolve {}", out.display()))?;
    let home = std::env::var_os("HOME").and_then(|h| fs::canonicalize(h).ok());
    if real.parent().is_none() || home.as_deref() == Some(real.as_path()) {
        anyhow::bail!(
            "{} is {}; a bundle is never written over it",
            out.display(),
            if real.parent().is_none() {
                "the file-system root"
            } else {
                "the home folder"
            }
        );
    }
    for keep in &policy.keep {
        if fs::canonicalize(keep).is_ok_and(|k| k.starts_with(&real)) {
            anyhow::bail!(
                "{} holds {}; refusing to replace it with a bundle",
                out.display(),
                keep.display()
            );
        }
    }
    let empty = fs::read_dir(out)
        .with_context(|| format!("cannot list {}", out.display()))?
        .next()
        .is_none();
    if empty {
        return Ok(());
    }
    match check_listing(out) {
        Ok(()) => Ok(()),
        Err(_) if policy.force => Ok(()),
        Err(why) => anyhow::bail!(
            "{} is not a complete Stagecraft bundle ({why}); refusing to replace it \
             ({} replaces a folder that is not a bundle)",
            out.display(),
            policy.force_spelled.unwrap_or("--force")
        ),
    }
}

fn write_synced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = fs::File::create(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

fn sync_folder(folder: &Path) -> io::Result<()> {
    fs::File::open(folder)?.sync_all()
}

/// Writes the product files into the staging folder on the current rayon pool, syncs each on a
/// thread of its own as soon as it is written, and then runs `alongside` on the pool (a cook's
/// cache stores): waiting for the disk takes no core, so the disk writes the bundle while the
/// pool does `alongside`'s work. Files given owned are freed on the pool while the syncs run
/// (tens of MB: returning their pages takes milliseconds). Returns the files' result (the
/// first failure in the files' order, a write's before any sync's) and `alongside`'s.
fn write_products_beside<T>(
    staging: &Path,
    files: ProductFiles<'_>,
    alongside: impl FnOnce(&[(String, Vec<u8>)]) -> anyhow::Result<T>,
) -> (io::Result<()>, anyhow::Result<T>) {
    std::thread::scope(|scope| {
        let syncing = write_syncing(staging, &files, scope);
        let beside = alongside(&files);
        if let Cow::Owned(files) = files {
            files.into_par_iter().for_each(drop);
        }
        let synced = syncing.and_then(|all| all.into_iter().try_for_each(Syncing::wait));
        (synced, beside)
    })
}

/// Writes `files` into the staging folder on the current rayon pool, each starting to sync on a
/// thread of `scope` once written; the first write failure in the files' order, if any.
fn write_syncing<'scope>(
    staging: &Path,
    files: &[(String, Vec<u8>)],
    scope: &'scope std::thread::Scope<'scope, '_>,
) -> io::Result<Vec<Syncing<'scope>>> {
    fs::create_dir_all(staging.join("products"))?;
    let written: Vec<io::Result<Syncing<'scope>>> = files
        .par_iter()
        .map(|(path, bytes)| {
            let file = write_unsynced(&staging.join(path), bytes)?;
            Ok(sync_beside(scope, file))
        })
        .collect();
    written.into_iter().collect()
}

/// A bundle's product files, (path, bytes): borrowed, or owned and freed once written.
type ProductFiles<'a> = Cow<'a, [(String, Vec<u8>)]>;

/// A file being synced: on a thread of its own, or already (when no thread could be started).
enum Syncing<'scope> {
    Thread(std::thread::ScopedJoinHandle<'scope, io::Result<()>>),
    Done(io::Result<()>),
}

impl Syncing<'_> {
    fn wait(self) -> io::Result<()> {
        match self {
            Syncing::Thread(thread) => thread
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("a file's sync thread panicked"))),
            Syncing::Done(result) => result,
        }
    }
}

/// Starts syncing `file` on a thread of `scope`, or syncs it here if no thread can be started.
fn sync_beside<'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    file: fs::File,
) -> Syncing<'scope> {
    let file = std::sync::Arc::new(file);
    let theirs = file.clone();
    match std::thread::Builder::new()
        .name("stagecraft-sync".to_owned())
        .spawn_scoped(scope, move || theirs.sync_all())
    {
        Ok(thread) => Syncing::Thread(thread),
        Err(_) => Syncing::Done(file.sync_all()),
    }
}

fn write_unsynced(path: &Path, bytes: &[u8]) -> io::Result<fs::File> {
    let mut file = fs::File::create(path)?;
    file.write_all(bytes)?;
    Ok(file)
}

/// Completes the staging folder whose product files are written: the manifest (last: a staging
/// folder without it is incomplete), synced, then the folders.
fn complete_staging(staging: &Path, manifest: &str) -> io::Result<()> {
    write_synced(&staging.join(MANIFEST_NAME), manifest.as_bytes())?;
    sync_folder(&staging.join("products"))?;
    sync_folder(staging)
}

/// Writes a bundle (manifest text and product files) to `out` by the swap of this module.
pub fn write_bundle(
    out: &Path,
    manifest: &str,
    files: &[(String, Vec<u8>)],
    policy: &ReplacePolicy,
) -> anyhow::Result<()> {
    write_bundle_with(out, manifest, files, policy, &mut |_| {})
}

/// [`write_bundle`] running `alongside` (a cook's cache stores, given the files) on the current
/// rayon pool while the product files are written and synced, and freeing the files before the
/// syncs end: the bundle is swapped in only when both succeed (else the staging folder is
/// removed and `DIR` is left as it was: `alongside`'s error first, then the bundle's). Returns
/// what `alongside` returned.
pub fn write_bundle_alongside<T>(
    out: &Path,
    manifest: &str,
    files: Vec<(String, Vec<u8>)>,
    policy: &ReplacePolicy,
    alongside: impl FnOnce(&[(String, Vec<u8>)]) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    let (mut work, mut result) = (Some((files, alongside)), None);
    swap_in(out, manifest, policy, &mut |_| {}, &mut |staging: &Path| {
        let (files, alongside) = work.take().context("the bundle is written once")?;
        let (written, beside) = write_products_beside(staging, Cow::Owned(files), alongside);
        result = Some(beside?);
        written.with_context(|| format!("cannot write {}", staging.display()))
    })?;
    result.context("the bundle was written without what ran alongside")
}

/// [`write_bundle`] with a hook called at each [`SwapStep`].
pub fn write_bundle_with(
    out: &Path,
    manifest: &str,
    files: &[(String, Vec<u8>)],
    policy: &ReplacePolicy,
    hook: &mut dyn FnMut(SwapStep),
) -> anyhow::Result<()> {
    swap_in(out, manifest, policy, hook, &mut |staging: &Path| {
        write_products_beside(staging, Cow::Borrowed(files), |_| Ok(()))
            .0
            .with_context(|| format!("cannot write {}", staging.display()))
    })
}

/// The swap of the module documentation, the staging folder's product files written by
/// `products`.
fn swap_in(
    out: &Path,
    manifest: &str,
    policy: &ReplacePolicy,
    hook: &mut dyn FnMut(SwapStep),
    products: &mut dyn FnMut(&Path) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    prepare_out(out, policy)?;
    let parent = parent_of(out);
    fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
    let pid = std::process::id();
    let staging = sibling(out, "staging", pid);
    let _ = remove_tree(&staging);
    let staged = products(&staging).and_then(|()| {
        hook(SwapStep::StagingPartial);
        complete_staging(&staging, manifest)
            .with_context(|| format!("cannot write {}", staging.display()))
    });
    if let Err(error) = staged {
        let _ = remove_tree(&staging);
        return Err(error);
    }
    hook(SwapStep::StagingComplete);
    let old = sibling(out, "old", pid);
    let moved_aside = match fs::rename(out, &old) {
        Ok(()) => true,
        Err(error) if error.kind() == io::ErrorKind::NotFound => false,
        Err(error) => {
            let _ = remove_tree(&staging);
            return Err(error).with_context(|| format!("cannot move {} aside", out.display()));
        }
    };
    if moved_aside {
        let _ = sync_folder(parent);
        hook(SwapStep::OldMovedAside);
    }
    if let Err(error) = fs::rename(&staging, out) {
        if moved_aside {
            let _ = fs::rename(&old, out);
        }
        let _ = remove_tree(&staging);
        return Err(error)
            .with_context(|| format!("cannot rename the bundle into {}", out.display()));
    }
    let _ = sync_folder(parent);
    hook(SwapStep::NewInPlace);
    if moved_aside {
        let _ = remove_tree(&old);
    }
    Ok(())
}
