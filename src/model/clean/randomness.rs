//! Telling a generated value from a written one: length, placeholders, words, entropy.

use super::{MIN_ENTROPY_BITS, MIN_HEX_ENTROPY_BITS, MIN_SECRET_CHARS, VALUE_MAX};

/// Whether `value` looks generated rather than written: at least [`MIN_SECRET_CHARS`] characters,
/// no reference or placeholder (`$VAR`, `${{ secrets.X }}`, `<password>`, `%PW%`, `***`), not made
/// of words and numbers only ([`made_of_words`]: `hunter2-redacted`, `test-password-123`,
/// `tests/fixtures/key.pem`), and a Shannon entropy of at least [`MIN_ENTROPY_BITS`] bits per
/// character ([`MIN_HEX_ENTROPY_BITS`] for hexadecimal digits only). A value longer than
/// [`VALUE_MAX`] characters is judged by its start.
///
/// A passphrase of dictionary words passes as written: it cannot be told from a fixture.
#[must_use]
pub fn random_enough(value: &str) -> bool {
    let value = value.trim_start_matches([':', '=']);
    // A long value is judged by its start.
    let value = value.char_indices().nth(VALUE_MAX).map_or(value, |(i, _)| &value[..i]);
    if is_placeholder(value) || value.chars().count() < MIN_SECRET_CHARS || made_of_words(value) {
        return false;
    }
    let hex = value.chars().all(|c| c.is_ascii_hexdigit() || c == '-');
    shannon_bits(value) >= if hex { MIN_HEX_ENTROPY_BITS } else { MIN_ENTROPY_BITS }
}

/// A language's literal for no value or for a flag, compared ignoring ASCII case: a setting or a
/// log line that shows one (`password=null`, `token=None`, `password=false`) gives no secret.
const NO_VALUE: &[&str] = &["null", "none", "nil", "undefined", "true", "false"];

/// A reference to a secret kept elsewhere, or a placeholder for one, or no value at all (a whole
/// value of [`NO_VALUE`]: `nullable123` is a value).
pub(super) fn is_placeholder(value: &str) -> bool {
    value.is_empty()
        || value.starts_with(['$', '<', '%', '{', '*', '[', '('])
        || value.chars().all(|c| c == value.chars().next().unwrap_or('x'))
        || NO_VALUE.iter().any(|literal| value.eq_ignore_ascii_case(literal))
}

/// Whether `value` is base64 of `user:password` (an HTTP Basic credential).
pub(super) fn basic_credentials(value: &str) -> bool {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(value)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .is_some_and(|text| text.split_once(':').is_some_and(|(u, p)| !u.is_empty() && !p.is_empty()))
}

/// The parts of `value` between non-alphanumeric characters.
fn segments(value: &str) -> impl Iterator<Item = &str> {
    value.split(|c: char| !c.is_alphanumeric()).filter(|s| !s.is_empty())
}

/// Whether every part of `value` is a word (see [`is_word`]) or a number.
fn made_of_words(value: &str) -> bool {
    segments(value).all(|s| is_word(s) || s.chars().all(|c| c.is_ascii_digit()))
}

/// Whether every part of `value` that is not a word is hexadecimal digits (a digest, a UUID).
pub(super) fn hex_apart_from_words(value: &str) -> bool {
    segments(value).all(|s| is_word(s) || s.chars().all(|c| c.is_ascii_hexdigit()))
}

/// Whether `segment` reads as written words: letters in word case (`hunter`, `Redacted`, `HTTP`,
/// `camelCase`, `HTTPServer`, `ThisIsAnExample`) followed by at most four digits (`hunter2`,
/// `oauth2`, `v1`), each word of it [pronounceable]. Capitals followed by a single
/// lower-case letter (`Is`, `Bc`) may be no more than capitals followed by a longer run, so
/// `xKqmPzWt` and `aBcDeF` are no words.
fn is_word(segment: &str) -> bool {
    let letters = segment.trim_end_matches(|c: char| c.is_ascii_digit());
    if letters.is_empty() || segment.len() - letters.len() > 4 || !letters.chars().all(char::is_alphabetic) {
        return false;
    }
    if !case_words(letters).all(pronounceable) {
        return false;
    }
    // Runs of capitals each followed by a run of lower-case letters, counted by the length of
    // that lower-case run.
    let (mut short, mut long) = (0, 0);
    let (mut upper, mut lower) = (0, 0);
    let mut close = |upper: usize, lower: usize| match (upper, lower) {
        (0, _) | (_, 0) => {}
        (_, 1) => short += 1,
        _ => long += 1,
    };
    for c in letters.chars() {
        if c.is_uppercase() {
            if lower > 0 {
                close(upper, lower);
                (upper, lower) = (0, 0);
            }
            upper += 1;
        } else {
            lower += 1;
        }
    }
    close(upper, lower);
    short <= long
}

