//! The characters a reader does not see as what they are: controls a terminal acts on,
//! format characters drawn as nothing, blank fillers. The sanitiser ([`crate::terminal`])
//! shows them escaped; the redaction ([`crate::secret`]) looks through them, so a secret
//! with a zero-width space inside is still the secret. Below both, so both can use it.

/// Whether `c` must not reach a terminal raw: C0 controls, DEL, C1 controls, every format
/// character (Unicode category Cf: the bidi embedding, override and isolate marks, the
/// zero-width space and joiners, word joiner and invisible operators, the byte-order mark,
/// the soft hyphen, the tag characters of "ASCII smuggling", ...), the line and paragraph
/// separators, the private-use planes, and the blank fillers and other default-ignorable
/// characters a terminal draws as nothing: whatever makes `ABC\u{200b}` or `ABC` followed
/// by tags look exactly like `ABC`. (The emoji variation selectors U+FE00..U+FE0F are left:
/// they change how an emoji is drawn, never hide text.)
// The ranges laid out several to a line, as a table, rather than one a line.
#[rustfmt::skip]
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            // Cf, as of Unicode 15.1.
            '\u{00ad}' | '\u{0600}'..='\u{0605}' | '\u{061c}' | '\u{06dd}' | '\u{070f}'
                | '\u{0890}'..='\u{0891}' | '\u{08e2}' | '\u{180e}' | '\u{200b}'..='\u{200f}'
                | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206f}'
                | '\u{feff}' | '\u{fff9}'..='\u{fffb}' | '\u{110bd}' | '\u{110cd}'
                | '\u{13430}'..='\u{1343f}' | '\u{1bca0}'..='\u{1bca3}' | '\u{1d173}'..='\u{1d17a}'
                | '\u{e0001}' | '\u{e0020}'..='\u{e007f}'
                // Zl, Zp.
                | '\u{2028}' | '\u{2029}'
                // Default-ignorable or blank: combining grapheme joiner, Hangul fillers,
                // Khmer inherent vowels, Mongolian selectors, braille blank, the variation
                // selectors supplement.
                | '\u{034f}' | '\u{115f}'..='\u{1160}' | '\u{17b4}'..='\u{17b5}'
                | '\u{180b}'..='\u{180f}' | '\u{2800}' | '\u{3164}' | '\u{ffa0}'
                | '\u{e0100}'..='\u{e01ef}'
                // Private use (Co): no agreed glyph, anything a font makes of it.
                | '\u{e000}'..='\u{f8ff}' | '\u{f0000}'..='\u{10ffff}'
        )
}
