//! `speccoder attest fetch` and `speccoder attest push`: the evidence travels with the branch.
//!
//! Fetch brings the remote's notes (`refs/notes/speccoder`) and `refs/speccoder/*` (skips,
//! published held-out sets) into remote-tracking references (`refs/notes/remotes/<remote>/speccoder`
//! and `refs/speccoder-remotes/<remote>/*`, a namespace no branch refspec prunes), then merges them
//! into ours: notes by the bundle rule ([`crate::model::bundle::merge`]), the other references by
//! a three-way decision against what was merged last time. Those arrive first in a staging
//! namespace (`refs/speccoder-fetching/<remote>/*`, which stays as git's copy of the remote's, so
//! that a fetch writes only what changed), and each remote-tracking copy moves to the fetched
//! value only once its merge is written: a fetch stopped anywhere is safe to run again.
//! One staging namespace for every run, so one fetch or push of a repository at a time: each holds
//! the fetch lock ([`crate::git::FetchLock`]) from before it asks the remote until it is done.
//! The notes come by a fetch of their own, before the other references, so that none of those
//! keeps them from being merged. A reference of the remote's evidence that is a symbolic reference
//! (`refs/notes/speccoder` naming `refs/heads/main`) is never fetched (its value is the history of
//! what it names) and never pushed to (the remote would move what it names): `git ls-remote
//! --symref` tells them apart, before each fetch and each push.
//! Push sends the branch, the notes and `refs/speccoder/*` in one atomic push; when the remote's
//! evidence moved meanwhile it fetches, merges and tries again, a bounded number of times, and
//! never forces. A reference the remote deleted is no refusal, so push asks the remote first and
//! fetches before it sends one: fetch's rule decides it.

mod fetch;
mod push;

pub use fetch::{FetchReport, RefRow, fetch};
pub use push::{PushReport, PushRow, push};

use gix::ObjectId;

use crate::check::trust::TrustError;
use crate::exit::{Class, ExitClass};
use crate::git::{
    CasUpdate, Direction, GitError, Head, Repo, Unjoinable, delete_ref_command, set_ref_command,
};
use crate::model::bundle::NOTES_REF;
use crate::model::refs;
use crate::model::shown::{one_line, shell_word};

/// The prefix of the references fetch and push carry besides the notes.
pub const SPECCODER_REFS: &str = "refs/speccoder/";

/// How often a push that found the remote's evidence moved fetches, merges and tries again.
pub const PUSH_TRIES: usize = 5;

/// The prefix of the remote-tracking copies of `refs/speccoder/*` for `remote`: each holds the
/// value of the remote's reference that was last merged into ours (or pushed), the base of the
/// next fetch's three-way decision.
#[must_use]
pub fn tracking_prefix(remote: &str) -> String {
    format!("{TRACKING_REFS}{remote}/")
}

/// Where the remote-tracking copies of every remote's `refs/speccoder/*` are.
const TRACKING_REFS: &str = "refs/speccoder-remotes/";

/// Each remote whose remote-tracking copy of `name` (a reference under `refs/speccoder/`) exists:
/// the remote held it when last fetched from or pushed to. The remote's name, and the copy.
///
/// # Errors
/// The references cannot be listed.
pub fn remotes_holding(repo: &Repo, name: &str) -> Result<Vec<(String, String)>, GitError> {
    let Some(suffix) = name.strip_prefix(SPECCODER_REFS) else { return Ok(Vec::new()) };
    let copies = repo.refs_with_prefix(TRACKING_REFS)?.into_iter().filter_map(|(tracking, _)| {
        let remote = tracking.strip_prefix(TRACKING_REFS)?.strip_suffix(suffix)?.strip_suffix('/')?;
        (!remote.is_empty()).then(|| (remote.to_owned(), tracking.clone()))
    });
    Ok(copies.collect())
}

/// The prefix where `attest fetch` has git write `remote`'s `refs/speccoder/*` before merging
/// them, so that the remote-tracking copies never run ahead of the merge: git's copy of the
/// remote's references as last fetched, which each fetch brings up to date (pruned, so it mirrors
/// the remote) before reading it, and which git rewrites only where the remote changed.
#[must_use]
pub fn staging_prefix(remote: &str) -> String {
    format!("refs/speccoder-fetching/{remote}/")
}

