//! Builds a synthetic Spec Kit repository with N signed ticks, for `benches/verify.sh`.
//!
//! ```text
//! cargo run --release --example bench_synth -- --ticks 1000 [--units U] --out DIR [--no-pack]
//! ```
//!
//! An example, not a shipped binary: `cargo install` and the release binary never contain it.
//! `DIR` must not exist yet; the run leaves in it:
//!
//! - `repo/`: a git repository whose branch `main` holds U units `specs/NNNN-bench-unit/` (by
//!   default `ceil(N / 10)`; each with spec.md of 2 user stories and K functional requirements and
//!   tasks.md of K tasks, K = `ceil(N / U)`), each added by one commit and then ticked task by
//!   task, one task commit per tick (N in all), each with its signed 5-line bundle (baseline, red and green
//!   test results, task-verification, summary) as its note in `refs/notes/speccoder`;
//! - `key`, `key.pub`: the ed25519 key made for this run with `ssh-keygen`;
//! - `allowed_signers`: the trust a verifier needs (`bench@example.com namespaces="in-toto" <key>`).
//!
//! The bundles are made by the library exactly as `speccoder attest` makes them: the task is read
//! from the commit's tree with `spec::read_task`, ticked with `spec::tick`, the message rendered by
//! `attest::message`, the statements built by `attest::statements::tick` from an evidence file's
//! content, each envelope signed in-process by `SshSigner` over its DSSE PAE. Only the plumbing
//! around them is faster than the command's: the pipeline writes the index, the work tree, the
//! branch and one notes commit per tick; here the trees are written straight into the object
//! database (only the changed levels), the branch moves once at the end, and every note goes into
//! one notes commit (`Repo::set_notes`). Unless `--no-pack` is given, `git gc` packs the result,
//! as a repository that was cloned or has lived a while is packed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use gix::objs::tree::{Entry, EntryKind};
use serde_json::json;
use speccoder_attest::attest::config::read_policy;
use speccoder_attest::attest::message::{self, MessageFields, keys};
use speccoder_attest::attest::now_rfc3339;
use speccoder_attest::attest::signing::sign_envelope;
use speccoder_attest::attest::statements::{self, Context};
use speccoder_attest::git::{ObjectId, Repo};
use speccoder_attest::model::bundle::{self, NOTES_REF};
use speccoder_attest::model::dsse::Envelope;
use speccoder_attest::model::evidence::Evidence;
use speccoder_attest::model::predicate::RedKind;
use speccoder_attest::model::red::red_from_output;
use speccoder_attest::sign::ssh::SshSigner;
use speccoder_attest::spec;

/// Tasks per unit without `--units`: every unit's files stay the same small size whatever N is.
const TASKS_PER_UNIT: usize = 10;
/// The identity of the commits and the principal of the key.
const PRINCIPAL: &str = "bench@example.com";
/// The judge configuration at every parent commit, in a shape the published speccoder reads too,
/// so that its verifier can be timed on the same repository.
const SPECCODER_TOML: &str = "# Judge configuration of the synthetic benchmark project.\n\
[checks.lint]\nargv = [\"cargo\", \"clippy\", \"--\", \"-D\", \"warnings\"]\n\n\
[checks.test]\nargv = [\"cargo\", \"test\"]\n\n[acceptance]\nheld_out = false\n\n[attest]\nsigner = \"git\"\n";

type Error = Box<dyn std::error::Error>;

/// What to generate (the command line's `--ticks`, `--units`, `--out`, `--no-pack`).
pub struct Args {
    /// How many ticks.
    pub ticks: usize,
    /// How many units the ticks are spread over; `None`: one unit per [`TASKS_PER_UNIT`] ticks.
    pub units: Option<usize>,
    /// The directory to create.
    pub out: PathBuf,
    /// Pack the result with `git gc`.
    pub pack: bool,
}

fn parse_args() -> Result<Args, Error> {
    let mut ticks = None;
    let mut units = None;
    let mut out = None;
    let mut pack = true;
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--ticks" => ticks = Some(it.next().ok_or("--ticks needs a number")?.parse::<usize>()?),
            "--units" => units = Some(it.next().ok_or("--units needs a number")?.parse::<usize>()?),
            "--out" => out = Some(PathBuf::from(it.next().ok_or("--out needs a directory")?)),
            "--no-pack" => pack = false,
            "-h" | "--help" => {
                println!("usage: bench_synth --ticks N [--units U] --out DIR [--no-pack]");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument `{other}` (see --help)").into()),
        }
    }
    let ticks = ticks.ok_or("--ticks N is required")?;
    if ticks == 0 {
        return Err("--ticks must be at least 1".into());
    }
    if units.is_some_and(|u| u == 0 || u > ticks) {
        return Err("--units must be between 1 and the number of ticks".into());
    }
    Ok(Args { ticks, units, out: out.ok_or("--out DIR is required")?, pack })
}

