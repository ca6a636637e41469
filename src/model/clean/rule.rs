//! One rule of the clean check, and where its literal must sit for its pattern to have a chance.

use std::ops::Range;
use std::sync::OnceLock;

use regex::{Captures, Regex};

use super::{Leak, LeakKind};

/// What may stand before a token's prefix: anything but an ASCII letter or digit, so `_`, `-` and
/// `.` separate (`TOKEN_ghp_…`) while `desk-lamp` holds no `sk-`.
pub(super) const WORD: &str = "(?:^|[^A-Za-z0-9])";

/// What may stand before a prefix that could end a longer name (`key-`, `SK`, `cio`): neither a
/// letter, a digit, nor `_`, `-` or `.`.
pub(super) const TOKEN: &str = r"(?:^|[^A-Za-z0-9_.\-])";

/// The most bytes of a name that [`Anchor::AssignedName`] and [`Anchor::OptionName`] look at on
/// either side of its literal.
const NAME_MAX: usize = 64;

/// What ends a token of fixed length: anything but an ASCII letter or digit.
pub(super) const END: &str = "(?:[^A-Za-z0-9]|$)";

/// A test that a regex match is a leak (a value random enough, not a placeholder): the leak's byte
/// range in the text, or `None`.
pub(super) type Judge = fn(&str, &Captures<'_>) -> Option<Range<usize>>;

/// One rule: its pattern, and literals of which every match holds at least one, at a place the
/// rule's [`Anchor`] describes. A rule's regex is compiled the first time a string passes that
/// literal test: compiling a regex costs more than the rest of a `speccoder attest`, and with the
/// anchors an ordinary statement (URLs, `task-verification`, digests) passes almost none of them.
pub(super) struct Rule {
    pub(super) kind: LeakKind,
    pub(super) what: &'static str,
    pub(super) pattern: String,
    /// Every leak contains one of these (compared ignoring ASCII case when `fold`).
    pub(super) needles: &'static [&'static str],
    /// Where a literal must sit for the pattern to have a chance.
    pub(super) anchor: Anchor,
    pub(super) fold: bool,
    /// When set, a match is a leak only if this says so; the rule then looks at every match.
    judge: Option<Judge>,
    regex: OnceLock<Regex>,
}

/// Where a rule's literal must sit for its pattern to be able to match there. Each test is
/// looser than its pattern, never stricter: a string it turns away cannot match.
#[derive(Clone, Copy)]
pub(super) enum Anchor {
    /// Anywhere.
    Anywhere,
    /// After no ASCII letter or digit ([`WORD`]). A non-ASCII letter before it passes, so the test
    /// never turns away what the pattern accepts.
    Word,
    /// After no ASCII letter, digit, `_`, `-` or `.` ([`TOKEN`]).
    Token,
    /// Right after a drive letter that does not continue a word (`C:\`, but not `https:/`).
    AfterDriveLetter,
    /// `://` followed, before any `/` or whitespace, by a `:` and then an `@` (`user:pw@`).
    BeforeUserinfo,
    /// `://` followed, before any `/` or whitespace, by an `@`.
    BeforeAt,
    /// Inside a name that an assignment operator follows (`NAME=`, `"name":`, `<name>`), or a
    /// `--name` that a blank follows.
    AssignedName,
    /// Inside an option's name (`-name`, `--name`, after no ASCII letter, digit, `_` or `-`) that
    /// an `=`, a blank or a quote follows.
    OptionName,
    /// After anything, but followed by at least this many bytes that the test accepts: a vendor's
    /// prefix distinctive enough to need no word boundary before it ([`Rule::prefixed`]), which
    /// a word holding it (`KAKIAN`, `pnpm_like`) does not continue as its token does.
    Followed(usize, fn(u8) -> bool),
}

