//! `stagecraft completions SHELL` and `stagecraft man [--out DIR]`: shell completions
//! (`clap_complete`) and man pages (`clap_mangen`) generated from the clap definitions, so they
//! name exactly the commands and options the parser accepts.

use std::io::Write;
use std::path::Path;

use clap::CommandFactory as _;
use clap_complete::Shell;

use super::json_out::write_document;
use super::Cli;

/// The completion script of `shell` for the `stagecraft` binary.
pub fn completion_script(shell: Shell) -> Vec<u8> {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "stagecraft", &mut script);
    script
}

/// `stagecraft completions SHELL`: the script on stdout (in `script` under `--json`).
pub fn completions(shell: Shell, json: bool, out: &mut dyn Write) -> anyhow::Result<i32> {
    let script = completion_script(shell);
    if json {
        let report = serde_json::json!({
            "shell": shell.to_string(),
            "script": String::from_utf8_lossy(&script),
        });
        write_document(out, "completions", &report)?;
    } else {
        out.write_all(&script)?;
    }
    Ok(0)
}

/// The man pages: `stagecraft.1` and one `stagecraft-<command>.1` per subcommand, as
/// (file name, roff text).
pub fn man_pages() -> anyhow::Result<Vec<(String, Vec<u8>)>> {
    let command = Cli::command();
    let mut pages = Vec::new();
    let mut top = Vec::new();
    clap_mangen::Man::new(command.clone()).render(&mut top)?;
    pages.push(("stagecraft.1".to_owned(), top));
    for sub in command.get_subcommands() {
        let name = format!("stagecraft-{}", sub.get_name());
        let mut page = Vec::new();
        let sub = sub
            .clone()
            .display_name(name.clone())
            .bin_name(format!("stagecraft {}", sub.get_name()));
        clap_mangen::Man::new(sub).render(&mut page)?;
        pages.push((format!("{name}.1"), page));
    }
    Ok(pages)
}

/// `stagecraft man`: the top page on stdout, or every page written into `--out DIR` (named in
/// the report, or in `files` under `--json`).
pub fn man(out_dir: Option<&Path>, json: bool, out: &mut dyn Write) -> anyhow::Result<i32> {
    let pages = man_pages()?;
    let Some(dir) = out_dir else {
        let top = pages
            .first()
            .map(|(_, text)| text.as_slice())
            .unwrap_or(&[]);
        if json {
            let report = serde_json::json!({"page": String::from_utf8_lossy(top), "files": []});
            write_document(out, "man", &report)?;
        } else {
            out.write_all(top)?;
        }
        return Ok(0);
    };
    std::fs::create_dir_all(dir)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    let mut files = Vec::new();
    for (name, text) in &pages {
        let path = dir.join(name);
        crate::output_file::write_output_file(&path, text)?;
        files.push(path.display().to_string());
    }
    if json {
        let report = serde_json::json!({"page": null, "files": files});
        write_document(out, "man", &report)?;
    } else {
        for file in &files {
            writeln!(out, "{file}: written")?;
        }
    }
    Ok(0)
}
