//! Repository text quoted in a message: a file checked into a branch can hold anything, and a
//! message goes to a terminal and a CI log, so what it quotes has its control characters escaped
//! (no escape sequence reaches the terminal) and is cut short (no line of megabytes is echoed).

/// How many characters of a line a message quotes.
pub const SHOWN_MAX: usize = 200;

/// The first `max` characters of `s` with control characters escaped, and `…` when cut, for use
/// in messages.
pub fn shown(s: &str, max: usize) -> String {
    let mut out = String::new();
    for c in s.chars().take(max) {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    if s.chars().nth(max).is_some() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_text_escapes_control_characters_and_marks_a_cut() {
        assert_eq!(shown("a\nb", 10), "a\\nb");
        assert_eq!(shown("\u{1b}[2K", 10), "\\u{1b}[2K");
        assert_eq!(shown("abcdef", 3), "abc…");
    }
}
