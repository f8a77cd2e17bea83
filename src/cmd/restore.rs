//! `synapse restore ID...`: undo the latest forget or supersede of each memory.

use anyhow::Result;
use serde_json::json;

use super::Targets;

pub fn run(args: Targets, json: bool) -> Result<()> {
    args.each(
        json,
        |store, id, scope| store.restore(id, scope),
        |id, undone| format!("restored {id} (undid its {undone})"),
        |id, undone| json!({ "restored": id, "undid": undone }),
    )
}
