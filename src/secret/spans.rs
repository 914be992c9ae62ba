//! Where a registered secret stands in a text although no registered form is found in it
//! exactly: percent-encoded by any encoder, in another mix of case, or with characters a
//! reader does not see inside it. Each look gives byte spans of the text; [`cut`] replaces
//! them.

use super::{FOLDED, PLAIN, REDACTED};

/// The spans of `text` that percent-decode to a value given to [`super::register_with_encodings`]
/// (or a base64 form of the credentials): each of its bytes written as itself (in either
/// ASCII case), as `%XX` (either case of hex digit), or a space as `+`, in any mix, and the
/// whole undone up to [`LEVELS`] times (a `%` or a hex digit may itself be escaped). The exact
/// forms registered cover the encoders payverify knows; this covers the rest (PHP's
/// `urlencode`, JavaScript's `encodeURIComponent`, Java's `URLEncoder`, an encoder that
/// escapes a `-`, a URL inside a URL).
pub(super) fn encoded_spans(text: &str) -> Vec<(usize, usize)> {
    if !text.bytes().any(|b| b == b'%' || b == b'+') {
        return Vec::new();
    }
    let Ok(values) = PLAIN.read() else {
        return Vec::new();
    };
    let mut spans = Vec::new();
    // Without a `%` nothing decodes: the text's own bytes are the only layer, looked at in
    // place rather than copied.
    if !text.contains('%') {
        let bytes = text.as_bytes();
        find_spelled(
            &values,
            bytes.len(),
            |i| (bytes[i], i, i + 1),
            text,
            &mut spans,
        );
        return spans;
    }
    encoded_layered(text, &values, &mut spans);
    spans
}

/// [`encoded_spans`] through the layers of percent-decoding: each byte of the text decoded
/// so far, with the span of `text` it stands for, decoded again until nothing changes.
fn encoded_layered(text: &str, values: &[Vec<u8>], spans: &mut Vec<(usize, usize)>) {
    let mut layer: Vec<(u8, usize, usize)> = text
        .bytes()
        .enumerate()
        .map(|(i, b)| (b, i, i + 1))
        .collect();
    for level in 0..=LEVELS {
        if level > 0 {
            let decoded = decoded_once(&layer);
            if decoded.len() == layer.len() {
                break;
            }
            layer = decoded;
        }
        find_spelled(values, layer.len(), |i| layer[i], text, spans);
    }
}

/// Adds to `spans` where in a layer of `len` bytes (`at(i)`: the byte and the span of
/// `text` it stands for) each of `values` is spelled: each byte itself in either ASCII case,
/// or a space as `+`.
fn find_spelled(
    values: &[Vec<u8>],
    len: usize,
    at: impl Fn(usize) -> (u8, usize, usize),
    text: &str,
    spans: &mut Vec<(usize, usize)>,
) {
    for value in values {
        let mut start = 0;
        while start + value.len() <= len {
            let spelled = value.iter().enumerate().all(|(k, &want)| {
                let (byte, ..) = at(start + k);
                byte.to_ascii_lowercase() == want || (byte == b'+' && want == b' ')
            });
            if spelled {
                let (first, last) = (at(start).1, at(start + value.len() - 1).2);
                if text.is_char_boundary(first) && text.is_char_boundary(last) {
                    spans.push((first, last));
                    start += value.len();
                    continue;
                }
            }
            start += 1;
        }
    }
}

/// How many times over a percent-encoding is undone ([`encoded_spans`]): a value put in a
/// URL that is put in a URL that is put in a URL.
const LEVELS: u8 = 3;

/// `layer` with its `%XX` escapes undone once, each byte keeping the span of the text it
/// stands for.
fn decoded_once(layer: &[(u8, usize, usize)]) -> Vec<(u8, usize, usize)> {
    let digit = |d: u8| (d as char).to_digit(16).and_then(|d| u8::try_from(d).ok());
    let mut out = Vec::with_capacity(layer.len());
    let mut i = 0;
    while let Some(&(byte, start, end)) = layer.get(i) {
        let escape = match (byte, layer.get(i + 1), layer.get(i + 2)) {
            (b'%', Some(&(hi, ..)), Some(&(lo, _, last))) => digit(hi)
                .zip(digit(lo))
                .map(|(hi, lo)| (hi * 16 + lo, last)),
            _ => None,
        };
        match escape {
            Some((decoded, last)) => {
                out.push((decoded, start, last));
                i += 3;
            }
            None => {
                out.push((byte, start, end));
                i += 1;
            }
        }
    }
    out
}

