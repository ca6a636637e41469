//! Agreement: what a task commit's note must say about the commit it annotates, whoever reads it.
//! Every line is about exactly that task at exactly that commit; one line is the task
//! verification, and it names the commit's task, tree, task line, story text and policy; the
//! other lines are what its verdict needs, and a tick's summary names exactly them. These rules
//! judge the lines as they are, signed or not: whether a signature holds is a question of the
//! reader's trust, not of agreement.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use gix::ObjectId;
use gix::objs::tree::EntryKind;

use crate::check::line::{
    Body, ReadLine, blank_lines_told, is_unread_task_verification, joined_note, read_lines,
};
use crate::check::outcome::{CommitOutcome, Finding};
use crate::check::policy::{ConfigFileError, config_file};
use crate::check::trailers::{held_out_trailer, last_trailer};
use crate::check::{bug, decision, policy, tick, trace, values};
use crate::git::{Commit, GitTree, KnownDirs, Repo};
use crate::model::bundle::NOTES_REF;
use crate::model::clean::shown_if_clean;
use crate::model::dialect::Dialect;
use crate::model::digest::git_object_sha256;
use crate::model::policy::{CONFIG_FILE, JudgeConfig, Recipe};
use crate::model::predicate::{TaskVerificationV0, Verdict};
use crate::model::shown::{SHOWN_MAX, one_line, shell_word};
use crate::model::trailer_keys::{REGRESSION_ONLY, RUN};
use crate::spec::{self, SharedTaskLists, TaskLists, TreeTaskLines};

/// The finding of a spec document a task needs (spec.md for its story or the requirements it
/// cites, an OpenSpec change's delta specs) that cannot be read where the check reads it.
pub const SPEC_UNREADABLE: &str = "spec_unreadable";

/// The finding of a decision (`attested`, `skipped`) whose line carries a field only a tick
/// carries (`spec`, `trace`, `mutation`, `monitor`, `strength`, ...) with a value other than
/// `null` (a `null` claims nothing), or whose commit carries a
/// `Held-Out:` or `Run:` trailer: test evidence that no test run of the decision produced, which a verifier
/// policy would otherwise read as if one had.
pub const DECISION_WITH_TICK_FIELDS: &str = "decision_with_tick_fields";

/// The finding of a task whose wording at the head under review is not the one the tick was
/// made for: its line's hash is not the signed `task.line_hash`, or the lines its text wraps onto
/// differ from the task commit's.
pub const LINE_CHANGED_AT_HEAD: &str = "line_changed_at_head";
/// The signed unit/task is not the one the `Spec-Task:` trailer names.
pub const TASK_MISMATCH: &str = "task_mismatch";
/// The signed task line is not the task commit's.
pub const LINE_HASH_MISMATCH: &str = "line_hash_mismatch";

/// The note on a tick labelled `[USn]` whose story text is the whole spec.md, because no heading
/// gave the story's section ([`spec::StoryFallback`]): it decides nothing.
pub const STORY_FALLBACK: &str = "story_fallback";

/// Every line's subject must be exactly one: `target` (`<unit>/<task>`) at `commit`, whose
/// commit object hashes to `commit_sha256` (a subject's `sha256` digest must equal it; lines
/// written before that digest existed carry `gitCommit` alone).
pub fn subjects(
    lines: &[ReadLine],
    target: &str,
    commit: ObjectId,
    commit_sha256: &str,
    findings: &mut Vec<Finding>,
) {
    let commit_hex = commit.to_string();
    for line in lines {
        let subject_ok = match line.subject.as_slice() {
            [s] => {
                s.name == target
                    && s.git_commit() == Some(commit_hex.as_str())
                    && s.commit_sha256().is_none_or(|d| d == commit_sha256)
            }
            _ => false,
        };
        if !subject_ok {
            let signed = line
                .subject
                .iter()
                .map(|s| {
                    let sha = s.commit_sha256().map(|d| format!(" sha256:{d}")).unwrap_or_default();
                    format!("{}@{}{sha}", s.name, s.git_commit().unwrap_or("?"))
                })
                .collect::<Vec<_>>()
                .join(", ");
            findings.push(
                Finding::new(
                    CommitOutcome::Mismatch,
                    "subject_mismatch",
                    "the statement is about another task or commit",
                )
                .at_line(line.number)
                .expected_found(signed, format!("{target}@{commit_hex} sha256:{commit_sha256}")),
            );
        }
    }
}

