//! `speccoder attest push`: the branch, the notes and `refs/speccoder/*` in one atomic push,
//! fetching and merging the remote's evidence when it moved (see [`super`]).

use std::collections::BTreeSet;

use gix::ObjectId;
use serde::Serialize;

use super::fetch::fetch_holding;
use super::{FetchReport, PUSH_TRIES, SPECCODER_REFS, SyncError, remote_for, set_tracking, tracking_prefix};
use crate::check::trust::TrustFiles;
use crate::git::{
    Direction, FetchLock, GitError, Head, PushDefault, PushOutput, PushStatus, PushedRef, RemoteRef, Repo,
};
use crate::model::bundle::{NOTES_REF, tracking_notes_ref};
use crate::model::shown::in_line;

/// One reference as a push reported it.
#[derive(Debug, Clone, Serialize)]
pub struct PushRow {
    /// The remote's reference.
    #[serde(serialize_with = "in_line")]
    pub name: String,
    /// What happened.
    pub status: PushStatus,
    /// git's summary and reason.
    #[serde(serialize_with = "in_line")]
    pub detail: String,
}

/// What `speccoder attest push` did (or, with `--dry-run`, would do).
#[derive(Debug, Clone, Serialize)]
pub struct PushReport {
    /// The remote.
    #[serde(serialize_with = "in_line")]
    pub remote: String,
    /// The branch pushed (full name) and where it went on the remote.
    #[serde(serialize_with = "in_line")]
    pub branch: String,
    /// The remote's branch.
    #[serde(serialize_with = "in_line")]
    pub remote_branch: String,
    /// Only shown, nothing sent.
    pub dry_run: bool,
    /// How many pushes it took (each after the first followed a fetch and merge).
    pub attempts: usize,
    /// The fetches made between attempts.
    pub fetches: Vec<FetchReport>,
    /// Every reference of the last push.
    pub refs: Vec<PushRow>,
    /// With `--dry-run`: our references the remote no longer holds though it did when last
    /// fetched from or pushed to, which a push decides by fetch's rule before it sends anything.
    #[serde(serialize_with = "in_line")]
    pub deleted_there: Vec<String>,
}

impl std::fmt::Display for PushReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let verb = if self.dry_run { "would push" } else { "pushed" };
        writeln!(f, "attest push to {} ({verb} {} as {})", self.remote, self.branch, self.remote_branch)?;
        for fetch in &self.fetches {
            writeln!(f, "  the remote's evidence had moved; fetched and merged it:")?;
            for line in fetch.to_string().lines().skip(1) {
                writeln!(f, "  {line}")?;
            }
        }
        for row in &self.refs {
            writeln!(f, "  {:<10} {} {}", row.status.as_str(), row.name, row.detail)?;
        }
        for name in &self.deleted_there {
            writeln!(
                f,
                "  ({} no longer holds {name}: a real push would fetch first, which deletes it here unless it changed here since, and sends it then)",
                self.remote
            )?;
        }
        if self.dry_run && self.refs.iter().any(|r| r.status == PushStatus::Rejected) {
            writeln!(
                f,
                "  (a real push would fetch and merge the remote's evidence first, then push again)"
            )?;
        }
        Ok(())
    }
}

/// Pushes the current branch, our notes and `refs/speccoder/*` to `remote` (default: the branch's
/// push remote as git chooses it: `branch.<name>.pushRemote`, `remote.pushDefault`, its upstream
/// remote, else `origin`) in one atomic push (see the module documentation).
///
/// # Errors
/// Not on a branch, another fetch or push of the repository holding the fetch lock
/// ([`GitError::FetchLocked`], nothing pushed), the branch refused, a refusal a merge does not
/// fix, a notes conflict, or [`SyncError::Contention`] after [`PUSH_TRIES`] attempts.
pub fn push(
    repo: &Repo,
    remote: Option<&str>,
    dry_run: bool,
    trust: &TrustFiles,
) -> Result<PushReport, SyncError> {
    let branch = match repo.head()? {
        // Pushed by its name as text: one that is not UTF-8 is refused before anything is sent.
        Head::Branch { name, .. } => name.text()?.to_owned(),
        Head::Detached(id) => return Err(SyncError::NotOnBranch(format!("detached at {id}"))),
        Head::Unborn(name) => return Err(SyncError::NotOnBranch(format!("{name} has no commits yet"))),
    };
    let remote = remote_for(repo, remote, Direction::Push)?;
    let remote_branch = push_destination(repo, &branch, &remote)?;
    // A push moves the remote-tracking copies and fetches when the remote moved: one fetch or
    // push of the repository at a time. A dry run writes nothing here and needs no lock.
    let held = if dry_run { None } else { Some(repo.lock_fetch()?) };
    let mut fetches = Vec::new();
    for attempt in 1..=PUSH_TRIES {
        // git refuses no creation: a reference the remote deleted is decided by fetch's rule first
        // (one deleted there between this listing and the push is still made again). A push
        // through a symbolic reference moves what it names: none is pushed to.
        let listed = repo.ls_remote(&remote, &[NOTES_REF], &[SPECCODER_REFS])?;
        refuse_links(&remote, &listed)?;
        let mut deleted_there = deleted_there(repo, &remote, &listed)?;
        if let (Some(held), false) = (&held, deleted_there.is_empty()) {
            fetches.push(fetch_for_push(repo, &remote, trust, held)?);
            deleted_there.clear();
        }
        let sent = evidence_refs(repo)?;
        let out = repo.push_atomic(&remote, &refspecs(&branch, &remote_branch, &sent), dry_run)?;
        let report = |fetches| PushReport {
            remote: remote.clone(),
            branch: branch.clone(),
            remote_branch: remote_branch.clone(),
            dry_run,
            attempts: attempt,
            fetches,
            refs: out.refs.iter().map(PushRow::of).collect(),
            deleted_there,
        };
        if out.ok {
            if !dry_run {
                remember_pushed(repo, &remote, &sent)?;
            }
            return Ok(report(fetches));
        }
        refuse_unless_evidence_moved(&out, &remote, &branch, &remote_branch)?;
        let Some(held) = &held else { return Ok(report(fetches)) };
        fetches.push(fetch_for_push(repo, &remote, trust, held)?);
    }
    Err(SyncError::Contention { remote })
}

