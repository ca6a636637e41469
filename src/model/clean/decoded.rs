//! A string decoded once: its percent-escapes (`token%3D…`, as a URL carries text), and each of
//! its runs of base64 (a key file, a credential or a JSON document sent as base64). A secret
//! encoded either way is read whole, and reported at the encoded text it came from.
//!
//! One level only: what a decoding yields is checked as written and never decoded again
//! (`%253D` reads `%3D`; base64 of base64 is not unwrapped), so each string costs a bounded
//! number of passes, each linear in its length.
//!
//! Base64 is decoded to be read, never flagged for being base64: digests, signatures and keys of
//! every statement are base64 or hexadecimal of random bytes, which decode to no text and are
//! left alone.

use std::ops::Range;

use base64::Engine as _;
use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};

use super::view::View;
use super::{Encoding, Leak, MIN_SECRET_CHARS};

/// `raw` with each percent-escape of an ASCII character (`%3D`, `%2f`) decoded, or `None` when it
/// holds none. An escape of another byte (`%C3%A9`) stays as written: the text stays UTF-8 and
/// each decoded character is one byte in it.
pub(super) fn percent_decoded(raw: &str) -> Option<View> {
    let bytes = raw.as_bytes();
    let mut view: Option<View> = None;
    let mut from = 0;
    // An escape holds no other `%`, so the escapes found never overlap.
    for (at, _) in raw.match_indices('%') {
        let Some(c) = escaped_ascii(&bytes[at + 1..]) else { continue };
        let view = view.get_or_insert_with(|| View::of_len(raw.len()));
        view.keep(raw, from, at);
        view.put(c, at);
        from = at + 3;
    }
    let mut view = view?;
    view.keep(raw, from, raw.len());
    view.end_at(raw.len());
    Some(view)
}

/// The ASCII character the two hexadecimal digits `rest` starts with stand for.
fn escaped_ascii(rest: &[u8]) -> Option<u8> {
    let digit = |b: u8| char::from(b).to_digit(16).and_then(|d| u8::try_from(d).ok());
    let [high, low, ..] = *rest else { return None };
    let c = digit(high)? * 16 + digit(low)?;
    c.is_ascii().then_some(c)
}

/// The fewest characters a run of base64 must have to be decoded: 16 characters hold 12 bytes,
/// the fewest a generated secret has ([`MIN_SECRET_CHARS`]); a shorter run is a word, a number or
/// a name far more often than an encoding, and holds no secret the rules could tell.
pub(super) const MIN_BASE64_CHARS: usize = MIN_SECRET_CHARS / 3 * 4;

/// How both alphabets are decoded: padding is left out of the run (a run cut short has none),
/// and the bits a cut leaves over are ignored.
const CONFIG: GeneralPurposeConfig = GeneralPurposeConfig::new()
    .with_decode_padding_mode(DecodePaddingMode::RequireNone)
    .with_decode_allow_trailing_bits(true);

const STANDARD: GeneralPurpose = GeneralPurpose::new(&alphabet::STANDARD, CONFIG);

const URL_SAFE: GeneralPurpose = GeneralPurpose::new(&alphabet::URL_SAFE, CONFIG);

/// The first leak `check` finds in the text a run of base64 in `raw` decodes to, spanning the
/// whole run (its padding included).
pub(super) fn base64_leak(raw: &str, check: impl Fn(&str) -> Result<(), Leak>) -> Result<(), Leak> {
    let mut buffer = Vec::new();
    for run in base64_runs(raw.as_bytes()) {
        let Some(text) = decoded_text(&raw.as_bytes()[run.body.clone()], run.url_safe, &mut buffer) else {
            continue;
        };
        check(text).map_err(|leak| Leak {
            start: run.body.start,
            end: run.end,
            encoding: Some(Encoding::Base64),
            ..leak
        })?;
    }
    Ok(())
}

/// A run of base64 characters in a string.
struct Run {
    /// Its characters, padding left out.
    body: Range<usize>,
    /// The offset just past its padding.
    end: usize,
    /// Whether it is in the URL-safe alphabet (`-`, `_`) rather than the standard one (`+`, `/`).
    url_safe: bool,
}

/// Whether `b` belongs to either base64 alphabet.
fn in_alphabet(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'-' | b'_')
}