/// The words of `letters` as their case writes them: `XMLHttpRequest` is `XML`, `Http`, `Request`.
fn case_words(letters: &str) -> impl Iterator<Item = &str> {
    let chars: Vec<(usize, char)> = letters.char_indices().collect();
    let starts = (1..chars.len()).filter(|&i| {
        let (before, c) = (chars[i - 1].1, chars[i].1);
        let lower_next = chars.get(i + 1).is_some_and(|(_, next)| next.is_lowercase());
        c.is_uppercase() && (before.is_lowercase() || (before.is_uppercase() && lower_next))
    });
    let bounds: Vec<usize> =
        std::iter::once(0).chain(starts.map(|i| chars[i].0)).chain(std::iter::once(letters.len())).collect();
    (0..bounds.len() - 1).map(move |i| &letters[bounds[i]..bounds[i + 1]])
}

/// Whether an ASCII word of six letters or more can be said, as written words (and runs of them:
/// `supersecretpassword`, `nightshift`, `fizzbuzz`) can and random letters (`qwhtzkpmvbnsxlrd`)
/// mostly cannot: at least one letter in five a vowel (`y` counted), no more than five consonants
/// in a row (`angstrom`, `teststring`), and at most one rare sound in four letters (a run of `j`,
/// `x` or `z`, a `q` without its `u`). A shorter word, or one in another script, is taken as
/// written.
fn pronounceable(word: &str) -> bool {
    if word.len() < 6 || !word.is_ascii() {
        return true;
    }
    let word = word.to_ascii_lowercase();
    let vowel = |c: char| "aeiouy".contains(c);
    let vowels = word.chars().filter(|&c| vowel(c)).count();
    let longest_consonants = word.split(vowel).map(str::len).max().unwrap_or(0);
    vowels * 5 >= word.len() && longest_consonants <= 5 && rare_sounds(&word) * 4 <= word.len()
}

/// The rare sounds of lower-case `word`: each run of `j`, `x` or `z` (`zz` is one), and each `q`
/// not followed by `u`.
fn rare_sounds(word: &str) -> usize {
    let bytes = word.as_bytes();
    (0..bytes.len())
        .filter(|&i| match bytes[i] {
            b'q' => bytes.get(i + 1) != Some(&b'u'),
            c @ (b'j' | b'x' | b'z') => i == 0 || bytes[i - 1] != c,
            _ => false,
        })
        .count()
}

/// The Shannon entropy of `value`'s characters, in bits per character.
fn shannon_bits(value: &str) -> f64 {
    let mut ascii = [0u32; 128];
    let mut other: Vec<char> = Vec::new();
    for c in value.chars() {
        match usize::try_from(u32::from(c)) {
            Ok(i) if i < ascii.len() => ascii[i] += 1,
            _ => other.push(c),
        }
    }
    other.sort_unstable();
    let n = (value.chars().count()).max(1) as f64;
    let counts = ascii
        .iter()
        .copied()
        .filter(|&k| k > 0)
        .chain(other.chunk_by(|a, b| a == b).map(|run| run.len() as u32));
    counts
        .map(|k| {
            let p = f64::from(k) / n;
            -p * p.log2()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_told_from_random_letters() {
        for word in [
            "hunter2",
            "redacted",
            "Redacted",
            "HTTP",
            "HTTPServer",
            "camelCase",
            "ThisIsAnExample",
            "oauth2",
            "v1",
            "contraseña",
        ] {
            assert!(is_word(word), "{word:?}");
        }
        for random in ["xKqmPzWt", "aBcDeF", "s3cr3t", "test12345", "Zr8KpX2m"] {
            assert!(!is_word(random), "{random:?}");
        }
        assert!(!random_enough("hunter2-redacted"));
        assert!(!random_enough("aaaaaaaaaaaaaaaaaaaaaaaaa"));
        assert!(!random_enough("a1a1a1a1a1a1a1a1"));
        assert!(random_enough("Zr8KpX2mQ7vL"));
        assert!(random_enough("3f2a9c1e7b4d5f60"));
    }

    #[test]
    fn random_letters_of_one_case_or_a_few_capitals_are_random_and_written_words_are_not() {
        for random in ["qwhtzkpmvbnsxlrd", "mxqvbtrwplkjhgfdsazcnyeuioqpwlzk", "KhfqwZmbnvTxcrplsdWqazxm"] {
            assert!(random_enough(random), "{random:?}");
        }
        for written in [
            "changeme",
            "placeholder_value",
            "supersecretpassword",
            "correct-horse-battery-staple",
            "XMLHttpRequest",
            "thisisnotasecret",
            "localdevpassword",
            "contraseñasecreta",
            "angstrom-units",
            "postscript-default",
            "fizzbuzz-secret",
            "nightshift123",
            "teststring123",
        ] {
            assert!(!random_enough(written), "{written:?}");
        }
    }

    #[test]
    fn a_literal_for_no_value_or_a_flag_is_a_placeholder_and_a_value_that_starts_so_is_not() {
        for literal in ["null", "NULL", "None", "nil", "undefined", "true", "False"] {
            assert!(is_placeholder(literal), "{literal:?}");
        }
        for value in ["nullable123", "nonexistent", "truest", "hunter2", "falsehood"] {
            assert!(!is_placeholder(value), "{value:?}");
        }
    }
}
