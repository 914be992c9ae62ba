//! Every duration setting (`timeout`, `wait`), from a flag or the config file, in one
//! grammar: a number of seconds (`30`, `2.5`; in the file also a TOML integer or float) or a
//! duration with units (`30s`, `500ms`, `5m`, `1h 30m`). Surrounding whitespace is not part
//! of it. Each setting has its own bounds.

use std::fmt;
use std::time::Duration;

use serde::Deserialize;

/// A duration key as the config file holds it: text, or a TOML number of seconds.
#[derive(Debug, Clone, PartialEq)]
pub enum DurationValue {
    /// A string: a duration with units, or a bare number of seconds.
    Text(String),
    /// A TOML integer: whole seconds (negative ones are refused when resolved).
    Seconds(i64),
    /// A TOML float: seconds.
    Fraction(f64),
}

impl<'de> Deserialize<'de> for DurationValue {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = DurationValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a duration such as \"30s\" or \"5m\", or a number of seconds")
            }
            fn visit_str<E>(self, v: &str) -> Result<DurationValue, E> {
                Ok(DurationValue::Text(v.to_owned()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<DurationValue, E> {
                Ok(DurationValue::Seconds(v))
            }
            // Beyond i64 is far beyond any bound: refused when resolved, as too long (or
            // negative).
            fn visit_u64<E>(self, v: u64) -> Result<DurationValue, E> {
                Ok(DurationValue::Seconds(i64::try_from(v).unwrap_or(i64::MAX)))
            }
            fn visit_i128<E>(self, v: i128) -> Result<DurationValue, E> {
                Ok(DurationValue::Seconds(match v < 0 {
                    true => i64::MIN,
                    false => i64::MAX,
                }))
            }
            fn visit_u128<E>(self, _: u128) -> Result<DurationValue, E> {
                Ok(DurationValue::Seconds(i64::MAX))
            }
            fn visit_f64<E>(self, v: f64) -> Result<DurationValue, E> {
                Ok(DurationValue::Fraction(v))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// What one duration setting accepts, and how its messages name it. A refusal's text never
/// quotes the value (a config value may be a secret pasted in the wrong place); a flag's
/// message quotes it itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bounds {
    /// The setting's name in messages: `timeout`, `wait`.
    pub(crate) name: &'static str,
    /// The shortest accepted.
    pub(crate) min: Duration,
    /// The longest accepted.
    pub(crate) max: Duration,
    /// The range as people read it, e.g. `from 0.001 to 3600 seconds`.
    pub(crate) range: &'static str,
    /// The longest as people read it, e.g. `24h`.
    pub(crate) max_text: &'static str,
    /// The shortest as people read it.
    pub(crate) min_text: &'static str,
}

/// Each attempt's timeout: a millisecond to an hour.
pub(crate) const TIMEOUT: Bounds = Bounds {
    name: "timeout",
    min: Duration::from_millis(1),
    max: Duration::from_secs(3600),
    range: "from 0.001 to 3600 seconds",
    max_text: "3600 seconds (1h)",
    min_text: "0.001 seconds (1ms)",
};

/// How long a not-final transaction is asked again: nothing to a day.
pub(crate) const WAIT: Bounds = Bounds::up_to_a_day("wait");

/// How long a reference the service keeps throttling is asked again: nothing to a day.
pub(crate) const GIVE_UP_AFTER: Bounds = Bounds::up_to_a_day("give_up_after");

/// How far back `history --changed --since` looks: nothing to ten years.
pub(crate) const SINCE: Bounds = Bounds {
    name: "since",
    min: Duration::ZERO,
    max: Duration::from_secs(3650 * 24 * 3600),
    range: "from 0 to 3650 days",
    max_text: "3650 days",
    min_text: "0",
};

impl Bounds {
    /// A setting `name` from nothing to a day.
    const fn up_to_a_day(name: &'static str) -> Bounds {
        Bounds {
            name,
            min: Duration::ZERO,
            max: Duration::from_secs(24 * 3600),
            range: "from 0 to 24h",
            max_text: "24h",
            min_text: "0",
        }
    }

    fn unreadable(&self) -> String {
        format!(
            "is not a duration such as 90s, 5m or 1h, or a number of seconds; a {} is {}",
            self.name, self.range
        )
    }

    fn negative(&self) -> String {
        format!("is negative; a {} is {}", self.name, self.range)
    }

    fn too_long(&self) -> String {
        format!(
            "is longer than the longest {}, {}",
            self.name, self.max_text
        )
    }

    /// `secs` when it is within bounds.
    fn seconds(&self, secs: f64) -> Result<Duration, String> {
        if secs.is_nan() {
            return Err(self.unreadable());
        }
        if secs < 0.0 {
            return Err(self.negative());
        }
        let duration = Duration::try_from_secs_f64(secs).map_err(|_| self.too_long())?;
        self.within(duration)
    }

    fn within(&self, duration: Duration) -> Result<Duration, String> {
        if duration > self.max {
            Err(self.too_long())
        } else if duration < self.min {
            Err(format!(
                "is shorter than the shortest {}, {}",
                self.name, self.min_text
            ))
        } else {
            Ok(duration)
        }
    }

    /// A duration written as text (a flag, or a config string): `30`, `2.5`, `30s`, `500ms`,
    /// `5m`, `1h 30m`; surrounding whitespace ignored. An exponent (`1e3`), a sign or a
    /// unit humantime does not know is refused.
    pub(crate) fn parse(&self, text: &str) -> Result<Duration, String> {
        let t = text.trim();
        if t.starts_with('-') {
            return Err(self.negative());
        }
        if is_plain_number(t) {
            // Digits, at most one point: f64 reads them, and a huge one is too long.
            return t
                .parse::<f64>()
                .map_err(|_| self.unreadable())
                .and_then(|secs| self.seconds(secs));
        }
        match humantime::parse_duration(t) {
            Ok(duration) => self.within(duration),
            Err(humantime::DurationError::NumberOverflow) => Err(self.too_long()),
            Err(_) => Err(self.unreadable()),
        }
    }

    /// A duration as the config file holds it.
    pub(crate) fn read_config(&self, value: &DurationValue) -> Result<Duration, String> {
        match value {
            DurationValue::Text(text) => self.parse(text),
            DurationValue::Seconds(secs) => match u64::try_from(*secs) {
                Ok(secs) => self.within(Duration::from_secs(secs)),
                Err(_) => Err(self.negative()),
            },
            DurationValue::Fraction(secs) => match secs.is_finite() {
                true => self.seconds(*secs),
                false => Err(self.unreadable()),
            },
        }
    }
}

/// Digits with at most one `.` between digits: `30`, `2.5`; not `.5`, `5.`, `1e3`, `+5`.
fn is_plain_number(t: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    match t.split_once('.') {
        None => digits(t),
        Some((whole, fraction)) => digits(whole) && digits(fraction),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_reads_the_same_duration() {
        let secs = Duration::from_secs;
        for (text, want) in [
            ("30", secs(30)),
            ("30s", secs(30)),
            ("30 s", secs(30)),
            (" 30s ", secs(30)),
            ("30s\n", secs(30)),
            ("0.5", Duration::from_millis(500)),
            ("500ms", Duration::from_millis(500)),
            ("1.5s", Duration::from_millis(1500)),
            ("1m", secs(60)),
            ("1h", secs(3600)),
            ("3600", secs(3600)),
        ] {
            assert_eq!(TIMEOUT.parse(text), Ok(want), "{text:?}");
        }
        for (value, want) in [
            (DurationValue::Text("30s".into()), secs(30)),
            (DurationValue::Seconds(30), secs(30)),
            (DurationValue::Fraction(30.0), secs(30)),
            (DurationValue::Fraction(0.25), Duration::from_millis(250)),
            (DurationValue::Fraction(1e3), secs(1000)),
        ] {
            assert_eq!(TIMEOUT.read_config(&value), Ok(want), "{value:?}");
        }
        assert_eq!(WAIT.parse("5m"), Ok(secs(300)));
        assert_eq!(WAIT.parse("1h 30m"), Ok(secs(5400)));
        assert_eq!(WAIT.read_config(&DurationValue::Seconds(0)), Ok(secs(0)));
        assert_eq!(WAIT.parse("0"), Ok(secs(0)));
        assert_eq!(WAIT.parse("86400"), Ok(WAIT.max));
    }

    #[test]
    fn near_misses_are_refused_with_the_reason() {
        let refused = |b: &Bounds, text: &str| b.parse(text).unwrap_err();
        for text in [
            "",
            " ",
            "1e3",
            "+5",
            ".5",
            "5.",
            "1.2.3",
            "30 parsecs",
            "NaN",
            "inf",
        ] {
            assert!(
                refused(&TIMEOUT, text).starts_with("is not a duration such as 90s, 5m or 1h"),
                "{text:?}: {}",
                refused(&TIMEOUT, text)
            );
            assert!(refused(&TIMEOUT, text).contains("from 0.001 to 3600 seconds"));
        }
        for text in ["-1s", "-1", " -0.5", "-0"] {
            assert!(refused(&WAIT, text).starts_with("is negative"), "{text:?}");
        }
        for text in [
            "3601",
            "1h 1ms",
            "99999999999999999999",
            "99999999999999999999999s",
        ] {
            assert_eq!(
                refused(&TIMEOUT, text),
                "is longer than the longest timeout, 3600 seconds (1h)",
                "{text:?}"
            );
        }
        assert_eq!(
            refused(&WAIT, "25h"),
            "is longer than the longest wait, 24h"
        );
        for text in ["0", "0s", "0.0001", "1ns"] {
            assert!(
                refused(&TIMEOUT, text).starts_with("is shorter than"),
                "{text:?}"
            );
        }
        for value in [
            DurationValue::Seconds(-1),
            DurationValue::Seconds(i64::MIN),
            DurationValue::Fraction(-0.5),
        ] {
            assert!(
                WAIT.read_config(&value)
                    .unwrap_err()
                    .starts_with("is negative")
            );
        }
        for value in [
            DurationValue::Seconds(i64::MAX),
            DurationValue::Fraction(1e300),
            DurationValue::Fraction(f64::MAX),
        ] {
            assert!(
                WAIT.read_config(&value)
                    .unwrap_err()
                    .contains("longest wait")
            );
        }
        for value in [
            DurationValue::Fraction(f64::NAN),
            DurationValue::Fraction(f64::INFINITY),
        ] {
            assert!(
                TIMEOUT
                    .read_config(&value)
                    .unwrap_err()
                    .starts_with("is not a duration")
            );
        }
    }
}
