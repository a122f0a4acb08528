//! The `stagecraft` binary: a thin wrapper over the editor library (GUI) and its headless commands.

use std::process::ExitCode;

use clap::Parser as _;
use stagecraft_editor::cli::{run_command, Cli};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Some(command) => run_command(command, &mut std::io::stdout().lock()),
        None => stagecraft_editor::app::run(stagecraft_editor::app::RunArgs {
            project: cli.project.clone(),
            screenshot: cli.screenshot.clone(),
            frame: cli.frame,
        })
        .map(|()| 0),
    };
    match result {
        Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(2)
        }
    }
}
