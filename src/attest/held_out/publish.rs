//! `speccoder held-out publish`: every stored set that a closed task names goes into the
//! unit's `refs/speccoder/held-out/<unit>`, by compare-and-swap, only forward.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::error::HeldOutError;
use super::local::{
    ReadySet, SetProblem, StoreUse, ensure_unit_format, head_commit, read_set, store_root, stream_checked,
};
use crate::check::agreement::Rules;
use crate::check::held_out::{published_sets, read_set as read_published_set, top_advice};
use crate::check::line::Body;
use crate::check::outcome::CommitOutcome;
use crate::check::signatures;
use crate::check::trailers::{claim_problem, held_out_trailer, task_trailers};
use crate::check::trust::{SignatureTime, SignatureTrust, TrustFiles};
use crate::exit;
use crate::git::{CasUpdate, Commit, GitError, ObjectId, Repo, delete_ref_command, trailers};
use crate::model::bundle::{self, NOTES_REF};
use crate::model::digest::is_sha256_hex;
use crate::model::dsse::Envelope;
use crate::model::held_out::{FILES_DIR, MANIFEST_FILE, trailer_manifest};
use crate::model::predicate::Verdict;
use crate::model::refs;
use crate::model::shown::{in_line, one_line, one_line_path, shell_word};
use crate::model::statement::RawStatement;
use crate::model::test_result::{self, TestResult};
use crate::spec;

/// What `speccoder held-out publish` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct PublishRequest {
    /// Only this unit.
    pub unit: Option<String>,
    /// The store (default [`super::default_store`]).
    pub store: Option<PathBuf>,
    /// Say what would be published, write nothing.
    pub dry_run: bool,
    /// The publisher's trust, which a tick's note must hold under for its sets to be published.
    pub trust: TrustFiles,
    /// When SSH keys must have been trusted.
    pub signature_time: SignatureTime,
}

/// A set as published (or to be published).
#[derive(Debug, Clone, Serialize)]
pub struct SetInfo {
    /// `sha256:<hex>`.
    pub manifest: String,
    /// The task the manifest names.
    #[serde(serialize_with = "in_line")]
    pub task: String,
    /// How many files it holds.
    pub files: usize,
    /// The closed tasks' commits that name it.
    pub named_by: Vec<String>,
}

/// A named set that was left out, and why.
#[derive(Debug, Clone, Serialize)]
pub struct LeftOut {
    /// `sha256:<hex>`.
    pub manifest: String,
    /// Why.
    #[serde(serialize_with = "in_line")]
    pub reason: String,
    /// The closed tasks' commits that name it.
    pub named_by: Vec<String>,
}

/// What publishing did for one unit.
#[derive(Debug, Clone, Serialize)]
pub struct UnitPublish {
    /// The unit.
    #[serde(serialize_with = "in_line")]
    pub unit: String,
    /// `refs/speccoder/held-out/<unit>`.
    #[serde(serialize_with = "in_line")]
    pub reference: String,
    /// Where the ref pointed before.
    pub previous: Option<String>,
    /// The new commit, when the ref moved.
    pub commit: Option<String>,
    /// Sets added now (or, with --dry-run, that would be).
    pub published: Vec<SetInfo>,
    /// Named sets the ref holds already.
    pub already_published: Vec<SetInfo>,
    /// Named sets whose files do not match their manifest: never published.
    pub tampered: Vec<LeftOut>,
    /// Named sets whose manifest was written for another task than the closed task naming them
    /// (`named_by` lists only those commits): left out unless their own task names them too.
    pub other_task: Vec<LeftOut>,
    /// Named sets the local store does not hold.
    pub not_in_store: Vec<LeftOut>,
    /// Named sets of which the ref holds another copy, one that cannot be read, or a tree that is
    /// not as `held-out publish` writes it: the ref is left as it is for them.
    pub differs_on_ref: Vec<LeftOut>,
    /// Sets named only by commits that do not close their task (not a `verified` or
    /// `regression_only` tick of one plain claim, or a box not ticked at HEAD): left unpublished.
    pub not_closed: Vec<LeftOut>,
    /// Stored sets no closed task names: they stay local.
    pub kept_local: Vec<String>,
}

/// What `speccoder held-out publish` did.
#[derive(Debug, Clone, Serialize)]
pub struct PublishReport {
    /// Always `held-out publish`.
    pub command: &'static str,
    /// Nothing was written.
    pub dry_run: bool,
    /// The store read, exactly ([`crate::model::shown::exact_path`]).
    #[serde(serialize_with = "crate::model::shown::exact_path")]
    pub store: PathBuf,
    /// One entry per unit with named or stored sets.
    pub units: Vec<UnitPublish>,
}

