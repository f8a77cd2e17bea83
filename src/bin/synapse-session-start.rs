//! The SessionStart hook of the Claude Code plugin: all the work is in `synapse::hook`.

fn main() -> std::process::ExitCode {
    synapse::hook::main(synapse::hook::Event::SessionStart)
}
