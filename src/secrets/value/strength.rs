//! How strong a value is, not whether it is one: what it is made of ([`Classes`]: cased and
//! uncased letters, digits, punctuation, and how often letters and digits alternate), its
//! entropy and number of distinct bytes, and whether its letters read like words and CamelCase
//! ([`wordy`], [`camel_like`]) or like letters drawn at random ([`random_case`], [`switching`]).
//! The tiers in [`value`](super) weigh these against the place a value stands in; kept apart
//! from the exclusions so that a change to a threshold never touches what is ruled out.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

/// What a value is made of.
#[derive(Default, Debug)]
pub(super) struct Classes {
    pub chars: usize,
    pub lower: usize,
    pub upper: usize,
    /// Letters without case (CJK and the like).
    pub uncased: usize,
    pub digit: usize,
    /// Punctuation other than the separators `._-/:`: `!#$%&*+=?@^~` and the like.
    pub strong: usize,
    /// The separators `._-/:`.
    pub sep: usize,
    /// Adjacent letter/digit changes (`a1b2` has 3).
    pub alternations: usize,
}

impl Classes {
    pub fn of(v: &str) -> Classes {
        let mut c = Classes::default();
        // 0 none, 1 lower, 2 upper, 3 digit, 4 other letter, 5 punctuation
        let mut last = 0u8;
        for ch in v.chars() {
            c.chars += 1;
            let class = if ch.is_ascii_digit() {
                c.digit += 1;
                3
            } else if ch.is_lowercase() {
                c.lower += 1;
                1
            } else if ch.is_uppercase() {
                c.upper += 1;
                2
            } else if ch.is_alphabetic() {
                c.uncased += 1;
                4
            } else {
                if matches!(ch, '.' | '_' | '-' | '/' | ':') {
                    c.sep += 1;
                } else {
                    c.strong += 1;
                }
                5
            };
            let letter = |k: u8| matches!(k, 1 | 2 | 4);
            if (letter(last) && class == 3) || (last == 3 && letter(class)) {
                c.alternations += 1;
            }
            last = class;
        }
        c
    }

    pub(super) fn letters(&self) -> usize {
        self.lower + self.upper + self.uncased
    }

    /// How many of lower, upper, digit and punctuation occur (uncased letters count as lower).
    pub(super) fn kinds(&self) -> usize {
        usize::from(self.lower + self.uncased > 0)
            + usize::from(self.upper > 0)
            + usize::from(self.digit > 0)
            + usize::from(self.strong + self.sep > 0)
    }
}

/// Shannon entropy of the bytes of `v`, in bits per byte.
pub(in crate::secrets) fn entropy(v: &[u8]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for &b in v {
        if let Some(n) = counts.get_mut(usize::from(b)) {
            *n += 1;
        }
    }
    let total = v.len() as f64;
    counts
        .iter()
        .filter(|&&n| n > 0)
        .map(|&n| {
            let p = f64::from(n) / total;
            -p * p.log2()
        })
        .sum()
}

/// How many different bytes `v` holds (a value of three or fewer is a fill or a pattern, not a
/// key).
pub(super) fn distinct(v: &[u8]) -> usize {
    let mut seen = [false; 256];
    let mut n = 0;
    for &b in v {
        if let Some(s) = seen.get_mut(usize::from(b)) {
            if !*s {
                *s = true;
                n += 1;
            }
        }
    }
    n
}

/// A letter run that reads like CamelCase or a word (`TokenStore`, `getElementById`,
/// `HTTPServer`), not like letters drawn at random: random mixed case puts two capitals
/// together between lowercase letters (`hqUdCLKIxk`).
fn camel_like(run: &[u8]) -> bool {
    let lower = run.iter().any(u8::is_ascii_lowercase);
    let upper = run.iter().any(u8::is_ascii_uppercase);
    if !(lower && upper) {
        return true;
    }
    // two capitals together after a lowercase letter
    !run.windows(3).any(|w| {
        matches!(w, [a, b, c] if a.is_ascii_lowercase() && b.is_ascii_uppercase() && c.is_ascii_uppercase())
    })
}

/// A run of letters that reads like a word or an identifier (`getElementById`, `GITHUB`,
/// `PostgreSQL`), not like letters drawn at random (`QXwTRbnvKpLm`).
pub(in crate::secrets) fn wordy(piece: &str) -> bool {
    let c = Classes::of(piece);
    if c.upper == 0 || c.lower == 0 {
        return true;
    }
    // CamelCase, and no long run of consonants (`SecretString`, `getElementById`)
    let b = piece.as_bytes();
    let consonants = b
        .split(|c| !c.is_ascii_alphabetic())
        .map(consonant_run)
        .max()
        .unwrap_or(0);
    camel_like(b) && consonants <= 4
}

/// Some run of letters in `b` reads like letters drawn at random, not like a word ([`wordy`]):
/// random-looking case (`hqUdCLKIxk`), or cases mixed around five consonants in a row (`qDfjm`).
fn random_case(b: &[u8]) -> bool {
    b.split(|x| !x.is_ascii_alphabetic())
        .any(|run| run.len() >= 3 && std::str::from_utf8(run).is_ok_and(|r| !wordy(r)))
}

/// Lowercase letters drawn at random, not a word (`hzmqtrvwk`, not `postgres` or `strengths`):
/// eight to 64, six of them different (not `xxxxxxxx`), with at most one vowel in five and five
/// consonants or more in a row. Words in any Latin language have a vowel in every few letters.
pub(in crate::secrets) fn random_lowercase(v: &str) -> bool {
    let b = v.as_bytes();
    let vowels = b.iter().filter(|c| b"aeiouy".contains(c)).count();
    (8..=64).contains(&b.len())
        && b.iter().all(u8::is_ascii_lowercase)
        && distinct(b) >= 6
        && vowels * 5 <= b.len()
        && consonant_run(b) >= 5
}

/// The longest run of consonants in a run of letters.
fn consonant_run(run: &[u8]) -> usize {
    run.split(|c| b"aeiouyAEIOUY".contains(c))
        .map(<[u8]>::len)
        .max()
        .unwrap_or(0)
}

/// Letters and digits switching often (not `S3Bucket2`, `EC2Instance3`), or letters in
/// random case.
pub(super) fn switching(c: &Classes, b: &[u8]) -> bool {
    c.alternations >= 4 || random_case(b)
}