/// Why fetching or pushing the evidence stopped.
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    /// The repository or git failed.
    #[error(transparent)]
    Git(#[from] GitError),
    /// This clone's trust, which joined notes are checked against, cannot be read.
    #[error(transparent)]
    Trust(#[from] TrustError),
    /// Push needs a checked-out branch.
    #[error("HEAD is not on a branch ({0}); check out the branch whose evidence you want to push")]
    NotOnBranch(String),
    /// Notes of the same commits differ and cannot be joined, or the remote's notes removed a note
    /// of ours; our notes did not change.
    #[error(
        "the notes of {} commit(s) differ here and on {remote} and cannot be joined, so {NOTES_REF} was not changed:\n{}\n{}",
        .conflicts.len(),
        .conflicts.iter().map(|(c, why)| format!("  {c}: {why}")).collect::<Vec<_>>().join("\n"),
        notes_advice(.remote, .tracking, .conflicts, .removed, .advised)
    )]
    NotesConflict {
        /// The remote.
        remote: String,
        /// Its remote-tracking notes reference.
        tracking: String,
        /// Each commit with why its notes cannot be joined.
        conflicts: Vec<(String, String)>,
        /// Of those, each whose note the remote's notes no longer hold, with the blob of ours.
        removed: Vec<(String, String)>,
        /// Of those, each whose why says its cause and how to settle it (a note joined line by
        /// line, two carries of the same evidence).
        advised: Vec<String>,
    },
    /// The remote's notes cannot be read as notes (two notes for one commit, a reference that is
    /// not a notes commit, a tree built to be walked without end): nothing was merged, and each
    /// fetch brings them back as they are, so they must be repaired on the remote.
    #[error(
        "the notes on {remote} are damaged: {what}. Nothing was merged and {NOTES_REF} here was not changed. Every fetch (and push) brings the remote's notes back as they are into {tracking}, so changing that copy does not help: they must be repaired on {remote}, by whoever can push to it. {repair}"
    )]
    RemoteNotesDamaged {
        /// The remote.
        remote: String,
        /// Its remote-tracking notes reference.
        tracking: String,
        /// What is damaged.
        what: String,
        /// How to repair it, as commands.
        repair: String,
    },
    /// The remote refused the branch itself: merging evidence cannot help.
    #[error(
        "{remote} refused {pushed} ({reason}): the remote's branch has commits this one does not (or this one was rewritten); bring them in (`git pull --rebase {remote_w} {remote_branch_w}`, then `speccoder attest carry`) or, after a rebase of your own branch, `git push --force-with-lease {remote_w} {pushed_w}` yourself; then run `speccoder attest push` again. Nothing was pushed",
        pushed = refspec(.branch, .remote_branch),
        pushed_w = shell_word(&refspec(.branch, .remote_branch)),
        remote_w = shell_word(.remote),
        remote_branch_w = shell_word(.remote_branch)
    )]
    BranchRejected {
        /// The remote.
        remote: String,
        /// The branch (short name).
        branch: String,
        /// The remote's branch it was pushed to (short name).
        remote_branch: String,
        /// git's reason.
        reason: String,
    },
    /// `push.default` is `simple` (git's default) and the branch's upstream has another name:
    /// `git push` would refuse it too.
    #[error(
        "{branch} tracks {upstream} on {remote}, a branch of another name, and push.default ({setting}) pushes a branch only to its own name: `git push` refuses it, and so does this; nothing was pushed. To push to {upstream} (as `git push {remote_w} {head_upstream_w}` does), run `git config push.default upstream`; to push to a branch named {branch} instead, run `git push --set-upstream {remote_w} {branch_w}`; then run `speccoder attest push` again",
        remote_w = shell_word(.remote),
        branch_w = shell_word(.branch),
        head_upstream_w = shell_word(&format!("HEAD:{}", .upstream))
    )]
    UpstreamNameDiffers {
        /// The remote.
        remote: String,
        /// The branch (short name).
        branch: String,
        /// Its upstream branch on the remote (short name).
        upstream: String,
        /// `simple`, or `unset, so simple`.
        setting: String,
    },
    /// `push.default` is `upstream` (or `tracking`) and the branch has no upstream on the remote.
    #[error(
        "push.default is upstream and {branch} has no upstream branch on {remote}: `git push` refuses it, and so does this; nothing was pushed. Set one with `git push --set-upstream {remote_w} {branch_w}` (or `git branch --set-upstream-to {remote_w}/<branch>`), then run `speccoder attest push` again",
        remote_w = shell_word(.remote),
        branch_w = shell_word(.branch)
    )]
    NoUpstream {
        /// The remote.
        remote: String,
        /// The branch (short name).
        branch: String,
    },
    /// `push.default` is `nothing`: git pushes no branch it is not told to.
    #[error(
        "push.default is nothing, so `git push` pushes no branch unless told which, and neither does this; nothing was pushed. Choose where branches go with `git config push.default simple` (the same name) or `upstream`, then run `speccoder attest push` again"
    )]
    PushDefaultNothing,
    /// The remote refused references for a reason a merge does not fix (a hook declined them).
    #[error(
        "{remote} refused {}; nothing was pushed{}",
        .refs.join(", "),
        .remote_said.iter().map(|line| format!("\n  remote: {line}")).collect::<String>()
    )]
    Rejected {
        /// The remote.
        remote: String,
        /// Each refused reference with git's reason.
        refs: Vec<String>,
        /// What the remote said (git's `remote:` lines: a hook's explanation), made inert and
        /// bounded ([`crate::git::PushOutput::remote_said`]).
        remote_said: Vec<String>,
    },
    /// References of `refs/speccoder/*` that differ here and on the remote and cannot be joined.
    #[error(
        "{} differ here and on {remote} and cannot be joined; nothing was pushed:\n{}",
        .conflicts.iter().map(RefConflict::named).collect::<Vec<_>>().join(", "),
        .conflicts.iter().map(|c| format!("  {}: {}\n  {}", c.named(), c.reason, c.advice(remote))).collect::<Vec<_>>().join("\n")
    )]
    RefsConflict {
        /// The remote.
        remote: String,
        /// Each reference that cannot be joined.
        conflicts: Vec<RefConflict>,
    },
    /// References of the remote's evidence that are symbolic references: a push to one moves the
    /// reference it names (a branch), so nothing is pushed.
    #[error(
        "{remote} keeps {} as a link to another reference, which a push to it would move; nothing was pushed:\n{}\nOnly whoever keeps {remote} can remove such a link alone: `git symbolic-ref --delete <name>` in its repository (a push that deletes it, `git push {remote_w} --delete <name>`, deletes what it names too); then run `speccoder attest fetch {remote_w}` and `speccoder attest push {remote_w}` again",
        if .links.len() == 1 { "a reference of its evidence" } else { "references of its evidence" },
        .links.iter().map(|(name, target)| format!("  {} -> {}", one_line(name), one_line(target))).collect::<Vec<_>>().join("\n"),
        remote_w = shell_word(.remote)
    )]
    SymbolicThere {
        /// The remote.
        remote: String,
        /// Each link: its name and the reference it names.
        links: Vec<(String, String)>,
    },
    /// The remote's evidence kept moving.
    #[error(
        "the evidence on {remote} kept moving: {PUSH_TRIES} pushes were each overtaken by another writer's; run `speccoder attest push` again when they are done"
    )]
    Contention {
        /// The remote.
        remote: String,
    },
}

