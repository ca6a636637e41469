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
//! - blank lines in a note are told with the command that removes them.

use std::process::Command;

use serde_json::Value;

use crate::common::{self, NOTES_REF, Run};
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
    assert!(report.stdout.contains("left out: a signature of line 7: bad SSH signature"), "{report}");
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
