//! The allowed-signers file of `ssh-keygen` (man ssh-keygen, ALLOWED SIGNERS): one trusted key per
//! line, `principals [options] keytype base64 [comment]`. Parsing is complete and strict: where
//! `ssh-keygen` skips a bad line with a warning, we refuse the file and say which line and why.
//! Every string slice below is cut at an ASCII delimiter found in that same string.

use std::fmt;
use std::path::{Path, PathBuf};

use ssh_key::{Algorithm, PublicKey};
use time::format_description::BorrowedFormatItem;
use time::macros::format_description;
use time::{Date, OffsetDateTime, PrimitiveDateTime};

use super::pattern::PatternList;
use super::sshsig::{CERT_SUFFIX, DecodeError, read_certificate_line};
use crate::model::shown::{Quoted, one_line_path};

/// A parsed allowed-signers file; `signers` are in file order.
#[derive(Clone, Debug)]
pub struct AllowedSigners {
    /// The file the lines came from, named in every message about them.
    pub path: PathBuf,
    /// One entry per key line, comments and blank lines dropped.
    pub signers: Vec<AllowedSigner>,
}

/// One key line of an allowed-signers file.
#[derive(Clone, Debug)]
pub struct AllowedSigner {
    /// The 1-based line number in [`AllowedSigners::path`].
    pub line: usize,
    /// The identities this key may sign as (patterns; a matching `!` entry vetoes).
    pub principals: PatternList,
    /// Whether the key is trusted only as a CA of user certificates, not as a signer itself.
    pub cert_authority: bool,
    /// When present, the signature's namespace must match this list.
    pub namespaces: Option<PatternList>,
    /// The key is not trusted for verification times before this (inclusive bound).
    pub valid_after: Option<SignerTime>,
    /// The key is not trusted for verification times after this (inclusive bound).
    pub valid_before: Option<SignerTime>,
    /// The trusted public key, with its comment: for a line naming a certificate, its certified
    /// key (which, with `cert-authority`, is the CA key, as OpenSSH compares a CA line's key).
    pub key: PublicKey,
    /// The certificate the line names, exactly as written (its blob), when its key is one.
    /// Without `cert-authority` such a line trusts signatures made with exactly this certificate,
    /// never the plain key or another certificate of it, as `ssh-keygen` matches it.
    pub certificate: Option<Vec<u8>>,
}

/// A `valid-after`/`valid-before` time and how it was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignerTime {
    /// The instant: in UTC with a trailing `Z`, else in the local time zone's standard time, as
    /// `ssh-keygen` reads it.
    pub at: OffsetDateTime,
    /// Whether the file said UTC with a trailing `Z`.
    pub explicit_utc: bool,
}

/// Why an allowed-signers file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum AllowedSignersError {
    /// The file could not be read at all.
    #[error("cannot read the allowed-signers file {}: {source}", one_line_path(path))]
    Read {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
    /// One line is not a valid allowed-signers line.
    #[error("{}:{line}: {problem}", one_line_path(path))]
    Line {
        /// The file.
        path: PathBuf,
        /// The 1-based line number.
        line: usize,
        /// What is wrong with it.
        problem: LineProblem,
    },
}

