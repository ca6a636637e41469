//! Times as statements write them (a task verification's `time`, a summary's `timeVerified`):
//! RFC 3339 text, read back.

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// `text` read as an RFC 3339 date and time (`2026-10-26T10:00:00Z`, `2026-10-26T12:00:00+02:00`,
/// a fraction of a second allowed); `None` when it is not one. The date and the time are joined
/// by `T` (or `t`), as RFC 3339's grammar has it: the `time` crate also reads a space there,
/// which the RFC allows only as a note on readability, outside its grammar.
#[must_use]
pub fn rfc3339(text: &str) -> Option<OffsetDateTime> {
    let joined = matches!(text.as_bytes().get(10), Some(b'T' | b't'));
    joined.then(|| OffsetDateTime::parse(text, &Rfc3339).ok()).flatten()
}

/// Whether `text` is an RFC 3339 date and time in UTC, written with `Z` (as a task verification's
/// `time` is).
#[must_use]
pub fn is_rfc3339_utc(text: &str) -> bool {
    rfc3339(text).is_some() && text.ends_with(['Z', 'z'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_in_utc_reads_and_one_with_an_offset_a_space_or_in_words_does_not_count_as_utc() {
        for utc in ["2026-10-26T10:00:00Z", "2026-10-26T10:00:00.123Z"] {
            assert!(is_rfc3339_utc(utc), "{utc}");
        }
        assert!(rfc3339("2026-12-06T15:30:13+02:00").is_some());
        for not_utc in
            ["2026-12-06T15:30:13+02:00", "2026-12-06T15:30:13+00:00", "yesterday", "2026-10-26", ""]
        {
            assert!(!is_rfc3339_utc(not_utc), "{not_utc}");
        }
        assert!(rfc3339("never").is_none());
        assert!(rfc3339("2026-12-06t14:15:35z").is_some(), "RFC 3339 reads T and Z in either case");
        assert!(rfc3339("2026-12-06 14:15:35Z").is_none(), "a space is outside RFC 3339's grammar");
    }
}
