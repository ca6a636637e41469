//! Carry and fetch as a trust boundary, tried as an attacker would, on real repositories: a bare
//! remote, writers' clones with real SSH (and OpenPGP) keys, a hostile clone that writes the
//! remote's notes with plain `git`, and `git`, `ssh-keygen` and a Markdown parser as peers.
//!
//! - the same change is the same bytes in the same place: a string changed by one space, a line
//!   indented out of its block, the same line added in another place are refused by carry and by
//!   its hook, naming both commits; a neighbour's tick and a change elsewhere in the file are not
//!   a change;
//! - carry checks the old evidence as a CI gate would today: a key retired since it signed
//!   (`valid-before`), or revoked (git's `gpg.ssh.revocationFile`, `--revoked`, an OpenPGP
//!   revocation) is refused, naming the key and why, by carry and by its hook;
//! - a fetch never makes a note that held fail and never replaces statements: a remote's junk
//!   `sigstore` or unknown field, a flood of signatures past the cap, a signature that does not
//!   verify, a fast-forward that changes or removes our statements: each a conflict naming the
//!   commit, nothing moves, and `attest push` spreads nothing;
//! - a note, a line and a field beyond their caps are never read: `attest verify` says so;
//! - carry finds the matching commit among many decoys of the same task;
//! - remote and repository text never becomes a workflow command in any output, nor markup in
//!   the Markdown summary.
//!
//! Every repository of every test passes `git fsck --strict` at the end.

use crate::common;
use crate::team::{BOB, Clone, Team, base64_decode, refused_row, task};

use std::path::Path;
use std::process::Command;

use common::{Evidence, Key, NOTES_REF, PRINCIPAL, Run, SPECKIT_UNIT};
use serde_json::{Value, json};

/// The module the tasks of these tests change: two classes whose `delete` methods read the same,
/// so that a line added to one has the same context as in the other.
const ACCESS: &str = "class Reader:
    mode = \"read\"

    def delete(self, store, item, owner):
        if owner:
            store.remove(item)
        return store


class Writer:
    mode = \"write\"

    def delete(self, store, item, owner):
        if owner:
            store.remove(item)
        return store
";

/// The task's change: an audit, guarded by the ownership check, in the reader.
fn guarded(text: &str) -> String {
    text.replacen("        if owner:\n", "        if owner:\n            audit(item, \"read only\")\n", 1)
}

/// A clone whose owner writes `src/access.py` on main (pushed), then stages the task's change on
/// `feature-a` and attests T001 with it: the attested task commit.
fn attest_a_change(clone: &Clone<'_>) -> String {
    attest_a_change_as(clone, "T001")
}

/// [`attest_a_change`], for task `id`.
fn attest_a_change_as(clone: &Clone<'_>, id: &str) -> String {
    clone.write("src/access.py", ACCESS);
    clone.git(&["add", "src/access.py"]);
    clone.git(&["commit", "-q", "-m", "The access module"]);
    clone.git(&["push", "-q", "origin", "main"]);
    clone.git(&["checkout", "-q", "-b", "feature-a"]);
    clone.write("src/access.py", &guarded(ACCESS));
    clone.git(&["add", "src/access.py"]);
    clone.attest(id, &[])
}

/// Amends HEAD with its subject reworded (the same change): git runs the post-rewrite hook.
fn reword(clone: &Clone<'_>) -> Run {
    let message = clone.git(&["log", "-1", "--format=%B"]);
    let (_, rest) = message.split_once('\n').unwrap();
    let amend = clone.git_run(&["commit", "-q", "--amend", "-m", &format!("Reworded subject\n{rest}")]);
    assert!(amend.status.success(), "{amend}");
    amend
}

/// The reason of the single row `carry --json` refused with `code`, which must name `key`.
#[track_caller]
fn refused_naming(out: &Run, code: &str, key: &str) -> String {
    let row = refused_row(out);
    assert_eq!(row["code"], code, "{out}");
    let reason = row["reason"].as_str().unwrap().to_owned();
    assert!(reason.contains(key), "names the key {key}: {reason}");
    reason
}

/// What a command said, both streams.
fn said(run: &Run) -> String {
    format!("{}{}", run.stdout, run.stderr)
}

/// An amend that edits the commit's `Held-Out:` trailer makes the commit claim what its evidence
/// does not: carry refuses it as a row saying so, never as an error of its own.
#[test]
fn an_amended_held_out_trailer_is_refused_by_carry_and_its_hook_saying_which_trailer() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.speccoder(&["hooks", "install"]).success();
    let attested = attest_a_change(&ada);
    let message = ada.git(&["log", "-1", "--format=%B"]);
    let claimed = format!("Held-Out: passed=5/5 manifest=sha256:{}", "0".repeat(64));
    let edited = message.lines().map(|l| if l.starts_with("Held-Out:") { claimed.as_str() } else { l });
    let edited: Vec<&str> = edited.collect();
    assert_ne!(edited.join("\n"), message.trim_end(), "the commit has a Held-Out: trailer");
    let amend = ada.git_run(&["commit", "-q", "--amend", "-m", &edited.join("\n")]);
    assert!(amend.status.success(), "{amend}");
    assert!(said(&amend).contains("held_out_differs"), "the hook says why: {amend}");
    assert!(!said(&amend).contains("please report"), "no error of ours: {amend}");
    let new = ada.rev("HEAD");
    let refs = ada.refs();
    let out = ada.speccoder(&["attest", "carry", "--from", &attested, "--to", &new, "--json"]).failure(26);
    let reason = refused_naming(&out, "held_out_differs", "Held-Out:");
    assert!(reason.contains("passed=5/5") && reason.contains("`off`"), "{reason}");
    assert_eq!(ada.refs(), refs, "nothing was written");
}

#[test]
fn a_change_that_differs_in_a_string_in_its_indentation_or_in_its_place_is_refused_by_carry_and_its_hook() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.speccoder(&["hooks", "install"]).success();
    let attested = attest_a_change(&ada);
    type Rewrite = fn(&str) -> String;
    let rewrites: [(&str, Rewrite); 3] = [
        ("a string literal", |t| guarded(t).replace("\"read only\"", "\"readonly\"")),
        ("the indentation", |t| guarded(t).replace("            audit(", "        audit(")),
        ("the place", |t| {
            t.replacen("        if owner:\n", "\u{0}", 1)
                .replacen(
                    "        if owner:\n",
                    "        if owner:\n            audit(item, \"read only\")\n",
                    1,
                )
                .replacen('\u{0}', "        if owner:\n", 1)
        }),
    ];
    for (what, rewrite) in rewrites {
        ada.git(&["reset", "-q", "--hard", &attested]);
        ada.write("src/access.py", &rewrite(ACCESS));
        ada.git(&["add", "src/access.py"]);
        // The post-rewrite hook runs carry, which refuses; the amend itself goes through.
        let amend = ada.git_run(&["commit", "-q", "--amend", "--no-edit"]);
        assert!(amend.status.success(), "{what}: {amend}");
        assert!(said(&amend).contains("change_differs"), "{what}: the hook says why: {amend}");
        let new = ada.rev("HEAD");
        assert_ne!(new, attested);
        assert!(ada.note(&new).is_none(), "{what}: nothing was carried");

        let refs = ada.refs();
        let out =
            ada.speccoder(&["attest", "carry", "--from", &attested, "--to", &new, "--json"]).failure(26);
        let row = refused_row(&out);
        assert_eq!(row["code"], "change_differs", "{what}: {out}");
        let reason = row["reason"].as_str().unwrap();
        assert!(reason.contains(&attested) && reason.contains(&new), "{what}: names both: {reason}");
        assert!(reason.contains("run its checks"), "{what}: {reason}");
        assert!(reason.contains(&format!("speccoder attest {}", task("T001"))), "{what}: {reason}");
        assert_eq!(ada.refs(), refs, "{what}: nothing was written");
    }

    // The same change, only reworded, is carried by the hook.
    ada.git(&["reset", "-q", "--hard", &attested]);
    let amend = reword(&ada);
    assert!(said(&amend).contains("carried"), "{amend}");
    ada.assert_evidenced(1);
    team.fsck(&[&ada]);
}