/// What is wrong with one allowed-signers line; each message says how to write it instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineProblem {
    /// The line is not UTF-8.
    #[error("the line is not UTF-8 text; save the file as UTF-8")]
    NotUtf8,
    /// A double quote opens but never closes.
    #[error("a double quote is not closed; quote whole values, e.g. namespaces=\"in-toto\"")]
    UnterminatedQuote,
    /// The principals field has an empty entry.
    #[error(
        "the principals `{0}` have an empty entry; write a comma-separated list such as alice@example.com,bob@example.com"
    )]
    BadPrincipals(Quoted),
    /// A double quote inside an unquoted principals field, where ssh-keygen would start a quoted
    /// string and read other principals than those written.
    #[error(
        "the principals `{0}` hold a double quote; quote the whole field (\"alice@example.com,bob@example.com\") or remove it"
    )]
    QuoteInPrincipals(Quoted),
    /// A NUL byte (where ssh-keygen's line ends) or a carriage return before the end of the line
    /// (where it splits a field).
    #[error(
        "the line holds a NUL byte or a carriage return before its end, which ssh-keygen reads differently; save the file as plain text with plain line endings"
    )]
    StrayControl,
    /// Nothing follows the principals and options.
    #[error(
        "no public key on the line; write `principals [options] keytype base64 [comment]`, the key copied from its .pub file"
    )]
    MissingKey,
    /// An option that `ssh-keygen` does not define.
    #[error(
        "unknown option `{0}`; the options are cert-authority, namespaces=\"...\", valid-after=\"...\" and valid-before=\"...\""
    )]
    UnknownOption(Quoted),
    /// The same option twice.
    #[error("option `{0}` is given twice; keep one")]
    DuplicateOption(Quoted),
    /// `name=value` where the value is not in double quotes, or a value is missing.
    #[error("option `{0}` needs a value in double quotes, e.g. {0}=\"...\"")]
    NeedsQuotedValue(Quoted),
    /// `cert-authority=...`.
    #[error("option `{0}` takes no value; write just `{0}`")]
    TakesNoValue(Quoted),
    /// Something other than `,` after an option.
    #[error("unexpected `{0}` after an option; separate options with commas and no spaces")]
    AfterOption(Quoted),
    /// `namespaces=""` or an empty entry in it.
    #[error("namespaces=\"{0}\" has an empty entry; list namespaces such as \"in-toto\" separated by commas")]
    BadNamespaces(Quoted),
    /// A time that is not one of the documented shapes.
    #[error(
        "{option}=\"{value}\" is not a time; write YYYYMMDD[Z] or YYYYMMDDHHMM[SS][Z] (Z for UTC){}",
        utc_suffix(value)
    )]
    BadTime {
        /// `valid-after` or `valid-before`.
        option: &'static str,
        /// The value as written.
        value: Quoted,
    },
    /// A time without `Z`, read in the local time zone, where `TZ` names a zone this reader
    /// cannot read: glibc, and so `ssh-keygen`, may read it, so the time cannot be read as
    /// `ssh-keygen` reads it.
    #[error(
        "{option}=\"{value}\" has no trailing Z, so it is read in the local time zone, and TZ=\"{tz}\" names a zone speccoder cannot read (ssh-keygen may read it otherwise); add Z to say UTC, or set TZ to a zone name such as Europe/Berlin"
    )]
    UnreadableZone {
        /// `valid-after` or `valid-before`.
        option: &'static str,
        /// The value as written.
        value: Quoted,
        /// `TZ` as set.
        tz: Quoted,
    },
    /// `valid-before` earlier than `valid-after`.
    #[error("valid-before is earlier than valid-after, so the key is never valid; swap or fix the times")]
    EmptyValidity,
    /// A key type nobody defines, or an option list that runs into one.
    #[error("`{0}` is neither an option nor a known key type; write `principals [options] keytype base64`")]
    UnknownKeyType(Quoted),
    /// The key text does not decode.
    #[error("the public key cannot be read ({0}); copy the whole line of the key's .pub file")]
    BadKey(Quoted),
}

/// The largest allowed-signers file read: a real one is a line per key, a few KiB.
pub const MAX_BYTES: u64 = 16 << 20;

impl AllowedSigners {
    /// Reads and parses the file at `path`: a regular file of at most [`MAX_BYTES`] (a link to
    /// one is followed), never blocking on a FIFO or a device.
    pub fn read(path: &Path) -> Result<Self, AllowedSignersError> {
        let bytes = crate::input::read_regular_through_links(path, MAX_BYTES)
            .map_err(|e| AllowedSignersError::Read { path: path.to_owned(), source: e.into_io() })?;
        Self::parse(&bytes, path)
    }

    /// Parses file content; `path` only names the file in messages.
    pub fn parse(content: &[u8], path: &Path) -> Result<Self, AllowedSignersError> {
        let mut signers = Vec::new();
        for (index, raw) in content.split(|&b| b == b'\n').enumerate() {
            let line = index + 1;
            let fail = |problem| AllowedSignersError::Line { path: path.to_owned(), line, problem };
            let text = std::str::from_utf8(raw).map_err(|_| fail(LineProblem::NotUtf8))?;
            if let Some(signer) = parse_line(text, line).map_err(fail)? {
                signers.push(signer);
            }
        }
        Ok(Self { path: path.to_owned(), signers })
    }

    /// A file of one line trusting `key` as any principal (`*`) for `namespace`, with no
    /// validity window: the plain key, or with `certificate` (its blob) exactly that certificate
    /// of it; `path` only names it in messages.
    #[must_use]
    pub fn one_key(key: &PublicKey, certificate: Option<&[u8]>, namespace: &str, path: &Path) -> Self {
        let any = |text: &str| PatternList {
            patterns: vec![super::pattern::Pattern { text: text.to_owned(), negated: false }],
        };
        let signer = AllowedSigner {
            line: 1,
            principals: any("*"),
            cert_authority: false,
            namespaces: Some(any(namespace)),
            valid_after: None,
            valid_before: None,
            key: PublicKey::from(key.key_data().clone()),
            certificate: certificate.map(<[u8]>::to_vec),
        };
        Self { path: path.to_owned(), signers: vec![signer] }
    }

    /// Warnings worth showing: times without `Z`, read in the local time zone as `ssh-keygen`
    /// reads them, so that the verdict depends on where it is run.
    #[must_use]
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        for s in &self.signers {
            for (name, t) in [("valid-after", s.valid_after), ("valid-before", s.valid_before)] {
                if let Some(t) = t.filter(|t| !t.explicit_utc) {
                    notes.push(format!(
                        "{}:{}: {name} has no trailing Z, so it is read in this machine's time zone, in its standard time even in summer, as ssh-keygen reads it ({} UTC here), and another verifier may read it otherwise: add Z to say UTC",
                        self.path.display(),
                        s.line,
                        t.at
                    ));
                }
            }
        }
        notes
    }
}

