//! What the CLI-driving test files share: running the real `synapse` binary.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Run the built `synapse` with `data` as its data folder, from `cwd`, feeding `stdin`.
pub fn run_synapse(data: &Path, cwd: &Path, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_synapse"))
        .args(args)
        .env("SYNAPSE_DATA", data)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run synapse");
    let mut pipe = child.stdin.take().unwrap();
    pipe.write_all(stdin).unwrap();
    drop(pipe);
    child.wait_with_output().unwrap()
}
