use super::*;

fn texts(reply: &str) -> Vec<String> {
    marked(reply).into_iter().map(|l| l.text).collect()
}

#[test]
fn finds_marked_lessons() {
    let reply = "Done.\nremember: Run migrations with `make migrate`\n- Remember: pool is 20\n\
                 <remember>Staging deploys\nneed approval</remember>\nnot remember: this";
    assert_eq!(
        texts(reply),
        [
            "Run migrations with `make migrate`",
            "pool is 20",
            "Staging deploys\nneed approval",
        ]
    );
}

#[test]
fn multibyte_text_anywhere_is_no_problem() {
    // A byte index inside a character once made the Stop hook panic.
    let reply = "ñ\nremember: the staging password=\"ñu-2024\" rotates\nRémember: é\n\
                 <remember>日本語の文は空白なし</remember><remember>unclosed";
    assert_eq!(
        texts(reply),
        [
            "the staging password=\"ñu-2024\" rotates",
            "日本語の文は空白なし"
        ]
    );
}

#[test]
fn marks_in_code_fences_count_for_nothing() {
    let reply = "```yaml\nremember: keep the cache warm between runs\n```\n\
                 ~~~~\n<remember>the staging queue drains hourly</remember>\n~~~\nstill fenced: \
                 ~~~ is shorter\nremember: the fence is still open here\n~~~~\n\
                 remember: the fence closed with a run as long as its opening";
    assert_eq!(
        texts(reply),
        ["the fence closed with a run as long as its opening"]
    );
    // A fence indented under a list item is still a fence.
    assert!(texts("1. Edit it:\n   ```yaml\n   remember: keep it on\n   ```").is_empty());
}

#[test]
fn indented_code_counts_for_nothing_but_a_list_item_may_be_indented() {
    let shown = "An example:\n\n    remember: the example reply ends like this one\n";
    assert!(texts(shown).is_empty());
    assert!(texts("Output:\n\n\tremember: the tab makes this code\n").is_empty());
    // Indented past a list item's content only by less than 4 columns: part of the item.
    let item = "- Ran the checks:\n\n    remember: the checks need a warm cache first\n";
    assert_eq!(texts(item), ["the checks need a warm cache first"]);
    // An indented line right under a paragraph continues it.
    let paragraph = "Done.\n    remember: the paragraph goes on in this line\n";
    assert_eq!(texts(paragraph), ["the paragraph goes on in this line"]);
    // A paragraph back at the margin after a blank line closes the list.
    let closed = "- item\n\nBack out.\n\n    remember: a code line after the list\n";
    assert!(texts(closed).is_empty());
}

#[test]
fn a_block_quote_counts_for_nothing_up_to_its_blank_line() {
    let reply = "> remember: an old note the user quoted\nstill the quote's paragraph\n\
                 remember: also inside the quote, by continuation\n> <remember>a quoted block \
                 lesson</remember>\n\nremember: the new lesson after the quote";
    assert_eq!(texts(reply), ["the new lesson after the quote"]);
}

#[test]
fn inline_code_spans_count_for_nothing() {
    let reply = "`remember: shown as code`\nWrite `<remember>shown as code</remember>` or \
                 ``<remember>two ticks ` here</remember>``.";
    assert!(texts(reply).is_empty());
    // A code span inside a lesson is part of it.
    let reply = "<remember>Run `make db` before `make test` always</remember>";
    assert_eq!(texts(reply), ["Run `make db` before `make test` always"]);
}

#[test]
fn markup_around_the_label_is_stripped() {
    let reply = "**Remember:** the cache is cold after deploys\n\
                 **Remember**: the queue is shared by both apps\n\
                 __remember__: tests share one database\n\
                 *Remember: lint before pushing tags*\n\
                 - **remember:** bullets work too\n* remember: and stars as bullets\n\
                 + remember: and plus signs\n12. remember: numbered items as well\n\
                 3) remember: with a parenthesis too\n## Remember: a heading is a title";
    assert_eq!(
        texts(reply),
        [
            "the cache is cold after deploys",
            "the queue is shared by both apps",
            "tests share one database",
            "lint before pushing tags",
            "bullets work too",
            "and stars as bullets",
            "and plus signs",
            "numbered items as well",
            "with a parenthesis too",
        ]
    );
    // What the markup left behind alone is not a lesson (issue 33 stored `** bold`).
    assert!(texts("**Remember:** bold").is_empty());
}