impl PublishReport {
    /// 0 when every named set that is stored was published (or is already), 26 when one was
    /// tampered, named by a task it was not written for, or held otherwise by the ref.
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        let refused = |u: &UnitPublish| {
            !u.tampered.is_empty() || !u.other_task.is_empty() || !u.differs_on_ref.is_empty()
        };
        if self.units.iter().any(refused) { exit::DOES_NOT_HOLD } else { exit::OK }
    }
}

impl std::fmt::Display for PublishReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let verb = if self.dry_run { "would publish" } else { "published" };
        if self.units.is_empty() {
            writeln!(f, "no closed task names a held-out set; nothing to publish")?;
        }
        for u in &self.units {
            match (&u.commit, self.dry_run, u.published.is_empty()) {
                (Some(c), _, _) => {
                    writeln!(f, "{}: {} -> {}", u.unit, u.reference, c.get(..12).unwrap_or(c))?
                }
                (None, true, false) => writeln!(f, "{}: {} would move", u.unit, u.reference)?,
                _ => writeln!(f, "{}: {} unchanged", u.unit, u.reference)?,
            }
            for s in &u.published {
                writeln!(f, "  {verb} {} ({}, {} files)", s.manifest, s.task, s.files)?;
            }
            for s in &u.already_published {
                writeln!(f, "  already published {} ({})", s.manifest, s.task)?;
            }
            for s in &u.tampered {
                writeln!(f, "  TAMPERED, left out: {}: {}", s.manifest, s.reason)?;
            }
            for s in &u.other_task {
                writeln!(f, "  NAMED BY ANOTHER TASK: {}: {}", s.manifest, s.reason)?;
            }
            for s in &u.differs_on_ref {
                writeln!(f, "  DIFFERS ON THE REF, left as it is: {}: {}", s.manifest, s.reason)?;
            }
            for s in &u.not_closed {
                writeln!(f, "  NOT A CLOSED TASK'S, left unpublished: {}: {}", s.manifest, s.reason)?;
            }
            for s in &u.not_in_store {
                writeln!(f, "  not in the local store: {} ({})", s.manifest, s.reason)?;
            }
            for k in &u.kept_local {
                writeln!(f, "  kept local (no closed task names it): sha256:{k}")?;
            }
        }
        Ok(())
    }
}

/// Publishes every stored set that a closed task on HEAD names (see the module documentation).
///
/// # Errors
/// An unknown `--unit`, an unborn HEAD, a store inside a work tree of the repository, a set whose manifest is not
/// valid or names a path outside the set (then nothing is written), a repository failure.
pub fn publish(repo: &Repo, req: &PublishRequest) -> Result<PublishReport, HeldOutError> {
    let head = head_commit(repo)?;
    if let Some(unit) = &req.unit {
        spec::locate_unit(&repo.tree(repo.commit_tree(head)?), unit)?;
        ensure_unit_format(repo, head, unit)?;
    }
    let root = store_root(repo, req.store.as_deref(), StoreUse::Read)?;
    let judge = TickJudge {
        rules: Rules::new(repo, None),
        trust: publisher_trust(repo, head, &req.trust)?,
        time: req.signature_time,
    };
    let named = named_sets(repo, head, req.unit.as_deref(), &judge)?;
    let mut units: BTreeSet<String> = named.keys().cloned().collect();
    match &req.unit {
        Some(unit) => {
            units.insert(unit.clone());
        }
        None => units.extend(list_dir(&root).into_iter().filter(|n| spec::check_unit_name(n).is_ok())),
    }
    // Read and check everything first: a set that cannot be published at all stops the command.
    for unit in &units {
        refs::checked_held_out_ref(unit)?;
    }
    let empty = BTreeMap::new();
    let plans = units
        .into_iter()
        .map(|unit| {
            let wanted = named.get(&unit).unwrap_or(&empty);
            plan_unit(&root, unit, wanted)
        })
        .collect::<Result<Vec<_>, _>>()?;
    refuse_unnamed_in_shallow(repo, head, &plans)?;
    let units = plans
        .into_iter()
        .map(|(plan, kept_local)| publish_unit(repo, req.dry_run, plan, kept_local))
        .collect::<Result<_, _>>()?;
    Ok(PublishReport { command: "held-out publish", dry_run: req.dry_run, store: root, units })
}

