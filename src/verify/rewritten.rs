//! Evidence a rewrite left behind: a task commit rebased, amended or cherry-picked has a new id
//! and no note, while its evidence stays on the old commit, which the branch no longer holds.
//! Such a task is told to run `speccoder attest carry`, not to fetch evidence that is already
//! here.

use std::cell::OnceCell;
use std::collections::{HashMap, HashSet};

use gix::ObjectId;

use crate::check::trailers::task_trailers;
use crate::git::Repo;
use crate::model::bundle::NOTES_REF;
use crate::model::predicate::Verdict;
use crate::verify::commit::CommitReport;

/// The tasks whose evidence is on commits the checked head cannot reach, found once, when first
/// asked for.
pub struct LostEvidence<'a> {
    repo: &'a Repo,
    reachable: &'a HashSet<ObjectId>,
    /// `<unit>/<task>` -> the unreachable commit whose note names it.
    lost: OnceCell<HashMap<String, ObjectId>>,
}

impl<'a> LostEvidence<'a> {
    /// Evidence outside `reachable`, the commits of the checked history.
    #[must_use]
    pub fn new(repo: &'a Repo, reachable: &'a HashSet<ObjectId>) -> Self {
        LostEvidence { repo, reachable, lost: OnceCell::new() }
    }

    /// The commit outside the checked history whose note carries evidence for `target`.
    pub fn commit_of(&self, target: &str) -> Option<ObjectId> {
        self.lost.get_or_init(|| unreachable_task_notes(self.repo, self.reachable)).get(target).copied()
    }

    /// A task commit without a note whose task has evidence left behind was rewritten: its
    /// `note_missing` finding says to carry the evidence over, not to fetch it.
    pub fn hint_carry(&self, report: &mut CommitReport) {
        if !lacks_note(report) {
            return;
        }
        let Some((target, old)) = report.target.clone().and_then(|t| self.commit_of(&t).map(|old| (t, old)))
        else {
            return;
        };
        for finding in report.findings.iter_mut().filter(|f| f.code == NOTE_MISSING) {
            finding.message = format!(
                "the task commit has no note, but {old}, which this branch no longer holds, carries evidence for {target}: the task commit was rebased, amended or cherry-picked; run `speccoder attest carry` to re-issue the evidence for it"
            );
        }
    }
}

/// The finding code of a task commit without a note.
const NOTE_MISSING: &str = "note_missing";

/// Whether the task commit of `report` has no note.
#[must_use]
pub fn lacks_note(report: &CommitReport) -> bool {
    report.findings.iter().any(|f| f.code == NOTE_MISSING)
}

/// Tasks named by notes on commits outside `reachable`: target -> commit.
fn unreachable_task_notes(repo: &Repo, reachable: &HashSet<ObjectId>) -> HashMap<String, ObjectId> {
    let mut out = HashMap::new();
    for (annotated, _) in repo.notes(NOTES_REF).unwrap_or_default() {
        if reachable.contains(&annotated) {
            continue;
        }
        // A skip's commit is outside every branch on purpose; it is no evidence left behind.
        if let Ok(commit) = repo.commit(annotated)
            && let (Some(target), verdict) = task_trailers(&commit.message)
            && verdict.as_deref() != Some(Verdict::Skipped.as_str())
        {
            out.entry(target).or_insert(annotated);
        }
    }
    out
}