impl fmt::Display for AllowedSigner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {} ({})", self.line, self.principals)
    }
}

/// One line: `Ok(None)` for blank and comment lines.
fn parse_line(text: &str, line: usize) -> Result<Option<AllowedSigner>, LineProblem> {
    let text = text.strip_suffix('\r').unwrap_or(text);
    let rest = text.trim_start_matches([' ', '\t']);
    if rest.is_empty() || rest.starts_with('#') {
        return Ok(None);
    }
    if rest.contains(['\r', '\0']) {
        return Err(LineProblem::StrayControl);
    }
    let (principals_text, rest) = principals_field(rest)?;
    let principals = PatternList::parse(principals_text)
        .ok_or_else(|| LineProblem::BadPrincipals(principals_text.into()))?;
    let rest = skip_blanks(rest);
    let (first, after_first) = options_field(rest)?;
    if first.is_empty() {
        return Err(LineProblem::MissingKey);
    }
    let mut options = LineOptions::default();
    let key_text = if is_key_type(first) {
        rest
    } else {
        let key_text = skip_blanks(after_first);
        let next = key_text.split([' ', '\t']).next().unwrap_or("");
        if next.is_empty() {
            return Err(if looks_like_options(first) {
                LineProblem::MissingKey
            } else {
                LineProblem::UnknownKeyType(first.into())
            });
        }
        if !is_key_type(next) && !looks_like_options(first) {
            return Err(LineProblem::UnknownKeyType(first.into()));
        }
        parse_options(first, &mut options)?;
        key_text
    };
    let (key, certificate) = parse_key(key_text)?;
    if let (Some(a), Some(b)) = (options.valid_after, options.valid_before)
        && b.at < a.at
    {
        return Err(LineProblem::EmptyValidity);
    }
    Ok(Some(AllowedSigner {
        line,
        principals,
        cert_authority: options.cert_authority,
        namespaces: options.namespaces,
        valid_after: options.valid_after,
        valid_before: options.valid_before,
        key,
        certificate,
    }))
}

/// The options field of one line, before the key is known.
#[derive(Default)]
struct LineOptions {
    cert_authority: bool,
    namespaces: Option<PatternList>,
    valid_after: Option<SignerTime>,
    valid_before: Option<SignerTime>,
}

fn skip_blanks(s: &str) -> &str {
    s.trim_start_matches([' ', '\t'])
}

/// The principals field: a word, or a double-quoted string (which may hold spaces).
fn principals_field(s: &str) -> Result<(&str, &str), LineProblem> {
    if let Some(quoted) = s.strip_prefix('"') {
        let end = quoted.find('"').ok_or(LineProblem::UnterminatedQuote)?;
        let rest = &quoted[end + 1..];
        if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
            return Err(LineProblem::BadPrincipals(s.split([' ', '\t']).next().unwrap_or(s).into()));
        }
        Ok((&quoted[..end], rest))
    } else {
        let end = s.find([' ', '\t']).unwrap_or(s.len());
        if s[..end].contains('"') {
            return Err(LineProblem::QuoteInPrincipals(s[..end].into()));
        }
        Ok((&s[..end], &s[end..]))
    }
}

/// The next whitespace-delimited field, where whitespace inside double quotes does not count.
fn options_field(s: &str) -> Result<(&str, &str), LineProblem> {
    let mut in_quote = false;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_quote => escaped = true,
            '"' => in_quote = !in_quote,
            ' ' | '\t' if !in_quote => return Ok((&s[..i], &s[i..])),
            _ => {}
        }
    }
    if in_quote {
        return Err(LineProblem::UnterminatedQuote);
    }
    Ok((s, ""))
}

fn looks_like_options(field: &str) -> bool {
    field.contains(['=', ',', '"']) || field.eq_ignore_ascii_case("cert-authority")
}

fn is_key_type(word: &str) -> bool {
    word.ends_with(CERT_SUFFIX) || matches!(Algorithm::new(word), Ok(a) if !matches!(a, Algorithm::Other(_)))
}

fn parse_options(mut s: &str, options: &mut LineOptions) -> Result<(), LineProblem> {
    while !s.is_empty() {
        let name_end = s.find(['=', ',']).unwrap_or(s.len());
        let name = &s[..name_end];
        s = &s[name_end..];
        let value = match s.strip_prefix('=') {
            Some(v) => {
                let (value, rest) =
                    quoted_value(v).ok_or_else(|| LineProblem::NeedsQuotedValue(name.into()))?;
                s = rest;
                Some(value)
            }
            None => None,
        };
        apply_option(name, value, options)?;
        match s.strip_prefix(',') {
            Some(rest) if !rest.is_empty() => s = rest,
            Some(_) => return Err(LineProblem::AfterOption(",".into())),
            None if s.is_empty() => {}
            None => return Err(LineProblem::AfterOption(s.chars().take(20).collect::<String>().into())),
        }
    }
    Ok(())
}