/// The publisher's trust, from outside the history publish judges: every task commit HEAD
/// reaches may name a set, so a trust file HEAD's tree holds is refused, and so is an
/// `--allowed-signers-rev` revision HEAD reaches (a branch that wrote itself into the trust file
/// would release the sets it names); a revision outside it, such as a trust branch of its own, is
/// taken.
///
/// # Errors
/// The trust cannot be loaded, or names a file or revision of the judged history.
fn publisher_trust(repo: &Repo, head: ObjectId, files: &TrustFiles) -> Result<SignatureTrust, HeldOutError> {
    let judged = |c: ObjectId| c == head || repo.is_ancestor(c, head).unwrap_or(true);
    Ok(SignatureTrust::load(repo, files, repo.commit_tree(head)?, &judged)?)
}

/// The plan for `unit`'s sets in the store under `root`, given the sets closed tasks name
/// (`wanted`), and the sets of the store no closed task names (kept local).
///
/// # Errors
/// A set whose manifest is not valid or names a path outside the set.
fn plan_unit(
    root: &Path,
    unit: String,
    wanted: &BTreeMap<String, NamedBy>,
) -> Result<(Plan, Vec<String>), HeldOutError> {
    let unit_dir = root.join(&unit);
    let local: BTreeSet<String> = list_dir(&unit_dir).into_iter().filter(|n| is_sha256_hex(n)).collect();
    let mut plan = Plan {
        unit,
        ready: Vec::new(),
        tampered: Vec::new(),
        other_task: Vec::new(),
        not_in_store: Vec::new(),
        not_closed: Vec::new(),
    };
    for (key, named_by) in wanted {
        let (closing, open): (NamedBy, NamedBy) = named_by.iter().cloned().partition(|n| n.open.is_none());
        if closing.is_empty() {
            plan.not_closed.push(LeftOut {
                manifest: format!("sha256:{key}"),
                reason: not_closed_reason(&open),
                named_by: open.iter().map(|n| n.commit.to_string()).collect(),
            });
            continue;
        }
        let named_by = &closing;
        let left_out = |reason: String| LeftOut {
            manifest: format!("sha256:{key}"),
            reason,
            named_by: named_by.iter().map(|n| n.commit.to_string()).collect(),
        };
        if !local.contains(key) {
            plan.not_in_store.push(left_out(format!("no set {key} under {}", one_line_path(&unit_dir))));
            continue;
        }
        let set_dir = unit_dir.join(key);
        match read_set(&set_dir, key, &plan.unit) {
            Ok(set) => plan.add_ready(set, named_by),
            Err(SetProblem::Tampered(reason)) => plan.tampered.push(left_out(reason)),
            Err(SetProblem::Invalid(message)) => return Err(HeldOutError::BadSet { path: set_dir, message }),
        }
    }
    let kept_local = local.into_iter().filter(|k| !wanted.contains_key(k)).collect();
    Ok((plan, kept_local))
}

/// Publishes the ready sets of `plan` under the unit's held-out reference (unless `dry_run`, or
/// none is ready: then only what would be added is found), and says what happened to each set.
fn publish_unit(
    repo: &Repo,
    dry_run: bool,
    plan: Plan,
    kept_local: Vec<String>,
) -> Result<UnitPublish, HeldOutError> {
    let reference = refs::held_out_ref(&plan.unit);
    let sets: Vec<&ReadySet> = plan.ready.iter().map(|(s, _)| s).collect();
    let outcome = if dry_run || sets.is_empty() {
        let previous = repo.ref_target(&reference)?;
        let on_ref = OnRef::read(repo, &reference, previous, &sets, &mut HashMap::new())?;
        Written { previous, commit: None, added: on_ref.absent, differing: on_ref.differing }
    } else {
        write_sets(repo, &reference, &plan.unit, &sets)?
    };
    let info = |(s, named_by): &(ReadySet, Vec<ObjectId>)| SetInfo {
        manifest: format!("sha256:{}", s.key),
        task: s.task.clone(),
        files: s.files.len(),
        named_by: named_by.iter().map(ToString::to_string).collect(),
    };
    let differs_on_ref = plan
        .ready
        .iter()
        .filter_map(|(s, named_by)| {
            Some(LeftOut {
                manifest: format!("sha256:{}", s.key),
                reason: outcome.differing.get(&s.key)?.clone(),
                named_by: named_by.iter().map(ToString::to_string).collect(),
            })
        })
        .collect();
    let ready = plan.ready.iter().filter(|(s, _)| !outcome.differing.contains_key(&s.key));
    let (published, already): (Vec<_>, Vec<_>) = ready.partition(|(s, _)| outcome.added.contains(&s.key));
    Ok(UnitPublish {
        unit: plan.unit,
        reference,
        previous: outcome.previous.map(|c| c.to_string()),
        commit: outcome.commit.map(|c| c.to_string()),
        published: published.into_iter().map(info).collect(),
        already_published: already.into_iter().map(info).collect(),
        tampered: plan.tampered,
        other_task: plan.other_task,
        not_in_store: plan.not_in_store,
        differs_on_ref,
        not_closed: plan.not_closed,
        kept_local,
    })
}

