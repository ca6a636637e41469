//! A small, strict DER reader and writer: exactly what certificates, SCTs and RFC 3161 tokens
//! need. Every read is bounds-checked; hostile input gives an error, never a panic.
//!
//! Why our own: the signature checks need the exact signed bytes (a certificate's TBS, a signer's
//! attributes), which typed decoders do not promise to re-encode byte for byte.

use time::OffsetDateTime;

/// Universal tags we read.
pub(crate) const BOOLEAN: u8 = 0x01;
pub(crate) const INTEGER: u8 = 0x02;
pub(crate) const BIT_STRING: u8 = 0x03;
pub(crate) const OCTET_STRING: u8 = 0x04;
pub(crate) const OID: u8 = 0x06;
pub(crate) const UTF8_STRING: u8 = 0x0c;
pub(crate) const UTC_TIME: u8 = 0x17;
pub(crate) const GENERALIZED_TIME: u8 = 0x18;
pub(crate) const SEQUENCE: u8 = 0x30;
pub(crate) const SET: u8 = 0x31;

/// A constructed context-specific tag `[n]`.
pub(crate) const fn ctx(n: u8) -> u8 {
    0xa0 | n
}

/// A primitive context-specific tag `[n]`.
pub(crate) const fn ctx_prim(n: u8) -> u8 {
    0x80 | n
}

/// What is wrong with some DER.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad DER: {0}")]
pub(crate) struct DerError(pub(crate) String);

fn bad<T>(what: impl Into<String>) -> Result<T, DerError> {
    Err(DerError(what.into()))
}

/// One element: its tag, its contents and all of its bytes (header included).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tlv<'a> {
    /// The identifier octet (single-byte tags only).
    pub tag: u8,
    /// The contents octets.
    pub value: &'a [u8],
    /// The whole element, as it is in the input.
    pub raw: &'a [u8],
}

impl<'a> Tlv<'a> {
    /// A reader over this element's contents.
    pub(crate) fn reader(&self) -> Reader<'a> {
        Reader { data: self.value }
    }

    /// The contents of a BIT STRING without unused bits.
    pub(crate) fn bit_string(&self) -> Result<&'a [u8], DerError> {
        match self.value.split_first() {
            Some((0, rest)) if self.tag == BIT_STRING => Ok(rest),
            _ => bad("expected a BIT STRING without unused bits"),
        }
    }

    /// The value of a small non-negative INTEGER.
    pub(crate) fn small_uint(&self) -> Result<u64, DerError> {
        if self.tag != INTEGER || self.value.is_empty() || self.value.len() > 9 || self.value[0] & 0x80 != 0 {
            return bad("expected a small non-negative INTEGER");
        }
        let mut n: u64 = 0;
        for &b in self.value {
            n = n
                .checked_mul(256)
                .and_then(|n| n.checked_add(u64::from(b)))
                .ok_or_else(|| DerError("INTEGER too large".into()))?;
        }
        Ok(n)
    }
}

/// A cursor over a sequence of elements.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reader<'a> {
    data: &'a [u8],
}

impl<'a> Reader<'a> {
    /// A reader over `data`.
    pub(crate) fn new(data: &'a [u8]) -> Self {
        Reader { data }
    }

    /// Whether every element has been read.
    pub(crate) fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The tag of the next element, if any.
    pub(crate) fn peek_tag(&self) -> Option<u8> {
        self.data.first().copied()
    }

    /// Reads the next element, whatever its tag.
    pub(crate) fn any(&mut self) -> Result<Tlv<'a>, DerError> {
        let data = self.data;
        let (&tag, rest) = data.split_first().ok_or_else(|| DerError("unexpected end of data".into()))?;
        if tag & 0x1f == 0x1f {
            return bad("multi-byte tags are not supported");
        }
        let (&first, rest) = rest.split_first().ok_or_else(|| DerError("missing length".into()))?;
        let (len, rest) = if first < 0x80 {
            (usize::from(first), rest)
        } else {
            let n = usize::from(first & 0x7f);
            if n == 0 || n > 4 || rest.len() < n {
                return bad("unsupported or truncated length");
            }
            let len = rest[..n].iter().fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
            if len < 0x80 || rest[0] == 0 {
                return bad("non-minimal length");
            }
            (len, &rest[n..])
        };
        if rest.len() < len {
            return bad("element longer than its container");
        }
        let header = data.len() - rest.len();
        let raw = &data[..header + len];
        self.data = &rest[len..];
        Ok(Tlv { tag, value: &rest[..len], raw })
    }

    /// Reads the next element, which must have tag `tag`.
    pub(crate) fn expect(&mut self, tag: u8) -> Result<Tlv<'a>, DerError> {
        let tlv = self.any()?;
        if tlv.tag != tag {
            return bad(format!("expected tag {tag:#04x}, found {:#04x}", tlv.tag));
        }
        Ok(tlv)
    }

    /// Reads the next element if it has tag `tag`.
    pub(crate) fn optional(&mut self, tag: u8) -> Result<Option<Tlv<'a>>, DerError> {
        if self.peek_tag() == Some(tag) { self.any().map(Some) } else { Ok(None) }
    }
}

