//! `speccoder attest <unit>/<task> --evidence FILE`: from a finished task to a task commit with
//! trailers and a signed bundle in its note. A trailer-only bug task (`<unit>/bug:<slug>`) takes
//! the same path without a tick: its commit carries the staged tree, and its anchor is the triad.
//!
//! Order of work, so that a failure leaves nothing half-written (see [`crate::attest::tick`] for
//! the steps that touch the repository):
//! 1. read and check everything: evidence, red output, the index (locked from here on), the
//!    task, the policy, the signer;
//! 2. write the task commit as an object (nothing names it, so it is invisible if we stop);
//! 3. build every statement, clean-check it, sign it (a signature that was asked for and cannot
//!    be made stops the command here);
//! 4. move the notes reference and the branch together: from here on the tick exists, with
//!    its note;
//! 5. update the work tree and the index so that the tick shows as committed.

use std::path::{Path, PathBuf};

use crate::attest::bug::{self, BugError};
use crate::attest::config::{self, ConfigError, read_policy};
use crate::attest::evidence::{self, EvidenceError};
use crate::attest::held_out::{HeldOutError, check_claim, check_named_store};
use crate::attest::message::{self, MessageFields, keys};
use crate::attest::provenance;
use crate::attest::signing::{self, Chosen, Moment, SignerError, SignerRequest};
use crate::attest::statements::{self, BuildError, Context, Line};
use crate::attest::target::{BadTarget, split_target};
use crate::attest::tick::{self, TickError};
use crate::attest::{LineReport, Report, now_rfc3339};
use crate::exit::{Class, ExitClass};
use crate::git::{GitError, Repo};
use crate::model::bundle::{self, NOTES_REF, NoteTooLarge};
use crate::model::clean::unless_leaking;
use crate::model::dsse::Envelope;
use crate::model::evidence::Evidence;
use crate::model::red::red_from_output;
use crate::model::regression::SignedRegression;
use crate::spec;

/// What `speccoder attest` was asked to do.
#[derive(Debug, Clone)]
pub struct AttestRequest {
    /// `<unit>/<task>`.
    pub target: String,
    /// The evidence file.
    pub evidence: PathBuf,
    /// `--signer`, `--key`, `--sigstore-*`.
    pub signing: SignerRequest,
    /// `--held-out-store`: the store that holds the held-out set the evidence names (default
    /// [`crate::attest::held_out::default_store`]).
    pub held_out_store: Option<PathBuf>,
}

