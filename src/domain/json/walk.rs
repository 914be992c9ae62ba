//! One pass over untrusted JSON text: the structure (objects, arrays, commas, colons) read
//! here, each scalar handed to serde_json on its own, so no object ever reaches serde_json's
//! `Value` (which reads an object holding one of its private tokens as a number or raw
//! JSON). Limits and duplicate keys are checked in document order as the text is read, and a
//! malformed text gets serde_json's own words for its first fault, at the place serde_json
//! would name.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};

use serde::de::IgnoredAny;
use serde_json::map::Entry;
use serde_json::{Map, Value};

use super::BodyError;

/// `text` as one JSON value, built when `build` (else checked only, and `Value::Null` comes
/// back): refused past `max_values` values (scalars and containers, each one) or
/// `max_depth` levels of nesting, or when an object, at any depth, has a key twice.
pub(super) fn walk(
    text: &[u8],
    max_values: usize,
    max_depth: usize,
    build: bool,
) -> Result<Value, BodyError> {
    let mut walk = Walk {
        text,
        at: 0,
        values: 0,
        max_values,
        max_depth,
        build,
    };
    let whole = walk.value(0).and_then(|value| {
        walk.blank();
        match walk.at < text.len() {
            true => Err(Stop::Malformed),
            false => Ok(value),
        }
    });
    whole.map_err(|stop| match stop {
        Stop::Refused(refused) => refused,
        // The walk and serde_json read the same grammar, so serde_json's first fault is the
        // one the walk stopped at; serde_json words it and places it.
        Stop::Malformed => BodyError::NotJson(match serde_json::from_slice::<Skipped>(text) {
            Err(e) => e.to_string(),
            Ok(_) => format!("unexpected text at byte {}", walk.at),
        }),
    })
}

/// The keys a built top-level object has room for from the start: the Verify Transaction
/// answer's (the sandbox's has 15).
const TOP_KEYS: usize = 16;

/// Why a walk stopped.
enum Stop {
    /// Well-formed so far, but refused (a key twice, too many values, too deep).
    Refused(BodyError),
    /// Not JSON at the cursor.
    Malformed,
}

/// A walk's cursor and tallies.
struct Walk<'a> {
    text: &'a [u8],
    /// The next byte to read.
    at: usize,
    /// Values read so far, in the whole document.
    values: usize,
    max_values: usize,
    max_depth: usize,
    build: bool,
}

