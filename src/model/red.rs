//! The red excerpt: the last bytes of the red run's output, bounded and checked clean before it
//! is signed.

use super::clean;
use super::digest::sha256_hex;
use super::predicate::{Red, RedKind};

/// The longest excerpt a statement carries, in bytes.
pub const EXCERPT_MAX: usize = 2048;

/// How many bytes before the excerpt are checked with it: a secret's name (`aws_secret_access_key=`)
/// or a private key's armour can stand before the cut while what they make secret is inside it.
/// An armoured 8192-bit RSA key is about 6.5 KB; a larger key's armour, further back, is found by
/// [`clean::inside_private_key`].
pub const CONTEXT_BEFORE: usize = 8192;

/// The last at most `max` bytes of `text`, starting on a character boundary (the cut moves
/// forward, never splitting a character), with leading line breaks dropped.
#[must_use]
pub fn bound_tail(text: &str, max: usize) -> &str {
    let mut start = text.len().saturating_sub(max);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    text[start..].trim_start_matches(['\n', '\r'])
}

/// Builds the `red` field from the captured output.
///
/// Output that is not valid UTF-8 is read with each invalid sequence replaced by U+FFFD before it
/// is bounded; `output_sha256` is always over the raw bytes. The excerpt is kept only when the
/// clean check passes on it as it is signed, and on it with the [`CONTEXT_BEFORE`] bytes before it
/// (a cut can make a leak of what was none: the tail of a base64 run, of a longer word), and when
/// those bytes, cut from a longer output, do not start inside a private key's body
/// ([`clean::inside_private_key`]: a key too large for them, its armour further back); otherwise
/// it is withheld (`excerpt` and `excerpt_sha256` null).
#[must_use]
pub fn red_from_output(kind: RedKind, output: &[u8]) -> Red {
    let text = String::from_utf8_lossy(output);
    let excerpt = bound_tail(&text, EXCERPT_MAX);
    let output_sha256 = sha256_hex(output);
    let with_context = bound_tail(&text, EXCERPT_MAX + CONTEXT_BEFORE);
    let cut_at = text.len() - with_context.len();
    let in_a_key = cut_at > 0 && clean::inside_private_key(&text, cut_at);
    if !in_a_key && clean::check_str(excerpt).is_ok() && clean::check_str(with_context).is_ok() {
        Red {
            kind,
            excerpt: Some(excerpt.to_owned()),
            excerpt_sha256: Some(sha256_hex(excerpt.as_bytes())),
            output_sha256,
            withheld: false,
        }
    } else {
        Red { kind, excerpt: None, excerpt_sha256: None, output_sha256, withheld: true }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_output_is_kept_whole_without_leading_newlines() {
        assert_eq!(bound_tail("\n\r\nfailed: 1\n", 2048), "failed: 1\n");
    }

    #[test]
    fn long_output_keeps_the_last_bytes() {
        let text = format!("{}END", "a".repeat(5000));
        let tail = bound_tail(&text, EXCERPT_MAX);
        assert_eq!(tail.len(), EXCERPT_MAX);
        assert!(tail.ends_with("END"));
    }

    #[test]
    fn the_cut_never_splits_a_utf8_character() {
        // Each "é" is two bytes and each "€" three: no byte offset is safe by luck.
        for filler in ["é", "€", "\u{1F600}"] {
            for pad in 0..4 {
                let text = format!("{}{}", "x".repeat(pad), filler.repeat(1500));
                let tail = bound_tail(&text, EXCERPT_MAX);
                assert!(tail.len() <= EXCERPT_MAX);
                assert!(tail.len() > EXCERPT_MAX - filler.len());
                assert!(text.ends_with(tail));
            }
        }
    }

    #[test]
    fn a_clean_red_output_is_signed_with_its_digests() {
        let out = b"running 1 test\ntest tags::adds ... FAILED\nassertion failed: tags.len() == 1\n";
        let red = red_from_output(RedKind::Assertion, out);
        assert!(!red.withheld);
        let excerpt = red.excerpt.unwrap();
        assert_eq!(red.excerpt_sha256.unwrap(), sha256_hex(excerpt.as_bytes()));
        assert_eq!(red.output_sha256, sha256_hex(out));
    }

    #[test]
    fn a_red_output_with_a_home_path_or_token_is_withheld() {
        for out in [
            &b"panicked at /home/ada/src/lib.rs:3:5"[..],
            b"token ghp_0123456789abcdefghijABCDEFGHIJ012345 rejected",
        ] {
            let red = red_from_output(RedKind::Assertion, out);
            assert!(red.withheld);
            assert_eq!(red.excerpt, None);
            assert_eq!(red.excerpt_sha256, None);
            assert_eq!(red.output_sha256, sha256_hex(out));
        }
    }

    #[test]
    fn a_leak_before_the_excerpt_and_its_context_does_not_withhold_it() {
        let out =
            format!("/home/ada/x\n{}\nassertion failed", "ok\n".repeat((EXCERPT_MAX + CONTEXT_BEFORE) / 3));
        assert!(!red_from_output(RedKind::Assertion, out.as_bytes()).withheld);
    }

    #[test]
    fn a_secret_whose_name_or_armour_stands_before_the_cut_is_withheld() {
        let value = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz9Q2kLmAb";
        let fill = "test result: FAILED. 0 passed; 1 failed\n".repeat(60);
        let named = format!(
            "{}\naws_secret_access_key={}",
            "x".repeat(100),
            &format!("{value}\n{fill}")[..EXCERPT_MAX]
        );
        let body = "MIIJKAIBAAKCAgEAx3bH4nQ7Yv0kP2cRrJm9sT5uW8zA1bC3dE5fG7hI9jK1lM3n\n".repeat(60);
        let armoured = format!("-----BEGIN RSA PRIVATE KEY-----\n{body}");
        for out in [named, armoured] {
            let red = red_from_output(RedKind::Assertion, out.as_bytes());
            assert!(bound_tail(&out, EXCERPT_MAX).len() < out.len(), "the name or armour is cut off");
            assert!(red.withheld, "{}", &out[..60]);
        }
    }

    #[test]
    fn an_excerpt_unclean_on_its_own_but_clean_with_what_stands_before_it_is_withheld() {
        let fill = "test result: FAILED. 0 passed; 1 failed\n".repeat(60);
        let tail = format!("hf_sMehGAkWvjFAcQeWJKYuvSwMFLZDef\n{fill}");
        let out = format!("running 1 test\nchecksum deadbeef00{}", &tail[..EXCERPT_MAX]);
        assert!(clean::check_str(&out).is_ok(), "clean as a whole: the token is inside a longer word");
        let red = red_from_output(RedKind::Assertion, out.as_bytes());
        assert!(red.withheld && red.excerpt.is_none());
    }

    /// An RSA key of `bytes` bytes of base64 body, as PEM writes it: armour, then lines of 64.
    fn pem_body(bytes: usize) -> String {
        let alphabet = b"Q7Yv0kP2cRrJm9sT5uW8zA1bC3dE5fG7hI9jK1lM3nxX4oN6pL8qB0wZ+/eDgHtU";
        let body: Vec<u8> = (0..bytes).map(|i| alphabet[(i * 7 + i / 64) % alphabet.len()]).collect();
        body.chunks(64).map(|line| format!("{}\n", String::from_utf8_lossy(line))).collect()
    }

    #[test]
    fn red_output_that_stops_inside_a_key_too_large_for_the_context_is_withheld() {
        let body = pem_body(12_800);
        // The armour, or none: the output starts inside the body.
        for armour in
            ["running 1 test\n-----BEGIN RSA PRIVATE KEY-----\n", "-----BEGIN PRIVATE KEY-----\r\n", ""]
        {
            for end in ["", "Q7Yv0k", "-----END RSA PRIV", "-----END", "-----E"] {
                let out = format!("{armour}{body}{end}");
                assert!(out.len() - armour.len() > EXCERPT_MAX + CONTEXT_BEFORE);
                let red = red_from_output(RedKind::Assertion, out.as_bytes());
                assert!(red.withheld && red.excerpt.is_none(), "{armour:?} … {end:?}");
            }
        }
    }

    #[test]
    fn red_output_after_a_whole_key_or_below_base64_that_is_no_key_is_kept() {
        let body = pem_body(12_800);
        let fill = "test result: FAILED. 0 passed; 1 failed\n".repeat(60);
        for out in [
            format!("-----BEGIN CERTIFICATE-----\n{body}"),
            format!("the image differs; actual:\n{body}"),
            format!(
                "-----BEGIN RSA PRIVATE KEY-----\n{body}-----END RSA PRIVATE KEY-----\n{}",
                fill.repeat(5)
            ),
        ] {
            assert!(!red_from_output(RedKind::Assertion, out.as_bytes()).withheld, "{}", &out[..40]);
        }
    }

    #[test]
    fn invalid_utf8_output_is_read_lossily_and_still_bounded() {
        let mut out = vec![0xff; 3000];
        out.extend_from_slice(b"tail");
        let red = red_from_output(RedKind::MissingSymbol, &out);
        let excerpt = red.excerpt.unwrap();
        assert!(excerpt.len() <= EXCERPT_MAX && excerpt.ends_with("tail"));
    }
}