/// `text` with each of `spans` (byte ranges, in any order, overlapping or not) replaced by
/// one `<redacted>`.
pub(super) fn cut(text: &str, mut spans: Vec<(usize, usize)>) -> String {
    spans.sort_unstable();
    let mut out = String::with_capacity(text.len());
    let mut done = 0;
    for (start, end) in spans {
        if end <= done {
            continue;
        }
        if start >= done {
            out.push_str(&text[done..start]);
            out.push_str(REDACTED);
        }
        done = end;
    }
    out.push_str(&text[done..]);
    out
}

/// The spans of `text` holding a secret form that is hidden from an exact match: written in
/// another mix of case (`Sandbox-Secret`), or with characters a reader does not see inside it
/// (a zero-width space, a soft hyphen, a tag character, a terminal escape sequence such as
/// `\e[0m`), which the sanitiser would show as a marker in the middle of a readable secret.
/// The span runs from the form's first to its last visible character, whatever is hidden in
/// it. None in the common case, found without allocating when the text has nothing unseen
/// and is ASCII or has no upper case.
pub(super) fn hidden_spans(text: &str) -> Vec<(usize, usize)> {
    // The common cases, without allocating: nothing unseen, and no upper case or no form
    // in another case. What ASCII text has of each is read in one pass over its bytes
    // (every string of every answer comes here), not one pass each.
    let mut seen = Bytes::default();
    for b in text.bytes() {
        seen.high |= !b.is_ascii();
        seen.control |= b.is_ascii_control();
        seen.upper |= b.is_ascii_uppercase();
        seen.lower |= b.is_ascii_lowercase();
    }
    let ascii = !seen.high;
    let unseen = match ascii {
        // The only unseen ASCII characters are the controls.
        true => seen.control,
        false => text.chars().any(crate::unseen::is_unsafe),
    };
    if !unseen {
        // Text without both cases holds a form in another case only as the whole form
        // upper- or lower-cased, which are registered forms the exact look has found.
        let both = match ascii {
            true => seen.upper && seen.lower,
            false => text.chars().any(char::is_uppercase) && text.chars().any(char::is_lowercase),
        };
        if !both {
            return Vec::new();
        }
        let found = match ascii {
            true => super::has_folded_form_ascii(text),
            false => {
                let folded = fold(text);
                FOLDED
                    .read()
                    .is_ok_and(|forms| forms.iter().any(|form| folded.contains(form.as_str())))
            }
        };
        if !found {
            return Vec::new();
        }
    }
    let Ok(forms) = FOLDED.read() else {
        return Vec::new();
    };
    if forms.is_empty() {
        return Vec::new();
    }
    // Looked for twice: with the terminal sequences the unseen characters start taken out
    // (`\e[0m` inside the secret), and with only the unseen characters themselves (so a
    // sequence's final letter that is also the secret's next one is not lost).
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for sequences in [true, false] {
        let (visible, origin) = visible_text(text, sequences);
        for form in forms.iter() {
            let mut from = 0;
            while let Some(found) = visible[from..].find(form.as_str()) {
                let first = from + found;
                let last = first + form.len() - 1;
                spans.push((origin[first].0, origin[last].1));
                from = first + form.len();
            }
        }
    }
    spans
}

/// What the bytes of a text hold, for [`hidden_spans`]: any outside ASCII, any ASCII
/// control, upper-case or lower-case letter.
#[derive(Default)]
struct Bytes {
    high: bool,
    control: bool,
    upper: bool,
    lower: bool,
}

/// `text` lower-cased a character at a time (any script, not only ASCII), as the forms are
/// and as [`visible_text`] folds.
pub(super) fn fold(text: &str) -> String {
    text.chars().flat_map(char::to_lowercase).collect()
}

/// `text` as a reader sees it, lower-cased, without its unseen characters (and,
/// with `sequences`, the terminal sequences they start); and for each of its bytes the
/// span of the character of `text` it came from.
fn visible_text(text: &str, sequences: bool) -> (String, Vec<(usize, usize)>) {
    let mut visible = String::with_capacity(text.len());
    let mut origin: Vec<(usize, usize)> = Vec::with_capacity(text.len());
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if crate::unseen::is_unsafe(c) {
            if sequences {
                skip_sequence(c, &mut chars);
            }
            continue;
        }
        for folded in c.to_lowercase() {
            visible.push(folded);
            origin.extend(std::iter::repeat_n(
                (at, at + c.len_utf8()),
                folded.len_utf8(),
            ));
        }
    }
    (visible, origin)
}

