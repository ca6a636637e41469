//! Every reader of untrusted input, fed mutated copies of real input: bytes replaced, inserted and
//! removed (often by the characters the format gives meaning to), lines repeated, the end cut off.
//! Each reader must return a well-formed value (checked against the input it came from) or a typed
//! error with a message, never panic; a signature whose bytes were changed must never verify; a mutated armored SSH signature verifies here exactly when `ssh-keygen -Y
//! verify` accepts it; and a mutated OpenPGP signature that verifies here verifies with `sqv`.
//!
//! The seeds are real: a note `speccoder attest` wrote (six signed envelopes), its task commit's
//! message, the Spec Kit fixture's `tasks.md` and `spec.md`, an allowed-signers file, a
//! `speccoder.toml`, a held-out manifest and an OpenSpec schema in the shape of openspec's own. proptest shrinks a failure to its fewest edits and
//! prints them.

use crate::common;

use std::path::Path;
use std::sync::LazyLock;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use proptest::prelude::*;
use serde_json::Value;
use speccoder_attest::attest::remote_signatures::RemoteSignatures;
use speccoder_attest::check::line::{ReadLine, read_line};
use speccoder_attest::check::outcome::{CommitOutcome, Finding};
use speccoder_attest::check::trust::SignatureTrust;
use speccoder_attest::model::held_out::HeldOutManifest;
use speccoder_attest::model::policy::{JudgeConfig, policy_sha256};
use speccoder_attest::model::{bundle, dsse};
use speccoder_attest::sign::ssh::allowed_signers::{AllowedSigners, AllowedSignersError};
use speccoder_attest::sign::ssh::revoked_keys::{RevokedKeys, RevokedKeysError};
use speccoder_attest::sign::ssh::verify;
use speccoder_attest::spec::{self, MemTree, SpecError, TaskFacts};

const UNIT: &str = common::SPECKIT_UNIT;

/// One edit of a byte string; positions wrap around its length.
#[derive(Debug, Clone)]
enum Edit {
    Replace(usize, u8),
    Insert(usize, u8),
    Remove(usize),
    /// Repeats the `n` bytes from the position (a line or a field given twice).
    Repeat(usize, usize),
    /// Cuts the rest off from the position.
    Cut(usize),
}

/// A byte, most often one that JSON, Markdown, TOML, trailers or base64 give meaning to.
fn byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        3 => prop::sample::select(b"\"\\{}[]:,\n\r \t-*+xX0123456789#`<>!=/.%&\x00\x7f\xc3\xa9\xff".to_vec()),
        1 => any::<u8>(),
    ]
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    let edit = prop_oneof![
        4 => (any::<usize>(), byte()).prop_map(|(at, b)| Edit::Replace(at, b)),
        3 => (any::<usize>(), byte()).prop_map(|(at, b)| Edit::Insert(at, b)),
        3 => any::<usize>().prop_map(Edit::Remove),
        1 => (any::<usize>(), 1..200usize).prop_map(|(at, n)| Edit::Repeat(at, n)),
        1 => any::<usize>().prop_map(Edit::Cut),
    ];
    prop::collection::vec(edit, 1..6)
}

/// `seed` with `edits` applied in order.
fn mutate(seed: &[u8], edits: &[Edit]) -> Vec<u8> {
    let mut out = seed.to_vec();
    for edit in edits {
        let at = |i: usize, len: usize| if len == 0 { 0 } else { i % len };
        match *edit {
            Edit::Replace(i, b) if !out.is_empty() => {
                let i = at(i, out.len());
                out[i] = b;
            }
            Edit::Insert(i, b) => out.insert(at(i, out.len() + 1), b),
            Edit::Remove(i) if !out.is_empty() => {
                out.remove(at(i, out.len()));
            }
            Edit::Repeat(i, n) if !out.is_empty() => {
                let i = at(i, out.len());
                let copy = out[i..(i + n).min(out.len())].to_vec();
                out.splice(i..i, copy);
            }
            Edit::Cut(i) => out.truncate(at(i, out.len() + 1)),
            _ => {}
        }
    }
    out
}

/// What the readers are fed: a real note and the files around it.
struct Seeds {
    /// The note `speccoder attest` wrote for T005 (six envelopes, JSON Lines).
    note: Vec<u8>,
    /// The task commit's message, trailers included.
    message: Vec<u8>,
    /// The allowed-signers file that trusts the note's key.
    allowed: Vec<u8>,
    tasks_md: Vec<u8>,
    spec_md: Vec<u8>,
}

static SEEDS: LazyLock<Seeds> = LazyLock::new(|| {
    let p = common::Project::speckit();
    let key = common::ed25519(&p.scratch, "ada");
    let target = format!("{UNIT}/T005");
    let evidence = common::write_evidence(&p.scratch_dir("evidence"), &target, common::Evidence::WithHeldOut);
    p.attest(&target, &evidence, &["--key", key.private.to_str().unwrap()]).success();
    let allowed = format!(
        concat!(
            "# the team\n",
            "{} namespaces=\"in-toto\",valid-after=\"20260101\" {}\n",
            "*@example.com,!bob@example.com cert-authority {}\n",
        ),
        common::PRINCIPAL,
        key.public_line,
        key.public_line
    );
    let fixture = common::crate_root().join("fixtures/speckit/specs").join(UNIT);
    Seeds {
        note: p.note("HEAD").expect("the attest wrote a note"),
        message: p.git_bytes(&["log", "-1", "--format=%B", "HEAD"]),
        allowed: allowed.into_bytes(),
        tasks_md: std::fs::read(fixture.join("tasks.md")).unwrap(),
        spec_md: std::fs::read(fixture.join("spec.md")).unwrap(),
    }
});