impl<'a> Walk<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    /// Skips JSON white space.
    fn blank(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// Counts one value.
    fn count(&mut self) -> Result<(), Stop> {
        self.values += 1;
        match self.values > self.max_values {
            true => Err(Stop::Refused(BodyError::TooComplex(format!(
                "it holds more than {} JSON values",
                self.max_values
            )))),
            false => Ok(()),
        }
    }

    /// Counts a container at `depth` and gives its members' depth.
    fn enter(&mut self, depth: usize) -> Result<usize, Stop> {
        self.count()?;
        match depth + 1 > self.max_depth {
            true => Err(Stop::Refused(BodyError::TooComplex(format!(
                "it nests deeper than {} levels",
                self.max_depth
            )))),
            false => Ok(depth + 1),
        }
    }

    /// The value at the cursor, inside `depth` containers.
    fn value(&mut self, depth: usize) -> Result<Value, Stop> {
        self.blank();
        let value = match self.peek() {
            Some(b'{') => return self.object(depth),
            Some(b'[') => return self.array(depth),
            Some(b'"') => match self.string()? {
                text if self.build => Value::String(text.into_owned()),
                _ => Value::Null,
            },
            Some(b'-' | b'0'..=b'9') => {
                let number =
                    self.run(|b| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'));
                // A number alone is no object, so serde_json's own reading (which keeps its
                // text, `arbitrary_precision`) cannot take it for anything else.
                match self.build {
                    true => serde_json::from_slice::<Value>(number).map_err(|_| Stop::Malformed)?,
                    false => serde_json::from_slice::<IgnoredAny>(number)
                        .map(|_| Value::Null)
                        .map_err(|_| Stop::Malformed)?,
                }
            }
            Some(b'a'..=b'z') => match self.run(|b| b.is_ascii_lowercase()) {
                b"true" => Value::Bool(true),
                b"false" => Value::Bool(false),
                b"null" => Value::Null,
                _ => return Err(Stop::Malformed),
            },
            _ => return Err(Stop::Malformed),
        };
        self.count()?;
        Ok(value)
    }

    /// The bytes from the cursor on that `part` takes, the cursor moved past them.
    fn run(&mut self, part: impl Fn(u8) -> bool) -> &'a [u8] {
        let start = self.at;
        while self.peek().is_some_and(&part) {
            self.at += 1;
        }
        &self.text[start..self.at]
    }

    /// The string at the cursor (on its opening quote), decoded; borrowed from the text
    /// when it has no escape.
    fn string(&mut self) -> Result<Cow<'a, str>, Stop> {
        let start = self.at;
        self.at += 1;
        let mut plain = true;
        loop {
            match self.peek() {
                None => return Err(Stop::Malformed),
                Some(b'"') => break,
                Some(b'\\') => {
                    plain = false;
                    self.at += 2;
                }
                Some(byte) => {
                    plain &= byte >= 0x20;
                    self.at += 1;
                }
            }
        }
        self.at += 1;
        let quoted = &self.text[start..self.at];
        match std::str::from_utf8(&quoted[1..quoted.len() - 1]) {
            Ok(text) if plain => return Ok(Cow::Borrowed(text)),
            _ => {}
        }
        serde_json::from_slice::<String>(quoted)
            .map(Cow::Owned)
            .map_err(|_| Stop::Malformed)
    }

    /// The object at the cursor (on its `{`), inside `depth` containers.
    fn object(&mut self, depth: usize) -> Result<Value, Stop> {
        self.at += 1;
        self.blank();
        // serde_json reads an object's first key before the object counts.
        let mut key = match self.peek() {
            Some(b'}') => None,
            Some(b'"') => Some(self.string()?),
            _ => return Err(Stop::Malformed),
        };
        let inner = self.enter(depth)?;
        // The answer's own object has a dozen and a half keys: room for them at once saves
        // the map's growth, several reallocations and copies an answer. Objects inside it
        // are small, and a map without room makes none.
        let mut map = match (self.build, depth) {
            (true, 0) => Map::with_capacity(TOP_KEYS),
            _ => Map::new(),
        };
        let mut keys = Keys::default();
        while let Some(k) = key {
            self.blank();
            if self.peek() != Some(b':') {
                return Err(Stop::Malformed);
            }
            self.at += 1;
            let value = self.value(inner)?;
            if self.build {
                // One look-up (a hash of the key) for both the duplicate check and the
                // insert, where contains_key and insert made two.
                match map.entry(k.into_owned()) {
                    Entry::Occupied(repeated) => {
                        let key = repeated.key().clone();
                        return Err(Stop::Refused(BodyError::DuplicateKey(key)));
                    }
                    Entry::Vacant(slot) => {
                        slot.insert(value);
                    }
                }
            } else {
                if keys.repeated(&k) {
                    return Err(Stop::Refused(BodyError::DuplicateKey(k.into_owned())));
                }
                keys.add(k);
            }
            self.blank();
            key = match self.peek() {
                Some(b',') => {
                    self.at += 1;
                    self.blank();
                    match self.peek() {
                        Some(b'"') => Some(self.string()?),
                        _ => return Err(Stop::Malformed),
                    }
                }
                Some(b'}') => None,
                _ => return Err(Stop::Malformed),
            };
        }
        self.at += 1;
        Ok(Value::Object(map))
    }

    /// The array at the cursor (on its `[`), inside `depth` containers.
    fn array(&mut self, depth: usize) -> Result<Value, Stop> {
        self.at += 1;
        let inner = self.enter(depth)?;
        let mut items = Vec::new();
        self.blank();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(Value::Array(items));
        }
        loop {
            let item = self.value(inner)?;
            if self.build {
                items.push(item);
            }
            self.blank();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => break,
                _ => return Err(Stop::Malformed),
            }
        }
        self.at += 1;
        Ok(Value::Array(items))
    }
}

/// An object's keys so far, when it is checked but not built. A response object has about
/// twenty keys: a linear scan of keys borrowed from the text beats hashing each one (this
/// runs for every record of a resume file); past [`Keys::FEW`] keys a hash set takes over,
/// so a hostile object cannot make it quadratic.
#[derive(Default)]
struct Keys<'a> {
    few: Vec<Cow<'a, str>>,
    many: HashSet<Cow<'a, str>>,
}

impl<'a> Keys<'a> {
    const FEW: usize = 32;

    fn repeated(&self, key: &str) -> bool {
        self.few.iter().any(|k| k == key) || self.many.contains(key)
    }

    fn add(&mut self, key: Cow<'a, str>) {
        if self.few.len() < Self::FEW {
            self.few.push(key);
        } else {
            self.many.insert(key);
        }
    }
}

/// Any JSON value, read as serde_json's `Value` reads one (`deserialize_any` all the way
/// down, keys too) and kept nowhere: what words a malformed text's first fault as it has
/// always been worded. An object here is read as a map of anything, whatever its keys.
struct Skipped;

impl<'de> Deserialize<'de> for Skipped {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(Skipped)
    }
}

impl<'de> Visitor<'de> for Skipped {
    type Value = Skipped;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Skipped, E> {
        Ok(Skipped)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Skipped, E> {
        Ok(Skipped)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Skipped, E> {
        Ok(Skipped)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Skipped, E> {
        Ok(Skipped)
    }
    fn visit_str<E>(self, _: &str) -> Result<Skipped, E> {
        Ok(Skipped)
    }
    fn visit_unit<E>(self) -> Result<Skipped, E> {
        Ok(Skipped)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Skipped, A::Error> {
        while seq.next_element::<Skipped>()?.is_some() {}
        Ok(Skipped)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Skipped, A::Error> {
        while map.next_key::<Skipped>()?.is_some() {
            map.next_value::<Skipped>()?;
        }
        Ok(Skipped)
    }
}
