//! The MCP server: the same memory as the CLI and the hooks, as tools a model calls mid-task
//! (`recall`, `readmemory`, `remember`, `supersede`, `forget`, `restore`, `drift`), over stdio
//! with the official Rust SDK (`rmcp`).
//!
//! Scope is the project of the folder the server runs for: `--project DIR` (for clients with no
//! notion of a project folder), else `CLAUDE_PROJECT_DIR` when the client sets it (Claude Code
//! does, and starts the server in that folder), else the working folder.
//! Another project's memory reads exactly like a missing one, as everywhere else.
//!
//! The store is opened on the first tool call, not at start: `initialize` is answered without
//! touching the disk, and a store that cannot be opened is a tool error the model can read,
//! retried on the next call. Tool work runs on tokio's blocking pool, so a call waiting for the
//! store's write lock never stops the server from answering pings and cancellations.
//!
//! Only protocol goes to stdout: the SDK writes nothing else there, and nothing here prints.

mod tools;

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use anyhow::{Context, Result};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, JsonObject, ServerCapabilities, ServerConfig,
};
use rmcp::{tool, tool_handler, tool_router, ServerHandler, ServiceExt};
use serde_json::Value;
use tokio::sync::mpsc::UnboundedSender;

use crate::store::{Scope, Store};
use tools::{IdArgs, NoArgs, ReadArgs, RecallArgs, RememberArgs, SupersedeArgs};

/// What the client passes on to the model about this server (Claude Code cuts it at 2 KB).
pub const INSTRUCTIONS: &str = "Synapse is this project's memory: notes, decisions and lessons \
recorded in earlier sessions (by hooks, by the user, or by you). They are advisory and may be \
outdated: check one against the code before relying on it.\n\
Look things up: call recall with a few plain words (names, an error, a question). Each result \
has an id, its age and source; `abridged: true` means only part of its text was sent. To read a \
memory whole, call readmemory with its id and offset 0, then call it again with each `next` \
until `next` is null; the pages joined are the stored text exactly.\n\
Drift findings beside results say which memories name a path that is gone or are contradicted \
by a newer one: prefer the newer.\n\
Save a lesson worth keeping (a fix that worked, a decision and its reason, a command that must \
be run a certain way) with remember: one self-contained note naming its files. It reports a \
memory it repeats (nothing is stored twice), ones it contradicts, and paths it names that do \
not exist; if it replaces an older memory, pass that id in supersedes. supersede, forget and \
restore hide and bring back memories (nothing is ever deleted); drift audits them all.";

/// The server: the tools and the store they share.
#[derive(Clone)]
pub struct Server {
    state: Arc<Mutex<State>>,
    tool_router: ToolRouter<Server>,
}

/// The project folder and, once a tool has needed it, what the tools work in.
struct State {
    folder: Result<PathBuf, String>,
    open: Option<Here>,
}

/// What the tools work in: the open store, the folder's scope, and the git checkout around the
/// folder (where a new memory is shared when the checkout says so, as from the command line).
struct Here {
    store: Store,
    scope: Scope,
    checkout: Option<PathBuf>,
    /// Where Claude Code's memory files of the project are found (`sources::refresh`).
    place: crate::sources::Place,
}

impl Here {
    /// Fold what changed among the project's Claude Code memory files, within a hook's limits,
    /// so every tool answers over them as they are now: the knowledge written for Claude Code
    /// reaches the other clients too. A fold that fails is logged, and the tool answers over
    /// what was folded before.
    fn fold_sources(&mut self) {
        let near: &[String] = &[];
        let sources = self.store.settings().map(|s| s.sources.clone());
        let refreshed = sources.and_then(|sources| {
            let (store, place) = (&mut self.store, &self.place);
            crate::sources::refresh(store, place, near, crate::sources::HOOK, &sources)
        });
        if let Err(e) = refreshed {
            let line = format!(
                "{} mcp could not fold Claude Code's memory files: {e:#}",
                crate::store::today()
            );
            // Nowhere is left to report a log that cannot be written; the call goes on.
            drop(crate::files::log(self.store.dir(), &line));
        }
    }
}

impl State {
    /// The store, scope and checkout, found on first use.
    fn open(&mut self) -> Result<&mut Here> {
        Ok(match &mut self.open {
            Some(open) => open,
            closed => {
                let folder = self.folder.clone().map_err(anyhow::Error::msg)?;
                let scope = Scope::of_folder(&folder).with_context(|| {
                    format!("could not find the project of {}", folder.display())
                })?;
                let store = Store::open_default().context("could not open the memory store")?;
                let checkout = crate::team::checkout(&folder);
                let place = crate::sources::Place::new(&scope, &folder, checkout.as_deref());
                closed.insert(Here {
                    store,
                    scope,
                    checkout,
                    place,
                })
            }
        })
    }
}

