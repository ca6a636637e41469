//! Who counts as an approval of a covering line, as a verifier policy's `approvals` counts them
//! (docs/policy.md, "Signers and approvals"): whoever may have made the tick never approves it,
//! nor does a signer who may be the same person, and one person counts once. One judgement for
//! the verifier's rule (`verify::policy::rules`) and for `attest approve`, which warns when its
//! own signature will not count under its user's trust.
//!
//! Two signers may be one person when they are one key, when an identity of one is an identity
//! of the other (in their [`person_form`]), or when the trust lets a key sign as a name of the
//! other: an SSH principal written as a pattern (`ada@*`, `*`, `ada@example.co?`) is every
//! principal it matches, as `ssh-keygen -Y verify -I <name>` accepts it, so it may be anyone it
//! matches, and anyone another pattern may match too.

use std::collections::HashSet;

use time::OffsetDateTime;

use crate::check::line::ReadLine;
use crate::check::outcome::Finding;
use crate::check::signatures::{self, LineSigners, Maker, SignerInfo};
use crate::check::trust::SignatureTrust;
use crate::model::verifier_policy::{identities, person_form};
use crate::sign::ssh::pattern::Pattern;

/// The signer kind whose principals OpenSSH matches as patterns.
const SSH: &str = "ssh";

/// How many steps the comparison of two signers' patterns takes at most (a comparison costs the
/// product of its two lengths): a trust whose keys hold thousands of long patterns would take
/// minutes, and its two signers are taken to be possibly one person, which counts fewer.
const MAX_STEPS: usize = 1 << 26;

/// The names of one signer, as two signers are compared.
struct Names<'s> {
    /// Each identity ([`identities`]) in its [`person_form`]: two signers sharing one are one
    /// person.
    forms: HashSet<String>,
    /// Each identity that is a name of its own, not a pattern, as written and in its person form:
    /// what a pattern of another signer may match.
    literal: Vec<(&'s str, String)>,
    /// Each SSH principal OpenSSH matches as a pattern, as written and in its person form.
    patterns: Vec<(Pattern, Pattern)>,
}