/// The one task-verification line of `lines`. None, or more than one, is `malformed` (the first
/// of several is still returned, so the rest of the rules can run). A note whose task-verification
/// line does not read (its finding among `findings`) is not said to lack one.
pub fn task_verification<'l>(
    lines: &'l [ReadLine],
    findings: &mut Vec<Finding>,
) -> Option<(&'l ReadLine, &'l TaskVerificationV0)> {
    let tvs: Vec<(&ReadLine, &TaskVerificationV0)> = lines
        .iter()
        .filter_map(|l| match &l.body {
            Body::TaskVerification(p) => Some((l, p.as_ref())),
            _ => None,
        })
        .collect();
    match tvs.as_slice() {
        [one] => Some(*one),
        [] => {
            // A task-verification line that does not read is there: its own finding says why.
            if !lines.is_empty() && !findings.iter().any(is_unread_task_verification) {
                findings.push(Finding::new(
                    CommitOutcome::Malformed,
                    "no_task_verification",
                    "the note has no task-verification line",
                ));
            }
            None
        }
        [first, ..] => {
            findings.push(
                Finding::new(
                    CommitOutcome::Malformed,
                    "several_task_verifications",
                    "the note has more than one task-verification line",
                )
                .at_line(tvs[1].0.number),
            );
            Some(*first)
        }
    }
}

/// A note's task-verification line held against the task commit it annotates: what the commit
/// claims (its `Spec-Task:` and `Verdict:` trailers) and what the note says.
#[derive(Debug, Clone, Copy)]
pub struct Claim<'a> {
    /// The task commit.
    pub commit: &'a Commit,
    /// `<unit>/<task>`, as the commit's `Spec-Task:` trailer names it.
    pub target: &'a str,
    /// The commit's `Verdict:` trailer.
    pub trailer_verdict: Option<&'a str>,
    /// Every line of the note that reads, in note order.
    pub lines: &'a [ReadLine],
    /// The task-verification line among them.
    pub tv_line: &'a ReadLine,
    /// Its predicate.
    pub p: &'a TaskVerificationV0,
}

/// A note read back and held against its task commit by every rule but the signatures.
#[derive(Debug)]
pub struct CheckedNote {
    /// The lines that read, in note order (a line that does not read is a finding instead).
    pub lines: Vec<ReadLine>,
    /// The sha256 of the task commit object, which a subject's `sha256` digest must equal.
    pub commit_sha256: String,
    /// The position in `lines` of the task-verification line (the first, when there are several).
    pub task_verification: Option<usize>,
    /// The recipe the signed policy digest follows, when it holds.
    pub recipe: Option<Recipe>,
    /// The requirements a tick's task cites at the task commit ([`Agreed::cited`]).
    pub cited: Vec<Cited>,
    /// The text an OpenSpec tick's task names requirements in ([`Agreed::cites_by_name`]).
    pub cites_by_name: Option<String>,
}

/// What the agreement of a task-verification line with its commit found besides its findings.
#[derive(Debug, Default)]
pub struct Agreed {
    /// The recipe the signed policy digest follows, when it holds.
    pub recipe: Option<Recipe>,
    /// The requirements a tick's task cites in its text at the task commit ([`cited`]): what the
    /// drift check holds the head to. None for a decision, or a task that cannot be read there.
    pub cited: Vec<Cited>,
    /// The text an OpenSpec tick's task names requirements in, which the drift check reads
    /// against the head's definitions ([`spec::TaskFacts::cites_by_name`]); None where `cited`
    /// is, and for Spec Kit.
    pub cites_by_name: Option<String>,
}