#[test]
fn a_neighbours_tick_and_a_change_elsewhere_in_the_file_are_not_a_change_of_the_task() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let bob = team.writer("bob", &team.bob);
    ada.speccoder(&["hooks", "install"]).success();
    let attested = attest_a_change_as(&ada, "T006");

    // On main meanwhile: Bob ticks T004, two lines above T006 (within the three lines of context
    // of its tick), and the writer class gains a method.
    bob.git(&["pull", "-q", "--ff-only", "origin", "main"]);
    bob.attest("T004", &[]);
    let text = std::fs::read_to_string(bob.dir.join("src/access.py")).unwrap();
    bob.write("src/access.py", &format!("{text}\n    def close(self):\n        return None\n"));
    bob.git(&["commit", "-q", "-am", "Writers close"]);
    bob.speccoder(&["attest", "push"]).success();

    ada.git(&["fetch", "-q", "origin"]);
    let rebase = ada.git_run(&["rebase", "origin/main"]);
    assert!(rebase.status.success(), "{rebase}");
    assert!(said(&rebase).contains("carried"), "the hook carried it: {rebase}");
    let new = ada.rev("HEAD");
    assert_ne!(new, attested);
    let lines = ada.note_lines(&new);
    let tv = crate::team::task_verification(&lines);
    assert_eq!(tv["predicate"]["carried"]["from"], attested.as_str());
    ada.speccoder(&["attest", "fetch"]).success();
    ada.assert_evidenced(2);
    team.fsck(&[&ada, &bob]);
}

/// `ssh-keygen -lf key.pub`: the key's `SHA256:` fingerprint.
fn fingerprint(home: &Path, key: &Key) -> String {
    let mut cmd = Command::new("ssh-keygen");
    common::isolate(&mut cmd, home);
    cmd.arg("-lf").arg(&key.public);
    let out = common::run(cmd).success();
    out.stdout.split_whitespace().nth(1).unwrap().to_owned()
}

/// The committer date of a backdated tick: 2023-11-14.
const BACKDATED: &str = "@1700000000 +0000";

#[test]
fn carry_and_its_hook_check_the_old_signatures_now_so_a_retired_key_is_not_laundered() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.speccoder(&["hooks", "install"]).success();
    // Ada trusted Bob's key until 2024.
    let trust = team.tmp.path().join("trust-with-retired-bob");
    let lines = format!(
        "{PRINCIPAL} namespaces=\"in-toto\" {}\n{BOB} namespaces=\"in-toto\",valid-before=\"20240101\" {}\n",
        team.ada.public_line, team.bob.public_line
    );
    std::fs::write(&trust, lines).unwrap();
    ada.git(&["config", "gpg.ssh.allowedSignersFile", trust.to_str().unwrap()]);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    // Evidence signed with Bob's key, on a commit dated before the key was retired.
    let evidence = common::write_evidence(&team.tmp.path().join("ev-old"), &task("T001"), Evidence::Verified);
    let target = task("T001");
    let mut cmd = ada.speccoder_command(&[
        "attest",
        &target,
        "--evidence",
        evidence.to_str().unwrap(),
        "--key",
        team.bob.private.to_str().unwrap(),
    ]);
    cmd.env("GIT_COMMITTER_DATE", BACKDATED).env("GIT_AUTHOR_DATE", BACKDATED);
    common::run(cmd).success();
    let old = ada.rev("HEAD");
    let verify = |args: &[&str]| {
        let mut all = vec!["attest", "verify", &old, "--allowed-signers", trust.to_str().unwrap()];
        all.extend(args);
        ada.speccoder(&all)
    };
    verify(&[]).success();
    verify(&["--signature-time", "now"]).failure(26);

    // A rebase: the hook's carry checks Bob's signature today and refuses to re-sign it as Ada.
    team.move_main("main-moves");
    ada.git(&["fetch", "-q", "origin"]);
    let rebase = ada.git_run(&["rebase", "origin/main"]);
    assert!(rebase.status.success(), "{rebase}");
    assert!(said(&rebase).contains("untrusted_signer"), "the hook says why: {rebase}");
    let new = ada.rev("HEAD");
    assert!(ada.note(&new).is_none(), "nothing was re-signed: {rebase}");

    let out = ada.speccoder(&["attest", "carry", "--json"]).failure(26);
    let reason = refused_naming(&out, "untrusted_signer", &fingerprint(&team.home, &team.bob));
    assert!(reason.contains("valid-before"), "says why: {reason}");
    assert!(reason.contains(&format!("speccoder attest {target}")), "says how to attest again: {reason}");
    assert!(ada.note(&new).is_none());
    team.fsck(&[&ada]);
}

#[test]
fn carry_and_its_hook_refuse_evidence_signed_by_a_key_revoked_since() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.speccoder(&["hooks", "install"]).success();
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    ada.attest("T001", &["--key", team.bob.private.to_str().unwrap()]);
    // Bob's key is revoked, in the file git's gpg.ssh.revocationFile names.
    let revoked = team.tmp.path().join("revoked-keys");
    std::fs::write(&revoked, format!("{}\n", team.bob.public_line)).unwrap();
    ada.git(&["config", "gpg.ssh.revocationFile", revoked.to_str().unwrap()]);

    let amend = reword(&ada);
    assert!(said(&amend).contains("revoked_key"), "the hook says why: {amend}");
    let new = ada.rev("HEAD");
    assert!(ada.note(&new).is_none(), "{amend}");

    let out = ada.speccoder(&["attest", "carry", "--json"]).failure(26);
    let reason = refused_naming(&out, "revoked_key", &fingerprint(&team.home, &team.bob));
    assert!(reason.contains(revoked.to_str().unwrap()), "names the list: {reason}");

    // `--revoked FILE` revokes besides the configured list.
    ada.git(&["config", "--unset", "gpg.ssh.revocationFile"]);
    let out =
        ada.speccoder(&["attest", "carry", "--revoked", revoked.to_str().unwrap(), "--json"]).failure(26);
    assert_eq!(refused_row(&out)["code"], "revoked_key", "{out}");
    ada.speccoder(&["attest", "carry"]).success();
    ada.assert_evidenced(1);
    team.fsck(&[&ada]);
}

/// gpg on the keyring of `team`'s home (batch, no passphrase).
fn gpg(team: &Team, args: &[&str]) -> Run {
    common::gpg(&team.home, args)
}

#[test]
fn carry_refuses_openpgp_evidence_whose_key_was_revoked_since_naming_the_key() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    gpg(&team, &["--quick-gen-key", "Bob <bob@example.com>", "ed25519", "sign", "1y"]);
    let listing = gpg(&team, &["--with-colons", "--list-keys", "bob@example.com"]).stdout;
    let fpr = listing.lines().find_map(|l| l.strip_prefix("fpr:")).unwrap().trim_matches(':').to_owned();
    let certs = team.tmp.path().join("bob.asc");
    std::fs::write(&certs, gpg(&team, &["--armor", "--export", &fpr]).stdout).unwrap();
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    ada.attest("T001", &["--signer", "openpgp", "--key", &fpr]);
    let new = crate::team::rebase_onto_moved_main(&team, &ada);
    let certs_arg = certs.to_str().unwrap().to_owned();

    // Revoked since, with the revocation gpg made with the key; the exported certificate says so.
    let rev = team.home.join(".gnupg").join("openpgp-revocs.d").join(format!("{fpr}.rev"));
    let rev = std::fs::read_to_string(rev).unwrap().replace(":-----BEGIN PGP", "-----BEGIN PGP");
    let rev_file = team.tmp.path().join("bob.rev");
    std::fs::write(&rev_file, rev).unwrap();
    gpg(&team, &["--import", rev_file.to_str().unwrap()]);
    std::fs::write(&certs, gpg(&team, &["--armor", "--export", &fpr]).stdout).unwrap();
    let out = ada.speccoder(&["attest", "carry", "--openpgp-certs", &certs_arg, "--json"]).failure(26);
    refused_naming(&out, "revoked_key", &fpr);
    assert!(ada.note(&new).is_none());
    team.fsck(&[&ada]);
}