/// The runs of at least [`MIN_BASE64_CHARS`] base64 characters in `bytes`, each as long as it
/// goes, in order; a run that mixes the two alphabets (`src/as_read`) is no encoding and is left
/// out.
fn base64_runs(bytes: &[u8]) -> impl Iterator<Item = Run> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        loop {
            let start = at + bytes[at..].iter().position(|&b| in_alphabet(b))?;
            let len = bytes[start..].iter().take_while(|&&b| in_alphabet(b)).count();
            let body = start..start + len;
            let padding = bytes[body.end..].iter().take(2).take_while(|&&b| b == b'=').count();
            at = body.end + padding;
            if len < MIN_BASE64_CHARS {
                continue;
            }
            let has = |set: [u8; 2]| bytes[body.clone()].iter().any(|b| set.contains(b));
            let (standard, url_safe) = (has([b'+', b'/']), has([b'-', b'_']));
            if !(standard && url_safe) {
                return Some(Run { body, end: at, url_safe });
            }
        }
    })
}

/// The text `run` decodes to, in `buffer`, or `None` when it decodes to bytes that are no text
/// ([`as_text`]).
fn decoded_text<'b>(run: &[u8], url_safe: bool, buffer: &'b mut Vec<u8>) -> Option<&'b str> {
    // A length one past a whole group cannot end an encoding: its last character is not part of it.
    let run = if run.len() % 4 == 1 { &run[..run.len() - 1] } else { run };
    let engine = if url_safe { &URL_SAFE } else { &STANDARD };
    // Most runs are names, digests or signatures: their first bytes tell, before the whole run
    // is decoded.
    let mut head = [0u8; MIN_BASE64_CHARS / 4 * 3];
    let len = engine.decode_slice(run.get(..MIN_BASE64_CHARS)?, &mut head).ok()?;
    as_text(&head[..len])?;
    buffer.clear();
    engine.decode_vec(run, buffer).ok()?;
    as_text(buffer)
}

/// `bytes` as text: UTF-8 (cut inside a character at the end at most, as the end of a bounded
/// excerpt cuts one) without a control character but a line break, a carriage return or a tab.
fn as_text(bytes: &[u8]) -> Option<&str> {
    let valid = match std::str::from_utf8(bytes) {
        Ok(_) => bytes.len(),
        Err(cut) if cut.error_len().is_none() => cut.valid_up_to(),
        Err(_) => return None,
    };
    let text = std::str::from_utf8(&bytes[..valid]).ok()?;
    let binary = text.chars().any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'));
    (!binary).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn percent(raw: &str) -> String {
        percent_decoded(raw).map_or_else(|| raw.to_owned(), |v| v.text)
    }

    fn texts(raw: &str) -> Vec<String> {
        let mut buffer = Vec::new();
        base64_runs(raw.as_bytes())
            .filter_map(|run| {
                decoded_text(&raw.as_bytes()[run.body], run.url_safe, &mut buffer).map(str::to_owned)
            })
            .collect()
    }

    #[test]
    fn ascii_escapes_are_decoded_once_and_others_stay_as_written() {
        assert_eq!(percent("a%3Db%2fc%20d"), "a=b/c d");
        assert_eq!(percent("caf%C3%A9 %253D 100% %4 %zz"), "caf%C3%A9 %3D 100% %4 %zz");
        assert!(percent_decoded("no escapes, 100%").is_none());
    }

    #[test]
    fn each_decoded_character_points_at_its_escape_and_the_end_past_the_last() {
        let raw = "x%41b%42";
        let view = percent_decoded(raw).unwrap();
        assert_eq!(view.text, "xAbB");
        let raw_at: Vec<usize> = (0..=view.text.len()).map(|at| view.raw_offset(at)).collect();
        assert_eq!(raw_at, [0, 1, 4, 5, 8]);
    }

    #[test]
    fn runs_of_either_alphabet_that_decode_to_text_are_read() {
        let standard = base64::engine::general_purpose::STANDARD;
        let url_safe = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let text = "{\"a\": \"~~~?>>\"}, long enough";
        let raw = format!("x {} y {}, ", standard.encode(text), url_safe.encode(text));
        assert_eq!(texts(&raw), [text, text]);
        // Cut inside a character, and one character past a whole group.
        let cut = standard.encode("text that ends in é");
        assert_eq!(texts(&cut[..cut.len() - 3]), ["text that ends in "]);
        assert_eq!(texts(&format!("{}Q", standard.encode("twelve bytes"))), ["twelve bytes"]);
    }

    #[test]
    fn short_mixed_and_binary_runs_are_not_read() {
        let standard = base64::engine::general_purpose::STANDARD;
        assert!(texts(&standard.encode("eleven byte")).is_empty(), "15 characters");
        assert!(texts("src/model/clean/as_read.rs").is_empty(), "both alphabets");
        assert!(texts(&standard.encode([0u8, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])).is_empty());
        assert!(texts(&standard.encode([0xffu8; 24])).is_empty(), "not UTF-8");
    }
}
