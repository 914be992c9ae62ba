//! A string that must never be printed: client secrets and the Authorization header, and
//! the process-wide list of every form of them that [`redact`] removes from text.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind};
use base64::Engine as _;

mod spans;

use spans::{cut, encoded_spans, fold, hidden_spans};

/// Every registered secret form, longest first, process-wide so the panic hook sees them.
static FORMS: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// The registered forms lower-cased (in any script), for the look through case and unseen characters
/// ([`hidden_spans`]); folded once here rather than on every value.
static FOLDED: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// The values [`register_with_encodings`] was given, ASCII lower-cased: looked for in any
/// percent-encoding ([`encoded_spans`]), whichever characters an encoder chose to escape.
static PLAIN: RwLock<Vec<Vec<u8>>> = RwLock::new(Vec::new());

/// One automaton for each look that would otherwise go through the forms one by one: built
/// at the first look after a registration (registration happens at start), so the common
/// text, which holds no form, is read once whatever the number of forms. They only say
/// whether a form is there; where one is, the forms are replaced one by one as before.
static MATCHERS: RwLock<Option<Arc<Matchers>>> = RwLock::new(None);

/// Counts the changes to the forms: bumped by each registration, while it still holds
/// [`FORMS`]' write lock, after it dropped the automatons.
static GENERATION: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// This thread's copy of the automatons and the [`GENERATION`] they were built at. A
    /// look through [`MATCHERS`]' lock is two atomic writes to a cache line every worker
    /// writes too: some 80 of them per answer (every string of it is looked at), a few
    /// per cent of a batch's CPU. The copy costs one read of a counter that changes only
    /// while the secrets are registered, at start.
    static LOCAL_MATCHERS: RefCell<Option<(u64, Arc<Matchers>)>> = const { RefCell::new(None) };
}

/// See [`MATCHERS`].
struct Matchers {
    /// Any of [`FORMS`], exactly.
    exact: AhoCorasick,
    /// Any of [`FOLDED`] in any ASCII case: for ASCII text, the same answer as folding the
    /// text and looking for each folded form in it.
    folded: AhoCorasick,
}

impl Matchers {
    /// The automatons over `forms` and `folded`; `None` when one cannot be built (then
    /// every look goes through the forms one by one).
    fn build(forms: &[String], folded: &[String]) -> Option<Matchers> {
        // A contiguous NFA: a DFA over these forms took 6.7 M instructions to build, more
        // than twice what a whole `verify -q` of one reference costs without it.
        let builder = || {
            let mut builder = AhoCorasickBuilder::new();
            builder.kind(Some(AhoCorasickKind::ContiguousNFA));
            builder
        };
        Some(Matchers {
            exact: builder().build(forms.iter()).ok()?,
            folded: builder()
                .ascii_case_insensitive(true)
                .build(folded.iter())
                .ok()?,
        })
    }
}

/// `look` given the automatons over the registered forms; `None` when there are none to
/// give (the caller then looks the slow way).
fn with_matchers<T>(look: impl FnOnce(&Matchers) -> T) -> Option<T> {
    let now = GENERATION.load(Ordering::Acquire);
    let mut look = Some(look);
    let local = LOCAL_MATCHERS.with(|local| {
        let local = local.try_borrow().ok()?;
        let (built, matchers) = local.as_ref()?;
        match *built == now {
            true => look.take().map(|look| look(matchers)),
            false => None,
        }
    });
    if local.is_some() {
        return local;
    }
    let look = look?;
    // Registration holds FORMS' write lock while it changes the forms, drops the
    // automatons and moves the generation on, so automatons built (or found) under its
    // read lock are never older than the forms, and belong to the generation read under
    // it. The locks are taken in one order everywhere: FORMS, FOLDED, MATCHERS.
    let forms = FORMS.read().ok()?;
    let built = GENERATION.load(Ordering::Acquire);
    let folded = FOLDED.read().ok()?;
    let matchers = {
        let mut slot = MATCHERS.write().ok()?;
        if slot.is_none() {
            *slot = Matchers::build(&forms, &folded).map(Arc::new);
        }
        slot.clone()?
    };
    drop((folded, forms));
    LOCAL_MATCHERS.with(|local| {
        if let Ok(mut local) = local.try_borrow_mut() {
            *local = Some((built, matchers.clone()));
        }
    });
    Some(look(&matchers))
}