impl<'s> Names<'s> {
    fn of(s: &'s SignerInfo) -> Names<'s> {
        let positive = |text: &str| Pattern { text: text.to_owned(), negated: false };
        let (mut forms, mut literal, mut patterns) = (HashSet::new(), Vec::new(), Vec::new());
        for id in identities(s.kind, &s.principals) {
            let form = person_form(id);
            if s.kind == SSH && Pattern::is_wild(id) {
                patterns.push((positive(id), positive(&form)));
            } else {
                literal.push((id, form.clone()));
            }
            forms.insert(form);
        }
        Names { forms, literal, patterns }
    }

    /// Whether the two signers named `self` and `other` may be one person: a name in common, or
    /// a pattern of one matching a name of the other, or two patterns that one name matches (as
    /// written, or in their person form); or comparing them would take more than [`MAX_STEPS`].
    fn may_be_one(&self, other: &Names<'_>) -> bool {
        if !self.forms.is_disjoint(&other.forms) {
            return true;
        }
        let mut steps = 0usize;
        let mut within = |a: &str, b: &str| {
            steps = steps.saturating_add((a.len() + 1).saturating_mul(b.len() + 1).saturating_mul(2));
            steps <= MAX_STEPS
        };
        for (mine, theirs) in [(self, other), (other, self)] {
            for (raw, folded) in &mine.patterns {
                for (text, form) in &theirs.literal {
                    if !within(&raw.text, text) || raw.matches(text) || folded.matches(form) {
                        return true;
                    }
                }
            }
        }
        for (raw, folded) in &self.patterns {
            for (their_raw, their_folded) in &other.patterns {
                if !within(&raw.text, &their_raw.text)
                    || raw.overlaps(their_raw)
                    || folded.overlaps(their_folded)
                {
                    return true;
                }
            }
        }
        false
    }
}

/// Whether two signers are one key.
fn same_key(a: &SignerInfo, b: &SignerInfo) -> bool {
    a.kind == b.kind && a.key == b.key
}

/// Whether two signers may be one person: one key, or names that may be one person's
/// ([`Names::may_be_one`]).
#[must_use]
pub fn may_be_one(a: &SignerInfo, b: &SignerInfo) -> bool {
    same_key(a, b) || Names::of(a).may_be_one(&Names::of(b))
}

/// How many of `signers` approve what `author` signed: each that `counts` and that may be none of
/// the people the author is (nobody approves their own tick) nor an approver counted before it
/// (one person counts once), [`may_be_one`]. They are taken in the order of `signers`, which
/// [`LineSigners::every`] keeps by key, never the line's.
#[must_use]
pub fn approvers(author: &SignerInfo, signers: &[SignerInfo], counts: impl Fn(&SignerInfo) -> bool) -> usize {
    let mut taken: Vec<(&SignerInfo, Names<'_>)> = vec![(author, Names::of(author))];
    for s in signers.iter().filter(|s| counts(s)) {
        let names = Names::of(s);
        if !taken.iter().any(|(t, n)| same_key(t, s) || n.may_be_one(&names)) {
            taken.push((s, names));
        }
    }
    taken.len() - 1
}

/// The approvals of a covering line whose trusted signers are `covering`, each that `counts`:
/// counted against each signer who may have made it ([`Maker::possible`]), the fewest, so that
/// they hold whichever of them made it.
#[must_use]
pub fn counted(covering: &LineSigners, counts: impl Fn(&SignerInfo) -> bool) -> usize {
    let every = &covering.every;
    covering.maker.possible(every).iter().map(|author| approvers(author, every, &counts)).min().unwrap_or(0)
}

/// Why a signature on a covering line adds no approval to it under a trust, as [`counted`]
/// counts them whoever they are by (a policy's `approvals.by` aside).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoApproval {
    /// The trust does not accept its key, or it does not verify: the finding of its check.
    Unaccepted(Finding),
    /// Its key made the tick (`told`), or may have made it, nothing signed telling which of the
    /// line's signers did.
    OwnTick {
        /// Whether the maker is told.
        told: bool,
    },
    /// Its signer may be the same person as `maker`, who made the tick (`told`) or may have made
    /// it.
    MakersToo {
        /// The maker.
        maker: SignerInfo,
        /// Whether the maker is told.
        told: bool,
    },
    /// Its signer may be the same person as `other`, who approved the line too: one person
    /// counts once.
    CountedOnce(SignerInfo),
    /// None of these, and yet the count is no higher with it than without it.
    NoMore,
}

impl std::fmt::Display for NoApproval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const ONE_PERSON: &str = "they share a principal, or your trust lets one of them sign as a principal of the other (a principal written as a pattern, such as `ada@*`, stands for every principal it matches)";
        const CANNOT_TELL: &str = "who made the tick cannot be told from what was signed, and approvals count against each signer who may have made it";
        match self {
            NoApproval::Unaccepted(why) => write!(
                f,
                "{} ({}); a signature counts as an approval only by a key the trust accepts",
                why.message, why.code
            ),
            NoApproval::OwnTick { told: true } => {
                f.write_str("this key made the tick, and the tick's own signer never counts as its approver")
            }
            NoApproval::OwnTick { told: false } => {
                write!(f, "this key may have made the tick: {CANNOT_TELL}")
            }
            NoApproval::MakersToo { maker, told } => {
                let who = if *told { "made the tick" } else { "may have made the tick" };
                write!(
                    f,
                    "its key and the key of {}, who {who}, may be one person's: {ONE_PERSON}; whoever made a tick never counts as their own approver, nor does another key of one of their principals: another person must approve it, or, if your trust gives a key more principals than its holder's, narrow its entry",
                    described(maker)
                )
            }
            NoApproval::CountedOnce(other) => write!(
                f,
                "{} approved the line too, and the two keys may be one person's: {ONE_PERSON}; one person counts once",
                described(other)
            ),
            NoApproval::NoMore => f.write_str("the line counts no more approvals with it than without it"),
        }
    }
}

