//! Evidence a rewrite left behind: a task commit rebased, amended or cherry-picked has a new id
//! and no note, while its evidence stays on the old commit, which the branch no longer holds.
//! Such a task is told to run `speccoder attest carry`, not to fetch evidence that is already
//! here, unless carry would refuse that evidence for a reason no trust changes: then it is told
//! why, and to attest the task again.

use std::cell::OnceCell;
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

use gix::ObjectId;

use crate::check::carriable;
use crate::check::completeness::{GoneCommit, notes_fetched_from};
use crate::check::line::task_of_gone_commit;
use crate::check::trailers::{is_skip_record, task_trailers};
use crate::git::Repo;
use crate::model::bundle::NOTES_REF;
use crate::model::shown::Quoted;
use crate::verify::commit::CommitReport;
use crate::verify::completeness::note_not_fetched;

/// The tasks whose evidence is on commits the checked head cannot reach, found once, when first
/// asked for.
pub struct LostEvidence<'a> {
    repo: &'a Repo,
    reachable: &'a HashSet<ObjectId>,
    /// The evidence left behind, found once.
    lost: OnceCell<Left>,
}

impl<'a> LostEvidence<'a> {
    /// Evidence outside `reachable`, the commits of the checked history.
    #[must_use]
    pub fn new(repo: &'a Repo, reachable: &'a HashSet<ObjectId>) -> Self {
        LostEvidence { repo, reachable, lost: OnceCell::new() }
    }

    /// The commit outside the checked history whose note carries evidence for `target`.
    pub fn commit_of(&self, target: &str) -> Option<ObjectId> {
        self.left().unreachable.get(target).map(|left| left.commit)
    }

    /// The commit whose note carries evidence for `target`, when the repository does not hold
    /// that commit ([`task_of_gone_commit`]), and what became of it as far as it can tell.
    pub fn gone_commit_of(&self, target: &str) -> Option<(ObjectId, GoneCommit)> {
        let old = *self.left().gone.get(target)?;
        Some((old, GoneCommit::of(self.repo, old)))
    }

    fn left(&self) -> &Left {
        self.lost.get_or_init(|| left_behind(self.repo, self.reachable))
    }

    /// A task commit without a note whose task has evidence left behind was rewritten: its
    /// `note_missing` finding says to carry the evidence over, not to fetch it; or, when carry
    /// would refuse that evidence whatever the trust ([`carriable::refusal`]), why, and how to
    /// attest the task again.
    pub fn hint_carry(&self, report: &mut CommitReport) {
        if !lacks_note(report) {
            return;
        }
        let Some(target) = report.target.clone() else {
            return;
        };
        let message = if let Some(left) = self.left().unreachable.get(&target) {
            let old = &left.commit;
            match (&left.verdict, &report.verdict) {
                (Some(was), Some(now)) if was != now => reworded_message(old, &target, was, now),
                _ => match self.not_carried(left, report, &target) {
                    Some(found) => format!(
                        "the task commit has no note, and {old}, which this branch no longer holds, carries evidence for {target}, which `speccoder attest carry` cannot re-issue for it ({}): {}; {}",
                        found.code,
                        found.why,
                        carriable::attest_again(&target, report.verdict.as_deref())
                    ),
                    None => format!(
                        "the task commit has no note, but {old}, which this branch no longer holds, carries evidence for {target}: the task commit was rebased, amended or cherry-picked; run `speccoder attest carry` to re-issue the evidence for it"
                    ),
                },
            }
        } else if let Some((old, gone)) = self.gone_commit_of(&target) {
            gone_message(self.repo, old, &gone, &target)
        } else {
            return;
        };
        for finding in report.findings.iter_mut().filter(|f| f.code == NOTE_MISSING) {
            finding.message.clone_from(&message);
        }
    }

    /// What keeps the evidence `left` behind for `target` from being carried to the task commit of
    /// `report`, as `attest carry` would refuse it ([`carriable::refusal`]).
    fn not_carried(
        &self,
        left: &LeftNote,
        report: &CommitReport,
        target: &str,
    ) -> Option<carriable::NotCarried> {
        let new = self.repo.commit(report.commit.parse().ok()?).ok()?;
        let old = self.repo.commit(left.commit).ok()?;
        carriable::refusal(self.repo, &old, left.blob, &new, target)
    }
}