/// Whether `text` holds a registered form exactly.
fn has_exact_form(text: &str) -> bool {
    with_matchers(|m| m.exact.is_match(text)).unwrap_or_else(|| {
        FORMS
            .read()
            .is_ok_and(|forms| forms.iter().any(|form| text.contains(form.as_str())))
    })
}

/// Whether the ASCII `text`, lower-cased, holds a registered form lower-cased.
fn has_folded_form_ascii(text: &str) -> bool {
    with_matchers(|m| m.folded.is_match(text)).unwrap_or_else(|| {
        let folded = text.to_ascii_lowercase();
        FOLDED
            .read()
            .is_ok_and(|forms| forms.iter().any(|form| folded.contains(form.as_str())))
    })
}

/// What a secret form is replaced with.
pub(crate) const REDACTED: &str = "<redacted>";

/// Registers `value` as never to be printed. Values shorter than 4 characters are ignored:
/// they would redact ordinary words, and a secret that short is refused elsewhere.
pub(crate) fn register(value: &str) {
    if value.chars().count() < 4 {
        return;
    }
    if let Ok(mut forms) = FORMS.write()
        && !forms.iter().any(|s| s == value)
    {
        forms.push(value.to_owned());
        // Longest first, so `id:secret` and padded base64 go whole, not in pieces.
        forms.sort_by_key(|s| std::cmp::Reverse(s.len()));
        if let Ok(mut folded) = FOLDED.write() {
            let value = fold(value);
            if !folded.contains(&value) {
                folded.push(value);
            }
        }
        if let Ok(mut matchers) = MATCHERS.write() {
            *matchers = None;
        }
        GENERATION.fetch_add(1, Ordering::Release);
    }
}

/// Registers the secret and every form of it a service could echo: the secret, the
/// `id:secret` pair, the base64 of both (padded and unpadded), which is what an
/// Authorization header carries, the part of that base64 that does not depend on what
/// comes before it (the pair inside a longer encoded text, such as `auth=id:secret`, at
/// any of the three alignments), and the forms [`register_with_encodings`] adds.
pub(crate) fn register_credentials(client_id: &str, secret: &Secret) {
    let secret = secret.expose();
    let pair = format!("{client_id}:{secret}");
    let engine = &base64::engine::general_purpose::STANDARD;
    let unpadded = &base64::engine::general_purpose::STANDARD_NO_PAD;
    let url = &base64::engine::general_purpose::URL_SAFE;
    let url_unpadded = &base64::engine::general_purpose::URL_SAFE_NO_PAD;
    for value in [pair.as_str(), secret] {
        for form in [
            engine.encode(value),
            unpadded.encode(value),
            url.encode(value),
            url_unpadded.encode(value),
        ] {
            register(&form);
            // `+`, `/` and `=` are escaped when base64 goes into a URL or a form.
            register_plain(&form);
        }
    }
    for value in [secret, pair.as_str()] {
        for form in base64_inside(value) {
            // The same characters in the URL-safe alphabet (base64url).
            register(&form.replace('+', "-").replace('/', "_"));
            register(&form);
            register_plain(&form);
        }
        register_with_encodings(value);
    }
}

/// Fewest characters a client secret may have: settings refuses a shorter one
/// ([`crate::settings::MIN_SECRET_CHARS`] is this), and redaction treats one as a word.
pub(crate) const MIN_SECRET_CHARS: usize = 8;