/// A requirement a task's text cites, as a commit's tree holds it: what the drift check holds
/// the head to, and `attest carry` the new commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cited {
    /// The id (`FR-001`) or the OpenSpec requirement's name.
    pub id: String,
    /// The sha256 of its defining line (`requirement_hash`); `None` for an id the task cites that
    /// no requirement of its spec defines.
    pub hash: Option<String>,
    /// The sha256 of its text beyond that line ([`spec::Requirement::body`]).
    pub body: Option<String>,
    /// OpenSpec: the delta section it sits under ([`spec::Requirement::section`]).
    pub section: Option<String>,
    /// OpenSpec: the capability whose delta spec defines it ([`spec::Requirement::capability`]).
    pub capability: Option<String>,
}

/// The requirements `facts`' task cites in its text, sorted by id, each once (an id its spec does
/// not define too, as such): the one reading of what a task cites, for the verifier and `attest
/// carry` alike, whatever a trace holds.
#[must_use]
pub fn cited(facts: &spec::TaskFacts) -> Vec<Cited> {
    let defined = facts.requirements.iter().map(|r| Cited {
        id: r.id.clone(),
        hash: Some(r.hash.clone()),
        body: r.body.clone(),
        section: r.section.clone(),
        capability: r.capability.clone(),
    });
    let undefined = facts.uncited_unknown.iter().map(|id| Cited {
        id: id.clone(),
        hash: None,
        body: None,
        section: None,
        capability: None,
    });
    let mut cited: Vec<Cited> = defined.chain(undefined).collect();
    cited.sort_by(|a, b| a.id.cmp(&b.id));
    cited.dedup_by(|later, kept| later.id == kept.id);
    cited
}

/// A judge configuration as read at a parent, or why it could not be read.
type ParentPolicy = Result<Rc<JudgeConfig>, Rc<ConfigFileError>>;

/// The rules that read the repository: the task commit's tree, the tree under review, and the
/// judge configuration at the parent.
pub struct Rules<'r> {
    /// The repository.
    repo: &'r Repo,
    /// The task lines of the head under review: each must still read the same there. One view
    /// for every commit checked, so that each unit's task list at the head is read once.
    head: Option<TreeTaskLines<GitTree<'r>>>,
    /// The task lists read lately, so that a list read again (the next commit's parent) is
    /// parsed once.
    lists: TaskLists,
    /// Judge configurations already read, by the kind and object of the `speccoder.toml` entry
    /// (`None`: no file).
    policies: RefCell<HashMap<Option<(EntryKind, ObjectId)>, ParentPolicy>>,
    /// The directories resolved in the trees of the task commits, which their reading starts
    /// from, and the task lists parsed already.
    learned: Learned,
}

/// What an earlier read of the same commits learned, for the rules to start from: the unit
/// directories resolved in their trees, and the task lists parsed.
#[derive(Clone, Default)]
pub struct Learned {
    /// The unit directories, by tree.
    pub dirs: Arc<KnownDirs>,
    /// The task lists.
    pub lists: Arc<SharedTaskLists>,
}

impl<'r> Rules<'r> {
    /// The rules for `repo`, with `head_tree` as the tree under review (`None`: no head check).
    #[must_use]
    pub fn new(repo: &'r Repo, head_tree: Option<ObjectId>) -> Self {
        let head = head_tree.map(|id| TreeTaskLines::new(repo.tree(id)));
        Rules {
            repo,
            head,
            lists: TaskLists::default(),
            policies: RefCell::new(HashMap::new()),
            learned: Learned::default(),
        }
    }

    /// These rules, reading a task commit's tree from the directories `learned` holds for it,
    /// and its task list as `learned` parsed it when it did.
    #[must_use]
    pub fn knowing(self, learned: Learned) -> Self {
        Rules { lists: TaskLists::sharing(Arc::clone(&learned.lists)), learned, ..self }
    }

    /// What these rules start from ([`Self::knowing`]).
    #[must_use]
    pub fn learned(&self) -> &Learned {
        &self.learned
    }

    /// The tree under review.
    #[must_use]
    pub fn head_tree(&self) -> Option<ObjectId> {
        self.head.as_ref().map(|head| head.tree().id())
    }

    /// The task lists these rules read lately, for another reader of the same commits.
    #[must_use]
    pub fn task_lists(&self) -> &TaskLists {
        &self.lists
    }

