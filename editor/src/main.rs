//! The `stagecraft` binary: a thin wrapper over the editor library (GUI) and its headless commands.

use std::io::Write as _;
use std::process::ExitCode;

use stagecraft_editor::cli::entry::{run, usage_error_json};
use stagecraft_editor::cli::parse_cli;

/// The process allocator: mimalloc keeps and reuses freed memory instead of handing large blocks
/// back to the system, so regenerating big products does not pay page faults on fresh memory each
/// time (about a fifth of a 1 km² scatter with the system allocator). It is built without
/// transparent huge pages (the workspace's `no_thp` feature): with them, the first touch of each
/// fresh 2 MiB region had the kernel zero all of it, a quarter of an edit-to-preview's CPU time.
/// The runtime's benchmarks use the same allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let cli = match parse_cli(args.clone()) {
        Ok(cli) => cli,
        Err(error) => match usage_error_json(&args, &error) {
            Some(json) => {
                // A closed pipe has nobody left to tell.
                let _ = writeln!(std::io::stdout(), "{json}");
                return exit_code(error.exit_code());
            }
            None => error.exit(),
        },
    };
    let code = match &cli.command {
        Some(command) => run(
            command,
            cli.quiet,
            &mut std::io::stdout().lock(),
            &mut std::io::stderr().lock(),
        ),
        None => match stagecraft_editor::app::run(stagecraft_editor::app::RunArgs {
            project: cli.project.clone(),
            screenshot: cli.screenshot.clone(),
            frame: cli.frame,
            tab: cli
                .tab
                .as_deref()
                .and_then(stagecraft_editor::panels::Tab::from_name),
            scenario: cli.scenario.clone(),
            inspect: cli.inspect.clone(),
            look_at: cli.look_at,
            layers: cli
                .layers
                .as_deref()
                .map(stagecraft_editor::cli::layer_names),
            step: cli.step.and_then(|n| usize::try_from(n).ok()),
            isolate: cli.isolate,
            heatmap: cli
                .heatmap
                .as_deref()
                .and_then(stagecraft_editor::viewport::heatmap_marks::mode_of_name),
        }) {
            Ok(()) => 0,
            Err(error) => {
                let message = format!("{error:#}");
                eprintln!(
                    "error: {}",
                    stagecraft_editor::cli::escape_controls(&message)
                );
                2
            }
        },
    };
    exit_code(code)
}

fn exit_code(code: i32) -> ExitCode {
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}
