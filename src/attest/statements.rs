//! Building the statements of one tick or decision: pure, from facts already gathered (the task
//! as read from the spec, the evidence, the commit, the policy), to canonical payload bytes that
//! passed the clean check.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::attest::provenance::{self, LeakError};
use crate::model::canonical::value_to_canonical;
use crate::model::clean;
use crate::model::digest::sha256_hex;
use crate::model::evidence::{Evidence, PhaseRun, RedRun};
use crate::model::predicate::{
    self, Audits, Decider, Guidance, Red, Setting, SpecRef, TaskRef, TaskVerificationV0, Unit, Verdict,
};
use crate::model::statement::{Statement, Subject};
use crate::model::summary::{self, InputAttestation, Reference, VerificationSummary, Verifier, sha256_map};
use crate::model::test_result::{self, Phase, ResourceDescriptor, TestResult};
use crate::spec::TaskFacts;

/// One line of a bundle before it is signed.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// How the summary names it: `test-result/<phase>`, `task-verification`, or `summary`.
    pub name: String,
    /// The statement's predicate type.
    pub predicate_type: &'static str,
    /// The canonical statement bytes: the DSSE payload.
    pub payload: Vec<u8>,
}

impl Line {
    /// sha256 of the payload, as the summary names it.
    #[must_use]
    pub fn digest(&self) -> String {
        sha256_hex(&self.payload)
    }
}

/// What every statement of one tick shares.
#[derive(Debug, Clone)]
pub struct Context<'a> {
    /// The task as read from the spec before the tick.
    pub task: &'a TaskFacts,
    /// The task commit.
    pub commit: &'a str,
    /// The sha256 of the task commit object (`model::digest::git_object_sha256`).
    pub commit_sha256: &'a str,
    /// The task commit's tree.
    pub tree: &'a str,
    /// The policy hash at the parent.
    pub policy_sha256: &'a str,
    /// RFC 3339 UTC time of the statements.
    pub time: &'a str,
}

impl Context<'_> {
    /// `<unit>/<task>`.
    #[must_use]
    pub fn subject_name(&self) -> String {
        format!("{}/{}", self.task.unit, self.task.id)
    }

    fn subject(&self) -> Subject {
        Subject::task_at(&self.subject_name(), self.commit, self.commit_sha256)
    }

    fn base_predicate(&self, verdict: Verdict) -> TaskVerificationV0 {
        TaskVerificationV0 {
            revision: Some(predicate::REVISION),
            verdict: verdict.as_str().to_owned(),
            unit: Unit {
                format: self.task.format.as_str().to_owned(),
                feature: self.task.unit.clone(),
                dir: self.task.unit_dir.clone(),
            },
            task: TaskRef {
                id: self.task.id.clone(),
                line_hash: self.task.line_hash.clone(),
                title: self.task.title.clone(),
            },
            tree: self.tree.to_owned(),
            spec: None,
            audits: Audits::default(),
            setting: Setting::default(),
            guidance: Guidance::default(),
            decider: None,
            policy_sha256: self.policy_sha256.to_owned(),
            time: self.time.to_owned(),
            red: None,
            bug: None,
            acceptance: None,
            regression: None,
            collection: None,
            carried: None,
            context: None,
            dependencies: None,
            extra: BTreeMap::new(),
        }
    }
}

/// Why statements could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// A statement would carry a leak; nothing is written.
    #[error(transparent)]
    Leak(Box<LeakError>),
    /// Serialisation failed (a bug).
    #[error("cannot encode the {0} statement: {1}")]
    Encode(String, serde_json::Error),
    /// The evidence would make a task verification the open specification rules out (an
    /// `integrity` or `monitor` of another shape, an unknown monitor state), which every verifier
    /// would refuse; nothing is written.
    #[error(
        "the evidence would make a statement the specification rules out: {message}{}; fix the evidence file (its integrity and monitor are carried as recorded; schema/evidence.schema.json gives their shapes)",
        .expected_found.as_deref().unwrap_or("")
    )]
    OutOfSpec {
        /// What is wrong, as the verifier says it.
        message: String,
        /// `(expected …, found …)`, when the verifier says.
        expected_found: Option<String>,
    },
}