#[test]
fn placeholders_ellipses_and_values_are_not_lessons() {
    for text in [
        "<the lesson>",
        "[text]",
        "{lesson}",
        "`<lesson>`",
        "<what broke>…",
        "TEXT",
        "...",
        "…",
        "true",
        "false",
        "null",
        "42",
        "3.14",
        "YOUR_LESSON",
        "{{lesson}}",
        "v2",
        "2606:4700::1111",
        "\"yes\"",
        "** __",
        "日本語",
    ] {
        assert!(texts(&format!("remember: {text}")).is_empty(), "{text}");
        assert!(
            texts(&format!("<remember>{text}</remember>")).is_empty(),
            "{text}"
        );
    }
    // Brackets inside a lesson are its text, not a placeholder.
    for text in [
        "`Vec<T>` is not `Send` here",
        "[staging] and [prod] differ",
        "use {project}/cache for builds",
        "ワーカーは再起動が必要",
        "deploy: ok",
        "POOL_SIZE=20",
        "docs/adr/0007.md",
        "nameserver 10.0.0.2",
        "{\"retries\": 8}",
    ] {
        assert_eq!(texts(&format!("remember: {text}")), [text]);
    }
}

#[test]
fn a_lesson_that_is_only_a_secret_is_not_kept() {
    let token = "ghp_Qx7TzL0aVb3NcR8mK2pW5sY9dF4gH6jE1uIo";
    assert_ne!(
        secrets::mask(token).text,
        token,
        "the detector must know this shape"
    );
    assert!(texts(&format!("remember: {token}")).is_empty());
    // Words beside it are kept, to be masked where the memory is stored.
    assert_eq!(marked(&format!("remember: token {token}")).len(), 1);
    let named = format!("remember: the CI token is {token}, rotated monthly");
    assert_eq!(marked(&named).len(), 1);
    assert!(typed(&format!("remember: {token}")).is_empty());
}

#[test]
fn replaces_are_read_from_the_label_and_the_tag() {
    let reply = "remember (replaces #12): retries stop after 8 attempts\n\
                 **Remember (replaces 15, #21):** the TTL is 300 seconds\n\
                 REMEMBER (Replaces 4 4): ids named twice count once\n\
                 <remember replaces=\"7\">deploys go through the release job</remember>\n\
                 <remember replaces='3, 9'>logs are kept for two weeks</remember>";
    let got: Vec<(String, Vec<i64>)> = marked(reply)
        .into_iter()
        .map(|l| (l.text, l.replaces))
        .collect();
    let want = [
        ("retries stop after 8 attempts", vec![12]),
        ("the TTL is 300 seconds", vec![15, 21]),
        ("ids named twice count once", vec![4]),
        ("deploys go through the release job", vec![7]),
        ("logs are kept for two weeks", vec![3, 9]),
    ];
    assert_eq!(got, want.map(|(t, r)| (t.to_owned(), r)));
}

#[test]
fn a_malformed_replace_is_no_lesson() {
    let reply = "remember (replaces #N): the new lesson\n\
                 remember (replaces): nothing named here\n\
                 remember (replaces #0): not an id at all\n\
                 remember (see #12): not a replace\n\
                 <remember replaces=\"N\">the new lesson</remember>\n\
                 <remember id=\"4\">another attribute</remember>\n\
                 <remembering>a longer tag</remembering>";
    assert!(texts(reply).is_empty());
}

#[test]
fn lessons_come_in_the_order_they_stand_and_a_block_holds_its_lines() {
    let reply = "<remember>the first one stands here</remember>\n\
                 remember: the second one is a line\n\
                 <remember>\nremember: a line inside a block\nbelongs to it\n</remember>";
    assert_eq!(
        texts(reply),
        [
            "the first one stands here",
            "the second one is a line",
            "remember: a line inside a block\nbelongs to it",
        ]
    );
}

