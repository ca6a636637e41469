//! The Unicode `working-tree-encoding`s, converted as git converts them through iconv.
//!
//! gix converts the work-tree encoding with `encoding_rs`, which implements the WHATWG Encoding
//! Standard: its encoders for UTF-16 write UTF-8 (the standard's "output encoding"), and it knows
//! neither UTF-32 nor git's own `UTF-16LE-BOM`. Those are the encodings people choose this
//! attribute for, so they are converted here, as git on a little-endian machine converts them:
//!
//! | name | written | read |
//! |---|---|---|
//! | `UTF-16`, `UTF-32` | a byte order mark, then little-endian | the mark is required and gives the order |
//! | `UTF-16LE-BOM` | a byte order mark, then little-endian | as `UTF-16` (git reads it so) |
//! | `UTF-16LE`, `UTF-16BE`, `UTF-32LE`, `UTF-32BE` | that order, no mark | a mark is refused |
//!
//! An empty file stays empty both ways, as in git. The messages for a missing or a prohibited mark
//! are git's own.

use std::fmt;

/// One of the Unicode encodings of the table above.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Unicode {
    /// The attribute's value as written (for messages).
    name: &'static str,
    /// Bytes per code unit: 2 (UTF-16) or 4 (UTF-32).
    width: usize,
    /// Whether the code units are written big-endian.
    big_endian: bool,
    /// Whether a byte order mark is written (and required when read), or refused.
    bom: bool,
}

/// The names git accepts for the Unicode encodings converted here, with how each is written.
const KNOWN: [Unicode; 7] = [
    Unicode { name: "UTF-16", width: 2, big_endian: false, bom: true },
    Unicode { name: "UTF-16LE", width: 2, big_endian: false, bom: false },
    Unicode { name: "UTF-16BE", width: 2, big_endian: true, bom: false },
    Unicode { name: "UTF-16LE-BOM", width: 2, big_endian: false, bom: true },
    Unicode { name: "UTF-32", width: 4, big_endian: false, bom: true },
    Unicode { name: "UTF-32LE", width: 4, big_endian: false, bom: false },
    Unicode { name: "UTF-32BE", width: 4, big_endian: true, bom: false },
];

/// The names of [`KNOWN`], for messages.
pub(super) const KNOWN_NAMES: &str = "UTF-16, UTF-16LE, UTF-16BE, UTF-16LE-BOM, UTF-32, UTF-32LE, UTF-32BE";

impl fmt::Display for Unicode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

impl Unicode {
    /// The encoding the attribute value `name` names (case does not matter, as for iconv), if it
    /// is one converted here.
    pub(super) fn named(name: &str) -> Option<Unicode> {
        KNOWN.iter().copied().find(|known| known.name.eq_ignore_ascii_case(name))
    }

    /// The byte order mark in the given order.
    fn mark(&self, big_endian: bool) -> Vec<u8> {
        self.unit(0xFEFF, big_endian)
    }

    /// One code unit as bytes.
    fn unit(&self, value: u32, big_endian: bool) -> Vec<u8> {
        let bytes = if big_endian { value.to_be_bytes() } else { value.to_le_bytes() };
        if self.width == 2 {
            if big_endian { bytes[2..].to_vec() } else { bytes[..2].to_vec() }
        } else {
            bytes.to_vec()
        }
    }

    /// `utf8` (git's form) in this encoding, as `git checkout` writes it.
    ///
    /// # Errors
    /// `utf8` is not UTF-8 (the reason, for [`super::GitError::Convert`]).
    pub(super) fn encode(&self, utf8: &[u8]) -> Result<Vec<u8>, CodingError> {
        if utf8.is_empty() {
            return Ok(Vec::new());
        }
        let text = std::str::from_utf8(utf8)
            .map_err(|reason| CodingError::NotUtf8 { reason, encoding: self.to_string() })?;
        let mut out = Vec::with_capacity(utf8.len() * self.width + self.width);
        if self.bom {
            out.extend(self.mark(self.big_endian));
        }
        if self.width == 2 {
            for unit in text.encode_utf16() {
                out.extend(self.unit(u32::from(unit), self.big_endian));
            }
        } else {
            for c in text.chars() {
                out.extend(self.unit(u32::from(c), self.big_endian));
            }
        }
        Ok(out)
    }

