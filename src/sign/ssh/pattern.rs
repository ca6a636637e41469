//! OpenSSH pattern lists (`ssh_config(5)`, PATTERNS): comma-separated patterns with `*` and `?`,
//! each optionally negated with `!`. Matching works on bytes, as OpenSSH does.

/// The longest single pattern OpenSSH considers: `match_pattern_list` copies each into a buffer of
/// 1024 bytes and gives up on the whole list, matching nothing, at 1023 bytes or more.
pub(crate) const MAX_PATTERN_LEN: usize = 1022;

/// How many wildcard comparisons [`PatternList::accepted`] makes at most: a list of thousands of
/// entries and thousands of wildcard negations is refused instead of compared for minutes.
const MAX_VETO_CHECKS: usize = 1 << 22;

/// One entry of a pattern list: the pattern text and whether it was written with a leading `!`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    /// The pattern without its `!`; `*` matches any run of bytes, `?` exactly one byte.
    pub text: String,
    /// Whether a match of this pattern vetoes the whole list.
    pub negated: bool,
}

impl Pattern {
    /// Whether `text` holds a wildcard (`*`, `?`), so that OpenSSH matches it as a pattern: a
    /// principal so written stands for every principal it matches.
    #[must_use]
    pub fn is_wild(text: &str) -> bool {
        text.contains(['*', '?'])
    }

    /// Whether `subject` matches this pattern, its `!` set aside; never when the pattern is longer
    /// than OpenSSH considers.
    #[must_use]
    pub fn matches(&self, subject: &str) -> bool {
        self.text.len() <= MAX_PATTERN_LEN && wildcard_match(subject.as_bytes(), self.text.as_bytes())
    }

    /// Whether some subject matches both this pattern and `other` (each `!` set aside): `ada@*` and
    /// `*@example.com` both match `ada@example.com`; `*x` and `*y` match nothing alike. Never when
    /// either is longer than OpenSSH considers. In O(len × len) steps at worst.
    #[must_use]
    pub fn overlaps(&self, other: &Pattern) -> bool {
        if self.text.len() > MAX_PATTERN_LEN || other.text.len() > MAX_PATTERN_LEN {
            return false;
        }
        wildcards_overlap(self.text.as_bytes(), other.text.as_bytes())
    }
}

/// Whether some subject matches both `a` and `b` (`*` any run of bytes, `?` one byte): a search
/// of the pairs of positions, one in each pattern, that the same subject's prefix reaches.
fn wildcards_overlap(a: &[u8], b: &[u8]) -> bool {
    let width = b.len() + 1;
    let mut seen = vec![false; (a.len() + 1) * width];
    let mut todo = vec![(0usize, 0usize)];
    while let Some((i, j)) = todo.pop() {
        if std::mem::replace(&mut seen[i * width + j], true) {
            continue;
        }
        if (i, j) == (a.len(), b.len()) {
            return true;
        }
        let (x, y) = (a.get(i).copied(), b.get(j).copied());
        // A `*` stands for nothing more, or for the one byte the other pattern's next stands for.
        if x == Some(b'*') {
            todo.push((i + 1, j));
            if y.is_some_and(|y| y != b'*') {
                todo.push((i, j + 1));
            }
        }
        if y == Some(b'*') {
            todo.push((i, j + 1));
            if x.is_some_and(|x| x != b'*') {
                todo.push((i + 1, j));
            }
        }
        if let (Some(x), Some(y)) = (x, y)
            && x != b'*'
            && y != b'*'
            && (x == b'?' || y == b'?' || x == y)
        {
            todo.push((i + 1, j + 1));
        }
    }
    false
}

/// A comma-separated pattern list, kept in the order written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternList {
    /// The entries in file order; never empty when built by [`PatternList::parse`].
    pub patterns: Vec<Pattern>,
}

