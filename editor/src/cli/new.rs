//! `stagecraft new`: writes a new, valid, canonical project from a template (the same templates
//! as File → New project).

use std::io::Write;
use std::path::Path;

use stagecraft_runtime::project::MANIFEST_FILE;

use crate::document::template::Template;
use crate::project_io::save_files;

/// `stagecraft new DIR`: creates the folder if needed and writes the template's files; refuses a
/// folder that already holds a project. The project's name defaults to the folder's name.
pub fn new_project(
    dir: &Path,
    template: Template,
    name: Option<&str>,
    out: &mut dyn Write,
) -> anyhow::Result<i32> {
    if dir.join(MANIFEST_FILE).exists() {
        anyhow::bail!(
            "{} already holds a project ({MANIFEST_FILE}); choose another folder",
            dir.display()
        );
    }
    if dir.exists() && !dir.is_dir() {
        anyhow::bail!("{} is a file, not a folder", dir.display());
    }
    let folder_name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("New project");
    let name = name.unwrap_or(folder_name);
    let files = template.files(name).map_err(anyhow::Error::msg)?;
    let written = save_files(dir, &files).map_err(|error| {
        anyhow::anyhow!("cannot write the project in {}: {error}", dir.display())
    })?;
    for path in &written {
        writeln!(out, "{path}: written")?;
    }
    writeln!(
        out,
        "{}: new project \"{name}\" from the {} template ({} files); open it with `stagecraft {}`",
        dir.display(),
        template.id(),
        written.len(),
        dir.display()
    )?;
    Ok(0)
}