/// A project-local OpenSpec schema in the shape of openspec's own `spec-driven` (its block
/// scalars, flow lists and quoted globs), an anchor and an alias added, its tasks tracked in
/// `checklist.md`.
const OPENSPEC_SCHEMA: &str = r#"name: custom
version: 1
description: Default OpenSpec workflow - proposal → specs → design → tasks
artifacts:
  - id: proposal
    generates: proposal.md
    description: Initial proposal document outlining the change
    template: proposal.md
    instruction: |
      Create the proposal document that establishes WHY this change is needed.
      - **Why**: 1-2 sentences on the problem or opportunity.
    requires: &none []
  - id: specs
    generates: "specs/**/*.md"
    description: Detailed specifications for the change
    template: spec.md
    requires: [proposal]
  - id: tasks
    generates: checklist.md
    description: 'Implementation checklist: "- [ ] 1.1"'
    template: tasks.md
    requires:
      - specs
apply:
  requires: [tasks]
  tracks: checklist.md
  instruction: >
    Read context files, work through pending tasks, mark complete as you go.
extra: *none
"#;

/// The note's envelopes as JSON values.
fn envelopes() -> Vec<Value> {
    bundle::split(&SEEDS.note).into_iter().map(|line| serde_json::from_slice(line).unwrap()).collect()
}

/// The armored SSH signature of an envelope.
fn armored_sig(envelope: &Value) -> Vec<u8> {
    let sig = envelope["signatures"][0]["sig"].as_str().unwrap();
    let bytes = STANDARD.decode(sig).unwrap();
    assert!(bytes.starts_with(b"-----BEGIN SSH SIGNATURE-----"), "an armored SSHSIG");
    bytes
}

/// The binary SSHSIG blob inside an armored signature.
fn sshsig_blob(armored: &[u8]) -> Vec<u8> {
    let text = std::str::from_utf8(armored).unwrap();
    let body: String = text.lines().filter(|l| !l.starts_with("-----")).collect();
    STANDARD.decode(body).unwrap()
}

/// `blob` armored as ssh-keygen armors it (70 columns).
fn armor(blob: &[u8]) -> Vec<u8> {
    let body = STANDARD.encode(blob);
    let mut out = String::from("-----BEGIN SSH SIGNATURE-----\n");
    for chunk in body.as_bytes().chunks(70) {
        out.push_str(std::str::from_utf8(chunk).unwrap());
        out.push('\n');
    }
    out.push_str("-----END SSH SIGNATURE-----\n");
    out.into_bytes()
}

/// A Spec Kit tree holding the fixture unit with `tasks.md` and `spec.md` as given.
fn tree(tasks_md: &[u8], spec_md: &[u8]) -> MemTree {
    let dir = format!("specs/{UNIT}");
    MemTree::from_files([
        (format!("{dir}/tasks.md"), tasks_md.to_vec()),
        (format!("{dir}/spec.md"), spec_md.to_vec()),
    ])
    .unwrap()
}

/// Checks what [`read_line`] made of note line `number`: a line read is the envelope the raw
/// line parses to, of in-toto's payload type, named by its payload's sha256; a line refused is one
/// `malformed` finding about this line, with a code and a message.
fn check_read_line(number: usize, raw: &[u8], read: &Result<ReadLine, Finding>) -> Result<(), TestCaseError> {
    match read {
        Ok(line) => {
            prop_assert_eq!(line.number, number);
            let envelope = dsse::Envelope::parse(raw).ok();
            prop_assert_eq!(Some(&line.envelope), envelope.as_ref());
            prop_assert_eq!(line.envelope.payload_type.as_str(), dsse::PAYLOAD_TYPE);
            prop_assert_eq!(&line.payload_sha256, &common::sha256(&line.envelope.payload));
        }
        Err(finding) => {
            prop_assert_eq!(finding.outcome, CommitOutcome::Malformed);
            prop_assert_eq!(finding.line, Some(number));
            prop_assert!(!finding.code.is_empty() && !finding.message.is_empty(), "{:?}", finding);
        }
    }
    Ok(())
}

/// The lines of a task list as CommonMark splits them ([`commonmark_lines`]), the first without a
/// byte order mark: how a task's `line_index` counts.
fn task_list_lines(text: &str) -> Vec<&str> {
    commonmark_lines(text.strip_prefix('\u{feff}').unwrap_or(text))
}

/// The lines of `text` as CommonMark splits them: at `\n`, `\r\n` or a lone `\r`.
fn commonmark_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(['\n', '\r']) {
        lines.push(&rest[..at]);
        let skip = if rest[at..].starts_with("\r\n") { 2 } else { 1 };
        rest = &rest[at + skip..];
    }
    lines.push(rest);
    lines
}

