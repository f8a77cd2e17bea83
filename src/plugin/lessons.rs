//! Lessons marked for keeping: in a reply, a line starting `remember:` (any case, after optional
//! list markers) or the text of a `<remember>...</remember>` block (`marked`); in a prompt the
//! user typed, a line starting `remember:` outside a code fence (`typed`). What they may hold in
//! the way of secrets is masked where every memory is stored (`record`).

/// One lesson marked in a reply: its text, and the memories the writer said it replaces
/// (`remember (replaces #12): ...`, `<remember replaces="12">`; issue 33).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lesson {
    pub text: String,
    pub replaces: Vec<i64>,
}

/// The lessons marked in `message`, in order, trimmed, empty ones dropped.
pub fn marked(message: &str) -> Vec<Lesson> {
    marked_texts(message)
        .into_iter()
        .map(|text| Lesson {
            text,
            replaces: Vec::new(),
        })
        .collect()
}

/// The text of each lesson marked in `message`.
fn marked_texts(message: &str) -> Vec<String> {
    const OPEN: &str = "<remember>";
    const CLOSE: &str = "</remember>";
    let mut found = Vec::new();
    let mut rest = message;
    while let Some((_, after)) = rest.split_once(OPEN) {
        let Some((lesson, tail)) = after.split_once(CLOSE) else {
            break;
        };
        found.push(lesson.trim().to_owned());
        rest = tail;
    }
    for line in message.lines() {
        let line = line.trim_start_matches(|c: char| c.is_whitespace() || "-*>".contains(c));
        let Some((label, lesson)) = line.split_once(':') else {
            continue;
        };
        if label.eq_ignore_ascii_case("remember") {
            found.push(lesson.trim().to_owned());
        }
    }
    found.retain(|l| !l.is_empty());
    found
}

/// What the user marked for keeping in a prompt: each line that starts with `remember:` (any
/// case, after white space), outside a fenced code block, with what follows the colon trimmed.
/// A prompt is the user's own words, so only this plain form counts: a quoted line, a list item
/// or a tag may be text the user is asking about.
pub fn typed(prompt: &str) -> Vec<String> {
    let mut fenced = false;
    let mut found = Vec::new();
    for line in prompt.lines() {
        let line = line.trim_start();
        if line.starts_with("```") || line.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        let Some((label, lesson)) = line.split_once(':') else {
            continue;
        };
        if !fenced && label.eq_ignore_ascii_case("remember") && !lesson.trim().is_empty() {
            found.push(lesson.trim().to_owned());
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_marked_lessons() {
        let reply = "Done.\nremember: Run migrations with `make migrate`\n- Remember: pool is 20\n\
                     <remember>Staging deploys\nneed approval</remember>\nnot remember: this";
        assert_eq!(
            marked_texts(reply),
            [
                "Staging deploys\nneed approval",
                "Run migrations with `make migrate`",
                "pool is 20"
            ]
        );
    }

    #[test]
    fn multibyte_text_anywhere_is_no_problem() {
        // A byte index inside a character once made the Stop hook panic.
        let reply = "ñ\nremember: the staging password=\"ñu-2024\" rotates\nRémember: é\n\
                     <remember>日本語</remember><remember>unclosed";
        assert_eq!(
            marked_texts(reply),
            ["日本語", "the staging password=\"ñu-2024\" rotates"]
        );
    }

    #[test]
    fn a_prompt_keeps_only_its_own_plain_remember_lines() {
        let prompt =
            "Why does CI fail?\nremember: we never deploy on Fridays\n  REMEMBER:  pool is 20 \n\
                      ```yaml\nremember: true\n```\n- remember: a list item\n> remember: a quote\n\
                      remember:\nplease remember: this";
        assert_eq!(typed(prompt), ["we never deploy on Fridays", "pool is 20"]);
        assert!(typed("~~~\nremember: x\n~~~").is_empty());
    }
}
