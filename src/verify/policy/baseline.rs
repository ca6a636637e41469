//! The baseline: tasks ticked by hand before speccoder was adopted. A task ticked at the policy's
//! baseline commit (an ancestor of the head), whose box stayed ticked since and whose task line is
//! unchanged at the head, and that has no task commit, holds as `baseline`: listed and counted
//! apart, never as evidenced.

use gix::ObjectId;

use crate::git::Repo;
use crate::model::verifier_policy::Baseline;
use crate::spec::{self, TaskLists};
use crate::verify::box_setters::BoxSetters;

/// A policy's baseline, resolved against the repository and the head under review.
pub struct BaselineView<'r> {
    /// The repository.
    repo: &'r Repo,
    /// The baseline commit, its tree and the head's, when the baseline is in the head's history.
    trees: Option<(ObjectId, ObjectId, ObjectId)>,
    /// Task lists read lately.
    lists: TaskLists,
    /// The baseline commit, for the finding.
    pub commit: String,
    /// Its reason.
    pub reason: String,
}

impl<'r> BaselineView<'r> {
    /// `baseline` against `head`, and a warning when it holds no tick at all (the commit is not
    /// in this repository, or not in the head's history).
    #[must_use]
    pub fn new(repo: &'r Repo, baseline: &Baseline, head: ObjectId) -> (Self, Option<String>) {
        let commit = baseline.commit.0.parse::<ObjectId>().ok();
        let ancestor = commit.filter(|c| repo.is_ancestor(*c, head).unwrap_or(false));
        let trees = ancestor.and_then(|c| Some((c, repo.commit_tree(c).ok()?, repo.commit_tree(head).ok()?)));
        let warning = trees.is_none().then(|| {
            format!(
                "the verifier policy's baseline {} is not in the history of the head {head} (or not in this repository): no tick holds by it",
                baseline.commit.0
            )
        });
        let view = BaselineView {
            repo,
            trees,
            lists: TaskLists::default(),
            commit: baseline.commit.0.clone(),
            reason: baseline.reason.clone(),
        };
        (view, warning)
    }

    /// Whether the task `target` (`<unit>/<task>`, ticked at the head without a task commit) is
    /// ticked at the baseline with the line (and the lines it wraps onto) the head shows, and
    /// stayed ticked since: no commit the baseline does not descend from set its box (of
    /// `setters`, the head's history's), as a box taken back after the baseline and ticked again
    /// by hand was.
    pub(in crate::verify) fn holds(&self, target: &str, setters: &BoxSetters) -> bool {
        let (Some((commit, base, head)), Some((unit, id))) = (self.trees, target.split_once('/')) else {
            return false;
        };
        let read = |tree| spec::read_any_task_with(&self.repo.tree(tree), unit, id, &self.lists).ok();
        let same_line = match (read(base), read(head)) {
            (Some(at_base), Some(at_head)) => {
                at_base.ticked
                    && !at_base.is_trailer_only()
                    && (&at_base.line_hash, &at_base.continuation)
                        == (&at_head.line_hash, &at_head.continuation)
            }
            _ => false,
        };
        // A history that cannot be read holds nothing.
        same_line && setters.later_setters(self.repo, target, commit).is_ok_and(|later| later.is_empty())
    }
}