/// The task verification `p` against the specification's values, by the verifier's own rules
/// (`check::values`): a producer never signs what every verifier refuses.
///
/// # Errors
/// [`BuildError::OutOfSpec`] for the first value out of the specification.
fn within_spec(p: &TaskVerificationV0, verdict: Verdict) -> Result<(), BuildError> {
    let mut findings = Vec::new();
    crate::check::values::task_verification(p, verdict, 0, &mut findings);
    match findings.into_iter().next() {
        None => Ok(()),
        Some(f) => Err(BuildError::OutOfSpec {
            expected_found: match (f.expected, f.found) {
                (Some(e), Some(x)) => Some(format!(" (expected {e}, found {x})")),
                _ => None,
            },
            message: f.message,
        }),
    }
}

impl From<LeakError> for BuildError {
    fn from(e: LeakError) -> Self {
        BuildError::Leak(Box::new(e))
    }
}

impl From<Box<LeakError>> for BuildError {
    fn from(e: Box<LeakError>) -> Self {
        BuildError::Leak(e)
    }
}

impl crate::exit::ExitClass for BuildError {
    fn class(&self) -> crate::exit::Class {
        match self {
            // What leaks comes from the evidence, the spec or a note: the input is to change.
            BuildError::Leak(_) | BuildError::OutOfSpec { .. } => crate::exit::Class::Config,
            BuildError::Encode(..) => crate::exit::Class::Internal,
        }
    }
}

impl BuildError {
    /// The same error, naming `path` as the evidence file when a leaking value came from it.
    #[must_use]
    pub fn in_evidence_file(self, path: &std::path::Path) -> BuildError {
        match self {
            BuildError::Leak(e) => BuildError::from(e.in_evidence_file(path)),
            other => other,
        }
    }
}

/// The lines of a tick (`verified`, `regression_only`): one test-result per phase in running
/// order, the task-verification line, and the summary naming them all.
///
/// # Errors
/// A statement that would leak, naming the line and field.
pub fn tick(
    ctx: &Context<'_>,
    evidence: &Evidence,
    red: Option<Red>,
    resource_uri: &str,
) -> Result<Vec<Line>, BuildError> {
    let mut lines = Vec::new();
    let mut phases: Vec<&PhaseRun> = evidence.phases.iter().collect();
    phases.sort_by_key(|p| p.phase());
    for run in &phases {
        let phase = run.phase();
        let name = format!("{}{}", summary::INPUT_TEST_RESULT_PREFIX, phase.as_str());
        lines.push(line(ctx, Some(evidence), name, test_result::TYPE, &test_result_of(run))?);
    }

    let verdict = evidence.verdict.verdict();
    let mut p = ctx.base_predicate(verdict);
    p.spec = Some(SpecRef { section: ctx.task.section.clone(), section_hash: ctx.task.section_hash.clone() });
    p.audits = Audits {
        trace: Some(trace(ctx, evidence, phases.last().map(|r| r.phase()))),
        integrity: Some(evidence.integrity.clone().unwrap_or_else(|| json!({ "findings": [] }))),
        monitor: Some(evidence.monitor.clone().unwrap_or_else(|| json!({ "state": "off", "findings": [] }))),
        mutation: Some(evidence.mutation.clone().unwrap_or(Value::Null)),
    };
    p.setting = Setting {
        sandbox: Some(evidence.sandbox.clone().unwrap_or(Value::Null)),
        executor: Some(evidence.executor.clone().unwrap_or(Value::Null)),
        model: Some(evidence.model.clone().unwrap_or(Value::Null)),
        run: Some(evidence.run.as_ref().map_or(Value::Null, |id| json!({ "id": id }))),
    };
    p.guidance = Guidance {
        decisions: Some(evidence.decisions.clone().unwrap_or_else(|| json!([]))),
        strength: Some(evidence.strength.clone().unwrap_or(Value::Null)),
        instructions: Some(evidence.instructions.clone().unwrap_or_else(|| json!([]))),
    };
    p.red = red;
    p.regression = evidence.regression.clone().map(Into::into);
    p.collection = evidence.collection.clone().map(Into::into);
    p.bug = evidence.bug.clone();
    p.context = evidence.context.clone();
    p.dependencies = evidence.dependencies.clone();
    within_spec(&p, verdict)?;
    lines.push(line(ctx, Some(evidence), summary::INPUT_TASK_VERIFICATION.to_owned(), predicate::TYPE, &p)?);

    let level = match verdict {
        Verdict::RegressionOnly => summary::LEVEL_REGRESSION_ONLY,
        _ => summary::LEVEL_VERIFIED,
    };
    let s = VerificationSummary {
        verifier: Verifier {
            id: summary::VERIFIER_ID.to_owned(),
            version: Some(BTreeMap::from([("speccoder".to_owned(), env!("CARGO_PKG_VERSION").to_owned())])),
        },
        time_verified: ctx.time.to_owned(),
        resource_uri: resource_uri.to_owned(),
        policy: Reference { uri: summary::POLICY_URI.to_owned(), digest: sha256_map(ctx.policy_sha256) },
        input_attestations: lines
            .iter()
            .map(|l| InputAttestation { name: l.name.clone(), digest: sha256_map(&l.digest()) })
            .collect(),
        verification_result: "PASSED".to_owned(),
        verified_levels: vec![level.to_owned()],
        dependency_levels: None,
        slsa_version: None,
    };
    lines.push(line(ctx, Some(evidence), "summary".to_owned(), summary::TYPE, &s)?);
    Ok(lines)
}

