//! Checking one task commit: its note, every line, the signatures against the caller's trust, and
//! the agreement of the evidence with the commit, the spec text and the policy.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use gix::ObjectId;
use serde::Serialize;
use time::OffsetDateTime;

use crate::check::agreement::{Cited, Learned, Rules};
use crate::check::completeness::notes_fetched_from;
use crate::check::line::{Body, ReadLine, covering_line};
use crate::check::outcome::{CommitOutcome, Finding, worst};
use crate::check::signatures::{self, LineSigners, Maker, NoteLineSignature, SignerInfo};
use crate::check::trailers::{MAX_CLAIM_BYTES, NOT_ONE_CLAIM, claim_problem, claimed_verdict, task_trailers};
use crate::git::{Commit, Repo};
use crate::model::bundle::{MAX_NOTE_BYTES, NOTES_REF, keep_too_large_note};
use crate::model::dialect::Dialect;
use crate::model::held_out::trailer_manifest;
use crate::model::policy::Recipe;
use crate::model::predicate::Carried;
use crate::model::shown::shown;
use crate::model::trailer_keys::HELD_OUT;
use crate::verify::completeness::note_not_fetched;
use crate::verify::held_out::PublishedSets;
use crate::verify::parallel;
use crate::verify::policy::evidence::SignedEvidence;
use crate::verify::trust::Trust;

/// How many characters of a longer one are shown.
const SHOWN_CLAIM_CHARS: usize = 100;

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
    /// Who signed, as the caller's trust established it (one entry per distinct key): each
    /// line's trusted signer, and every trusted signer of the line that covers the note (its
    /// maker and those who approved it).
    pub signers: Vec<SignerInfo>,
    /// Who made the note's covering line, as its signed content tells it
    /// ([`Maker::Known`]); `None` when that cannot be told.
    pub maker: Option<SignerInfo>,
    /// Unknown fields and newer revisions, named and not evaluated.
    pub not_evaluated: Vec<String>,
    /// Unsigned lines were accepted because the caller asked for it.
    pub accepted_unsigned: bool,
    /// Lines covered by a trusted summary signature instead of their own.
    pub covered_lines: Vec<usize>,
    /// The recipe the signed policy digest follows (`None`: it follows neither, or was not read).
    pub policy: Option<Recipe>,
    /// The requirements a tick's task cites in its text at the task commit, each with the hashes
    /// of its defining line and of its text beyond it there, sorted by id
    /// ([`crate::check::agreement::Agreed::cited`]), whatever the trace says: the tree is what the
    /// evidence signed. A list, not a map: a report is kept for every tick of a run, and most cite
    /// one or two requirements.
    #[serde(skip)]
    pub cited: Vec<Cited>,
    /// The text an OpenSpec tick's task names requirements in, at the task commit
    /// ([`crate::check::agreement::Agreed::cites_by_name`]): what it cites at the head is read
    /// from it there.
    #[serde(skip)]
    pub cites_by_name: Option<String>,
    /// The unit the evidence names.
    #[serde(skip)]
    pub unit: Option<String>,
    /// What the note signed, as a verifier policy asks about it (read only under a policy).
    #[serde(skip)]
    pub evidence: Option<Box<SignedEvidence>>,
    /// Where `attest carry` re-issued the evidence from: the signed predicate's `carried`.
    #[serde(skip)]
    pub carried: Option<Carried>,
}

impl CommitReport {
    /// The report of `commit` before anything is checked: nothing found yet, [`CommitOutcome::Ok`].
    #[must_use]
    pub fn new(commit: String) -> Self {
        CommitReport {
            commit,
            target: None,
            verdict: None,
            outcome: CommitOutcome::Ok,
            findings: Vec::new(),
            signers: Vec::new(),
            maker: None,
            not_evaluated: Vec::new(),
            accepted_unsigned: false,
            covered_lines: Vec::new(),
            policy: None,
            cited: Vec::new(),
            cites_by_name: None,
            unit: None,
            evidence: None,
            carried: None,
        }
    }
}

