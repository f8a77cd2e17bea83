//! `synapse-mcp`: the MCP server on stdio (see `synapse::mcp`). Errors go to stderr: stdout
//! carries the protocol only.

use std::path::PathBuf;

use clap::Parser;

/// Synapse's MCP server on stdio: recall, readmemory, remember, supersede, forget, restore and
/// drift over the memories of one project (and the global ones).
#[derive(Debug, Parser)]
#[command(
    name = "synapse-mcp",
    version,
    after_help = "The project is --project, else $CLAUDE_PROJECT_DIR (Claude Code sets it), else \
                  the working folder. The store is in $SYNAPSE_DATA, else the platform data \
                  folder; $SYNAPSE_BUDGET sets the default budget (lean, balanced, full)."
)]
struct Args {
    /// The folder whose project's memories to serve.
    #[arg(long, value_name = "DIR")]
    project: Option<PathBuf>,
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    match synapse::mcp::run(args.project) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("synapse-mcp: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
