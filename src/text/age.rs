//! How long ago a memory was written, said one way everywhere: the blocks the hooks inject, the
//! MCP tools, `synapse list`, `synapse ui` and the close memories `remember` names all count in
//! the same steps, so one memory shows one age (`2w` in a list is "2 weeks ago" in a block).

/// The step an age is counted in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    Now,
    Minutes,
    Hours,
    Days,
    Weeks,
    Months,
    Years,
}

/// An age: `count` of `unit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Age {
    count: i64,
    unit: Unit,
}

/// The age of something written `seconds` ago (a clock behind counts as now): minutes and hours
/// within a day, days up to two weeks, weeks up to two months, months up to a year, then years.
pub fn age(seconds: i64) -> Age {
    let seconds = seconds.max(0);
    let (minutes, hours, days) = (seconds / 60, seconds / 3_600, seconds / 86_400);
    let (count, unit) = match days {
        0 if hours == 0 && minutes == 0 => (0, Unit::Now),
        0 if hours == 0 => (minutes, Unit::Minutes),
        0 => (hours, Unit::Hours),
        1..=13 => (days, Unit::Days),
        14..=59 => (days / 7, Unit::Weeks),
        60..=364 => (days / 30, Unit::Months),
        _ => (days / 365, Unit::Years),
    };
    Age { count, unit }
}

impl Age {
    /// One short word, for a column: `now`, `5m`, `5h`, `3d`, `2w`, `2mo`, `1y`.
    pub fn short(self) -> String {
        let n = self.count;
        match self.unit {
            Unit::Now => "now".to_owned(),
            Unit::Minutes => format!("{n}m"),
            Unit::Hours => format!("{n}h"),
            Unit::Days => format!("{n}d"),
            Unit::Weeks => format!("{n}w"),
            Unit::Months => format!("{n}mo"),
            Unit::Years => format!("{n}y"),
        }
    }

    /// In words, for a reader (a model, a sentence): "today" within a day, then "yesterday",
    /// "3 days ago", "2 weeks ago", "5 months ago", "1 year ago".
    pub fn said(self) -> String {
        let n = self.count;
        let unit = match self.unit {
            Unit::Now | Unit::Minutes | Unit::Hours => return "today".to_owned(),
            Unit::Days if n == 1 => return "yesterday".to_owned(),
            Unit::Days => "day",
            Unit::Weeks => "week",
            Unit::Months => "month",
            Unit::Years => "year",
        };
        let s = if n == 1 { "" } else { "s" };
        format!("{n} {unit}{s} ago")
    }
}

#[cfg(test)]
mod tests {
    use super::age;

    const DAY: i64 = 86_400;

    #[rstest::rstest]
    #[case::a_clock_ahead(-30, "now", "today")]
    #[case::just_now(59, "now", "today")]
    #[case::minutes(5 * 60 + 3, "5m", "today")]
    #[case::hours(5 * 3_600, "5h", "today")]
    #[case::one_day(DAY + 7 * 3_600, "1d", "yesterday")]
    #[case::days(3 * DAY, "3d", "3 days ago")]
    #[case::thirteen_days(13 * DAY, "13d", "13 days ago")]
    #[case::weeks(20 * DAY, "2w", "2 weeks ago")]
    #[case::months(70 * DAY, "2mo", "2 months ago")]
    #[case::a_year(400 * DAY, "1y", "1 year ago")]
    #[case::years(800 * DAY, "2y", "2 years ago")]
    fn one_age_is_said_short_and_in_words_in_the_same_steps(
        #[case] seconds: i64,
        #[case] short: &str,
        #[case] said: &str,
    ) {
        assert_eq!(age(seconds).short(), short);
        assert_eq!(age(seconds).said(), said);
    }
}
