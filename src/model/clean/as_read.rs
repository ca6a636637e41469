//! A string as a person reads it on a terminal or in a CI log: escape sequences (colours), other
//! control characters and invisible characters take no place there, a backslash before a quote
//! (`\"`, as Rust's `{:?}` and a JSON document inside a string print one) is not seen as such, and
//! the escapes such a string is printed with read as what they stand for: `\n`, `\t` and `\r` as a
//! line break, a tab and a carriage return, `\u200b` (JSON) and `\u{200b}` (Rust) as their
//! character, taking no place when it is invisible or a control character. A secret broken up by
//! any of them is still read whole, and one written right after an escape (`\nghp_…`,
//! `\n/home/ada`) starts where the escape's line break does, so the clean check also reads the
//! string this way. Each backslash is read on its own: `\\n` is read as a backslash and a line
//! break, the reading that separates more.
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
        let (len, stands_for) = match reading(&raw[at..], c) {
            Read::Seen => {
                at += c.len_utf8();
                continue;
            }
            Read::Unseen(len) => (len, None),
            Read::StandsFor(len, c) => (len, Some(c)),
        };
        out.keep(raw, from, at);
        if let Some(c) = stands_for {
            out.put(c, at);
        }
        at += len;
        from = at;
    }
    out.keep(raw, from, raw.len());
    out.end_at(raw.len());
    (out.text != raw).then_some(out)
}

/// How the start of a string is read.
enum Read {
    /// Its first character, as written.
    Seen,
    /// Its first this many bytes take no place.
    Unseen(usize),
    /// Its first this many bytes, an escape, read as the character it stands for.
    StandsFor(usize, char),
}

/// How the start of `rest` (which starts with `c`) is read: an escape sequence, a control
/// character but a line break or a tab, an invisible character, or the backslash of `\"` is
/// unseen; an escape a program prints a string with ([`escaped`]) stands for its character.
fn reading(rest: &str, c: char) -> Read {
    match c {
        '\u{1b}' => Read::Unseen(escape_len(rest)),
        '\\' if rest[1..].starts_with('"') => Read::Unseen(1),
        '\\' => escaped(rest),
        '\n' | '\t' => Read::Seen,
        c if c.is_control() || is_hidden_format(c) => Read::Unseen(c.len_utf8()),
        _ => Read::Seen,
    }
}

/// The escape `rest` starts with (a backslash): `\n`, `\t` and `\r` stand for a line break, a
/// tab and a carriage return; `\uXXXX` (JSON, four hexadecimal digits) and `\u{X…}` (Rust, one to
/// six) for their character, unseen when it is invisible or a control character other than
/// those three. Anything else (a backslash alone, `\u` of no character) is seen as written.
fn escaped(rest: &str) -> Read {
    let bytes = rest.as_bytes();
    let (len, c) = match bytes.get(1) {
        Some(b'n') => (2, '\n'),
        Some(b't') => (2, '\t'),
        Some(b'r') => (2, '\r'),
        Some(b'u') => match unicode_escape(&rest[2..]) {
            Some((digits, c)) => (2 + digits, c),
            None => return Read::Seen,
        },
        _ => return Read::Seen,
    };
    if matches!(c, '\n' | '\t' | '\r') {
        Read::StandsFor(len, c)
    } else if c.is_control() || is_hidden_format(c) {
        Read::Unseen(len)
    } else {
        Read::StandsFor(len, c)
    }
}

/// The character of a `\u` escape's rest: four hexadecimal digits, or one to six in braces; with
/// how many bytes it takes. Never looks past eight bytes: many `\u{` cost linear time.
fn unicode_escape(rest: &str) -> Option<(usize, char)> {
    let (digits, len) = match rest.strip_prefix('{') {
        Some(braced) => {
            let close = braced.bytes().take(7).position(|b| b == b'}')?;
            (&braced[..close], close + 2)
        }
        None => (rest.get(..4)?, 4),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let c = u32::from_str_radix(digits, 16).ok().and_then(char::from_u32)?;
    Some((len, c))
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
        assert!(as_read("plain ascii, a \\ b and é").is_none(), "nothing hidden, nothing made");
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
        assert_eq!(read("a \\u{1b} b \\u{41} c \\u{200d"), "a  b A c \\u{200d", "a cut escape is as written");
    }

    #[test]
    fn the_escapes_a_string_is_printed_with_read_as_what_they_stand_for() {
        assert_eq!(read("right: \"[github]\\nghp_ab\\n\""), "right: \"[github]\nghp_ab\n\"");
        assert_eq!(read("a\\tb\\r\\nc"), "a\tb\r\nc");
        assert_eq!(read("ghp_ab\\u200bcd\\u{200B}e"), "ghp_abcde", "JSON's and Rust's escape of one");
        assert_eq!(read("?a=1\\u0026sig=x \\u003cb\\u003e \\u{e9}"), "?a=1&sig=x <b> \u{e9}");
        assert_eq!(read("\\\\n/home"), "\\\n/home", "each backslash on its own");
        for as_written in ["\\q \\u12 \\u{} \\u{110000} \\udc00 \\u{1234567}", "ends in \\", "\\u00e"] {
            assert_eq!(read(as_written), as_written);
        }
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
