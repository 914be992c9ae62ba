//! The sandbox as a rate-limited gateway: a token bucket in front of the verify operation,
//! changeable while it runs, with per-second counts a test or a benchmark can read.
//!
//! `POST /sandbox/rate-limit?rate=20/s&burst=5&status=503&retry-after=none` changes it
//! (`rate=off` lifts it; parameters not given are kept), `GET /sandbox/rate-limit` shows it,
//! and `GET /sandbox/stats` gives the counts: verify requests and throttled answers, in
//! total and for each second since the sandbox started.

use std::sync::Mutex;
use std::time::Instant;

use serde_json::{Value, json};

/// How a rate-limited sandbox throttles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateLimit {
    /// Tokens added per second.
    pub per_second: f64,
    /// Tokens the bucket holds when full: the burst a client may send at once.
    pub burst: u32,
    /// The status of a throttled answer: 429 or 503.
    pub status: u16,
    /// The `Retry-After` a throttled answer carries, in seconds; `None` for none.
    pub retry_after: Option<u32>,
}

impl RateLimit {
    /// A limit of `per_second`, a burst of one second's worth, 429 with `Retry-After: 1`.
    pub fn new(per_second: f64) -> Self {
        RateLimit {
            per_second,
            burst: default_burst(per_second),
            status: 429,
            retry_after: Some(1),
        }
    }

    /// How it reads in the banner and the control's answers.
    pub fn describe(&self) -> String {
        let after = match self.retry_after {
            Some(secs) => format!(" with Retry-After: {secs}"),
            None => " without Retry-After".to_owned(),
        };
        format!(
            "{}/s, burst {}: HTTP {}{after} when exceeded",
            trim_float(self.per_second),
            self.burst,
            self.status
        )
    }

    fn json(limit: Option<&RateLimit>) -> Value {
        match limit {
            None => json!({ "rate_limit": null }),
            Some(l) => json!({
                "rate_limit": {
                    "per_second": l.per_second,
                    "burst": l.burst,
                    "status": l.status,
                    "retry_after": l.retry_after,
                }
            }),
        }
    }
}

/// The default burst: one second's worth of requests, at least one.
pub fn default_burst(per_second: f64) -> u32 {
    per_second.ceil().clamp(1.0, f64::from(u32::MAX)) as u32
}

/// A rate as `--rate-limit` and the control take it: `50`, `50/s`, `0.5/s` or `600/m`.
pub fn parse_rate(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let (number, per) = match t.split_once('/') {
        Some((n, "s")) => (n, 1.0),
        Some((n, "m")) => (n, 60.0),
        Some(_) => return Err(format!("'{text}' is not a rate such as 50/s or 600/m")),
        None => (t, 1.0),
    };
    match number.trim().parse::<f64>() {
        Ok(n) if n.is_finite() && n > 0.0 && n / per >= 0.001 && n / per <= 100_000.0 => {
            Ok(n / per)
        }
        _ => Err(format!(
            "'{text}' is not a rate from 0.001/s to 100000/s, such as 50/s or 600/m"
        )),
    }
}

/// The token bucket and the counts.
#[derive(Debug)]
pub(crate) struct Throttle {
    started: Instant,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    limit: Option<RateLimit>,
    tokens: f64,
    refilled: Instant,
    requests: u64,
    throttled: u64,
    /// Verify requests and throttled answers in each second since the start.
    seconds: Vec<(u32, u32)>,
}

/// What a verify request gets from the bucket: nothing (go on), or the throttled answer's
/// status and `Retry-After`.
pub(crate) type Verdict = Option<(u16, Option<u32>)>;

impl Throttle {
    pub(crate) fn new(limit: Option<RateLimit>) -> Self {
        let now = Instant::now();
        Throttle {
            started: now,
            state: Mutex::new(State {
                tokens: limit.map_or(0.0, |l| f64::from(l.burst)),
                limit,
                refilled: now,
                requests: 0,
                throttled: 0,
                seconds: Vec::new(),
            }),
        }
    }

    /// Counts one verify request and takes a token for it.
    pub(crate) fn take(&self) -> Verdict {
        let now = Instant::now();
        let second = now.duration_since(self.started).as_secs() as usize;
        let Ok(mut state) = self.state.lock() else {
            return None;
        };
        state.requests += 1;
        if state.seconds.len() <= second {
            state.seconds.resize(second + 1, (0, 0));
        }
        state.seconds[second].0 += 1;
        let limit = state.limit?;
        let elapsed = now.duration_since(state.refilled).as_secs_f64();
        state.tokens = (state.tokens + elapsed * limit.per_second).min(f64::from(limit.burst));
        state.refilled = now;
        if state.tokens >= 1.0 {
            state.tokens -= 1.0;
            return None;
        }
        state.throttled += 1;
        state.seconds[second].1 += 1;
        Some((limit.status, limit.retry_after))
    }

