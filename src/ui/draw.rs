//! Drawing the state of `synapse ui` with ratatui's widgets: the list (or the screen over it), the
//! search line, the status line, and the key list on top when asked for.
//!
//! Drawing reads the state and nothing else: no store, no clock but the one that ages rows.
//! Text from memories and findings is shown through `text::visible` (the rows, openings and pages
//! are made so in `rows` and `app`): ratatui would drop a control character silently, and a
//! direction override would reorder what the reader sees.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell, Clear, Paragraph, Row, Table, TableState};
use ratatui::Frame;

use super::app::{App, Drift, History, Reading, View};
use super::rows::State;
use crate::drift::Finding;
use crate::text::age::age;
use crate::text::visible;

/// The lines around the list: the title, the table's header, the search line and the status.
const CHROME: u16 = 4;

/// How many rows of the list fit in a screen `height` lines high.
pub fn list_rows(height: u16) -> usize {
    usize::from(height.saturating_sub(CHROME)).max(1)
}

/// Every key, as `?` lists them.
pub const KEYS: &[(&str, &str)] = &[
    (
        "↑ ↓  j k",
        "move (PgUp PgDn a screen, Home End / g G the ends)",
    ),
    (
        "/",
        "search with recall's ranking as you type; Enter keeps the answers",
    ),
    (
        "Esc",
        "clear the search; close a screen (read, history, drift)",
    ),
    ("Enter", "read the selected memory whole, a page at a time"),
    (
        "  n p",
        "in a memory: the next and the previous page (← → too)",
    ),
    (
        "a",
        "all: list superseded and forgotten memories too (again: live only)",
    ),
    ("f", "forget the selected memory (undo: r)"),
    ("r", "restore it: undo its latest forget or supersede"),
    ("h", "its history: every recorded change"),
    ("s", "share it with the team (.synapse/memories.jsonl)"),
    (
        "d",
        "drift: stale, conflicting and duplicate memories, with their certainty",
    ),
    (
        "  s f x",
        "on a finding: supersede the older, forget it, or dismiss the finding",
    ),
    ("?", "this list"),
    ("q", "quit (Ctrl-C too)"),
];

pub fn draw(frame: &mut Frame, app: &App) {
    let [title, main, search, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(frame.area());
    let now = crate::store::now();
    let (heading, hint) = match app.views.last() {
        None => {
            draw_list(frame, main, app, now);
            (
                "memories",
                "/ search · Enter read · d drift · ? keys · q quit",
            )
        }
        Some(View::Read(reading)) => {
            draw_reading(frame, main, reading);
            ("reading", "n p pages · Esc back · q quit")
        }
        Some(View::History(history)) => {
            draw_history(frame, main, history);
            ("history", "Esc back · q quit")
        }
        Some(View::Drift(drift)) => {
            draw_drift(frame, main, drift);
            (
                "drift",
                "s supersede older · f/F forget older/newer · x dismiss · Enter read · Esc back",
            )
        }
    };
    frame.render_widget(
        Line::from(vec![
            Span::from(" synapse ui ").bold().reversed(),
            Span::from(format!(" {heading} ")).bold(),
            Span::from(hint).dim(),
        ]),
        title,
    );
    frame.render_widget(search_line(app), search);
    frame.render_widget(status_line(app), status);
    if app.help {
        draw_help(frame, frame.area());
    }
}

fn search_line(app: &App) -> Line<'_> {
    if app.query.is_empty() && !app.typing {
        return Line::from(" / to search").dim();
    }
    let mut line = Line::from(vec![
        Span::from(" / ").bold(),
        Span::from(visible(&app.query)),
    ]);
    if app.typing {
        line.push_span(Span::from("█"));
    }
    line.push_span(
        Span::from(format!(
            "   {} answer(s), ranked as synapse recall ranks them; Esc clears",
            app.rows.rows.len()
        ))
        .dim(),
    );
    line
}

fn status_line(app: &App) -> Line<'_> {
    let project = app.scope.key().unwrap_or("global memories only");
    let which = if app.rows.all { "in all" } else { "live" };
    Line::from(vec![
        Span::from(format!(" {project} · {} {which} ", app.count)).reversed(),
        Span::from(format!(" {}", visible(&app.status))),
    ])
}

fn draw_list(frame: &mut Frame, area: Rect, app: &App, now: i64) {
    let list = &app.rows;
    let shown = list.rows.iter().skip(list.top).take(area.height.into());
    let rows = shown.map(|r| {
        let (state, style) = match r.state {
            State::Live => (String::new(), Style::new()),
            State::Superseded(by) => (format!("→{by}"), Style::new().dim()),
            State::Forgotten => ("forgotten".to_owned(), Style::new().dim().crossed_out()),
        };
        let place = if r.global { "global" } else { "" };
        Row::new(vec![
            Cell::from(r.id.to_string()),
            Cell::from(age(now - r.created_at).short()),
            Cell::from(crate::text::cut_chars(&r.source, 16).to_owned()),
            Cell::from(place),
            Cell::from(state),
            Cell::from(r.opening.as_str()),
        ])
        .style(style)
    });
    let header = Row::new(["id", "age", "source", "scope", "state", "first line"]).bold();
    let table = Table::new(
        rows,
        [
            Constraint::Length(6),
            Constraint::Length(4),
            Constraint::Length(16),
            Constraint::Length(6),
            Constraint::Length(9),
            Constraint::Fill(1),
        ],
    )
    .header(header)
    .row_highlight_style(Style::new().add_modifier(Modifier::REVERSED))
    .highlight_symbol("> ");
    let mut state = TableState::default().with_selected(
        list.selected
            .checked_sub(list.top)
            .filter(|_| !list.rows.is_empty() && list.selected >= list.top),
    );
    frame.render_stateful_widget(table, area, &mut state);
    if list.rows.is_empty() {
        let empty = if app.query.is_empty() {
            "no memories here yet (a: superseded and forgotten ones too)"
        } else {
            "no memory matches"
        };
        let below = Rect {
            y: area.y + 1,
            height: area.height.saturating_sub(1),
            ..area
        };
        frame.render_widget(Paragraph::new(format!(" {empty}")).dim(), below);
    }
}

