//! The `synapse` command line: parse, dispatch, report errors.

fn main() -> std::process::ExitCode {
    match synapse::cmd::run(synapse::cmd::Cli::from_args()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) if synapse::cmd::is_closed_pipe(&e) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            // An error may quote a memory, a path or a file's line: shown safely, as all output.
            let said = format!("{e:#}");
            eprintln!("synapse: {}", synapse::text::visible(&said));
            std::process::ExitCode::FAILURE
        }
    }
}