    /// Answers a request for the control endpoints (`/sandbox/...`): `None` for any other
    /// path. The status and the JSON body.
    pub(crate) fn control(&self, method: &str, target: &str) -> Option<(u16, Value)> {
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        let path = path.strip_prefix("/sandbox/")?;
        let Ok(mut state) = self.state.lock() else {
            return Some((500, json!({ "message": "the sandbox's state is unusable" })));
        };
        Some(match (method, path) {
            ("GET", "stats") => {
                let seconds: Vec<Value> = state
                    .seconds
                    .iter()
                    .map(|(requests, throttled)| json!([requests, throttled]))
                    .collect();
                let mut body = json!({
                    "requests": state.requests,
                    "throttled": state.throttled,
                    "per_second": seconds,
                });
                body["rate_limit"] = RateLimit::json(state.limit.as_ref())["rate_limit"].take();
                (200, body)
            }
            ("GET", "rate-limit") => (200, RateLimit::json(state.limit.as_ref())),
            ("POST" | "PUT", "rate-limit") => match changed(state.limit, query) {
                Ok(limit) => {
                    // A new limit starts with a full bucket of its own burst.
                    state.tokens = limit.map_or(0.0, |l| f64::from(l.burst));
                    state.refilled = Instant::now();
                    state.limit = limit;
                    (200, RateLimit::json(limit.as_ref()))
                }
                Err(why) => (400, json!({ "message": why })),
            },
            (_, "stats" | "rate-limit") => (
                405,
                json!({ "message": "GET reads it; POST /sandbox/rate-limit?rate=... changes it" }),
            ),
            _ => (
                404,
                json!({ "message": "no such control: use /sandbox/rate-limit or /sandbox/stats" }),
            ),
        })
    }
}

/// `limit` changed by the query `rate=20/s&burst=5&status=503&retry-after=none`
/// (`rate=off` lifts it).
fn changed(limit: Option<RateLimit>, query: &str) -> Result<Option<RateLimit>, String> {
    let mut limit = limit;
    let mut rest = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match key {
            "rate" if value == "off" => limit = None,
            "rate" => {
                let per_second = parse_rate(value)?;
                limit = Some(match limit {
                    Some(l) => RateLimit { per_second, ..l },
                    None => RateLimit::new(per_second),
                });
            }
            _ => rest.push((key, value)),
        }
    }
    for (key, value) in rest {
        let Some(l) = limit.as_mut() else {
            return Err(format!("{key}: there is no rate limit; set rate= first"));
        };
        match key {
            "burst" => {
                l.burst = value
                    .parse::<u32>()
                    .ok()
                    .filter(|b| *b >= 1)
                    .ok_or_else(|| format!("burst '{value}' is not a whole number from 1"))?;
            }
            "status" => {
                l.status = match value {
                    "429" => 429,
                    "503" => 503,
                    _ => return Err(format!("status '{value}' is not 429 or 503")),
                };
            }
            "retry-after" => {
                l.retry_after = match value {
                    "none" => None,
                    secs => Some(secs.parse::<u32>().map_err(|_| {
                        format!("retry-after '{secs}' is not whole seconds or none")
                    })?),
                };
            }
            other => return Err(format!("unknown parameter '{other}'")),
        }
    }
    Ok(limit)
}

fn trim_float(f: f64) -> String {
    let text = format!("{f:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_parse_per_second_and_per_minute() {
        assert_eq!(parse_rate("50/s"), Ok(50.0));
        assert_eq!(parse_rate(" 50 "), Ok(50.0));
        assert_eq!(parse_rate("600/m"), Ok(10.0));
        assert_eq!(parse_rate("0.5/s"), Ok(0.5));
        for bad in [
            "", "0", "-1/s", "50/h", "x/s", "inf", "NaN", "1e9", "50/s/s",
        ] {
            assert!(parse_rate(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_bucket_allows_its_burst_then_throttles() {
        let limit = RateLimit {
            per_second: 0.001,
            burst: 3,
            status: 503,
            retry_after: None,
        };
        let throttle = Throttle::new(Some(limit));
        let got: Vec<Verdict> = (0..5).map(|_| throttle.take()).collect();
        assert_eq!(
            got,
            [None, None, None, Some((503, None)), Some((503, None))]
        );
        let (status, stats) = throttle.control("GET", "/sandbox/stats").unwrap();
        assert_eq!(status, 200);
        assert_eq!(stats["requests"], 5);
        assert_eq!(stats["throttled"], 2);
        assert_eq!(stats["per_second"][0], json!([5, 2]));
    }

    #[test]
    fn the_control_changes_the_limit_and_refuses_nonsense() {
        let throttle = Throttle::new(None);
        assert_eq!(throttle.take(), None);
        let (status, body) = throttle
            .control(
                "POST",
                "/sandbox/rate-limit?rate=0.001/s&burst=1&retry-after=none",
            )
            .unwrap();
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["rate_limit"]["burst"], 1);
        assert_eq!(throttle.take(), None);
        assert_eq!(throttle.take(), Some((429, None)));
        for bad in [
            "?rate=fast",
            "?burst=0",
            "?status=500",
            "?retry-after=-1",
            "?colour=red",
        ] {
            let (status, _) = throttle
                .control("POST", &format!("/sandbox/rate-limit{bad}"))
                .unwrap();
            assert_eq!(status, 400, "{bad}");
        }
        let (status, _) = throttle
            .control("POST", "/sandbox/rate-limit?rate=off")
            .unwrap();
        assert_eq!(status, 200);
        assert_eq!(throttle.take(), None);
        assert_eq!(throttle.control("GET", "/api/payment/verify/x"), None);
        assert_eq!(
            throttle.control("DELETE", "/sandbox/stats").map(|r| r.0),
            Some(405)
        );
    }
}