/// Why the signature `signer` (its signers as the trust established them: one, or each trusted
/// certificate binding the OpenPGP key that made it; or why not) on the covering line whose
/// trusted signers are `covering` (with it) adds no approval ([`counted`], anyone counting);
/// `None` when it adds one.
#[must_use]
pub fn no_approval(covering: &LineSigners, signer: Result<Vec<SignerInfo>, Finding>) -> Option<NoApproval> {
    let me = match signer {
        Ok(me) => me,
        Err(why) => return Some(NoApproval::Unaccepted(why)),
    };
    let mine = |s: &SignerInfo| me.iter().any(|m| same_key(m, s));
    let may_be_me = |s: &SignerInfo| me.iter().any(|m| may_be_one(m, s));
    let told = matches!(covering.maker, Maker::Known(_));
    if matches!(&covering.maker, Maker::Known(m) if mine(m)) {
        return Some(NoApproval::OwnTick { told });
    }
    // The line as it would be without the signature: its maker told as before, but for it.
    let others: Vec<SignerInfo> = covering.every.iter().filter(|s| !mine(s)).cloned().collect();
    let maker = match &covering.maker {
        Maker::Several(some) => match some.iter().filter(|s| !mine(s)).cloned().collect::<Vec<_>>() {
            one if one.len() == 1 => Maker::Known(one[0].clone()),
            several => Maker::Several(several),
        },
        known_or_unknown => known_or_unknown.clone(),
    };
    let without = LineSigners { maker, every: others, refused: Vec::new() };
    if counted(covering, |_| true) > counted(&without, |_| true) {
        return None;
    }
    let makers = covering.maker.possible(&covering.every);
    Some(if makers.iter().any(mine) {
        NoApproval::OwnTick { told }
    } else if let Some(m) = makers.iter().find(|m| may_be_me(m)) {
        NoApproval::MakersToo { maker: m.clone(), told }
    } else if let Some(other) =
        without.every.iter().find(|s| may_be_me(s) && !makers.iter().any(|m| may_be_one(m, s)))
    {
        NoApproval::CountedOnce(other.clone())
    } else {
        NoApproval::NoMore
    })
}

/// Why `signature`, one of the signatures of the covering line at `covering` in `lines` (read
/// from a note of the task commit whose object's sha256 is `commit_sha256`), adds no approval
/// under `trust` at `at` ([`no_approval`]), the line's makers told and its signatures checked as
/// the verifier tells and checks them; `None` when it adds one.
#[must_use]
pub fn signature_adds_none(
    lines: &[ReadLine],
    covering: usize,
    signature: &[u8],
    trust: &SignatureTrust,
    at: OffsetDateTime,
    commit_sha256: &str,
) -> Option<NoApproval> {
    let line = lines.get(covering)?;
    let (_, signers) = signatures::check_note_every(lines, trust, at, commit_sha256, Some(covering));
    no_approval(&signers, signatures::signer_of(&line.envelope, signature, trust, at))
}