/// Registers a client secret read from the environment, a file or a profile before any
/// setting is checked. One of [`MIN_SECRET_CHARS`] or more is registered with every form of
/// it ([`register_with_encodings`]). A shorter one is refused before any request, so no
/// service ever sees it, and it is as often a word as a secret (a placeholder `secret`, a
/// `short` typed for a test): looked for inside other words it turned `--client-secret-file`
/// into `--client-<redacted>-file` and a fix command's file name into `live.<redacted>`,
/// and the words around it gave it away. It is looked for only quoted, as a value is shown.
pub(crate) fn register_client_secret(value: &str) {
    if value.chars().count() >= MIN_SECRET_CHARS {
        register_with_encodings(value);
        return;
    }
    if value.chars().count() < 4 {
        return;
    }
    for quote in ['"', '\''] {
        register(&format!("{quote}{value}{quote}"));
    }
}

/// Registers `value` and the exact forms a service could echo it in: percent-encoded with
/// upper- and lower-case hex digits, form-encoded (a space as `+`), percent-encoded twice
/// (a value put in a URL that is itself put in a URL), hex (lower and upper case, as a
/// dump of the bytes), and the value in upper and in lower case. Only exact forms: nothing
/// here guesses.
pub(crate) fn register_with_encodings(value: &str) {
    register(value);
    register_plain(value);
    // JSON-escaped, as a service that echoes its request as JSON text inside a string does
    // (`\"` and `\\`, and every character outside ASCII as `\uXXXX`).
    let json = serde_json::Value::from(value).to_string();
    let escaped = json.get(1..json.len() - 1).unwrap_or_default();
    register(escaped);
    let ascii: String = escaped
        .chars()
        .map(|c| match c.is_ascii() {
            true => c.to_string(),
            false => c
                .encode_utf16(&mut [0; 2])
                .iter()
                .map(|unit| format!("\\u{unit:04x}"))
                .collect(),
        })
        .collect();
    register(&ascii);
    for (upper, plus) in [(true, false), (false, false), (true, true)] {
        let once = url_encoded(value, upper, plus);
        register(&url_encoded(&once, upper, false));
        register(&once);
    }
    // Every byte as %XX (an encoder that escapes all), and a path encoder's form, which
    // keeps `/` (Python's quote(), many HTTP libraries' path segments).
    let all: String = value.bytes().map(|b| format!("%{b:02X}")).collect();
    register(
        &value
            .bytes()
            .map(|b| format!("%{b:02x}"))
            .collect::<String>(),
    );
    register(&all);
    register(&url_encoded(value, true, false).replace("%2F", "/"));
    register(&url_encoded(value, false, false).replace("%2f", "/"));
    // HTML-escaped, as an error page or a JSON message built from HTML may carry it.
    register(
        &value
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
            .replace('\'', "&#39;"),
    );
    let hex: String = value.bytes().map(|b| format!("{b:02x}")).collect();
    register(&hex.to_ascii_uppercase());
    register(&hex);
    register(&value.to_uppercase());
    register(&value.to_lowercase());
}

/// Adds `value` to the values looked for in any percent-encoding ([`encoded_spans`]).
fn register_plain(value: &str) {
    if value.chars().count() < 4 {
        return;
    }
    if let Ok(mut plain) = PLAIN.write() {
        let value = value.to_ascii_lowercase().into_bytes();
        if !plain.contains(&value) {
            plain.push(value);
        }
    }
}

