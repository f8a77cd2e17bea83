//! The `synapse` command line: parse, dispatch, report errors.

use clap::Parser;

fn main() -> std::process::ExitCode {
    match synapse::cmd::run(synapse::cmd::Cli::parse()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) if synapse::cmd::is_closed_pipe(&e) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("synapse: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