/// Checks a task the reader found in `tasks_md`: it is task `id` of the Spec Kit unit, its line is
/// the task list's line at its index, that line parses as this task (box, labels, title), and its
/// `line_hash` is the line's with every ticked box read open, as the specification says.
fn check_task(facts: &TaskFacts, id: &str, tasks_md: &[u8]) -> Result<(), TestCaseError> {
    prop_assert_eq!((facts.unit.as_str(), facts.id.as_str()), (UNIT, id));
    prop_assert_eq!(facts.format, spec::Format::SpecKit);
    prop_assert_eq!(&facts.tasks_path, &format!("specs/{UNIT}/tasks.md"));
    let text = std::str::from_utf8(tasks_md);
    prop_assert!(text.is_ok(), "a task read from a task list that is not UTF-8");
    let lines = task_list_lines(text.unwrap());
    prop_assert_eq!(lines.get(facts.line_index).copied(), Some(facts.line.as_str()));
    let parsed = spec::parse_task_line(spec::Format::SpecKit, &facts.line);
    prop_assert!(parsed.is_some(), "{:?} does not parse as a task line", facts.line);
    let parsed = parsed.unwrap();
    prop_assert_eq!(
        (parsed.id, parsed.ticked, parsed.parallel, parsed.story, parsed.title),
        (id, facts.ticked, facts.parallel, facts.story.as_deref(), facts.title.as_str())
    );
    let open = facts.line.replace("[x]", "[ ]").replace("[X]", "[ ]");
    prop_assert_eq!(&facts.line_hash, &common::sha256(open.as_bytes()));
    Ok(())
}

/// Checks a refusal: a typed error whose message says something.
fn check_refusal(error: &SpecError) -> Result<(), TestCaseError> {
    prop_assert!(!error.to_string().trim().is_empty(), "an error without a message: {:?}", error);
    Ok(())
}