/// A fetch from `remote` before a push tries (again): what it cannot join stops the push.
fn fetch_for_push(
    repo: &Repo,
    remote: &str,
    trust: &TrustFiles,
    held: &FetchLock,
) -> Result<FetchReport, SyncError> {
    let fetched = fetch_holding(repo, remote, trust, held)?;
    if fetched.conflicts > 0 {
        return Err(SyncError::RefsConflict {
            remote: remote.to_owned(),
            conflicts: fetched.ref_conflicts(),
        });
    }
    Ok(fetched)
}

/// Refuses a push to `remote` while a reference of its evidence (`listed`: its notes reference
/// and `refs/speccoder/*`, as `git ls-remote --symref` lists them just before the push) is a
/// symbolic reference: the remote would move the reference it names (its `main`, say) to what
/// the push sends for it.
fn refuse_links(remote: &str, listed: &[RemoteRef]) -> Result<(), SyncError> {
    let links: Vec<(String, String)> = listed
        .iter()
        .filter_map(|r| r.symbolic.as_ref().map(|target| (r.name.clone(), target.clone())))
        .collect();
    if links.is_empty() {
        return Ok(());
    }
    Err(SyncError::SymbolicThere { remote: remote.to_owned(), links })
}

/// Our references under `refs/speccoder/` that `remote` held when last fetched from or pushed to
/// (each has its remote-tracking copy) and no longer holds, as `git ls-remote` listed it now
/// (`listed`). The push's pattern would make each there again, and git refuses no creation, so a
/// push fetches first and fetch's rule decides each: deleted here unless it changed here since,
/// when it is sent. Without a remote-tracking copy there is nothing to ask the remote.
fn deleted_there(repo: &Repo, remote: &str, listed: &[RemoteRef]) -> Result<Vec<String>, SyncError> {
    let prefix = tracking_prefix(remote);
    let tracked = repo.refs_with_prefix(&prefix)?;
    if tracked.is_empty() {
        return Ok(Vec::new());
    }
    let ours: BTreeSet<String> =
        repo.refs_with_prefix(SPECCODER_REFS)?.into_iter().map(|(name, _)| name).collect();
    let theirs: BTreeSet<&str> = listed.iter().map(|r| r.name.as_str()).collect();
    Ok(tracked
        .into_iter()
        .map(|(tracking, _)| format!("{SPECCODER_REFS}{}", &tracking[prefix.len()..]))
        .filter(|name| ours.contains(name) && !theirs.contains(name.as_str()))
        .collect())
}

/// What `git push` is told to send: the branch, the notes reference when there is one, and every
/// reference under `refs/speccoder/` by one pattern, so that the arguments stay few however many
/// references there are (one each would pass the system's limit on a command line). `sent` holds
/// them all, read just before: a reference made between that reading and the push goes too, as
/// one named would had it been read later, and is recorded by the next push.
fn refspecs(branch: &str, remote_branch: &str, sent: &[(String, ObjectId)]) -> Vec<String> {
    let mut refspecs = vec![format!("{branch}:{remote_branch}")];
    if sent.iter().any(|(name, _)| name == NOTES_REF) {
        refspecs.push(format!("{NOTES_REF}:{NOTES_REF}"));
    }
    refspecs.push(format!("{SPECCODER_REFS}*:{SPECCODER_REFS}*"));
    refspecs
}

/// The evidence references a push sends, with what each points at now: the notes reference and
/// every reference under `refs/speccoder/`.
fn evidence_refs(repo: &Repo) -> Result<Vec<(String, ObjectId)>, SyncError> {
    let mut sent: Vec<(String, ObjectId)> = Vec::new();
    if let Some(notes) = repo.ref_target(NOTES_REF)? {
        sent.push((NOTES_REF.to_owned(), notes));
    }
    sent.extend(repo.refs_with_prefix(SPECCODER_REFS)?);
    Ok(sent)
}

