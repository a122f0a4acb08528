//! Preview content generated on a background thread, so the UI thread never waits for a recipe.
//!
//! The stale-result rule, as in the Recipe graph's worker: every request gets a newer revision,
//! and a result is taken only if it was made from the newest revision requested; older results
//! are dropped, never shown. Queued requests that a newer one superseded are skipped unstarted.

use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;

use stagecraft_runtime::project::Project;

use super::content::{PreviewContent, PreviewGenerator};

/// One request: a recipe of a project, stamped with its revision.
struct Job {
    revision: u64,
    project: Arc<Project>,
    recipe: String,
}

/// One finished request.
struct Finished {
    revision: u64,
    content: Result<PreviewContent, String>,
}

/// A handle on the `stagecraft-preview-gen` thread.
pub struct BackgroundGenerator {
    jobs: Sender<Job>,
    results: Receiver<Finished>,
    /// The newest revision requested (0: none yet).
    requested: u64,
    /// The revision of the last result taken.
    delivered: u64,
}

impl BackgroundGenerator {
    /// Starts the generation thread, which keeps its own stage cache; `None` if it cannot start.
    pub fn spawn() -> Option<BackgroundGenerator> {
        let (jobs_tx, jobs_rx) = channel::<Job>();
        let (results_tx, results_rx) = channel::<Finished>();
        std::thread::Builder::new()
            .name("stagecraft-preview-gen".into())
            .spawn(move || run(jobs_rx, results_tx))
            .ok()?;
        Some(BackgroundGenerator {
            jobs: jobs_tx,
            results: results_rx,
            requested: 0,
            delivered: 0,
        })
    }

    /// Asks for recipe `recipe` of `project`; any result of an earlier request becomes stale.
    /// Returns false if the thread has gone (its results will never come).
    pub fn request(&mut self, project: &Project, recipe: &str) -> bool {
        self.requested += 1;
        self.jobs
            .send(Job {
                revision: self.requested,
                project: Arc::new(project.clone()),
                recipe: recipe.to_owned(),
            })
            .is_ok()
    }

    /// Makes every earlier request stale without asking for anything new: its result, if it
    /// comes, is dropped.
    pub fn cancel(&mut self) {
        self.requested += 1;
        self.delivered = self.requested;
    }

    /// The result of the newest request, once it is ready (stale results are dropped).
    pub fn take_newest(&mut self) -> Option<Result<PreviewContent, String>> {
        let mut newest = None;
        while let Ok(finished) = self.results.try_recv() {
            if finished.revision == self.requested {
                self.delivered = finished.revision;
                newest = Some(finished.content);
            }
        }
        newest
    }

    /// Whether the newest request has not been taken yet.
    pub fn is_pending(&self) -> bool {
        self.delivered < self.requested
    }
}

/// The thread body: the newest queued job first, older ones skipped.
fn run(jobs: Receiver<Job>, results: Sender<Finished>) {
    let mut generator = PreviewGenerator::default();
    while let Ok(mut job) = jobs.recv() {
        while let Ok(newer) = jobs.try_recv() {
            job = newer;
        }
        let content = generator.generate(&job.project, &job.recipe);
        let finished = Finished {
            revision: job.revision,
            content,
        };
        if results.send(finished).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::time::{Duration, Instant};

    use super::*;

    fn example() -> Project {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/pine-clearing");
        let (_, loaded) = crate::project_io::load_dir(&dir).expect("example readable");
        loaded.project.expect("example loads")
    }

    /// Polls until the newest request's result arrives (at most ten seconds).
    fn wait(generator: &mut BackgroundGenerator) -> Result<PreviewContent, String> {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            if let Some(result) = generator.take_newest() {
                return result;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        panic!("no result within ten seconds");
    }

    #[test]
    fn only_the_newest_request_is_delivered() {
        let mut project = example();
        let recipe = project.recipes.keys().next().cloned().expect("a recipe");
        let mut generator = BackgroundGenerator::spawn().expect("thread starts");
        assert!(!generator.is_pending());
        // Two requests before any poll: the first one's result is stale whenever it arrives.
        assert!(generator.request(&project, &recipe));
        project.manifest.root_seed ^= 0x5eed;
        assert!(generator.request(&project, &recipe));
        assert!(generator.is_pending());
        let delivered = wait(&mut generator).expect("generates");
        assert!(!generator.is_pending());
        let expected = PreviewGenerator::default()
            .generate(&project, &recipe)
            .expect("generates");
        assert_eq!(delivered.bundle.digest(), expected.bundle.digest());
        // Nothing else is delivered later.
        std::thread::sleep(Duration::from_millis(50));
        assert!(generator.take_newest().is_none());
        // A cancelled request is never delivered.
        assert!(generator.request(&project, &recipe));
        generator.cancel();
        assert!(!generator.is_pending());
        std::thread::sleep(Duration::from_millis(200));
        assert!(generator.take_newest().is_none());
    }

    #[test]
    fn errors_are_delivered_as_results() {
        let project = example();
        let mut generator = BackgroundGenerator::spawn().expect("thread starts");
        assert!(generator.request(&project, "no-such-recipe"));
        let error = wait(&mut generator).err();
        assert_eq!(
            error.as_deref(),
            Some("the recipe `no-such-recipe` is missing")
        );
    }
}