/// Cases per reader: `MUTATION_CASES`, default 600 (a longer hunt: `MUTATION_CASES=100000`).
fn cases() -> u32 {
    std::env::var("MUTATION_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(600)
}

fn config() -> ProptestConfig {
    ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config())]

    /// Each line of a mutated note is read into a line or a finding about it; merged with the
    /// note as written, either way round, it is the written note's statements in the first one's
    /// order, every line an envelope, or a conflict that says why.
    #[test]
    fn a_mutated_note_is_read_line_by_line_into_values_or_findings(edits in edits()) {
        let note = mutate(&SEEDS.note, &edits);
        for (i, line) in bundle::split(&note).into_iter().enumerate() {
            check_read_line(i + 1, line, &read_line(i + 1, line))?;
        }
        let statements = |bundle: &[u8]| -> Option<Vec<(Vec<u8>, String)>> {
            bundle::split(bundle)
                .into_iter()
                .map(|line| dsse::Envelope::parse(line).ok().map(|e| (e.payload, e.payload_type)))
                .collect()
        };
        let (trust, now) = (SignatureTrust::default(), time::OffsetDateTime::now_utc());
        let check = RemoteSignatures { trust: &trust, now, at: now };
        for (ours, theirs) in [(&note, &SEEDS.note), (&SEEDS.note, &note)] {
            match bundle::merge(ours, theirs, &check) {
                Ok(merged) => {
                    let merged = statements(&merged);
                    prop_assert!(merged.is_some(), "a merged line is not an envelope");
                    prop_assert_eq!(merged, statements(ours));
                }
                Err(conflict) => prop_assert!(!conflict.to_string().is_empty()),
            }
        }
    }

    #[test]
    fn a_mutated_statement_in_a_well_formed_envelope_is_a_value_or_a_finding(
        which in 0..6usize,
        edits in edits(),
    ) {
        let mut envelope = envelopes()[which].clone();
        let payload = STANDARD.decode(envelope["payload"].as_str().unwrap()).unwrap();
        envelope["payload"] = Value::String(STANDARD.encode(mutate(&payload, &edits)));
        let line = serde_json::to_vec(&envelope).unwrap();
        let parsed = dsse::Envelope::parse(&line);
        prop_assert!(parsed.as_ref().is_ok_and(|e| e.payload == mutate(&payload, &edits)), "{:?}", parsed);
        let read = read_line(1, &line);
        check_read_line(1, &line, &read)?;
        if let Ok(read) = read {
            let statement: Value = serde_json::from_slice(&read.envelope.payload).unwrap();
            prop_assert_eq!(&statement["_type"], "https://in-toto.io/Statement/v1");
        }
    }

    #[test]
    fn a_changed_signature_never_verifies(which in 0..6usize, edits in edits()) {
        let signed = Signed::of(which);
        prop_assert!(signed.verifies_here(&signed.armored), "the seed verifies");
        // The blob changed, armored as ssh-keygen armors: another signature, which must not hold.
        let blob = sshsig_blob(&signed.armored);
        let changed = mutate(&blob, &edits);
        if changed != blob {
            prop_assert!(!signed.verifies_here(&armor(&changed)), "a changed SSHSIG blob verified");
        }
    }

    /// Every trailer read from a mutated message is a git token (letters, digits, `-`) and one
    /// trimmed line of value; the task and verdict claimed are the last such trailers of each.
    #[test]
    fn a_mutated_commit_message_yields_trailers_or_none(edits in edits()) {
        use speccoder_attest::git::trailers;
        let message = String::from_utf8_lossy(&mutate(&SEEDS.message, &edits)).into_owned();
        let stored = trailers::parse_without_divider(&message);
        for (key, value) in trailers::parse(&message).iter().chain(&stored) {
            prop_assert!(!key.is_empty() && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'), "{:?}", key);
            prop_assert!(!value.contains('\n'), "{:?}", value);
            prop_assert_eq!(value.as_str(), value.trim_matches([' ', '\t', '\n', '\r']));
        }
        let last = |name: &str| {
            stored.iter().rev().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.trim().to_owned())
        };
        let claimed = speccoder_attest::check::trailers::task_trailers(&message);
        prop_assert_eq!(claimed, (last("Spec-Task"), last("Verdict")));
    }

    #[test]
    fn a_mutated_task_list_is_read_or_refused(edits in edits()) {
        let tasks_md = mutate(&SEEDS.tasks_md, &edits);
        let tree = tree(&tasks_md, &SEEDS.spec_md);
        for task in ["T001", "T005", "T012"] {
            match spec::read_task(&tree, UNIT, task) {
                Ok(facts) => check_task(&facts, task, &tasks_md)?,
                Err(e) => check_refusal(&e)?,
            }
        }
        match spec::ticked_tasks(&tree, UNIT) {
            Ok(ticked) => {
                for facts in &ticked {
                    prop_assert!(facts.ticked, "{} listed as ticked with an open box", facts.id);
                    check_task(facts, &facts.id, &tasks_md)?;
                }
            }
            Err(e) => check_refusal(&e)?,
        }
        match spec::unread_ticks(&tree, UNIT) {
            Ok(unread) => {
                let count = task_list_lines(&String::from_utf8_lossy(&tasks_md)).len();
                for u in &unread {
                    prop_assert!((1..=count).contains(&u.line), "line {} of {}", u.line, count);
                    prop_assert!(!u.reason.is_empty(), "{:?}", u);
                    prop_assert_eq!(&u.tasks_path, &format!("specs/{UNIT}/tasks.md"));
                }
            }
            Err(e) => check_refusal(&e)?,
        }
        if let Ok(text) = std::str::from_utf8(&tasks_md) {
            for line in text.lines() {
                if let Some(task) = spec::parse_task_line(spec::Format::SpecKit, line) {
                    prop_assert!(spec::is_task_id(spec::Format::SpecKit, task.id), "{:?}", task.id);
                    let marks: &[u8] = if task.ticked { b"xX" } else { b" " };
                    let mark = line.as_bytes().get(task.box_at);
                    prop_assert!(mark.is_some_and(|m| marks.contains(m)), "{:?}: {:?}", line, task);
                    prop_assert_eq!(task.title, task.title.trim());
                }
            }
        }
    }

    /// A mutated project-local OpenSpec schema (the shape of openspec's own `spec-driven`, its
    /// tasks tracked in `checklist.md`) makes the change a stray of the unit scan, or leaves it a
    /// unit, and the task reader agrees: it refuses the change's tasks exactly when the scan
    /// reports the change, saying why.
    #[test]
    fn a_mutated_openspec_schema_leaves_the_change_a_unit_or_a_stray_and_the_task_reader_agrees(
        edits in edits(),
    ) {
        let schema = mutate(OPENSPEC_SCHEMA.as_bytes(), &edits);
        let mut tree = MemTree::from_files([
            ("openspec/config.yaml", &b"schema: custom\n"[..]),
            ("openspec/changes/add-x/tasks.md", b"## 1. Work\n- [ ] 1.1 Do it\n"),
            ("openspec/changes/add-x/specs/x/spec.md", b"## ADDED Requirements\n### Requirement: X\nThe system SHALL x.\n"),
        ])
        .unwrap();
        tree.insert("openspec/schemas/custom/schema.yaml", schema).unwrap();
        let scan = spec::scan_units(&tree).unwrap();
        let stray = scan.strays.iter().find(|s| s.top == "openspec/changes/add-x");
        match (spec::read_task(&tree, "add-x", "1.1"), stray) {
            (Ok(facts), None) => prop_assert_eq!((facts.unit.as_str(), facts.id.as_str()), ("add-x", "1.1")),
            (Err(e @ SpecError::OtherTaskFile { .. }), Some(stray)) => {
                check_refusal(&e)?;
                prop_assert_eq!(&stray.reason, &e.to_string());
            }
            (read, stray) => prop_assert!(false, "the reader says {:?}, the scan {:?}", read, stray),
        }
    }

    /// The writer on hostile task lists, as `attest` drives it: for each task the reader finds
    /// open in a mutated `tasks.md`, ticking its line changes exactly one byte, the space in its
    /// box, after which the reader finds that task ticked, every other tick as before and every
    /// unread box as before.
    #[test]
    fn ticking_a_task_of_a_mutated_task_list_changes_its_box_and_nothing_else(edits in edits()) {
        let before = mutate(&SEEDS.tasks_md, &edits);
        let read = |bytes: &[u8], id: &str| spec::read_task(&tree(bytes, &SEEDS.spec_md), UNIT, id);
        let ticked = |bytes: &[u8]| {
            spec::ticked_tasks(&tree(bytes, &SEEDS.spec_md), UNIT)
                .map(|t| t.into_iter().map(|f| (f.line_index, f.id)).collect::<Vec<_>>())
        };
        let unread = |bytes: &[u8]| {
            spec::unread_ticks(&tree(bytes, &SEEDS.spec_md), UNIT)
                .map(|u| u.into_iter().map(|t| (t.line, t.shown)).collect::<Vec<_>>())
        };
        for n in 1..=20 {
            let id = format!("T{n:03}");
            let Ok(facts) = read(&before, &id) else { continue };
            if facts.ticked {
                continue;
            }
            let after = spec::tick(&before, facts.line_index, spec::Format::SpecKit);
            prop_assert!(
                after.is_ok(),
                "{} is open at line {} but cannot be ticked: {:?}", id, facts.line_index, after
            );
            let after = after.unwrap();
            let changed: Vec<usize> = (0..before.len()).filter(|&i| before.get(i) != after.get(i)).collect();
            prop_assert_eq!(after.len(), before.len());
            prop_assert_eq!(changed.len(), 1, "ticking {} changed {:?}", id, changed);
            prop_assert_eq!((before[changed[0]], after[changed[0]]), (b' ', b'X'));
            let now = read(&after, &id);
            let ticked_here = now.as_ref().is_ok_and(|f| f.ticked && f.line_index == facts.line_index);
            prop_assert!(ticked_here, "{} reads ticked: {:?}", id, now);
            let (was, now) = (ticked(&before), ticked(&after));
            prop_assert_eq!(was.is_ok(), now.is_ok(), "ticking {} changed whether the list reads", id);
            if let (Ok(was), Ok(now)) = (was, now) {
                prop_assert_eq!(now.len(), was.len() + 1, "one more ticked task after ticking {}", id);
                prop_assert!(was.iter().all(|t| now.contains(t)), "no other tick changed");
            }
            prop_assert_eq!(unread(&before).ok(), unread(&after).ok(), "the unread boxes are unchanged");
        }
    }

    #[test]
    fn a_mutated_spec_is_read_or_refused(edits in edits()) {
        let spec_md = mutate(&SEEDS.spec_md, &edits);
        let tree = tree(&SEEDS.tasks_md, &spec_md);
        let text = String::from_utf8_lossy(&spec_md);
        let is_spec_line = |line: &str| commonmark_lines(&text).iter().any(|l| l.trim_end() == line);
        match spec::read_task(&tree, UNIT, "T005") {
            Ok(facts) => {
                check_task(&facts, "T005", &SEEDS.tasks_md)?;
                prop_assert_eq!(facts.section_hash.len(), 64);
                for r in &facts.requirements {
                    prop_assert!(is_spec_line(&r.line), "{:?} is no line of spec.md", r.line);
                    prop_assert_eq!(&r.hash, &common::sha256(r.line.as_bytes()));
                }
            }
            Err(e) => check_refusal(&e)?,
        }
        for id in ["FR-001", "FR-004", "SC-001"] {
            match spec::requirement_line(&tree, UNIT, id) {
                Ok(Some(line)) => {
                    prop_assert!(is_spec_line(&line) && line.contains(id), "{:?} for {}", line, id);
                }
                Ok(None) => {}
                Err(e) => check_refusal(&e)?,
            }
        }
    }

    /// A mutated allowed-signers file (or the same bytes as a revoked-keys file) is entries, each
    /// on a line of the file with at least one principal, or an error naming the file and a line
    /// of it.
    #[test]
    fn a_mutated_allowed_signers_file_is_entries_or_an_error(edits in edits()) {
        let content = mutate(&SEEDS.allowed, &edits);
        let lines = content.split(|&b| b == b'\n').count();
        let (allowed, revoked) = (Path::new("allowed_signers"), Path::new("revoked_keys"));
        match AllowedSigners::parse(&content, allowed) {
            Ok(read) => {
                prop_assert_eq!(read.path.as_path(), allowed);
                for signer in &read.signers {
                    prop_assert!((1..=lines).contains(&signer.line), "line {} of {}", signer.line, lines);
                    prop_assert!(!signer.principals.patterns.is_empty(), "line {}: no principal", signer.line);
                }
            }
            Err(e @ AllowedSignersError::Line { .. }) => {
                let AllowedSignersError::Line { path, line, .. } = &e else { unreachable!() };
                prop_assert_eq!(path.as_path(), allowed);
                prop_assert!((1..=lines).contains(line), "line {} of {}", line, lines);
                prop_assert!(e.to_string().starts_with(&format!("allowed_signers:{line}: ")), "{}", e);
            }
            Err(e) => prop_assert!(false, "parsing bytes cannot fail to read them: {}", e),
        }
        match RevokedKeys::parse(&content, revoked) {
            Ok(read) => prop_assert_eq!(read.files.as_slice(), &[revoked.to_path_buf()][..]),
            Err(RevokedKeysError::Line { path, line, reason }) => {
                prop_assert_eq!(path.as_path(), revoked);
                prop_assert!((1..=lines).contains(&line) && !reason.to_string().is_empty(), "line {} of {}: {:?}", line, lines, reason);
            }
            Err(RevokedKeysError::Krl { path }) => prop_assert_eq!(path.as_path(), revoked),
            Err(e) => prop_assert!(false, "parsing bytes cannot fail to read them: {}", e),
        }
    }

    #[test]
    fn a_mutated_configuration_is_a_policy_or_an_error(edits in edits()) {
        let seed = concat!(
            "# judged under these\n[tests]\ncommand = \"cargo test\"\ntimeout = 600\n\n",
            "[model]\nprovider = \"anthropic\"\n\n[attest]\nsigner = \"git\"\nsign_at = \"tick\"\n\n",
            "[checks]\nlint = [\"cargo\", \"clippy\"]\n\n[sandbox]\nmode = \"off\"\n",
        )
        .as_bytes();
        let text = String::from_utf8_lossy(&mutate(seed, &edits)).into_owned();
        match (JudgeConfig::parse(Some(&text)), policy_sha256(Some(&text))) {
            (Ok(_), Ok(digest)) => {
                prop_assert!(digest.len() == 64 && digest.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()), "{:?}", digest);
                prop_assert_eq!(policy_sha256(Some(&text)).ok(), Some(digest), "the digest is the same every time");
            }
            (Err(a), Err(b)) => {
                prop_assert!(!a.to_string().is_empty(), "an error without a message: {:?}", a);
                prop_assert_eq!(a, b, "the configuration and its digest are refused for one reason");
            }
            (config, digest) => prop_assert!(false, "read as {:?}, hashed as {:?}", config, digest),
        }
    }

    #[test]
    fn a_mutated_held_out_manifest_is_a_manifest_or_an_error(edits in edits()) {
        let files = [
            ("tests/hidden.rs".to_owned(), b"#[test] fn h() {}\n".to_vec()),
            ("b/c.rs".to_owned(), b"x".to_vec()),
        ];
        let seed = HeldOutManifest::new(&format!("{UNIT}/T005"), Some("run-7"), &files).unwrap().to_bytes();
        match HeldOutManifest::parse(&mutate(&seed, &edits)) {
            Ok(manifest) => {
                prop_assert_eq!(manifest.check(), Ok(()));
                prop_assert!(!manifest.unit().is_empty() && manifest.task.starts_with(manifest.unit()));
                prop_assert_eq!(HeldOutManifest::parse(&manifest.to_bytes()), Ok(manifest.clone()), "it writes back as read");
            }
            Err(e) => prop_assert!(!e.to_string().is_empty(), "an error without a message: {:?}", e),
        }
    }
}

