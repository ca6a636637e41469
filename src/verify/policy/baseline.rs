//! The baseline: tasks ticked by hand before speccoder was adopted. A task ticked at the policy's
//! baseline commit (an ancestor of the head, and of the base when the history under review has
//! one: a commit under review was written by the branch itself), whose box stayed ticked since and whose task line is
//! unchanged at the head, and that has no task commit, holds as `baseline`: listed and counted
//! apart, never as evidenced. Only task lines are read, never a spec document; a hand tick it
//! does not hold is told why ([`NotHeld`]).

use std::fmt;

use gix::ObjectId;

use crate::git::{GitError, GitTree, Repo};
use crate::model::verifier_policy::Baseline;
use crate::spec::{TaskWording, TreeTaskLines};
use crate::verify::box_setters::BoxSetters;

/// A policy's baseline, resolved against the repository and the head under review.
pub struct BaselineView<'r> {
    /// The repository.
    repo: &'r Repo,
    /// The baseline commit and the task lines of its tree and of the head's, when the baseline
    /// is in the head's history and not under review.
    placed: Option<Placed<'r>>,
    /// The baseline commit, for the finding.
    pub commit: String,
    /// Its reason.
    pub reason: String,
}

/// A baseline in the head's history: its commit, and the task lines of its tree and of the
/// head's, each unit's task list read once per tree, and no spec document at all.
struct Placed<'r> {
    /// The baseline commit.
    commit: ObjectId,
    /// The task lines of its tree.
    at_baseline: TreeTaskLines<GitTree<'r>>,
    /// The task lines of the head's tree.
    at_head: TreeTaskLines<GitTree<'r>>,
}

/// Why a policy's baseline does not hold a hand tick; shown after `the verifier policy's
/// baseline <commit> does not hold it: `.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotHeld {
    /// The baseline holds no tick of the history checked: its commit is not in the head's
    /// history, or is inside the history under review (the run's warning says which).
    Unplaced,
    /// The baseline commit has no one task line of the task: its unit, task list or task came
    /// later, or its id is on more than one task line there.
    NotListed,
    /// Its box was open at the baseline: it was ticked by hand after it.
    Open,
    /// Its task line, or a line it wraps onto, was edited since the baseline.
    Reworded,
    /// A commit the baseline does not descend from set its box (the tick was taken back after
    /// the baseline and set again, or set on a line of history merged in).
    SetAgain(ObjectId),
    /// The history could not be read to tell whether its box stayed ticked since.
    HistoryUnread,
}

impl fmt::Display for NotHeld {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotHeld::Unplaced => f.write_str("it holds no tick of this history (the report's warning says why)"),
            NotHeld::NotListed => f.write_str(
                "the task has no one task line there (its unit, task list or task came later, or its id is on more than one task line there)",
            ),
            NotHeld::Open => f.write_str("its box was open there, so it was ticked by hand after the adoption"),
            NotHeld::Reworded => f.write_str("its task line, or a line it wraps onto, was edited since"),
            NotHeld::SetAgain(setter) => write!(
                f,
                "its box was set again by {setter}, which the baseline does not descend from (the tick was taken back and ticked again), so the tick the head shows is not the one the baseline held"
            ),
            NotHeld::HistoryUnread => {
                f.write_str("the history since could not be read to tell whether its box stayed ticked")
            }
        }
    }
}

impl<'r> BaselineView<'r> {
    /// `baseline` against the history under review (`head`, since `base` when there is one), and
    /// a warning when it holds no tick at all: the commit is not in this repository, names no
    /// commit (a tree, a blob, an annotated tag), is not in the head's history, or is inside the
    /// history under review, which the branch itself wrote.
    #[must_use]
    pub fn new(
        repo: &'r Repo,
        baseline: &Baseline,
        head: ObjectId,
        base: Option<ObjectId>,
    ) -> (Self, Option<String>) {
        let (placed, warning) = match place(repo, &baseline.commit.0, head, base) {
            Ok(commit) => (Some(commit), None),
            Err(warning) => (None, Some(warning)),
        };
        let placed = placed.and_then(|commit| {
            Some(Placed {
                commit,
                at_baseline: TreeTaskLines::new(repo.tree(repo.commit_tree(commit).ok()?)),
                at_head: TreeTaskLines::new(repo.tree(repo.commit_tree(head).ok()?)),
            })
        });
        let view =
            BaselineView { repo, placed, commit: baseline.commit.0.clone(), reason: baseline.reason.clone() };
        (view, warning)
    }