/// The single line of a decision (`attested`, `skipped`): who decided and why, no test evidence.
///
/// # Errors
/// A statement that would leak.
pub fn decision(ctx: &Context<'_>, verdict: Verdict, decider: Decider) -> Result<Vec<Line>, BuildError> {
    let mut p = ctx.base_predicate(verdict);
    p.decider = Some(decider);
    Ok(vec![line(ctx, None, summary::INPUT_TASK_VERIFICATION.to_owned(), predicate::TYPE, &p)?])
}

/// `git+<origin>@<revision>` (an origin already spelled `git+<scheme>://` keeps its one `git+`),
/// or `git:<revision>` when there is no origin to publish: none, a
/// local path or file URL ([`crate::git::strip_credentials`] gives none for those), or a URL that
/// the clean check refuses (`ada@host:/home/ada/app.git`). The summary never blocks on its origin.
/// `revision` is a commit (hex) for a tick; an export names the commits it checked
/// ([`crate::model::held::HeldRange::revision`]: `<head>`, `<base>..<head>`).
#[must_use]
pub fn resource_uri(origin: Option<&str>, revision: &str) -> String {
    let published = |url: &str| {
        let url = url.get(..4).filter(|p| p.eq_ignore_ascii_case("git+")).map_or(url, |_| &url[4..]);
        format!("git+{url}@{revision}")
    };
    match origin.map(published) {
        Some(uri) if clean::check_str(&uri).is_ok() => uri,
        _ => format!("git:{revision}"),
    }
}

/// One statement as canonical bytes, after the clean check; a leak names the origin of the value
/// (from `evidence` when the statement was built from one).
fn line<P: serde::Serialize>(
    ctx: &Context<'_>,
    evidence: Option<&Evidence>,
    name: String,
    predicate_type: &'static str,
    predicate: &P,
) -> Result<Line, BuildError> {
    let statement = Statement::new(ctx.subject(), predicate_type, predicate);
    let value = serde_json::to_value(&statement).map_err(|e| BuildError::Encode(name.clone(), e))?;
    clean::check_value(&value).map_err(|leak| {
        let origin = provenance::of_statement(&name, &leak.pointer, ctx.task, evidence);
        BuildError::from(LeakError { line: name.clone(), leak, origin })
    })?;
    let payload = value_to_canonical(&value);
    Ok(Line { name, predicate_type, payload })
}