/// One signed line of the seed note: its armored signature and the message it signs.
struct Signed {
    armored: Vec<u8>,
    /// The DSSE PAE of the line's payload: what the signature covers.
    message: Vec<u8>,
}

impl Signed {
    fn of(which: usize) -> Signed {
        let envelope = &envelopes()[which];
        let payload = STANDARD.decode(envelope["payload"].as_str().unwrap()).unwrap();
        Signed {
            armored: armored_sig(envelope),
            message: dsse::pae(envelope["payloadType"].as_str().unwrap(), &payload),
        }
    }

    /// Whether the in-process verifier accepts `armored` over the message for the seed's signer.
    fn verifies_here(&self, armored: &[u8]) -> bool {
        let allowed = AllowedSigners::parse(&SEEDS.allowed, Path::new("allowed_signers")).unwrap();
        let at = time::OffsetDateTime::now_utc();
        verify::verify(armored, &self.message, "in-toto", &allowed, &RevokedKeys::default(), at).is_ok()
    }

    /// Whether `ssh-keygen -Y verify -I principal` accepts `armored` over the message under the
    /// allowed-signers file `allowed_signers`, with files in `dir`.
    fn verifies_with(&self, armored: &[u8], allowed_signers: &[u8], principal: &str, dir: &Path) -> bool {
        let (allowed, sig, message) =
            (dir.join("allowed_signers"), dir.join("line.sig"), dir.join("message"));
        std::fs::write(&allowed, allowed_signers).unwrap();
        std::fs::write(&sig, armored).unwrap();
        std::fs::write(&message, &self.message).unwrap();
        let args = [
            "-Y",
            "verify",
            "-f",
            allowed.to_str().unwrap(),
            "-I",
            principal,
            "-n",
            "in-toto",
            "-s",
            sig.to_str().unwrap(),
        ];
        std::process::Command::new("ssh-keygen")
            .args(args)
            .stdin(std::fs::File::open(&message).unwrap())
            .output()
            .expect("ssh-keygen runs")
            .status
            .success()
    }
}

