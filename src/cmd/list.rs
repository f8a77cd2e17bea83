//! `synapse list`: the memories visible from here, newest first.

use anyhow::Result;
use serde_json::json;

use super::Place;

#[derive(Debug, clap::Args)]
#[command(mut_arg("project", |a| a.help(
    "List this project (a folder or a key) instead of the current folder's"
)))]
pub struct Args {
    #[command(flatten)]
    place: Place,
    /// Include superseded and forgotten memories.
    #[arg(long)]
    all: bool,
}

pub fn run(args: Args, json: bool) -> Result<()> {
    let (store, scope) = args.place.open_to_read()?;
    let memories = store.list(&scope, args.all)?;
    if json {
        return super::print_json(&json!({ "memories": memories }));
    }
    if memories.is_empty() {
        // Say where it looked: which project, and which data folder.
        let dir = store.dir().display();
        match scope.key() {
            Some(key) => outln!(
                "no memories yet for project {key}, nor global ones, in the data folder {dir}"
            ),
            None => outln!("no global memories yet in the data folder {dir}"),
        }
    }
    for m in &memories {
        let state = match (&m.forgotten_at, m.superseded_by) {
            (Some(_), _) => " [forgotten]".to_owned(),
            (None, Some(by)) => format!(" [superseded by {by}]"),
            (None, None) => String::new(),
        };
        let scope = if m.project.is_none() { " (global)" } else { "" };
        let date = m.created_at.date();
        outln!(
            "{:>6}  {date}{scope}{state}  {}",
            m.id,
            super::headline(&m.body, 100)
        );
    }
    Ok(())
}
