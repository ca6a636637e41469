//! Notes git joined line by line, and two notes of one commit a fetch cannot join, told by their
//! cause with advice that works as given (each command run as printed):
//!
//! - a carried note that `git notes merge -s union` joined with the copy git made on a rebase
//!   (`notes.rewriteRef`) is `joined_notes` for the verifier, which names its lines and how to keep
//!   the commit's own; `attest carry` refuses it (26) instead of saying there is nothing to carry;
//! - a remote note `git notes merge -s cat_sort_uniq` made of an unsigned and a signed copy is told
//!   by `attest fetch` as that, never as a task attested twice, and repaired on the remote as told;
//! - two clones' carries of one rebased commit are told as such by `attest fetch`, and settled as
//!   told;
//! - two clones' approvals of one tick joined by `git notes merge -s union` are both kept by the
//!   repair verify advises (`attest rejoin`), as `attest fetch` would have joined them;
//! - a copy whose line carries one more signature that does not verify never wins over the sound
//!   copy: the repair restores the note that holds;
//! - blank lines in a note are told with the command that removes them;
//! - the repair of a hostile join keeps every trusted approval: signatures by keys nobody trusts
//!   never take the places of a trusted one past the 16 a line carries, a field no signature
//!   covers added by a relay neither wins the copy kept nor keeps a trusted approval out, and a
//!   signature by a key the user's trust revokes is never joined;
//! - a second, different statement of one phase beside the commit's own is two notes of it, not
//!   a copy to keep;
//! - a joined note larger than a reader takes is rejoined, up to four notes' worth; a larger one
//!   is told as not read, with advice that loses nothing and works as given.

use std::process::Command;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

use crate::common::{self, Key, NOTES_REF, Run};
use crate::team::{self, Clone, Team};

/// Runs `command`, a command line the tool advised, in `clone` as a person pasting it would, with
/// the `speccoder` under test first on the path.
#[track_caller]
fn paste(clone: &Clone<'_>, command: &str) -> Run {
    let mut sh = Command::new("sh");
    common::isolate(&mut sh, &clone.team.home);
    let bin = common::speccoder_bin().parent().unwrap().to_owned();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let path = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(&path))).unwrap();
    sh.args(["-c", command]).current_dir(&clone.dir).env("PATH", path);
    let run = common::run(sh);
    assert!(run.status.success(), "{command}\n{run}");
    run
}

/// The commands quoted (in backquotes) in `text` after `after`, up to the end of its line.
fn quoted_after(text: &str, after: &str) -> Vec<String> {
    let line = text.lines().find(|l| l.contains(after)).unwrap_or_else(|| panic!("no `{after}` in {text}"));
    let rest = &line[line.find(after).unwrap() + after.len()..];
    rest.split('`').skip(1).step_by(2).map(str::to_owned).collect()
}

/// The finding `code` of the one tick of a `verify --json` run.
#[track_caller]
fn finding(run: &Run, code: &str) -> Value {
    let report: Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}\n{run}"));
    let findings = report["ticks"][0]["findings"].as_array().unwrap();
    findings.iter().find(|f| f["code"] == code).cloned().unwrap_or_else(|| panic!("no {code}: {report:#}"))
}

