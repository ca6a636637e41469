//! Checking one task commit: its note, every line, the signatures against the caller's trust, and
//! the agreement of the evidence with the commit, the spec text and the policy.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use gix::ObjectId;
use serde::Serialize;
use time::OffsetDateTime;

use crate::git::{Commit, Repo, trailers};
use crate::model::bundle::{self, NOTES_REF};
use crate::model::digest::{git_object_sha256, sha256_hex};
use crate::model::policy;
use crate::model::predicate::{TaskVerificationV0, Verdict};
use crate::model::summary::{self, VerificationSummary};
use crate::model::test_result::{Phase, TestOutcome};
use crate::spec;
use crate::verify::bundle::{Body, ReadLine, read_line};
use crate::verify::outcome::{CommitOutcome, Finding, worst};
use crate::verify::signatures::{self, LineSignature, SignerInfo};
use crate::verify::trust::Trust;
use crate::verify::{bugs, decisions};

/// The trailer naming the task.
pub const SPEC_TASK: &str = "Spec-Task";
/// The trailer naming the verdict.
pub const VERDICT: &str = "Verdict";

/// What the verifier concluded about one task commit.
#[derive(Debug, Clone, Serialize)]
pub struct CommitReport {
    /// The commit.
    pub commit: String,
    /// `Spec-Task:` as the trailer says.
    pub target: Option<String>,
    /// `Verdict:` as the trailer says.
    pub verdict: Option<String>,
    /// The worst finding.
    pub outcome: CommitOutcome,
    /// Everything found, worst first.
    pub findings: Vec<Finding>,
    /// Who signed, as the caller's trust established it (one entry per distinct key).
    pub signers: Vec<SignerInfo>,
    /// Unknown fields and newer revisions, named and not evaluated.
    pub not_evaluated: Vec<String>,
    /// Unsigned lines were accepted because the caller asked for it.
    pub accepted_unsigned: bool,
    /// Lines covered by a trusted summary signature instead of their own.
    pub covered_lines: Vec<usize>,
    /// The cited requirements as the evidence recorded them: id -> requirement_hash.
    #[serde(skip)]
    pub cited: BTreeMap<String, String>,
    /// The unit the evidence names.
    #[serde(skip)]
    pub unit: Option<String>,
}

/// The `Spec-Task:` and `Verdict:` trailers of a commit message (the last of each).
#[must_use]
pub fn task_trailers(message: &str) -> (Option<String>, Option<String>) {
    let found = trailers::parse(message);
    let last = |key: &str| {
        found.iter().rev().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, v)| v.trim().to_owned())
    };
    (last(SPEC_TASK), last(VERDICT))
}

/// Shared state for checking many commits of one repository.
pub struct Checker<'r> {
    /// The repository.
    repo: &'r Repo,
    /// The caller's trust.
    trust: &'r Trust,
    /// The tree of the head under review: the task line must still read the same there.
    head_tree: Option<ObjectId>,
    /// Every note of the notes ref, read once: annotated commit -> note blob.
    notes: Arc<HashMap<ObjectId, ObjectId>>,
    /// Policy hashes already computed, by the `speccoder.toml` blob (`None`: no file).
    policies: RefCell<HashMap<Option<ObjectId>, Result<String, String>>>,
}

/// Below this many commits per thread, [`Checker::check_many`] does not start another thread:
/// opening the repository and its caches again costs about as much as checking a few commits.
const COMMITS_PER_THREAD: usize = 32;

/// At most this many threads check commits at once unless the caller asks for more.
const MAX_THREADS: usize = 8;

impl<'r> Checker<'r> {
    /// A checker for `repo` under `trust`, with `head_tree` as the tree under review. Reads the
    /// notes ref once.
    ///
    /// # Errors
    /// A notes ref that cannot be read.
    pub fn new(
        repo: &'r Repo,
        trust: &'r Trust,
        head_tree: Option<ObjectId>,
    ) -> Result<Self, crate::git::GitError> {
        let notes = Arc::new(repo.notes(NOTES_REF)?.into_iter().collect());
        Ok(Checker { repo, trust, head_tree, notes, policies: RefCell::new(HashMap::new()) })
    }

