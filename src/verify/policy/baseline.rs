//! The baseline: tasks ticked by hand before speccoder was adopted. A task ticked at the policy's
//! baseline commit (an ancestor of the head, and of the base when the history under review has
//! one: a commit under review was written by the branch itself), whose box stayed ticked since and whose task line is
//! unchanged at the head, and that has no task commit, holds as `baseline`: listed and counted
//! apart, never as evidenced.

use std::cell::RefCell;
use std::collections::HashMap;

use gix::ObjectId;

use crate::git::Repo;
use crate::model::verifier_policy::Baseline;
use crate::spec::{self, TaskLists};
use crate::verify::box_setters::BoxSetters;

/// A policy's baseline, resolved against the repository and the head under review.
pub struct BaselineView<'r> {
    /// The repository.
    repo: &'r Repo,
    /// The baseline commit, its tree and the head's, when the baseline is in the head's history
    /// and not under review.
    trees: Option<(ObjectId, ObjectId, ObjectId)>,
    /// Task lists read lately.
    lists: TaskLists,
    /// Each task line of a unit's task list in a tree (the baseline's, the head's), by id, once
    /// read; none when the list cannot be read.
    read: RefCell<HashMap<(ObjectId, String), Option<UnitLines>>>,
    /// The baseline commit, for the finding.
    pub commit: String,
    /// Its reason.
    pub reason: String,
}

impl<'r> BaselineView<'r> {
    /// `baseline` against the history under review (`head`, since `base` when there is one), and
    /// a warning when it holds no tick at all: the commit is not in this repository, not in the
    /// head's history, or inside the history under review, which the branch itself wrote.
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
        let trees = placed.and_then(|c| Some((c, repo.commit_tree(c).ok()?, repo.commit_tree(head).ok()?)));
        let view = BaselineView {
            repo,
            trees,
            lists: TaskLists::default(),
            read: RefCell::default(),
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
        let same_line = match (self.line(base, unit, id), self.line(head, unit, id)) {
            (Some(at_base), Some(at_head)) => at_base.ticked && at_base.line == at_head.line,
            _ => false,
        };
        // A history that cannot be read holds nothing.
        same_line && setters.later_setters(self.repo, target, commit).is_ok_and(|later| later.is_empty())
    }

    /// The line of task `id` of `unit` in `tree`, when it reads (a bug task has none: no box);
    /// its unit's task list read on the first question about it, and not again.
    fn line(&self, tree: ObjectId, unit: &str, id: &str) -> Option<BaselineLine> {
        let mut read = self.read.borrow_mut();
        let key = (tree, unit.to_owned());
        let lines = read.entry(key).or_insert_with(|| {
            let all = spec::listed_task_facts(&self.repo.tree(tree), unit, &self.lists).ok()?;
            Some(
                all.into_iter().filter_map(|(id, facts)| Some((id, BaselineLine::of(facts.ok()?)))).collect(),
            )
        });
        lines.as_ref()?.get(id).cloned()
    }
}

/// The baseline `commit` when it may hold ticks of the history under review (`head`, since
/// `base`): a commit of the head's history, and not one of the commits under review (an ancestor
/// of `base`), or else why it holds none. A question the repository cannot answer holds none.
fn place(repo: &Repo, commit: &str, head: ObjectId, base: Option<ObjectId>) -> Result<ObjectId, String> {
    let ancestor = commit.parse::<ObjectId>().ok().filter(|c| repo.is_ancestor(*c, head).unwrap_or(false));
    let Some(id) = ancestor else {
        return Err(format!(
            "the verifier policy's baseline {commit} is not in the history of the head {head} (or not in this repository): no tick holds by it"
        ));
    };
    match base {
        Some(base) if !repo.is_ancestor(id, base).unwrap_or(false) => Err(format!(
            "the verifier policy's baseline {commit} is inside the history under review ({base}..{head}), which the branch wrote: no tick holds by it; set the baseline to a commit of the base branch"
        )),
        _ => Ok(id),
    }
}

/// The task lines of one unit's task list, by id.
type UnitLines = HashMap<String, BaselineLine>;

/// What the baseline compares of a task line.
#[derive(Clone)]
struct BaselineLine {
    /// Whether its box is ticked.
    ticked: bool,
    /// Its hash and the lines it wraps onto.
    line: (String, Vec<String>),
}

impl BaselineLine {
    fn of(facts: spec::TaskFacts) -> Self {
        BaselineLine {
            ticked: facts.ticked && !facts.is_trailer_only(),
            line: (facts.line_hash, facts.continuation),
        }
    }
}