/// The folder whose project the server serves: `given`, else `CLAUDE_PROJECT_DIR`, else the
/// working folder.
fn project_folder(given: Option<PathBuf>) -> Result<PathBuf, String> {
    if let Some(dir) = given {
        return Ok(dir);
    }
    if let Some(dir) = std::env::var_os("CLAUDE_PROJECT_DIR").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    std::env::current_dir().map_err(|e| format!("could not read the current folder: {e}"))
}

/// A tool's answer as the model reads it: the JSON object as `structuredContent` (and, for
/// clients that read only text, the same JSON as a text block), or an error result whose message
/// says what to fix.
///
/// Every string in it is shown as text (`text::visible`): the model, and the person the client
/// shows the result to, never get a memory's control characters or direction overrides raw.
fn answer(outcome: Result<Value>) -> CallToolResult {
    match outcome {
        Ok(mut value) => {
            shown(&mut value);
            CallToolResult::structured(value)
        }
        Err(e) => {
            let said = format!("{e:#}");
            let said = crate::text::visible(&said).into_owned();
            CallToolResult::error(vec![ContentBlock::text(said)])
        }
    }
}

/// `value` with every string in it passed through `text::visible`.
fn shown(value: &mut Value) {
    match value {
        Value::String(text) => {
            if let std::borrow::Cow::Owned(escaped) = crate::text::visible(text) {
                *text = escaped;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(shown),
        Value::Object(fields) => fields.values_mut().for_each(shown),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// A tool's `_meta` with the phrase Claude Code matches a keyword `ToolSearch` against. Since
/// 2.1.332 the client lists MCP tools to the model by name only, and the model loads one by name
/// or by a search that scores `anthropic/searchHint` beside the name and the description (in its
/// "simple" mode the hint is sent instead of the description). Each hint says what the tool does
/// in plain words, and only the read path and `remember` say "memory", the word a model looking
/// for these tools is likely to try: a search for it (five results) missed `recall` with no hints,
/// and ranked the other writes above `recall` with "memory" in every hint. No tool asks to be
/// always loaded (`anthropic/alwaysLoad`): docs/mcp.md says why.
fn search_hint(hint: &str) -> rmcp::model::MetaObject {
    let mut meta = JsonObject::new();
    meta.insert("anthropic/searchHint".into(), Value::from(hint));
    rmcp::model::MetaObject(meta)
}

/// The input schema of a tool taking `T` (generated once, at start; a type that is not an
/// object is a bug the tests catch).
fn input_schema<T: schemars::JsonSchema + std::any::Any>() -> Arc<JsonObject> {
    rmcp::handler::server::common::schema_for_input::<T>()
        .unwrap_or_else(|e| panic!("the input schema of {}: {e}", std::any::type_name::<T>()))
}

impl Server {
    /// A server for the project of `folder`, else of `CLAUDE_PROJECT_DIR` or the working
    /// folder.
    pub fn new(folder: Option<PathBuf>) -> Server {
        Server {
            state: Arc::new(Mutex::new(State {
                folder: project_folder(folder),
                open: None,
            })),
            tool_router: Self::tool_router(),
        }
    }

    /// Run `work` on the open store, off the protocol's thread.
    async fn with_store(
        &self,
        work: impl FnOnce(&mut Here) -> Result<Value> + Send + 'static,
    ) -> CallToolResult {
        let state = Arc::clone(&self.state);
        let done = tokio::task::spawn_blocking(move || {
            // A panic in an earlier call rolled its transaction back as it unwound: the store
            // is still sound, so a poisoned lock is taken as it is.
            let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
            let here = state.open()?;
            here.fold_sources();
            work(here)
        })
        .await;
        answer(done.unwrap_or_else(|e| Err(anyhow::anyhow!("the tool failed: {e}"))))
    }

    /// Parse a call's arguments, then run `work` with them.
    async fn call<T: serde::de::DeserializeOwned + Send + 'static>(
        &self,
        tool: &str,
        args: JsonObject,
        work: impl FnOnce(&mut Here, T) -> Result<Value> + Send + 'static,
    ) -> CallToolResult {
        match tools::parse::<T>(tool, args) {
            Ok(args) => self.with_store(move |here| work(here, args)).await,
            Err(e) => answer(Err(e)),
        }
    }
}

#[tool_router]
impl Server {
    /// Search this project's memory (and the global one): ranked notes with ids, ages,
    /// sources, abridged marks and drift findings (stale paths, contradictions). Advisory
    /// notes from earlier sessions, possibly outdated.
    #[tool(
        input_schema = input_schema::<RecallArgs>(),
        meta = search_hint("search memory: notes, decisions, lessons (memories) of past sessions"),
        annotations(title = "Recall memories", read_only_hint = true, open_world_hint = false)
    )]
    async fn recall(&self, args: JsonObject) -> CallToolResult {
        self.call("recall", args, |h, args| {
            tools::recall(&h.store, &h.scope, h.store.settings()?, args)
        })
        .await
    }

    /// Read one memory's exact stored text, a page at a time: start at offset 0 and pass each
    /// `next` back until it is null. `total` is the memory's size in bytes.
    #[tool(
        input_schema = input_schema::<ReadArgs>(),
        meta = search_hint("read one memory's exact text by id, a page at a time"),
        annotations(title = "Read a memory", read_only_hint = true, open_world_hint = false)
    )]
    async fn readmemory(&self, args: JsonObject) -> CallToolResult {
        self.call("readmemory", args, |h, args| {
            tools::read(&h.store, &h.scope, h.store.settings()?, args)
        })
        .await
    }

    /// Save a lesson, fact or decision for later sessions (this project's, or every project's
    /// with global). Reports a memory it repeats (nothing is stored twice), memories it
    /// contradicts and paths it names that are gone; secrets are masked as [secret].
    #[tool(
        input_schema = input_schema::<RememberArgs>(),
        meta = search_hint("save a lesson, decision or fact to project memory for later sessions"),
        annotations(
            title = "Remember",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn remember(&self, args: JsonObject) -> CallToolResult {
        self.call("remember", args, |h, args| {
            let settings = h.store.settings()?.clone();
            tools::remember(
                &mut h.store,
                &h.scope,
                h.checkout.as_deref(),
                &settings,
                args,
            )
        })
        .await
    }

    /// Mark memory `old` as replaced by memory `new`: old is hidden from recall (never
    /// deleted; restore undoes it).
    #[tool(
        input_schema = input_schema::<SupersedeArgs>(),
        meta = search_hint("mark an outdated note as replaced by a newer one"),
        annotations(
            title = "Supersede a memory",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn supersede(&self, args: JsonObject) -> CallToolResult {
        self.call("supersede", args, |h, args| {
            tools::supersede(&mut h.store, &h.scope, args)
        })
        .await
    }

    /// Hide a memory that is wrong or no longer useful (never deleted; restore undoes it).
    #[tool(
        input_schema = input_schema::<IdArgs>(),
        meta = search_hint("hide a wrong or useless note (restore undoes it)"),
        annotations(
            title = "Forget a memory",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn forget(&self, args: JsonObject) -> CallToolResult {
        self.call("forget", args, |h, args| {
            tools::forget(&mut h.store, &h.scope, args)
        })
        .await
    }

    /// Undo the latest forget or supersede of a memory.
    #[tool(
        input_schema = input_schema::<IdArgs>(),
        meta = search_hint("undo the latest forget or supersede of a note"),
        annotations(
            title = "Restore a memory",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn restore(&self, args: JsonObject) -> CallToolResult {
        self.call("restore", args, |h, args| {
            tools::restore(&mut h.store, &h.scope, args)
        })
        .await
    }

    /// Audit every memory this project sees: stale (names a path that is gone), conflict (a
    /// newer memory says otherwise) and duplicate findings. Changes nothing.
    #[tool(
        input_schema = input_schema::<NoArgs>(),
        meta = search_hint("audit memories for stale paths, contradictions and duplicates"),
        annotations(title = "Audit drift", read_only_hint = true, open_world_hint = false)
    )]
    async fn drift(&self, args: JsonObject) -> CallToolResult {
        self.call("drift", args, |h, NoArgs {}| {
            tools::audit(&h.store, &h.scope, h.store.settings()?)
        })
        .await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("synapse", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }
}

/// Standard input as the SDK reads it, less the notifications and responses that come before
/// the first request: the SDK ends the session on one of those, where a client sending
/// `notifications/initialized` too early should not lose its server. A line that is not JSON
/// never reaches the SDK (which would drop it unanswered): it is answered here with JSON-RPC's
/// parse error, through `replies`. Everything else passes through as it came, byte for byte.
fn requests_first(
    input: rmcp::transport::StdioReader,
    replies: UnboundedSender<Vec<u8>>,
) -> tokio::io::DuplexStream {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

    let (reader, mut writer) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let mut stdin = tokio::io::BufReader::new(input);
        let mut line = Vec::new();
        let mut started = false;
        loop {
            line.clear();
            match stdin.read_until(b'\n', &mut line).await {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => {
                    eprintln!("synapse-mcp: could not read standard input: {e}");
                    break;
                }
            }
            if line.trim_ascii().is_empty() {
                continue;
            }
            match serde_json::from_slice::<Value>(&line) {
                Err(e) => {
                    if replies.send(parse_error(&e)).is_err() {
                        break;
                    }
                    continue;
                }
                Ok(Value::Object(message)) if !started => {
                    if !(message.contains_key("method") && message.contains_key("id")) {
                        continue;
                    }
                    started = true;
                }
                // Not an object, or from the first request on: the SDK answers it.
                Ok(_) => {}
            }
            // A failed write means the session is over: the SDK dropped its end.
            if writer.write_all(&line).await.is_err() {
                break;
            }
        }
    });
    reader
}