impl ExitClass for SyncError {
    fn class(&self) -> Class {
        match self {
            // git's fetch or push failing is the remote's state (unreachable, refusing), as
            // GitError classes it.
            SyncError::Git(e) => e.class(),
            SyncError::Trust(e) => e.class(),
            SyncError::NotOnBranch(_)
            | SyncError::NotesConflict { .. }
            | SyncError::RemoteNotesDamaged { .. }
            | SyncError::BranchRejected { .. }
            | SyncError::UpstreamNameDiffers { .. }
            | SyncError::NoUpstream { .. }
            | SyncError::PushDefaultNothing
            | SyncError::Rejected { .. }
            | SyncError::RefsConflict { .. }
            | SyncError::SymbolicThere { .. }
            | SyncError::Contention { .. } => Class::GitPrecondition,
        }
    }
}

/// One reference of `refs/speccoder/*` that both sides changed differently since the last fetch.
#[derive(Debug, Clone)]
pub struct RefConflict {
    /// Our reference.
    pub name: String,
    /// Why the two cannot be joined.
    pub reason: String,
    /// Ours (`None`: none here).
    pub ours: Option<String>,
    /// The remote's value (`None`: deleted there).
    pub theirs: Option<String>,
    /// Which kind of conflict, which decides the advice.
    pub kind: Unjoinable,
}

impl RefConflict {
    /// The reference as a message names it: its name, which the advice's commands take, and
    /// what it stands for in its user's words (`refs/speccoder/skipped/add-x/1%2E2 (the skip of
    /// add-x/1.2)`), when it is a reference speccoder writes.
    #[must_use]
    pub fn named(&self) -> String {
        match refs::stands_for(&self.name) {
            Some(what) => format!("{} ({what})", self.name),
            None => self.name.clone(),
        }
    }