    /// Whether the task `target` (`<unit>/<task>`, ticked at the head without a task commit) is
    /// held: ticked at the baseline with the line (and the lines it wraps onto) the head shows,
    /// and ticked since: no commit the baseline does not descend from set its box (of `setters`,
    /// the head's history's), as a box taken back after the baseline and ticked again by hand
    /// was. Else why not. Only the task lists are read: a baseline tick depends on its task line
    /// and the lines it wraps onto, never on a spec document.
    pub(in crate::verify) fn holds(&self, target: &str, setters: &BoxSetters) -> Result<(), NotHeld> {
        let Some(placed) = &self.placed else {
            return Err(NotHeld::Unplaced);
        };
        let (unit, id) = target.split_once('/').ok_or(NotHeld::NotListed)?;
        let at_baseline = placed.at_baseline.listed(unit, id).ok_or(NotHeld::NotListed)?;
        if !at_baseline.ticked {
            return Err(NotHeld::Open);
        }
        let same = |at_head: &TaskWording| {
            at_head.line_hash == at_baseline.line_hash && at_head.continuation == at_baseline.continuation
        };
        if !placed.at_head.listed(unit, id).is_some_and(|at_head| same(&at_head)) {
            return Err(NotHeld::Reworded);
        }
        // A history that cannot be read holds nothing.
        match setters.later_setters(self.repo, target, placed.commit) {
            Ok(later) => later.first().map_or(Ok(()), |setter| Err(NotHeld::SetAgain(*setter))),
            Err(_) => Err(NotHeld::HistoryUnread),
        }
    }
}

/// The baseline `commit` when it may hold ticks of the history under review (`head`, since
/// `base`): a commit of the head's history, and not one of the commits under review (an ancestor
/// of `base`), or else why it holds none. A question the repository cannot answer holds none.
fn place(repo: &Repo, commit: &str, head: ObjectId, base: Option<ObjectId>) -> Result<ObjectId, String> {
    let ancestor = commit.parse::<ObjectId>().ok().filter(|c| repo.is_ancestor(*c, head).unwrap_or(false));
    let Some(id) = ancestor else {
        return Err(unplaced(repo, commit, head));
    };
    match base {
        Some(base) if !repo.is_ancestor(id, base).unwrap_or(false) => Err(format!(
            "the verifier policy's baseline {commit} is inside the history under review ({base}..{head}), which the branch wrote: no tick holds by it; set the baseline to a commit of the base branch"
        )),
        _ => Ok(id),
    }
}