    /// The note `note` of the task commit `commit`, which claims `target` and `trailer_verdict`:
    /// every line read, every subject, the one task-verification line and its
    /// [agreement](Self::agreement). Signatures are not looked at: the verifier checks them
    /// against the caller's trust, and `attest sign` runs exactly these rules before it signs
    /// anything.
    pub fn note(
        &self,
        commit: &Commit,
        target: &str,
        trailer_verdict: Option<&str>,
        note: &[u8],
        findings: &mut Vec<Finding>,
    ) -> CheckedNote {
        let before = findings.len();
        let lines = read_lines(note, findings);
        blank_lines_told(&mut findings[before..], NOTES_REF, commit.id);
        if lines.is_empty() && findings.len() == before {
            findings.push(Finding::new(CommitOutcome::Malformed, "empty_note", "the note holds no lines"));
        }
        // Said first: the findings of its lines follow from it.
        if let Some(joined) = joined_note(&lines, commit.id) {
            findings.insert(before, joined.finding(commit.id));
        }
        let commit_sha256 = self
            .repo
            .read_kind(commit.id, gix::object::Kind::Commit)
            .map(|raw| git_object_sha256("commit", &raw))
            .unwrap_or_default();
        subjects(&lines, target, commit.id, &commit_sha256, findings);
        let tv = task_verification(&lines, findings).map(|(line, _)| line.number);
        let task_verification = tv.and_then(|n| lines.iter().position(|l| l.number == n));
        let agreed = task_verification.map_or_else(Agreed::default, |i| {
            let Body::TaskVerification(p) = &lines[i].body else { return Agreed::default() };
            let claim = Claim { commit, target, trailer_verdict, lines: &lines, tv_line: &lines[i], p };
            self.agreement(&claim, findings)
        });
        CheckedNote {
            lines,
            commit_sha256,
            task_verification,
            recipe: agreed.recipe,
            cited: agreed.cited,
            cites_by_name: agreed.cites_by_name,
        }
    }

    /// The judge configuration of the tree `tree` (its `speccoder.toml`), read once per file
    /// content.
    fn policy_of_tree(&self, tree: ObjectId) -> ParentPolicy {
        let view = self.repo.tree(tree);
        let unread = |e: crate::git::GitError| Rc::new(ConfigFileError::from(e));
        let entry =
            (view.entry_kind(CONFIG_FILE).map_err(unread)?).zip(view.entry_id(CONFIG_FILE).map_err(unread)?);
        if let Some(hit) = self.policies.borrow().get(&entry) {
            return hit.clone();
        }
        let computed = config_file(self.repo, tree)
            .and_then(|file| Ok(JudgeConfig::parse(file.as_ref().map(|(_, text)| text.as_str()))?))
            .map(Rc::new)
            .map_err(Rc::new);
        self.policies.borrow_mut().insert(entry, computed.clone());
        computed
    }