/// One signer for a message: the principals the trust gives it (at most a few) and its key, or
/// its key alone when the trust names none for it.
#[must_use]
pub fn described(s: &SignerInfo) -> String {
    const SHOWN: usize = 3;
    match s.principals.as_slice() {
        [] => format!("{} key {}, named by no principal of your trust", s.kind, s.key),
        p => {
            let more = p.len().saturating_sub(SHOWN);
            let more = if more > 0 { format!(" and {more} more") } else { String::new() };
            format!("{}{more} ({} key {})", p[..p.len().min(SHOWN)].join(" / "), s.kind, s.key)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::outcome::CommitOutcome;

    fn ssh(key: &str, principals: &[&str]) -> SignerInfo {
        SignerInfo {
            kind: "ssh",
            key: key.into(),
            principals: principals.iter().map(|p| (*p).into()).collect(),
        }
    }

    fn openpgp(key: &str, user_ids: &[&str]) -> SignerInfo {
        SignerInfo { kind: "openpgp", ..ssh(key, user_ids) }
    }

    #[test]
    fn a_pattern_principal_may_be_anyone_it_matches_and_anyone_another_pattern_matches_too() {
        let ada = ssh("A", &["ada@example.com"]);
        for pattern in ["ada@*", "*", "ada@example.co?", "ADA@*", "*@example.com"] {
            let other = ssh("B", &[pattern]);
            assert!(may_be_one(&ada, &other) && may_be_one(&other, &ada), "{pattern}");
        }
        assert!(may_be_one(&ssh("B", &["ada@*"]), &openpgp("C", &["Ada <ada@example.com>"])));
        assert!(may_be_one(&ssh("B", &["ada@*"]), &ssh("C", &["*@example.com"])), "ada@example.com, both");
        assert!(may_be_one(&ssh("B", &["bob@*"]), &ssh("C", &["*"])));
        for (a, b) in [
            (ssh("B", &["bob@*"]), ada.clone()),
            (ssh("B", &["bob@*"]), ssh("C", &["ada@*"])),
            (ssh("B", &["ada@example.co?"]), ssh("C", &["ada@example.org"])),
            // An OpenPGP user id or a Sigstore identity is a name of its own, never a pattern.
            (openpgp("B", &["* <*>"]), ada.clone()),
            (SignerInfo { kind: "sigstore", ..ssh("B", &["*"]) }, ada.clone()),
        ] {
            assert!(!may_be_one(&a, &b) && !may_be_one(&b, &a), "{a:?} {b:?}");
        }
    }

    #[test]
    fn comparing_more_patterns_than_a_check_affords_counts_the_two_as_one_person() {
        let many = |prefix: &str| -> Vec<String> {
            (0..3000).map(|i| format!("{prefix}{i}-{}*", "x".repeat(200))).collect()
        };
        let (a, b) = (many("a"), many("b"));
        let a = SignerInfo { kind: "ssh", key: "A".into(), principals: a };
        let b = SignerInfo { kind: "ssh", key: "B".into(), principals: b };
        assert!(may_be_one(&a, &b), "too costly to tell: the stricter side");
    }

    fn line(maker: Maker, every: Vec<SignerInfo>) -> LineSigners {
        LineSigners { maker, every, refused: Vec::new() }
    }

    #[test]
    fn a_signature_adds_no_approval_by_the_maker_a_key_that_may_be_theirs_or_a_second_key_of_an_approver() {
        let (ada, ada2, bob, bob2) = (
            ssh("A", &["ada@example.com"]),
            ssh("A2", &["ada@*"]),
            ssh("B", &["bob@example.com"]),
            ssh("B2", &["bob@*"]),
        );
        let tick = |others: &[&SignerInfo]| {
            let mut every: Vec<SignerInfo> = vec![ada.clone()];
            every.extend(others.iter().map(|s| (*s).clone()));
            line(Maker::Known(ada.clone()), every)
        };
        assert_eq!(no_approval(&tick(&[&bob]), Ok(vec![bob.clone()])), None);
        assert_eq!(no_approval(&tick(&[]), Ok(vec![ada.clone()])), Some(NoApproval::OwnTick { told: true }));
        assert_eq!(
            no_approval(&tick(&[&ada2]), Ok(vec![ada2.clone()])),
            Some(NoApproval::MakersToo { maker: ada.clone(), told: true })
        );
        assert_eq!(
            no_approval(&tick(&[&bob, &bob2]), Ok(vec![bob2.clone()])),
            Some(NoApproval::CountedOnce(bob.clone()))
        );
        let refused = Finding::new(CommitOutcome::UntrustedSigner, "untrusted_signer", "no line lists it");
        let said = no_approval(&tick(&[]), Err(refused.clone())).unwrap().to_string();
        assert!(said.starts_with("no line lists it (untrusted_signer)"), "{said}");
        // Two who signed every line: either may be the maker, and Bob's signature still counts
        // against Ada's.
        let both = line(Maker::Several(vec![ada.clone(), bob.clone()]), vec![ada.clone(), bob.clone()]);
        assert_eq!(no_approval(&both, Ok(vec![bob.clone()])), None);
    }

    #[test]
    fn approvers_count_a_pattern_principal_and_a_name_it_matches_once() {
        let ada = ssh("A", &["ada@example.com"]);
        let every = [ssh("B", &["bob@example.com"]), ssh("B2", &["bob@*"]), ssh("C", &["carol@example.com"])];
        assert_eq!(approvers(&ada, &every, |_| true), 2);
        assert_eq!(approvers(&ada, &[ssh("A2", &["ada@*"])], |_| true), 0);
        assert_eq!(approvers(&ada, &[ssh("S", &["*"])], |_| true), 0, "a key that may sign as anyone");
    }
}
