//! How common a word is in English at large: a fixed prior for term statistics.
//!
//! A word's weight in recall comes from how many of the scope's memories hold it. In a project of
//! a few hundred memories that count says little about ordinary words: "also" held by one memory
//! weighs as much as a project's own jargon. English at large knows better, so recall adds to each
//! count what this list predicts (`recall::lanes::smoothed_df`). The list is wordfreq's 10,000
//! commonest English words (`english/NOTICE`; `english/make.py` writes it), sorted by byte and
//! searched in place: no parsing, no allocation, nothing done at start-up.

const LIST: &str = include_str!("english/words.tsv");

/// The share of running English text that is `word` (folded, as `text::fold` gives it), or 0
/// for a word outside the list: one in a million words is 1e-6.
pub fn share(word: &str) -> f64 {
    zipf(word).map_or(0.0, |z| 10f64.powf(z - 9.0))
}

/// The word's Zipf frequency (log10 of its occurrences in a billion words), by binary search over
/// the sorted lines of `LIST`.
fn zipf(word: &str) -> Option<f64> {
    let bytes = LIST.as_bytes();
    let (mut lo, mut hi) = (0, bytes.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let start = bytes[..mid]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let end = bytes[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |i| start + i);
        let line = &bytes[start..end];
        let tab = line.iter().position(|&b| b == b'\t')?;
        match line[..tab].cmp(word.as_bytes()) {
            std::cmp::Ordering::Equal => {
                return std::str::from_utf8(&line[tab + 1..]).ok()?.parse().ok()
            }
            std::cmp::Ordering::Less => lo = end + 1,
            std::cmp::Ordering::Greater => hi = start,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The binary search needs every line well formed and the lines in strictly rising byte order.
    #[test]
    fn the_list_is_sorted_and_every_line_parses() {
        let lines: Vec<&str> = LIST.lines().collect();
        assert_eq!(lines.len(), 10_000);
        for pair in lines.windows(2) {
            assert!(pair[0].as_bytes() < pair[1].as_bytes(), "{pair:?}");
        }
        for line in &lines {
            let (word, listed) = line.split_once('\t').expect("word, tab, frequency");
            let listed: f64 = listed.parse().expect("a number");
            assert!((0.0..9.0).contains(&listed), "{line}");
            assert_eq!(zipf(word), Some(listed), "{word} is found where it stands");
        }
    }

    #[test]
    fn ordinary_words_are_common_and_jargon_is_absent() {
        assert!(share("the") > 0.01, "about one word in twenty");
        assert!(share("also") > share("database"));
        assert!(share("database") > 0.0);
        for absent in ["reranker", "kubectl", "", "zzzz", "The"] {
            assert_eq!(share(absent), 0.0, "{absent:?}");
        }
    }
}
