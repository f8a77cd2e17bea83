//! The MCP server's speed, whole process, as a client meets it.
//!
//! `cargo run --release --example mcp -- MEMORIES ITERATIONS` (defaults 10,000 and 30). It builds
//! the fixture store of `examples/retrieval.rs` (global memories of about 240 bytes; a term in
//! every thousandth, a term in every one) in a temporary folder, then times:
//!
//! - `spawn_to_initialize`: from spawning `synapse-mcp` to reading its `initialize` answer, a new
//!   process each time (what a client waits for before it can list tools; its exit is not timed);
//! - `recall_selective`, `recall_common`, `readmemory`: one server process, the round trip of a
//!   `tools/call` from writing the request to reading the whole answer, after one untimed call
//!   (which opens the store).
//!
//! The server measured is `SYNAPSE_MCP` if set (bench/mcp.sh sets it to the binary built as the
//! plugin builds it), else `synapse-mcp` beside this example's build folder (`cargo build
//! --release --bin synapse-mcp`). It prints one JSON object; it never touches the user's store.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use common::{arg, corpus, measure, measure_timed, ms, COMMON, SELECTIVE};
use serde_json::{json, Value};
use synapse::secrets::Secrets;
use synapse::store::{Scope, Store};

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"examples/mcp","version":"0"}}}"#;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let count = arg(&args, 0, 10_000, 1_000_000, "MEMORIES")?;
    let iterations = arg(&args, 1, 30, 1_000, "ITERATIONS")?;
    let server = server_path()?;

    let dir = tempfile::tempdir().context("could not make a temporary folder")?;
    let data = dir.path().join("data");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project)?;
    let mut store = Store::open(&data)?;
    let report = store.import(&corpus(count), &Scope::global(), Secrets::Mask)?;
    if report.stored != count {
        bail!("seeded {} of {count} memories", report.stored);
    }
    drop(store);

    // Until the answer is read: the server's exit (when the client closes its input) is not
    // something a client waits for.
    let spawn = measure_timed("spawn_to_initialize", iterations, || {
        let started = Instant::now();
        let mut session = Session::start(&server, &data, &project)?;
        let answer = session.initialize()?;
        let took = ms(started);
        session.finish()?;
        Ok((took, answer.len()))
    })?;

    let mut session = Session::start(&server, &data, &project)?;
    session.initialize()?;
    let mut id = 0;
    let mut call = |tool: &str, arguments: Value| -> Result<usize> {
        id += 1;
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                             "params": {"name": tool, "arguments": arguments}});
        let answer = session.request(&request.to_string())?;
        let value: Value = serde_json::from_str(&answer)?;
        if value["result"]["isError"] != json!(false) {
            bail!("{tool} failed: {answer}");
        }
        Ok(answer.len())
    };
    let selective = measure("recall_selective", iterations, || {
        call("recall", json!({"query": SELECTIVE}))
    })?;
    let common = measure("recall_common", iterations, || {
        call("recall", json!({"query": COMMON}))
    })?;
    let read_id = (count / 2).max(1);
    let read = measure("readmemory", iterations, || {
        call("readmemory", json!({"id": read_id, "offset": 0}))
    })?;
    session.finish()?;

    let out = json!({
        "profile": if cfg!(debug_assertions) { "debug" } else { "release" },
        "server": server,
        "memories": count,
        "iterations": iterations,
        "measurements": [spawn, selective, common, read],
    });
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}

/// `SYNAPSE_MCP`, else `synapse-mcp` in the build folder this example runs from.
fn server_path() -> Result<PathBuf> {
    if let Some(path) = std::env::var_os("SYNAPSE_MCP").filter(|p| !p.is_empty()) {
        // Absolute: the server is started in another folder, where a relative path means
        // something else.
        let path = PathBuf::from(path);
        return path
            .canonicalize()
            .with_context(|| format!("SYNAPSE_MCP: no server at {}", path.display()));
    }
    let exe = std::env::current_exe().context("could not find this example's path")?;
    let beside = exe
        .parent()
        .and_then(Path::parent)
        .map(|dir| dir.join("synapse-mcp"))
        .context("this example is not in a build folder")?;
    if !beside.is_file() {
        bail!(
            "{} is not built: run `cargo build --release --bin synapse-mcp`, or set SYNAPSE_MCP",
            beside.display()
        );
    }
    Ok(beside)
}

/// One running server and its pipes.
struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Session {
    fn start(server: &Path, data: &Path, project: &Path) -> Result<Session> {
        let mut child = Command::new(server)
            .env("SYNAPSE_DATA", data)
            .env_remove("CLAUDE_PROJECT_DIR")
            .env_remove("SYNAPSE_BUDGET")
            .current_dir(project)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("could not start {}", server.display()))?;
        let stdin = child.stdin.take().context("no stdin")?;
        let stdout = BufReader::new(child.stdout.take().context("no stdout")?);
        Ok(Session {
            child,
            stdin,
            stdout,
        })
    }

    /// Send one line and read the answer's line.
    fn request(&mut self, line: &str) -> Result<String> {
        writeln!(self.stdin, "{line}")?;
        self.stdin.flush()?;
        let mut answer = String::new();
        if self.stdout.read_line(&mut answer)? == 0 {
            bail!("the server closed its output");
        }
        Ok(answer)
    }

    fn initialize(&mut self) -> Result<String> {
        let answer = self.request(INITIALIZE)?;
        if !answer.contains("\"protocolVersion\":\"2025-11-25\"") {
            bail!("unexpected initialize answer: {answer}");
        }
        writeln!(
            self.stdin,
            r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
        )?;
        Ok(answer)
    }

    /// Close stdin and wait for the server to exit.
    fn finish(self) -> Result<()> {
        let Session {
            mut child, stdin, ..
        } = self;
        drop(stdin);
        let status = child.wait()?;
        if !status.success() {
            bail!("the server exited with {status}");
        }
        Ok(())
    }
}