    /// The work-tree bytes `encoded` of `path` in git's form (UTF-8), as `git add` converts them.
    ///
    /// # Errors
    /// A byte order mark missing or prohibited, a length that is no whole number of code units,
    /// or a code unit that is no character (the reason, for [`super::GitError::Convert`]).
    pub(super) fn decode(&self, path: &str, encoded: &[u8]) -> Result<Vec<u8>, CodingError> {
        if encoded.is_empty() {
            return Ok(Vec::new());
        }
        let starts_with_mark = |big_endian| encoded.starts_with(&self.mark(big_endian));
        let (big_endian, body) = if self.bom {
            if starts_with_mark(false) {
                (false, &encoded[self.width..])
            } else if starts_with_mark(true) {
                (true, &encoded[self.width..])
            } else {
                return Err(CodingError::BomRequired { path: path.to_owned(), encoding: self.to_string() });
            }
        } else if starts_with_mark(false) || starts_with_mark(true) {
            return Err(CodingError::BomProhibited { path: path.to_owned(), encoding: self.to_string() });
        } else {
            (self.big_endian, encoded)
        };
        if body.len() % self.width != 0 {
            return Err(CodingError::Length { encoding: self.to_string() });
        }
        let units = body.chunks_exact(self.width).map(|chunk| {
            let mut bytes = [0u8; 4];
            if big_endian {
                bytes[4 - self.width..].copy_from_slice(chunk);
                u32::from_be_bytes(bytes)
            } else {
                bytes[..self.width].copy_from_slice(chunk);
                u32::from_le_bytes(bytes)
            }
        });
        let bad = || CodingError::Invalid { encoding: self.to_string() };
        let mut text = String::with_capacity(body.len());
        if self.width == 2 {
            let units = units.map(|u| u16::try_from(u).unwrap_or(u16::MAX));
            for c in char::decode_utf16(units) {
                text.push(c.map_err(|_| bad())?);
            }
        } else {
            for u in units {
                text.push(char::from_u32(u).ok_or_else(bad)?);
            }
        }
        Ok(text.into_bytes())
    }
}

/// Why bytes cannot be converted between git's form (UTF-8) and a `working-tree-encoding`, in
/// git's words where git has them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum CodingError {
    /// The content in git is not UTF-8.
    #[error("its content in git is not UTF-8 ({reason}), so it cannot be written as {encoding}")]
    NotUtf8 {
        /// Where it stops being UTF-8.
        reason: std::str::Utf8Error,
        /// The encoding.
        encoding: String,
    },
    /// The encoding needs a byte order mark, and the file has none.
    #[error("BOM is required in '{path}' if encoded as {encoding}")]
    BomRequired {
        /// The file.
        path: String,
        /// The encoding.
        encoding: String,
    },
    /// The encoding names its byte order, and the file has a mark.
    #[error("BOM is prohibited in '{path}' if encoded as {encoding}")]
    BomProhibited {
        /// The file.
        path: String,
        /// The encoding.
        encoding: String,
    },
    /// The length is no whole number of code units.
    #[error("its length is not a whole number of {encoding} code units")]
    Length {
        /// The encoding.
        encoding: String,
    },
    /// A code unit is no character.
    #[error("it is not valid {encoding}")]
    Invalid {
        /// The encoding.
        encoding: String,
    },
}

#[cfg(test)]
mod tests {
    use super::Unicode;

    #[test]
    fn each_encoding_writes_what_git_writes_and_reads_it_back() {
        let text = "a\u{e9}\u{1F600}\n".as_bytes();
        for (name, written) in [
            ("UTF-16", "fffe6100e9003dd800de0a00"),
            ("utf-16le", "6100e9003dd800de0a00"),
            ("UTF-16BE", "006100e9d83dde00000a"),
            ("UTF-16LE-BOM", "fffe6100e9003dd800de0a00"),
            ("UTF-32", "fffe000061000000e900000000f601000a000000"),
            ("UTF-32LE", "61000000e900000000f601000a000000"),
            ("UTF-32BE", "00000061000000e90001f6000000000a"),
        ] {
            let unicode = Unicode::named(name).unwrap();
            let encoded = unicode.encode(text).unwrap();
            let hex: String = encoded.iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(hex, written, "{name}");
            assert_eq!(unicode.decode("t.md", &encoded).unwrap(), text, "{name}");
        }
    }

    #[test]
    fn a_mark_is_required_or_refused_as_git_says_and_an_empty_file_stays_empty() {
        let utf16 = Unicode::named("UTF-16").unwrap();
        assert_eq!(
            utf16.decode("t.md", b"a\0").unwrap_err().to_string(),
            "BOM is required in 't.md' if encoded as UTF-16"
        );
        assert_eq!(utf16.decode("t.md", b"\xfe\xff\0a").unwrap(), b"a", "a big-endian mark is read");
        let le = Unicode::named("UTF-16LE").unwrap();
        assert_eq!(
            le.decode("t.md", b"\xff\xfea\0").unwrap_err().to_string(),
            "BOM is prohibited in 't.md' if encoded as UTF-16LE"
        );
        assert!(le.decode("t.md", b"a").unwrap_err().to_string().contains("whole number"));
        assert!(le.decode("t.md", b"\0\xd8").unwrap_err().to_string().contains("not valid UTF-16LE"));
        assert!(le.encode(b"\xff").unwrap_err().to_string().contains("not UTF-8"));
        assert_eq!(utf16.encode(b"").unwrap(), b"");
        assert_eq!(utf16.decode("t.md", b"").unwrap(), b"");
        assert_eq!(Unicode::named("UTF-16BE-BOM"), None);
        assert_eq!(Unicode::named("UTF-8"), None);
    }
}
