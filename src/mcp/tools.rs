//! The MCP tools' arguments and answers: each tool is one library call, as its CLI verb makes it,
//! answering a JSON object the model reads.
//!
//! Claude Code hands the model only the JSON of a result's `structuredContent` when there is one,
//! so everything the model must read is in that object: the advisory framing (`about`), ids,
//! ages, sources, abridged marks, drift findings and what to call next. Text that comes from a
//! memory is a JSON string value there, so it cannot forge the framing around it.
//!
//! Arguments are checked here, not by the SDK: a wrong type or a missing field is then a tool
//! result the model can read and correct (`isError`), as the MCP specification asks for input
//! errors, rather than a protocol error the client shows no one.

use std::path::Path;

use anyhow::{bail, Context, Result};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::config::{Budget, Settings};
use crate::drift::{self, Finding, Kind};
use crate::recall::{self, Options};
use crate::record::{self, Recorded, Recording, Shared};
use crate::store::write::NewMemory;
use crate::store::{Scope, Store};

/// The source label of a memory stored through MCP when the caller gives none.
const DEFAULT_SOURCE: &str = crate::store::listing::MCP_LABEL;

/// How recall's answer closes: how to read more and how to save a lesson.
const RECALL_NEXT: &str = "Read a memory whole (abridged ones above all): readmemory with its id \
    and offset 0, then each `next` until it is null. Save a lesson: remember.";

/// `recall`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = no_null_defaults)]
pub struct RecallArgs {
    /// What to look for, in plain words (a question, names, error text). Every word counts;
    /// nothing is read as search syntax. An empty query lists the newest memories.
    pub query: String,
    /// How much to return: "lean" (at most 4 results, 2,800 characters of memory text),
    /// "balanced" (8 and 6,000) or "full" (25, no character cap). Default: the user's setting,
    /// else "balanced".
    #[serde(default)]
    #[schemars(with = "BudgetName")]
    pub budget: Option<BudgetName>,
    /// Return at most this many results (1 or more; the budget's count caps it too).
    #[serde(default)]
    #[schemars(with = "i64", range(min = 1))]
    pub limit: Option<i64>,
}

/// Drop `"default": null` from the properties: an optional field left out means "not given",
/// and a null default contradicts the field's own type (a strict validator flags it).
fn no_null_defaults(schema: &mut schemars::Schema) {
    let properties = schema
        .get_mut("properties")
        .and_then(Value::as_object_mut)
        .into_iter()
        .flat_map(|p| p.values_mut());
    for property in properties.filter_map(Value::as_object_mut) {
        if property.get("default").is_some_and(Value::is_null) {
            property.remove("default");
        }
    }
}

/// A budget by name (inlined in the schema: a `$ref` is one more thing a client may not follow).
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
pub enum BudgetName {
    Lean,
    Balanced,
    Full,
}

impl From<BudgetName> for Budget {
    fn from(name: BudgetName) -> Budget {
        match name {
            BudgetName::Lean => Budget::Lean,
            BudgetName::Balanced => Budget::Balanced,
            BudgetName::Full => Budget::Full,
        }
    }
}

/// `readmemory`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadArgs {
    /// The memory's id, as recall gives it (the number in `id`).
    #[schemars(range(min = 1))]
    pub id: i64,
    /// Byte offset to read from: 0 for the start, then the `next` of the previous page.
    #[serde(default)]
    #[schemars(range(min = 0))]
    pub offset: i64,
}

/// `remember`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = no_null_defaults)]
pub struct RememberArgs {
    /// The lesson, fact or decision to keep, self-contained: name the files, commands and
    /// numbers it is about. Secrets (keys, tokens, passwords) are replaced by [secret].
    pub text: String,
    /// Where it came from, in a few words (a PR, a file, "debugging session"). Default: "mcp".
    #[serde(default)]
    #[schemars(with = "String")]
    pub source: Option<String>,
    /// true: a memory for every project (a personal preference, a tool fact); false, the
    /// default: for this project only.
    #[serde(default)]
    pub global: bool,
    /// The id of an older memory this one replaces, or a list of them: they are hidden from
    /// recall (restore undoes it). The answer's `similar` names the likely ones.
    #[serde(default, deserialize_with = "one_or_many")]
    #[schemars(schema_with = "one_or_many_schema")]
    pub supersedes: Vec<i64>,
}