/// The sets of one unit, checked.
struct Plan {
    unit: String,
    ready: Vec<(ReadySet, Vec<ObjectId>)>,
    tampered: Vec<LeftOut>,
    other_task: Vec<LeftOut>,
    not_in_store: Vec<LeftOut>,
    not_closed: Vec<LeftOut>,
}

impl Plan {
    /// Takes an intact `set` named by the closed tasks `named_by` (commit, task): published for
    /// the commits of the task its manifest was written for; a commit of another task that names
    /// it is named in `other_task`, and without one of its own task the set is left out.
    fn add_ready(&mut self, set: ReadySet, named_by: &[Naming]) {
        let (own, others): (Vec<_>, Vec<_>) = named_by.iter().partition(|n| n.task == set.task);
        if !others.is_empty() {
            let tasks: BTreeSet<String> = others.iter().map(|n| one_line(&n.task).into_owned()).collect();
            let tasks = tasks.into_iter().collect::<Vec<_>>().join(", ");
            let written_for = one_line(&set.task);
            let outcome = if own.is_empty() {
                "left out".to_owned()
            } else {
                format!("published for {written_for} only")
            };
            self.other_task.push(LeftOut {
                manifest: format!("sha256:{}", set.key),
                reason: format!(
                    "written for {written_for}, but named by the closed task {tasks}; {outcome} (a task's held_out phase must name its own set: `speccoder held-out store <unit>/<task> DIR`)"
                ),
                named_by: others.iter().map(|n| n.commit.to_string()).collect(),
            });
        }
        if !own.is_empty() {
            let own = own.into_iter().map(|n| n.commit).collect();
            self.ready.push((set, own));
        }
    }
}

/// What one publication did.
struct Written {
    previous: Option<ObjectId>,
    commit: Option<ObjectId>,
    added: Vec<String>,
    /// Key to why the ref's copy is not the stored set ([`OnRef::differing`]).
    differing: BTreeMap<String, String>,
}

/// Names of the entries of `dir` that are UTF-8 (none when `dir` cannot be read).
fn list_dir(dir: &Path) -> Vec<String> {
    let Ok(entries) = fs::read_dir(dir) else { return Vec::new() };
    entries.filter_map(|e| e.ok()?.file_name().into_string().ok()).collect()
}

/// In a shallow clone whose history of `head` reaches the boundary, refuses to publish while a
/// stored set is named by no task commit here: the one that names it may lie below the boundary,
/// and "kept local" would be a guess. A boundary only another branch reaches cuts nothing of
/// `head`'s. Nothing is written then.
fn refuse_unnamed_in_shallow(
    repo: &Repo,
    head: ObjectId,
    plans: &[(Plan, Vec<String>)],
) -> Result<(), HeldOutError> {
    let mut reached = None;
    for commit in repo.shallow_boundary()? {
        if repo.is_ancestor(commit, head)? {
            reached = Some(commit);
            break;
        }
    }
    let Some(boundary) = reached else { return Ok(()) };
    match plans.iter().find_map(|(plan, kept)| kept.first().map(|key| (plan, key))) {
        Some((plan, key)) => Err(HeldOutError::Shallow {
            boundary: boundary.to_string(),
            unit: plan.unit.clone(),
            key: key.clone(),
        }),
        None => Ok(()),
    }
}

/// One task commit naming a set: the commit, the `<unit>/<task>` its `Spec-Task:` names, and why
/// it does not close that task (`None` when it does).
#[derive(Debug, Clone)]
struct Naming {
    commit: ObjectId,
    task: String,
    open: Option<String>,
}

/// The task commits that name one set, newest first.
type NamedBy = Vec<Naming>;

/// Why no commit naming a set closes its task, on one line: each commit's reason.
fn not_closed_reason(open: &[Naming]) -> String {
    let reasons: Vec<String> = open
        .iter()
        .map(|n| {
            format!(
                "{} {}",
                n.commit.to_string().get(..12).unwrap_or_default(),
                n.open.as_deref().unwrap_or("")
            )
        })
        .collect();
    format!(
        "no closed task names it ({}); a set is published once a `verified` or `regression_only` tick whose signed note names it, and verifies against your trust, is on HEAD with the task's box ticked in its task list",
        reasons.join("; ")
    )
}