/// The base64 of `value` wherever it starts inside a longer text: for each of the three
/// byte alignments, the characters that encode only bytes of `value` (each base64 character
/// holds 6 bits, so the first and last ones it shares with its neighbours are left out).
fn base64_inside(value: &str) -> Vec<String> {
    let engine = &base64::engine::general_purpose::STANDARD_NO_PAD;
    let bytes = value.as_bytes();
    (0..3usize)
        .filter_map(|shift| {
            let mut shifted = vec![0u8; shift];
            shifted.extend_from_slice(bytes);
            let encoded = engine.encode(&shifted);
            // Characters wholly inside `value`: from the first whose 6 bits start at or after
            // bit 8 * shift, to the last whose 6 bits end at or before its end.
            let first = (8 * shift).div_ceil(6);
            let last = (8 * shifted.len()) / 6;
            encoded.get(first..last).map(str::to_owned)
        })
        .collect()
}

/// `text` percent-encoded: every byte but RFC 3986's unreserved characters as `%XX`, with
/// `upper` or lower-case hex digits; with `plus`, a space as `+` (form encoding).
fn url_encoded(text: &str, upper: bool, plus: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for &b in text.as_bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(char::from(b));
            }
            b' ' if plus => out.push('+'),
            _ if upper => out.push_str(&format!("%{b:02X}")),
            _ => out.push_str(&format!("%{b:02x}")),
        }
    }
    out
}

/// `text` with every registered secret form replaced by `<redacted>`; borrowed when it holds
/// none. Callers pass the whole text, before any truncation or whitespace folding, so no
/// part of a secret is cut off or changed before it is recognised.
pub(crate) fn redact(text: &str) -> Cow<'_, str> {
    let mut out = Cow::Borrowed(text);
    // Where a form is, they are replaced one at a time, longest first, as they always were.
    if has_exact_form(text) {
        let Ok(forms) = FORMS.read() else {
            return Cow::Borrowed(text);
        };
        for form in forms.iter() {
            if out.contains(form.as_str()) {
                out = Cow::Owned(out.replace(form.as_str(), REDACTED));
            }
        }
    }
    let mut spans = hidden_spans(&out);
    spans.extend(encoded_spans(&out));
    match spans.is_empty() {
        true => out,
        false => Cow::Owned(cut(&out, spans)),
    }
}

/// Whether `text` holds any registered secret form, hidden or not.
pub(crate) fn holds_secret(text: &str) -> bool {
    has_exact_form(text) || !hidden_spans(text).is_empty() || !encoded_spans(text).is_empty()
}

/// Redacts every string (and object key) inside a JSON value, in place: a service that
/// echoes the secret in a field must not get it into a record or the table. A number whose
/// text holds a secret form (an all-digit secret echoed as a number) becomes the string
/// `"<redacted>"`: the value is redacted, so the JSON around it stays valid. Booleans and
/// untouched values stay exactly as received.
pub(crate) fn redact_json(value: &mut serde_json::Value) {
    // Asked once for the whole value, not at every value inside it (a lock each).
    let any = FORMS.read().is_ok_and(|f| !f.is_empty());
    if any {
        redact_json_values(value);
    }
}

/// [`redact_json`]'s walk, once there are forms to look for.
fn redact_json_values(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::String(s) => {
            if let Cow::Owned(clean) = redact(s) {
                *s = clean;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact_json_values),
        Value::Object(map) => {
            let leaks = map.keys().any(|k| holds_secret(k));
            if leaks {
                // Rebuild to rename keys; key order is kept.
                let old = std::mem::take(map);
                for (k, v) in old {
                    map.insert(redact(&k).into_owned(), v);
                }
            }
            map.values_mut().for_each(redact_json_values);
        }
        Value::Number(n) => {
            if holds_secret(n.as_str()) {
                *value = Value::String(REDACTED.to_owned());
            }
        }
        Value::Null | Value::Bool(_) => {}
    }
}

/// A secret value whose `Debug` output is redacted and which has no `Display`.
///
/// The only way to read it is [`Secret::expose`], so every use is visible in review.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    /// The secret itself, for the few places that must send or sign with it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Whether the secret is the empty string.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