/// A key made in `team`'s keyring on 2020-01-01 (expiring after `expire`, as gpg writes it), and
/// Ada's evidence of T001 signed with it as on 2020-06-01 (gpg's clock set back through
/// `gpg.program`, so the signature's own time says so), then rebased: the key's fingerprint, the
/// attested commit and the rebased one, which lacks the evidence.
fn evidence_signed_in_2020(
    team: &Team,
    ada: &Clone<'_>,
    uid: &str,
    expire: &str,
) -> (String, String, String) {
    gpg(
        team,
        &["--faked-system-time", "20200101T000000!", "--quick-gen-key", uid, "ed25519", "sign", expire],
    );
    let email = uid.split(['<', '>']).nth(1).unwrap();
    let listing = gpg(team, &["--with-colons", "--list-keys", email]).stdout;
    let fpr = listing.lines().find_map(|l| l.strip_prefix("fpr:")).unwrap().trim_matches(':').to_owned();
    let in_2020 = team.tmp.path().join("gpg-in-2020");
    std::fs::write(&in_2020, "#!/bin/sh\nexec gpg --faked-system-time 20200601T000000! \"$@\"\n").unwrap();
    std::fs::set_permissions(&in_2020, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    ada.git(&["config", "gpg.program", in_2020.to_str().unwrap()]);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    let old = ada.attest("T001", &["--signer", "openpgp", "--key", &fpr]);
    ada.git(&["config", "--unset", "gpg.program"]);
    let new = crate::team::rebase_onto_moved_main(team, ada);
    (fpr, old, new)
}

/// `fpr`'s certificate as the keyring holds it now, in a file outside every clone.
fn export_certificate(team: &Team, fpr: &str) -> String {
    let certs = team.tmp.path().join(format!("{fpr}.asc"));
    std::fs::write(&certs, gpg(team, &["--armor", "--export", fpr]).stdout).unwrap();
    certs.to_str().unwrap().to_owned()
}

/// `attest verify OLD` holds (in-process and through sqv: keys judged at the signature's time),
/// while `attest carry` judges them today and refuses with `code`, naming the key and `says`.
#[track_caller]
fn verify_holds_and_carry_refuses(
    ada: &Clone<'_>,
    old: &str,
    new: &str,
    certs: &str,
    fpr: &str,
    code: &str,
    says: &str,
) {
    for tools in [&[][..], &["--via-tools"][..]] {
        let mut args = vec!["attest", "verify", old, "--openpgp-certs", certs];
        args.extend(tools);
        ada.speccoder(&args).success();
    }
    let out = ada.speccoder(&["attest", "carry", "--openpgp-certs", certs, "--json"]).failure(26);
    let reason = refused_naming(&out, code, fpr);
    assert!(reason.contains(says), "says what and when ({says}): {reason}");
    assert!(reason.contains("2020-06-01T00:00:00Z"), "names when it signed: {reason}");
    assert!(ada.note(new).is_none(), "nothing was re-signed: {out}");
    let text = ada.speccoder(&["attest", "carry", "--openpgp-certs", certs]).failure(26);
    assert!(text.stdout.contains(&format!("({code})")), "{text}");
}

#[test]
fn carry_refuses_openpgp_evidence_whose_key_expired_since_it_signed_which_verify_still_accepts() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let (fpr, old, new) = evidence_signed_in_2020(&team, &ada, "Old <old@example.com>", "1y");
    let certs = export_certificate(&team, &fpr);
    verify_holds_and_carry_refuses(
        &ada,
        &old,
        &new,
        &certs,
        &fpr,
        "expired_key",
        "the certificate expired at 2020-12-31T00:00:00Z",
    );
    team.fsck(&[&ada]);
}

#[test]
fn carry_refuses_openpgp_evidence_whose_key_was_superseded_since_it_signed_which_verify_still_accepts() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let (fpr, old, new) = evidence_signed_in_2020(&team, &ada, "Sup <sup@example.com>", "never");
    // A soft revocation, made today: "Key is superseded" (gpg's reason 2).
    let mut cmd = Command::new("gpg");
    common::isolate(&mut cmd, &team.home);
    cmd.args(["--no-tty", "--pinentry-mode", "loopback", "--passphrase", "", "--command-fd", "0"])
        .args(["--armor", "--gen-revoke", &fpr])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), b"y\n2\nreplaced by a new key\n\ny\n")
        .unwrap();
    let revocation = child.wait_with_output().unwrap();
    assert!(revocation.status.success(), "{}", String::from_utf8_lossy(&revocation.stderr));
    let rev_file = team.tmp.path().join("superseded.rev");
    std::fs::write(&rev_file, &revocation.stdout).unwrap();
    gpg(&team, &["--import", rev_file.to_str().unwrap()]);
    let certs = export_certificate(&team, &fpr);
    let listed = gpg(&team, &["--list-packets", &certs]).stdout;
    assert!(listed.contains("revocation reason 0x01"), "a superseded revocation: {listed}");
    verify_holds_and_carry_refuses(
        &ada,
        &old,
        &new,
        &certs,
        &fpr,
        "revoked_key",
        "Key is superseded: \"replaced by a new key\"",
    );
    team.fsck(&[&ada]);
}

// --- the remote -------------------------------------------------------------------------------

/// Mallory's clone: she can push to the remote, and writes its notes with plain git.
fn mallory(team: &Team) -> Clone<'_> {
    let m = team.clone("mallory", &[]);
    m.git(&["fetch", "-q", "origin", &format!("+{NOTES_REF}:{NOTES_REF}")]);
    m
}

/// Mallory replaces `commit`'s note on the remote by `lines`, in a notes commit on top of the
/// remote's: a fast-forward for every clone that has fetched the remote's notes.
fn replace_remote_note(m: &Clone<'_>, commit: &str, lines: &[Vec<u8>]) {
    m.git(&["fetch", "-q", "origin", &format!("+{NOTES_REF}:{NOTES_REF}")]);
    let text: Vec<u8> = lines.iter().flat_map(|l| l.iter().copied().chain([b'\n'])).collect();
    m.replace_note(commit, std::str::from_utf8(&text).unwrap());
    m.git(&["push", "-q", "origin", NOTES_REF]);
}

/// The note lines of `commit` on the remote, each a JSON value.
fn remote_lines(team: &Team, commit: &str) -> Vec<Value> {
    let note = team.remote_note(commit).unwrap();
    String::from_utf8(note).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn line_bytes(envelope: &Value) -> Vec<u8> {
    serde_json::to_vec(envelope).unwrap()
}

fn b64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Ada attests T001 (signed) and pushes; Bob fetches it: the note holds in Bob's clone.
fn ada_attests_and_bob_fetches<'t>(team: &'t Team) -> (Clone<'t>, Clone<'t>, String) {
    let ada = team.writer("ada", &team.ada);
    let bob = team.writer("bob", &team.bob);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    let t001 = ada.attest("T001", &[]);
    ada.speccoder(&["attest", "push"]).success();
    bob.git(&["fetch", "-q", "origin"]);
    bob.git(&["checkout", "-q", "feature-a"]);
    bob.speccoder(&["attest", "fetch"]).success();
    bob.assert_evidenced(1);
    (ada, bob, t001)
}

/// Bob fetches and is refused with a notes conflict naming `commit`; his notes do not move, his
/// evidence holds, and his push spreads nothing.
#[track_caller]
fn assert_refused_and_nothing_moves(team: &Team, bob: &Clone<'_>, commit: &str, says: &str) -> Run {
    let before = bob.rev(NOTES_REF);
    let out = bob.speccoder(&["attest", "fetch"]).failure(14);
    assert!(out.stderr.contains(commit), "names the commit: {out}");
    assert!(out.stderr.contains(says), "says why ({says}): {out}");
    assert_eq!(bob.rev(NOTES_REF), before, "nothing moved");
    bob.assert_evidenced(1);
    let remote_before = team.remote_note(commit);
    let pushed = bob.speccoder(&["attest", "push"]);
    assert_eq!(pushed.code(), Some(14), "{pushed}");
    assert_eq!(bob.rev(NOTES_REF), before, "push merged nothing");
    assert_eq!(team.remote_note(commit), remote_before, "push spread nothing");
    out
}

#[test]
fn a_remote_that_adds_a_sigstore_or_unknown_field_to_our_line_is_a_conflict_and_nothing_moves() {
    let team = Team::new();
    let (_ada, bob, t001) = ada_attests_and_bob_fetches(&team);
    let m = mallory(&team);
    for how in ["a fast-forward", "a merge"] {
        if how == "a merge" {
            // Bob's notes gain a note of his own: the remote's no longer descend from his.
            bob.git(&["checkout", "-q", "-b", "feature-b"]);
            bob.attest("T003", &[]);
            bob.git(&["checkout", "-q", "feature-a"]);
        }
        for (field, value) in [("sigstore", json!({"junk": true})), ("x-extra", json!("anything"))] {
            let mut lines = remote_lines(&team, &t001);
            lines[0][field] = value;
            replace_remote_note(&m, &t001, &lines.iter().map(line_bytes).collect::<Vec<_>>());
            assert_refused_and_nothing_moves(&team, &bob, &t001, &format!("`{field}`"));
            // Put back: the next case starts from the remote's evidence as Ada wrote it.
            let mut original = remote_lines(&team, &t001);
            original[0].as_object_mut().unwrap().remove(field);
            replace_remote_note(&m, &t001, &original.iter().map(line_bytes).collect::<Vec<_>>());
        }
    }
    team.fsck(&[&bob, &m]);
}