/// Manifest digests (hex) named by the task commits reachable from `head` (a `Spec-Task:` and a
/// non-empty `Verdict:`), by unit, each with the commits that name it (newest first), their tasks
/// and whether each closes its task for that set ([`why_open`], then [`TickJudge::signed_sets`]).
fn named_sets(
    repo: &Repo,
    head: ObjectId,
    only: Option<&str>,
    judge: &TickJudge<'_>,
) -> Result<BTreeMap<String, BTreeMap<String, NamedBy>>, HeldOutError> {
    let head_tree = repo.tree(repo.commit_tree(head)?);
    let mut ticks = HeadTicks::default();
    let mut out: BTreeMap<String, BTreeMap<String, NamedBy>> = BTreeMap::new();
    for id in repo.walk(head, &[])? {
        let commit = repo.commit(id)?;
        let (Some(target), Some(verdict)) = task_trailers(&commit.message) else { continue };
        let Some((unit, task_id)) = target.split_once('/') else { continue };
        if verdict.is_empty() || only.is_some_and(|u| u != unit) || spec::check_unit_name(unit).is_err() {
            continue;
        }
        let mut digests: BTreeSet<String> = BTreeSet::new();
        if let Some(trailer) = held_out_trailer(&commit.message) {
            digests.extend(trailer_manifest(trailer.trim()).map(str::to_owned));
        }
        let note = repo.note(NOTES_REF, id)?;
        if let Some(note) = &note {
            digests.extend(bundle::split(note).into_iter().filter_map(held_out_digest));
        }
        if digests.is_empty() {
            continue;
        }
        let open = match claim_problem(&commit.message, commit.parents.len()) {
            Some(problem) => Some(format!("is not one plain claim: {problem}")),
            None => why_open(&verdict, ticks.ticked(&head_tree, unit, task_id)?),
        };
        // A claim that would close its task closes it only for the sets its note's lines name,
        // once the note holds under the publisher's trust: trailers and notes are anyone's to write.
        let signed = match open {
            Some(why) => Err(why),
            None => judge.signed_sets(&commit, &target, &verdict, note.as_deref())?,
        };
        for digest in digests {
            let open = match &signed {
                Ok(sets) if sets.contains(&digest) => None,
                Ok(_) => Some(TRAILER_ONLY.to_owned()),
                Err(why) => Some(why.clone()),
            };
            let naming = Naming { commit: id, task: target.clone(), open };
            out.entry(unit.to_owned()).or_default().entry(digest).or_default().push(naming);
        }
    }
    Ok(out)
}

/// Why a tick that closes its task does not close it for a set its `Held-Out:` trailer names.
const TRAILER_ONLY: &str = "names it in its Held-Out: trailer only, not in a line of its signed note, and a trailer is anyone's to write";

/// How `held-out publish` tells a tick that stands behind the sets it names: its note holds under
/// the publisher's own trust, as `attest approve` holds a note to it before signing.
struct TickJudge<'r> {
    /// The commit's own agreement rules.
    rules: Rules<'r>,
    /// The publisher's trust.
    trust: SignatureTrust,
    /// When SSH keys must have been trusted.
    time: SignatureTime,
}

impl TickJudge<'_> {
    /// The sets (hex) the held_out lines of `note` name, when the note agrees with the task
    /// commit `commit` (which claims `target` and `verdict`) and every line holds under the
    /// trust; otherwise why not, on one line.
    ///
    /// # Errors
    /// The publisher trusts no signer ([`HeldOutError::NoTrust`]).
    fn signed_sets(
        &self,
        commit: &Commit,
        target: &str,
        verdict: &str,
        note: Option<&[u8]>,
    ) -> Result<Result<BTreeSet<String>, String>, HeldOutError> {
        let Some(note) = note else {
            return Ok(Err(format!(
                "has no note in {NOTES_REF}, so nothing signed names the set its run used (fetch the notes: `speccoder attest fetch`)"
            )));
        };
        if self.trust.is_empty() {
            return Err(HeldOutError::NoTrust);
        }
        let mut findings = Vec::new();
        let checked = self.rules.note(commit, target, Some(verdict), note, &mut findings);
        if let Some(f) = findings.iter().find(|f| f.outcome > CommitOutcome::Ok) {
            return Ok(Err(format!(
                "its note does not agree with the commit ({})",
                one_line(&f.to_string())
            )));
        }
        let at = self.time.at(commit.committer.seconds);
        if let Some(f) = signatures::unheld(&checked.lines, &self.trust, at, &checked.commit_sha256).first() {
            return Ok(Err(format!(
                "its note does not verify against your trust ({}): sign it (`speccoder attest sign {}`), or give the trust of its signer (--allowed-signers, --openpgp-certs)",
                one_line(&f.to_string()),
                commit.id
            )));
        }
        let named = checked.lines.iter().filter_map(|l| match &l.body {
            Body::TestResult(r) => r.held_out_manifest().map(str::to_owned),
            _ => None,
        });
        Ok(Ok(named.collect()))
    }
}