#[test]
fn a_carried_note_a_union_merge_joined_with_git_s_copy_is_told_as_joined_and_carry_refuses_it() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.git(&["config", "notes.rewriteRef", NOTES_REF]);
    let (old, new) = team::tick_rebased_onto_a_moved_main(&team, &ada);
    // Git's copy kept aside (a notes history of its own), the evidence carried, then the copy
    // joined back as a teammate's notes would be, by git's union strategy (which concatenates the
    // two notes).
    let copy = ada.git(&["notes", "--ref", NOTES_REF, "list", &new]);
    ada.git(&["notes", "--ref", "refs/notes/copy", "add", "-C", copy.trim(), &new]);
    ada.git(&["notes", "--ref", NOTES_REF, "remove", &new]);
    ada.speccoder(&["attest", "carry"]).success();
    let own = ada.note(&new).unwrap();
    ada.git(&["notes", "--ref", NOTES_REF, "merge", "-s", "union", "refs/notes/copy"]);
    assert_ne!(ada.note(&new).unwrap(), own, "git joined the two notes");

    let joined = finding(&ada.verify(&["--json"]).failure(26), "joined_notes");
    assert_eq!(joined["outcome"], "malformed", "{joined:#}");
    let message = joined["message"].as_str().unwrap();
    assert!(
        message.starts_with("the note is 2 notes joined line by line (lines 1-5 about this commit"),
        "{message}"
    );
    assert!(message.contains(&format!("lines 7-11 about {old}")), "{message}");
    assert!(message.contains("`git notes merge -s union`") && message.contains("docs/team.md"), "{message}");

    let carry = ada.speccoder(&["attest", "carry", "--json"]).failure(26);
    let row = team::refused_row(&carry);
    assert_eq!(
        (&row["code"], &row["from"], &row["to"]),
        (&"joined_notes".into(), &old.as_str().into(), &new.as_str().into()),
        "{row:#}"
    );
    let keep =
        quoted_after(&ada.speccoder(&["attest", "carry"]).failure(26).stdout, "keep this commit's own note");
    assert_eq!(keep.len(), 1, "{keep:?}");
    paste(&ada, &keep[0]);
    assert_eq!(ada.note(&new).unwrap(), own, "the commit's own note, as carry wrote it");
    ada.assert_evidenced(1);
    assert!(ada.speccoder(&["attest", "carry"]).success().stdout.contains("nothing to carry"));
}

#[test]
fn a_remote_note_cat_sort_uniq_made_of_an_unsigned_and_a_signed_copy_is_told_so_and_repaired_there_as_told() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let bob = team.writer("bob", &team.bob);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    let t001 = ada.attest("T001", &["--signer", "none"]);
    ada.speccoder(&["attest", "push"]).success();
    ada.speccoder(&["attest", "sign", &t001]).success();

    // Bob signs his copy, and joins it with the unsigned one (a notes history of its own) by
    // git's cat_sort_uniq strategy: every line of both, sorted, each once; he pushes that.
    bob.git(&["fetch", "-q", "origin"]);
    bob.speccoder(&["attest", "fetch"]).success();
    let unsigned = team.tmp.path().join("unsigned-note");
    std::fs::write(&unsigned, bob.note(&t001).unwrap()).unwrap();
    bob.speccoder(&["attest", "sign", &t001]).success();
    bob.git(&["notes", "--ref", "refs/notes/unsigned", "add", "-F", unsigned.to_str().unwrap(), &t001]);
    bob.git(&["notes", "--ref", NOTES_REF, "merge", "-s", "cat_sort_uniq", "refs/notes/unsigned"]);
    assert_eq!(bob.note(&t001).unwrap().iter().filter(|b| **b == b'\n').count(), 10);
    bob.git(&["push", "-q", "origin", NOTES_REF]);

    let refused = ada.speccoder(&["attest", "fetch"]).failure(14);
    assert!(!refused.stderr.contains("attested twice"), "{refused}");
    let said = format!(
        "{t001}: their note is 2 notes joined line by line (lines 1-10 about this commit, a statement listed more than once)"
    );
    assert!(refused.stderr.contains(&said), "{refused}");
    let repair = quoted_after(&refused.stderr, "so repair it there");
    assert_eq!(repair.len(), 3, "fetch, keep, push: {repair:?}");
    for command in &repair {
        paste(&ada, command);
    }
    assert_eq!(team.remote_note(&t001).unwrap().iter().filter(|b| **b == b'\n').count(), 5);
    ada.speccoder(&["attest", "fetch"]).success();
    for line in ada.note_lines(&t001) {
        assert_eq!(line.signatures.len(), 2, "Ada's signature and Bob's, joined");
    }
    ada.assert_evidenced(1);
    team.fsck(&[&ada, &bob]);
}