    /// How to settle it, as commands that work as given: the fetch that follows compares
    /// against what was fetched before the conflict, so a side taken as it is merges.
    #[must_use]
    pub fn advice(&self, remote: &str) -> String {
        // Every name here may come from the remote: each is one shell word, so that no advice runs
        // as a command what a reference name holds.
        let (name, remote) = (shell_word(&self.name), shell_word(remote));
        let again =
            format!("then run `speccoder attest fetch {remote}` and `speccoder attest push {remote}`");
        let drop_theirs = format!("`git push {remote} --delete {name}`");
        match &self.kind {
            Unjoinable::BothMoved => {
                let theirs = match &self.theirs {
                    Some(id) => format!("keep theirs with `{}`", set_ref_command(&self.name, id)),
                    None => format!("keep theirs (deleted) with `{}`", delete_ref_command(&self.name)),
                };
                format!(
                    "{theirs}, or keep yours by deleting theirs on the remote with {drop_theirs}; {again}"
                )
            }
            Unjoinable::DamagedThere => {
                let fix = match (&self.ours, &self.theirs) {
                    (Some(_), Some(id)) => format!(
                        "put yours back there with `git push --force-with-lease={name}:{id} {remote} {name}` (it replaces that value only)"
                    ),
                    _ => format!("delete it there with {drop_theirs}"),
                };
                format!(
                    "the copy on {remote} is damaged and every fetch brings it back, so it must be repaired there: {fix}, or ask whoever keeps {remote} to repair it; {again}"
                )
            }
            Unjoinable::DamagedHere => format!(
                "repair yours or delete it with `{}` (the next fetch takes the remote's); {again}",
                delete_ref_command(&self.name)
            ),
            Unjoinable::SymbolicThere { target } => format!(
                "{remote} keeps it as a link to {} and every fetch finds it so, and only whoever keeps {remote} can remove the link alone: ask them to run `git symbolic-ref --delete {name}` in its repository (a push that deletes it, `git push {remote} --delete {name}`, deletes {} too); {again}",
                one_line(target),
                one_line(target)
            ),
            Unjoinable::NameUnusable => format!(
                "this clone cannot keep it, so it is settled there: delete it with {drop_theirs} or, when the remote refuses that too (it cannot lock a name with a part longer than a file name may be either), ask whoever keeps {remote} to remove its line from the `packed-refs` file of its repository; {again}"
            ),
            Unjoinable::NameTaken { by } => format!(
                "keep theirs by deleting yours with `{}`, or keep yours by deleting theirs on the remote with {drop_theirs}; {again}",
                delete_ref_command(by)
            ),
        }
    }
}

/// The notes reference the advice has a copy of the remote's notes repaired in, to push back.
const REPAIR_REF: &str = "refs/notes/speccoder-repair";

/// How to settle a notes conflict, as commands that work as given: for a commit whose notes
/// differ, which copy to keep; for one whose note the remote removed (`removed`, each with the
/// blob of ours), where there is no copy of theirs, [`removed_advice`]; for one whose cause its
/// own line tells with its settlement (`advised`), nothing more.
fn notes_advice(
    remote: &str,
    tracking: &str,
    conflicts: &[(String, String)],
    removed: &[(String, String)],
    advised: &[String],
) -> String {
    let mut advice = Vec::new();
    if conflicts.len() > removed.len() + advised.len() {
        let (twice, which) = if removed.is_empty() && advised.is_empty() {
            ("Each was attested twice, differently. ", "")
        } else {
            ("", "For a commit whose notes differ: ")
        };
        advice.push(format!(
            "{twice}{which}Compare `git notes --ref={NOTES_REF} show <commit>` with `git notes --ref={} show <commit>`, remove the copy you do not want with `git notes --ref={NOTES_REF} remove <commit>` (keeping theirs) or keep yours and ask its author to remove theirs",
            shell_word(tracking)
        ));
    }
    if !removed.is_empty() {
        advice.push(removed_advice(remote, removed));
    }
    if advice.is_empty() {
        return format!(
            "Settle each as its line says, then run `speccoder attest fetch {}` again",
            shell_word(remote)
        );
    }
    format!("{}, then run `speccoder attest fetch {}` again", advice.join("; "), shell_word(remote))
}