impl<'de> serde::Deserialize<'de> for Secret {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(Secret)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_form_hidden_by_unseen_characters_or_case_is_redacted_whole() {
        register_credentials("hid-1", &Secret::new("hidden-s3cret-42"));
        for echoed in [
            "hidden-\u{200b}s3cret-42",
            "hid\u{ad}den-s3cret-42",
            "hidden-\u{1b}[0ms3cret-42",
            "hidden-\u{1b}[1;31ms3cret-42",
            "hidden-\u{9b}0ms3cret-42",
            "hidden-\u{1b}]0;title\u{7}s3cret-42",
            "hidden-\u{1b}s3cret-42",
            "hidden\u{e0041}-s3cret-42",
            "Hidden-S3cret-42",
            "HIDDEN-s3CRET-42",
        ] {
            let text = format!("your key was {echoed}, see?");
            assert_eq!(redact(&text), "your key was <redacted>, see?", "{echoed:?}");
            assert!(holds_secret(&text), "{echoed:?}");
        }
        // Nothing else is touched, and a near miss is not a secret.
        assert!(matches!(
            redact("Hidden-S3cret-4 \u{200b}"),
            Cow::Borrowed(_)
        ));
        assert_eq!(
            redact("Two: hidden-s3cret-42 Hidden\u{200b}-s3cret-42."),
            "Two: <redacted> <redacted>."
        );
    }

    #[test]
    fn every_form_is_redacted_whole_before_anything_else() {
        register_credentials("cid-77", &Secret::new("pass  word-1234"));
        // base64("cid-77:pass  word-1234") and the unpadded form of it.
        let b64 = base64::engine::general_purpose::STANDARD.encode("cid-77:pass  word-1234");
        assert_eq!(
            redact(&format!(
                "a pass  word-1234 b cid-77:pass  word-1234 c {b64}"
            )),
            "a <redacted> b <redacted> c <redacted>"
        );
        let long = format!("{}pass  word-1234", "x".repeat(176));
        assert_eq!(redact(&long), format!("{}<redacted>", "x".repeat(176)));
        register("abc");
        assert_eq!(redact("abc"), "abc");
    }

    #[test]
    fn url_encoded_forms_are_redacted_too() {
        register_credentials("cid-url", &Secret::new("s3c/r+t =x%Q"));
        assert_eq!(
            redact("a s3c%2Fr%2Bt%20%3Dx%25Q b s3c%2fr%2bt%20%3dx%25Q c s3c%2Fr%2Bt+%3Dx%25Q"),
            "a <redacted> b <redacted> c <redacted>"
        );
        assert_eq!(redact("cid-url%3As3c%2Fr%2Bt%20%3Dx%25Q"), "<redacted>");
        assert_eq!(url_encoded("a-Z_0.~", true, false), "a-Z_0.~");
    }

    #[test]
    fn hex_case_and_double_encoded_forms_are_redacted_too() {
        register_credentials("cid-hex", &Secret::new("Zq9-sec_VAL+/=1"));
        let secret = "Zq9-sec_VAL+/=1";
        let hex: String = secret.bytes().map(|b| format!("{b:02x}")).collect();
        for echo in [
            hex.clone(),
            hex.to_uppercase(),
            secret.to_uppercase(),
            secret.to_lowercase(),
            "Zq9-sec_VAL%252B%252F%253D1".to_owned(),
            "Zq9-sec_VAL%252b%252f%253d1".to_owned(),
        ] {
            assert_eq!(redact(&format!("[{echo}]")), "[<redacted>]", "{echo}");
        }
        // The pair inside a longer base64 text, at each of the three alignments.
        let engine = &base64::engine::general_purpose::STANDARD;
        for prefix in ["", "x", "xy", "auth=", "Basic "] {
            let encoded = engine.encode(format!("{prefix}cid-hex:{secret};rest"));
            assert!(holds_secret(&encoded), "{prefix}: {encoded}");
        }
    }