fn main() {
    if let Err(e) = run() {
        eprintln!("bench_synth: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Error> {
    println!("{}", generate(&parse_args()?)?);
    Ok(())
}

/// Generates the repository `args` describes and returns the summary line `main` prints. Also
/// called in-process by `tests/e2e/verify_parallel.rs`, which includes this file as a module.
pub fn generate(args: &Args) -> Result<String, Error> {
    if args.out.exists() {
        return Err(format!("{} exists already; give a new directory", args.out.display()).into());
    }
    let started = Instant::now();
    std::fs::create_dir_all(&args.out)?;
    let repo_dir = args.out.join("repo");
    git(&args.out, &["init", "-q", "-b", "main", "repo"])?;
    for (key, value) in [
        ("user.name", "Bench Person"),
        ("user.email", PRINCIPAL),
        ("commit.gpgsign", "false"),
        ("gc.auto", "0"),
    ] {
        git(&repo_dir, &["config", key, value])?;
    }

    let key = args.out.join("key");
    let status = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", PRINCIPAL, "-f"])
        .arg(&key)
        .status()?;
    if !status.success() {
        return Err(format!("ssh-keygen could not make a key ({status})").into());
    }
    let public = std::fs::read_to_string(args.out.join("key.pub"))?;
    let allowed = args.out.join("allowed_signers");
    std::fs::write(&allowed, format!("{PRINCIPAL} namespaces=\"in-toto\" {}\n", public.trim()))?;
    let signer = SshSigner::from_key_path(&key)?;
    if !signer.signs_in_process() {
        return Err("the run's ed25519 key does not sign in-process".into());
    }

    let repo = Repo::discover(&repo_dir)?;
    let objects = Objects { repo: gix::open(&repo_dir)? };
    let units = args.units.unwrap_or_else(|| args.ticks.div_ceil(TASKS_PER_UNIT));
    let per_unit = args.ticks.div_ceil(units);
    let width = units.to_string().len().max(4);

    // The project before any unit: a README, the judge configuration, and Spec Kit's `.specify/`
    // (by which the published speccoder knows a Spec Kit project).
    let mut root: BTreeMap<String, (EntryKind, ObjectId)> = BTreeMap::new();
    let memory = BTreeMap::from([(
        "constitution.md".to_owned(),
        (EntryKind::Blob, objects.blob(b"# Bench project constitution\n")?),
    )]);
    let specify = BTreeMap::from([("memory".to_owned(), (EntryKind::Tree, objects.tree(&memory)?))]);
    root.insert(".specify".into(), (EntryKind::Tree, objects.tree(&specify)?));
    root.insert(
        "README.md".into(),
        (EntryKind::Blob, objects.blob(b"# Bench project\n\nA synthetic project for benchmarks.\n")?),
    );
    root.insert("speccoder.toml".into(), (EntryKind::Blob, objects.blob(SPECCODER_TOML.as_bytes())?));
    let mut specs: BTreeMap<String, (EntryKind, ObjectId)> = BTreeMap::new();
    let tree = objects.tree(&root)?;
    let first = repo.create_commit_detached(&[], tree, "Start the bench project\n")?;
    let mut head = first;
    let (policy_sha256, _) = read_policy(&repo, first)?;
    let time = now_rfc3339();
    let origin = repo.origin_url_without_credentials();

    let mut notes: Vec<(ObjectId, Vec<u8>)> = Vec::with_capacity(args.ticks);
    let mut ticked = 0;
    for u in 1..=units {
        let unit = format!("{u:0width$}-bench-unit");
        let spec_md = spec_md(&unit, per_unit);
        let mut tasks_md = tasks_md(&unit, per_unit).into_bytes();
        let spec_blob = objects.blob(spec_md.as_bytes())?;
        let unit_tree = |tasks_blob: ObjectId| {
            objects.tree(&BTreeMap::from([
                ("spec.md".to_owned(), (EntryKind::Blob, spec_blob)),
                ("tasks.md".to_owned(), (EntryKind::Blob, tasks_blob)),
            ]))
        };
        let mut commit_tree = |unit_tree: ObjectId| -> Result<ObjectId, Error> {
            specs.insert(unit.clone(), (EntryKind::Tree, unit_tree));
            root.insert("specs".into(), (EntryKind::Tree, objects.tree(&specs)?));
            objects.tree(&root)
        };
        let tree = commit_tree(unit_tree(objects.blob(&tasks_md)?)?)?;
        head = repo.create_commit_detached(&[head], tree, &format!("Add the spec and tasks of {unit}\n"))?;

        for t in 1..=per_unit {
            if ticked == args.ticks {
                break;
            }
            let task = format!("T{t:03}");
            let target = format!("{unit}/{task}");
            // As the pipeline does: read the task from the tree being committed on, tick it there.
            let parent_tree = repo.commit_tree(head)?;
            let facts = spec::read_task(&repo.tree(parent_tree), &unit, &task)?;
            tasks_md = spec::tick(&tasks_md, facts.line_index, facts.format)?;
            let tree = commit_tree(unit_tree(objects.blob(&tasks_md)?)?)?;

            let run_id = format!("bench-{u}-{t}");
            let msg = message::render(&MessageFields {
                unit: facts.unit.clone(),
                task: facts.id.clone(),
                title: facts.title.clone(),
                verdict: "verified".into(),
                trailers: vec![(keys::HELD_OUT, "off".into()), (keys::RUN, run_id.clone())],
            })?;
            let commit = repo.create_commit_detached(&[head], tree, &msg)?;

            let evidence = evidence(&target, &run_id, t, per_unit)?;
            let red_output = red_output(&unit, t);
            let red = red_from_output(RedKind::Assertion, red_output.as_bytes());
            let commit_hex = commit.to_string();
            let commit_sha256 = speccoder_attest::attest::commit_object_sha256(&repo, commit)?;
            let tree_hex = tree.to_string();
            let ctx = Context {
                task: &facts,
                commit: &commit_hex,
                commit_sha256: &commit_sha256,
                tree: &tree_hex,
                policy_sha256: &policy_sha256,
                time: &time,
            };
            let lines = statements::tick(
                &ctx,
                &evidence,
                Some(red),
                &statements::resource_uri(origin.as_deref(), &commit_hex),
            )?;
            let mut envelopes = Vec::with_capacity(lines.len());
            for line in lines {
                let mut envelope = Envelope::unsigned(line.payload);
                sign_envelope(&mut envelope, &signer)?;
                envelopes.push(envelope.to_line());
            }
            notes.push((commit, bundle::join(&envelopes)));
            head = commit;
            ticked += 1;
        }
    }

    repo.update_ref_cas("refs/heads/main", None, head, "bench_synth: the synthetic history")?;
    repo.set_notes(NOTES_REF, &notes)?;
    drop(notes);
    let generated = started.elapsed();
    git(&repo_dir, &["reset", "-q", "--hard"])?;
    if args.pack {
        git(&repo_dir, &["gc", "-q"])?;
    }
    Ok(format!(
        "ticks={} units={units} repo={} allowed_signers={} generate_seconds={:.2} total_seconds={:.2} packed={}",
        args.ticks,
        repo_dir.display(),
        allowed.display(),
        generated.as_secs_f64(),
        started.elapsed().as_secs_f64(),
        args.pack,
    ))
}

/// Writes blobs and trees straight into the object database.
struct Objects {
    repo: gix::Repository,
}

impl Objects {
    fn blob(&self, bytes: &[u8]) -> Result<ObjectId, Error> {
        Ok(self.repo.write_blob(bytes)?.detach())
    }

    fn tree(&self, entries: &BTreeMap<String, (EntryKind, ObjectId)>) -> Result<ObjectId, Error> {
        let mut entries: Vec<Entry> = entries
            .iter()
            .map(|(name, (kind, id))| Entry {
                mode: (*kind).into(),
                filename: name.as_str().into(),
                oid: *id,
            })
            .collect();
        entries.sort();
        Ok(self.repo.write_object(&gix::objs::Tree { entries })?.detach())
    }
}

/// Runs git in `dir`; a failure is an error naming the command.
fn git(dir: &Path, args: &[&str]) -> Result<(), Error> {
    let out = Command::new("git").current_dir(dir).args(args).output()?;
    if !out.status.success() {
        return Err(format!("git {} failed: {}", args.join(" "), String::from_utf8_lossy(&out.stderr)).into());
    }
    Ok(())
}

/// A Spec Kit spec.md: two user stories with acceptance scenarios, `requirements` functional
/// requirements, two success criteria.
fn spec_md(unit: &str, requirements: usize) -> String {
    let mut s = format!(
        "# Feature Specification: Bench {unit}\n\n**Feature Branch**: `{unit}`\n**Status**: Draft\n\n\
         ## User Scenarios & Testing *(mandatory)*\n\n"
    );
    for (story, what) in [(1, "Record an entry"), (2, "Review the entries")] {
        s.push_str(&format!(
            "### User Story {story} - {what} (Priority: P{story})\n\n\
             A user of {unit} wants to {lower} without losing earlier work.\n\n\
             **Why this priority**: story {story} of the unit.\n\n\
             **Independent Test**: {what} once and reload; the result is still there.\n\n\
             **Acceptance Scenarios**:\n\n\
             1. **Given** an empty list, **When** the user acts, **Then** one entry is shown.\n\
             2. **Given** one entry, **When** the user acts again, **Then** two entries are shown.\n\n---\n\n",
            lower = what.to_lowercase(),
        ));
    }
    s.push_str("## Requirements *(mandatory)*\n\n### Functional Requirements\n\n");
    for r in 1..=requirements {
        s.push_str(&format!("- **FR-{r:03}**: System MUST handle case {r} of {unit}.\n"));
    }
    s.push_str(
        "\n## Success Criteria *(mandatory)*\n\n### Measurable Outcomes\n\n\
         - **SC-001**: A user records an entry in under 5 seconds.\n\
         - **SC-002**: A user reviews 100 entries in under 2 seconds.\n",
    );
    s
}

/// A Spec Kit tasks.md: `tasks` unticked tasks, the first half under story 1, the rest under
/// story 2; task `Tnnn` cites `FR-nnn`.
fn tasks_md(unit: &str, tasks: usize) -> String {
    let mut s = format!(
        "# Tasks: Bench {unit}\n\n**Input**: Design documents from `/specs/{unit}/`\n\n\
         ## Phase 1: User Story 1 - Record an entry (Priority: P1)\n\n"
    );
    for t in 1..=tasks {
        if t == tasks / 2 + 1 {
            s.push_str("\n## Phase 2: User Story 2 - Review the entries (Priority: P2)\n\n");
        }
        let story = if t <= tasks / 2 { 1 } else { 2 };
        let parallel = if t % 3 == 0 { "[P] " } else { "" };
        s.push_str(&format!(
            "- [ ] T{t:03} {parallel}[US{story}] Implement case {t} in src/case_{t}.rs (FR-{t:03})\n"
        ));
    }
    s
}

/// The evidence a runner would hand over for one verified task: baseline, red and green.
fn evidence(target: &str, run_id: &str, t: usize, tasks: usize) -> Result<Evidence, Error> {
    let test = format!("tests/case_{t}.rs");
    let story = if t <= tasks / 2 { 1 } else { 2 };
    let value = json!({
        "task": target,
        "run": run_id,
        "verdict": "verified",
        "phases": [
            { "phase": "baseline", "result": "PASSED", "configuration": "cargo test", "passed": ["unit::lists"] },
            { "phase": "red", "result": "FAILED", "configuration": format!("cargo test --test case_{t}"),
              "failed": [test], "kind": "assertion", "output": "red.log" },
            { "phase": "green", "result": "PASSED", "configuration": "cargo test", "passed": [test, "unit::lists"] }
        ],
        "acceptance": [ { "scenario": format!("US{story}.1"), "test": test, "result": "verified" } ],
        "integrity": { "findings": [] },
        "monitor": { "state": "clean", "findings": [] },
        "mutation": { "caught": 9, "missed": 1 },
        "sandbox": { "mode": "off" },
        "executor": { "kind": "agent", "agent": "bench" },
        "decisions": [],
        "instructions": []
    });
    let evidence: Evidence = serde_json::from_value(value)?;
    evidence.check_rules()?;
    Ok(evidence)
}

/// What the red run printed: a failing assertion, as cargo test shows it.
fn red_output(unit: &str, t: usize) -> String {
    format!(
        "running 1 test\ntest case_{t}::records_an_entry ... FAILED\n\nfailures:\n\n\
         ---- case_{t}::records_an_entry stdout ----\n\
         thread 'case_{t}::records_an_entry' panicked at tests/case_{t}.rs:12:5:\n\
         assertion `left == right` failed ({unit})\n  left: 0\n right: 1\n\n\
         failures:\n    case_{t}::records_an_entry\n\n\
         test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out\n"
    )
}