/// How to settle notes of ours that the remote's notes, which descend from ours, removed (each
/// commit with the blob of our note): put ours back there by a fast-forward of theirs, or drop
/// ours here.
fn removed_advice(remote: &str, removed: &[(String, String)]) -> String {
    let remote_w = shell_word(remote);
    let commits = removed.iter().map(|(commit, _)| commit.as_str()).collect::<Vec<_>>().join(", ");
    let noun = if removed.len() == 1 { "note" } else { "notes" };
    let each = |command: &dyn Fn(&str, &str) -> String| {
        removed
            .iter()
            .map(|(commit, blob)| format!("`{}`", command(commit, blob)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let put_back = each(&|commit, blob| {
        format!("git notes --ref={REPAIR_REF} add -C {} {}", shell_word(blob), shell_word(commit))
    });
    let drop_ours = each(&|commit, _| format!("git notes --ref={NOTES_REF} remove {}", shell_word(commit)));
    format!(
        "{remote} removed the {noun} of {commits} that this clone holds: its notes descend from ours without it, so there is no copy of theirs to compare or remove. To keep yours, put it back there: `git fetch {remote_w} +{NOTES_REF}:{REPAIR_REF}`, {put_back}, then `git push {remote_w} {REPAIR_REF}:{NOTES_REF}` (a fast-forward of theirs); to accept the removal, drop yours: {drop_ours}"
    )
}

fn short(hex: &str) -> &str {
    hex.get(..12).unwrap_or(hex)
}

/// The remote named, or the default one for the current branch in `direction`.
fn remote_for(repo: &Repo, remote: Option<&str>, direction: Direction) -> Result<String, SyncError> {
    let branch = match repo.head()? {
        Head::Branch { name, .. } => Some(name),
        _ => None,
    };
    Ok(match remote {
        Some(name) => repo.require_remote(name)?,
        None => repo.default_remote(branch.as_ref(), direction)?,
    })
}

/// The refspec that pushes `branch` to `remote_branch` (short names): the name alone when they
/// are the same.
fn refspec(branch: &str, remote_branch: &str) -> String {
    if branch == remote_branch { branch.to_owned() } else { format!("{branch}:{remote_branch}") }
}

/// Points the remote-tracking (or staged) reference `tracking` at `value` (`None`: deletes it),
/// by compare-and-swap, with `reflog` as its reflog entry.
fn set_tracking(repo: &Repo, tracking: &str, value: Option<ObjectId>, reflog: &str) -> Result<(), GitError> {
    repo.update_ref_retrying(tracking, |current| {
        Ok::<_, GitError>(match value {
            _ if current == value => CasUpdate::Keep(()),
            Some(new) => CasUpdate::Move { new, reflog: reflog.to_owned(), then: () },
            None => CasUpdate::Delete { then: () },
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_the_remote_removed_is_advised_apart_from_notes_that_differ_with_each_command_quoted() {
        let (differs, removed) = ("1".repeat(40), "2".repeat(40));
        let conflicts =
            [(differs.clone(), "different statements".to_owned()), (removed.clone(), "gone".to_owned())];
        let blob = "3".repeat(40);
        let advice = notes_advice(
            "up$(id)",
            "refs/notes/remotes/up$(id)/speccoder",
            &conflicts,
            &[(removed.clone(), blob.clone())],
            &[],
        );
        assert!(advice.starts_with("For a commit whose notes differ: Compare"), "{advice}");
        assert!(
            advice.contains(&format!("up$(id) removed the note of {removed} that this clone holds")),
            "{advice}"
        );
        for command in [
            format!("`git notes --ref={REPAIR_REF} add -C {blob} {removed}`"),
            format!("`git notes --ref={NOTES_REF} remove {removed}`"),
            format!("`git fetch 'up$(id)' +{NOTES_REF}:{REPAIR_REF}`"),
            format!("`git push 'up$(id)' {REPAIR_REF}:{NOTES_REF}`"),
            "`speccoder attest fetch 'up$(id)'`".to_owned(),
        ] {
            assert!(advice.contains(&command), "{command} in {advice}");
        }
        assert!(
            !advice.contains(&differs),
            "a commit whose notes differ has no command of its own: {advice}"
        );
    }

    #[test]
    fn a_name_from_the_remote_is_one_shell_word_in_every_command_of_a_conflicts_advice() {
        let name = "refs/speccoder/skipped/x;touch${IFS}p".to_owned();
        let by = "refs/speccoder/a$(id)".to_owned();
        let kinds = [
            Unjoinable::BothMoved,
            Unjoinable::DamagedThere,
            Unjoinable::DamagedHere,
            Unjoinable::NameTaken { by: by.clone() },
            Unjoinable::SymbolicThere { target: "refs/heads/main".to_owned() },
            Unjoinable::NameUnusable,
        ];
        for kind in kinds {
            let conflict = RefConflict {
                name: name.clone(),
                reason: String::new(),
                ours: Some("1".repeat(40)),
                theirs: Some("2".repeat(40)),
                kind,
            };
            let advice = conflict.advice("up$(id)");
            for command in advice.split('`').skip(1).step_by(2) {
                for raw in [name.as_str(), by.as_str(), "up$(id)"] {
                    assert!(!command.contains(raw) || command.contains(&format!("'{raw}'")), "{command}");
                }
            }
        }
    }
}