fn draw_reading(frame: &mut Frame, area: Rect, reading: &Reading) {
    let page = &reading.page;
    let end = page.offset + page.body.len();
    let more = match page.next {
        Some(_) => "n: next page",
        None => "end",
    };
    let title = format!(
        " memory {} · {} · bytes {}..{end} of {} · {more} ",
        page.id,
        visible(&page.source),
        page.offset,
        page.total
    );
    let block = Block::bordered().title(title);
    let inner = block.inner(area);
    let lines: Vec<Line> = reading
        .lines
        .iter()
        .skip(reading.scroll)
        .take(inner.height.into())
        .map(|l| Line::from(l.as_str()))
        .collect();
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

fn draw_history(frame: &mut Frame, area: Rect, history: &History) {
    let title = format!(" history of {}: {} ", history.id, history.opening);
    let lines: Vec<Line> = history
        .entries
        .iter()
        .map(|e| {
            let other = match (e.action.as_str(), e.other_id) {
                ("import", Some(batch)) => format!(" (batch {batch})"),
                (_, Some(other)) => format!(" ({other})"),
                (_, None) => String::new(),
            };
            Line::from(format!("{}  {}{other}", e.at, e.action))
        })
        .collect();
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(title)),
        area,
    );
}

fn draw_drift(frame: &mut Frame, area: Rect, drift: &Drift) {
    let [list, details] = Layout::vertical([Constraint::Min(3), Constraint::Length(4)]).areas(area);
    if drift.findings.is_empty() {
        frame.render_widget(
            Paragraph::new(" no drift: nothing stale, conflicting or repeated"),
            list,
        );
        return;
    }
    let height = usize::from(list.height.saturating_sub(1)).max(1);
    let top = drift.selected.saturating_sub(height - 1);
    let rows = drift.findings.iter().skip(top).take(height).map(|f| {
        let pair = match f.newer {
            Some(newer) => format!("{} → {newer}", f.id),
            None => f.id.to_string(),
        };
        Row::new(vec![
            Cell::from(format!("{:?}", f.kind).to_lowercase()),
            Cell::from(f.certainty.word()),
            Cell::from(pair),
            Cell::from(visible(&f.why)),
        ])
    });
    let table = Table::new(
        rows,
        [
            Constraint::Length(9),
            Constraint::Length(8),
            Constraint::Length(14),
            Constraint::Fill(1),
        ],
    )
    .header(Row::new(["kind", "how sure", "older → newer", "why"]).bold())
    .row_highlight_style(Style::new().add_modifier(Modifier::REVERSED))
    .highlight_symbol("> ");
    let mut state = TableState::default().with_selected(Some(drift.selected - top));
    frame.render_stateful_widget(table, list, &mut state);
    if let Some(finding) = drift.findings.get(drift.selected) {
        frame.render_widget(finding_details(drift, finding), details);
    }
}

/// The opening lines of the memories a finding names.
fn finding_details<'a>(drift: &'a Drift, finding: &Finding) -> Paragraph<'a> {
    let opening = |id: i64| drift.openings.get(&id).map_or("", String::as_str);
    let mut lines = vec![Line::from(format!(
        " {}",
        visible(finding.describe().lines().next().unwrap_or(""))
    ))];
    match finding.newer {
        Some(newer) => {
            lines.push(Line::from(format!(
                " older {}: {}",
                finding.id,
                opening(finding.id)
            )));
            lines.push(Line::from(format!(" newer {newer}: {}", opening(newer))));
        }
        None => lines.push(Line::from(format!(
            " {}: {}",
            finding.id,
            opening(finding.id)
        ))),
    }
    Paragraph::new(lines).block(Block::new().borders(ratatui::widgets::Borders::TOP))
}

fn draw_help(frame: &mut Frame, area: Rect) {
    let width = 84.min(area.width);
    let height = (KEYS.len() as u16 + 2).min(area.height);
    let popup = Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    };
    let lines: Vec<Line> = KEYS
        .iter()
        .map(|(key, what)| {
            Line::from(vec![
                Span::from(format!(" {key:<9}")).bold(),
                Span::from(*what),
            ])
        })
        .collect();
    frame.render_widget(Clear, popup);
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" keys (any key closes) ")),
        popup,
    );
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_list_leaves_room_for_its_chrome() {
        assert_eq!(super::list_rows(40), 36);
        assert_eq!(super::list_rows(2), 1);
    }
}
