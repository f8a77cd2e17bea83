//! The `synapse` command line: parse, dispatch, report errors.

use clap::Parser;

fn main() -> std::process::ExitCode {
    match synapse::cmd::run(synapse::cmd::Cli::parse()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("synapse: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