#[test]
fn two_clones_carries_of_one_rebased_commit_are_told_so_by_fetch_and_settled_as_told() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let bob = team.writer("bob", &team.bob);
    let (old, new) = team::tick_rebased_onto_a_moved_main(&team, &ada);
    ada.speccoder(&["attest", "carry"]).success();
    // Another clone's carry of the same evidence, at another time, pushed first.
    let other = team::re_signed(&ada, &new, |p| p["time"] = "2030-01-01T00:00:00Z".into());
    ada.git(&["push", "-q", "origin", "feature-a"]);
    bob.git(&["fetch", "-q", "origin"]);
    bob.git(&["checkout", "-q", "-b", "feature-a", "origin/feature-a"]);
    bob.replace_note(&new, &other);
    bob.speccoder(&["attest", "push"]).success();

    let refused = ada.speccoder(&["attest", "fetch"]).failure(14);
    assert!(!refused.stderr.contains("attested twice, differently"), "{refused}");
    let said = format!("both notes carry the evidence of {old} to this commit");
    assert!(
        refused.stderr.contains(&said) && refused.stderr.contains("nothing was attested twice"),
        "{refused}"
    );
    let settle = quoted_after(&refused.stderr, "keep one: drop yours with");
    assert_eq!(settle[0], format!("git notes --ref={NOTES_REF} remove {new}"), "{refused}");
    paste(&ada, &settle[0]);
    ada.speccoder(&["attest", "fetch"]).success();
    assert_eq!(ada.note(&new).unwrap(), other.as_bytes(), "theirs taken");
    ada.assert_evidenced(1);
}

/// The verifier policy at `path` that asks for approvals by each of `by`.
fn approvals_policy(path: &std::path::Path, by: &[&str]) -> String {
    let by: Vec<String> = by.iter().map(|p| format!("\"{p}\"")).collect();
    let text = format!(
        "version = 1\n[[rule]]\nname = \"all\"\nunits = [\"*\"]\nsigners = [\"*\"]\napprovals = {{ count = {}, by = [{}] }}\n",
        by.len(),
        by.join(", ")
    );
    std::fs::write(path, text).unwrap();
    path.to_str().unwrap().to_owned()
}

#[test]
fn two_clones_approvals_a_union_merge_joined_are_both_kept_by_the_advised_rejoin() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let bob = team.writer("bob", &team.bob);
    let carol = common::ed25519(&team.tmp.path().join("keys"), "carol");
    let carol_key = carol.private.to_str().unwrap().to_owned();
    let bob_key = team.bob.private.to_str().unwrap().to_owned();
    let three = [(common::PRINCIPAL, &team.ada), (team::BOB, &team.bob), ("carol@example.com", &carol)];
    let trust = team.trust_file("trust-three", &three);
    for clone in [&ada, &bob] {
        clone.git(&["config", "gpg.ssh.allowedSignersFile", trust.to_str().unwrap()]);
    }
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    let t001 = ada.attest("T001", &[]);
    ada.speccoder(&["attest", "push"]).success();
    bob.git(&["fetch", "-q", "origin"]);
    bob.git(&["checkout", "-q", "-b", "feature-a", "origin/feature-a"]);
    bob.speccoder(&["attest", "fetch"]).success();

    // Carol approves in Ada's clone, Bob in his; Bob's notes joined into Ada's by git's union.
    bob.speccoder(&["attest", "approve", &t001, "--signer", "ssh", "--key", &bob_key]).success();
    ada.speccoder(&["attest", "approve", &t001, "--signer", "ssh", "--key", &carol_key]).success();
    let policy = approvals_policy(&team.tmp.path().join("policy.toml"), &[team::BOB, "carol@example.com"]);
    let verify =
        ["attest", "verify", "--branch", "HEAD", "--base", "origin/main", "--policy", &policy, "--json"];
    let bob_dir = bob.dir.to_str().unwrap();
    ada.git(&["fetch", "-q", bob_dir, &format!("{NOTES_REF}:refs/notes/theirs")]);
    ada.git(&["notes", "--ref", NOTES_REF, "merge", "-s", "union", "refs/notes/theirs"]);

    let joined = finding(&ada.speccoder(&verify).failure(26), "joined_notes");
    let message = joined["message"].as_str().unwrap();
    assert!(message.contains("a statement listed more than once"), "{message}");
    let rejoin = quoted_after(message, "keep this commit's own note");
    assert_eq!(rejoin, [format!("speccoder attest rejoin {t001}")], "{message}");
    let report = paste(&ada, &rejoin[0]);
    assert!(report.stdout.contains("1 joined from the other copies"), "{report}");

    let lines = ada.note_lines(&t001);
    assert_eq!(lines.len(), 5, "one line per statement");
    let summary = lines.last().unwrap();
    assert_eq!(summary.signatures.len(), 3, "Ada's, Carol's approval and Bob's: {:?}", summary.signatures);
    let held = ada.speccoder(&verify).success();
    assert!(held.stdout.contains("\"evidenced\""), "{held}");
    // Run again, it finds nothing joined.
    let again = ada.speccoder(&["attest", "rejoin", &t001, "--json"]).success();
    let again: Value = serde_json::from_str(&again.stdout).unwrap();
    assert_eq!(again["unchanged"], true, "{again:#}");
    team.fsck(&[&ada, &bob]);
}

