//! `synapse ui`: the terminal view of the memory (`crate::ui`), for a person at a terminal.

use std::io::IsTerminal;
use std::path::Path;

use anyhow::{bail, Result};

use super::Place;

#[derive(Debug, clap::Args)]
#[command(mut_arg("project", |a| a.help(
    "Show this project (a folder or a key) instead of the current folder's"
)))]
pub struct Args {
    #[command(flatten)]
    place: Place,
}

pub fn run(args: Args, json: bool) -> Result<()> {
    if json {
        bail!("synapse ui is interactive and prints no JSON; use `synapse list --json` or `synapse recall --json`");
    }
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        bail!(
            "`synapse ui` needs a terminal (standard input and output both); use `synapse list` \
             or `synapse recall` in scripts"
        );
    }
    let (store, scope) = args.place.open()?;
    // Sharing writes to the checkout of the project shown: the named folder's, or this one's.
    let folder = match &args.place.project {
        Some(named) => Path::new(named).to_owned(),
        None => super::here()?,
    };
    let checkout = crate::team::checkout(&folder);
    let mut app = crate::ui::App::open(store, scope, checkout)?;
    crate::ui::run(&mut app)
}