/// The finding code of a task commit without a note.
const NOTE_MISSING: &str = "note_missing";

/// Whether the task commit of `report` has no note.
#[must_use]
pub fn lacks_note(report: &CommitReport) -> bool {
    report.findings.iter().any(|f| f.code == NOTE_MISSING)
}

/// The `note_missing` message of a task commit whose task's evidence is on `old`, a commit the
/// repository does not hold: removed since a rewrite left it behind, where only the notes written
/// here name it; else (the notes a remote sent name it) a commit this clone may never have held,
/// and the task commit's own note may be where that remote's was pushed from.
fn gone_message(repo: &Repo, old: ObjectId, gone: &GoneCommit, target: &str) -> String {
    match gone {
        GoneCommit::Removed => format!(
            "the task commit has no note, and the evidence for {target} is on {}: it can be neither fetched nor carried; attest the task again",
            gone.said(old)
        ),
        GoneCommit::Fetched(_) => {
            let aside = format!(
                "they hold evidence for {target} only on {old}, a commit this clone does not hold, never fetched here or removed since, from which nothing can be carried"
            );
            note_not_fetched(&notes_fetched_from(repo), Some(&aside))
        }
    }
}

/// The `note_missing` message of a task commit whose task's evidence is on `old`, which says
/// `Verdict: was` where the task commit says `now`: a reword changed the trailer, and carry
/// re-issues evidence only for the verdict it signed.
fn reworded_message(old: &ObjectId, target: &str, was: &str, now: &str) -> String {
    format!(
        "the task commit has no note, and {old}, which this branch no longer holds, carries evidence for {target} with `Verdict: {}` where this commit says `Verdict: {}`: a reword changed the trailer, and `speccoder attest carry` refuses it (not_the_same_task); restore the trailer (`git rebase -i`, reword), then run `speccoder attest carry`, or attest the task again",
        Quoted::from(was),
        Quoted::from(now)
    )
}

/// Evidence on commits outside the checked history, by task.
#[derive(Default)]
struct Left {
    /// `<unit>/<task>` -> the unreachable commit whose note names it.
    unreachable: HashMap<String, LeftNote>,
    /// `<unit>/<task>` -> the commit, no longer in the repository, whose note names it.
    gone: HashMap<String, ObjectId>,
}

/// A note on a commit outside the checked history.
struct LeftNote {
    /// The commit.
    commit: ObjectId,
    /// Its `Verdict:`.
    verdict: Option<String>,
    /// The note's blob.
    blob: ObjectId,
    /// The commit's committer time and id, by which the newest is kept.
    newest: (i64, ObjectId),
}

/// Tasks named by notes on commits outside `reachable`, and by notes on commits gone.
fn left_behind(repo: &Repo, reachable: &HashSet<ObjectId>) -> Left {
    let mut out = Left::default();
    for (annotated, blob) in repo.notes(NOTES_REF).unwrap_or_default() {
        if reachable.contains(&annotated) {
            continue;
        }
        if let Some(target) = task_of_gone_commit(repo, annotated, blob) {
            out.gone.entry(target).or_insert(annotated);
            continue;
        }
        // A skip record (ours or the published speccoder's) is outside every branch on purpose,
        // and ticks nothing; it is no evidence left behind.
        if let Ok(commit) = repo.commit(annotated)
            && !is_skip_record(&commit.message, commit.parents.len())
            && let (Some(target), verdict) = task_trailers(&commit.message)
        {
            // The newest, as `attest carry` looks at the newest first.
            let newest = (commit.committer.seconds, annotated);
            let left = LeftNote { commit: annotated, verdict, blob, newest };
            match out.unreachable.entry(target) {
                Entry::Occupied(mut kept) if kept.get().newest < newest => {
                    kept.insert(left);
                }
                Entry::Occupied(_) => {}
                Entry::Vacant(slot) => {
                    slot.insert(left);
                }
            }
        }
    }
    out
}