    /// The same checker on another thread's `repo` (the notes read once are shared).
    fn on<'o>(
        trust: &'o Trust,
        head_tree: Option<ObjectId>,
        notes: &Arc<HashMap<ObjectId, ObjectId>>,
        repo: &'o Repo,
    ) -> Checker<'o> {
        Checker { repo, trust, head_tree, notes: Arc::clone(notes), policies: RefCell::new(HashMap::new()) }
    }

    /// Checks every commit of `ids`; the reports come back in the order of `ids`.
    ///
    /// Commits are independent of each other, so with many of them the work is shared by as many
    /// threads as the machine has cores, or as [`Trust::jobs`] says (each with its own `Repo`,
    /// taking the next unchecked commit when done): signature checks and object reads are most of
    /// a commit's cost.
    #[must_use]
    pub fn check_many(&self, ids: &[ObjectId]) -> Vec<CommitReport> {
        let threads = match self.trust.jobs {
            Some(jobs) => jobs.get().min(ids.len()),
            None => {
                let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
                cores.min(MAX_THREADS).min(ids.len() / COMMITS_PER_THREAD)
            }
        }
        .max(1);
        if threads == 1 {
            return ids.iter().map(|id| self.check(*id)).collect();
        }
        let handle = self.repo.handle();
        let next = AtomicUsize::new(0);
        let (trust, head_tree, notes) = (self.trust, self.head_tree, &self.notes);
        // Each thread checks the next unclaimed commit until none is left, and keeps its reports
        // with their positions.
        let work = |checker: &Checker<'_>| {
            let mut done = Vec::new();
            loop {
                let at = next.fetch_add(1, Ordering::Relaxed);
                let Some(id) = ids.get(at) else { return done };
                done.push((at, checker.check(*id)));
            }
        };
        let mut slots: Vec<Option<CommitReport>> = (0..ids.len()).map(|_| None).collect();
        std::thread::scope(|scope| {
            // A thread that cannot be started, or cannot open the repository, leaves its share to
            // the others (this one always works), so a large `--jobs` never fails the run.
            let others: Vec<_> = (1..threads)
                .filter_map(|_| {
                    std::thread::Builder::new()
                        .spawn_scoped(scope, || match handle.open() {
                            Ok(repo) => work(&Checker::on(trust, head_tree, notes, &repo)),
                            Err(_) => Vec::new(),
                        })
                        .ok()
                })
                .collect();
            let mut all = work(self);
            for other in others {
                // A panic on another thread is a bug; it goes on here as it would have there.
                all.extend(other.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
            }
            for (at, report) in all {
                slots[at] = Some(report);
            }
        });
        // Every position was claimed by exactly one thread, which checked it.
        slots.into_iter().zip(ids).map(|(slot, id)| slot.unwrap_or_else(|| self.check(*id))).collect()
    }

    /// The policy hash of the tree `tree` (its `speccoder.toml`), computed once per file content.
    fn policy_of_tree(&self, tree: ObjectId) -> Result<String, String> {
        let blob = self.repo.tree(tree).entry_id(policy::CONFIG_FILE).map_err(|e| e.to_string())?;
        if let Some(hit) = self.policies.borrow().get(&blob) {
            return hit.clone();
        }
        let computed = match blob {
            Some(id) => self.repo.blob(id).map_err(|e| e.to_string()).and_then(|bytes| {
                policy::policy_sha256(Some(&String::from_utf8_lossy(&bytes))).map_err(|e| e.to_string())
            }),
            None => policy::policy_sha256(None).map_err(|e| e.to_string()),
        };
        self.policies.borrow_mut().insert(blob, computed.clone());
        computed
    }

    /// Checks the task commit `id`.
    #[must_use]
    pub fn check(&self, id: ObjectId) -> CommitReport {
        let mut report = CommitReport {
            commit: id.to_string(),
            target: None,
            verdict: None,
            outcome: CommitOutcome::Ok,
            findings: Vec::new(),
            signers: Vec::new(),
            not_evaluated: Vec::new(),
            accepted_unsigned: false,
            covered_lines: Vec::new(),
            cited: BTreeMap::new(),
            unit: None,
        };
        match self.repo.commit(id) {
            Ok(commit) => self.check_commit(&commit, &mut report),
            Err(e) => report.findings.push(Finding::new(
                CommitOutcome::Missing,
                "commit_unreadable",
                format!("the commit cannot be read: {e}"),
            )),
        }
        report.findings.sort_by_key(|f| std::cmp::Reverse(f.outcome));
        report.outcome = worst(&report.findings);
        report
    }

    fn check_commit(&self, commit: &Commit, report: &mut CommitReport) {
        let (target, verdict) = task_trailers(&commit.message);
        report.target.clone_from(&target);
        report.verdict.clone_from(&verdict);
        let findings = &mut report.findings;
        let Some(target) = target else {
            findings.push(Finding::new(
                CommitOutcome::Mismatch,
                "no_spec_task",
                "the commit has no Spec-Task: trailer",
            ));
            return;
        };
        if verdict.as_deref().is_none_or(str::is_empty) {
            findings.push(Finding::new(
                CommitOutcome::Mismatch,
                "no_verdict",
                "the commit has no non-empty Verdict: trailer",
            ));
        }
        let note = match self.notes.get(&commit.id).map(|blob| self.repo.blob(*blob)).transpose() {
            Ok(Some(note)) => note,
            Ok(None) => {
                findings.push(Finding::new(
                    CommitOutcome::Missing,
                    "note_missing",
                    format!("the task commit has no note in {NOTES_REF} (fetch it with `git fetch origin {NOTES_REF}:{NOTES_REF}`)"),
                ));
                return;
            }
            Err(e) => {
                findings.push(Finding::new(
                    CommitOutcome::Missing,
                    "note_unreadable",
                    format!("the note cannot be read: {e}"),
                ));
                return;
            }
        };

        let mut lines = Vec::new();
        for (i, raw) in bundle::split(&note).into_iter().enumerate() {
            match read_line(i + 1, raw) {
                Ok(line) => lines.push(line),
                Err(f) => findings.push(f),
            }
        }
        if lines.is_empty() && findings.is_empty() {
            findings.push(Finding::new(CommitOutcome::Malformed, "empty_note", "the note holds no lines"));
        }
        let commit_hex = commit.id.to_string();
        // The sha256 of the commit object, which a subject's `sha256` digest must equal (lines
        // written before that digest existed carry `gitCommit` alone).
        let commit_sha256 = self
            .repo
            .read_kind(commit.id, gix::object::Kind::Commit)
            .map(|raw| git_object_sha256("commit", &raw))
            .unwrap_or_default();
        for line in &lines {
            let subject_ok = match line.subject.as_slice() {
                [s] => {
                    s.name == target
                        && s.git_commit() == Some(commit_hex.as_str())
                        && s.commit_sha256().is_none_or(|d| d == commit_sha256)
                }
                _ => false,
            };
            if !subject_ok {
                let found = line
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
                    .expected_found(format!("{target}@{commit_hex} sha256:{commit_sha256}"), found),
                );
            }
        }

        let tvs: Vec<(&ReadLine, &TaskVerificationV0)> = lines
            .iter()
            .filter_map(|l| match &l.body {
                Body::TaskVerification(p) => Some((l, p.as_ref())),
                _ => None,
            })
            .collect();
        let tv = match tvs.as_slice() {
            [one] => Some(*one),
            [] => {
                if !lines.is_empty() {
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
        };

        let at = OffsetDateTime::from_unix_timestamp(commit.committer.seconds)
            .unwrap_or(OffsetDateTime::UNIX_EPOCH);
        self.check_signatures(&lines, at, &commit_sha256, report);
        let findings = &mut report.findings;

        if let Some((tv_line, p)) = tv {
            report.not_evaluated = p.newer_fields();
            report.unit = Some(p.unit.feature.clone());
            if let Some(trace) = p.trace.as_ref().and_then(|t| t.as_array()) {
                for row in trace {
                    if let (Some(id), Some(hash)) = (
                        row.get("requirement").and_then(|v| v.as_str()),
                        row.get("requirement_hash").and_then(|v| v.as_str()),
                    ) {
                        report.cited.insert(id.to_owned(), hash.to_owned());
                    }
                }
            }
            self.check_agreement(commit, &target, verdict.as_deref(), tv_line, p, &lines, findings);
        }
    }

    /// Signatures of every line; lines named by a trusted summary are covered by it.
    fn check_signatures(
        &self,
        lines: &[ReadLine],
        at: OffsetDateTime,
        commit_sha256: &str,
        report: &mut CommitReport,
    ) {
        let results: Vec<LineSignature> =
            lines.iter().map(|l| signatures::check(&l.envelope, self.trust, at, commit_sha256)).collect();
        let summary_digests: Vec<String> = lines
            .iter()
            .zip(&results)
            .filter_map(|(l, r)| match (&l.body, r) {
                (Body::Summary(s), LineSignature::Trusted(_)) => Some(s),
                _ => None,
            })
            .flat_map(|s| s.input_attestations.iter().filter_map(|i| i.digest.get("sha256").cloned()))
            .collect();
        for (line, result) in lines.iter().zip(results) {
            let covered = || summary_digests.contains(&sha256_hex(&line.envelope.payload));
            match result {
                LineSignature::Trusted(info) => {
                    if !report.signers.contains(&info) {
                        report.signers.push(info);
                    }
                }
                LineSignature::Unsigned if covered() => report.covered_lines.push(line.number),
                LineSignature::Unsigned if self.trust.accept_unsigned => report.accepted_unsigned = true,
                LineSignature::Unsigned => report.findings.push(
                    Finding::new(
                        CommitOutcome::Unsigned,
                        "unsigned",
                        "the line carries no signature (pass --accept-unsigned to accept it)",
                    )
                    .at_line(line.number),
                ),
                LineSignature::Failed(f)
                    if matches!(f.outcome, CommitOutcome::UntrustedSigner | CommitOutcome::ToolMissing)
                        && covered() =>
                {
                    report.covered_lines.push(line.number);
                }
                LineSignature::Failed(f) => report.findings.push(f.at_line(line.number)),
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn check_agreement(
        &self,
        commit: &Commit,
        target: &str,
        trailer_verdict: Option<&str>,
        tv_line: &ReadLine,
        p: &TaskVerificationV0,
        lines: &[ReadLine],
        findings: &mut Vec<Finding>,
    ) {
        let n = tv_line.number;
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
            return;
        };
        if trailer_verdict != Some(p.verdict.as_str()) {
            findings.push(
                mismatch("verdict_mismatch", "the Verdict: trailer and the signed verdict differ")
                    .expected_found(p.verdict.clone(), trailer_verdict.unwrap_or("").to_owned()),
            );
        }
        let named = format!("{}/{}", p.unit.feature, p.task.id);
        if named != target {
            findings.push(
                mismatch("task_mismatch", "the signed unit/task and the Spec-Task: trailer differ")
                    .expected_found(named, target),
            );
        }
        if p.tree.parse::<ObjectId>().ok() != Some(commit.tree) {
            findings.push(
                mismatch("tree_mismatch", "the signed tree is not the task commit's tree")
                    .expected_found(commit.tree.to_string(), p.tree.clone()),
            );
        }

        // The task line and the story text, at the task commit and at the head.
        let (unit, task_id) = target.split_once('/').unwrap_or((target, ""));
        let at_commit = self.repo.tree(commit.tree);
        match spec::read_any_task(&at_commit, unit, task_id) {
            Ok(facts) => {
                findings.extend(bugs::anchor_findings(p, &facts, n));
                if facts.line_hash != p.task.line_hash {
                    findings.push(
                        mismatch(
                            "line_hash_mismatch",
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
                    }
                }
                if !facts.ticked && verdict != Verdict::Skipped && !facts.is_trailer_only() {
                    findings.push(mismatch("not_ticked", "the task commit does not tick the task"));
                }
            }
            Err(e) => findings.push(mismatch(
                "task_not_found",
                &format!("the task cannot be read at the task commit: {e}"),
            )),
        }
        if let Some(head_tree) = self.head_tree.filter(|t| *t != commit.tree) {
            match spec::read_any_task(&self.repo.tree(head_tree), unit, task_id) {
                Ok(facts) if facts.line_hash == p.task.line_hash => {}
                Ok(facts) => findings.push(
                    mismatch(
                        "line_changed_at_head",
                        "the task line was edited after the tick; the evidence is for the old line",
                    )
                    .expected_found(p.task.line_hash.clone(), facts.line_hash),
                ),
                Err(e) => findings.push(mismatch(
                    "task_gone_at_head",
                    &format!("the task cannot be read at the head: {e}"),
                )),
            }
        }

        // The policy, recomputed at the parent.
        let parent_policy = match commit.parents.first() {
            Some(parent) => {
                self.repo.commit_tree(*parent).map_err(|e| e.to_string()).and_then(|t| self.policy_of_tree(t))
            }
            None => policy::policy_sha256(None).map_err(|e| e.to_string()),
        };
        match parent_policy {
            Ok(h) if h == p.policy_sha256 => {}
            Ok(h) => findings.push(
                mismatch("policy_mismatch", "the judge configuration at the parent commit is not the one the evidence was judged under")
                    .expected_found(h, p.policy_sha256.clone()),
            ),
            Err(e) => findings.push(mismatch("policy_unreadable", &format!("speccoder.toml at the parent cannot be read: {e}"))),
        }

        let others: Vec<&ReadLine> = lines.iter().filter(|l| l.number != n).collect();
        if verdict.is_decision() {
            for l in &others {
                findings.push(
                    Finding::new(
                        CommitOutcome::Mismatch,
                        "decision_with_evidence",
                        "a decision carries no test-result or summary lines",
                    )
                    .at_line(l.number),
                );
            }
            if p.decider.is_none() {
                findings.push(mismatch("decision_without_decider", "a decision must name its decider"));
            }
            findings.extend(decisions::decision_findings(&commit.message, verdict, p, n));
            return;
        }
        let all: Vec<&ReadLine> = lines.iter().collect();
        self.check_tick_lines(commit, verdict, p, &all, findings);
    }

    fn check_tick_lines(
        &self,
        commit: &Commit,
        verdict: Verdict,
        p: &TaskVerificationV0,
        lines: &[&ReadLine],
        findings: &mut Vec<Finding>,
    ) {
        let summaries: Vec<(&ReadLine, &VerificationSummary)> = lines
            .iter()
            .filter_map(|l| match &l.body {
                Body::Summary(s) => Some((*l, s)),
                _ => None,
            })
            .collect();
        let named_lines: Vec<&ReadLine> =
            lines.iter().copied().filter(|l| !matches!(l.body, Body::Summary(_))).collect();
        let mut phases = Vec::new();
        for l in &named_lines {
            if let Body::TestResult(t) = &l.body {
                match t.phase() {
                    Some(phase) => {
                        if phases.contains(&phase) {
                            findings.push(
                                Finding::new(
                                    CommitOutcome::Mismatch,
                                    "duplicate_phase",
                                    format!("phase {} appears twice", phase.as_str()),
                                )
                                .at_line(l.number),
                            );
                        }
                        phases.push(phase);
                        if phase == Phase::Red && t.result != TestOutcome::Failed {
                            findings.push(
                                Finding::new(
                                    CommitOutcome::Mismatch,
                                    "red_not_failed",
                                    "the red phase did not fail",
                                )
                                .at_line(l.number),
                            );
                        }
                    }
                    None => findings.push(
                        Finding::new(
                            CommitOutcome::Malformed,
                            "unknown_phase",
                            "a test-result whose configuration names no speccoder phase",
                        )
                        .at_line(l.number),
                    ),
                }
            }
        }
        if verdict == Verdict::Verified && !(phases.contains(&Phase::Red) && phases.contains(&Phase::Green)) {
            findings.push(Finding::new(
                CommitOutcome::Mismatch,
                "verified_without_red_green",
                "a verified tick needs signed red and green test results",
            ));
        }
        self.check_held_out_trailer(commit, lines, findings);

        let (sline, s) = match summaries.as_slice() {
            [one] => *one,
            [] => {
                findings.push(Finding::new(
                    CommitOutcome::Mismatch,
                    "summary_missing",
                    "a tick needs a verification summary line",
                ));
                return;
            }
            [_, second, ..] => {
                findings.push(
                    Finding::new(
                        CommitOutcome::Mismatch,
                        "several_summaries",
                        "the note has more than one summary line",
                    )
                    .at_line(second.0.number),
                );
                return;
            }
        };
        let mismatch = |code: &'static str, msg: &str| {
            Finding::new(CommitOutcome::Mismatch, code, msg).at_line(sline.number)
        };
        let mut named: Vec<(String, String)> = s
            .input_attestations
            .iter()
            .map(|i| (i.name.clone(), i.digest.get("sha256").cloned().unwrap_or_default()))
            .collect();
        for l in &named_lines {
            let entry = (l.input_name().unwrap_or_default(), sha256_hex(&l.envelope.payload));
            match named.iter().position(|x| *x == entry) {
                Some(i) => {
                    named.remove(i);
                }
                None => findings.push(
                    Finding::new(
                        CommitOutcome::Mismatch,
                        "summary_missing_line",
                        "the summary does not name this line by its digest",
                    )
                    .at_line(l.number)
                    .expected_found(format!("{} sha256:{}", entry.0, entry.1), "not named"),
                ),
            }
        }
        for (name, digest) in named {
            findings.push(
                mismatch("summary_names_foreign_line", "the summary names a line the note does not hold")
                    .expected_found("only lines of this note", format!("{name} sha256:{digest}")),
            );
        }
        let level = if verdict == Verdict::RegressionOnly {
            summary::LEVEL_REGRESSION_ONLY
        } else {
            summary::LEVEL_VERIFIED
        };
        if s.verified_levels != [level] {
            findings.push(
                mismatch("wrong_level", "the summary's level does not match the verdict")
                    .expected_found(level, s.verified_levels.join(",")),
            );
        }
        if s.verification_result != "PASSED" {
            findings.push(
                mismatch("summary_not_passed", "the summary's result is not PASSED")
                    .expected_found("PASSED", s.verification_result.clone()),
            );
        }
        let policy = s.policy.digest.get("sha256").cloned().unwrap_or_default();
        if policy != p.policy_sha256 || s.policy.uri != summary::POLICY_URI {
            findings.push(
                mismatch("summary_policy_mismatch", "the summary's policy is not the task-verification's")
                    .expected_found(p.policy_sha256.clone(), policy),
            );
        }
        if s.verifier.id != summary::VERIFIER_ID {
            findings.push(
                mismatch("unknown_verifier", "the summary names another verifier")
                    .expected_found(summary::VERIFIER_ID, s.verifier.id.clone()),
            );
        }
    }

    /// The `Held-Out:` trailer must say what the signed held_out line says.
    fn check_held_out_trailer(&self, commit: &Commit, lines: &[&ReadLine], findings: &mut Vec<Finding>) {
        let held_out = lines.iter().find_map(|l| match &l.body {
            Body::TestResult(t) if t.phase() == Some(Phase::HeldOut) => Some((l.number, t)),
            _ => None,
        });
        let trailer = trailers::parse(&commit.message)
            .into_iter()
            .rev()
            .find(|(k, _)| k.eq_ignore_ascii_case("Held-Out"))
            .map(|(_, v)| v);
        if let Some((number, t)) = held_out {
            let c = &t.configuration[0];
            let ann = |k: &str| {
                c.annotations.as_ref().and_then(|a| a.get(k)).map(ToString::to_string).unwrap_or_default()
            };
            let expected = format!(
                "passed={}/{} manifest=sha256:{}",
                ann("passed"),
                ann("total"),
                c.digest.get("sha256").map(String::as_str).unwrap_or("")
            );
            if trailer.as_deref() != Some(expected.as_str()) {
                findings.push(
                    Finding::new(
                        CommitOutcome::Mismatch,
                        "held_out_trailer_mismatch",
                        "the Held-Out: trailer does not match the signed held_out result",
                    )
                    .at_line(number)
                    .expected_found(expected, trailer.unwrap_or_default()),
                );
            }
        }
    }
}