impl PushRow {
    /// The row of one reference git reported.
    fn of(r: &PushedRef) -> PushRow {
        PushRow {
            name: r.dst.clone(),
            status: r.status,
            detail: match &r.reason {
                Some(reason) => format!("{} ({reason})", r.summary),
                None => r.summary.clone(),
            },
        }
    }
}

/// Whether a refused atomic push may be tried again after a fetch: only when the remote's
/// evidence moved (or another push held its references at that instant). A branch that is behind,
/// or anything else, is the user's to look at: the error says which references and why.
fn refuse_unless_evidence_moved(
    out: &PushOutput,
    remote: &str,
    branch: &str,
    remote_branch: &str,
) -> Result<(), SyncError> {
    // With --atomic every reference is refused when one is; the others say why.
    let refused: Vec<&PushedRef> = out
        .refs
        .iter()
        .filter(|r| r.status == PushStatus::Rejected && r.reason.as_deref() != Some("atomic push failed"))
        .collect();
    let evidence = |r: &PushedRef| r.src == NOTES_REF || r.src.starts_with(SPECCODER_REFS);
    // git says "needs force" when the remote's value is not a commit: the fetch that follows
    // names it as damaged there and says how to repair it.
    let behind = |r: &PushedRef| {
        matches!(r.reason.as_deref(), Some("fetch first" | "non-fast-forward" | "needs force"))
    };
    if let Some(b) = refused.iter().find(|r| r.src == branch && behind(r)) {
        return Err(SyncError::BranchRejected {
            remote: remote.to_owned(),
            branch: short_branch(branch).to_owned(),
            remote_branch: short_branch(remote_branch).to_owned(),
            reason: b.reason.clone().unwrap_or_else(|| b.summary.clone()),
        });
    }
    let retry = |r: &&PushedRef| (evidence(r) && behind(r)) || overtaken(r);
    if !refused.is_empty() && refused.iter().all(retry) {
        return Ok(());
    }
    let mut refs: Vec<String> = refused
        .iter()
        .map(|r| format!("{} ({})", r.dst, r.reason.as_deref().unwrap_or(&r.summary)))
        .collect();
    if refs.is_empty() {
        refs.push(format!("the push ({})", out.stderr));
    }
    Err(SyncError::Rejected { remote: remote.to_owned(), refs, remote_said: out.remote_said.clone() })
}

/// Where the branch `branch` (full name) goes on `remote`, as `git push` without a refspec
/// sends it by `push.default`: to the same name (`current`, `matching`; `simple`, git's
/// default, unless the branch's upstream on that remote has another name, which it refuses),
/// or to its upstream branch on that remote (`upstream`, which refuses a branch without one).
/// Without an upstream, `simple` pushes to the same name.
fn push_destination(repo: &Repo, branch: &str, remote: &str) -> Result<String, SyncError> {
    let upstream = repo.upstream_on(branch, remote)?;
    let setting = repo.push_default()?;
    let named = |name: &str| short_branch(name).to_owned();
    match setting {
        PushDefault::Nothing => Err(SyncError::PushDefaultNothing),
        PushDefault::Current | PushDefault::Matching => Ok(branch.to_owned()),
        PushDefault::Upstream => {
            upstream.ok_or_else(|| SyncError::NoUpstream { remote: remote.to_owned(), branch: named(branch) })
        }
        PushDefault::Simple => match upstream {
            Some(upstream) if upstream != branch => Err(SyncError::UpstreamNameDiffers {
                remote: remote.to_owned(),
                branch: named(branch),
                upstream: named(&upstream),
                setting: if repo.config_is_set("push.default") {
                    "simple".to_owned()
                } else {
                    "unset, so simple".to_owned()
                },
            }),
            _ => Ok(branch.to_owned()),
        },
    }
}

/// A branch's short name (`refs/heads/` dropped; any other reference as it is).
fn short_branch(name: &str) -> &str {
    name.strip_prefix("refs/heads/").unwrap_or(name)
}

/// Whether the remote refused a reference because another push was updating it at that instant
/// (its lock was held, or its value changed between the advertisement and the update).
fn overtaken(r: &PushedRef) -> bool {
    r.summary.contains("remote rejected")
        && r.reason.as_deref().is_some_and(|reason| {
            ["lock", "incorrect old value", "atomic transaction failed", "failed to update ref"]
                .iter()
                .any(|w| reason.contains(w))
        })
}

/// After a push, the remote holds what we sent: the remote-tracking copies say so, so that the
/// next fetch compares against it.
fn remember_pushed(repo: &Repo, remote: &str, sent: &[(String, ObjectId)]) -> Result<(), GitError> {
    for (name, id) in sent {
        let tracking = if name == NOTES_REF {
            tracking_notes_ref(remote)
        } else {
            format!("{}{}", tracking_prefix(remote), &name[SPECCODER_REFS.len()..])
        };
        set_tracking(repo, &tracking, Some(*id), &format!("speccoder attest push to {remote}"))?;
    }
    Ok(())
}
