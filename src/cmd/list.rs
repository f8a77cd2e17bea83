//! `synapse list`: the memories visible from here, newest first, a page at a time, each with
//! its age and where it came from; filtered by that (`--source`), by age (`--since`) or to the
//! stale ones (`--stale`). Reading creates nothing: the store is opened to read.

use anyhow::{bail, Context, Result};
use serde_json::json;

use super::Place;
use crate::drift::{self, Kind};
use crate::store::listing::{Filter, Listed, SourceKind};
use crate::text::age::age;

/// How many memories a page shows unless `--limit` says otherwise.
const PAGE: usize = 50;

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
    /// Only memories from this source: typed (by a person), lesson (the Stop hook, from a
    /// reply), mcp (the model, through the MCP server), file (a piece of CLAUDE.md, a rule or
    /// the auto memory), import, team (a teammate's, from the shared file).
    #[arg(long, value_name = "KIND")]
    source: Option<String>,
    /// Only memories made since then: a duration back from now (30m, 12h, 7d, 2w, 3mo, 1y) or
    /// a date (2026-11-01, midnight UTC).
    #[arg(long, value_name = "WHEN")]
    since: Option<String>,
    /// Only memories with a stale finding (a path they name is gone), as `synapse drift` finds.
    #[arg(long)]
    stale: bool,
    /// How many memories a page shows; default 50, and with --json every one unless --limit or
    /// --page is given (a script gets the whole list, as before pages).
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// Which page to show, from 1.
    #[arg(long, value_name = "N", default_value_t = 1)]
    page: usize,
}

pub fn run(args: Args, json: bool) -> Result<()> {
    if args.limit == Some(0) {
        bail!("--limit must be at least 1");
    }
    if args.page == 0 {
        bail!("--page counts from 1");
    }
    let now = crate::store::now();
    let kind = args.source.as_deref().map(source_kind).transpose()?;
    let since = args.since.as_deref().map(|w| since(w, now)).transpose()?;
    let (store, scope) = args.place.open_to_read()?;
    let ids = if args.stale {
        let findings = drift::audit(&store, &scope, &store.settings()?.drift.ignore)?;
        let mut ids: Vec<i64> = findings
            .iter()
            .filter(|f| f.kind == Kind::Stale)
            .map(|f| f.id)
            .collect();
        ids.dedup();
        Some(ids)
    } else {
        None
    };
    let filter = Filter {
        all: args.all,
        kind,
        since,
        ids,
    };
    let paged = args.limit.is_some() || args.page > 1 || !json;
    let limit = args.limit.unwrap_or(if paged { PAGE } else { usize::MAX });
    let offset = (args.page - 1).saturating_mul(limit);
    let page = store.list_page(&scope, &filter, limit, offset)?;
    let shown = page.memories.len();
    let next = (offset + shown < usize::try_from(page.total).unwrap_or(usize::MAX))
        .then(|| next_command(&args, json));
    if json {
        let memories: Vec<serde_json::Value> = page
            .memories
            .iter()
            .map(|l| {
                let mut row = serde_json::to_value(l)?;
                row["age"] = json!(age(now - l.memory.created_at.seconds()).short());
                Ok(row)
            })
            .collect::<Result<_>>()?;
        return super::print_json(&json!({
            "memories": memories,
            "total": page.total,
            "offset": offset,
            "limit": paged.then_some(limit),
            "next": next,
        }));
    }
    if page.total == 0 {
        return say_none(&store, &scope, &args);
    }
    for listed in &page.memories {
        outln!("{}", row(listed, now));
    }
    if shown == 0 {
        let pages = usize::try_from(page.total)
            .unwrap_or(usize::MAX)
            .div_ceil(limit);
        outln!(
            "page {} is past the end: {} memories make {pages} page(s) of {limit}",
            args.page,
            page.total
        );
        return Ok(());
    }
    match next {
        Some(next) => outln!(
            "showing {}–{} of {}; next: {next}",
            offset + 1,
            offset + shown,
            page.total
        ),
        None => outln!(
            "showing {}–{} of {}",
            offset + 1,
            offset + shown,
            page.total
        ),
    }
    Ok(())
}

/// One line: id, age, source, state, the opening line.
fn row(listed: &Listed, now: i64) -> String {
    let m = &listed.memory;
    let state = match (&m.forgotten_at, m.superseded_by) {
        (Some(_), _) => " [forgotten]".to_owned(),
        (None, Some(by)) => format!(" [superseded by {by}]"),
        (None, None) => String::new(),
    };
    let scope = if m.project.is_none() { " (global)" } else { "" };
    format!(
        "{:>6}  {:>4}  {:<6}{scope}{state}  {}",
        m.id,
        age(now - m.created_at.seconds()).short(),
        listed.source_kind.as_str(),
        super::headline(&m.body, 100)
    )
}