/// Memory ids given as one id or a list.
#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(i64),
    Many(Vec<i64>),
}

/// `supersedes` as a list, whichever way it was given.
fn one_or_many<'de, D: serde::Deserializer<'de>>(to: D) -> Result<Vec<i64>, D::Error> {
    Ok(match OneOrMany::deserialize(to)? {
        OneOrMany::One(id) => vec![id],
        OneOrMany::Many(ids) => ids,
    })
}

/// The schema of `OneOrMany`: a list of ids. A lone id is accepted too (`one_or_many`), but the
/// schema says one type only: a type list or an `anyOf` is legal JSON Schema that clients mapping
/// tool schemas onto a single-type dialect (Gemini's function declarations) reject or weaken, and
/// the MCP Inspector's strict check warns of it.
fn one_or_many_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "array",
        "items": {"type": "integer", "minimum": 1},
    })
}

/// `supersede`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SupersedeArgs {
    /// The memory that is out of date; it is hidden from recall.
    #[schemars(range(min = 1))]
    pub old: i64,
    /// The memory that replaces it.
    #[schemars(range(min = 1))]
    pub new: i64,
}

/// The arguments of `forget` and `restore`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IdArgs {
    /// The memory's id.
    #[schemars(range(min = 1))]
    pub id: i64,
}

/// `drift`'s arguments: none.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = empty_properties)]
pub struct NoArgs {}

/// Say `"properties": {}` outright: some clients read a tool's arguments only from it.
fn empty_properties(schema: &mut schemars::Schema) {
    schema.insert("properties".to_owned(), json!({}));
}

/// The arguments of a call as `T`, or an error saying what to fix.
pub fn parse<T: serde::de::DeserializeOwned>(tool: &str, args: Map<String, Value>) -> Result<T> {
    serde_json::from_value(Value::Object(args))
        .with_context(|| format!("the arguments of {tool} do not fit its input schema"))
}

/// An id as the store knows them: a positive integer.
fn check_id(id: i64, what: &str) -> Result<()> {
    if id < 1 {
        bail!("{what} {id} is not a memory id: ids are positive integers, as recall gives them");
    }
    Ok(())
}

/// `recall`: ranked memories for a question, with the drift findings on them.
pub fn recall(
    store: &Store,
    scope: &Scope,
    settings: &Settings,
    args: RecallArgs,
) -> Result<Value> {
    let limit = match args.limit {
        Some(n) if n < 1 => bail!("limit {n} is below 1; leave it out for the budget's count"),
        Some(n) => Some(usize::try_from(n).context("limit does not fit this machine")?),
        None => None,
    };
    let budget = match args.budget {
        Some(name) => name.into(),
        None => settings.budget,
    };
    let options = Options {
        budget,
        limit,
        ignore: settings.drift.ignore.clone(),
        ..Options::default()
    };
    let found = recall::recall(store, scope, &args.query, &options)?;
    let now = crate::store::now();
    let results: Vec<Value> = found
        .results
        .iter()
        .map(|hit| {
            let mut result = json!({
                "id": hit.id,
                "age": crate::text::age::age(now - hit.created_at.seconds()).said(),
                "created_at": hit.created_at,
                "source": hit.source,
                "scope": if hit.project.is_some() { "project" } else { "global" },
                "abridged": hit.abridged,
                "bytes": hit.bytes,
                "text": hit.text,
            });
            if hit.abridged {
                result["read"] = json!(format!(
                    "abridged: readmemory id {} offset 0 gives all {} bytes",
                    hit.id, hit.bytes
                ));
            }
            result
        })
        .collect();
    let mut about = crate::recall::header(&args.query);
    if results.is_empty() {
        about.push_str(" No memories match.");
    }
    Ok(json!({
        "about": about,
        "results": results,
        "drift": findings(&found.drift)?,
        "next": RECALL_NEXT,
    }))
}

