//! What `attest verify` and `attest export` check: the history their flags name, against the
//! caller's trust and verifier policy, set up the same way for both.

use speccoder_attest::check::trust::{SignatureTrust, TrustError};
use speccoder_attest::check::verifier_policy::{PolicyLoadError, load_policy};
use speccoder_attest::exit::{Class, ExitClass};
use speccoder_attest::git::{Head, ObjectId, Repo};
use speccoder_attest::verify::report::{Report, ReportSink};
use speccoder_attest::verify::trust::Trust;
use speccoder_attest::verify::{
    BranchOptions, Checked, VerifyError, verify_branch_into, verify_commits_into,
};

use crate::cli::{PolicyArgs, TrustArgs, VerifyArgs};

/// What `attest verify` and `attest export` check, and how: the flags they share.
pub(crate) struct CheckRequest<'a> {
    /// `REV` or `A..B` (without `branch`).
    pub range: Option<&'a str>,
    /// `--branch [HEAD]`.
    pub branch: Option<&'a str>,
    /// `--base REV`.
    pub base: Option<&'a str>,
    /// `--all`.
    pub all: bool,
    /// Whom the caller trusts.
    pub trust: &'a TrustArgs,
    /// The verifier policy.
    pub policy: &'a PolicyArgs,
    /// `--accept-unsigned`.
    pub accept_unsigned: bool,
    /// `--require-verified`.
    pub require_verified: bool,
    /// `--jobs N`.
    pub jobs: Option<u16>,
}

impl VerifyArgs {
    /// The check these flags ask for.
    pub(super) fn request(&self) -> CheckRequest<'_> {
        CheckRequest {
            range: self.history.range.as_deref(),
            branch: self.history.branch.as_deref(),
            base: self.history.base.as_deref(),
            all: self.history.all,
            trust: &self.trust,
            policy: &self.policy,
            accept_unsigned: self.accept_unsigned,
            require_verified: self.require_verified,
            jobs: self.jobs,
        }
    }
}

/// Why a check could not begin: the history, the trust or the policy.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CheckFailed {
    /// The history cannot be checked here (a revision, a shallow clone, unfetched notes).
    #[error(transparent)]
    Verify(#[from] VerifyError),
    /// The caller's trust cannot be used.
    #[error(transparent)]
    Trust(#[from] TrustError),
    /// The verifier policy cannot be used.
    #[error(transparent)]
    Policy(#[from] PolicyLoadError),
}

impl ExitClass for CheckFailed {
    fn class(&self) -> Class {
        match self {
            CheckFailed::Verify(e) => e.class(),
            CheckFailed::Trust(e) => e.class(),
            CheckFailed::Policy(e) => e.class(),
        }
    }
}

/// A check set up to run: the history it checks and the caller's trust.
pub(crate) struct Prepared<'a> {
    /// `--branch`'s options; `None`: task commits (`range`).
    branch: Option<BranchOptions>,
    /// `REV` or `A..B`.
    range: Option<&'a str>,
    /// The history checked; `None` before the branch's first commit.
    pub checked: Option<Checked>,
    /// Why nothing is checked, when the branch has no commits yet (the report is then empty).
    pub unborn: Option<String>,
    /// The caller's trust and policy.
    pub trust: Trust,
}

/// Sets up the check `req` names: resolves the history, and reads the caller's trust and policy
/// (a trust or policy file read from a revision is fetched first when a partial clone lacks it).
///
/// # Errors
/// [`CheckFailed`].
pub(crate) fn prepare<'a>(repo: &Repo, req: &CheckRequest<'a>) -> Result<Prepared<'a>, CheckFailed> {
    let branch = req.branch.map(|head| BranchOptions {
        head: Some(head.to_owned()),
        base: req.base.map(str::to_owned),
        all: req.all,
    });
    let checked = match &branch {
        Some(opts) => Checked::of_branch(repo, opts),
        None => Checked::of_commits(repo, req.range),
    };
    // A branch before its first commit has nothing to check: an empty report, like a branch
    // that ticks nothing, said as such.
    let (checked, unborn) = match checked {
        Ok(c) => (Some(c), None),
        Err(e @ VerifyError::Unborn(_)) => (None, Some(e.to_string())),
        Err(e) => return Err(e.into()),
    };
    let trust = build_trust(repo, req, checked.as_ref())?;
    Ok(Prepared { branch, range: req.range, checked, unborn, trust })
}

impl Prepared<'_> {
    /// The report's mode.
    fn mode(&self) -> &'static str {
        if self.branch.is_some() { "branch" } else { "commits" }
    }

    /// Runs the check, each row into `sink` as it is decided.
    ///
    /// # Errors
    /// The check could not run to its end ([`VerifyError`]).
    pub(crate) fn run_into(&self, repo: &Repo, sink: &mut dyn ReportSink) -> Result<(), VerifyError> {
        match (&self.branch, &self.unborn) {
            (_, Some(_)) => {
                Report::new(self.mode(), Vec::new(), &self.trust).replay(sink);
                Ok(())
            }
            (Some(opts), None) => verify_branch_into(repo, opts, &self.trust, sink).map(drop),
            (None, None) => verify_commits_into(repo, self.range, &self.trust, sink).map(drop),
        }
    }
}

/// The caller's trust and policy; a trust or policy revision inside `range` (the history
/// checked) is refused, and so is a trust or policy file the checked tree holds. No range (a
/// branch before its first commit): nothing is checked, and trust and policy are still read, so
/// that a file that cannot be used is said so.
fn build_trust(repo: &Repo, req: &CheckRequest<'_>, range: Option<&Checked>) -> Result<Trust, CheckFailed> {
    let head = match repo.head().map_err(TrustError::from)? {
        Head::Branch { commit, .. } | Head::Detached(commit) => Some(commit),
        Head::Unborn(_) => None,
    };
    let checked = match (range, req.branch) {
        (None, _) => None,
        (Some(_), Some(rev)) => Some(repo.rev_parse_peeled(rev).map_err(TrustError::from)?),
        (Some(_), None) => head,
    };
    // The tree a trust or policy file may not come from; before the first commit, none.
    let checked_tree = match checked {
        Some(commit) => repo.commit_tree(commit).map_err(TrustError::from)?,
        None => repo.empty_tree_id(),
    };
    let in_range = |c: ObjectId| range.is_some_and(|range| range.reached_from(repo, c));
    let files = crate::commands::trust::trust_files(req.trust);
    let signers = SignatureTrust::load(repo, &files, checked_tree, &in_range)?;
    let policy = crate::commands::trust::policy_source(req.policy)
        .map(|source| load_policy(repo, &source, checked_tree, &in_range))
        .transpose()?;
    Ok(Trust {
        signers,
        accept_unsigned: req.accept_unsigned,
        require_verified: req.require_verified,
        jobs: req.jobs.and_then(|n| std::num::NonZeroUsize::new(usize::from(n))),
        signature_time: crate::commands::trust::signature_time(req.trust),
        policy,
        keep_notes: None,
    })
}
