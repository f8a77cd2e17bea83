//! `synapse forget ID...`: hide memories from recall and reading.

use anyhow::Result;
use serde_json::json;

use super::Targets;

pub fn run(args: Targets, json: bool) -> Result<()> {
    args.each(
        json,
        |store, id, scope| store.forget(id, scope),
        |id, ()| format!("forgot {id} (undo: synapse restore {id})"),
        |id, ()| json!({ "forgotten": id }),
    )
}