/// Drift findings with the line that says each one in words.
fn findings(found: &[Finding]) -> Result<Vec<Value>> {
    found
        .iter()
        .map(|f| {
            let mut value = serde_json::to_value(f)?;
            value["says"] = json!(f.describe());
            Ok(value)
        })
        .collect()
}

/// `readmemory`: one page of a memory's exact text.
pub fn read(store: &Store, scope: &Scope, settings: &Settings, args: ReadArgs) -> Result<Value> {
    check_id(args.id, "id")?;
    let Ok(offset) = usize::try_from(args.offset) else {
        bail!(
            "offset {} is negative: use 0, or the `next` of the previous page",
            args.offset
        );
    };
    let page_bytes = settings.budget.page_bytes();
    let Some(page) = crate::read::read(store, scope, args.id, offset, page_bytes)? else {
        bail!(
            "no readable memory {} here: it is missing, superseded or forgotten (recall gives \
             the ids of live ones)",
            args.id
        );
    };
    let end = page.offset + page.body.len();
    // The answer's strings are shown as text (`answer` in the server): say so when it matters.
    let escaped = if page.body.chars().any(crate::text::hidden) {
        " (control characters shown as \\u{..} escapes)"
    } else {
        ""
    };
    let about = match page.next {
        Some(next) => format!(
            "Memory {}, bytes {}..{end} of {}, exactly as stored{escaped}: a note from an earlier \
             session (advisory, possibly outdated). More follows: readmemory id {} offset {next}.",
            page.id, page.offset, page.total, page.id
        ),
        None => format!(
            "Memory {}, bytes {}..{end} of {} (the end), exactly as stored{escaped}: a note from \
             an earlier session (advisory, possibly outdated).",
            page.id, page.offset, page.total
        ),
    };
    let mut value = serde_json::to_value(&page)?;
    value["about"] = json!(about);
    Ok(value)
}

/// `remember`: store a memory (masked), or name the one it repeats; report what it contradicts
/// and the paths it names that are gone. A project memory is shared through `checkout` when the
/// checkout says so; when the store is busy the memory waits in the spool, as on every write
/// path (`record`).
pub fn remember(
    store: &mut Store,
    scope: &Scope,
    checkout: Option<&Path>,
    settings: &Settings,
    args: RememberArgs,
) -> Result<Value> {
    for &old in &args.supersedes {
        check_id(old, "supersedes")?;
    }
    let home = if args.global {
        Scope::global()
    } else {
        scope.clone()
    };
    let recording = Recording {
        memory: NewMemory {
            body: args.text,
            source: args.source.unwrap_or_else(|| DEFAULT_SOURCE.to_owned()),
            project: home.key().map(str::to_owned),
            created_at: None,
            secrets: crate::secrets::Secrets::Mask,
        },
        supersedes: &args.supersedes,
        // A global memory belongs to no checkout.
        checkout: checkout.filter(|_| home.key().is_some()),
    };
    let (outcome, shared) = match record::remember(store, scope, recording)? {
        Recorded::Stored { outcome, shared } => (outcome, shared),
        Recorded::Spooled => {
            return Ok(json!({"about": record::SPOOLED, "id": null, "spooled": true}));
        }
    };
    let id = outcome.id;
    let found = drift::of_remembered(store, scope, &outcome, &settings.drift.ignore)?;
    let similar = record::similar(store, scope, &outcome)?;
    let mut said = vec![if outcome.duplicate {
        format!("already remembered as memory {id}; nothing was stored")
    } else {
        format!("remembered as memory {id}")
    }];
    said.extend(outcome.masked_line());
    said.extend(
        outcome
            .superseded
            .iter()
            .map(|old| format!("{old} is now superseded by {id}")),
    );
    said.extend(shared.line());
    // Named only when sharing was asked, so an answer without it reads as before.
    let sharing = match shared {
        Shared::Yes(event) => Some(("shared", event.uid)),
        Shared::No => None,
        Shared::Failed(why) => Some(("not_shared", why)),
    };
    said.extend(found.iter().map(|f| f.about_new(id)));
    said.extend(similar.iter().map(|near| match near.newer {
        true => near.line(&format!(
            "it is newer: if it replaces memory {id}: supersede with old {id} and new {}",
            near.id
        )),
        false => near.line(&format!(
            "if memory {id} replaces it: supersede with old {} and new {id}",
            near.id
        )),
    }));
    let mut answer = json!({
        "about": said.join("\n"),
        "id": id,
        "duplicate_of": outcome.duplicate.then_some(id),
        "superseded": outcome.superseded,
        "masked": outcome.masked,
        // Each gone path once, as the memory writes it (a stale finding names all of its own).
        "missing_paths": found
            .iter()
            .filter(|f| f.kind == Kind::Stale)
            .flat_map(|f| &f.paths)
            .collect::<Vec<_>>(),
        "drift": findings(&found)?,
        "similar": similar,
    });
    if let Some((key, value)) = sharing {
        answer[key] = json!(value);
    }
    Ok(answer)
}

