//! A string as a person reads it on a terminal or in a CI log: escape sequences (colours), other
//! control characters and invisible characters take no place there, and a backslash before a
//! quote (`\"`, as Rust's `{:?}` and a JSON document inside a string print one) is not seen as
//! such. A secret broken up by any of them is still read whole, so the clean check also reads the
//! string this way.
//!
//! Written here rather than taken from an ANSI-stripping crate: the check needs each kept byte's
//! offset in the raw string, to say where a leak is, and the set of invisible characters is the
//! one [`crate::model::shown`] escapes.

use crate::model::shown::is_hidden_format;

use super::view::View;

/// `raw` as read, or `None` when it reads as it is written.
pub(super) fn as_read(raw: &str) -> Option<View> {
    if !raw.bytes().any(|b| {
        b == 0x1b || b == b'\\' || b == 0x7f || b >= 0x80 || (b < 0x20 && !matches!(b, b'\n' | b'\t'))
    }) {
        return None;
    }
    let mut out = View::of_len(raw.len());
    let mut from = 0;
    let mut at = 0;
    while let Some(c) = raw[at..].chars().next() {
        let unseen = unseen_len(&raw[at..], c);
        if unseen == 0 {
            at += c.len_utf8();
            continue;
        }
        out.keep(raw, from, at);
        at += unseen;
        from = at;
    }
    out.keep(raw, from, raw.len());
    (out.text.len() != raw.len()).then_some(out)
}

/// How many bytes at the start of `rest` (which starts with `c`) a reader does not see: an escape
/// sequence, a control character but a line break or a tab, an invisible character or the escape
/// a message writes in its place (`\u{200d}`, [`crate::model::shown`]), or the backslash of
/// `\"`; 0 when `c` is seen.
fn unseen_len(rest: &str, c: char) -> usize {
    match c {
        '\u{1b}' => escape_len(rest),
        '\\' if rest[1..].starts_with('"') => 1,
        '\\' => hidden_escape_len(rest),
        '\n' | '\t' => 0,
        c if c.is_control() || is_hidden_format(c) => c.len_utf8(),
        _ => 0,
    }
}

/// The length of the escape of an invisible character `rest` starts with (`\u{200d}`, as Rust's
/// `escape_default` writes it), or 0.
fn hidden_escape_len(rest: &str) -> usize {
    // At most six digits: looking further for the `}` would make many `\u{` cost the square.
    let hex = rest.strip_prefix("\\u{").and_then(|r| Some(&r[..r.bytes().take(7).position(|b| b == b'}')?]));
    let Some(hex) = hex else {
        return 0;
    };
    let hidden = u32::from_str_radix(hex, 16).ok().and_then(char::from_u32).is_some_and(is_hidden_format);
    if hidden { "\\u{}".len() + hex.len() } else { 0 }
}

/// The length of the escape sequence `rest` starts with: a CSI (`ESC [` … a final byte from `@`
/// to `~`), an OSC (`ESC ]` … BEL or `ESC \`; one whose end is lost ends before the next ESC, as a
/// terminal ends it, or line break, as a log is read a line at a time), or `ESC` and one more
/// character.
fn escape_len(rest: &str) -> usize {
    let body = &rest[1..];
    let end = match body.chars().next() {
        Some('[') => body[1..].find(|c: char| ('@'..='~').contains(&c)).map(|i| 1 + i + 1),
        // One pass to whichever ends it first: looking for each end over the whole rest would
        // make a string of many sequences cost the square of its length.
        Some(']') => body.char_indices().find_map(|(i, c)| match c {
            '\u{7}' => Some(i + 1),
            '\u{1b}' if body[i + 1..].starts_with('\\') => Some(i + 2),
            '\u{1b}' | '\n' | '\r' => Some(i),
            _ => None,
        }),
        Some(c) => Some(c.len_utf8()),
        None => Some(0),
    };
    1 + end.unwrap_or(body.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(raw: &str) -> String {
        as_read(raw).map_or_else(|| raw.to_owned(), |r| r.text)
    }

    #[test]
    fn colours_controls_and_invisible_characters_take_no_place() {
        assert_eq!(read("password: \u{1b}[31mXk9m\u{1b}[39m"), "password: Xk9m");
        assert_eq!(read("AKIA\0IOSF\u{200b}ODNN\rEX"), "AKIAIOSFODNNEX");
        assert_eq!(read("\u{1b}]8;;https://x\u{7}link\u{1b}]8;;\u{1b}\\ end"), "link end");
        assert_eq!(read("a\tb\nc"), "a\tb\nc", "tabs and line breaks are seen");
        assert_eq!(read("left: \"{\\\"password\\\":\\\"Xk\\\"}\""), "left: \"{\"password\":\"Xk\"}\"");
        assert_eq!(read("ends in \u{1b}["), "ends in ", "a cut sequence is unseen to the end");
        assert!(as_read("plain ascii, \\n and é").is_none(), "nothing hidden, nothing made");
    }

    #[test]
    fn many_sequences_cost_time_in_proportion_to_the_string() {
        // Each sequence ends at a BEL and no `ESC \` follows: looked for over the rest of the
        // string each time, this takes minutes.
        let raw = "\u{1b}]8;;x\u{7}a".repeat(100_000);
        assert_eq!(read(&raw), "a".repeat(100_000));
        assert_eq!(read("\u{1b}]x\u{1b}y\u{1b}\\z"), "z", "an ESC inside ends it and starts its own");
    }

    #[test]
    fn an_osc_without_its_end_hides_nothing_after_the_next_escape_or_line() {
        assert_eq!(read("\u{1b}]8;;https://x\nuse ghp_ab\u{1b}[1mcd"), "\nuse ghp_abcd");
        assert_eq!(read("\u{1b}]0;build\nuse ghp_ab\u{200b}cd"), "\nuse ghp_abcd");
        assert_eq!(read("\u{1b}]0;title\u{1b}[31mred"), "red", "the next ESC ends it");
    }

    #[test]
    fn the_escape_a_message_writes_for_an_invisible_character_takes_no_place() {
        assert_eq!(read("ghp_ab\\u{200d}cd\\u{E0100}e"), "ghp_abcde");
        assert_eq!(
            read("a \\u{1b} b \\u{41} c \\u{200d"),
            "a \\u{1b} b \\u{41} c \\u{200d",
            "only hidden ones"
        );
    }

    #[test]
    fn each_kept_byte_knows_its_place_in_the_raw_string() {
        let raw = "ab\u{1b}[1mcd\u{200b}ef";
        let r = as_read(raw).unwrap();
        assert_eq!(r.text, "abcdef");
        for (at, c) in r.text.char_indices() {
            assert_eq!(raw[r.raw_offset(at)..].chars().next(), Some(c), "{at}");
        }
        assert_eq!(r.raw_offset(r.text.len()), raw.len());
    }
}
