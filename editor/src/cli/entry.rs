//! The command line's contract at the edge of the process: which stream gets what, `--quiet`,
//! `--json` errors and a closed pipe.
//!
//! - A command's report goes to stdout; an error goes to stderr for people, or — under
//!   `--json` — to stdout as one [`error_json`](super::json_out::error_json) object. The exit code
//!   is the same either way.
//! - `--quiet` silences progress bars and the human report of commands whose result is their exit
//!   code or their files; errors, JSON and documents a command exists to print (`ops`,
//!   `completions`, `man` without `--out`) still print.
//! - Progress bars draw on stderr only when stderr is a terminal and `--quiet` is off.
//! - A closed output pipe (`stagecraft ops | head -1`) ends the run quietly with exit code 141.

use std::io::{IsTerminal as _, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use super::error::{exit_code, is_broken_pipe, CliError, BROKEN_PIPE_EXIT_CODE};
use super::json_out::error_json;
use super::terminal::SafeOutput;
use super::{run_command, Command};

static QUIET: AtomicBool = AtomicBool::new(false);

/// Whether a progress bar may draw: stderr is a terminal and `--quiet` is off.
pub fn progress_wanted() -> bool {
    !QUIET.load(Ordering::Relaxed) && std::io::stderr().is_terminal()
}

/// Runs `command` by the contract above: its report to `out`, a failure to `err` (or to `out` as
/// JSON under `--json`); returns the exit code.
pub fn run(command: &Command, quiet: bool, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    QUIET.store(quiet, Ordering::Relaxed);
    let json = wants_json(command);
    let result = if quiet && !json && !prints_document(command) {
        run_command(command, &mut std::io::sink())
    } else {
        run_command(command, out)
    };
    match result {
        Ok(code) => code,
        Err(error) if is_broken_pipe(&error) => BROKEN_PIPE_EXIT_CODE,
        Err(error) => {
            let written = if json {
                write_json_error(out, command_name(command), &error)
            } else {
                let mut safe = SafeOutput::new(err);
                safe.write_all(CliError::of(&error).human().as_bytes())
                    .and_then(|()| safe.flush())
                    .map_err(anyhow::Error::from)
            };
            match written {
                Err(failure) if is_broken_pipe(&failure) => BROKEN_PIPE_EXIT_CODE,
                _ => exit_code(&error),
            }
        }
    }
}

fn write_json_error(
    out: &mut dyn Write,
    command: &str,
    error: &anyhow::Error,
) -> anyhow::Result<()> {
    let mut safe = SafeOutput::new(out);
    let text = serde_json::to_string_pretty(&error_json(command, error))?;
    writeln!(safe, "{text}")?;
    safe.flush()?;
    Ok(())
}

/// A command-line parsing error under `--json` (anywhere before a `--`): the error object on
/// stdout with code `usage` and clap's exit code; `None` when `args` do not ask for JSON or the
/// "error" is `--help` or `--version` output.
pub fn usage_error_json(args: &[std::ffi::OsString], error: &clap::Error) -> Option<String> {
    use clap::error::ErrorKind;
    let asks_json = args
        .iter()
        .skip(1)
        .take_while(|arg| *arg != "--")
        .any(|arg| arg == "--json");
    let informational = matches!(
        error.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    );
    if !asks_json || informational {
        return None;
    }
    let command = args
        .get(1)
        .and_then(|arg| arg.to_str())
        .filter(|arg| !arg.starts_with('-'))
        .unwrap_or("stagecraft");
    let message = error.render().to_string();
    let message = message.trim_end().trim_start_matches("error: ");
    let located = CliError::new(error.exit_code(), "usage", message);
    let value = error_json(command, &anyhow::Error::new(located));
    serde_json::to_string_pretty(&value).ok()
}

/// Whether `command` was asked for JSON.
pub fn wants_json(command: &Command) -> bool {
    match command {
        Command::Check { json, .. }
        | Command::New { json, .. }
        | Command::Fmt { json, .. }
        | Command::Generate { json, .. }
        | Command::Rebase { json, .. }
        | Command::Ops { json, .. }
        | Command::Simulate { json, .. }
        | Command::Cook { json, .. }
        | Command::Verify { json, .. }
        | Command::Diff { json, .. }
        | Command::Export(super::export::ExportArgs { json, .. })
        | Command::Repro(super::repro::ReproArgs { json, .. })
        | Command::Schema { json, .. }
        | Command::Completions { json, .. }
        | Command::Man { json, .. } => *json,
        Command::Daily(args) => args.json(),
    }
}

/// Whether `command` exists to print a document (printed even under `--quiet`).
fn prints_document(command: &Command) -> bool {
    match command {
        Command::Ops { .. } | Command::Completions { .. } | Command::Schema { .. } => true,
        Command::Man { out, .. } => out.is_none(),
        _ => false,
    }
}

/// The subcommand's name, as typed.
pub fn command_name(command: &Command) -> &'static str {
    match command {
        Command::Check { .. } => "check",
        Command::New { .. } => "new",
        Command::Fmt { .. } => "fmt",
        Command::Generate { .. } => "generate",
        Command::Rebase { .. } => "rebase",
        Command::Ops { .. } => "ops",
        Command::Simulate { .. } => "simulate",
        Command::Cook { .. } => "cook",
        Command::Verify { .. } => "verify",
        Command::Diff { .. } => "diff",
        Command::Export(_) => "export",
        Command::Repro(_) => "repro",
        Command::Daily(_) => "daily",
        Command::Schema { .. } => "schema",
        Command::Completions { .. } => "completions",
        Command::Man { .. } => "man",
    }
}