    /// The claimed task as the task commit's tree holds it, against the evidence (the
    /// task-verification line): the unit's directory and format, the task line and title, the
    /// story text and the trace's requirement rows (a tick's), the box ticked. A tick whose story
    /// text is the whole spec.md carries a note saying so ([`STORY_FALLBACK`]); a spec document
    /// the task needs that cannot be read there is [`SPEC_UNREADABLE`]. The task line is read as
    /// the note's `dialect` reads it: a note of the published speccoder's recipe binds the title
    /// and story it read ([`spec::as_published`]). Returns the task's facts there, when the task
    /// reads.
    fn task_at_commit(
        &self,
        claim: &Claim<'_>,
        verdict: Verdict,
        dialect: Dialect,
        findings: &mut Vec<Finding>,
    ) -> Option<spec::TaskFacts> {
        let (commit, p, n) = (claim.commit, claim.p, claim.tv_line.number);
        if let Some(named) = spec::published_bug(claim.target) {
            findings.push(bug::published_bug_finding(p, named, n));
            return None;
        }
        let (unit, task_id) = claim.target.split_once('/').unwrap_or((claim.target, ""));
        let mismatch =
            |code: &'static str, msg: &str| Finding::new(CommitOutcome::Mismatch, code, msg).at_line(n);
        let at_commit = self.repo.tree_knowing(commit.tree, &self.learned.dirs).as_stored();
        let read =
            spec::read_any_task_with(&at_commit, unit, task_id, &self.lists).and_then(
                |facts| match dialect {
                    Dialect::Ours => Ok(facts),
                    Dialect::Published => {
                        Ok(spec::as_published(&at_commit, &facts, &self.lists)?.unwrap_or(facts))
                    }
                },
            );
        let facts = match read {
            Ok(facts) => facts,
            Err(e) => {
                let (code, what) = match e {
                    spec::SpecError::TaskNeedsSpec { .. } => {
                        (SPEC_UNREADABLE, "a spec document the task needs")
                    }
                    _ => ("task_not_found", "the task"),
                };
                findings.push(
                    mismatch(code, &format!("{what} cannot be read at the task commit: {e}")).spec_unread(&e),
                );
                return None;
            }
        };
        findings.extend(bug::anchor_findings(p, &facts, n));
        unit_and_title(p, &facts, n, findings);
        if facts.line_hash != p.task.line_hash {
            findings.push(
                mismatch(
                    LINE_HASH_MISMATCH,
                    "the task line at the task commit is not the one the evidence signed",
                )
                .expected_found(p.task.line_hash.clone(), facts.line_hash.clone()),
            );
        }
        if !verdict.is_decision() || p.spec.is_some() {
            let signed = p.spec.as_ref().map(|s| s.section_hash.clone()).unwrap_or_default();
            if facts.section_hash != signed {
                findings.push(
                    mismatch(
                        "section_hash_mismatch",
                        "the story text at the task commit is not the one the evidence signed",
                    )
                    .expected_found(signed, facts.section_hash.clone()),
                );
            } else if let Some(fallback) = &facts.story_fallback {
                findings.push(Finding::new(CommitOutcome::Ok, STORY_FALLBACK, fallback.message()).at_line(n));
            }
        }
        if !verdict.is_decision() {
            trace::requirement_rows(p, &facts.requirements, n, findings);
        }
        if !facts.ticked && verdict != Verdict::Skipped && !facts.is_trailer_only() {
            findings.push(mismatch("not_ticked", "the task commit does not tick the task"));
        }
        Some(facts)
    }

    /// The task-verification line of `claim` against its task commit: the verdict and the
    /// unit/task as the trailers say, the tree, the task line and the story text at the commit,
    /// the task line at the head under review, the policy recomputed at the parent, and the other
    /// lines as the verdict needs them (none for a decision; test results and a summary for a
    /// tick), and the values the specification allows. Returns the recipe the policy digest
    /// follows, when it holds, and the requirements a tick's task cites at the task commit.
    pub fn agreement(&self, claim: &Claim<'_>, findings: &mut Vec<Finding>) -> Agreed {
        let (commit, p, n) = (claim.commit, claim.p, claim.tv_line.number);
        let first = findings.len();
        let Some(verdict) = claimed_verdict(claim, findings) else { return Agreed::default() };
        values::task_verification(p, verdict, n, findings);

        // The policy, recomputed at the parent. A skip with no parent (the published tool's skip
        // record) is made at its own tree, the head's at the time: what a skip's parent holds.
        // Its findings follow the task's.
        let parent_policy = match commit.parents.first() {
            Some(parent) => self
                .repo
                .commit_tree(*parent)
                .map_err(|e| Rc::new(e.into()))
                .and_then(|t| self.policy_of_tree(t)),
            None if verdict == Verdict::Skipped => self.policy_of_tree(commit.tree),
            None => JudgeConfig::parse(None).map(Rc::new).map_err(|e| Rc::new(e.into())),
        };
        let parent_policy = parent_policy.as_deref().map_err(Rc::as_ref);
        let mut of_policy = Vec::new();
        let recipe = policy::policy_recipe(parent_policy, &p.policy_sha256, claim.lines, n, &mut of_policy);
        // The published speccoder's shapes, and its reading of the task line, are read as it
        // meant them only where its recipe holds; anywhere else, as this crate writes them.
        let dialect = recipe.as_ref().map_or(Dialect::Ours, Recipe::dialect);

        let facts = self.task_at_commit(claim, verdict, dialect, findings);
        let signed_line_is_the_commits =
            !findings[first..].iter().any(|f| matches!(f.code, TASK_MISMATCH | LINE_HASH_MISMATCH));
        let continuation = facts.as_ref().map(|f| f.continuation.as_slice());
        let made = Made { verdict, target: claim.target };
        self.task_at_head(claim, made, continuation, signed_line_is_the_commits, findings);
        findings.append(&mut of_policy);
        values::published_shapes(p, recipe.as_ref(), n, findings);
        if verdict.is_decision() {
            decision_lines(claim, verdict, findings);
        } else {
            let all: Vec<&ReadLine> = claim.lines.iter().collect();
            tick::tick_lines(commit, verdict, p, &all, dialect, findings);
        }
        let (cited, cites_by_name) = match facts {
            Some(facts) if !verdict.is_decision() => (cited(&facts), facts.cites_by_name()),
            _ => (Vec::new(), None),
        };
        Agreed { recipe, cited, cites_by_name }
    }