/// JSON-RPC's answer to a line that is not JSON: it carries no id, so the id is null.
fn parse_error(e: &serde_json::Error) -> Vec<u8> {
    let error = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": -32700, "message": format!("parse error: the line is not JSON ({e})")},
    });
    let mut line = error.to_string().into_bytes();
    line.push(b'\n');
    line
}

/// Standard output with one writer: the SDK's messages (read whole lines from the stream it
/// writes to) and the replies of `requests_first` go out one whole line at a time, never
/// interleaved. The writer ends, everything written, once the SDK has closed its stream.
fn one_writer(
    output: rmcp::transport::StdioWriter,
) -> (
    tokio::io::DuplexStream,
    UnboundedSender<Vec<u8>>,
    tokio::task::JoinHandle<()>,
) {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

    let (sdk_side, ours) = tokio::io::duplex(1 << 16);
    let (lines, mut queued) = tokio::sync::mpsc::unbounded_channel::<Vec<u8>>();
    let from_sdk = lines.clone();
    tokio::spawn(async move {
        let mut sdk = tokio::io::BufReader::new(ours);
        loop {
            let mut line = Vec::new();
            let read = sdk.read_until(b'\n', &mut line).await;
            // An empty line tells the writer the SDK is done (no message is empty).
            let done = !matches!(read, Ok(n) if n > 0);
            if done {
                line.clear();
            }
            if from_sdk.send(line).is_err() || done {
                break;
            }
        }
    });
    let writer = tokio::spawn(async move {
        let mut output = output;
        while let Some(line) = queued.recv().await {
            if line.is_empty() {
                break;
            }
            let written = output.write_all(&line).await;
            if let Err(e) = written.and(output.flush().await) {
                eprintln!("synapse-mcp: could not write standard output: {e}");
                break;
            }
        }
    });
    (sdk_side, lines, writer)
}