#[test]
fn a_copy_whose_line_carries_one_more_signature_that_does_not_verify_never_wins_over_the_sound_note() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    let t001 = ada.attest("T001", &[]);
    let sound = ada.note(&t001).unwrap();
    // The broken copy (a notes history of its own): line 1 carries, besides its own signature,
    // Ada's valid signature over line 2, which does not verify over line 1.
    let text = String::from_utf8(sound.clone()).unwrap();
    let mut lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let stolen = lines[1]["signatures"][0].clone();
    lines[0]["signatures"].as_array_mut().unwrap().push(stolen);
    let broken: String = lines.iter().map(|l| format!("{}\n", serde_json::to_string(l).unwrap())).collect();
    let file = team.tmp.path().join("broken-note");
    std::fs::write(&file, &broken).unwrap();
    let file = file.to_str().unwrap();
    ada.git(&["notes", "--ref", "refs/notes/broken", "add", "--no-stripspace", "-F", file, &t001]);
    ada.git(&["notes", "--ref", NOTES_REF, "merge", "-s", "union", "refs/notes/broken"]);

    let joined = finding(&ada.verify(&["--json"]).failure(26), "joined_notes");
    let message = joined["message"].as_str().unwrap();
    let rejoin = quoted_after(message, "keep this commit's own note");
    assert_eq!(rejoin.len(), 1, "{message}");
    let report = paste(&ada, &rejoin[0]);
    let left_out = report.stdout.lines().find(|l| l.contains("left out:")).unwrap_or_default();
    assert!(left_out.starts_with("  left out: a signature of line 7 by SSH key SHA256:"), "{report}");
    assert!(left_out.contains(": bad SSH signature"), "{report}");
    assert_eq!(ada.note(&t001).unwrap(), sound, "the sound note, byte for byte");
    ada.assert_evidenced(1);
}

#[test]
fn blank_lines_in_a_note_are_told_with_the_command_that_removes_them_keeping_every_line() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    let t001 = ada.attest("T001", &[]);
    let sound = String::from_utf8(ada.note(&t001).unwrap()).unwrap();
    // A leading, a doubled and a trailing blank line, kept as they are (git's own `notes add`
    // would drop all but the one between two lines).
    let (first, rest) = sound.split_once('\n').unwrap();
    ada.replace_note(&t001, &format!("\n{first}\n\n\n{rest}\n"));

    let out = ada.verify(&["--json"]).failure(26);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let findings = report["ticks"][0]["findings"].as_array().unwrap();
    let blank: Vec<&Value> = findings.iter().filter(|f| f["code"] == "blank_line").collect();
    assert_eq!(blank.len(), 4, "{report:#}");
    let message = blank[0]["message"].as_str().unwrap();
    let remove = quoted_after(message, "remove the note's blank lines");
    assert_eq!(
        remove,
        [format!(
            "git notes --ref={NOTES_REF} show {t001} | sed '/^$/d' | git notes --ref={NOTES_REF} add -f -F - {t001}"
        )],
        "{message}"
    );
    paste(&ada, &remove[0]);
    assert_eq!(ada.note(&t001).unwrap(), sound.as_bytes(), "every line kept, byte for byte");
    ada.assert_evidenced(1);
}