#[test]
fn a_remote_signature_is_joined_only_when_it_verifies_by_a_new_key_within_the_cap() {
    let team = Team::new();
    let (_ada, bob, t001) = ada_attests_and_bob_fetches(&team);
    let m = mallory(&team);
    let keys_dir = team.tmp.path().join("flood-keys");
    std::fs::create_dir_all(&keys_dir).unwrap();
    let original = remote_lines(&team, &t001);
    let pae =
        |env: &Value| common::pae(common::PAYLOAD_TYPE, &base64_decode(env["payload"].as_str().unwrap()));

    // A signature that does not verify over the line.
    let mut lines = original.clone();
    let junk = common::ssh_sign(team.tmp.path(), &team.home, &team.mallory, b"something else");
    lines[0]["signatures"].as_array_mut().unwrap().push(json!({"keyid": "m", "sig": b64(&junk)}));
    replace_remote_note(&m, &t001, &lines.iter().map(line_bytes).collect::<Vec<_>>());
    assert_refused_and_nothing_moves(&team, &bob, &t001, "does not verify");

    // A second signature by Ada's key (another hash, so other bytes): the key is on the line.
    let mut lines = original.clone();
    let again = common::ssh_sign_with(
        team.tmp.path(),
        &team.home,
        &team.ada,
        &pae(&lines[0]),
        &["-O", "hashalg=sha256"],
    );
    lines[0]["signatures"].as_array_mut().unwrap().push(json!({"keyid": "a", "sig": b64(&again)}));
    replace_remote_note(&m, &t001, &lines.iter().map(line_bytes).collect::<Vec<_>>());
    assert_refused_and_nothing_moves(&team, &bob, &t001, "already");

    // Sixteen valid signatures by other keys, Ada's dropped: the union would pass the cap.
    let mut lines = original.clone();
    let data = pae(&lines[0]);
    let flood: Vec<Value> = (0..16)
        .map(|i| {
            let key = common::ed25519(&keys_dir, &format!("k{i}"));
            json!({"keyid": format!("k{i}"), "sig": b64(&common::ssh_sign(team.tmp.path(), &team.home, &key, &data))})
        })
        .collect();
    lines[0]["signatures"] = Value::Array(flood);
    replace_remote_note(&m, &t001, &lines.iter().map(line_bytes).collect::<Vec<_>>());
    assert_refused_and_nothing_moves(&team, &bob, &t001, "more than the 16");

    // One valid countersignature by a key not on the line: joined (a fast-forward), and holds.
    let mut lines = original.clone();
    let sig = common::ssh_sign(team.tmp.path(), &team.home, &team.mallory, &pae(&lines[0]));
    lines[0]["signatures"].as_array_mut().unwrap().push(json!({"keyid": "m", "sig": b64(&sig)}));
    replace_remote_note(&m, &t001, &lines.iter().map(line_bytes).collect::<Vec<_>>());
    bob.speccoder(&["attest", "fetch"]).success();
    assert_eq!(bob.note_lines(&t001)[0].signatures.len(), 2);
    bob.assert_evidenced(1);
    team.fsck(&[&bob, &m]);
}

#[test]
fn a_remote_fast_forward_that_changes_or_removes_our_statements_is_a_conflict_naming_them() {
    let team = Team::new();
    let (_ada, bob, t001) = ada_attests_and_bob_fetches(&team);
    let m = mallory(&team);
    let original = remote_lines(&team, &t001);

    // A statement replaced: the task verification's context edited and signed again by Mallory.
    let mut lines = original.clone();
    let at = lines
        .iter()
        .position(|l| {
            common::statement_of(&line_bytes(l))["predicateType"]
                == "https://speccoder.dev/task-verification/v0"
        })
        .unwrap();
    let mut statement = common::statement_of(&line_bytes(&lines[at]));
    statement["predicate"]["context"] = json!("approved");
    let payload = serde_json::to_vec(&statement).unwrap();
    let sig = common::ssh_sign(
        team.tmp.path(),
        &team.home,
        &team.mallory,
        &common::pae(common::PAYLOAD_TYPE, &payload),
    );
    lines[at] = json!({"payload": b64(&payload), "payloadType": common::PAYLOAD_TYPE, "signatures": [{"keyid": "m", "sig": b64(&sig)}]});
    replace_remote_note(&m, &t001, &lines.iter().map(line_bytes).collect::<Vec<_>>());
    let out = assert_refused_and_nothing_moves(&team, &bob, &t001, "different statements");
    assert!(out.stderr.contains("Each was attested twice, differently"), "{out}");
    let old_digest = common::sha256(&base64_decode(original[at]["payload"].as_str().unwrap()));
    assert!(out.stderr.contains(&old_digest), "names the statement: {out}");

    // The note removed.
    m.git(&["fetch", "-q", "origin", &format!("+{NOTES_REF}:{NOTES_REF}")]);
    m.git(&["notes", "--ref", NOTES_REF, "remove", &t001]);
    m.git(&["push", "-q", "origin", NOTES_REF]);
    let out = assert_refused_and_nothing_moves(&team, &bob, &t001, "no longer hold");
    assert!(!out.stderr.contains("attested twice"), "a removal is not a second attestation: {out}");
    team.fsck(&[&bob, &m]);
}

#[test]
fn a_remote_openpgp_signature_joins_only_when_this_clone_has_its_certificate() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let bob = team.writer("bob", &team.bob);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    let t001 = ada.attest("T001", &["--signer", "none"]);
    ada.speccoder(&["attest", "push"]).success();
    bob.speccoder(&["attest", "fetch"]).success();
    // Ada signs later, with OpenPGP, and pushes.
    gpg(&team, &["--quick-gen-key", "Ada <ada@example.com>", "ed25519", "sign", "1y"]);
    let listing = gpg(&team, &["--with-colons", "--list-keys", "ada@example.com"]).stdout;
    let fpr = listing.lines().find_map(|l| l.strip_prefix("fpr:")).unwrap().trim_matches(':').to_owned();
    let certs = team.tmp.path().join("ada.asc");
    std::fs::write(&certs, gpg(&team, &["--armor", "--export", &fpr]).stdout).unwrap();
    ada.speccoder(&["attest", "sign", &t001, "--signer", "openpgp", "--key", &fpr]).success();
    ada.speccoder(&["attest", "push"]).success();

    // Bob cannot check it without Ada's certificate: a conflict, nothing moves.
    let before = bob.rev(NOTES_REF);
    let out = bob.speccoder(&["attest", "fetch"]).failure(14);
    assert!(out.stderr.contains("no OpenPGP certificates"), "{out}");
    assert_eq!(bob.rev(NOTES_REF), before);
    // With it, the signed lines replace the unsigned ones.
    bob.speccoder(&["attest", "fetch", "--openpgp-certs", certs.to_str().unwrap()]).success();
    assert_eq!(bob.note(&t001), ada.note(&t001));
    team.fsck(&[&ada, &bob]);
}

// --- bounded input ------------------------------------------------------------------------------