/// The edits of an armored signature that ssh-keygen's reader singles out (a NUL only as the
/// body's last byte, white space, text after the footer) are judged here as ssh-keygen judges
/// them, whatever the random cases below happen to draw.
#[test]
fn an_armored_signature_edited_where_ssh_keygen_s_reader_is_particular_is_judged_alike() {
    let signed = Signed::of(0);
    let dir = tempfile::tempdir().unwrap();
    let armored = &signed.armored;
    let footer = armored.windows(6).position(|w| w == b"\n-----").unwrap();
    let body_end = armored[..footer].iter().rposition(|&b| b != b'\n').unwrap() + 1;
    let edited = |at: usize, bytes: &[u8]| [&armored[..at], bytes, &armored[at..]].concat();
    let cases = [
        (edited(footer, b"\0"), true),
        (edited(footer, b"\0\0"), false),
        (edited(footer, b"\0 "), false),
        (edited(body_end - 4, b"\0"), false),
        (edited(body_end - 4, b" \x0b\r"), true),
        (edited(armored.len(), b"after the footer\n"), true),
    ];
    for (case, accepted) in cases {
        let ssh_keygen = signed.verifies_with(&case, &SEEDS.allowed, common::PRINCIPAL, dir.path());
        assert_eq!(ssh_keygen, accepted, "ssh-keygen on {:?}", String::from_utf8_lossy(&case));
        assert_eq!(signed.verifies_here(&case), accepted, "here on {:?}", String::from_utf8_lossy(&case));
    }
}