/// Why `speccoder attest` stopped. Before the branch moves nothing is written that anyone can see.
#[derive(Debug, thiserror::Error)]
pub enum AttestError {
    /// `<unit>/<task>` is not of that shape.
    #[error(transparent)]
    Target(#[from] BadTarget),
    /// The evidence file is unusable.
    #[error(transparent)]
    Evidence(#[from] EvidenceError),
    /// The spec could not be read, or the task not found.
    #[error(transparent)]
    Spec(#[from] crate::spec::SpecError),
    /// The task commit cannot be made on the branch as it is.
    #[error(transparent)]
    Tick(#[from] TickError),
    /// speccoder.toml at HEAD is broken, or turns attestation off.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// No signer that was asked for can sign.
    #[error(transparent)]
    Signer(#[from] SignerError),
    /// The bug task cannot be closed.
    #[error(transparent)]
    Bug(#[from] BugError),
    /// The repository failed us.
    #[error(transparent)]
    Git(#[from] GitError),
    /// A statement could not be built.
    #[error(transparent)]
    Build(#[from] BuildError),
    /// The commit message would not carry its trailers intact.
    #[error("cannot write the commit message: {0}")]
    Message(#[from] crate::git::trailers::TrailerError),
    /// The note would be larger than a reader takes.
    #[error(transparent)]
    NoteTooLarge(#[from] NoteTooLarge),
    /// The held-out set the evidence names is not stored, not this task's, or not intact.
    #[error(transparent)]
    HeldOut(#[from] HeldOutError),
}

impl ExitClass for AttestError {
    fn class(&self) -> Class {
        match self {
            AttestError::Target(e) => e.class(),
            AttestError::Evidence(e) => e.class(),
            AttestError::Spec(e) => e.class(),
            AttestError::Tick(e) => e.class(),
            AttestError::Config(e) => e.class(),
            AttestError::Signer(e) => e.class(),
            AttestError::Bug(e) => e.class(),
            AttestError::Git(e) => e.class(),
            AttestError::Build(e) => e.class(),
            AttestError::Message(e) => e.class(),
            AttestError::NoteTooLarge(_) => Class::Config,
            AttestError::HeldOut(e) => e.class(),
        }
    }
}

/// Runs the producer pipeline for one tick.
///
/// # Errors
/// Any [`AttestError`]; before step 4 nothing is written that anyone can see.
pub fn attest(repo: &Repo, req: &AttestRequest) -> Result<Report, AttestError> {
    let Opened { loaded, pending, facts, policy_sha256 } = match open(repo, req)? {
        Start::Tick(opened) => *opened,
        Start::Completed(report) => return Ok(*report),
    };
    let chosen = signing::resolve(repo, &req.signing, Moment::Tick)?;
    let red = match (loaded.evidence.red(), &loaded.red_output) {
        (Some(run), Some(output)) => Some(red_from_output(run.kind, output)),
        _ => None,
    };
    let withheld = red.as_ref().is_some_and(|r| r.withheld);

    let (msg, verdict) = commit_message(&loaded.evidence, &facts, &req.evidence)?;
    let commit = tick::write_task_commit(repo, pending.head, pending.tree, &msg)?;

    let time = now_rfc3339();
    let commit_hex = commit.to_string();
    let commit_sha256 = crate::attest::commit_object_sha256(repo, commit)?;
    let tree_hex = pending.tree.to_string();
    let ctx = Context {
        task: &facts,
        commit: &commit_hex,
        commit_sha256: &commit_sha256,
        tree: &tree_hex,
        policy_sha256: &policy_sha256,
        time: &time,
    };
    let origin = repo.origin_url_without_credentials();
    let lines = statements::tick(
        &ctx,
        &loaded.evidence,
        red,
        &statements::resource_uri(origin.as_deref(), &commit_hex),
    )
    .map_err(|e| e.in_evidence_file(&req.evidence))?;

    let (envelopes, signer, unsigned_reason) = sign_all(&lines, &chosen)?;
    let note = new_note(&envelopes, &lines, &facts, Some((&loaded.evidence, &req.evidence)))?;
    let branch = pending.branch.clone();
    pending.publish(commit, &msg, &note)?;

    Ok(Report {
        command: "attest",
        commit: commit_hex,
        branch: Some(unless_leaking(branch)),
        target: req.target.clone(),
        verdict: verdict.to_owned(),
        lines: LineReport::rows(&lines, &envelopes),
        signer,
        unsigned_reason: unsigned_reason.map(|reason| reason.to_string()),
        withheld: if withheld { vec!["red excerpt (not clean)".to_owned()] } else { Vec::new() },
        warnings: task_warnings(&facts),
        notes_ref: NOTES_REF.to_owned(),
    })
}

/// A tick ready to be made: its evidence, the commit it will be, what the statements say of its
/// task, and the project policy's digest.
struct Opened<'r> {
    /// The evidence and the red output it names.
    loaded: evidence::LoadedEvidence,
    /// The task commit to make.
    pending: tick::Pending<'r>,
    /// What the statements say of the task.
    facts: spec::TaskFacts,
    /// The sha256 of the project policy (`speccoder.toml`) at HEAD.
    policy_sha256: String,
}

/// Where an attest starts.
enum Start<'r> {
    /// A tick to make.
    Tick(Box<Opened<'r>>),
    /// The report of a tick HEAD made already (an earlier writer stopped after moving the branch;
    /// the index and work tree now show it).
    Completed(Box<Report>),
}

/// Reads the evidence and opens the task it is for (a bug task ticks nothing), checking the
/// held-out set it names.
fn open<'r>(repo: &'r Repo, req: &AttestRequest) -> Result<Start<'r>, AttestError> {
    let (unit, task_id) = split_target(&req.target)?;
    let mut loaded = evidence::load(&req.evidence, &req.target)?;
    let begun = tick::begin(repo)?;
    let (policy_sha256, config) = read_policy(repo, begun.head)?;
    let format = config::ensure_enabled(config.as_ref())?.format;
    config::ensure_unit_format(format, &repo.tree(begun.staged), unit)?;
    let (pending, facts) = match spec::TaskId::parse(task_id)? {
        // A trailer-only bug task ticks nothing: the commit is the staged tree as it is.
        spec::TaskId::Bug(slug) => {
            let facts = bug::prepare(repo, begun.staged, begun.head, unit, &slug, &req.target)?;
            loaded.evidence.bug = Some(bug::anchor(&facts, loaded.evidence.bug.take())?);
            (begun.untouched()?, facts)
        }
        spec::TaskId::Listed(_) => match begun.open_task(&req.target, unit, task_id)? {
            tick::Opened::Pending(pending, facts) => (*pending, *facts),
            tick::Opened::Completed { commit, branch } => {
                let report = completed_report(repo, "attest", &req.target, commit, branch)?;
                return Ok(Start::Completed(Box::new(report)));
            }
        },
    };
    // The held-out set the evidence names must be this task's and intact before anything is
    // written: a claim about a set nobody can produce is no evidence.
    if let Some(held_out) = loaded.evidence.held_out() {
        check_claim(repo, req.held_out_store.as_deref(), &req.target, &facts.unit, &held_out.manifest)?;
    } else if let Some(store) = req.held_out_store.as_deref() {
        check_named_store(repo, store)?;
    }
    Ok(Start::Tick(Box::new(Opened { loaded, pending, facts, policy_sha256 })))
}

/// The task commit's message (its verdict, `Regression-Only:`, `Held-Out:` and `Run:` trailers),
/// checked against where each value came from, and the verdict's name.
fn commit_message(
    evidence: &Evidence,
    facts: &spec::TaskFacts,
    evidence_file: &Path,
) -> Result<(String, &'static str), AttestError> {
    let verdict = evidence.verdict.as_str();
    let mut trailers: Vec<(&'static str, String)> = Vec::new();
    if let Some(reason) = &evidence.regression {
        trailers.push((keys::REGRESSION_ONLY, SignedRegression::from(reason.clone()).trailer_value()));
    }
    trailers.push((keys::HELD_OUT, held_out_trailer(evidence)));
    // A run named by nothing but white space names none: no `Run:` trailer with an empty value.
    if let Some(run) = evidence.run.as_ref().filter(|run| !run.trim().is_empty()) {
        trailers.push((keys::RUN, run.clone()));
    }
    let fields = MessageFields {
        unit: facts.unit.clone(),
        task: facts.id.clone(),
        title: facts.title.clone(),
        verdict: verdict.to_owned(),
        trailers,
    };
    let msg = message::render(&fields)?;
    provenance::check_message(&fields, &msg, facts)
        .map_err(|e| BuildError::from(e).in_evidence_file(evidence_file))?;
    Ok((msg, verdict))
}

/// What the report warns of the task: a cited requirement no line defines, a story read from
/// elsewhere than its own heading, a bracket read as a story label that binds none.
fn task_warnings(facts: &spec::TaskFacts) -> Vec<String> {
    let unbound = spec::unbound_story_label(&facts.title).map(|label| unbound_label(label, facts));
    facts
        .untraced_warnings()
        .into_iter()
        .chain(facts.story_fallback.as_ref().map(spec::StoryFallback::message))
        .chain(unbound)
        .collect()
}

/// The warning of `label`, at the start of the title of `facts`, which reads as a story label
/// but binds none ([`spec::unbound_story_label`]): the story the tick binds, the one the published
/// speccoder read from the line when it read another, and how to bind another.
fn unbound_label(label: &str, facts: &spec::TaskFacts) -> String {
    let bound = match &facts.story {
        Some(story) => format!("this tick binds the story text of {story}, the line's first story label"),
        None => "this tick binds no story text".to_owned(),
    };
    let published = facts
        .published
        .as_ref()
        .and_then(|line| line.story.as_deref())
        .filter(|story| Some(*story) != facts.story.as_deref())
        .map(|story| format!(" (the published speccoder read the last label, {story}, as the task's story)"))
        .unwrap_or_default();
    let another = if facts.story.is_some() { "another story" } else { "a story" };
    format!(
        "the title starts with `{}`, which reads as a story label but binds no story: {bound}{published}. \
         A task binds one story, the `[USn]` label before its title: to bind {another}, untick the \
         task in a new commit, give its line that story's `[USn]` as its only story label, and run \
         `speccoder attest` again",
        crate::model::shown::one_line(label)
    )
}

/// The report of a tick that an earlier, interrupted run had published: its commit and note as
/// they are, and what this run did (the work tree and index now show it).
pub(crate) fn completed_report(
    repo: &Repo,
    command: &'static str,
    target: &str,
    commit: gix::ObjectId,
    branch: String,
) -> Result<Report, GitError> {
    let note = repo.note(NOTES_REF, commit)?.unwrap_or_default();
    let info = repo.commit(commit)?;
    let verdict = crate::git::trailers::parse(&info.message)
        .into_iter()
        .rev()
        .find(|(key, _)| key.eq_ignore_ascii_case("Verdict"))
        .map(|(_, value)| value)
        .unwrap_or_default();
    let lines = bundle::split(&note)
        .into_iter()
        .enumerate()
        .map(|(i, raw)| {
            let envelope = Envelope::parse(raw).ok();
            LineReport {
                name: format!("line {}", i + 1),
                sha256: envelope
                    .as_ref()
                    .map_or_else(String::new, |e| crate::model::digest::sha256_hex(&e.payload)),
                signed: envelope.is_some_and(|e| !e.signatures.is_empty()),
            }
        })
        .collect();
    Ok(Report {
        command,
        commit: commit.to_string(),
        branch: Some(unless_leaking(branch)),
        target: target.to_owned(),
        verdict,
        lines,
        signer: None,
        unsigned_reason: None,
        withheld: Vec::new(),
        warnings: vec![format!(
            "{target} was ticked by {commit} already, whose run stopped before the index and work tree were updated; they now show the tick (nothing new was written)"
        )],
        notes_ref: NOTES_REF.to_owned(),
    })
}

/// The note of `envelopes`: one line each, within the caps a reader takes.
///
/// # Errors
/// [`NoteTooLarge`].
fn note_of(envelopes: &[Envelope]) -> Result<Vec<u8>, NoteTooLarge> {
    bundle::join_within_caps(&envelopes.iter().map(Envelope::to_line).collect::<Vec<_>>())
}

/// [`note_of`] for the statements `lines` just built for `task`, from the evidence (with the
/// file it was read from) or, for a decision, from none: a note too large names what makes it so
/// ([`provenance::naming_largest_part`]).
///
/// # Errors
/// [`NoteTooLarge`].
pub(crate) fn new_note(
    envelopes: &[Envelope],
    lines: &[Line],
    task: &spec::TaskFacts,
    evidence: Option<(&Evidence, &Path)>,
) -> Result<Vec<u8>, NoteTooLarge> {
    note_of(envelopes).map_err(|too_large| {
        let named = lines.iter().map(|l| l.name.as_str()).zip(envelopes);
        provenance::naming_largest_part(too_large, named, |line, pointer| {
            let origin = provenance::of_statement(line, pointer, task, evidence.map(|(e, _)| e));
            match evidence {
                Some((_, file)) => origin.in_evidence_file(file),
                None => origin,
            }
        })
    })
}

/// Signs every line with the chosen signer (a summary-only backend signs just the last line, the
/// summary, which names the others); with no signer every line stays unsigned and the reason is
/// returned.
///
/// # Errors
/// The first signature that cannot be made: a signer that was chosen must sign.
#[allow(clippy::type_complexity, reason = "the envelopes, who signed, and why not")]
pub(crate) fn sign_all(
    lines: &[Line],
    chosen: &Chosen,
) -> Result<(Vec<Envelope>, Option<String>, Option<signing::Unsigned>), SignerError> {
    let mut envelopes: Vec<Envelope> = lines.iter().map(|l| Envelope::unsigned(l.payload.clone())).collect();
    match chosen {
        Chosen::Unsigned(reason) => Ok((envelopes, None, Some(*reason))),
        Chosen::Signer(signer) => {
            let first = if signer.signs_summary_only() { envelopes.len().saturating_sub(1) } else { 0 };
            for env in &mut envelopes[first..] {
                signing::sign_envelope(env, signer.as_ref())?;
            }
            Ok((envelopes, Some(signer.describe()), None))
        }
    }
}

fn held_out_trailer(evidence: &crate::model::evidence::Evidence) -> String {
    match evidence.held_out() {
        Some(h) => format!("passed={}/{} manifest={}", h.passed, h.total, h.manifest),
        None => "off".to_owned(),
    }
}
