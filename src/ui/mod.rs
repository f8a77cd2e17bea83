//! `synapse ui`: a terminal view of the memory a folder sees. It owns the view's state and keys
//! (`app`), the list it reads a chunk at a time (`rows`), its drawing (`draw`), and the terminal
//! while it runs: raw mode and the alternate screen, given back on exit, on an error and on a
//! panic.
//!
//! It reads and writes through the same store functions as the command line, so what it changes
//! is in each memory's history and can be undone with `synapse restore`.

pub mod app;
pub mod draw;
pub mod rows;

use std::io::Stdout;

use anyhow::{Context, Result};
use crossterm::event::{Event, KeyEventKind};
use crossterm::terminal::{EnterAlternateScreen, LeaveAlternateScreen};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;

pub use app::App;

/// Run the view on this terminal until the reader quits.
pub fn run(app: &mut App) -> Result<()> {
    let mut screen = Screen::enter()?;
    loop {
        let size = screen
            .terminal
            .size()
            .context("could not read the terminal's size")?;
        app.fit(
            draw::list_rows(size.height),
            usize::from(size.width).saturating_sub(2),
        );
        screen
            .terminal
            .draw(|frame| draw::draw(frame, app))
            .context("could not draw on the terminal")?;
        if app.done {
            return Ok(());
        }
        // A resize or any other event just redraws.
        if let Event::Key(key) = crossterm::event::read().context("could not read a key")? {
            if key.kind != KeyEventKind::Release {
                app.on_key(key);
            }
        }
    }
}

/// The terminal in raw mode on the alternate screen, given back as it was when dropped (on
/// return or on an error) and by the panic hook (before the panic's message is printed, so it
/// can be read).
struct Screen {
    terminal: Terminal<CrosstermBackend<Stdout>>,
}

impl Screen {
    fn enter() -> Result<Screen> {
        crossterm::terminal::enable_raw_mode().context("could not put the terminal in raw mode")?;
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            give_back();
            hook(info);
        }));
        let mut stdout = std::io::stdout();
        let screen = crossterm::execute!(stdout, EnterAlternateScreen)
            .context("could not switch to the alternate screen")
            .and_then(|()| {
                Terminal::new(CrosstermBackend::new(stdout)).context("could not start drawing")
            });
        match screen {
            Ok(terminal) => Ok(Screen { terminal }),
            Err(e) => {
                give_back();
                Err(e)
            }
        }
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        give_back();
    }
}

/// Raw mode off, the main screen back, the cursor shown. Called from a drop and a panic hook,
/// where a failure can only be said.
fn give_back() {
    let restored = crossterm::terminal::disable_raw_mode().and_then(|()| {
        crossterm::execute!(
            std::io::stdout(),
            LeaveAlternateScreen,
            crossterm::cursor::Show
        )
    });
    if let Err(e) = restored {
        eprintln!("synapse: could not restore the terminal ({e}); `reset` does");
    }
}

#[cfg(test)]
mod tests;
