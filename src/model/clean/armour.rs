//! Where a cut string stands inside a private key's armour: red output that stops, or is cut,
//! inside a key's body holds no `BEGIN` line for the rules to find, only lines of base64.

use super::{LeakKind, check_str};

/// The longest line read as a line of an armour's body: PEM writes 64 characters, OpenSSH 70,
/// OpenPGP 76.
const BODY_LINE_MAX: usize = 100;

/// The shortest line read as a whole line of an armour's body (all but its last are whole): a
/// short word (`ok`) or path (`/tmp/x`) is written in base64's letters too.
const BODY_LINE_MIN: usize = 40;

/// Whether byte `at` of `text` stands inside the body of a private key whose armour begins before
/// it. From the line holding `at` back, through lines of base64 (an armour's body: each but that
/// first one whole, [`BODY_LINE_MIN`] to [`BODY_LINE_MAX`] bytes), blank lines and header lines (`Proc-Type: 4,ENCRYPTED`,
/// `Comment: …`), the first other line, unless it ends an armour (`-----END …`), is one the clean check takes for a private key's
/// (`-----BEGIN RSA PRIVATE KEY-----`, PuTTY's `Private-Lines: 14`); or there is none, and a line
/// of base64 was passed: the text starts inside a body whose armour it does not hold.
///
/// Each line before `at` is looked at once: linear in the length of `text`.
#[must_use]
pub fn inside_private_key(text: &str, at: usize) -> bool {
    let end = text.get(at..).and_then(|rest| rest.find('\n')).map_or(text.len(), |i| at + i);
    let mut passed_body = false;
    for (n, line) in text[..end].rsplit('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if is_body_line(line, if n == 0 { 1 } else { BODY_LINE_MIN }) {
            passed_body = true;
        } else if is_end_line(line) {
            return false;
        } else if check_str(line).is_err_and(|leak| leak.kind == LeakKind::PrivateKey) {
            return true;
        } else if !(line.trim().is_empty() || is_header_line(line)) {
            return false;
        }
    }
    passed_body
}

/// A line of base64 as an armour's body holds it, of at least `min` bytes: letters, digits, `+`
/// and `/`, then at most two `=`.
fn is_body_line(line: &str, min: usize) -> bool {
    let data = line.trim_end_matches('=');
    (min..=BODY_LINE_MAX).contains(&line.len())
        && line.len() - data.len() <= 2
        && !data.is_empty()
        && data.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
}

/// The line that ends an armour (`-----END RSA PRIVATE KEY-----`, `---- END SSH2 …`): what
/// follows it is outside.
fn is_end_line(line: &str) -> bool {
    line.starts_with("---") && line.trim_start_matches('-').trim_start().starts_with("END")
}

/// A header line of an armour (RFC 1421, RFC 4716, OpenPGP, PuTTY): a name of letters, digits
/// and `-`, a colon, then a value.
fn is_header_line(line: &str) -> bool {
    line.split_once(':').is_some_and(|(name, _)| {
        name.starts_with(|c: char| c.is_ascii_alphabetic())
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key's body of `lines` lines of 64 characters of base64.
    fn body(lines: usize) -> String {
        "x3bH4nQ7Yv0kP2cRrJm9sT5uW8zA1bC3dE5fG7hI9jK1lM3nQ7Yv0kP2cRrJm9sT\n".repeat(lines)
    }

    #[test]
    fn a_place_in_a_key_body_is_inside_the_key_whatever_stands_between_it_and_its_armour() {
        for armour in [
            "-----BEGIN RSA PRIVATE KEY-----\n",
            "log\r\n-----BEGIN RSA PRIVATE KEY-----\r\n",
            "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0A1B\n\n",
            "PuTTY-User-Key-File-3: ssh-rsa\nPublic-Lines: 1\nAAAAB3Nz\nPrivate-Lines: 14\n",
            "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: \"ada\"\n",
            "",
        ] {
            let text = format!("{armour}{}", body(200));
            for at in [text.len() - 1, text.len() - 100, armour.len() + 3] {
                assert!(inside_private_key(&text, at), "{armour:?} {at}");
            }
        }
        let cut = format!("x-----BEGIN OPENSSH PRIVATE KEY-----\n{}", body(3));
        assert!(inside_private_key(&cut, 20), "the armour's own line");
    }

    #[test]
    fn a_place_after_a_key_or_in_base64_below_anything_else_is_not_inside_a_key() {
        for text in [
            format!("-----BEGIN RSA PRIVATE KEY-----\n{}-----END RSA PRIVATE KEY-----\nok\n", body(3)),
            format!("-----BEGIN RSA PRIVATE KEY-----\nok\n/tmp/x\n{}", body(3)),
            format!("ok\n/tmp/x\n{}", "ok\n".repeat(3)),
            format!("-----BEGIN CERTIFICATE-----\n{}", body(3)),
            format!("running 1 test\nimage:\n{}", body(3)),
            format!("-----BEGIN RSA PRIVATE KEY-----\ntest result: FAILED\n{}", body(3)),
            format!("{}test result: FAILED. 0 passed; 1 failed\n", body(3)),
        ] {
            assert!(!inside_private_key(&text, text.len() - 3), "{text:?}");
        }
        let long = format!("{}\n{}", "A".repeat(BODY_LINE_MAX + 1), body(1));
        assert!(!inside_private_key(&long, long.len() - 1), "a line longer than an armour's is no body");
        assert!(!inside_private_key("", 0));
    }
}
