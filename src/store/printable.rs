//! Names and other free text from a table log, made safe to print in line-based
//! reports (the audit text, the CSV score sheet).
//!
//! Player names are whatever the `round` line gave. A name holding a line break could
//! end its line of the audit and start a forged one (`chain: OK …`); a carriage
//! return or a bidirectional override can make a terminal or a spreadsheet show text
//! other than what is stored. Such characters are written as visible escapes instead:
//! `\n`, `\r`, `\t`, and `\u{…}` (hexadecimal code point) for the others. Everything
//! else, accents and non-Latin scripts included, is printed as is. `--json` output
//! keeps the exact text (JSON escapes it its own way).

use std::borrow::Cow;
use std::fmt::Write;

/// Whether `c` could break a line or disguise what a line says: the characters no
/// name may hold ([`crate::referee::disguises_a_line`]), escaped here too for text
/// that is not a name and for databases written before names were checked.
pub fn needs_escape(c: char) -> bool {
    crate::referee::disguises_a_line(c)
}

/// `text` with every character of [`needs_escape`] written as a visible escape;
/// borrowed unchanged when there is none (the usual case).
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if needs_escape(c) => {
                // Writing to a String cannot fail.
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_names_are_untouched() {
        for name in ["Ana", "François", "Zoë, \"Z\"", "O'Brien", "李", "a\\nb"] {
            assert!(matches!(printable(name), Cow::Borrowed(n) if n == name));
        }
    }

    #[test]
    fn line_breaks_controls_and_bidi_overrides_are_escaped() {
        assert_eq!(printable("Ana\nchain: OK"), "Ana\\nchain: OK");
        assert_eq!(printable("\tBo\r"), "\\tBo\\r");
        assert_eq!(
            printable("x\u{0}\u{1b}[2J\u{7f}\u{85}"),
            "x\\u{0}\\u{1b}[2J\\u{7f}\\u{85}"
        );
        assert_eq!(printable("a\u{2028}b\u{2029}"), "a\\u{2028}b\\u{2029}");
        assert_eq!(
            printable("\u{202e}olleh\u{2066}"),
            "\\u{202e}olleh\\u{2066}"
        );
        let escaped = printable("one\ntwo\rthree\u{2028}four\u{b}five\u{c}");
        assert!(!escaped.chars().any(needs_escape), "{escaped}");
        assert_eq!(escaped.lines().count(), 1);
    }
}
