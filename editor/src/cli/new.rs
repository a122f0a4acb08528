//! `stagecraft new`: writes a new, valid, canonical project from a template (the same templates
//! as File → New project), only into a new or empty folder — or, with `--merge`, beside other
//! files — and never over an existing file.

use std::io::Write;
use std::path::Path;

use crate::document::template::Template;
use crate::project_io::write_new_project;

/// `stagecraft new DIR`: creates the folder if needed and writes the template's files by the
/// rules of [`write_new_project`] (`merge`: `--merge`). The project's name defaults to the
/// folder's name. `(merge, json)`: `--merge`, `--json`.
pub fn new_project(
    dir: &Path,
    template: Template,
    name: Option<&str>,
    (merge, json): (bool, bool),
    out: &mut dyn Write,
) -> anyhow::Result<i32> {
    let folder_name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("New project");
    let name = name.unwrap_or(folder_name);
    let files = template.files(name).map_err(anyhow::Error::msg)?;
    let written = write_new_project(dir, &files, merge)?;
    if json {
        let report = serde_json::json!({
            "project": dir.display().to_string(),
            "name": name,
            "template": template.id(),
            "files": written,
        });
        super::json_out::write_document(out, "new", &report)?;
        return Ok(0);
    }
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