/// Ada's tick of T001 in her clone, which trusts Ada, Bob and Carol; Bob's and Carol's approvals
/// of it, each made on Ada's note and kept aside as a notes reference of its own
/// (`refs/notes/bob`, `refs/notes/carol`), as two clones' notes would be. Ada's note, unapproved,
/// is in refs/notes/speccoder. The clone, the commit, and the policy that asks for both approvals.
fn approvals_aside(team: &Team) -> (Clone<'_>, String, String) {
    let ada = team.writer("ada", &team.ada);
    let carol = common::ed25519(&team.tmp.path().join("keys"), "carol");
    let three = [(common::PRINCIPAL, &team.ada), (team::BOB, &team.bob), ("carol@example.com", &carol)];
    let trust = team.trust_file("trust-three", &three);
    ada.git(&["config", "gpg.ssh.allowedSignersFile", trust.to_str().unwrap()]);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    let t001 = ada.attest("T001", &[]);
    let own = String::from_utf8(ada.note(&t001).unwrap()).unwrap();
    for (name, key) in [("bob", &team.bob), ("carol", &carol)] {
        let key = key.private.to_str().unwrap();
        ada.speccoder(&["attest", "approve", &t001, "--signer", "ssh", "--key", key]).success();
        let blob = ada.git(&["notes", "--ref", NOTES_REF, "list", &t001]);
        ada.git(&["notes", "--ref", &format!("refs/notes/{name}"), "add", "-C", blob.trim(), &t001]);
        ada.replace_note(&t001, &own);
    }
    let policy = approvals_policy(&team.tmp.path().join("policy.toml"), &[team::BOB, "carol@example.com"]);
    (ada, t001, policy)
}

/// `attest verify` of `ada`'s branch under her trust and `policy`.
fn verify_approved(ada: &Clone<'_>, policy: &str) -> Run {
    ada.speccoder(&[
        "attest",
        "verify",
        "--branch",
        "HEAD",
        "--base",
        "origin/main",
        "--policy",
        policy,
        "--json",
    ])
}

/// `line`, an envelope's JSON text, with a signature by each of `keys` added over its PAE, as
/// anyone holding those keys can add one.
fn signed_by(team: &Team, line: &str, keys: &[&Key]) -> String {
    let pae = common::parse_bundle(format!("{line}\n").as_bytes()).remove(0).pae();
    let mut envelope: Value = serde_json::from_str(line).unwrap();
    for key in keys {
        let sig = common::ssh_sign(team.tmp.path(), &team.home, key, &pae);
        let signatures = envelope["signatures"].as_array_mut().unwrap();
        signatures.push(json!({"keyid": "anyone", "sig": STANDARD.encode(sig)}));
    }
    serde_json::to_string(&envelope).unwrap()
}