    /// The task line at the head under review (when it is not the task commit's tree) must be the
    /// one the evidence signed, and the lines its text wraps onto those of the task commit
    /// (`at_commit`, when the task read there), which the signed tree binds. The signed line is
    /// held to the head's only when it is the task commit's (`signed_line_is_the_commits`): a
    /// note signed for another task or line already says so, and the head's line was not edited.
    /// Each finding says what to do as the verdict (`made`) needs it.
    fn task_at_head(
        &self,
        claim: &Claim<'_>,
        made: Made<'_>,
        at_commit: Option<&[String]>,
        signed_line_is_the_commits: bool,
        findings: &mut Vec<Finding>,
    ) {
        let Some(head) = self.head.as_ref().filter(|head| head.tree().id() != claim.commit.tree) else {
            return;
        };
        if spec::published_bug(claim.target).is_some() {
            // No task line, and a home this verifier does not anchor ([`Self::task_at_commit`]).
            return;
        }
        let (unit, task_id) = claim.target.split_once('/').unwrap_or((claim.target, ""));
        let mismatch = |code: &'static str, msg: &str| {
            Finding::new(CommitOutcome::Mismatch, code, msg).at_line(claim.tv_line.number)
        };
        match head.wording(unit, task_id) {
            Ok(wording) => {
                let at = task_at_head(task_id, &wording);
                let (event, record, past) = (made.event(), made.record(), made.past());
                if signed_line_is_the_commits && wording.line_hash != claim.p.task.line_hash {
                    let said = format!(
                        "the line of {at} was edited after the {event}; {record} is for the old \
                         line: restore the line as it was {past}, or {again}",
                        again = made.again()
                    );
                    findings.push(
                        mismatch(LINE_CHANGED_AT_HEAD, &said)
                            .expected_found(claim.p.task.line_hash.clone(), wording.line_hash.clone()),
                    );
                }
                if let Some(at_commit) = at_commit.filter(|lines| *lines != wording.continuation.as_slice()) {
                    let said = format!(
                        "the wrapped part of {at} (the lines continuing its paragraph after its line) \
                         was edited after the {event}; {record} is for the old wording: restore those \
                         lines as they were {past}, or {again}",
                        again = made.again()
                    );
                    findings.push(
                        mismatch(LINE_CHANGED_AT_HEAD, &said)
                            .expected_found(wrapped(at_commit), wrapped(&wording.continuation)),
                    );
                }
            }
            Err(e) => findings.push(mismatch("task_gone_at_head", &gone_at_head(&e, made)).spec_unread(&e)),
        }
    }
}

/// Where the head under review has task `task_id`, as a finding about its wording names it: `task
/// T002 (specs/001-x/tasks.md line 6 at the head)`, the task list alone for a bug task.
fn task_at_head(task_id: &str, wording: &spec::TaskWording) -> String {
    let path = &wording.tasks_path;
    match wording.line {
        Some(line) => format!("task {task_id} ({path} line {line} at the head)"),
        None => format!("task {task_id} ({path} at the head)"),
    }
}