/// Serve MCP on stdin and stdout until the client closes stdin, for the project of `folder`
/// (see `Server::new`).
pub fn run(folder: Option<PathBuf>) -> Result<()> {
    // One thread: a stdio server has one client, and tool work goes to the blocking pool.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("could not start the async runtime")?;
    let served = runtime.block_on(async {
        // Non-blocking pipes where the client gave pipes (as clients do), read and written on
        // this thread: the blocking standard streams would hand every message to another
        // thread and back, each hand-off a wait for the scheduler on a busy machine.
        let (input, output) = rmcp::transport::stdio_pipes();
        let (output, replies, writer) = one_writer(output);
        let service = Server::new(folder)
            .serve((requests_first(input, replies), output))
            .await
            .context("the MCP session did not start")?;
        let ended = service.waiting().await;
        writer.await.context("the standard output writer stopped")?;
        ended.context("the MCP session ended with an error")?;
        Ok(())
    });
    // Without waiting for a thread blocked reading stdin (where it is not a pipe): when the
    // session ends for another reason than its end of input, that read may never return.
    runtime.shutdown_background();
    served
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a client that defers tools has to find them by: every tool carries a one-line
    /// search hint, none asks to be loaded into every request, and only the read path and
    /// `remember` say "memory" (the order a keyword search for it ranks them in; docs/mcp.md).
    #[test]
    fn every_tool_has_a_search_hint_and_stays_deferred() {
        let tools = Server::tool_router().list_all();
        assert_eq!(tools.len(), 7);
        let mut saying_memory = Vec::new();
        for tool in &tools {
            let meta = tool.meta.as_ref().map(|m| &m.0);
            let hint = meta
                .and_then(|m| m.get("anthropic/searchHint"))
                .and_then(Value::as_str)
                .unwrap_or_else(|| panic!("{} has no search hint", tool.name));
            assert!(
                !hint.is_empty() && hint.len() <= 100 && !hint.contains('\n'),
                "{}: {hint:?}",
                tool.name
            );
            assert!(
                meta.is_some_and(|m| !m.contains_key("anthropic/alwaysLoad")),
                "{}",
                tool.name
            );
            if hint
                .split(|c: char| !c.is_alphanumeric())
                .any(|w| w == "memory")
            {
                saying_memory.push(tool.name.as_ref());
            }
        }
        saying_memory.sort_unstable();
        assert_eq!(saying_memory, ["readmemory", "recall", "remember"]);
    }
}