/// Why the baseline `commit`, in no history of `head`, holds no tick: what it names when that is
/// an object of this repository but no commit, and what to write instead (an annotated tag is
/// never taken for the commit it tags: the baseline stays the id the policy writes), else that it
/// is not in the head's history.
fn unplaced(repo: &Repo, commit: &str, head: ObjectId) -> String {
    let said = format!("the verifier policy's baseline {commit}");
    let found = commit.parse::<ObjectId>().ok().and_then(|id| match repo.commit(id) {
        Err(GitError::WrongKind { found, .. }) => Some(found),
        _ => None,
    });
    let what = match found.as_deref() {
        None => {
            return format!(
                "{said} is not in the history of the head {head} (or not in this repository): no tick holds by it"
            );
        }
        Some("tag") => match repo.rev_parse_peeled(commit) {
            Ok(tagged) => {
                return format!(
                    "{said} names an annotated tag, not a commit: no tick holds by it; write the commit it tags, {tagged}, as the baseline's `commit`"
                );
            }
            Err(_) => "an annotated tag that tags no commit",
        },
        Some("tree") => "a tree",
        Some("blob") => "a blob",
        Some(_) => "an object",
    };
    format!(
        "{said} names {what}, not a commit: no tick holds by it; write a commit's full id (`git log` shows them) as the baseline's `commit`"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::test_support::Fixture;
    use crate::model::verifier_policy::CommitId;
    use crate::verify::run::planned_ticks;

    /// What the baseline `commit` says of each of `targets`, ticked at the fixture's head.
    fn held(fixture: &Fixture, commit: &str, targets: &[&str]) -> Vec<Result<(), NotHeld>> {
        let repo = fixture.repo();
        let head = fixture.rev("HEAD");
        let (_, setters) = planned_ticks(&repo, head).unwrap();
        let baseline = Baseline { commit: CommitId(commit.to_owned()), reason: "adopted".to_owned() };
        let (view, _) = BaselineView::new(&repo, &baseline, head, None);
        targets.iter().map(|target| view.holds(target, &setters)).collect()
    }

    #[test]
    fn a_hand_tick_is_held_whatever_its_spec_documents_hold_and_stays_held_when_only_they_change() {
        let fixture = Fixture::new();
        // A story task of a unit without spec.md, and a task citing an id spec.md defines twice:
        // neither has the facts a tick records, and neither needs them to be held.
        fixture
            .write("specs/001-story/tasks.md", "# Tasks\n\n- [x] T001 [US1] Count them\n- [x] T002 Route\n");
        let spec =
            "# Spec\n\n## Requirements\n\n- **FR-001**: System MUST a.\n- **FR-001**: System MUST b.\n";
        fixture.write("specs/002-cites/spec.md", spec);
        fixture.write("specs/002-cites/tasks.md", "- [x] T001 Do a (FR-001)\n");
        fixture.git(&["add", "-A"]);
        fixture.git(&["commit", "-q", "-m", "Ticked by hand"]);
        let adoption = fixture.rev("HEAD").to_string();
        let targets = ["001-story/T001", "001-story/T002", "002-cites/T001"];
        assert_eq!(held(&fixture, &adoption, &targets), [Ok(()), Ok(()), Ok(())]);

        fixture.commit_file(
            "specs/002-cites/spec.md",
            format!("{spec}- **FR-002**: Clarified.\n"),
            "Spec only",
        );
        fixture.commit_file("specs/001-story/spec.md", "# Spec\n\n### User Story 1 - Count\n", "A spec");
        assert_eq!(held(&fixture, &adoption, &targets), [Ok(()), Ok(()), Ok(())]);
    }

    /// The warning of the baseline `commit` against the fixture's head.
    fn warning_of(fixture: &Fixture, commit: &str) -> Option<String> {
        let baseline = Baseline { commit: CommitId(commit.to_owned()), reason: "adopted".to_owned() };
        BaselineView::new(&fixture.repo(), &baseline, fixture.rev("HEAD"), None).1
    }

    #[test]
    fn a_baseline_naming_a_tree_a_blob_or_an_annotated_tag_says_so_and_what_to_write_and_holds_nothing() {
        let fixture = Fixture::new();
        let adoption = fixture.commit_file("specs/001-x/tasks.md", "- [x] T001 Do a\n", "Ticked by hand");
        fixture.git(&["tag", "-a", "-m", "adopted", "v1", "HEAD"]);
        fixture.git(&["tag", "-a", "-m", "a tree", "t1", "HEAD^{tree}"]);
        let said = |spec: &str| {
            let id = fixture.rev(spec).to_string();
            let holds = held(&fixture, &id, &["001-x/T001"]);
            assert_eq!(holds, [Err(NotHeld::Unplaced)], "a baseline naming no commit holds nothing");
            let warning = warning_of(&fixture, &id).unwrap_or_default();
            assert!(warning.starts_with(&format!("the verifier policy's baseline {id} names ")), "{warning}");
            warning
        };
        let write_a_commit = "no tick holds by it; write a commit's full id (`git log` shows them)";
        for (spec, what) in [("HEAD^{tree}", "a tree"), ("HEAD:specs/001-x/tasks.md", "a blob")] {
            let warning = said(spec);
            assert!(warning.contains(&format!("names {what}, not a commit: {write_a_commit}")), "{warning}");
        }
        let warning = said("t1");
        assert!(
            warning
                .contains(&format!("an annotated tag that tags no commit, not a commit: {write_a_commit}"))
        );
        // The tag's commit is named, never taken for the baseline in its stead.
        let warning = said("v1");
        let tagged = format!(
            "names an annotated tag, not a commit: no tick holds by it; write the commit it tags, {adoption}, as"
        );
        assert!(warning.contains(&tagged), "{warning}");
        // An id of nothing here is still said to be in no history of the head.
        let nowhere = warning_of(&fixture, &"0".repeat(40)).unwrap_or_default();
        assert!(nowhere.contains("is not in the history of the head"), "{nowhere}");
    }

    #[test]
    fn a_hand_tick_the_baseline_does_not_hold_is_told_why() {
        let fixture = Fixture::new();
        let tasks = "specs/001-x/tasks.md";
        fixture.commit_file(tasks, "- [x] T001 Do a\n- [x] T002 Do b\n- [ ] T003 Do c\n", "Ticked by hand");
        let adoption = fixture.rev("HEAD").to_string();
        fixture.commit_file(tasks, "- [ ] T001 Do a\n- [x] T002 Do b\n- [ ] T003 Do c\n", "Reopen T001");
        let again = fixture.commit_file(tasks, "- [x] T001 Do a\n- [x] T002 Do b\n- [ ] T003 Do c\n", "T001");
        fixture.commit_file(
            tasks,
            "- [x] T001 Do a\n- [x] T002 Do b well\n- [x] T003 Do c\n",
            "Reword, tick",
        );
        fixture.commit_file("specs/002-new/tasks.md", "- [x] T001 New\n", "A new unit");
        let targets = ["001-x/T001", "001-x/T002", "001-x/T003", "002-new/T001"];
        let why = [NotHeld::SetAgain(again), NotHeld::Reworded, NotHeld::Open, NotHeld::NotListed];
        assert_eq!(held(&fixture, &adoption, &targets), why.map(Err));
        let nowhere = "0".repeat(40);
        assert_eq!(held(&fixture, &nowhere, &targets[..1]), [Err(NotHeld::Unplaced)]);
    }
}