impl Anchor {
    /// Whether a literal found at bytes `found` of `text` sits where this anchor wants it.
    pub(super) fn holds(self, text: &[u8], found: Range<usize>) -> bool {
        let at = found.start;
        let before = |n: usize| at.checked_sub(n).and_then(|i| text.get(i)).copied();
        let authority = || {
            let rest = text.get(at + 3..).unwrap_or_default();
            let end = rest.iter().position(|&b| b == b'/' || b.is_ascii_whitespace());
            &rest[..end.unwrap_or(rest.len())]
        };
        match self {
            Anchor::Anywhere => true,
            Anchor::Word => before(1).is_none_or(|b| !b.is_ascii_alphanumeric()),
            Anchor::Token => {
                before(1).is_none_or(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')))
            }
            Anchor::AfterDriveLetter => {
                before(1).is_some_and(|b| b.is_ascii_alphabetic())
                    && before(2).is_none_or(|b| !b.is_ascii_alphanumeric())
            }
            Anchor::BeforeUserinfo => {
                let authority = authority();
                authority
                    .iter()
                    .position(|&b| b == b':')
                    .is_some_and(|colon| authority[colon..].contains(&b'@'))
            }
            Anchor::BeforeAt => authority().contains(&b'@'),
            // A name is looked at up to NAME_MAX bytes on either side of the literal, so that a
            // run of literals (`keykey…`) costs linear time; a longer name is left to the pattern.
            Anchor::AssignedName => {
                let in_name = |b: &&u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-');
                let end = at + text[at..].iter().take(NAME_MAX).take_while(in_name).count();
                if end - at == NAME_MAX {
                    return true;
                }
                let after = &text[end..];
                let after = after.strip_prefix(b"\"").or_else(|| after.strip_prefix(b"'")).unwrap_or(after);
                let blanks = after.iter().take_while(|&&b| b == b' ' || b == b'\t').count();
                if matches!(after.get(blanks), Some(b':' | b'=' | b'>')) {
                    return true;
                }
                let begin = text[..at].iter().rev().take(NAME_MAX).take_while(in_name).count();
                blanks > 0 && (begin == NAME_MAX || text[at - begin..at].windows(2).any(|w| w == b"--"))
            }
            Anchor::OptionName => {
                let in_name = |b: &&u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-');
                let begin = text[..at].iter().rev().take(NAME_MAX).take_while(in_name).count();
                let end = at + text[at..].iter().take(NAME_MAX).take_while(in_name).count();
                let starts = begin == NAME_MAX || text.get(at - begin) == Some(&b'-');
                let ends =
                    end - at == NAME_MAX || matches!(text.get(end), Some(b'=' | b' ' | b'\t' | b'"' | b'\''));
                starts && ends
            }
            Anchor::Followed(len, accepted) => {
                let after = text.get(found.end..).unwrap_or_default();
                after.len() >= len && after[..len].iter().all(|&b| accepted(b))
            }
        }
    }
}

impl Rule {
    pub(super) fn new(
        kind: LeakKind,
        what: &'static str,
        pattern: impl Into<String>,
        needles: &'static [&'static str],
    ) -> Rule {
        Rule {
            kind,
            what,
            pattern: pattern.into(),
            needles,
            anchor: Anchor::Anywhere,
            fold: false,
            judge: None,
            regex: OnceLock::new(),
        }
    }

    /// A token whose prefix (one of `needles`) may follow anything but a letter or digit.
    pub(super) fn word(
        kind: LeakKind,
        what: &'static str,
        body: &str,
        needles: &'static [&'static str],
    ) -> Rule {
        Rule::new(kind, what, format!("{WORD}(?P<leak>{body})"), needles).anchored(Anchor::Word)
    }

    /// A token whose prefix may follow anything but a letter, a digit, `_`, `-` or `.`.
    pub(super) fn token(
        kind: LeakKind,
        what: &'static str,
        body: &str,
        needles: &'static [&'static str],
    ) -> Rule {
        Rule::new(kind, what, format!("{TOKEN}(?P<leak>{body})"), needles).anchored(Anchor::Token)
    }

    /// A token whose prefix (one of `needles`) is distinctive enough to be found after anything,
    /// a letter or digit included (`[USghp_…]`, `v2ghp_…`), when at least `len` bytes that
    /// `accepted` takes follow the prefix (the shortest the token's body can be).
    pub(super) fn prefixed(
        kind: LeakKind,
        what: &'static str,
        body: &str,
        needles: &'static [&'static str],
        (len, accepted): (usize, fn(u8) -> bool),
    ) -> Rule {
        Rule::new(kind, what, format!("(?P<leak>{body})"), needles).anchored(Anchor::Followed(len, accepted))
    }

    /// A provider's token ([`Rule::word`] of kind [`LeakKind::Token`]).
    pub(super) fn provider(what: &'static str, body: &str, needles: &'static [&'static str]) -> Rule {
        Rule::word(LeakKind::Token, what, body, needles)
    }

    pub(super) fn anchored(mut self, anchor: Anchor) -> Rule {
        self.anchor = anchor;
        self
    }

    /// A token of fixed length: no letter or digit may follow it.
    pub(super) fn ended(mut self) -> Rule {
        self.pattern.push_str(END);
        self
    }

    pub(super) fn folded(mut self) -> Rule {
        self.fold = true;
        self
    }

    pub(super) fn judged(mut self, judge: Judge) -> Rule {
        self.judge = Some(judge);
        self
    }

    pub(super) fn regex(&self) -> &Regex {
        self.regex.get_or_init(|| match Regex::new(&self.pattern) {
            Ok(re) => re,
            // The patterns are constants of this folder; a typo is a bug caught by every test.
            Err(e) => panic!("clean-check pattern {:?} does not compile: {e}", self.pattern),
        })
    }

    /// This rule's first leak in `text`, by position.
    pub(super) fn find(&self, text: &str) -> Option<Leak> {
        let range = match self.judge {
            None => self
                .regex()
                .captures(text)
                .and_then(|caps| caps.name("leak").or_else(|| caps.get(0)))
                .map(|m| m.range()),
            // Matches do not overlap, so this is one pass over the text.
            Some(judge) => self.regex().captures_iter(text).find_map(|caps| judge(text, &caps)),
        }?;
        Some(Leak { kind: self.kind, what: self.what, start: range.start, end: range.end, encoding: None })
    }
}

/// The range of the `leak` group when `test` says its text is one.
pub(super) fn leak_if(caps: &Captures<'_>, test: impl Fn(&str) -> bool) -> Option<Range<usize>> {
    caps.name("leak").filter(|m| test(m.as_str())).map(|m| m.range())
}