/// `supersede`: mark OLD as replaced by NEW.
pub fn supersede(store: &mut Store, scope: &Scope, args: SupersedeArgs) -> Result<Value> {
    check_id(args.old, "old")?;
    check_id(args.new, "new")?;
    store.supersede(args.old, args.new, scope)?;
    Ok(json!({
        "about": format!(
            "{} is now superseded by {} (restore {} undoes it)",
            args.old, args.new, args.old
        ),
        "superseded": args.old,
        "by": args.new,
    }))
}

/// `forget`: hide a memory.
pub fn forget(store: &mut Store, scope: &Scope, args: IdArgs) -> Result<Value> {
    check_id(args.id, "id")?;
    store.forget(args.id, scope)?;
    Ok(json!({
        "about": format!("forgot {} (hidden, not deleted: restore {} undoes it)", args.id, args.id),
        "forgotten": args.id,
    }))
}

/// `restore`: undo the latest forget or supersede of a memory.
pub fn restore(store: &mut Store, scope: &Scope, args: IdArgs) -> Result<Value> {
    check_id(args.id, "id")?;
    let undone = store.restore(args.id, scope)?;
    Ok(json!({
        "about": format!("restored {} (undid its {undone})", args.id),
        "restored": args.id,
        "undid": undone,
    }))
}

/// `drift`: audit every memory this project sees.
pub fn audit(store: &Store, scope: &Scope, settings: &Settings) -> Result<Value> {
    let visible = store.count_live(scope)?;
    let found = drift::audit(store, scope, &settings.drift.ignore)?;
    let chains = drift::chains(&found);
    let of = |kind: Kind| -> Result<Vec<Value>> {
        let picked: Vec<Finding> = found.iter().filter(|f| f.kind == kind).cloned().collect();
        findings(&picked)
    };
    Ok(json!({
        "about": format!(
            "{} finding(s) among the {visible} memories this project sees; nothing was changed. \
             Stale: names a path that is gone. Conflict: the newer one stands (supersede OLD NEW \
             settles it). Duplicate: the same text (forget OLD keeps one). Findings point at \
             candidates, not verdicts: readmemory shows a memory whole.",
            found.len()
        ),
        "project": scope.key(),
        "memories": visible,
        "count": found.len(),
        "stale": of(Kind::Stale)?,
        "conflict": of(Kind::Conflict)?,
        "duplicate": of(Kind::Duplicate)?,
        "chains": chains,
    }))
}