/// Shared state for checking many commits of one repository.
pub struct Checker<'r> {
    /// The repository.
    repo: &'r Repo,
    /// The caller's trust.
    trust: &'r Trust,
    /// Every note of the notes ref, read once: annotated commit -> its note blobs (more than one
    /// when the notes tree holds several notes for it: `note_ambiguous`).
    notes: Arc<HashMap<ObjectId, Vec<ObjectId>>>,
    /// The rules of agreement, with the tree under review.
    rules: Rules<'r>,
    /// The published held-out sets, read once (nothing when no held-out ref exists).
    held_out: Arc<PublishedSets>,
    /// Whether signatures are checked ([`Self::without_signatures`]: not).
    signatures: bool,
}

/// Every note of the notes ref: annotated commit -> its note blobs.
type NotesRead = HashMap<ObjectId, Vec<ObjectId>>;

/// How many consecutive commits one thread checks at a time.
const COMMITS_PER_RUN: usize = 8;

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
        let mut notes: HashMap<ObjectId, Vec<ObjectId>> = HashMap::new();
        for (annotated, blob) in repo.notes(NOTES_REF)? {
            notes.entry(annotated).or_default().push(blob);
        }
        let notes = Arc::new(notes);
        let held_out = Arc::new(PublishedSets::read(repo)?);
        Ok(Checker { repo, trust, notes, rules: Rules::new(repo, head_tree), held_out, signatures: true })
    }

    /// This checker, checking everything but signatures: no line's signature is looked at, so
    /// none fails a commit, and no signer is reported. What a reader without the caller's trust
    /// can tell of a task commit (`attest policy init`).
    #[must_use]
    pub fn without_signatures(self) -> Self {
        Checker { signatures: false, ..self }
    }

    /// This checker, reading a task commit's tree from the directories `learned` holds for it,
    /// and its task list as `learned` parsed it when it did.
    #[must_use]
    pub fn knowing(self, learned: Learned) -> Self {
        Checker { rules: self.rules.knowing(learned), ..self }
    }

    /// The same checker on another thread's `repo` (the notes read once and what the box setters
    /// learned are shared).
    fn on<'o>(
        trust: &'o Trust,
        head_tree: Option<ObjectId>,
        shared: (&Arc<NotesRead>, &Learned, &Arc<PublishedSets>, bool),
        repo: &'o Repo,
    ) -> Checker<'o> {
        let (notes, learned, held_out, signatures) = shared;
        let rules = Rules::new(repo, head_tree).knowing(learned.clone());
        Checker { repo, trust, notes: Arc::clone(notes), rules, held_out: Arc::clone(held_out), signatures }
    }

    /// Checks every commit of `ids`; the reports come back in the order of `ids`
    /// ([`Self::check_stream`], collected).
    #[must_use]
    pub fn check_many(&self, ids: &[ObjectId]) -> Vec<CommitReport> {
        let mut all = Vec::with_capacity(ids.len());
        self.check_stream(ids, |report| all.push(report));
        all
    }

    /// Checks every commit of `ids`, and hands each report to `emit` on this thread, in the
    /// order of `ids`, as soon as it and those before it are done.
    ///
    /// Commits are independent of each other, so with many of them the work is shared by as many
    /// threads as the machine has cores, or as [`Trust::jobs`] says (each with its own `Repo`,
    /// taking the next unchecked run of commits when done): signature checks and object reads
    /// are most of a commit's cost. The commits are taken in runs of consecutive ones: a commit's
    /// neighbours in `ids` are often its parent. A run is checked from its last commit to its
    /// first, which in a unit's ticks is newest first: git stores an older version of a file
    /// (`tasks.md`) as a delta of a newer one, so each read finds the newer version just read in
    /// the pack cache instead of resolving the chain again.
    pub fn check_stream(&self, ids: &[ObjectId], mut emit: impl FnMut(CommitReport)) {
        let (trust, head_tree) = (self.trust, self.rules.head_tree());
        let shared = (&self.notes, self.rules.learned(), &self.held_out, self.signatures);
        let runs: Vec<&[ObjectId]> = ids.chunks(COMMITS_PER_RUN).collect();
        parallel::stream(
            self.repo,
            trust.jobs,
            runs.len(),
            ids.len(),
            |repo, claim, done| {
                let checker = Checker::on(trust, head_tree, shared, repo);
                while let Some(at) = claim() {
                    let mut reports: Vec<_> = runs[at].iter().rev().map(|id| checker.check(*id)).collect();
                    reports.reverse();
                    done(at, reports);
                }
            },
            |run| run.into_iter().for_each(&mut emit),
        );
    }

    /// Checks the task commit `id`.
    #[must_use]
    pub fn check(&self, id: ObjectId) -> CommitReport {
        let mut report = CommitReport::new(id.to_string());
        match self.repo.commit(id) {
            Ok(commit) => self.check_commit(&commit, &mut report),
            Err(e) => report.findings.push(
                Finding::new(
                    CommitOutcome::Missing,
                    "commit_unreadable",
                    format!("the commit cannot be read: {e}"),
                )
                .unread(&e),
            ),
        }
        report.findings.sort_by_key(|f| std::cmp::Reverse(f.outcome));
        report.outcome = worst(&report.findings);
        report
    }

    fn check_commit(&self, commit: &Commit, report: &mut CommitReport) {
        let Some(target) = self.check_claim(commit, report) else { return };
        let Some(note) = self.read_note(commit, &mut report.findings) else { return };
        let verdict = report.verdict.clone();
        let checked = self.rules.note(commit, &target, verdict.as_deref(), &note, &mut report.findings);
        if let Some(keeper) = &self.trust.keep_notes {
            let read: Vec<&str> = checked.lines.iter().map(|l| l.payload_sha256.as_str()).collect();
            keeper.keep(&report.commit, &note, &read);
        }
        self.hint_copied_note(&checked.lines, &target, commit, &mut report.findings);
        if !self.held_out.is_empty() {
            let dialect = checked.recipe.as_ref().map_or(Dialect::Ours, Recipe::dialect);
            self.check_published_held_out(commit, &target, &checked.lines, dialect, &mut report.findings);
        }
        let at = self.trust.signature_time.at(commit.committer.seconds);
        // Every trusted signer of the covering line is reported (approvals), and counts under a
        // verifier policy.
        let covering = covering_line(&checked.lines, checked.task_verification);
        let covering_signers = if self.signatures {
            self.check_signatures(&checked.lines, at, &checked.commit_sha256, covering, report)
        } else {
            LineSigners::default()
        };
        if self.trust.policy.is_some() {
            report.evidence = Some(Box::new(SignedEvidence::read(&checked, covering_signers)));
        }
        report.policy = checked.recipe;
        if let Some(Body::TaskVerification(p)) = checked.task_verification.map(|i| &checked.lines[i].body) {
            report.not_evaluated = p.newer_fields();
            report.unit = Some(p.unit.feature.clone());
            report.cited = checked.cited.clone();
            report.cites_by_name.clone_from(&checked.cites_by_name);
            report.carried.clone_from(&p.carried);
        }
    }

    /// The commit's task trailers into `report`: its target, unless its message is not one plain
    /// claim or names no task (then the finding says so). A missing verdict is a finding too, but
    /// the note is still read.
    fn check_claim(&self, commit: &Commit, report: &mut CommitReport) -> Option<String> {
        let target = task_trailers(&commit.message).0;
        let verdict = claimed_verdict(&commit.message, commit.parents.len());
        let cut = |value: &Option<String>| {
            value
                .as_ref()
                .map(|v| if v.len() > MAX_CLAIM_BYTES { shown(v, SHOWN_CLAIM_CHARS) } else { v.clone() })
        };
        report.target = cut(&target);
        report.verdict = cut(&verdict);
        let findings = &mut report.findings;
        if let Some(problem) = claim_problem(&commit.message, commit.parents.len()) {
            findings.push(Finding::new(CommitOutcome::Malformed, NOT_ONE_CLAIM, problem));
            return None;
        }
        let Some(target) = target else {
            findings.push(Finding::new(
                CommitOutcome::Mismatch,
                "no_spec_task",
                "the commit has no Spec-Task: trailer",
            ));
            return None;
        };
        if verdict.as_deref().is_none_or(str::is_empty) {
            findings.push(Finding::new(
                CommitOutcome::Mismatch,
                "no_verdict",
                "the commit has no non-empty Verdict: trailer",
            ));
        }
        Some(target)
    }

    /// The bytes of the commit's one note, or none with the finding that says why: several notes
    /// for it, one too large, none, or one that cannot be read.
    fn read_note(&self, commit: &Commit, findings: &mut Vec<Finding>) -> Option<Vec<u8>> {
        let blob = match self.notes.get(&commit.id).map(Vec::as_slice) {
            Some([one]) => Some(*one),
            Some(several @ [_, _, ..]) => {
                findings.push(Finding::new(
                    CommitOutcome::Malformed,
                    "note_ambiguous",
                    format!(
                        "the notes tree of {NOTES_REF} holds {} notes for the task commit (under different names: fanned out or not, or its hex in other letter case); git would show them joined, so none of them is read (remove them with `git notes --ref={NOTES_REF} remove {}` and write the note again)",
                        several.len(),
                        commit.id
                    ),
                ));
                return None;
            }
            _ => None,
        };
        match blob.map(|blob| self.repo.blob_within(blob, MAX_NOTE_BYTES)).transpose() {
            Ok(Some(Ok(note))) => Some(note),
            Ok(Some(Err(size))) => {
                findings.push(Finding::new(
                    CommitOutcome::Malformed,
                    "note_too_large",
                    format!(
                        "the note is {size} bytes, more than the {MAX_NOTE_BYTES} a note may be, so it is not read (a tick writes a few KiB); {}",
                        keep_too_large_note(NOTES_REF, &commit.id.to_string())
                    ),
                ));
                None
            }
            Ok(None) => {
                findings.push(Finding::new(CommitOutcome::Missing, "note_missing", self.no_note_message()));
                None
            }
            Err(e) => {
                findings.push(
                    Finding::new(
                        CommitOutcome::Missing,
                        "note_unreadable",
                        format!("the note cannot be read: {e}"),
                    )
                    .unread(&e),
                );
                None
            }
        }
    }

    /// The `note_missing` message: fetch the evidence where a remote may have it; when the notes
    /// of a remote were fetched already and it is not among them, push it from where it was made
    /// or fetch it from where the commit came from ([`note_not_fetched`]); else say there is no
    /// remote to fetch it from.
    fn no_note_message(&self) -> String {
        let fetched = notes_fetched_from(self.repo);
        if !fetched.is_empty() {
            note_not_fetched(&fetched, None)
        } else if self.repo.remote_names().is_empty() {
            format!(
                "the task commit has no note in {NOTES_REF}, and this repository has no remote to fetch it from: attest the task again"
            )
        } else {
            format!(
                "the task commit has no note in {NOTES_REF}: fetch the evidence with `speccoder attest fetch`"
            )
        }
    }

    /// A note whose every line names the same task at one other commit that carries that task
    /// too was copied there by git (`notes.rewriteRef` after a rebase or amend): the subject
    /// mismatch says so, and says to carry the evidence instead of suggesting tampering. One that
    /// names this very commit in other letter case says that a digest is lowercase hex.
    fn hint_copied_note(&self, lines: &[ReadLine], target: &str, commit: &Commit, findings: &mut [Finding]) {
        let hex = commit.id.to_string();
        let named: Vec<Option<&str>> = lines
            .iter()
            .flat_map(|l| l.subject.iter().map(|s| s.git_commit().filter(|_| s.name == target)))
            .collect();
        let Some(Some(other)) = named.first().copied() else { return };
        if other == hex || !named.iter().all(|n| *n == Some(other)) {
            return;
        }
        let Ok(id) = other.parse::<ObjectId>() else { return };
        let message = if id == commit.id {
            format!(
                "the note's gitCommit `{}` is this commit's id in other letter case, not its lowercase id {hex}: a digest is lowercase hex, so the statements name no commit of this repository: write them with the lowercase id (attest the task again)",
                crate::model::clean::shown_if_clean(other, SHOWN_CLAIM_CHARS)
            )
        } else if self.repo.commit(id).is_ok_and(|c| task_trailers(&c.message).0.as_deref() == Some(target)) {
            format!(
                "the note names {other}, the commit this one was rewritten from: git copied it here (notes.rewriteRef after a rebase or amend); run `speccoder attest carry` to re-issue the evidence for this commit"
            )
        } else {
            return;
        };
        for finding in findings.iter_mut().filter(|f| f.code == "subject_mismatch") {
            finding.message.clone_from(&message);
        }
    }

    /// The published copy of each held-out set the tick names (its held_out lines, its
    /// `Held-Out:` trailer), where its unit's held-out ref holds one; the published speccoder's
    /// copies too, for a tick read in its shapes (`dialect`).
    fn check_published_held_out(
        &self,
        commit: &Commit,
        target: &str,
        lines: &[ReadLine],
        dialect: Dialect,
        findings: &mut Vec<Finding>,
    ) {
        let from_lines = lines.iter().filter_map(|line| match &line.body {
            Body::TestResult(result) => result.held_out_manifest().map(str::to_owned),
            _ => None,
        });
        let from_trailer = crate::git::trailers::parse(&commit.message)
            .into_iter()
            .rev()
            .find(|(key, _)| key.eq_ignore_ascii_case(HELD_OUT))
            .and_then(|(_, value)| trailer_manifest(&value).map(str::to_owned));
        let keys: BTreeSet<String> = from_lines.chain(from_trailer).collect();
        for key in keys {
            findings.extend(self.held_out.check(self.repo, target, &key, dialect));
        }
    }

    /// Signatures of every line; lines named by a trusted summary are covered by it. Returns the
    /// trusted signers of the line at `covering` (none without it).
    fn check_signatures(
        &self,
        lines: &[ReadLine],
        at: OffsetDateTime,
        commit_sha256: &str,
        covering: Option<usize>,
        report: &mut CommitReport,
    ) -> LineSigners {
        let (verdicts, covering_signers) =
            signatures::check_note_every(lines, &self.trust.signers, at, commit_sha256, covering);
        for (line, verdict) in lines.iter().zip(verdicts) {
            match verdict {
                NoteLineSignature::Trusted(info) => signatures::add_signer(&mut report.signers, &info),
                NoteLineSignature::Covered => report.covered_lines.push(line.number),
                NoteLineSignature::Unsigned if self.trust.accept_unsigned => report.accepted_unsigned = true,
                NoteLineSignature::Unsigned => report.findings.push(
                    Finding::new(
                        CommitOutcome::Unsigned,
                        "unsigned",
                        "the line carries no signature (pass --accept-unsigned to accept it)",
                    )
                    .at_line(line.number),
                ),
                NoteLineSignature::Failed(f) => report.findings.push(f),
            }
        }
        for info in &covering_signers.every {
            signatures::add_signer(&mut report.signers, info);
        }
        if let Maker::Known(maker) = &covering_signers.maker {
            report.maker = Some(maker.clone());
        }
        covering_signers
    }
}