/// The lines a task's text wraps onto, as a finding quotes them: joined by `\n`, escaped and cut
/// as [`shown_if_clean`] does (`(none)` for a task of one line).
fn wrapped(lines: &[String]) -> String {
    if lines.is_empty() {
        return "(none)".to_owned();
    }
    shown_if_clean(&lines.join("\n"), SHOWN_MAX)
}

/// A tick or decision of a task (its verdict, its `<unit>/<task>`), as a finding about the task at
/// the head names it and says what to do about it.
#[derive(Clone, Copy)]
struct Made<'a> {
    verdict: Verdict,
    target: &'a str,
}

impl Made<'_> {
    /// What was made: `tick`, `acceptance`, `skip`.
    fn event(self) -> &'static str {
        match self.verdict {
            Verdict::Skipped => "skip",
            Verdict::Attested => "acceptance",
            Verdict::Verified | Verdict::RegressionOnly => "tick",
        }
    }

    /// What the note holds: the evidence of a tick, or the decision.
    fn record(self) -> &'static str {
        match self.verdict {
            Verdict::Skipped => "the skip",
            Verdict::Attested => "the acceptance",
            Verdict::Verified | Verdict::RegressionOnly => "the evidence",
        }
    }

    /// What was done to the task: `ticked`, `accepted`, `skipped`.
    fn past(self) -> &'static str {
        match self.verdict {
            Verdict::Skipped => "skipped",
            Verdict::Attested => "accepted",
            Verdict::Verified | Verdict::RegressionOnly => "ticked",
        }
    }

    /// How to make it anew for the task as the head words it.
    fn again(self) -> String {
        let target = shell_word(self.target);
        match self.verdict {
            Verdict::Skipped => {
                format!("undo the skip (`speccoder skip {target} --undo`) and skip the task again")
            }
            Verdict::Attested => {
                format!("untick the task and accept it again (`speccoder accept {target} --reason <why>`)")
            }
            Verdict::Verified | Verdict::RegressionOnly => "untick the task and attest it again".to_owned(),
        }
    }

    /// What to do when the head no longer has the task (`what`: its unit or the task): a tick
    /// or an acceptance is held to the head only outside `--branch`, which checks the ticks the
    /// head holds; a skip the head's units list stands for a task no longer there.
    fn gone(self, what: &str) -> String {
        let record = self.record();
        match self.verdict {
            Verdict::Skipped => format!(
                "so the skip is of a task the head does not have: undo it (`speccoder skip {} --undo`), or restore {what}",
                shell_word(self.target)
            ),
            _ => format!(
                "so {record} cannot be held to the head's wording of it: restore {what}, or leave the commit out of the range checked (`attest verify --branch` checks only the ticks the head holds)"
            ),
        }
    }
}

/// Why the head cannot hold a task to its wording: the task or its unit is gone (removed,
/// renumbered, renamed after the tick or decision `made`), or its task list cannot be read there.
fn gone_at_head(e: &spec::SpecError, made: Made<'_>) -> String {
    let event = made.event();
    match e {
        spec::SpecError::UnknownUnit { unit, .. } => format!(
            "unit `{}` is not at the head (its directory was removed or renamed after the {event}), {}",
            one_line(unit),
            made.gone("its directory")
        ),
        spec::SpecError::UnknownTask { task, tasks_path, .. } => format!(
            "task `{}` is no longer in `{}` at the head (removed or renumbered after the {event}), {}",
            one_line(task),
            one_line(tasks_path),
            made.gone("the task")
        ),
        other => format!("the task cannot be read at the head: {other}"),
    }
}

/// The signed unit directory and format and the task's title (line `n` of `p`) as the task
/// commit's tree gives them (`facts`), each a [`CommitOutcome::Mismatch`] naming the field when
/// it differs.
fn unit_and_title(p: &TaskVerificationV0, facts: &spec::TaskFacts, n: usize, findings: &mut Vec<Finding>) {
    let fields = [
        ("unit_dir_mismatch", "unit.dir", "the unit's directory", &p.unit.dir, facts.unit_dir.as_str()),
        ("unit_format_mismatch", "unit.format", "the unit's format", &p.unit.format, facts.format.as_str()),
        ("title_mismatch", "task.title", "the task's title", &p.task.title, facts.title.as_str()),
    ];
    for (code, field, what, signed, at_commit) in fields {
        if signed != at_commit {
            findings.push(
                Finding::new(
                    CommitOutcome::Mismatch,
                    code,
                    format!("the signed {field} is not {what} at the task commit"),
                )
                .at_line(n)
                .expected_found(shown_if_clean(signed, SHOWN_MAX), shown_if_clean(at_commit, SHOWN_MAX)),
            );
        }
    }
}