fn test_result_of(run: &PhaseRun) -> TestResult {
    let phase = run.phase();
    let descriptor = |digest: &str, annotations| ResourceDescriptor {
        name: phase.configuration_name(),
        digest: sha256_map(digest),
        annotations,
    };
    match run {
        PhaseRun::Baseline(s) | PhaseRun::Green(s) | PhaseRun::Red(RedRun { run: s, .. }) => TestResult {
            result: s.result,
            configuration: vec![descriptor(&sha256_hex(s.configuration.as_bytes()), None)],
            passed_tests: s.passed.clone(),
            failed_tests: s.failed.clone(),
            warned_tests: s.warned.clone(),
        },
        PhaseRun::HeldOut(h) => TestResult {
            result: h.result,
            configuration: vec![descriptor(
                h.manifest.strip_prefix("sha256:").unwrap_or(&h.manifest),
                Some(BTreeMap::from([
                    ("passed".to_owned(), Value::from(h.passed)),
                    ("total".to_owned(), Value::from(h.total)),
                ])),
            )],
            passed_tests: Vec::new(),
            failed_tests: Vec::new(),
            warned_tests: Vec::new(),
        },
    }
}

/// Trace rows: one per requirement the task cites (its title and the lines it wraps onto), one
/// per acceptance test. Each names the phase it was judged in (green when it ran, else the last
/// phase that ran), and none when no phase ran: a row never names a phase that did not run.
fn trace(ctx: &Context<'_>, evidence: &Evidence, last_phase: Option<Phase>) -> Value {
    let phase = if evidence.phases.iter().any(|p| p.phase() == Phase::Green) {
        Some(Phase::Green)
    } else {
        last_phase
    };
    let judged = |mut row: Value, result: &str| {
        if let Some(phase) = phase {
            row["phase"] = json!(phase.as_str());
        }
        row["result"] = json!(result);
        row
    };
    let mut rows: Vec<Value> = ctx
        .task
        .requirements
        .iter()
        .map(|r| {
            judged(json!({ "requirement": r.id, "requirement_hash": r.hash }), evidence.verdict.as_str())
        })
        .collect();
    for a in &evidence.acceptance {
        let requirement = ctx
            .task
            .section
            .clone()
            .unwrap_or_else(|| a.scenario.split('.').next().unwrap_or(&a.scenario).to_owned());
        rows.push(judged(
            json!({ "requirement": requirement, "scenario": a.scenario, "test": a.test }),
            &a.result,
        ));
    }
    Value::Array(rows)
}

#[cfg(test)]
mod tests {
    use super::resource_uri;
    use crate::git::strip_credentials;

    /// The trace rows of a tick of T005 of the Spec Kit fixture, with the fixture's evidence
    /// edited by `edit`.
    fn trace_of(edit: impl FnOnce(&mut serde_json::Value)) -> Vec<serde_json::Value> {
        let tree = crate::spec::MemTree::from_files([
            (
                "specs/001-bookmark-tags/tasks.md",
                include_str!("../../fixtures/speckit/specs/001-bookmark-tags/tasks.md").to_owned(),
            ),
            (
                "specs/001-bookmark-tags/spec.md",
                include_str!("../../fixtures/speckit/specs/001-bookmark-tags/spec.md").to_owned(),
            ),
        ])
        .unwrap();
        let task = crate::spec::read_task(&tree, "001-bookmark-tags", "T005").unwrap();
        let mut value: serde_json::Value =
            serde_json::from_str(include_str!("../../fixtures/evidence/verified.json")).unwrap();
        edit(&mut value);
        let evidence: crate::model::evidence::Evidence = serde_json::from_value(value).unwrap();
        let ctx = super::Context {
            task: &task,
            commit: &"a".repeat(40),
            commit_sha256: &"d".repeat(64),
            tree: &"b".repeat(40),
            policy_sha256: &"c".repeat(64),
            time: "2026-12-01T10:00:00Z",
        };
        let phases: Vec<_> = evidence.phases.iter().map(|p| p.phase()).max().into_iter().collect();
        super::trace(&ctx, &evidence, phases.last().copied()).as_array().unwrap().clone()
    }