    /// Forms an attack on the release binary found unredacted: every byte percent-encoded,
    /// a path encoder's form keeping `/`, base64url of the pair, HTML-escaped.
    #[test]
    fn whole_percent_path_base64url_and_html_forms_are_redacted_too() {
        let secret = Secret::new("Ab9+dEf/GhI0jK==&<x>\"q'");
        register_credentials("cid", &secret);
        let all: String = secret
            .expose()
            .bytes()
            .map(|b| format!("%{b:02X}"))
            .collect();
        let url = &base64::engine::general_purpose::URL_SAFE;
        for echoed in [
            all.clone(),
            all.to_ascii_lowercase(),
            "Ab9%2BdEf/GhI0jK%3D%3D%26%3Cx%3E%22q%27".to_owned(),
            url.encode(format!("cid:{}", secret.expose())),
            "Ab9+dEf/GhI0jK==&amp;&lt;x&gt;&quot;q&#39;".to_owned(),
        ] {
            let text = format!("bad key {echoed} here");
            assert_eq!(redact(&text), "bad key <redacted> here", "{echoed}");
        }
        // The pair's base64url inside a longer encoded text: what encodes only its bytes goes.
        let inside = url.encode(format!("auth=cid:{}", secret.expose()));
        let shown = redact(&inside);
        assert!(shown.contains(REDACTED), "{shown}");
        assert!(shown.len() < 24 && inside.len() > 40, "{shown}");
    }

    #[test]
    fn base64_inside_is_what_every_alignment_shares() {
        let engine = &base64::engine::general_purpose::STANDARD;
        for value in ["abcd", "secret-value-1", "\u{20a6}40,000"] {
            let forms = base64_inside(value);
            assert_eq!(forms.len(), 3, "{value}");
            for (shift, form) in forms.iter().enumerate() {
                for before in ["", "a", "ab", "abc"] {
                    if before.len() % 3 != shift {
                        continue;
                    }
                    for after in ["", "z", "zz"] {
                        let encoded = engine.encode(format!("{before}{value}{after}"));
                        assert!(encoded.contains(form.as_str()), "{value} {shift}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_number_holding_a_secret_becomes_a_redacted_string() {
        register("86753090124");
        let mut value: serde_json::Value = serde_json::from_str(
            r#"{"echo":86753090124,"inner":[1,186753090124.5],"amount":4000000,"s":"x86753090124"}"#,
        )
        .unwrap();
        redact_json(&mut value);
        assert_eq!(
            value.to_string(),
            r#"{"echo":"<redacted>","inner":[1,"<redacted>"],"amount":4000000,"s":"x<redacted>"}"#
        );
    }

    #[test]
    fn a_form_registered_after_a_look_is_found_by_the_next() {
        let text = "echo: Qv8-late-secret-77 (again QV8-LATE-secret-77)";
        // The looks' automatons are built here, before the form is known.
        assert_eq!(redact(text), text);
        assert!(!holds_secret(text));
        register_credentials("late-id", &Secret::new("Qv8-late-secret-77"));
        assert_eq!(redact(text), "echo: <redacted> (again <redacted>)");
        assert!(holds_secret(text));
    }

    #[test]
    fn a_short_client_secret_is_looked_for_only_quoted() {
        register_client_secret("shh1x");
        assert_eq!(
            redact("key \"shh1x\" or 'shh1x', not shh1xs, --shh1x-file, a.shh1x, SHH1X"),
            "key <redacted> or <redacted>, not shh1xs, --shh1x-file, a.shh1x, SHH1X"
        );
        // Eight characters or more: every form, inside words too, as before.
        register_client_secret("long1x-secret");
        assert_eq!(redact("a-long1x-secret.txt"), "a-<redacted>.txt");
    }

    #[test]
    fn debug_never_shows_the_value() {
        let s = Secret::new("hunter2-very-secret");
        let shown = format!("{s:?} {:?}", Some(&s));
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("<redacted>"));
    }
}
