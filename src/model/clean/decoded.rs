//! A string decoded once: its percent-escapes (`token%3D…`, as a URL carries text), its
//! characters that NFKC folds to ASCII (fullwidth `ｇｈｐ＿…`, as some fonts and input methods
//! write text), each of its runs of base64 (a key file, a credential or a JSON document sent as
//! base64) and each of its runs of hexadecimal digits (a dump of the bytes sent: `6768705f…`,
//! `67 68 70 5f …`). A secret encoded any of these ways is read whole, and reported at the encoded
//! text it came from.
//!
//! One level only: what a decoding yields is checked as written and never decoded again
//! (`%253D` reads `%3D`; base64 of base64 is not unwrapped), so each string costs a bounded
//! number of passes, each linear in its length.
//!
//! Base64 and hexadecimal are decoded to be read, never flagged for being encoded: digests,
//! signatures, commit ids and keys of every statement are base64 or hexadecimal of random bytes,
//! which decode to no text and are left alone.

use std::ops::Range;

use base64::Engine as _;
use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use unicode_normalization::UnicodeNormalization as _;

use super::view::View;
use super::{Encoding, Leak, MIN_SECRET_CHARS};

/// `raw` with each percent-escape of an ASCII character (`%3D`, `%2f`) decoded, or `None` when it
/// holds none. An escape of another byte (`%C3%A9`) stays as written: the text stays UTF-8 and
/// each decoded character is one byte in it.
pub(super) fn percent_decoded(raw: &str) -> Option<View> {
    let bytes = raw.as_bytes();
    // An escape holds no other `%`, so the escapes found never overlap.
    let escapes =
        raw.match_indices('%').filter_map(|(at, _)| Some((at, 3, escaped_ascii(&bytes[at + 1..])?)));
    replaced(raw, escapes)
}

/// `raw` with each character that NFKC folds to one ASCII character (fullwidth `ｇ`, `＿`, a
/// mathematical bold `𝐀`) folded, or `None` when it holds none. A character NFKC folds to more
/// than one (`ﬁ`, `Ⅳ`) or to another that is not ASCII stays as written.
pub(super) fn compatibility_folded(raw: &str) -> Option<View> {
    if raw.is_ascii() {
        return None;
    }
    let folds = raw.char_indices().filter_map(|(at, c)| Some((at, c.len_utf8(), folded_ascii(c)?)));
    replaced(raw, folds)
}

/// The one ASCII character NFKC folds `c` to, when `c` is not ASCII itself.
fn folded_ascii(c: char) -> Option<u8> {
    if c.is_ascii() {
        return None;
    }
    let mut folded = std::iter::once(c).nfkc();
    let first = folded.next()?;
    folded.next().is_none().then(|| u8::try_from(first).ok().filter(u8::is_ascii)).flatten()
}