/// Say that nothing is listed, and where it looked.
fn say_none(store: &crate::store::Store, scope: &crate::store::Scope, args: &Args) -> Result<()> {
    let dir = store.dir().display();
    let filtered = args.source.is_some() || args.since.is_some() || args.stale;
    if filtered {
        outln!("no memories here match (try without --source, --since or --stale)");
        return Ok(());
    }
    match scope.key() {
        Some(key) => {
            outln!("no memories yet for project {key}, nor global ones, in the data folder {dir}")
        }
        None => outln!("no global memories yet in the data folder {dir}"),
    }
    Ok(())
}

/// The kind `--source` names, or an error listing the kinds.
fn source_kind(text: &str) -> Result<SourceKind> {
    SourceKind::parse(text).with_context(|| {
        let kinds: Vec<&str> = SourceKind::ALL.iter().map(|k| k.as_str()).collect();
        format!(
            "--source {text:?} is not a kind of source; the kinds are {}",
            kinds.join(", ")
        )
    })
}

/// The second since the epoch that `--since WHEN` means, `now` being now: a duration back
/// from now, or a date (its midnight, UTC) or a time.
fn since(when: &str, now: i64) -> Result<i64> {
    let refused = || {
        anyhow::anyhow!(
            "--since {when:?} is neither a duration back from now (30m, 12h, 7d, 2w, 3mo, 1y) \
             nor a date (2026-11-01)"
        )
    };
    let digits = when
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(when.len());
    let (count, unit) = when.split_at(digits);
    let unit_seconds = match unit {
        "m" | "min" => Some(60),
        "h" => Some(3_600),
        "d" => Some(86_400),
        "w" => Some(7 * 86_400),
        "mo" => Some(30 * 86_400),
        "y" => Some(365 * 86_400),
        _ => None,
    };
    if let (Ok(count), Some(seconds)) = (count.parse::<i64>(), unit_seconds) {
        return Ok(now.saturating_sub(count.saturating_mul(seconds)));
    }
    if let Ok(date) = when.parse::<jiff::civil::Date>() {
        let midnight = date
            .to_zoned_datetime(jiff::tz::TimeZone::UTC)
            .with_context(|| format!("--since {when:?} is past the dates a time can hold"))?;
        return Ok(midnight.timestamp().as_second());
    }
    if let Ok(time) = when.parse::<jiff::Timestamp>() {
        return Ok(time.as_second());
    }
    Err(refused())
}

/// The command that shows the next page: these arguments with the page after this one.
fn next_command(args: &Args, json: bool) -> String {
    let mut words = vec!["synapse".to_owned(), "list".to_owned()];
    if let Some(project) = &args.place.project {
        words.extend(["--project".to_owned(), quoted(project)]);
    }
    if args.all {
        words.push("--all".to_owned());
    }
    if let Some(source) = &args.source {
        words.extend(["--source".to_owned(), quoted(source)]);
    }
    if let Some(since) = &args.since {
        words.extend(["--since".to_owned(), quoted(since)]);
    }
    if args.stale {
        words.push("--stale".to_owned());
    }
    if let Some(limit) = args.limit.filter(|&l| l != PAGE) {
        words.extend(["--limit".to_owned(), limit.to_string()]);
    }
    words.extend(["--page".to_owned(), (args.page + 1).to_string()]);
    if json {
        words.push("--json".to_owned());
    }
    words.join(" ")
}

/// `text` as one shell word.
fn quoted(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:@+=".contains(c));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[rstest::rstest]
    #[case::hours("12h", 1_000_000 - 12 * 3_600)]
    #[case::days("7d", 1_000_000 - 7 * 86_400)]
    #[case::months("1mo", 1_000_000 - 30 * 86_400)]
    #[case::minutes("30m", 1_000_000 - 30 * 60)]
    #[case::a_date("2026-11-01", 1_793_491_200)]
    #[case::a_time("2026-11-01T12:00:00Z", 1_793_491_200 + 12 * 3_600)]
    fn since_reads_a_duration_or_a_date(#[case] when: &str, #[case] second: i64) {
        assert_eq!(since(when, 1_000_000).unwrap(), second);
    }

    #[rstest::rstest]
    #[case::no_unit("7")]
    #[case::an_unknown_unit("7x")]
    #[case::words("last week")]
    #[case::a_bad_date("2026-13-01")]
    #[case::empty("")]
    fn since_refuses_anything_else(#[case] when: &str) {
        let err = since(when, 1_000_000).unwrap_err().to_string();
        assert!(err.contains("neither a duration"), "{err}");
    }

    #[test]
    fn a_value_with_spaces_is_quoted_for_the_shell() {
        assert_eq!(quoted("/home/u/app"), "/home/u/app");
        assert_eq!(quoted("/home/u/my app"), "'/home/u/my app'");
        assert_eq!(quoted("it's"), r"'it'\''s'");
    }
}