/// Why a plain claim of `verdict` does not close its task, whose box is `ticked` at HEAD (or
/// cannot be read there, and why): `None` when it closes it.
fn why_open(verdict: &str, ticked: Result<bool, String>) -> Option<String> {
    if !matches!(Verdict::parse(verdict), Some(Verdict::Verified | Verdict::RegressionOnly)) {
        return Some(format!(
            "claims `Verdict: {}`, not a `verified` or `regression_only` tick",
            one_line(verdict)
        ));
    }
    match ticked {
        Ok(true) => None,
        Ok(false) => Some("its task is not ticked in its task list at HEAD".to_owned()),
        Err(why) => Some(format!("its task list cannot be read at HEAD: {why}")),
    }
}

/// The ticked task ids of each unit at HEAD, read once per unit by the one task-list reader.
#[derive(Default)]
struct HeadTicks(BTreeMap<String, Result<BTreeSet<String>, String>>);

impl HeadTicks {
    /// Whether `task_id` of `unit` is ticked in `tree` (HEAD's); why not readable, as `Err`.
    ///
    /// # Errors
    /// The repository failed while the task list was read.
    fn ticked(
        &mut self,
        tree: &crate::git::GitTree<'_>,
        unit: &str,
        task_id: &str,
    ) -> Result<Result<bool, String>, HeldOutError> {
        if !self.0.contains_key(unit) {
            let read = match spec::ticked_ids(tree, unit) {
                Ok(ids) => Ok(ids.into_iter().collect()),
                Err(e) if e.is_repository_failure() => return Err(e.into()),
                Err(e) => Err(one_line(&e.to_string()).into_owned()),
            };
            self.0.insert(unit.to_owned(), read);
        }
        Ok(match self.0.get(unit) {
            Some(Ok(ids)) => Ok(ids.contains(task_id)),
            Some(Err(why)) => Err(why.clone()),
            None => Ok(false),
        })
    }
}

/// The manifest digest of a held_out test-result line of a bundle, when the line is one.
fn held_out_digest(line: &[u8]) -> Option<String> {
    let envelope = Envelope::parse(line).ok()?;
    let statement: RawStatement = serde_json::from_slice(&envelope.payload).ok()?;
    if statement.predicate_type != test_result::TYPE {
        return None;
    }
    let result: TestResult = serde_json::from_value(statement.predicate).ok()?;
    result.held_out_manifest().map(str::to_owned)
}

/// The ready sets against the held-out ref as it stands, read as git reads it
/// ([`crate::check::held_out`], as `attest verify` reads it).
struct OnRef {
    /// The keys the ref lacks.
    absent: Vec<String>,
    /// Key to why the ref's copy is not that set (another copy, one that cannot be read, or a
    /// ref whose tree is not as `held-out publish` writes it): never called published, never
    /// replaced.
    differing: BTreeMap<String, String>,
}

/// What reading a set's copy on the ref found, by key and the copy's tree: for a retried update.
type Compared = HashMap<(String, ObjectId), Option<String>>;

impl OnRef {
    /// `sets` against the tree of `commit`, what `reference` names (none: the ref lacks them all).
    /// Each copy is read once however often this is asked (`compared`).
    fn read(
        repo: &Repo,
        reference: &str,
        commit: Option<ObjectId>,
        sets: &[&ReadySet],
        compared: &mut Compared,
    ) -> Result<Self, HeldOutError> {
        let mut on_ref = OnRef { absent: Vec::new(), differing: BTreeMap::new() };
        let Some(commit) = commit else {
            on_ref.absent = sets.iter().map(|s| s.key.clone()).collect();
            return Ok(on_ref);
        };
        let tree = repo.commit_tree(commit).map_err(|e| match e {
            GitError::WrongKind { found, .. } => {
                HeldOutError::NotACommit { reference: reference.to_owned(), found }
            }
            other => other.into(),
        })?;
        let published = match published_sets(repo, tree)? {
            Ok(published) => published,
            Err(problem) => {
                let why = format!(
                    "{reference} is not as `held-out publish` writes it ({problem}), so nothing is added to it; {}",
                    top_advice(reference, &problem)
                );
                on_ref.differing = sets.iter().map(|s| (s.key.clone(), why.clone())).collect();
                return Ok(on_ref);
            }
        };
        for set in sets {
            let Some(copy) = published.by_key.get(&set.key) else {
                on_ref.absent.push(set.key.clone());
                continue;
            };
            let memo = (set.key.clone(), *copy);
            let why = match compared.get(&memo) {
                Some(why) => why.clone(),
                None => {
                    let why = copy_differs(repo, reference, &set.key, *copy);
                    compared.insert(memo, why.clone());
                    why
                }
            };
            if let Some(why) = why {
                on_ref.differing.insert(set.key.clone(), why);
            }
        }
        Ok(on_ref)
    }
}