/// `"value"` at the start of `s` (with `\"` for a quote inside); the value and what follows.
fn quoted_value(s: &str) -> Option<(String, &str)> {
    let inner = s.strip_prefix('"')?;
    let mut value = String::new();
    let mut chars = inner.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' if inner[i + 1..].starts_with('"') => {
                value.push('"');
                chars.next();
            }
            '"' => return Some((value, &inner[i + 1..])),
            _ => value.push(c),
        }
    }
    None
}

fn apply_option(name: &str, value: Option<String>, options: &mut LineOptions) -> Result<(), LineProblem> {
    let lower = name.to_ascii_lowercase();
    let duplicate = || LineProblem::DuplicateOption(lower.as_str().into());
    match lower.as_str() {
        "cert-authority" => {
            if value.is_some() {
                return Err(LineProblem::TakesNoValue(lower.into()));
            }
            if options.cert_authority {
                return Err(duplicate());
            }
            options.cert_authority = true;
        }
        "namespaces" => {
            let value = value.ok_or_else(|| LineProblem::NeedsQuotedValue(lower.as_str().into()))?;
            if options.namespaces.is_some() {
                return Err(duplicate());
            }
            options.namespaces = Some(
                PatternList::parse(&value)
                    .ok_or_else(|| LineProblem::BadNamespaces(value.as_str().into()))?,
            );
        }
        "valid-after" | "valid-before" => {
            let option = if lower == "valid-after" { "valid-after" } else { "valid-before" };
            let value = value.ok_or_else(|| LineProblem::NeedsQuotedValue(lower.as_str().into()))?;
            let time = parse_time(option, &value)?;
            let slot =
                if option == "valid-after" { &mut options.valid_after } else { &mut options.valid_before };
            if slot.is_some() {
                return Err(duplicate());
            }
            *slot = Some(time);
        }
        _ => return Err(LineProblem::UnknownOption(name.into())),
    }
    Ok(())
}

/// The line's key, and for a certificate its blob (its certified key is the key).
fn parse_key(text: &str) -> Result<(PublicKey, Option<Vec<u8>>), LineProblem> {
    let text = text.trim_end_matches([' ', '\t']);
    let key_type = text.split([' ', '\t']).next().unwrap_or("");
    if !is_key_type(key_type) {
        return Err(LineProblem::UnknownKeyType(key_type.into()));
    }
    if key_type.ends_with(CERT_SUFFIX) {
        let (cert, comment) = read_certificate_line(text).map_err(|e| match e {
            DecodeError::Malformed(reason) | DecodeError::Unsupported(reason) => {
                LineProblem::BadKey(reason.into())
            }
        })?;
        return Ok((PublicKey::new(cert.cert.public_key().clone(), comment), Some(cert.blob().to_vec())));
    }
    let key = PublicKey::from_openssh(text).map_err(|e| LineProblem::BadKey(e.to_string().into()))?;
    Ok((key, None))
}

/// `YYYYMMDD[Z]` or `YYYYMMDDHHMM[SS][Z]`, as `ssh-keygen` documents and reads it: with `Z` in
/// UTC, else in the local time zone (`TZ`, else the system's), in its standard time
/// ([`in_zone`]). A time before 1970, which `ssh-keygen` refuses, is no time; so is a date the
/// calendar does not have or a 60th second (`20230229`, which `ssh-keygen` moves on to the 1st of
/// March).
///
/// # Errors
/// `value` (of `option`) is no such time ([`LineProblem::BadTime`]), or, without `Z`, the local
/// time zone cannot be read ([`LineProblem::UnreadableZone`]).
fn parse_time(option: &'static str, value: &str) -> Result<SignerTime, LineProblem> {
    let bad = || LineProblem::BadTime { option, value: value.into() };
    // Its shape first: a value that is no time is that, whatever the zone.
    parse_time_in(value, &jiff::tz::TimeZone::UTC).ok_or_else(bad)?;
    let local = match local_zone() {
        Ok(zone) => zone,
        Err(tz) if !value.ends_with(['Z', 'z']) => {
            return Err(LineProblem::UnreadableZone { option, value: value.into(), tz: tz.as_str().into() });
        }
        Err(_) => jiff::tz::TimeZone::UTC,
    };
    parse_time_in(value, &local).ok_or_else(bad)
}

/// The local time zone, as `ssh-keygen` reads a time without `Z`: `TZ`'s, else the system's,
/// else UTC (glibc's reading without either). `Err` with `TZ` as set when it names a zone jiff
/// cannot read, where glibc may read one (a POSIX rule without its dates, `CET-1CEST`): jiff would
/// read the time in another zone and say nothing.
fn local_zone() -> Result<jiff::tz::TimeZone, String> {
    match jiff::tz::TimeZone::try_system() {
        Ok(zone) => Ok(zone),
        Err(_) => match std::env::var_os("TZ") {
            Some(tz) if !tz.is_empty() => Err(tz.to_string_lossy().into_owned()),
            _ => Ok(jiff::tz::TimeZone::UTC),
        },
    }
}