#[test]
fn verify_reads_no_note_line_or_field_beyond_its_cap_and_says_so() {
    let team = Team::new();
    let (ada, bob, t001) = ada_attests_and_bob_fetches(&team);
    let original = remote_lines(&team, &t001);
    let cases: [(&str, Vec<u8>, &str); 3] = [
        (
            "a field",
            {
                let mut l = original.clone();
                l[0]["x-junk"] = json!("x".repeat(100 << 10));
                l.iter().flat_map(|v| line_bytes(v).into_iter().chain([b'\n'])).collect()
            },
            "too_large",
        ),
        (
            "a line",
            {
                let mut l = original.clone();
                l[0]["x-junk"] = json!("x".repeat(60 << 10));
                for i in 0..20 {
                    l[0][format!("x-{i}")] = json!("y".repeat(60 << 10));
                }
                l.iter().flat_map(|v| line_bytes(v).into_iter().chain([b'\n'])).collect()
            },
            "too_large",
        ),
        (
            "a note",
            {
                let mut note: Vec<u8> =
                    original.iter().flat_map(|v| line_bytes(v).into_iter().chain([b'\n'])).collect();
                note.extend(std::iter::repeat_n(b' ', 5 << 20));
                note
            },
            "note_too_large",
        ),
    ];
    for (what, note, code) in cases {
        ada.replace_note(&t001, std::str::from_utf8(&note).unwrap());
        let out = ada.verify(&["--json"]).failure(26);
        let report: Value =
            serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{what}: {e}\n{out}"));
        let codes: Vec<&str> = report["ticks"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["code"].as_str().unwrap())
            .collect();
        assert!(codes.contains(&code), "{what}: {codes:?}");
    }
    // Nor does `attest sign` read it to sign it.
    let out = ada.speccoder(&["attest", "sign", &t001]).failure(14);
    assert!(out.stderr.contains("so it is not read"), "{out}");
    assert!(out.stderr.starts_with("speccoder attest sign: "), "named by its own command: {out}");
    team.fsck(&[&ada, &bob]);
}

#[test]
fn carry_finds_the_same_change_among_many_decoys_of_the_task() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    ada.git(&["checkout", "-q", "-b", "feature-a"]);
    let old = ada.attest("T001", &[]);
    let note = String::from_utf8(ada.note(&old).unwrap()).unwrap();
    let message = ada.git(&["log", "-1", "--format=%B", &old]);
    // Decoys: commits of the same task, each changing something else, each with a note, newer.
    let tree = ada.rev(&format!("{old}^{{tree}}"));
    let mut last = ada.rev(&format!("{old}^"));
    for i in 0..200 {
        ada.write("decoy.txt", &format!("decoy {i}\n"));
        let blob = ada.git(&["hash-object", "-w", "decoy.txt"]).trim().to_owned();
        let index = team.tmp.path().join("decoy-index");
        let env_tree = {
            let mut cmd = common::git_command(&ada.dir, &team.home, &["read-tree", &tree]);
            cmd.env("GIT_INDEX_FILE", &index);
            common::run(cmd).success();
            let mut cmd = common::git_command(
                &ada.dir,
                &team.home,
                &["update-index", "--add", "--cacheinfo", &format!("100644,{blob},decoy.txt")],
            );
            cmd.env("GIT_INDEX_FILE", &index);
            common::run(cmd).success();
            let mut cmd = common::git_command(&ada.dir, &team.home, &["write-tree"]);
            cmd.env("GIT_INDEX_FILE", &index);
            common::run(cmd).success().stdout.trim().to_owned()
        };
        let mut cmd = common::git_command(
            &ada.dir,
            &team.home,
            &["commit-tree", &env_tree, "-p", &last, "-m", &message],
        );
        cmd.env("GIT_COMMITTER_DATE", format!("@{} +0000", 4_000_000_000u64 + i));
        let decoy = common::run(cmd).success().stdout.trim().to_owned();
        ada.replace_note(&decoy, &note);
        last = decoy;
    }
    std::fs::remove_file(ada.dir.join("decoy.txt")).unwrap();
    ada.git(&["update-ref", "refs/decoys", &last]);
    let new = crate::team::rebase_onto_moved_main(&team, &ada);
    let out = ada.speccoder(&["attest", "carry", "--json"]).success();
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["carried"][0]["from"], old.as_str(), "{out}");
    assert_eq!(report["carried"][0]["to"], new.as_str(), "{out}");
    ada.assert_evidenced(1);
    team.fsck(&[&ada]);
}

// --- text -----------------------------------------------------------------------------------------

/// Fails when a line of `text` would be read by a CI runner as a workflow command.
#[track_caller]
fn assert_no_workflow_command(what: &str, text: &str) {
    for line in text.lines() {
        let line = line.trim_start();
        assert!(
            !line.starts_with("::") && !line.starts_with("##"),
            "{what}: a line reads as a command: {line}\n{text}"
        );
    }
}

#[test]
fn remote_and_repository_text_never_starts_a_line_of_output() {
    let team = Team::new();
    let (ada, bob, t001) = ada_attests_and_bob_fetches(&team);
    let m = mallory(&team);
    // Bob's notes gain a note of his own, so that the fetch below merges.
    bob.git(&["checkout", "-q", "-b", "feature-b"]);
    bob.attest("T003", &[]);
    // The remote's copy gains a statement whose predicate type carries a workflow command.
    let mut lines = remote_lines(&team, &t001);
    let injected = json!({
        "_type": "https://in-toto.io/Statement/v1",
        "subject": [],
        "predicateType": "x\n::add-mask::secret\n::warning::pwned\r\n##[error]pwned",
        "predicate": {},
    });
    let payload = serde_json::to_vec(&injected).unwrap();
    lines.push(json!({"payload": b64(&payload), "payloadType": common::PAYLOAD_TYPE, "signatures": []}));
    replace_remote_note(&m, &t001, &lines.iter().map(line_bytes).collect::<Vec<_>>());
    let out = bob.speccoder(&["attest", "fetch"]).failure(14);
    assert!(out.stderr.contains("add-mask"), "the text is shown, escaped: {out}");
    assert_no_workflow_command("fetch", &said(&out));
    let out = bob.speccoder(&["attest", "push"]).failure(14);
    assert_no_workflow_command("push", &said(&out));

    // The same line in a note verify reads, carry refuses and sign signs.
    let note: Vec<u8> = lines.iter().flat_map(|v| line_bytes(v).into_iter().chain([b'\n'])).collect();
    ada.replace_note(&t001, std::str::from_utf8(&note).unwrap());
    let out = ada.verify(&[]).failure(26);
    assert!(out.stdout.contains("add-mask"), "{out}");
    assert_no_workflow_command("verify", &said(&out));
    let out = ada.speccoder(&["attest", "sign", &t001]);
    assert_no_workflow_command("sign", &said(&out));
    crate::team::rebase_onto_moved_main(&team, &ada);
    let out = ada.speccoder(&["attest", "carry"]).failure(26);
    assert_no_workflow_command("carry", &said(&out));
    team.fsck(&[&ada, &bob, &m]);
}

#[test]
fn a_unit_named_like_a_web_address_is_a_code_span_in_the_markdown_summary() {
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    // On main: the unit is renamed to read as an address, and its T001 is attested and pushed.
    let unit = "001-see-www.evil-example.com";
    ada.git(&["mv", &format!("specs/{SPECKIT_UNIT}"), &format!("specs/{unit}")]);
    ada.git(&["commit", "-q", "-m", "Rename the unit"]);
    let evidence =
        common::write_evidence(&team.tmp.path().join("ev"), &format!("{unit}/T001"), Evidence::Verified);
    ada.speccoder(&["attest", &format!("{unit}/T001"), "--evidence", evidence.to_str().unwrap()]).success();
    ada.git(&["push", "-q", "origin", "main"]);
    ada.speccoder(&["attest", "push"]).success();
    ada.git(&["fetch", "-q", "origin"]);
    // A branch that unticks it: the report warns, naming the task.
    ada.git(&["checkout", "-q", "-b", "feature-b"]);
    let tasks = format!("specs/{unit}/tasks.md");
    let text = std::fs::read_to_string(ada.dir.join(&tasks)).unwrap().replace("- [X] T001", "- [ ] T001");
    ada.write(&tasks, &text);
    ada.git(&["commit", "-q", "-am", "Untick T001"]);
    let md = team.tmp.path().join("summary.md");
    ada.verify(&["--allow-empty", "--markdown", md.to_str().unwrap()]).success();
    let summary = std::fs::read_to_string(&md).unwrap();
    assert!(summary.contains("www.evil-example.com"), "{summary}");
    // Read as GitHub would: outside code spans, no text holds the address.
    use pulldown_cmark::{Event, Options, Parser};
    for event in Parser::new_ext(&summary, Options::ENABLE_TABLES) {
        match event {
            Event::Text(t) => assert!(!t.contains("www."), "{t:?} is text outside a code span:\n{summary}"),
            Event::Html(h) | Event::InlineHtml(h) => panic!("HTML: {h}\n{summary}"),
            _ => {}
        }
    }
    team.fsck(&[&ada]);
}