proptest! {
    // Each case runs ssh-keygen, so a quarter as many cases.
    #![proptest_config(ProptestConfig { cases: cases() / 4, ..config() })]

    #[test]
    fn a_mutated_armored_signature_verifies_here_exactly_when_ssh_keygen_verifies_it(
        which in 0..6usize,
        edits in edits(),
    ) {
        let signed = Signed::of(which);
        let dir = tempfile::tempdir().unwrap();
        let mutated = mutate(&signed.armored, &edits);
        prop_assert_eq!(
            signed.verifies_here(&mutated),
            signed.verifies_with(&mutated, &SEEDS.allowed, common::PRINCIPAL, dir.path()),
            "the verifiers disagree on {:?}",
            String::from_utf8_lossy(&mutated)
        );
    }

    /// An allowed-signers line this parser reads is read as ssh-keygen reads it. With the
    /// principals and options mutated (patterns, negations, namespaces, validity times, quoting)
    /// and the key kept: every principal the verifier here names for the signature, ssh-keygen
    /// verifies it for; and when ssh-keygen verifies it for the seed's principal, the verifier here
    /// accepts it too. (Where ssh-keygen skips a malformed line, this parser refuses the whole file,
    /// on purpose: see `allowed_signers.rs`.)
    #[test]
    fn a_mutated_allowed_signers_line_read_here_trusts_whom_ssh_keygen_trusts(edits in edits()) {
        let signed = Signed::of(0);
        let seed = std::str::from_utf8(&SEEDS.allowed).unwrap();
        let key = seed.lines().nth(1).unwrap().rsplit_once(" ssh-ed25519 ").unwrap().1;
        let options = format!(
            concat!(
                "{},bob@example.com ",
                "namespaces=\"in-toto,git\",valid-after=\"20260101\",valid-before=\"29991231Z\""
            ),
            common::PRINCIPAL
        );
        let mut allowed_text = mutate(options.as_bytes(), &edits);
        allowed_text.extend(format!(" ssh-ed25519 {key}\n").bytes());
        let shown = String::from_utf8_lossy(&allowed_text).into_owned();
        if let Ok(allowed) = AllowedSigners::parse(&allowed_text, Path::new("allowed_signers")) {
            let at = time::OffsetDateTime::now_utc();
            let dir = tempfile::tempdir().unwrap();
            let revoked = RevokedKeys::default();
            let here = verify::verify(&signed.armored, &signed.message, "in-toto", &allowed, &revoked, at);
            if let Ok(verified) = &here {
                for principal in &verified.principals {
                    prop_assert!(
                        signed.verifies_with(&signed.armored, &allowed_text, principal, dir.path()),
                        "trusted here for {principal:?}, refused by ssh-keygen, under {shown:?}"
                    );
                }
            }
            if signed.verifies_with(&signed.armored, &allowed_text, common::PRINCIPAL, dir.path()) {
                prop_assert!(here.is_ok(), "trusted by ssh-keygen, refused here ({here:?}), under {shown:?}");
            }
        }
    }
}