/// Why the copy of set `key` at tree `copy` of `reference` is not the stored set, if it is not.
/// The stored set's manifest hashes to `key`, so a copy whose manifest does and whose files are
/// the manifest's is the stored set byte for byte.
fn copy_differs(repo: &Repo, reference: &str, key: &str, copy: ObjectId) -> Option<String> {
    let what = match read_published_set(repo, key, copy) {
        Ok(Ok(_)) => return None,
        Ok(Err(difference)) => format!("the copy in {reference} is not this set: {}", difference.what),
        Err(e) => format!("the copy in {reference} cannot be read: {e}"),
    };
    Some(format!("{what}; {}", what_to_do(reference)))
}

/// What to do about a held-out ref that holds something other than the stored sets.
fn what_to_do(reference: &str) -> String {
    format!(
        "find where it came from (`git log {}`), then fetch an intact copy, or delete it (`{}`) and publish again from a store that holds the unit's sets",
        shell_word(reference),
        delete_ref_command(reference)
    )
}

/// Writes the blobs of `set` (its manifest and each file, streamed from the store and checked
/// against the manifest's digest as it is written, one at a time: memory stays bounded whatever
/// the set's size) and returns each as (path in the published tree, blob).
fn write_set_blobs(repo: &Repo, set: &ReadySet) -> Result<Vec<(String, ObjectId)>, HeldOutError> {
    let mut blobs = Vec::with_capacity(set.files.len() + 1);
    blobs.push((format!("{}/{MANIFEST_FILE}", set.key), repo.write_blob(&set.manifest)?));
    for file in &set.files {
        let id = stream_checked(&set.files_dir, file, |reader| {
            let len = reader.get_ref().len();
            repo.write_blob_stream(len, reader)
        })
        .map_err(|problem| HeldOutError::BadSet {
            path: set.files_dir.parent().unwrap_or(&set.files_dir).to_owned(),
            message: match problem {
                SetProblem::Invalid(m) | SetProblem::Tampered(m) => {
                    format!("{m}, after it was checked and while it was being published")
                }
            },
        })??;
        blobs.push((format!("{}/{FILES_DIR}/{}", set.key, file.path), id));
    }
    Ok(blobs)
}