/// What a `BadTime` adds for a value with the `UTC` suffix, which `ssh-keygen` reads but its
/// manual does not document.
fn utc_suffix(value: &Quoted) -> &'static str {
    if value.to_string().to_ascii_uppercase().ends_with("UTC") {
        "; ssh-keygen also reads a UTC suffix, which its manual does not document and speccoder does not take: write Z"
    } else {
        ""
    }
}

/// [`parse_time`] with `local` for the local time zone.
fn parse_time_in(value: &str, local: &jiff::tz::TimeZone) -> Option<SignerTime> {
    const DAY: &[BorrowedFormatItem<'_>] = format_description!("[year range:standard][month][day]");
    const MINUTE: &[BorrowedFormatItem<'_>] =
        format_description!("[year range:standard][month][day][hour][minute]");
    const SECOND: &[BorrowedFormatItem<'_>] =
        format_description!("[year range:standard][month][day][hour][minute][second]");
    let (digits, explicit_utc) = match value.strip_suffix(['Z', 'z']) {
        Some(d) => (d, true),
        None => (value, false),
    };
    // Digits only: the format would also take a sign before the year.
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let civil = match digits.len() {
        8 => Date::parse(digits, DAY).ok()?.midnight(),
        12 => PrimitiveDateTime::parse(digits, MINUTE).ok()?,
        14 => PrimitiveDateTime::parse(digits, SECOND).ok()?,
        _ => return None,
    };
    let at = if explicit_utc { civil.assume_utc() } else { in_zone(civil, local)? };
    (at >= OffsetDateTime::UNIX_EPOCH).then_some(SignerTime { at, explicit_utc })
}

/// The instant `civil` names in the time zone `zone` as `ssh-keygen` reads it: its `mktime` is
/// told no summer time (`tm_isdst` 0), so a time is read in the zone's standard time even when
/// summer time applies (and where a clock change skips or repeats it).
fn in_zone(civil: PrimitiveDateTime, zone: &jiff::tz::TimeZone) -> Option<OffsetDateTime> {
    let civil = jiff::civil::DateTime::new(
        i16::try_from(civil.year()).ok()?,
        i8::try_from(u8::from(civil.month())).ok()?,
        i8::try_from(civil.day()).ok()?,
        i8::try_from(civil.hour()).ok()?,
        i8::try_from(civil.minute()).ok()?,
        i8::try_from(civil.second()).ok()?,
        0,
    )
    .ok()?;
    let guess = zone.to_timestamp(civil).ok()?;
    let info = zone.to_offset_info(guess);
    let offset = if info.dst().is_dst() { standard_offset(zone, guess) } else { info.offset() };
    let seconds = offset.to_timestamp(civil).ok()?.as_second();
    OffsetDateTime::from_unix_timestamp(seconds).ok()
}

/// The offset of the standard time nearest `at`, a time of summer time in `zone`, as glibc's
/// `mktime` takes it: of the period before or after, whichever is nearer (the earlier on a tie);
/// an hour less than summer time's in a zone without standard time.
fn standard_offset(zone: &jiff::tz::TimeZone, at: jiff::Timestamp) -> jiff::tz::Offset {
    let mut summer_began = at;
    let before = zone.preceding(at).find(|t| {
        let summer = t.dst().is_dst();
        if summer {
            summer_began = t.timestamp();
        }
        !summer
    });
    let after = zone.following(at).find(|t| !t.dst().is_dst());
    let seconds = |from: jiff::Timestamp, to: jiff::Timestamp| to.as_second() - from.as_second();
    match (before, after) {
        (Some(b), Some(a)) if seconds(summer_began, at) <= seconds(at, a.timestamp()) => b.offset(),
        (_, Some(a)) => a.offset(),
        (Some(b), None) => b.offset(),
        (None, None) => {
            let summer = zone.to_offset(at);
            jiff::tz::Offset::from_seconds(summer.seconds() - 3600).unwrap_or(summer)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    /// A time as `parse_time` reads a `valid-after` value, when it is one.
    fn read_time(value: &str) -> Option<SignerTime> {
        parse_time("valid-after", value).ok()
    }

    const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIM1F1IGYRsN7+kLL4bWpeHeS4XOi9t/MahTtaUesxggT";

    fn parse(text: &str) -> Result<AllowedSigners, AllowedSignersError> {
        AllowedSigners::parse(text.as_bytes(), Path::new("trust/allowed_signers"))
    }

    fn problem(text: &str) -> (usize, LineProblem) {
        match parse(text) {
            Err(AllowedSignersError::Line { line, problem, .. }) => (line, problem),
            other => panic!("expected a line error for {text:?}, got {other:?}"),
        }
    }

    #[test]
    fn a_full_file_with_comments_options_and_comments_after_keys_parses() {
        let text = format!(
            "# trust\n\n   \t\nalice@example.com,bob@example.com {KEY} alice laptop\n\
             *@example.com,!mallory@example.com CERT-AUTHORITY,namespaces=\"in-toto,file\" {KEY}\n\
             \"carol smith\" valid-after=\"20240101\",valid-before=\"202501021530Z\" {KEY}\r\n  # indented comment\n"
        );
        let a = parse(&text).expect("parses");
        assert_eq!(a.signers.len(), 3);
        let [s1, s2, s3] = &a.signers[..] else { unreachable!() };
        assert_eq!((s1.line, s2.line, s3.line), (4, 5, 6));
        assert_eq!(s1.principals.to_string(), "alice@example.com,bob@example.com");
        assert_eq!(s1.key.comment(), "alice laptop");
        assert!(!s1.cert_authority && s2.cert_authority);
        assert!(s2.namespaces.as_ref().is_some_and(|n| n.matches("in-toto") && !n.matches("git")));
        assert_eq!(s3.principals.to_string(), "carol smith");
        let local = in_zone(datetime!(2024-01-01 0:00), &jiff::tz::TimeZone::system());
        assert_eq!(s3.valid_after.map(|t| t.at), local);
        assert_eq!(
            s3.valid_before.map(|t| (t.at, t.explicit_utc)),
            Some((datetime!(2025-01-02 15:30 UTC), true))
        );
        assert_eq!(a.notes().len(), 1, "{:?}", a.notes());
        assert!(a.notes()[0].starts_with("trust/allowed_signers:6: valid-after has no trailing Z"));
    }

    #[test]
    fn a_time_without_z_is_read_in_the_local_time_zone_as_ssh_keygen_reads_it() {
        let new_york = jiff::tz::TimeZone::fixed(jiff::tz::offset(-5));
        let at = |value| parse_time_in(value, &new_york).map(|t| t.at);
        assert_eq!(at("202612050800"), Some(datetime!(2026-12-05 13:00 UTC)));
        assert_eq!(at("202612050800Z"), Some(datetime!(2026-12-05 8:00 UTC)));
        let paris = jiff::tz::TimeZone::fixed(jiff::tz::offset(1));
        assert_eq!(parse_time_in("19700101", &paris), None, "before 1970 in UTC");
    }

    /// `ssh-keygen`'s `mktime` is told no summer time: 13:30 in Berlin on 1 July is 12:30 UTC
    /// (standard time, CET), not 11:30 (summer time, CEST); a time the spring change skips and one
    /// the autumn change repeats are read in standard time too; a winter time as ever.
    #[test]
    fn a_time_without_z_is_read_in_standard_time_even_in_summer_as_ssh_keygen_reads_it() {
        let berlin = jiff::tz::TimeZone::posix("CET-1CEST,M3.5.0,M10.5.0/3").expect("a POSIX zone");
        let at = |value| parse_time_in(value, &berlin).map(|t| t.at);
        assert_eq!(at("20240701133000"), Some(datetime!(2024-07-01 12:30 UTC)));
        assert_eq!(at("202403310230"), Some(datetime!(2024-03-31 1:30 UTC)), "skipped");
        assert_eq!(at("202410270230"), Some(datetime!(2024-10-27 1:30 UTC)), "repeated");
        assert_eq!(at("202401151330"), Some(datetime!(2024-01-15 12:30 UTC)));
        assert_eq!(at("20240701133000Z"), Some(datetime!(2024-07-01 13:30 UTC)));
    }

    #[test]
    fn every_documented_time_shape_is_read_and_others_are_refused() {
        let utc = |value| parse_time_in(value, &jiff::tz::TimeZone::UTC);
        assert_eq!(utc("20240229").map(|t| t.at), Some(datetime!(2024-02-29 0:00 UTC)));
        assert_eq!(read_time("20240229Z").map(|t| t.explicit_utc), Some(true));
        assert_eq!(utc("202402291201").map(|t| t.at), Some(datetime!(2024-02-29 12:01 UTC)));
        assert_eq!(read_time("20240229120159Z").map(|t| t.at), Some(datetime!(2024-02-29 12:01:59 UTC)));
        for bad in [
            "2024022",
            "20230229",
            "202402291261",
            "2024022912",
            "+2024022",
            "20240229ZZ",
            "",
            "２０２４０２２９",
            "19691231",
            "00260101Z",
        ] {
            assert!(read_time(bad).is_none(), "{bad}");
        }
        assert_eq!(read_time("19700101Z").map(|t| t.at), Some(OffsetDateTime::UNIX_EPOCH));
    }

    /// Each time is read here exactly when `ssh-keygen -Y verify` reads it: a line whose time it
    /// cannot read, it skips, and with the only line of the file skipped nothing verifies. Every
    /// time is in the past, so a line read trusts the key now.
    #[test]
    fn a_time_is_read_here_exactly_when_ssh_keygen_reads_it() {
        use crate::sign::ssh::test_support::{keygen, public_line, tool_sign, tool_verifies};
        const MESSAGE: &[u8] = b"DSSEv1 28 application/vnd.in-toto+json 2 {}";
        let dir = tempfile::tempdir().unwrap();
        let key = keygen(dir.path(), "ada", "ed25519");
        let sig = tool_sign(dir.path(), &key, "in-toto", MESSAGE);
        let key = public_line(&key);
        let ssh_keygen_reads = |value: &str| {
            let allowed = format!("ada@example.com valid-after=\"{value}\" {key}\n");
            tool_verifies(dir.path(), &allowed, "ada@example.com", "in-toto", &sig, MESSAGE)
        };
        for value in [
            "20240229",
            "20240229Z",
            "20240229z",
            "202402291201",
            "202402291201Z",
            "20240229120159",
            "20240229120159Z",
            "19700102Z",
            "202402291261",
            "20240229126000",
            "20240229240000",
            "2024022912",
            "2024022",
            "20241301",
            "20240100",
            "19691231",
            "00260101Z",
            "2024-02-29",
            "+2024022",
            " 20240229",
            "20240229ZZ",
            "２０２４０２２９",
        ] {
            assert_eq!(read_time(value).is_some(), ssh_keygen_reads(value), "{value}");
        }
        // Refused here, read by ssh-keygen 9.2: a date the calendar lacks and a 60th second (its
        // strptime takes them, and timegm moves them on to the next month or minute), and the
        // `UTC` suffix, which its manual does not document.
        for value in ["20230229", "20240431", "20240229120160", "20240229UTC"] {
            assert!(read_time(value).is_none() && ssh_keygen_reads(value), "{value}");
        }
    }

    #[test]
    fn what_ssh_keygen_reads_as_other_fields_is_refused_not_guessed() {
        // ssh-keygen starts a quoted string at a quote anywhere in the principals, ends the line
        // at a NUL byte and splits fields at a carriage return: each would give other principals.
        assert_eq!(
            problem(&format!("alice\"@example.com {KEY}\n")).1,
            LineProblem::QuoteInPrincipals("alice\"@example.com".into())
        );
        assert_eq!(problem(&format!("alice\rbob {KEY}\n")).1, LineProblem::StrayControl);
        assert_eq!(problem(&format!("alice\0 {KEY}\n")).1, LineProblem::StrayControl);
        let quoted = parse(&format!("# a comment\rwith a CR\n\"alice@example.com\" {KEY}\r\n"))
            .expect("a comment holding anything, a quoted field and CRLF");
        assert_eq!(quoted.signers[0].principals.to_string(), "alice@example.com");
        assert_eq!(quoted.signers[0].line, 2);
    }

    #[test]
    fn bad_lines_are_reported_with_file_line_and_what_to_do() {
        let err = parse(&format!("# ok\nalice foo=\"x\" {KEY}\n")).unwrap_err().to_string();
        assert_eq!(
            err,
            "trust/allowed_signers:2: unknown option `foo`; the options are cert-authority, namespaces=\"...\", valid-after=\"...\" and valid-before=\"...\""
        );
        assert_eq!(problem("alice\n"), (1, LineProblem::MissingKey));
        assert_eq!(
            problem("alice namespaces=in-toto KEY\n").1,
            LineProblem::NeedsQuotedValue("namespaces".into())
        );
        assert_eq!(problem(&format!("alice namespaces=\"in-toto {KEY}")).1, LineProblem::UnterminatedQuote);
        assert_eq!(problem(&format!("alice namespaces=\"\" {KEY}")).1, LineProblem::BadNamespaces("".into()));
        assert_eq!(problem(&format!("a,,b {KEY}")).1, LineProblem::BadPrincipals("a,,b".into()));
        assert_eq!(
            problem(&format!("a cert-authority,cert-authority {KEY}")).1,
            LineProblem::DuplicateOption("cert-authority".into())
        );
        assert_eq!(
            problem(&format!("a cert-authority=\"x\" {KEY}")).1,
            LineProblem::TakesNoValue("cert-authority".into())
        );
        assert_eq!(problem(&format!("a cert-authority, {KEY}")).1, LineProblem::AfterOption(",".into()));
        assert_eq!(
            problem(&format!("a valid-after=\"20300101\",valid-before=\"20200101\" {KEY}")).1,
            LineProblem::EmptyValidity
        );
        assert!(matches!(
            problem(&format!("a valid-after=\"2020\" {KEY}")).1,
            LineProblem::BadTime { option: "valid-after", .. }
        ));
        let (_, utc) = problem(&format!("a valid-after=\"20200101UTC\" {KEY}\n"));
        assert!(utc.to_string().contains("ssh-keygen also reads a UTC suffix"), "{utc}");
        let (_, plain) = problem(&format!("a valid-after=\"2020\" {KEY}\n"));
        assert!(!plain.to_string().contains("UTC suffix"), "{plain}");
        assert_eq!(problem("a ssh-ed448 AAAA\n").1, LineProblem::UnknownKeyType("ssh-ed448".into()));
        assert_eq!(
            problem(&format!("a cert-authorty {KEY}")).1,
            LineProblem::UnknownOption("cert-authorty".into())
        );
        assert!(matches!(problem("a ssh-ed25519 AAAAnotakey\n").1, LineProblem::BadKey(_)));
        assert!(matches!(
            problem("a ssh-ed25519-cert-v01@openssh.com AAAA\n").1,
            LineProblem::BadKey(r) if r.to_string().contains("is not of the type")
        ));
        assert_eq!(problem("\n\nalice \u{1}\u{ff}"), (3, LineProblem::UnknownKeyType("\u{1}\u{ff}".into())));
    }

    /// A line may name a certificate, valid forever as `ssh-keygen -s` makes it by default, with
    /// or without cert-authority: its key is the certified key, and the line keeps the
    /// certificate exactly as written. One that does not decode is named like any bad key.
    #[test]
    fn a_line_naming_a_certificate_keeps_the_certificate_and_its_certified_key() {
        use crate::sign::ssh::test_support::{certify, keygen, public_line};
        let dir = tempfile::tempdir().unwrap();
        let (ca, ada) = (keygen(dir.path(), "ca", "ed25519"), keygen(dir.path(), "ada", "ed25519"));
        let cert = certify(&ca, &ada, "ada-id", "ada@example.com", &[]);
        let cert_line = std::fs::read_to_string(&cert).unwrap();
        let cert_line = cert_line.trim();
        let a = parse(&format!("ada@example.com {cert_line}\n*@example.com cert-authority {cert_line}\n"))
            .expect("certificate lines parse");
        let plain = PublicKey::from_openssh(&public_line(&ada)).unwrap();
        let blob = base64::Engine::decode(
            &base64::engine::general_purpose::STANDARD,
            cert_line.split(' ').nth(1).unwrap(),
        )
        .unwrap();
        for s in &a.signers {
            assert_eq!(s.key.key_data(), plain.key_data(), "line {}", s.line);
            assert_eq!(s.key.comment(), "ada", "line {}", s.line);
            assert_eq!(s.certificate.as_deref(), Some(&blob[..]), "line {}", s.line);
        }
        assert!(!a.signers[0].cert_authority && a.signers[1].cert_authority);
        let mut cut = cert_line.to_owned();
        cut.truncate(cert_line.len() - 20);
        assert!(matches!(problem(&format!("ada {cut}\n")).1, LineProblem::BadKey(_)));
        let other_type = cert_line.replacen("ssh-ed25519-cert", "ecdsa-sha2-nistp256-cert", 1);
        assert!(matches!(problem(&format!("ada {other_type}\n")).1, LineProblem::BadKey(_)));
    }

    #[test]
    fn a_message_quotes_the_file_escaped_and_cut_short() {
        let long = "x".repeat(1_000_000);
        let err =
            AllowedSigners::parse(format!("a {long} {KEY}\n").as_bytes(), Path::new("a_s")).unwrap_err();
        assert!(err.to_string().len() < 400, "{} bytes", err.to_string().len());
        let err =
            AllowedSigners::parse(format!("a x\u{1b}[2K {KEY}\n").as_bytes(), Path::new("a_s")).unwrap_err();
        assert!(err.to_string().contains("unknown option `x\\u{1b}[2K`"), "{err}");
    }

    #[test]
    fn a_line_that_is_not_utf8_is_named() {
        let err = AllowedSigners::parse(b"# fine\n\xff\xfe bad\n", Path::new("a_s")).unwrap_err();
        assert_eq!(err.to_string(), "a_s:2: the line is not UTF-8 text; save the file as UTF-8");
    }

    #[test]
    fn a_missing_file_names_the_path() {
        let err = AllowedSigners::read(Path::new("/nonexistent/allowed")).unwrap_err();
        assert!(
            err.to_string().starts_with("cannot read the allowed-signers file /nonexistent/allowed:"),
            "{err}"
        );
    }

    #[test]
    fn mangled_files_are_errors_or_entries_never_panics() {
        let good = format!(
            "\"ü ñ,*@ex.com,!x\" CERT-AUTHORITY,namespaces=\"in-toto,\\\"f\\\"\",valid-after=\"20240101Z\" {KEY} c ø\n# é\n"
        );
        let bytes = good.as_bytes();
        assert_eq!(
            AllowedSigners::parse(bytes, Path::new("f")).expect("the unmangled file parses").signers.len(),
            1
        );
        for len in 0..=bytes.len() {
            let _ = AllowedSigners::parse(&bytes[..len], Path::new("f"));
        }
        for i in 0..bytes.len() {
            for b in [b' ', b'"', b',', b'=', b'\\', b'#', b'\n', b'\t', 0xc3, 0x00] {
                let mut m = bytes.to_vec();
                m[i] = b;
                let _ = AllowedSigners::parse(&m, Path::new("f"));
            }
        }
    }

    #[test]
    fn quotes_inside_option_values_can_be_escaped() {
        let a = parse(&format!("a namespaces=\"in\\\"toto\" {KEY}")).expect("parses");
        assert!(a.signers[0].namespaces.as_ref().is_some_and(|n| n.matches("in\"toto")));
    }
}