impl PatternList {
    /// Splits `list` on commas; `None` when the list or one of its entries is empty.
    #[must_use]
    pub fn parse(list: &str) -> Option<Self> {
        let mut patterns = Vec::new();
        for raw in list.split(',') {
            let (negated, text) = match raw.strip_prefix('!') {
                Some(rest) => (true, rest),
                None => (false, raw),
            };
            if text.is_empty() {
                return None;
            }
            patterns.push(Pattern { text: text.to_owned(), negated });
        }
        Some(Self { patterns })
    }

    /// Whether `subject` matches: some positive entry matches and no negated entry does.
    #[must_use]
    pub fn matches(&self, subject: &str) -> bool {
        if self.patterns.iter().any(|p| p.text.len() > MAX_PATTERN_LEN) {
            return false;
        }
        let mut positive = false;
        for p in &self.patterns {
            if wildcard_match(subject.as_bytes(), p.text.as_bytes()) {
                if p.negated {
                    return false;
                }
                positive = true;
            }
        }
        positive
    }

    /// The positive entries as written, in order, that the list as a whole accepts (what a user
    /// reads as "the principals"): one that a negation of the same list matches is vetoed, as
    /// `ssh-keygen -Y verify -I <it>` refuses it, and none is accepted when a pattern is longer
    /// than OpenSSH considers. `None` when telling them would take more than
    /// [`MAX_VETO_CHECKS`] wildcard comparisons.
    #[must_use]
    pub fn accepted(&self) -> Option<Vec<&str>> {
        if self.patterns.iter().any(|p| p.text.len() > MAX_PATTERN_LEN) {
            return Some(Vec::new());
        }
        let negated = self.patterns.iter().filter(|p| p.negated).map(|p| p.text.as_str());
        let (wild, literal): (Vec<&str>, std::collections::HashSet<&str>) = (
            negated.clone().filter(|t| Pattern::is_wild(t)).collect(),
            negated.filter(|t| !Pattern::is_wild(t)).collect(),
        );
        let positive: Vec<&str> =
            self.patterns.iter().filter(|p| !p.negated).map(|p| p.text.as_str()).collect();
        if positive.len().saturating_mul(wild.len()) > MAX_VETO_CHECKS {
            return None;
        }
        let vetoed =
            |t: &str| literal.contains(t) || wild.iter().any(|w| wildcard_match(t.as_bytes(), w.as_bytes()));
        Some(positive.into_iter().filter(|t| !vetoed(t)).collect())
    }
}

impl std::fmt::Display for PatternList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, p) in self.patterns.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            if p.negated {
                f.write_str("!")?;
            }
            f.write_str(&p.text)?;
        }
        Ok(())
    }
}

