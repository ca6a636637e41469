//! A value of a file, a note or the repository as a message quotes it: only when it passes the
//! clean check, else a notice of what it holds. A refusal goes to a terminal and a CI log, where
//! a value it repeats is as public as a signed one.

use crate::model::shown::shown;

use super::{Leak, check_str};

/// How many bytes after the part a message shows are checked with it: a secret the part begins
/// (a token cut at its sixtieth character) is still known for one.
const CHECKED_PAST_THE_CUT: usize = 1024;

/// `text` as [`shown`] quotes it (escaped, cut at `max` characters) when that and `text` (its
/// start, up to [`CHECKED_PAST_THE_CUT`] bytes past the cut) pass the clean check; else
/// [`not_shown`], which names what it holds and never the value.
#[must_use]
pub fn shown_if_clean(text: &str, max: usize) -> String {
    let cut = text.char_indices().nth(max).map_or(text.len(), |(at, _)| at);
    let mut end = (cut + CHECKED_PAST_THE_CUT).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    let quoted = shown(text, max);
    match check_str(&text[..end]).and_then(|()| check_str(&quoted)) {
        Ok(()) => quoted,
        Err(leak) => not_shown(&leak),
    }
}

/// `text` whole when it passes the clean check, else [`not_shown`]: for a value a caller has cut
/// and escaped already, or one that is short by its nature.
#[must_use]
pub fn unless_leaking(text: String) -> String {
    match check_str(&text) {
        Ok(()) => text,
        Err(leak) => not_shown(&leak),
    }
}

/// What a message says in place of a value that holds `leak`:
/// `(a value not shown, as it holds a GitHub token)`.
#[must_use]
pub fn not_shown(leak: &Leak) -> String {
    format!("(a value not shown, as it holds {})", leak.what)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clean_value_is_quoted_escaped_and_cut_and_a_leaking_one_is_named_never_shown() {
        assert_eq!(shown_if_clean("clean\u{1b}[31m", 64), "clean\\u{1b}[31m");
        assert_eq!(shown_if_clean(&"x".repeat(70), 64), format!("{}…", "x".repeat(64)));
        let token = "ghp_R8x2Kq9LmZ4vT7nB3cW6yH1jP0sD5fG9hJ2k";
        for text in [token.to_owned(), format!("{}{token}", "a ".repeat(30)), format!("cfg:\\n{token}")] {
            assert_eq!(
                shown_if_clean(&text, 64),
                "(a value not shown, as it holds a GitHub token)",
                "{text}"
            );
        }
    }

    #[test]
    fn a_value_whose_secret_starts_before_the_cut_is_not_shown() {
        let text = format!("{}api_key={}", "a ".repeat(26), "Xk9mQ2vL7pR4zTq8Wn3bY6cJ");
        assert!(shown(&text, 64).ends_with("Xk9m…"), "the cut keeps a piece of the secret");
        assert!(shown_if_clean(&text, 64).starts_with("(a value not shown"));
    }

    #[test]
    fn a_value_kept_whole_unless_leaking_is_never_cut() {
        let long = "a ".repeat(200);
        assert_eq!(unless_leaking(long.clone()), long);
        assert_eq!(
            unless_leaking("at /home/ada/x".into()),
            "(a value not shown, as it holds an absolute local path (home, temp or per-user directory))"
        );
    }
}
