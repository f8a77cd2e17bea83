//! `synapse-mcp`: the MCP server on stdio (see `synapse::mcp`). Errors go to stderr: stdout
//! carries the protocol only.

fn main() -> std::process::ExitCode {
    match synapse::mcp::run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("synapse-mcp: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