// --- references of the remote that no merge can take ------------------------------------------

/// Writes `bytes` into the remote as an object of `kind` (`--literally`: kept as given, as a
/// hostile pusher's object is); its id.
fn remote_object(team: &Team, kind: &str, bytes: &[u8]) -> String {
    let file = tempfile::NamedTempFile::new_in(team.tmp.path()).unwrap();
    std::fs::write(file.path(), bytes).unwrap();
    let path = file.path().to_str().unwrap();
    team.run_git(&team.remote, &["hash-object", "-t", kind, "--literally", "-w", path]).trim().to_owned()
}

/// A commit in the remote whose tree holds one entry, a blob named `.git`, which git refuses.
fn remote_commit_holding_dot_git(team: &Team) -> String {
    let blob = remote_object(team, "blob", b"evil\n");
    let mut tree = b"100644 .git\0".to_vec();
    tree.extend(hex::decode(&blob).unwrap());
    let tree = remote_object(team, "tree", &tree);
    let identity = ["-c", "user.name=Mallory", "-c", "user.email=mallory@example.com"];
    team.run_git(&team.remote, &[&identity[..], &["commit-tree", &tree, "-m", "evil"]].concat())
        .trim()
        .to_owned()
}

#[test]
fn a_remote_reference_no_merge_can_take_is_a_named_conflict_and_every_other_reference_merges() {
    let team = Team::new();
    let (ada, bob, _t001) = ada_attests_and_bob_fetches(&team);
    ada.speccoder(&["skip", &task("T006"), "--reason", "covered by T005"]).success();
    ada.speccoder(&["attest", "push"]).success();
    bob.speccoder(&["attest", "fetch"]).success();
    let skip = format!("refs/speccoder/skipped/{SPECKIT_UNIT}/T006");
    let held_out = format!("refs/speccoder/held-out/{SPECKIT_UNIT}");
    let (ours, main) = (bob.rev(&skip), bob.rev("origin/main"));
    // A pushed skip replaced by a blob; a held-out ref whose tree holds `.git`; a skip below one
    // Bob made and has not pushed; and a new skip, which sorts after them all.
    let blob = remote_object(&team, "blob", b"x\n");
    let remote = |args: &[&str]| team.run_git(&team.remote, args);
    remote(&["update-ref", &skip, &blob]);
    remote(&["update-ref", &held_out, &remote_commit_holding_dot_git(&team)]);
    bob.git(&["update-ref", "refs/speccoder/skipped/mine", &main]);
    remote(&["update-ref", "refs/speccoder/skipped/mine/T1", &main]);
    remote(&["update-ref", "refs/speccoder/skipped/zz-unit/T1", &main]);

    for _ in 0..2 {
        let out = bob.speccoder(&["attest", "fetch"]).failure(14);
        let said = said(&out);
        assert!(said.contains("the remote's is a blob, not a commit"), "{said}");
        assert!(
            said.contains(&format!("`git push --force-with-lease={skip}:{blob} origin {skip}`")),
            "{said}"
        );
        assert!(said.contains("git refuses in a tree, `.git`"), "{said}");
        assert!(said.contains(&format!("`git push origin --delete {held_out}`")), "{said}");
        assert!(said.contains("refs/speccoder/skipped/mine exists here"), "{said}");
        assert!(said.contains("`git update-ref --no-deref -d refs/speccoder/skipped/mine`"), "{said}");
        assert_eq!(bob.rev(&skip), ours, "the conflicting references stay as they were");
        assert!(bob.git_run(&["rev-parse", "--verify", "-q", &held_out]).stdout.is_empty());
        assert_eq!(bob.rev("refs/speccoder/skipped/zz-unit/T1"), main, "the others are merged");
    }
    let pushed = bob.speccoder(&["attest", "push"]).failure(14);
    assert!(said(&pushed).contains("the remote's is a blob, not a commit"), "{pushed}");

    // Each settled as the advice says: the next fetch and push go through.
    bob.git(&["push", "-q", &format!("--force-with-lease={skip}:{blob}"), "origin", &skip]);
    bob.git(&["push", "-q", "origin", "--delete", &held_out]);
    bob.git(&["update-ref", "-d", "refs/speccoder/skipped/mine"]);
    bob.speccoder(&["attest", "fetch"]).success();
    bob.speccoder(&["attest", "push"]).success();
    assert_eq!(remote(&["rev-parse", &skip]).trim(), ours, "the remote holds Bob's skip again");
    assert_eq!(bob.rev("refs/speccoder/skipped/mine/T1"), main);
    let verified = bob.verify(&[]);
    assert_eq!(verified.code(), Some(0), "the evidence and the skip hold: {verified}");
}

