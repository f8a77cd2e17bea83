//! The UserPromptSubmit hook of the Claude Code plugin (and Gemini CLI's BeforeAgent, with `--client gemini`):
//! all the work is in `synapse::plugin::hook`.

fn main() -> std::process::ExitCode {
    synapse::plugin::hook::main(synapse::plugin::hook::Event::UserPromptSubmit)
}