/// A mutated OpenPGP signature, armored or as packets armored again, that verifies in-process
/// verifies with `sqv` too, for the same certificate. The other way round holds for a signature
/// changed only in its unhashed area; not for any byte edit, on purpose: an envelope's signature
/// here is exactly one binary-mode signature packet in one armor block, where sqv also takes text
/// after the armor, several signatures or text mode (see `src/sign/openpgp/signature.rs`).
#[test]
fn a_mutated_openpgp_signature_that_verifies_in_process_verifies_with_sqv() {
    use sequoia_openpgp::armor::{Kind, Writer};
    use sequoia_openpgp::cert::CertBuilder;
    use sequoia_openpgp::serialize::SerializeInto;
    use speccoder_attest::sign::Signer as _;
    use speccoder_attest::sign::openpgp::{self, OpenPgpCerts, OpenPgpSigner, Sqv, SqvError};

    let dir = tempfile::tempdir().unwrap();
    let (cert, _) = CertBuilder::general_purpose(Some("Ada <ada@example.com>")).generate().unwrap();
    let (key, keyring) = (dir.path().join("ada.key"), dir.path().join("trusted.asc"));
    std::fs::write(&key, cert.as_tsk().armored().to_vec().unwrap()).unwrap();
    std::fs::write(&keyring, cert.armored().to_vec().unwrap()).unwrap();
    let certs = OpenPgpCerts::read(&keyring).unwrap();
    let message =
        dsse::pae("application/vnd.in-toto+json", br#"{"_type":"https://in-toto.io/Statement/v1"}"#);
    let armored = OpenPgpSigner::from_key_file_with_passphrase(&key, None).unwrap().sign(&message).unwrap();
    let packets = {
        let mut reader = sequoia_openpgp::armor::Reader::from_bytes(&armored, None);
        let mut out = Vec::new();
        std::io::Read::read_to_end(&mut reader, &mut out).unwrap();
        out
    };
    let armor = |binary: &[u8]| {
        let mut writer = Writer::new(Vec::new(), Kind::Signature).unwrap();
        std::io::Write::write_all(&mut writer, binary).unwrap();
        writer.finalize().unwrap()
    };
    let at = time::OffsetDateTime::now_utc();
    let here = |sig: &[u8]| openpgp::verify(sig, &message, &certs, at).ok().map(|v| v.fingerprint);
    let there = |sig: &[u8]| match Sqv::default().verify(sig, &message, &keyring, at) {
        Ok(fingerprint) => Some(fingerprint),
        Err(SqvError::Rejected(_)) => None,
        Err(e) => panic!("sqv could not check: {e}"),
    };
    assert!(here(&armored).is_some() && here(&armored) == there(&armored), "the seed verifies in both");

    let config = ProptestConfig { cases: cases() / 4, ..config() };
    let mut runner = proptest::test_runner::TestRunner::new(config);
    // Besides byte edits: subpackets added to the signature's unhashed area, which no signature
    // covers, after removing what is there (the issuer) or not.
    let unhashed = |clear: bool, added: &[(u8, bool, Vec<u8>)]| -> Option<Vec<u8>> {
        use sequoia_openpgp::packet::signature::subpacket::{Subpacket, SubpacketTag, SubpacketValue};
        use sequoia_openpgp::parse::Parse;
        let sequoia_openpgp::Packet::Signature(mut sig) =
            sequoia_openpgp::Packet::from_bytes(&packets).ok()?
        else {
            return None;
        };
        if clear {
            sig.unhashed_area_mut().clear();
        }
        for (tag, critical, body) in added {
            let value = SubpacketValue::Unknown { tag: SubpacketTag::from(*tag), body: body.clone() };
            sig.unhashed_area_mut().add(Subpacket::new(value, *critical).ok()?).ok()?;
        }
        Some(armor(&sequoia_openpgp::Packet::from(sig).to_vec().ok()?))
    };
    let tag = prop_oneof![1 => any::<u8>(), 2 => 100..=110u8];
    let subpackets =
        prop::collection::vec((tag, any::<bool>(), prop::collection::vec(any::<u8>(), 0..40)), 0..4);
    let result = runner.run(&(0..3u8, edits(), any::<bool>(), subpackets), |(how, edits, clear, added)| {
        let sig = match how {
            0 => mutate(&armored, &edits),
            1 => armor(&mutate(&packets, &edits)),
            _ => match unhashed(clear, &added) {
                Some(sig) => sig,
                None => return Ok(()),
            },
        };
        if let Some(ours) = here(&sig) {
            let sqv = there(&sig);
            prop_assert_eq!(
                Some(&ours),
                sqv.as_ref(),
                "sqv disagrees on {:?}",
                String::from_utf8_lossy(&sig)
            );
        } else if how == 2 && added.iter().all(|(tag, critical, _)| (100..=110).contains(tag) && !critical) {
            // One signature packet in one armor block, changed only where no signature covers, by
            // well-formed private subpackets: none of the strictness above applies, so sqv must
            // refuse it too. (A malformed subpacket makes the packet unreadable to sequoia here,
            // where the older sequoia inside sqv may still read it: refused here on purpose.)
            prop_assert_eq!(
                there(&sig),
                None,
                "sqv accepts what is refused here: {:?}",
                String::from_utf8_lossy(&sig)
            );
        }
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
}

/// The whole check, on a real repository: with its note mutated, a task commit verifies only when
/// the note still holds the same statements (payloads and payload types, in the same order), and
/// never ends in a crash or an internal error. Signatures may change: a line whose signature became
/// unreadable stays covered by the signed summary that names its digest, by design.
#[test]
fn a_task_commit_with_a_mutated_note_verifies_only_when_its_statements_are_unchanged() {
    let p = common::Project::speckit();
    let key = common::ed25519(&p.scratch, "ada");
    let allowed = common::allowed_signers(&p.scratch.join("allowed_signers"), &[(common::PRINCIPAL, &key)]);
    let target = format!("{UNIT}/T005");
    let evidence = common::write_evidence(&p.scratch_dir("evidence"), &target, common::Evidence::WithHeldOut);
    p.attest(&target, &evidence, &["--key", key.private.to_str().unwrap()]).success();
    let note = p.note("HEAD").unwrap();
    let statements = |note: &[u8]| -> Option<Vec<(Vec<u8>, String)>> {
        bundle::split(note)
            .into_iter()
            .map(|line| {
                let e = dsse::Envelope::parse(line).ok()?;
                Some((e.payload, e.payload_type))
            })
            .collect()
    };
    let original = statements(&note).unwrap();
    let verify = ["attest", "verify", "HEAD", "--allowed-signers", allowed.to_str().unwrap(), "--json"];
    assert_eq!(p.speccoder(&verify).code(), Some(0), "the note as written verifies");

    let mut runner =
        proptest::test_runner::TestRunner::new(ProptestConfig { cases: cases() / 8, ..config() });
    let result = runner.run(&edits(), |edits| {
        let mutated = mutate(&note, &edits);
        if mutated.is_empty() {
            return Ok(());
        }
        p.write_note_bytes("HEAD", &mutated);
        let out = p.speccoder(&verify);
        let shown = String::from_utf8_lossy(&mutated).into_owned();
        prop_assert!(matches!(out.code(), Some(0 | 26)), "exit {:?} on {shown:?}\n{out}", out.code());
        if out.code() == Some(0) {
            prop_assert!(
                statements(&mutated).as_ref() == Some(&original),
                "verified with other statements: {shown}"
            );
        }
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
}