/// The note of `rev` in `notes_ref` with its last line (the summary) changed by `edit`.
fn with_summary(clone: &Clone<'_>, notes_ref: &str, rev: &str, edit: impl Fn(&str) -> String) -> String {
    let note = clone.git(&["notes", "--ref", notes_ref, "show", rev]);
    let mut lines: Vec<String> = note.lines().map(str::to_owned).collect();
    let last = lines.pop().unwrap();
    lines.push(edit(&last));
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// Puts `text` as the note of `rev` in refs/notes/`name` (a notes history of its own), then joins
/// it into refs/notes/speccoder as `git notes merge -s union` does.
fn union_joined(clone: &Clone<'_>, name: &str, rev: &str, text: &str) {
    let file = clone.team.tmp.path().join(format!("note-{name}"));
    std::fs::write(&file, text).unwrap();
    let notes_ref = format!("refs/notes/{name}");
    clone.git(&[
        "notes",
        "--ref",
        &notes_ref,
        "add",
        "-f",
        "--no-stripspace",
        "-F",
        file.to_str().unwrap(),
        rev,
    ]);
    clone.git(&["notes", "--ref", NOTES_REF, "merge", "-q", "-s", "union", &notes_ref]);
}

#[test]
fn signatures_by_keys_nobody_trusts_never_take_the_place_of_a_trusted_approval_past_the_cap() {
    let team = Team::new();
    let (ada, t001, policy) = approvals_aside(&team);
    // Bob's approval; then an attacker's copy, Ada's summary with 15 more signatures by keys
    // nobody trusts; then Carol's approval, each joined by git's union.
    let keys: Vec<Key> =
        (0..15).map(|i| common::ed25519(&team.tmp.path().join("keys"), &format!("eve{i}"))).collect();
    let keys: Vec<&Key> = keys.iter().collect();
    let eve = with_summary(&ada, NOTES_REF, &t001, |line| signed_by(&team, line, &keys));
    let bob = ada.git(&["notes", "--ref", "refs/notes/bob", "show", &t001]);
    ada.replace_note(&t001, &bob);
    union_joined(&ada, "eve", &t001, &eve);
    ada.git(&["notes", "--ref", NOTES_REF, "merge", "-q", "-s", "union", "refs/notes/carol"]);

    let report = ada.speccoder(&["attest", "rejoin", &t001]).success();
    let summary = ada.note_lines(&t001).pop().unwrap();
    assert_eq!(summary.signatures.len(), 16, "{report}");
    let held = verify_approved(&ada, &policy).success();
    assert!(held.stdout.contains("\"evidenced\""), "Bob's and Carol's approvals both kept: {held}\n{report}");
    let left_out: Vec<&str> = report.stdout.lines().filter(|l| l.contains("left out:")).collect();
    assert_eq!(left_out.len(), 2, "{report}");
    for line in left_out {
        assert!(line.starts_with("  left out: a signature of line 11 by SSH key SHA256:"), "{report}");
        assert!(line.ends_with("past the 16 signatures an envelope may carry, whose free places went first to those your trust accepts"), "{report}");
    }
}

#[test]
fn a_field_no_signature_covers_added_by_a_relay_neither_wins_the_copy_kept_nor_keeps_an_approval_out() {
    let team = Team::new();
    let (ada, t001, policy) = approvals_aside(&team);
    // Bob's approved note as a relay passed it on, `"x":1` added to the summary's envelope, first;
    // Carol's after it.
    let relayed = with_summary(&ada, "refs/notes/bob", &t001, |line| {
        let mut envelope: Value = serde_json::from_str(line).unwrap();
        envelope["x"] = json!(1);
        serde_json::to_string(&envelope).unwrap()
    });
    ada.replace_note(&t001, &relayed);
    ada.git(&["notes", "--ref", NOTES_REF, "merge", "-q", "-s", "union", "refs/notes/carol"]);

    let report = ada.speccoder(&["attest", "rejoin", &t001]).success();
    assert!(!report.stdout.contains("left out"), "{report}");
    assert!(
        report.stdout.contains("line 5: of lines 5, 11, line 11 kept; 3 signature(s), 1 joined"),
        "{report}"
    );
    let summary = ada.note_lines(&t001).pop().unwrap();
    assert_eq!(summary.envelope.get("x"), None, "the copy without it kept: {:?}", summary.envelope);
    verify_approved(&ada, &policy).success();
}

#[test]
fn a_signature_by_a_key_the_user_s_trust_revokes_is_left_out_and_named() {
    let team = Team::new();
    let (ada, t001, _) = approvals_aside(&team);
    let eve = common::ed25519(&team.tmp.path().join("keys"), "eve");
    let revoked = team.tmp.path().join("revoked");
    std::fs::write(&revoked, format!("{}\n", eve.public_line)).unwrap();
    let copy = with_summary(&ada, NOTES_REF, &t001, |line| signed_by(&team, line, &[&eve]));
    union_joined(&ada, "eve", &t001, &copy);

    let revoked = revoked.to_str().unwrap();
    let report = ada.speccoder(&["attest", "rejoin", &t001, "--revoked", revoked]).success();
    let left_out = report.stdout.lines().find(|l| l.contains("left out:")).unwrap_or_default();
    assert!(left_out.starts_with("  left out: a signature of line 11 by SSH key SHA256:"), "{report}");
    assert!(left_out.contains("revoked SSH key SHA256:") && left_out.contains(revoked), "{report}");
    assert_eq!(ada.note_lines(&t001).pop().unwrap().signatures.len(), 1, "Ada's alone: {report}");
    // So does git's own revocation setting (the copy joined again as a union merge joins it).
    let own = String::from_utf8(ada.note(&t001).unwrap()).unwrap();
    ada.replace_note(&t001, &format!("{own}\n{copy}"));
    ada.git(&["config", "gpg.ssh.revocationFile", revoked]);
    let report = ada.speccoder(&["attest", "rejoin", &t001, "--json"]).success();
    let report: Value = serde_json::from_str(&report.stdout).unwrap();
    let left_out = &report["left_out"][0];
    assert_eq!((&left_out["what"], &left_out["trusted"]), (&json!("signature"), &json!(false)), "{report:#}");
    assert_eq!(ada.note_lines(&t001).pop().unwrap().signatures.len(), 1);
}

#[test]
fn a_second_different_statement_of_one_phase_beside_the_commit_s_own_is_two_notes_of_it() {
    let team = Team::new();
    let (ada, t001, _) = approvals_aside(&team);
    // Ada's note with its first line (a test result) replaced by another of the same phase, one
    // word of it changed, signed by Mallory, joined with Bob's approved note.
    let own = ada.note(&t001).unwrap();
    let mut lines: Vec<String> = String::from_utf8(own).unwrap().lines().map(str::to_owned).collect();
    let first = common::parse_bundle(format!("{}\n", lines[0]).as_bytes()).remove(0);
    let mut statement = first.statement.clone();
    statement["predicate"]["passedTests"] = json!(["injected"]);
    let payload = serde_json::to_vec(&statement).unwrap();
    let injected =
        json!({"payload": STANDARD.encode(&payload), "payloadType": common::PAYLOAD_TYPE, "signatures": []});
    lines[0] = signed_by(&team, &injected.to_string(), &[&team.mallory]);
    let bob = ada.git(&["notes", "--ref", "refs/notes/bob", "show", &t001]);
    ada.replace_note(&t001, &bob);
    union_joined(&ada, "mallory", &t001, &lines.iter().map(|l| format!("{l}\n")).collect::<String>());
    let joined = ada.note(&t001).unwrap();

    let refused = ada.speccoder(&["attest", "rejoin", &t001]).failure(26);
    let phase = first.statement["predicate"]["configuration"][0]["name"].as_str().unwrap();
    let phase = phase.strip_prefix("speccoder:phase/").unwrap();
    let phase = format!("different statements of one kind (test-result/{phase} at lines 1, 7)");
    assert!(refused.stderr.contains(&phase), "{refused}");
    assert!(
        refused.stderr.contains("nothing was written") && !refused.stderr.contains("to trust it"),
        "{refused}"
    );
    assert_eq!(ada.note(&t001).unwrap(), joined, "nothing written");
}

#[test]
fn a_joined_note_larger_than_a_reader_takes_is_rejoined_and_one_larger_than_rejoin_reads_is_told_as_not_read()
{
    let team = Team::new();
    let (ada, t001, _) = approvals_aside(&team);
    let own = String::from_utf8(ada.note(&t001).unwrap()).unwrap();
    let bob = ada.git(&["notes", "--ref", "refs/notes/bob", "show", &t001]);
    // Bob's note, then copies of Ada's over and over: more than the 2 MiB a reader takes.
    let copies = |bytes: usize| format!("{bob}{}", own.repeat(bytes / own.len() + 1));
    ada.replace_note(&t001, &copies(3 << 20));
    let report = ada.speccoder(&["attest", "rejoin", &t001]).success();
    assert!(report.stdout.contains("repeated: "), "{report}");
    assert_eq!(ada.note_lines(&t001).len(), 5, "{report}");
    verify_approved(&ada, &approvals_policy(&team.tmp.path().join("bob.toml"), &[team::BOB])).success();

    // More than four notes' worth: not read, and the advice keeps every line.
    ada.replace_note(&t001, &copies(9 << 20));
    let refused = ada.speccoder(&["attest", "rejoin", &t001]).failure(26);
    assert!(refused.stderr.contains("so it was not read and nothing was written"), "{refused}");
    assert!(!refused.stderr.contains("attest the task again"), "{refused}");
    let advice = quoted_after(&refused.stderr, "keep one of each of its lines");
    assert_eq!(advice.len(), 2, "{refused}");
    for command in &advice {
        paste(&ada, command);
    }
    assert_eq!(ada.note_lines(&t001).len(), 5);
    let summary = ada.note_lines(&t001).pop().unwrap();
    assert_eq!(summary.signatures.len(), 2, "Ada's and Bob's approval");
}