    #[test]
    fn a_trace_row_names_no_phase_when_no_phase_ran() {
        let rows = trace_of(|v| {
            v["verdict"] = serde_json::json!("regression_only");
            v["regression"] = serde_json::json!({ "code": "no_behaviour", "detail": "a refactor" });
            v["phases"] = serde_json::json!([]);
            v["acceptance"][0]["result"] = serde_json::json!("regression_only");
        });
        assert!(rows.len() >= 2, "{rows:?}");
        for row in &rows {
            assert!(row.get("phase").is_none(), "{row}");
            assert_eq!(row["result"], "regression_only", "{row}");
        }
    }

    #[test]
    fn a_trace_row_names_green_when_it_ran_and_else_the_last_phase_that_ran() {
        assert!(trace_of(|_| {}).iter().all(|row| row["phase"] == "green"));
        let rows = trace_of(|v| {
            v["verdict"] = serde_json::json!("regression_only");
            v["regression"] = serde_json::json!({ "code": "already_passing", "detail": "d" });
            v["phases"] = serde_json::json!([v["phases"][0].clone()]);
        });
        assert!(rows.iter().all(|row| row["phase"] == "baseline"), "{rows:?}");
    }

    #[test]
    fn the_resource_uri_names_a_published_origin_and_never_a_local_path_or_a_credential() {
        let c = "0123456789abcdef0123456789abcdef01234567";
        let uri = |remote: &str| resource_uri(strip_credentials(remote).as_deref(), c);
        assert_eq!(resource_uri(None, c), format!("git:{c}"));
        assert_eq!(
            uri("https://github.com/acme/app.git"),
            format!("git+https://github.com/acme/app.git@{c}")
        );
        assert_eq!(
            uri("https://ada:pw@github.com/acme/app.git"),
            format!("git+https://github.com/acme/app.git@{c}")
        );
        assert_eq!(
            uri("https://gl.example.com/g/p.git?private_token=x"),
            format!("git+https://gl.example.com/g/p.git@{c}")
        );
        // An scp-like origin is named by the `ssh://` URL git reads it as: a URI, as a
        // resourceUri must be, whose revision a verifier reads after the last `@` as before.
        let scp = uri("git@github.com:acme/app.git");
        assert_eq!(scp, format!("git+ssh://git@github.com/acme/app.git@{c}"));
        let spelled = resource_uri(Some("git+ssh://git@github.com/acme/app.git"), c);
        assert_eq!(spelled, format!("git+ssh://git@github.com/acme/app.git@{c}"), "one git+, never two");
        assert_eq!(crate::model::summary::resource_revision(&scp), Some(c));
        for local in [
            "/home/ada/src/app",
            "/srv/git/app.git",
            "../app",
            "file:///srv/git/app.git",
            "C:\\repos\\app",
            "ada@build:/home/ada/app.git",
            "ssh://ada@build/Users/ada/app.git",
            "https://example.com/ghp_0123456789abcdefghijABCDEFGHIJ012345/app.git",
        ] {
            assert_eq!(uri(local), format!("git:{c}"), "{local}");
        }
    }

    #[test]
    fn an_export_of_part_of_the_history_names_its_base_and_head_and_never_the_head_alone() {
        use crate::model::held::{HeldRange, History};
        let (head, base) =
            ("0123456789abcdef0123456789abcdef01234567", "89abcdef0123456789abcdef0123456789abcdef");
        let origin = strip_credentials("https://ada:pw@github.com/acme/app.git");
        let uri = |history| {
            let held = HeldRange { head: head.to_owned(), history, ticks: Vec::new(), policy: None };
            (resource_uri(origin.as_deref(), &held.revision()), resource_uri(None, &held.revision()))
        };
        let published = "git+https://github.com/acme/app.git";
        let (range, local) = uri(History::Since(base.to_owned()));
        assert_eq!(range, format!("{published}@{base}..{head}"));
        assert_eq!(local, format!("git:{base}..{head}"));
        assert_eq!(uri(History::Whole), (format!("{published}@{head}"), format!("git:{head}")));
        // Two commit ids side by side pass the clean check the summary's strings pass.
        assert!(
            crate::model::clean::check_str(&range).is_ok() && crate::model::clean::check_str(&local).is_ok()
        );
    }
}
