//! What the example programs share.

/// A made-up creation time for the `minute`-th generated memory: one minute apart, in 2026.
pub fn minute_stamp(minute: i64) -> String {
    format!(
        "2026-{:02}-{:02}T{:02}:{:02}:00Z",
        1 + (minute / 43_200) % 12,
        1 + (minute / 1_440) % 28,
        (minute / 60) % 24,
        minute % 60
    )
}
