//! Watching the project folder with `notify`, debounced into "look at the disk now" signals.
//!
//! The watcher only says *that* something may have changed; the document compares the texts it
//! reads with what it last read or wrote, so its own saves, reads and the autosave never cause a
//! reload.

use std::path::{Component, Path, PathBuf};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode, ModifyKind};
use notify::{Event, EventKind, RecursiveMode, Watcher as _};

/// How long the watcher waits after the first event of a burst before the disk is read, so a
/// save that writes several files is seen as one change.
pub const DEBOUNCE: Duration = Duration::from_millis(120);

/// A running watcher over one project folder (and the asset folders outside it).
pub struct Watcher {
    _inner: notify::RecommendedWatcher,
    events: Receiver<()>,
    pending_since: Option<Instant>,
}

impl Watcher {
    /// Watches `dir` recursively and each folder of `extra` (asset folders outside the project)
    /// flat; `wake` is called from the watcher's thread on every relevant event, so the UI can
    /// repaint and poll.
    pub fn new(
        dir: &Path,
        extra: &[PathBuf],
        wake: impl Fn() + Send + 'static,
    ) -> notify::Result<Watcher> {
        let (sender, events) = channel();
        let mut inner = notify::recommended_watcher(move |result: notify::Result<Event>| {
            if let Ok(event) = result {
                if is_relevant(&event) && sender.send(()).is_ok() {
                    wake();
                }
            }
        })?;
        inner.watch(dir, RecursiveMode::Recursive)?;
        for folder in extra {
            // A missing asset folder is reported by validation, not by the watcher.
            let _ = inner.watch(folder, RecursiveMode::NonRecursive);
        }
        Ok(Watcher {
            _inner: inner,
            events,
            pending_since: None,
        })
    }

    /// Drains the events; true once the debounce after the first pending event has passed, which
    /// means the caller should read the disk now.
    pub fn poll(&mut self, now: Instant) -> bool {
        while self.events.try_recv().is_ok() {
            self.pending_since.get_or_insert(now);
        }
        match self.pending_since {
            Some(since) if now.duration_since(since) >= DEBOUNCE => {
                self.pending_since = None;
                true
            }
            _ => false,
        }
    }

    /// True while events wait for their debounce to pass.
    pub fn is_pending(&self) -> bool {
        self.pending_since.is_some()
    }
}

/// Content changes outside `.stagecraft/`; opening and reading files (ours included) is not one.
fn is_relevant(event: &Event) -> bool {
    let content = match &event.kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        EventKind::Modify(ModifyKind::Metadata(_)) => false,
        EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_) => true,
        EventKind::Any | EventKind::Other => true,
    };
    content
        && event.paths.iter().any(|path| {
            !path
                .components()
                .any(|c| c == Component::Normal(".stagecraft".as_ref()))
        })
}