/// `raw` with each of `replacements` made (the byte offset and length of what is replaced, in
/// order and apart, and the ASCII character put in its place), or `None` when there is none.
fn replaced(raw: &str, replacements: impl Iterator<Item = (usize, usize, u8)>) -> Option<View> {
    let mut view: Option<View> = None;
    let mut from = 0;
    for (at, len, c) in replacements {
        let view = view.get_or_insert_with(|| View::of_len(raw.len()));
        view.keep(raw, from, at);
        view.put(char::from(c), at);
        from = at + len;
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

/// The fewest hexadecimal digits a run must have to be decoded: two a byte, for the fewest bytes
/// a generated secret has ([`MIN_SECRET_CHARS`]).
pub(super) const MIN_HEX_DIGITS: usize = MIN_SECRET_CHARS * 2;

/// The first leak `check` finds in the text a run of hexadecimal digits in `raw` decodes to,
/// spanning the whole run. Each stretch of text of at least [`MIN_SECRET_CHARS`] bytes the run
/// decodes to is read ([`text_pieces`]): a word of hexadecimal letters next to a dump (`FAILED`,
/// `cafe`) joins it, and a dump of a message holds bytes that are no text around the text.
pub(super) fn hex_leak(raw: &str, check: impl Fn(&str) -> Result<(), Leak>) -> Result<(), Leak> {
    let bytes = raw.as_bytes();
    let mut buffer = Vec::new();
    for run in hex_runs(bytes) {
        buffer.clear();
        let mut digits = bytes[run.clone()].iter().copied().filter(u8::is_ascii_hexdigit).map(hex_value);
        while let (Some(high), Some(low)) = (digits.next(), digits.next()) {
            buffer.push(high * 16 + low);
        }
        for piece in text_pieces(&buffer).filter(|piece| piece.len() >= MIN_SECRET_CHARS) {
            check(piece).map_err(|leak| Leak {
                start: run.start,
                end: run.end,
                encoding: Some(Encoding::Hex),
                ..leak
            })?;
        }
    }
    Ok(())
}

/// The stretches of `bytes` that are text: UTF-8 without a control character but a line break, a
/// carriage return or a tab.
fn text_pieces(bytes: &[u8]) -> impl Iterator<Item = &str> {
    bytes.utf8_chunks().flat_map(|chunk| chunk.valid().split(|c: char| c.is_control() && !is_text_control(c)))
}

/// Whether the control character `c` belongs in text: a line break, a carriage return or a tab.
fn is_text_control(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\t')
}

/// The value of the hexadecimal digit `b`.
fn hex_value(b: u8) -> u8 {
    match b {
        b'0'..=b'9' => b - b'0',
        b'a'..=b'f' => b - b'a' + 10,
        _ => b - b'A' + 10,
    }
}

/// The runs of at least [`MIN_HEX_DIGITS`] hexadecimal digits in `bytes`, in order: pairs of
/// digits, each right after the last or after one blank or line break (`xxd -p`, `xxd -g1`). A
/// run starts at a pair: of an odd number of digits together, the first is left out (`0x…`, or the
/// end of a word before the dump).
fn hex_runs(bytes: &[u8]) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        loop {
            let first = at + bytes[at..].iter().position(u8::is_ascii_hexdigit)?;
            let together = bytes[first..].iter().take_while(|b| b.is_ascii_hexdigit()).count();
            let start = first + together % 2;
            let end = hex_run_end(bytes, start);
            at = end.max(first + 1);
            if bytes[start..end].iter().filter(|b| b.is_ascii_hexdigit()).count() >= MIN_HEX_DIGITS {
                return Some(start..end);
            }
        }
    })
}

/// Where the run of pairs of hexadecimal digits from `start` ends ([`hex_runs`]).
fn hex_run_end(bytes: &[u8], start: usize) -> usize {
    let pair = |at: usize| bytes.get(at..at + 2).is_some_and(|p| p.iter().all(u8::is_ascii_hexdigit));
    let mut end = start;
    loop {
        let gap = match bytes.get(end..) {
            Some([b' ' | b'\n', ..]) => 1,
            Some([b'\r', b'\n', ..]) => 2,
            _ => 0,
        };
        if pair(end) {
            end += 2;
        } else if end > start && gap > 0 && pair(end + gap) {
            end += gap + 2;
        } else {
            return end;
        }
    }
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
    let binary = text.chars().any(|c| c.is_control() && !is_text_control(c));
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
    fn a_hex_run_starts_at_a_pair_and_goes_on_over_one_blank_or_line_break() {
        let runs = |raw: &'static str| hex_runs(raw.as_bytes()).map(|r| &raw[r]).collect::<Vec<_>>();
        let pairs = "6768705f734d656847416b57";
        assert_eq!(runs("0x6768705f734d656847416b57!"), [pairs]);
        assert_eq!(runs("data6768705f734d656847416b57"), [pairs], "a word's last letter is left out");
        assert_eq!(
            runs("67 68 70 5f\n73 4d 65 68\r\n47 41 6b 57 end"),
            ["67 68 70 5f\n73 4d 65 68\r\n47 41 6b 57"]
        );
        assert_eq!(runs("6768705f734d6568  47416b57"), Vec::<&str>::new(), "two blanks end a run");
        assert_eq!(runs("6768705f734d656847416b5"), Vec::<&str>::new(), "23 digits");
    }

    #[test]
    fn each_folded_character_points_at_the_character_it_was_folded_from() {
        let raw = "a\u{ff47}\u{ff48}b\u{1d400}\u{fb01}";
        let view = compatibility_folded(raw).unwrap();
        assert_eq!(view.text, "aghbA\u{fb01}", "a ligature folds to two: left as written");
        let raw_at: Vec<usize> = view.text.char_indices().map(|(at, _)| view.raw_offset(at)).collect();
        assert_eq!(raw_at, [0, 1, 4, 7, 8, 12]);
        assert_eq!(view.raw_offset(view.text.len()), raw.len());
        assert!(compatibility_folded("plain ascii").is_none() && compatibility_folded("caf\u{e9}").is_none());
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
