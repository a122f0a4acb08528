//! The Cook dialog's work: cooking the open project's saved files (or verifying a bundle) on a
//! named thread through the same driver as `stagecraft cook`, with progress the dialog shows
//! while the UI keeps running, and a plain-data summary (bundle digest, hit and miss counts with
//! reasons) when it is done.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver};
use std::sync::{Arc, Mutex};

use crate::cook::{cook_project, read_bundle, CookOptions, StageOutcome, DEFAULT_BUDGET_BYTES};
use crate::service::{Progress, StageObserver};

/// What a finished cook or verify reports, as the dialog shows it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CookSummary {
    /// The bundle folder.
    pub out: PathBuf,
    /// The bundle digest, hex.
    pub digest: String,
    /// Stages served from the cache.
    pub hits: usize,
    /// Stages that ran.
    pub misses: usize,
    /// One line per stage: recipe, stage, operator, hit or miss with its reason.
    pub lines: Vec<String>,
    /// The verify result, once asked for: `Ok(what was checked)` or `Err(the problem)`.
    pub verified: Option<Result<String, String>>,
}

/// A cook or verify running on its thread.
pub struct CookJob {
    receiver: Receiver<Result<CookSummary, String>>,
    progress: Arc<Mutex<Progress>>,
    /// Whether this job verifies (rather than cooks).
    pub verifying: bool,
}

impl CookJob {
    /// The latest progress of a cook.
    pub fn progress(&self) -> Progress {
        self.progress.lock().map(|p| *p).unwrap_or_default()
    }

    /// The result, once the thread has sent it.
    pub fn poll(&self) -> Option<Result<CookSummary, String>> {
        self.receiver.try_recv().ok()
    }
}

fn outcome_line(outcome: &StageOutcome) -> String {
    match outcome {
        StageOutcome::Hit => "hit".to_owned(),
        StageOutcome::Miss(reason) => format!("miss: {reason}"),
        StageOutcome::Dependency => "dependency".to_owned(),
    }
}

/// Starts cooking the saved project in `project` into `out` (cache in the project's
/// `.stagecraft/cache`); `repaint` is called on progress and when done.
pub fn start_cook(
    project: &Path,
    out: &Path,
    repaint: impl Fn() + Send + Sync + Clone + 'static,
) -> Result<CookJob, String> {
    let (sender, receiver) = channel();
    let progress = Arc::new(Mutex::new(Progress::default()));
    let shared = Arc::clone(&progress);
    let (project, out) = (project.to_owned(), out.to_owned());
    std::thread::Builder::new()
        .name("stagecraft-cook".to_owned())
        .spawn(move || {
            let options = CookOptions {
                out: Some(out.clone()),
                budget_bytes: DEFAULT_BUDGET_BYTES,
                ..CookOptions::default()
            };
            let observer = |_: &str, plan: &stagecraft_runtime::recipe::CompiledPlan| {
                let shared = Arc::clone(&shared);
                let repaint = repaint.clone();
                StageObserver::new(plan).with_hook(Box::new(move |p| {
                    if let Ok(mut slot) = shared.lock() {
                        *slot = p;
                    }
                    repaint();
                }))
            };
            let result = cook_project(&project, &options, &observer)
                .map(|report| CookSummary {
                    out: out.clone(),
                    digest: report.digest().unwrap_or_default(),
                    hits: report.hits(),
                    misses: report.misses(),
                    lines: report
                        .stages
                        .iter()
                        .map(|s| {
                            format!(
                                "{} stage {} {}: {}",
                                s.recipe,
                                s.stage,
                                s.operator,
                                outcome_line(&s.outcome)
                            )
                        })
                        .collect(),
                    verified: None,
                })
                .map_err(|e| format!("{e:#}"));
            let _ = sender.send(result);
            repaint();
        })
        .map_err(|e| format!("cannot start cooking: {e}"))?;
    Ok(CookJob {
        receiver,
        progress,
        verifying: false,
    })
}

/// Starts verifying the bundle of `summary`; the result comes back as `summary` with
/// `verified` filled in.
pub fn start_verify(
    summary: CookSummary,
    repaint: impl Fn() + Send + 'static,
) -> Result<CookJob, String> {
    let (sender, receiver) = channel();
    std::thread::Builder::new()
        .name("stagecraft-verify".to_owned())
        .spawn(move || {
            let verified = match read_bundle(&summary.out) {
                Ok(bundle) => Ok(format!(
                    "{} products, {} bytes: sizes, file digests, headers, payloads and product digests ok (digest {})",
                    bundle.products.len(),
                    bundle.bytes_read,
                    &bundle.digest[..16]
                )),
                Err(error) => Err(error.to_string()),
            };
            let _ = sender.send(Ok(CookSummary {
                verified: Some(verified),
                ..summary
            }));
            repaint();
        })
        .map_err(|e| format!("cannot start verifying: {e}"))?;
    Ok(CookJob {
        receiver,
        progress: Arc::new(Mutex::new(Progress::default())),
        verifying: true,
    })
}