#[test]
fn a_prompt_drops_placeholders_but_keeps_short_words() {
    let prompt = "remember: <the lesson>\nremember: ...\nremember: [text]\nremember: pnpm\n\
                  \n    remember: pasted code\n";
    assert_eq!(typed(prompt), ["pnpm"]);
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

/// The numbers of the notes `text` holds as `remember: note number N ...` lines that lessons,
/// the cut of a source file into memories, and its imports (`@docs/N.md` on the same line) each
/// see as text rather than code.
fn seen_as_text(text: &str) -> [Vec<usize>; 3] {
    let number = |s: &str| -> Option<usize> {
        let rest = s.split("note number ").nth(1)?;
        rest.split(' ').next()?.parse().ok()
    };
    let lessons = marked(text)
        .iter()
        .filter_map(|l| number(&l.text))
        .collect();
    let cut = crate::sources::split::sections(text, 1, 100)
        .iter()
        .filter(|c| c.text.starts_with("remember: note number"))
        .filter_map(|c| number(&c.text))
        .collect();
    let imports = crate::sources::split::imports(text)
        .iter()
        .filter_map(|path| {
            path.strip_prefix("docs/")?
                .strip_suffix(".md")?
                .parse()
                .ok()
        })
        .collect();
    [lessons, cut, imports]
}

/// One Markdown reader: a lesson is marked, a file's list item becomes a memory of its own and
/// an import is followed on the same lines, and never in code. (A quote is shown, not said, so
/// it holds no lesson and no memory of its own; the client follows imports there, so the
/// quoted note names none.)
#[rstest::rstest]
#[case::a_fence_opened_by_a_nested_item(
    "- Setup:\n  - ```sh\n    - remember: note number 1 in the fence @docs/1.md\n    ```\n\
     - remember: note number 2 after the fence @docs/2.md",
    &[2]
)]
#[case::a_fence_opened_by_an_item(
    "- ```\n- remember: note number 1 in the fence @docs/1.md\n```\n\
     - remember: note number 2 after it @docs/2.md",
    &[2]
)]
#[case::tildes_and_backticks(
    "~~~\n- remember: note number 1 in tildes @docs/1.md\n```\n\
     - remember: note number 2 still in tildes @docs/2.md\n~~~\n\
     - remember: note number 3 after them @docs/3.md",
    &[3]
)]
#[case::an_unclosed_fence(
    "- remember: note number 1 before it @docs/1.md\n\n```\n\
     - remember: note number 2 in it @docs/2.md",
    &[1]
)]
#[case::indented_code_after_a_list(
    "- remember: note number 1 in the list @docs/1.md\n\nBack to text.\n\n\
     \x20   - remember: note number 2 in indented code @docs/2.md\n\n\
     - remember: note number 3 in a new list @docs/3.md",
    &[1, 3]
)]
#[case::an_indented_fence_is_code_not_a_fence(
    "Text.\n\n    ```\n- remember: note number 1 after the code @docs/1.md",
    &[1]
)]
#[case::html_comments(
    "<!-- hidden:\n- remember: note number 1 in the comment @docs/1.md\n-->\n\
     - remember: note number 2 after it @docs/2.md",
    &[2]
)]
#[case::a_comment_opening_in_a_code_span(
    "Write `<!--` to hide a line.\n- remember: note number 1 not hidden @docs/1.md\n-->",
    &[1]
)]
#[case::quotes(
    "> - remember: note number 1 quoted\n> quoted text\nstill the quote\n\
     - remember: note number 2 after the quote @docs/2.md",
    &[2]
)]
fn lessons_and_source_files_agree_on_what_is_code(#[case] text: &str, #[case] want: &[usize]) {
    let [lessons, cut, imports] = seen_as_text(text);
    assert_eq!(lessons, want, "lessons of {text:?}");
    assert_eq!(cut, want, "memories cut from {text:?}");
    assert_eq!(imports, want, "imports of {text:?}");
}