/// A reference of ours in the way of a remote one's name that is a symbolic reference naming a
/// branch: the `name_taken` conflict advises deleting ours with `--no-deref`, and following it
/// removes the link alone (git's plain `git update-ref -d` deletes the branch), after which the
/// fetch takes the remote's.
#[test]
fn a_symbolic_reference_of_ours_in_the_way_of_a_remote_one_is_removed_by_the_advice_and_its_branch_kept() {
    let team = Team::new();
    let (_ada, bob, _t001) = ada_attests_and_bob_fetches(&team);
    let main = bob.rev("origin/main");
    let mine = "refs/speccoder/skipped/mine";
    bob.git(&["update-ref", "refs/heads/keep", &main]);
    bob.git(&["symbolic-ref", mine, "refs/heads/keep"]);
    team.run_git(&team.remote, &["update-ref", &format!("{mine}/T1"), &main]);

    let out = bob.speccoder(&["attest", "fetch"]).failure(14);
    let said = said(&out);
    assert!(said.contains(&format!("{mine} exists here")), "{said}");
    let advised = common::advised_update_refs(&said);
    let expected = ["update-ref", "--no-deref", "-d", mine];
    assert!(!advised.is_empty() && advised.iter().all(|c| *c == expected), "{said}");

    bob.git(&advised[0].iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(bob.rev("refs/heads/keep"), main, "the branch the link named is kept");
    bob.speccoder(&["attest", "fetch"]).success();
    assert_eq!(bob.rev(&format!("{mine}/T1")), main, "the remote's is taken");
}

// --- damaged notes on the remote ----------------------------------------------------------------

/// A tree in the remote of `entries` (mode, name, id), sorted as git sorts them but otherwise as
/// given (two names for one note are kept); its id.
fn remote_tree(team: &Team, entries: &[(&str, String, &str)]) -> String {
    let key = |(mode, name, _): &&(&str, String, &str)| {
        if *mode == "40000" { format!("{name}/") } else { name.clone() }
    };
    let mut sorted: Vec<&(&str, String, &str)> = entries.iter().collect();
    sorted.sort_by_key(key);
    let mut bytes = Vec::new();
    for (mode, name, id) in sorted {
        bytes.extend_from_slice(format!("{mode} {name}\0").as_bytes());
        bytes.extend(hex::decode(id).unwrap());
    }
    remote_object(team, "tree", &bytes)
}

/// Points the remote's notes at a notes commit of `tree` on top of `parent`.
fn remote_notes_commit(team: &Team, tree: &str, parent: &str) {
    let identity = ["-c", "user.name=Mallory", "-c", "user.email=mallory@example.com"];
    let commit = team.run_git(
        &team.remote,
        &[&identity[..], &["commit-tree", tree, "-p", parent, "-m", "two notes"]].concat(),
    );
    team.run_git(&team.remote, &["update-ref", NOTES_REF, commit.trim()]);
}

#[test]
fn damaged_notes_on_the_remote_are_its_to_repair_and_the_repair_the_fetch_advises_works() {
    let team = Team::new();
    let (ada, bob, t001) = ada_attests_and_bob_fetches(&team);
    let remote = |args: &[&str]| team.run_git(&team.remote, args).trim().to_owned();
    let note = remote(&["rev-parse", &format!("{NOTES_REF}:{t001}")]);
    let junk =
        remote_object(&team, "blob", b"{\"payload\":\"ZXZl\",\"payloadType\":\"x\",\"signatures\":[]}\n");
    let repair = "refs/notes/speccoder-repair";
    let fanned = remote_tree(&team, &[("100644", t001[2..].to_owned(), &junk)]);
    // Our note and a second one: its name in capitals, which git reads as the same commit; then
    // fanned out beside the flat one.
    let spellings = [
        vec![("100644", t001.clone(), note.as_str()), ("100644", t001.to_uppercase(), &junk)],
        vec![("100644", t001.clone(), note.as_str()), ("40000", t001[..2].to_owned(), &fanned)],
    ];
    for entries in &spellings {
        remote_notes_commit(&team, &remote_tree(&team, entries), &remote(&["rev-parse", NOTES_REF]));
        let shown = team.remote_note(&t001).unwrap();
        assert!(String::from_utf8_lossy(&shown).contains("ZXZl"), "git shows the junk with the evidence");
        let before = bob.rev(NOTES_REF);
        for _ in 0..2 {
            let out = bob.speccoder(&["attest", "fetch"]).failure(14);
            let said = said(&out);
            assert!(
                said.contains(&format!(
                    "the notes on origin are damaged: their {NOTES_REF} holds two notes for {t001}"
                )),
                "{said}"
            );
            assert!(said.contains("must be repaired on origin"), "{said}");
            assert!(!said.contains("attested twice"), "{said}");
            assert_eq!(bob.rev(NOTES_REF), before, "nothing moved");
            // Repairing the remote-tracking copy does not help: the fetch brings it back.
            bob.git(&["notes", "--ref=refs/notes/remotes/origin/speccoder", "remove", &t001]);
        }
        assert_eq!(bob.speccoder(&["attest", "push"]).code(), Some(14));
        // A clone that takes the remote's notes with plain git reads both notes, as git shows
        // them, and verify says so rather than reading one of them.
        let carol = team.clone(&format!("carol-{}", entries[1].0), &["-b", "feature-a"]);
        carol.git(&["fetch", "-q", "origin", &format!("+{NOTES_REF}:{NOTES_REF}")]);
        let verified = carol.verify(&[]);
        assert_ne!(verified.code(), Some(0), "{verified}");
        assert!(verified.stdout.contains("note_ambiguous"), "{verified}");
        // The repair, as advised, by a clone that can push.
        bob.git(&["fetch", "-q", "origin", &format!("+{NOTES_REF}:{repair}")]);
        bob.git(&["notes", &format!("--ref={repair}"), "remove", &t001]);
        bob.git(&["notes", &format!("--ref={repair}"), "add", "-C", &note, &t001]);
        bob.git(&["push", "-q", "origin", &format!("{repair}:{NOTES_REF}")]);
        bob.speccoder(&["attest", "fetch"]).success();
        bob.assert_evidenced(1);
        assert_eq!(team.remote_note(&t001), ada.note(&t001), "the remote shows Ada's evidence alone");
    }

    // The remote's notes reference points at a blob: this clone's notes go back in its place.
    remote(&["update-ref", NOTES_REF, &junk]);
    let out = bob.speccoder(&["attest", "fetch"]).failure(14);
    assert!(
        said(&out).contains(&format!("the notes on origin are damaged: their {NOTES_REF} points at {junk}")),
        "{out}"
    );
    bob.git(&["push", "-q", &format!("--force-with-lease={NOTES_REF}:{junk}"), "origin", NOTES_REF]);
    bob.speccoder(&["attest", "fetch"]).success();
    bob.speccoder(&["attest", "push"]).success();
    bob.assert_evidenced(1);
    team.fsck(&[&bob]);
}

/// A remote's hook that refuses a push says why on git's `remote:` lines: `attest push` keeps them,
/// in its message and in `--json` (`remote_said`), each made inert (an escape sequence and a bidi
/// control shown escaped, never acted on), at most 20 of them, then how many more there were.
#[test]
fn a_hook_s_refusal_is_said_with_the_remote_s_own_lines_made_inert_and_bounded() {
    use std::os::unix::fs::PermissionsExt as _;
    let team = Team::new();
    let ada = team.writer("ada", &team.ada);
    let hook = team.remote.join("hooks/pre-receive");
    let script = "#!/bin/sh\n\
        printf 'main is protected: open a pull request\\033[2J\\342\\200\\256exe.txt\\n' >&2\n\
        i=0; while [ $i -lt 30 ]; do echo \"line $i\" >&2; i=$((i+1)); done\n\
        exit 1\n";
    std::fs::write(&hook, script).unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    ada.write("x.txt", "x\n");
    ada.git(&["add", "x.txt"]);
    ada.git(&["commit", "-q", "-m", "x"]);
    let said = "main is protected: open a pull request\\u{1b}[2J\\u{202e}exe.txt";
    let text = ada.speccoder(&["attest", "push"]).failure(14);
    assert!(text.stderr.contains("(pre-receive hook declined); nothing was pushed\n"), "{text}");
    assert!(text.stderr.contains(&format!("\n  remote: {said}\n")), "{text}");
    assert!(!text.stderr.contains(['\u{1b}', '\u{202e}']), "{text}");
    assert!(text.stderr.contains("  remote: line 18\n  remote: … (11 more lines)\n"), "{text}");
    let json = ada.speccoder(&["attest", "push", "--json"]).failure(14);
    let report: Value = serde_json::from_str(json.stdout.trim()).unwrap();
    let lines = report["remote_said"].as_array().unwrap();
    assert_eq!(
        (lines.len(), &lines[0], &lines[20]),
        (21, &json!(said), &json!("… (11 more lines)")),
        "{report:#}"
    );
    assert_eq!(team.run_git(&team.remote, &["rev-parse", "main"]), ada.git(&["rev-parse", "origin/main"]));
}

// --- links on the remote ------------------------------------------------------------------------

/// The remote's notes reference made a symbolic reference to its main branch: fetch takes none of
/// main's history for notes and push never moves main, each refused with exit 14 naming the link
/// and who can remove it; a `refs/speccoder/*` link is a conflict of its own while every other
/// reference merges. Removed as advised, the fetch and push go through, and main is as it was.
#[test]
fn a_remote_evidence_reference_that_links_to_a_branch_is_never_fetched_or_pushed_through() {
    let team = Team::new();
    let (ada, bob, _t001) = ada_attests_and_bob_fetches(&team);
    let remote = |args: &[&str]| team.run_git(&team.remote, args).trim().to_owned();
    let main = remote(&["rev-parse", "refs/heads/main"]);
    remote(&["symbolic-ref", NOTES_REF, "refs/heads/main"]);
    let notes = bob.rev(NOTES_REF);

    let out = said(&bob.speccoder(&["attest", "fetch"]).failure(14));
    assert!(out.contains(&format!("their {NOTES_REF} is a symbolic reference to refs/heads/main")), "{out}");
    assert!(out.contains(&format!("`git symbolic-ref --delete {NOTES_REF}`")), "{out}");
    assert_eq!(bob.rev(NOTES_REF), notes, "no branch history was taken for notes");
    bob.git(&["commit", "-q", "--allow-empty", "-m", "Bob's work"]);
    let out = bob.speccoder(&["attest", "push"]).failure(14);
    assert!(said(&out).contains(&format!("  {NOTES_REF} -> refs/heads/main")), "{out}");
    assert!(said(&out).contains("nothing was pushed"), "{out}");
    assert_eq!(remote(&["rev-parse", "refs/heads/main"]), main, "main never moves");

    // A skip that links to main: a conflict of its own; Ada's new skip merges all the same.
    remote(&["symbolic-ref", "--delete", NOTES_REF]);
    let link = "refs/speccoder/skipped/link/T1";
    remote(&["symbolic-ref", link, "refs/heads/main"]);
    ada.speccoder(&["skip", &task("T006"), "--reason", "covered by T005"]).success();
    ada.git(&["push", "-q", "origin", &format!("refs/speccoder/skipped/{SPECKIT_UNIT}/T006")]);
    for _ in 0..2 {
        let out = bob.speccoder(&["attest", "fetch"]).failure(14);
        let said = said(&out);
        assert!(said.contains(&format!("{link}: CONFLICT")), "{said}");
        assert!(said.contains("the remote's is a symbolic reference to refs/heads/main"), "{said}");
        assert!(said.contains(&format!("`git symbolic-ref --delete {link}`")), "{said}");
        assert!(bob.git_run(&["rev-parse", "--verify", "-q", link]).stdout.is_empty(), "not taken");
        assert_eq!(
            bob.rev(&format!("refs/speccoder/skipped/{SPECKIT_UNIT}/T006")),
            ada.rev(&format!("refs/speccoder/skipped/{SPECKIT_UNIT}/T006"))
        );
    }
    let json = bob.speccoder(&["attest", "fetch", "--json"]).failure(14);
    let report: Value = serde_json::from_str(json.stdout.trim()).unwrap();
    let row = report["refs"].as_array().unwrap().iter().find(|r| r["name"] == link).unwrap();
    assert_eq!(
        (&row["kind"], &row["target"]),
        (&json!("symbolic_there"), &json!("refs/heads/main")),
        "{row}"
    );
    let out = bob.speccoder(&["attest", "push"]).failure(14);
    assert!(said(&out).contains(&format!("  {link} -> refs/heads/main")), "{out}");
    assert_eq!(remote(&["rev-parse", "refs/heads/main"]), main, "main never moves");

    // The links removed as advised: the evidence goes through, and main is as it was.
    remote(&["symbolic-ref", "--delete", link]);
    bob.speccoder(&["attest", "fetch"]).success();
    bob.speccoder(&["attest", "push"]).success();
    assert_eq!(remote(&["rev-parse", NOTES_REF]), bob.rev(NOTES_REF));
    assert_eq!(remote(&["rev-parse", "refs/heads/main"]), main);
    team.fsck(&[&ada, &bob]);
}

/// The remote's notes reference pointed straight at a branch's commit (as a link does where the
/// protocol does not tell links apart): its tree holds files, no notes, and fetch refuses it as
/// the remote's damage rather than merging the branch's history into the notes.
#[test]
fn a_remote_notes_reference_at_a_branch_s_commit_is_damage_there_never_merged_as_notes() {
    let team = Team::new();
    let (_ada, bob, _t001) = ada_attests_and_bob_fetches(&team);
    let remote = |args: &[&str]| team.run_git(&team.remote, args).trim().to_owned();
    let main = remote(&["rev-parse", "refs/heads/main"]);
    remote(&["update-ref", NOTES_REF, &main]);
    let notes = bob.rev(NOTES_REF);
    let out = bob.speccoder(&["attest", "fetch"]).failure(14);
    let said = said(&out);
    assert!(
        said.contains(&format!(
            "the notes on origin are damaged: their {NOTES_REF} points at {main}, whose tree holds `.github`"
        )),
        "{said}"
    );
    assert!(said.contains("it is no notes commit"), "{said}");
    assert_eq!(bob.rev(NOTES_REF), notes, "nothing merged");
    let out = bob.git(&["rev-list", "--count", NOTES_REF]);
    assert_eq!(out.trim(), "1", "the notes history holds no commit of main");
}

// --- names a clone cannot keep ------------------------------------------------------------------

/// Gives the remote the reference `name` at `id` in its `packed-refs`, where git keeps a name of
/// any length (a hostile remote's, which no loose reference file could hold), in git's order.
fn pack_remote_ref(team: &Team, name: &str, id: &str) {
    team.run_git(&team.remote, &["pack-refs", "--all"]);
    let path = team.remote.join("packed-refs");
    let text = std::fs::read_to_string(&path).unwrap();
    let (header, lines) = text.split_once('\n').unwrap();
    let mut lines: Vec<String> = lines.lines().map(str::to_owned).collect();
    lines.push(format!("{id} {name}"));
    lines.sort_by(|a, b| a.split_once(' ').unwrap().1.cmp(b.split_once(' ').unwrap().1));
    std::fs::write(&path, format!("{header}\n{}\n", lines.join("\n"))).unwrap();
    let listed = team.run_git(&team.remote, &["for-each-ref", "--format=%(refname)"]);
    assert!(listed.lines().any(|line| line == name), "the remote lists it");
}

/// Ada's new note and skip on the remote, beside a reference of a name no clone can keep; Bob's
/// skip ref and notes before his fetch.
fn new_evidence_beside(team: &Team, ada: &Clone<'_>, name: &str) -> String {
    ada.attest("T002", &[]);
    ada.speccoder(&["skip", &task("T006"), "--reason", "covered by T005"]).success();
    ada.speccoder(&["attest", "push"]).success();
    let main = team.run_git(&team.remote, &["rev-parse", "refs/heads/main"]);
    pack_remote_ref(team, name, main.trim());
    format!("refs/speccoder/skipped/{SPECKIT_UNIT}/T006")
}

/// A remote reference with a 300-byte part in its name, which no file system here holds: git's
/// fetch of it alone would fail, and with it the fetch of the notes and of every other reference.
/// It is a conflict of its own (exit 14) saying why and how to settle it, while the remote's new
/// note and skip merge; settled as advised, the next fetch and push go through.
#[test]
fn a_remote_reference_with_a_name_part_too_long_for_a_file_is_a_conflict_and_all_else_merges() {
    let team = Team::new();
    let (ada, bob, _t001) = ada_attests_and_bob_fetches(&team);
    let long = format!("refs/speccoder/held-out/{}", "a".repeat(300));
    let skip = new_evidence_beside(&team, &ada, &long);
    for _ in 0..2 {
        let out = bob.speccoder(&["attest", "fetch"]).failure(14);
        let said = said(&out);
        assert!(said.contains(&format!("{long}: CONFLICT")), "{said}");
        assert!(said.contains("a part of its name is 300 bytes long, more than the 250"), "{said}");
        assert!(said.contains(&format!("`git push origin --delete {long}`")), "{said}");
        assert_eq!(bob.rev(NOTES_REF), ada.rev(NOTES_REF), "the remote's new note is merged");
        assert_eq!(bob.rev(&skip), ada.rev(&skip), "the remote's new skip is merged");
        assert!(!bob.refs().contains("aaaaaaaaaa"), "{}", bob.refs());
    }
    // The remote cannot lock the name either, so a push cannot delete it: its keeper removes it.
    let refused = bob.git_run(&["push", "-q", "origin", "--delete", &long]);
    assert!(!refused.status.success() && refused.stderr.contains("File name too long"), "{refused}");
    let packed = team.remote.join("packed-refs");
    let text = std::fs::read_to_string(&packed).unwrap();
    let kept: String = text.lines().filter(|line| !line.ends_with(&long)).map(|l| format!("{l}\n")).collect();
    std::fs::write(&packed, kept).unwrap();
    bob.speccoder(&["attest", "fetch"]).success();
    bob.git(&["pull", "-q", "--ff-only", "origin", "feature-a"]);
    bob.speccoder(&["attest", "push"]).success();
    team.fsck(&[&ada, &bob]);
}

/// A remote reference whose name git stores here (its paths relative to the repository) but
/// whose lock file, at the absolute path gix writes it (`<clone>/./.git/...`, as the repository is
/// opened from `.`), lies one byte past the system's longest path: it is a conflict of its own
/// (exit 14, every time, never an internal error), and nothing of it is staged, taken or tracked.
#[test]
fn a_remote_reference_whose_lock_path_here_is_too_long_is_a_conflict_and_nothing_of_it_is_kept() {
    let team = Team::new();
    let (ada, bob, _t001) = ada_attests_and_bob_fetches(&team);
    let staged = format!("{}/./.git/refs/speccoder-fetching/origin/held-out/", bob.dir.display());
    let length = 4096 - staged.len() - ".lock".len();
    let mut rest = String::new();
    while length - rest.len() > 201 {
        rest.push_str(&format!("{}/", "b".repeat(200)));
    }
    rest.push_str(&"c".repeat(length - rest.len()));
    let long = format!("refs/speccoder/held-out/{rest}");
    let skip = new_evidence_beside(&team, &ada, &long);
    for _ in 0..2 {
        let out = bob.speccoder(&["attest", "fetch"]).failure(14);
        let said = said(&out);
        assert!(said.contains(&format!("{long}: CONFLICT")), "{said}");
        assert!(said.contains("would lie at paths of 4096 bytes, past the 4095 the system takes"), "{said}");
        assert_eq!(bob.rev(&skip), ada.rev(&skip), "the remote's new skip is merged");
        assert!(!bob.refs().contains("bbbbbbbbbb"), "nothing of it here: {}", bob.refs());
    }
    bob.git(&["pull", "-q", "--ff-only", "origin", "feature-a"]);
    bob.speccoder(&["attest", "push"]).success();
    assert!(!bob.refs().contains("bbbbbbbbbb"), "{}", bob.refs());
    // The remote, which git works in by relative paths, deletes it as advised.
    bob.git(&["push", "-q", "origin", "--delete", &long]);
    bob.speccoder(&["attest", "fetch"]).success();
    team.fsck(&[&ada, &bob]);
}