/// Glob match of `subject` against `pattern` (`*` any run, `?` one byte), in O(len²) at worst.
fn wildcard_match(subject: &[u8], pattern: &[u8]) -> bool {
    let (mut s, mut p) = (0, 0);
    // Where the last `*` was seen and the subject position it is currently standing for.
    let mut star: Option<(usize, usize)> = None;
    while let Some(&current) = subject.get(s) {
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, s));
                p += 1;
            }
            Some(&c) if c == b'?' || c == current => {
                s += 1;
                p += 1;
            }
            _ => match star {
                Some((sp, ss)) => {
                    p = sp + 1;
                    s = ss + 1;
                    star = Some((sp, ss + 1));
                }
                None => return false,
            },
        }
    }
    pattern.get(p..).is_some_and(|rest| rest.iter().all(|&c| c == b'*'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(s: &str) -> PatternList {
        PatternList::parse(s).expect("test pattern list parses")
    }

    #[test]
    fn stars_and_question_marks_match_as_in_openssh() {
        assert!(list("*@example.com").matches("alice@example.com"));
        assert!(list("a?ice").matches("alice"));
        assert!(!list("a?ice").matches("aice"));
        assert!(list("*").matches(""));
        assert!(list("a*b*c").matches("aXXbYYc"));
        assert!(!list("a*b*c").matches("aXXbYY"));
        assert!(!list("alice").matches("alice2"));
    }

    #[test]
    fn a_matching_negation_vetoes_the_whole_list() {
        let l = list("*@example.com,!mallory@example.com");
        assert!(l.matches("alice@example.com"));
        assert!(!l.matches("mallory@example.com"));
        assert!(!list("!bob").matches("alice"), "a list of only negations matches nothing");
    }

    #[test]
    fn empty_entries_are_refused_when_parsing() {
        assert!(PatternList::parse("").is_none());
        assert!(PatternList::parse("a,,b").is_none());
        assert!(PatternList::parse("a,!").is_none());
    }

    #[test]
    fn hostile_patterns_finish_quickly() {
        let subject = "a".repeat(5000);
        let pattern = format!("{}b", "*a".repeat(500));
        assert!(!list(&pattern).matches(&subject));
    }

    #[test]
    fn display_gives_back_the_list_as_written() {
        assert_eq!(list("a,!b,*@c").to_string(), "a,!b,*@c");
        assert_eq!(list("a,!b,*@c").accepted(), Some(vec!["a", "*@c"]));
    }

    #[test]
    fn an_entry_its_own_list_vetoes_is_no_principal_as_ssh_keygen_refuses_it() {
        assert_eq!(list("ada@example.com,!ada@example.com").accepted(), Some(vec![]));
        assert_eq!(list("ada@x,bob@x,!b*").accepted(), Some(vec!["ada@x"]));
        assert_eq!(list("*@example.com,!mallory@example.com").accepted(), Some(vec!["*@example.com"]));
        assert_eq!(list("!*,ada").accepted(), Some(vec![]));
        for (entry, listed) in [("ada@example.com", false), ("bob@x", false)] {
            assert_eq!(list("ada@example.com,!ada@example.com,bob@x,!b?b@x").matches(entry), listed);
        }
        let long = format!("ada,{}", "a".repeat(1023));
        assert_eq!(list(&long).accepted(), Some(vec![]), "OpenSSH matches nothing then");
        assert!(!list(&long).matches("ada"));
        let longest = format!("ada,!{}", "a".repeat(1022));
        assert_eq!(list(&longest).accepted(), Some(vec!["ada"]), "1022 bytes are still matched");
        assert!(list(&longest).matches("ada"));
    }

    #[test]
    fn two_patterns_overlap_when_one_subject_matches_both() {
        let p = |text: &str| Pattern { text: text.to_owned(), negated: false };
        for (a, b) in [
            ("ada@*", "*@example.com"),
            ("*", "bob@*"),
            ("ada@example.co?", "ada@*"),
            ("a?c", "?b?"),
            ("*x*", "*y*"),
            ("ada@example.com", "ada@example.com"),
            ("**", ""),
        ] {
            assert!(p(a).overlaps(&p(b)) && p(b).overlaps(&p(a)), "{a} and {b}");
        }
        for (a, b) in [("*x", "*y"), ("ada@*", "bob@*"), ("a?", "a"), ("a?c", "?bd"), ("x*", "y*")] {
            assert!(!p(a).overlaps(&p(b)) && !p(b).overlaps(&p(a)), "{a} and {b}");
        }
        let long = p(&"*".repeat(MAX_PATTERN_LEN + 1));
        assert!(!long.overlaps(&p("*")), "OpenSSH matches nothing with it");
        let hostile = p(&"*a".repeat(500));
        assert!(!hostile.overlaps(&p(&format!("{}b", "*a".repeat(500)))), "one ends in a, the other in b");
        assert!(hostile.overlaps(&p(&format!("{}*", "a*".repeat(500)))));
        assert!(p("ada@*").matches("ada@example.com") && !p("ada@*").matches("bob@example.com"));
    }

    #[test]
    fn a_list_too_costly_to_tell_is_refused_and_a_long_literal_one_is_not() {
        let many = |n: usize, neg: &str| {
            (0..n)
                .map(|i| format!("p{i}@x"))
                .chain((0..n).map(|i| format!("!{neg}{i}")))
                .collect::<Vec<_>>()
                .join(",")
        };
        assert_eq!(list(&many(3000, "*q")).accepted(), None);
        assert_eq!(list(&many(30_000, "q")).accepted().map(|a| a.len()), Some(30_000));
    }
}