/// The signed verdict of `claim`, known and as the `Verdict:` trailer says; the signed unit/task
/// as the `Spec-Task:` trailer says; the signed tree the task commit's. `None` (malformed) for a
/// verdict speccoder does not know: no other rule can judge it.
fn claimed_verdict(claim: &Claim<'_>, findings: &mut Vec<Finding>) -> Option<Verdict> {
    let (commit, p, n) = (claim.commit, claim.p, claim.tv_line.number);
    let mismatch =
        |code: &'static str, msg: &str| Finding::new(CommitOutcome::Mismatch, code, msg).at_line(n);
    let Some(verdict) = Verdict::parse(&p.verdict) else {
        findings.push(
            Finding::new(
                CommitOutcome::Malformed,
                "unknown_verdict",
                "the predicate's verdict is not one of verified, regression_only, attested, skipped",
            )
            .at_line(n)
            .expected_found("verified|regression_only|attested|skipped", p.verdict.clone()),
        );
        return None;
    };
    if claim.trailer_verdict != Some(p.verdict.as_str()) {
        findings.push(
            mismatch("verdict_mismatch", "the Verdict: trailer and the signed verdict differ")
                .expected_found(p.verdict.clone(), claim.trailer_verdict.unwrap_or("").to_owned()),
        );
    }
    let named = format!("{}/{}", p.unit.feature, p.task.id);
    if named != claim.target {
        findings.push(
            mismatch(TASK_MISMATCH, "the signed unit/task and the Spec-Task: trailer differ")
                .expected_found(named, claim.target),
        );
    }
    if p.tree.parse::<ObjectId>().ok() != Some(commit.tree) {
        findings.push(
            mismatch("tree_mismatch", "the signed tree is not the task commit's tree")
                .expected_found(p.tree.clone(), commit.tree.to_string()),
        );
    }
    Some(verdict)
}

/// A decision (`verdict`) of `claim`: no other lines, none of the fields only a tick carries
/// ([`DECISION_WITH_TICK_FIELDS`]), a decider, and the trailers a decision carries.
fn decision_lines(claim: &Claim<'_>, verdict: Verdict, findings: &mut Vec<Finding>) {
    let n = claim.tv_line.number;
    for l in claim.lines.iter().filter(|l| l.number != n) {
        findings.push(
            Finding::new(
                CommitOutcome::Mismatch,
                "decision_with_evidence",
                "a decision carries no test-result or summary lines",
            )
            .at_line(l.number),
        );
    }
    let mut tick_fields: Vec<&str> = claim.p.tick_fields_claimed();
    if held_out_trailer(&claim.commit.message).is_some() {
        tick_fields.push("the Held-Out: trailer");
    }
    if last_trailer(&claim.commit.message, RUN).is_some() {
        tick_fields.push("the Run: trailer");
    }
    if last_trailer(&claim.commit.message, REGRESSION_ONLY).is_some() {
        tick_fields.push("the Regression-Only: trailer");
    }
    if !tick_fields.is_empty() {
        findings.push(
            Finding::new(
                CommitOutcome::Mismatch,
                DECISION_WITH_TICK_FIELDS,
                "a decision records a person's word and carries no spec, trace or test evidence",
            )
            .at_line(n)
            .expected_found("none", tick_fields.join(", ")),
        );
    }
    if claim.p.decider.is_none() {
        findings.push(
            Finding::new(
                CommitOutcome::Mismatch,
                "decision_without_decider",
                "a decision must name its decider",
            )
            .at_line(n),
        );
    }
    findings.extend(decision::decision_findings(&claim.commit.message, verdict, claim.p, n));
}
