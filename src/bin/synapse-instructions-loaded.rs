//! The InstructionsLoaded hook of the Claude Code plugin: all the work is in
//! `synapse::plugin::hook`.

fn main() -> std::process::ExitCode {
    synapse::plugin::hook::main(synapse::plugin::hook::Event::InstructionsLoaded)
}