/// Adds `sets` to the tree of `reference` in a new commit, by compare-and-swap; when another
/// publisher moved the ref first, reads it again and retries. Sets present already stay as they
/// are (a copy that is not the stored set is said so, [`OnRef`]); a ref whose tree is not as
/// `held-out publish` writes it is left as it is. The previous tree is edited, never read file by file, and each set's blobs are written
/// once, however many times the update is retried.
fn write_sets(repo: &Repo, reference: &str, unit: &str, sets: &[&ReadySet]) -> Result<Written, HeldOutError> {
    let mut written: BTreeMap<String, Vec<(String, ObjectId)>> = BTreeMap::new();
    let mut compared = Compared::new();
    repo.update_ref_retrying(reference, |previous| {
        let OnRef { absent, differing } = OnRef::read(repo, reference, previous, sets, &mut compared)?;
        let added: Vec<&&ReadySet> = sets.iter().filter(|s| absent.contains(&s.key)).collect();
        if added.is_empty() {
            return Ok(CasUpdate::Keep(Written { previous, commit: None, added: Vec::new(), differing }));
        }
        let mut blobs = Vec::new();
        let mut message = format!("Publish held-out sets of {unit}\n\n");
        for set in &added {
            if !written.contains_key(&set.key) {
                written.insert(set.key.clone(), write_set_blobs(repo, set)?);
            }
            blobs.extend(written.get(&set.key).into_iter().flatten().cloned());
            message.push_str(&format!("sha256:{} {}\n", set.key, trailers::sanitize_value(&set.task)));
        }
        let base = previous.map(|c| repo.commit_tree(c)).transpose()?;
        let tree = repo.tree_with_blobs(base, &blobs)?;
        let commit = repo.create_commit_detached(previous.as_slice(), tree, &message)?;
        Ok(CasUpdate::Move {
            new: commit,
            reflog: format!("held-out publish: {} sets", added.len()),
            then: Written {
                previous,
                commit: Some(commit),
                added: added.iter().map(|s| s.key.clone()).collect(),
                differing,
            },
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::held_out::{HeldOutManifest, manifest_digest};

    fn git(dir: &Path, args: &[&str]) {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }

    /// Set `n` of one file, its `files/` directory below `store`.
    fn set(store: &Path, n: usize) -> ReadySet {
        let files = vec![(format!("t{n}.rs"), format!("test {n}").into_bytes())];
        let parsed = HeldOutManifest::new(&format!("001-x/T{n:03}"), None, &files).unwrap();
        let manifest = parsed.to_bytes();
        let files_dir = store.join(n.to_string()).join(FILES_DIR);
        fs::create_dir_all(&files_dir).unwrap();
        for (path, bytes) in &files {
            fs::write(files_dir.join(path), bytes).unwrap();
        }
        let key = manifest_digest(&manifest);
        ReadySet { key, task: format!("001-x/T{n:03}"), manifest, files_dir, files: parsed.files }
    }

    #[test]
    fn concurrent_publishers_retry_and_never_lose_each_others_sets() {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q", "-b", "main"]);
        git(dir.path(), &["config", "user.name", "P"]);
        git(dir.path(), &["config", "user.email", "p@example.com"]);
        let reference = refs::held_out_ref("001-x");
        let workers: Vec<_> = (0..2)
            .map(|w| {
                let path = dir.path().to_owned();
                let reference = reference.clone();
                std::thread::spawn(move || {
                    let repo = Repo::discover(&path).unwrap();
                    for i in 0..12 {
                        let s = set(&path.join(".store"), w * 100 + i);
                        write_sets(&repo, &reference, "001-x", &[&s]).unwrap();
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
        let repo = Repo::discover(dir.path()).unwrap();
        let store = dir.path().join(".store");
        let tip = repo.ref_target(&reference).unwrap().unwrap();
        let sets = published_sets(&repo, repo.commit_tree(tip).unwrap()).unwrap().unwrap();
        let keys: BTreeSet<String> = sets.by_key.into_keys().collect();
        let expected: BTreeSet<String> =
            (0..2).flat_map(|w| (0..12).map(move |i| w * 100 + i)).map(|n| set(&store, n).key).collect();
        assert_eq!(keys, expected);
        // Every step moved the ref forward: 24 commits in one line.
        let tip = repo.ref_target(&reference).unwrap().unwrap();
        assert_eq!(repo.walk(tip, &[]).unwrap().len(), 24);
    }

    fn naming(commit: u8, task: &str) -> Naming {
        Naming { commit: ObjectId::from_bytes_or_panic(&[commit; 20]), task: task.to_owned(), open: None }
    }

    fn empty_plan() -> Plan {
        Plan {
            unit: "001-x".to_owned(),
            ready: Vec::new(),
            tampered: Vec::new(),
            other_task: Vec::new(),
            not_in_store: Vec::new(),
            not_closed: Vec::new(),
        }
    }

    #[test]
    fn a_set_closed_only_by_another_task_is_left_out_and_named_with_both_tasks() {
        let dir = tempfile::tempdir().unwrap();
        let mut plan = empty_plan();
        plan.add_ready(set(dir.path(), 5), &[naming(6, "001-x/T006")]);
        assert!(plan.ready.is_empty(), "never published for a task it was not written for");
        let left = &plan.other_task[0];
        assert!(
            left.reason.contains("written for 001-x/T005, but named by the closed task 001-x/T006; left out")
        );
        assert_eq!(left.named_by, [ObjectId::from_bytes_or_panic(&[6; 20]).to_string()]);
    }

    #[test]
    fn a_set_its_own_task_closes_is_published_for_it_alone_and_the_other_naming_is_said() {
        let dir = tempfile::tempdir().unwrap();
        let mut plan = empty_plan();
        plan.add_ready(set(dir.path(), 5), &[naming(6, "001-x/T006"), naming(5, "001-x/T005")]);
        assert_eq!(plan.ready[0].1, [ObjectId::from_bytes_or_panic(&[5; 20])]);
        assert!(plan.other_task[0].reason.contains("published for 001-x/T005 only"));
    }
}
