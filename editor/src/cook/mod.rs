//! Cooking on disk: the driver, the on-disk stage cache, tiles and the bundle folder live in the
//! GUI-free `stagecraft_io::cook` (shared with the Python module) and are re-exported here; this
//! module adds the command line's diagnostics rendering to the entry points, and `side`, the
//! bundle-or-project sides of `diff`.

pub mod side;

pub use stagecraft_io::cook::*;

use std::path::Path;

use stagecraft_io::cook::driver::ObserverFactory;
use stagecraft_runtime::generate::ExecutionObserver;
use stagecraft_runtime::project::LoadedProject;

/// [`driver::compile_all`] with the command line's diagnostics (each with its source line).
pub fn compile_all(
    project: &Path,
    edit: &dyn Fn(&mut LoadedProject) -> anyhow::Result<()>,
) -> anyhow::Result<Compiled> {
    driver::compile_all(project, edit, crate::cli::render_all)
}

/// [`driver::cook_project`] with the command line's diagnostics (each with its source line).
pub fn cook_project<O: ExecutionObserver>(
    project: &Path,
    options: &CookOptions,
    observer: ObserverFactory<'_, O>,
) -> anyhow::Result<CookReport> {
    driver::cook_project(project, options, observer, crate::cli::render_all)
}
