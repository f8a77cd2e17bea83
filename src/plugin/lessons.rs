//! Lessons the assistant marks in a reply: a line starting `remember:` (any case, after optional
//! list markers) or the text of a `<remember>...</remember>` block. What they may hold in the
//! way of secrets is masked where every memory is stored (`secrets`).

/// The lessons marked in `message`, in order, trimmed, empty ones dropped.
pub fn marked(message: &str) -> Vec<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_marked_lessons() {
        let reply = "Done.\nremember: Run migrations with `make migrate`\n- Remember: pool is 20\n\
                     <remember>Staging deploys\nneed approval</remember>\nnot remember: this";
        assert_eq!(
            marked(reply),
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
            marked(reply),
            ["日本語", "the staging password=\"ñu-2024\" rotates"]
        );
    }
}