/// After an unseen character `c`: skips the rest of the terminal sequence it starts, if it
/// starts one (CSI `\e[...m`, `\u{9b}...m`; OSC `\e]...` up to BEL or `\e\\`; any other
/// `\e` and the character after it), so its printable parameters do not split a form.
fn skip_sequence(c: char, chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>) {
    let csi = match c {
        '\u{1b}' => match chars.peek().map(|&(_, next)| next) {
            Some('[') => {
                chars.next();
                true
            }
            Some(']') => {
                chars.next();
                while let Some((_, c)) = chars.next() {
                    if c == '\u{7}' {
                        break;
                    }
                    if c == '\u{1b}' {
                        chars.next_if(|&(_, c)| c == '\\');
                        break;
                    }
                }
                return;
            }
            Some(_) => {
                chars.next();
                return;
            }
            None => return,
        },
        '\u{9b}' => true,
        _ => false,
    };
    if csi {
        // Parameter and intermediate bytes, then one final byte.
        while let Some(&(_, c)) = chars.peek() {
            chars.next();
            if ('\u{40}'..='\u{7e}').contains(&c) {
                break;
            }
            if !('\u{20}'..='\u{3f}').contains(&c) {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::secret::{FORMS, Secret, redact, register_credentials};

    /// What [`redact`] did before its looks had fast paths: every form looked for one by
    /// one, every text read through for hidden and encoded forms. The oracle the fast
    /// paths are held to.
    fn redact_slowly(text: &str) -> String {
        let forms = FORMS.read().map(|f| f.clone()).unwrap_or_default();
        let mut out = text.to_owned();
        for form in &forms {
            if out.contains(form.as_str()) {
                out = out.replace(form.as_str(), REDACTED);
            }
        }
        let folded = FOLDED.read().map(|f| f.clone()).unwrap_or_default();
        let mut spans = Vec::new();
        for sequences in [true, false] {
            let (visible, origin) = visible_text(&out, sequences);
            for form in &folded {
                let mut from = 0;
                while let Some(found) = visible[from..].find(form.as_str()) {
                    let first = from + found;
                    spans.push((origin[first].0, origin[first + form.len() - 1].1));
                    from = first + form.len();
                }
            }
        }
        let values = PLAIN.read().map(|v| v.clone()).unwrap_or_default();
        if out.contains(['%', '+']) {
            encoded_layered(&out, &values, &mut spans);
        }
        match spans.is_empty() {
            true => out,
            false => cut(&out, spans),
        }
    }

    /// The secrets the property registers: one with a space and URL characters, one of
    /// plain ASCII that only case can hide.
    const SECRETS: [&str; 2] = ["Zx7q+Wv/9 k", "Kq4-Tv9_Ru"];

    /// Text around one of [`SECRETS`] (or a near miss of it, cut short), each character of
    /// it kept, flipped in case, percent-encoded or with something unseen after it.
    fn echoes() -> impl Strategy<Value = String> {
        let piece = prop::sample::select(vec![
            "%2B",
            "%2b",
            "+",
            " ",
            "%20",
            "%25",
            "\u{200b}",
            "\u{1b}[0m",
            "k",
            "\u{e9}",
            "\u{dc}",
            "amount",
            "NGN",
            "Zx7",
            "Tv9",
            "paid",
            "Ref",
            "-",
            "_",
            ": ",
        ]);
        let around = prop::collection::vec(piece, 0..4).prop_map(|p| p.concat());
        let edits = prop::collection::vec(0u8..16, 12);
        (around.clone(), 0..SECRETS.len(), edits, 0usize..3, around).prop_map(
            |(before, which, edits, short, after)| {
                let secret = SECRETS[which];
                let kept = secret.len() - short.min(1);
                let mut text = before;
                for (c, edit) in secret[..kept].chars().zip(edits) {
                    match edit {
                        0 => text.extend(c.to_uppercase()),
                        1 => text.extend(c.to_lowercase()),
                        2 => text.push_str(&format!("%{:02X}", u32::from(c))),
                        3 => {
                            text.push(c);
                            text.push('\u{200b}');
                        }
                        4 if c == ' ' => text.push('+'),
                        _ => text.push(c),
                    }
                }
                text + &after
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        /// The fast paths (one automaton for the exact forms, ASCII folding by automaton,
        /// no layers without a `%`) redact exactly what reading everything did.
        #[test]
        fn the_fast_looks_redact_what_the_slow_ones_did(text in echoes()) {
            for (id, secret) in ["prop-1", "prop-2"].into_iter().zip(SECRETS) {
                register_credentials(id, &Secret::new(secret));
            }
            prop_assert_eq!(redact(&text).into_owned(), redact_slowly(&text), "{:?}", text);
        }
    }
}