/// Parses `data` as exactly one element.
pub(crate) fn parse(data: &[u8]) -> Result<Tlv<'_>, DerError> {
    let mut r = Reader::new(data);
    let tlv = r.any()?;
    if !r.is_empty() {
        return bad("trailing bytes after the element");
    }
    Ok(tlv)
}

/// Encodes one element.
pub(crate) fn encode(tag: u8, value: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let len = value.len();
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes = len.to_be_bytes();
        let skip = bytes.iter().take_while(|&&b| b == 0).count();
        out.push(0x80 | (bytes.len() - skip) as u8);
        out.extend_from_slice(&bytes[skip..]);
    }
    out.extend_from_slice(value);
    out
}

/// The DER contents of an OBJECT IDENTIFIER given in dotted form (a constant of ours).
pub(crate) fn oid(dotted: &str) -> Vec<u8> {
    let arcs: Vec<u64> = dotted.split('.').filter_map(|a| a.parse().ok()).collect();
    let mut out = Vec::new();
    if arcs.len() < 2 {
        return out;
    }
    let mut push = |mut v: u64| {
        let mut tmp = vec![(v & 0x7f) as u8];
        v >>= 7;
        while v > 0 {
            tmp.push(0x80 | (v & 0x7f) as u8);
            v >>= 7;
        }
        out.extend(tmp.iter().rev());
    };
    push(arcs[0] * 40 + arcs[1]);
    for &a in &arcs[2..] {
        push(a);
    }
    out
}

/// Reads a UTCTime or GeneralizedTime (UTC, `Z`, optional fraction of a second).
pub(crate) fn time(tlv: &Tlv<'_>) -> Result<OffsetDateTime, DerError> {
    let text = std::str::from_utf8(tlv.value).map_err(|_| DerError("time is not ASCII".into()))?;
    let text = text.strip_suffix('Z').ok_or_else(|| DerError("time is not in UTC (no Z)".into()))?;
    let (whole, fraction) = match text.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (text, None),
    };
    if !whole.bytes().all(|b| b.is_ascii_digit()) {
        return bad("time has non-digits");
    }
    let (year, rest) = match tlv.tag {
        UTC_TIME if whole.len() == 12 => {
            let yy: i32 = digits(&whole[..2])?;
            (if yy >= 50 { 1900 + yy } else { 2000 + yy }, &whole[2..])
        }
        GENERALIZED_TIME if whole.len() == 14 => (digits(&whole[..4])?, &whole[4..]),
        _ => return bad("not a UTCTime or GeneralizedTime of the expected form"),
    };
    if tlv.tag == UTC_TIME && fraction.is_some() {
        return bad("UTCTime with a fraction");
    }
    let month: u8 = digits(&rest[0..2])?;
    let day: u8 = digits(&rest[2..4])?;
    let (hour, minute, second): (u8, u8, u8) =
        (digits(&rest[4..6])?, digits(&rest[6..8])?, digits(&rest[8..10])?);
    let month = time::Month::try_from(month).map_err(|_| DerError("bad month".into()))?;
    let date = time::Date::from_calendar_date(year, month, day).map_err(|_| DerError("bad date".into()))?;
    let nanos = match fraction {
        None => 0,
        Some(f) if !f.is_empty() && f.len() <= 9 && f.bytes().all(|b| b.is_ascii_digit()) => {
            format!("{f:0<9}").parse::<u32>().map_err(|_| DerError("bad fraction".into()))?
        }
        Some(_) => return bad("bad fraction of a second"),
    };
    let t = time::Time::from_hms_nano(hour, minute, second, nanos)
        .map_err(|_| DerError("bad time of day".into()))?;
    Ok(date.with_time(t).assume_utc())
}

fn digits<T: std::str::FromStr>(s: &str) -> Result<T, DerError> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return bad("expected digits");
    }
    s.parse().map_err(|_| DerError("expected digits".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_oid_encodes_as_der_does() {
        assert_eq!(oid("1.2.840.10045.2.1"), vec![0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01]);
    }

    #[test]
    fn a_truncated_element_is_an_error_not_a_panic() {
        for data in
            [&[0x30u8][..], &[0x30, 0x82, 0x01], &[0x30, 0x05, 0x01], &[0x1f, 0x01, 0x00], &[0x30, 0x80]]
        {
            assert!(Reader::new(data).any().is_err(), "{data:?}");
        }
    }

    #[test]
    fn encoding_and_reading_round_trip_for_long_contents() {
        let value = vec![7u8; 300];
        let enc = encode(OCTET_STRING, &value);
        let tlv = parse(&enc).unwrap();
        assert_eq!(tlv.value, &value[..]);
        assert_eq!(tlv.raw, &enc[..]);
    }

    #[test]
    fn generalized_time_keeps_fractions_of_a_second() {
        let enc = encode(GENERALIZED_TIME, b"20250612120220.123Z");
        let t = time(&parse(&enc).unwrap()).unwrap();
        assert_eq!(t.unix_timestamp(), 1_749_729_740);
        assert_eq!(t.nanosecond(), 123_000_000);
        let utc = encode(UTC_TIME, b"230712155636Z");
        assert_eq!(time(&parse(&utc).unwrap()).unwrap().unix_timestamp(), 1_689_177_396);
    }
}
