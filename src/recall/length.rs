//! How much a matched term says of a memory, given the memory's length.
//!
//! A term's weight (`fuse::weight`) is what finding it in a memory of the scope's average length
//! says: a rare term says much, a common one little. A much longer text holds any term by chance
//! more often (a pasted log of a thousand words holds most of a question's words, whatever it is
//! about), so finding a term there says less. Take such a memory as a run of note-length pieces,
//! in each of which a term turns up as often as it does in the scope's memories: one of `r`
//! pieces holds a term that a share `p` of the memories hold with the chance `1 - (1 - p)^r`, and
//! holding it weighs what it weighs for a term that many memories hold.
//!
//! A note is up to `NOTE_SPAN` times the scope's average length: notes vary nearly that much (the
//! longest of the labeled sets' are 3 to 6 times their set's average), and a longer note usually
//! says more, not less: counted in pieces of the average length, LoCoMo's turns of 2 to 3 times
//! the average lost answers on its dev half. Pasted logs and documents are tens to thousands of
//! times the average. So a memory up to `NOTE_SPAN` times the average keeps every weight as it
//! was, and a longer one counts as pieces of `NOTE_SPAN` average memories: the statistic only
//! discounts, and the order of ordinary notes does not move.
//!
//! Recall counts a candidate's coverage with these weights (`fuse`), ranks its word-lane bm25 by
//! the share of its held terms' weight its length keeps (bm25 is a sum, over the held terms, of
//! an idf times a saturated frequency, each idf being the weight at the average length), and the
//! hooks' coverage floor and their order of a prompt's hits count held terms so weighed
//! (`Hit::coverage_at_length`).

use super::fuse::weight;
use crate::store::index::Size;

/// How many times the scope's average length a note may be: longer, a memory is weighed as
/// pieces of this many average memories (see the module's comment). Measured on the dev halves of
/// the labeled sets: at 1 LoCoMo lost answers, at 2 the coding set lost one, at 4 platform's
/// unanswerable questions got a result more; at 8 every figure is as without the statistic, and
/// pasted logs still rank below the notes that match as well (docs/relevance.md).
pub const NOTE_SPAN: f64 = 8.0;

/// A memory's length, as recall weighs its terms: how many note-length pieces it is (a note is
/// one), counted in the words the index holds of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Length {
    ratio: f64,
}

impl Length {
    /// The length of a memory whose indexed text is `head` (its body, or the head of a longer
    /// one) and `source`, in a scope whose memories have `average` words each on average.
    pub fn of(head: &str, source: &str, average: f64) -> Length {
        let words = Size::of(head, source).words as f64;
        Length {
            ratio: (words / (NOTE_SPAN * average.max(1.0))).max(1.0),
        }
    }

    /// What holding a term that `df` of the scope's `total` memories hold (`lanes::smoothed_df`)
    /// weighs in a memory of this length: `fuse::weight` at the average length or below, less
    /// the longer the memory.
    pub fn weight(self, df: f64, total: i64) -> f64 {
        if self.ratio <= 1.0 {
            return weight(df, total);
        }
        let all = total.max(1) as f64;
        let share = (df / all).clamp(0.0, 1.0);
        let by_chance = 1.0 - (1.0 - share).powf(self.ratio);
        weight(by_chance * all, total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn length(ratio: f64) -> Length {
        Length { ratio }
    }

    #[test]
    fn up_to_the_average_a_term_weighs_what_it_always_did() {
        for df in [0.0, 1.0, 12.5, 300.0, 1000.0] {
            assert_eq!(length(1.0).weight(df, 1000), weight(df, 1000));
        }
        let short = Length::of("a short note", "cli", 30.0);
        assert_eq!(short, length(1.0));
        let long_note = Length::of(&"word ".repeat(200), "cli", 30.0);
        assert_eq!(long_note, length(1.0), "six times the average is a note");
    }

    #[test]
    fn the_longer_the_memory_the_less_a_term_it_holds_weighs() {
        let (df, total) = (20.0, 10_000);
        let at = |ratio: f64| length(ratio).weight(df, total);
        assert!(at(1.0) > at(2.0) && at(2.0) > at(40.0) && at(40.0) > at(4_000.0));
        assert!(at(4_000.0) < 0.01 * at(1.0), "{}", at(4_000.0));
        // Twice the average: the chance of holding it about doubles, a loss of about ln 2.
        assert!((at(1.0) - at(2.0) - std::f64::consts::LN_2).abs() < 0.05);
    }

    #[test]
    fn a_rare_term_keeps_more_of_its_weight_than_a_common_one() {
        let share = |df: f64| length(40.0).weight(df, 10_000) / weight(df, 10_000);
        assert!(share(2.0) > share(50.0) && share(50.0) > share(500.0));
    }

    #[test]
    fn a_long_text_is_measured_in_average_memories() {
        let log = "2026-03-01 worker-3 webhook delivery 48213 attempt 2 queued\n".repeat(100);
        let long = Length::of(&log, "pasted log", 20.0);
        assert!(long.ratio > 5.0, "{long:?}");
    }
}
