//! The PreCompact and PostCompact hooks of the Claude Code plugin (the payload says which): all
//! the work is in `synapse::plugin::hook`.

fn main() -> std::process::ExitCode {
    synapse::plugin::hook::main(synapse::plugin::hook::Event::Compact)
}
