//! The task list as git converts it: with `core.autocrlf`, a `.gitattributes` `eol`, or a clean
//! and smudge filter the repository's own `info/attributes` gives it (one a tree gives it is
//! refused), the work-tree file is not the staged blob byte for byte, yet `git status`
//! calls it unchanged. The writer decides "unstaged changes" as git does (the work-tree file
//! cleaned into git's form against the staged blob), stages the ticked blob in git's form and
//! writes the work tree in its own form, so `git status` and `git diff` stay empty.

use super::integrity::refused;
use super::{Setup, T005, speckit_task};
use crate::common::{self, Evidence};

/// The Spec Kit task list's path.
fn tasks_path() -> String {
    format!("specs/{}/tasks.md", common::SPECKIT_UNIT)
}

/// Checks the task list out of the index again, so that the work tree holds it in the form the
/// repository's conversions give it now.
#[track_caller]
fn check_out_again(s: &Setup) {
    let p = &s.project;
    std::fs::remove_file(p.root.join(tasks_path())).unwrap();
    p.git(&["checkout", "--", &tasks_path()]);
}

/// A CRLF checkout (the work tree's lines end in CRLF, the blob's in LF) and git calls it clean.
#[track_caller]
fn crlf_checkout(s: &Setup) {
    check_out_again(s);
    assert_eq!(s.project.git(&["status", "--porcelain"]), "", "git sees a clean work tree");
    let on_disk = s.project.read(&tasks_path());
    assert!(on_disk.windows(2).any(|w| w == b"\r\n"), "the work tree holds CRLF");
    let blob = s.project.git_bytes(&["show", &format!(":{}", tasks_path())]);
    assert!(!blob.contains(&b'\r'), "the staged blob holds LF");
}

/// After a tick of `ids`: the task commit's blob is LF and ticked, the work tree is the same text
/// with CRLF, and git sees neither a change nor a difference.
#[track_caller]
fn ticked_in_both_forms(s: &Setup, ids: &[&str]) {
    let p = &s.project;
    let blob = p.git_bytes(&["show", &format!("HEAD:{}", tasks_path())]);
    let text = String::from_utf8(blob.clone()).unwrap();
    assert!(!blob.contains(&b'\r'), "the committed blob holds LF only");
    for id in ids {
        assert!(text.contains(&format!("- [X] {id}")), "{id} is ticked at HEAD");
    }
    let on_disk = p.read(&tasks_path());
    assert_eq!(on_disk, text.replace('\n', "\r\n").into_bytes(), "the work tree is the tick in CRLF");
    assert_eq!(p.git(&["status", "--porcelain"]), "");
    assert_eq!(p.git(&["diff"]), "");
    assert_eq!(p.git(&["diff", "--cached"]), "");
}

/// Windows' default: `core.autocrlf=true` checks text out with CRLF. Attest ticks the LF blob and
/// leaves the work tree in CRLF, and a later tick of another task reads that file as unchanged.
#[test]
fn under_autocrlf_a_crlf_checkout_is_ticked_in_git_s_form_and_left_in_crlf() {
    let s = Setup::speckit(Evidence::Verified);
    s.project.git(&["config", "core.autocrlf", "true"]);
    crlf_checkout(&s);

    s.attest_signed(&[]);
    ticked_in_both_forms(&s, &["T005"]);

    let key = s.key.private.to_str().unwrap();
    let t006 = speckit_task("T006");
    s.project.speccoder(&["accept", &t006, "--reason", "shown by hand", "--key", key]).success();
    ticked_in_both_forms(&s, &["T005", "T006"]);
}

/// `.gitattributes` asking for CRLF in the work tree (`eol=crlf`), without `core.autocrlf`.
#[test]
fn an_eol_crlf_attribute_is_ticked_in_git_s_form_and_left_in_crlf() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    p.write(".gitattributes", "tasks.md text eol=crlf\n");
    p.git(&["add", ".gitattributes"]);
    p.git(&["commit", "-q", "-m", "CRLF task lists"]);
    crlf_checkout(&s);

    s.attest_signed(&[]);
    ticked_in_both_forms(&s, &["T005"]);
}

/// A real edit that `git add` has not taken is still refused under `core.autocrlf`, and left as
/// it is.
#[test]
fn under_autocrlf_an_unstaged_edit_is_still_refused() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    p.git(&["config", "core.autocrlf", "true"]);
    crlf_checkout(&s);
    let mut edited = p.read(&tasks_path());
    edited.extend_from_slice(b"- [ ] T999 my own edit\r\n");
    p.write(&tasks_path(), &edited);

    refused(&s, &s.evidence, 14, &["has unstaged changes", "git add"]);
    assert_eq!(p.read(&tasks_path()), edited, "the edit is left as it is");
}

/// A clean and smudge filter the repository's own config defines (here rot13, its own inverse)
/// and its own `info/attributes` gives the task list: the blob holds the plain text, the work
/// tree the filtered one, as git runs the driver. (A `filter` a tree's `.gitattributes` gives a
/// task list is refused: its stored bytes are not what a checkout shows, `task_lists.rs`.)
#[test]
fn a_clean_and_smudge_filter_is_run_as_git_runs_it() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    let rot13 = "tr A-Za-z N-ZA-Mn-za-m";
    p.git(&["config", "filter.rot13.clean", rot13]);
    p.git(&["config", "filter.rot13.smudge", rot13]);
    p.git(&["config", "filter.rot13.required", "true"]);
    p.write(".git/info/attributes", "tasks.md filter=rot13\n");
    check_out_again(&s);
    assert_eq!(p.git(&["status", "--porcelain"]), "", "git sees a clean work tree");
    let blob = p.git_bytes(&["show", &format!(":{}", tasks_path())]);
    assert_ne!(p.read(&tasks_path()), blob, "the work tree holds the smudged text");

    s.attest_signed(&[]);
    let text = p.git(&["show", &format!("HEAD:{}", tasks_path())]);
    assert!(text.contains("- [X] T005"), "T005 is ticked in git's form");
    let on_disk = String::from_utf8(p.read(&tasks_path())).unwrap();
    assert!(on_disk.contains("- [K] G005"), "the work tree holds the tick smudged\n{on_disk}");
    assert_eq!(p.git(&["status", "--porcelain"]), "");
    assert_eq!(p.git(&["diff"]), "");
}

/// A required filter driver (`filter.<driver>.required`) that names no command for a conversion
/// (no `clean` into git's form, or no `smudge` out of it, and no `process`): git refuses the file
/// ("clean filter 'crypt' failed", "smudge filter crypt failed"), and so does the writer, with
/// exit 13 before anything is written, saying which command to set; with it set the tick goes
/// through.
#[test]
fn a_required_filter_driver_without_the_command_of_a_conversion_is_refused_as_git_refuses_it() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    let tasks = tasks_path();
    p.write(".git/info/attributes", "tasks.md filter=crypt\n");
    p.git(&["config", "filter.crypt.required", "true"]);
    let clean_with_git = || p.git_run(&["hash-object", &format!("--path={tasks}"), &tasks]);
    for (smudge, clean) in [(None, None), (Some("cat"), None), (Some("cat"), Some(""))] {
        let _ = p.git_run(&["config", "--unset-all", "filter.crypt.smudge"]);
        let _ = p.git_run(&["config", "--unset-all", "filter.crypt.clean"]);
        smudge.map(|c| p.git(&["config", "filter.crypt.smudge", c]));
        clean.map(|c| p.git(&["config", "filter.crypt.clean", c]));
        let git = clean_with_git();
        assert!(git.stderr.contains("clean filter 'crypt' failed"), "{smudge:?} {clean:?}: {git}");
        let says = ["has the attribute `filter=crypt`", "filter.crypt.required", "`filter.crypt.clean`"];
        refused(&s, &s.evidence, 13, &says);
    }
    // A clean command and no smudge one: git cannot check the file out, nor can the writer.
    p.git(&["config", "filter.crypt.clean", "cat"]);
    p.git(&["config", "--unset-all", "filter.crypt.smudge"]);
    clean_with_git().success();
    let kept = p.scratch.join("tasks.md");
    std::fs::copy(p.root.join(&tasks), &kept).unwrap();
    std::fs::remove_file(p.root.join(&tasks)).unwrap();
    let git = p.git_run(&["checkout", "--", &tasks]);
    assert!(git.stderr.contains("smudge filter crypt failed"), "{git}");
    std::fs::copy(&kept, p.root.join(&tasks)).unwrap();
    refused(&s, &s.evidence, 13, &["`filter.crypt.smudge`", "git config --unset filter.crypt.required"]);

    p.git(&["config", "filter.crypt.smudge", "cat"]);
    s.attest_signed(&[]);
    assert!(p.git(&["show", &format!("HEAD:{tasks}")]).contains("- [X] T005"));
    assert_eq!(p.git(&["status", "--porcelain"]), "");
}

/// An interrupted tick under `core.autocrlf`: the work tree and index put back to the task list
/// before the tick, in CRLF. The next attest completes the tick (no second commit) and leaves the
/// work tree in CRLF.
#[test]
fn under_autocrlf_an_interrupted_tick_is_completed_in_crlf() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    p.git(&["config", "core.autocrlf", "true"]);
    crlf_checkout(&s);
    s.attest_signed(&[]);
    let commit = p.rev("HEAD");
    p.git(&["reset", "-q", "HEAD~", "--", &tasks_path()]);
    check_out_again(&s);
    assert!(p.read(&tasks_path()).windows(2).any(|w| w == b"\r\n"), "CRLF before the tick");

    let out = p.attest(T005, &s.evidence, &["--key", s.key.private.to_str().unwrap()]).success();
    assert!(out.stdout.contains("now show the tick"), "{out}");
    assert_eq!(p.rev("HEAD"), commit, "no second task commit");
    ticked_in_both_forms(&s, &["T005"]);
}

/// Commits `.gitattributes` giving the task list `working-tree-encoding=<encoding>` and checks the
/// task list out again, so that the work tree holds it as git writes it in that encoding.
fn encoded_checkout(s: &Setup, encoding: &str) {
    encoded_checkout_with(s, encoding, "");
}

/// [`encoded_checkout`] with `more` attributes on the same line.
fn encoded_checkout_with(s: &Setup, encoding: &str, more: &str) {
    let p = &s.project;
    p.write(".gitattributes", format!("tasks.md text working-tree-encoding={encoding}{more}\n"));
    p.git(&["add", ".gitattributes"]);
    p.git(&["commit", "-q", "-m", &format!("{encoding} task lists")]);
    check_out_again(s);
}

/// `working-tree-encoding` in each Unicode encoding git converts (`UTF-16` and `UTF-32` with a byte
/// order mark, then little-endian, as git writes them; `UTF-16LE-BOM`, git's own name; the ones of
/// a fixed byte order, without a mark): the tick is committed in UTF-8, the work tree is left
/// byte for byte as `git checkout` writes the ticked file, git sees no change, and the next
/// writer reads the file as unchanged.
#[test]
fn a_unicode_working_tree_encoding_is_written_back_as_git_checkout_writes_it() {
    for encoding in ["UTF-16", "UTF-16LE", "UTF-16BE", "UTF-16LE-BOM", "UTF-32", "UTF-32LE", "utf-32be"] {
        let s = Setup::speckit(Evidence::Verified);
        let p = &s.project;
        encoded_checkout(&s, encoding);
        assert_eq!(p.git(&["status", "--porcelain"]), "", "{encoding}: git sees a clean work tree");
        let before = p.read(&tasks_path());
        assert!(before.contains(&0), "{encoding}: the work tree holds the task list encoded");

        s.attest_signed(&[]);
        let blob = p.git(&["show", &format!("HEAD:{}", tasks_path())]);
        assert!(blob.contains("- [X] T005"), "{encoding}: the tick is committed in UTF-8");
        assert_eq!(p.git(&["status", "--porcelain"]), "", "{encoding}");
        assert_eq!(p.git(&["diff", "HEAD"]), "", "{encoding}");
        let written = p.read(&tasks_path());
        check_out_again(&s);
        assert_eq!(written, p.read(&tasks_path()), "{encoding}: the bytes git checkout writes");

        let key = s.key.private.to_str().unwrap();
        let t006 = speckit_task("T006");
        p.speccoder(&["accept", &t006, "--reason", "shown by hand", "--key", key]).success();
        assert_eq!(p.git(&["status", "--porcelain"]), "", "{encoding}");
    }
}

/// Line endings and a Unicode encoding together: git converts the line endings first, then the
/// encoding (CRLF as UTF-16 code units), and reads them back in the opposite order.
#[test]
fn a_crlf_checkout_in_utf_16_is_ticked_in_git_s_form_and_left_as_git_writes_it() {
    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    encoded_checkout_with(&s, "UTF-16LE", " eol=crlf");
    assert!(p.read(&tasks_path()).windows(4).any(|w| w == b"\r\0\n\0"), "CRLF in UTF-16LE");
    assert_eq!(p.git(&["status", "--porcelain"]), "");

    s.attest_signed(&[]);
    let blob = p.git_bytes(&["show", &format!("HEAD:{}", tasks_path())]);
    assert!(!blob.contains(&b'\r') && !blob.contains(&0), "the blob is UTF-8 with LF");
    assert_eq!(p.git(&["status", "--porcelain"]), "");
    assert_eq!(p.git(&["diff", "HEAD"]), "");
    let written = p.read(&tasks_path());
    check_out_again(&s);
    assert_eq!(written, p.read(&tasks_path()), "the bytes git checkout writes");
}

/// Encodings that cannot be written back as git writes them are refused before anything is
/// written, naming the encoding and the attribute: `UTF-16BE-BOM` (git writes it, but `git add`
/// cannot read it back), `UCS-2` (known to speccoder only as UTF-16LE, which gix would write as
/// UTF-8), an encoding nobody knows, and a Unicode encoding together with a filter driver (git
/// converts between the driver and the line endings).
#[test]
fn an_encoding_that_cannot_be_written_back_as_git_does_is_refused_naming_it_and_the_attribute() {
    for (encoding, why) in [
        ("UTF-16BE-BOM", "git writes that encoding but cannot read it back"),
        ("UCS-2", "speccoder can read that name only as UTF-16LE"),
        ("X-NO-SUCH-ENCODING", "speccoder does not know that encoding"),
    ] {
        let s = Setup::speckit(Evidence::Verified);
        encoded_checkout(&s, encoding);
        let out = refused(
            &s,
            &s.evidence,
            13,
            &[&format!("`working-tree-encoding={encoding}`"), why, "nothing was written"],
        );
        assert!(out.stderr.contains("UTF-16LE-BOM, UTF-32"), "the encodings that work are named\n{out}");
    }

    let s = Setup::speckit(Evidence::Verified);
    let p = &s.project;
    p.git(&["config", "filter.same.clean", "cat"]);
    p.git(&["config", "filter.same.smudge", "cat"]);
    p.write(".gitattributes", "tasks.md text working-tree-encoding=UTF-16\n");
    p.git(&["add", ".gitattributes"]);
    p.git(&["commit", "-q", "-m", "UTF-16"]);
    p.write(".git/info/attributes", "tasks.md filter=same\n");
    check_out_again(&s);
    refused(&s, &s.evidence, 13, &["`working-tree-encoding=UTF-16`", "its filter driver `same` too"]);
}

/// The task list saved with CRLF and added again: the repository's conversion (set up by
/// `configure`) turns it back into the same LF blob, and the index holds the CRLF file's stat, so
/// git calls it clean.
#[track_caller]
fn crlf_saved_over_lf(s: &Setup, configure: impl Fn(&common::Project)) -> Vec<u8> {
    let p = &s.project;
    configure(p);
    let lf = p.read(&tasks_path());
    let crlf = String::from_utf8(lf).unwrap().replace('\n', "\r\n").into_bytes();
    p.write(&tasks_path(), &crlf);
    p.git(&["add", &tasks_path()]);
    assert_eq!(p.git(&["status", "--porcelain"]), "", "git sees a clean work tree");
    crlf
}

/// After a tick of a file saved as `before`: one byte of it changed (the box), every CR stayed,
/// and git sees neither a change nor a difference.
#[track_caller]
fn only_the_box_changed(s: &Setup, before: &[u8]) {
    let p = &s.project;
    let after = p.read(&tasks_path());
    assert_eq!(after.len(), before.len(), "no line ending was rewritten");
    let changed: Vec<(u8, u8)> =
        before.iter().zip(&after).filter(|(b, a)| b != a).map(|(b, a)| (*b, *a)).collect();
    assert_eq!(changed, [(b' ', b'X')], "only the box changed");
    assert_eq!(p.git(&["status", "--porcelain"]), "");
    assert_eq!(p.git(&["diff"]), "");
    assert!(!p.git_bytes(&["show", &format!("HEAD:{}", tasks_path())]).contains(&b'\r'), "the blob is LF");
}

/// Commits `attributes` as the root's `.gitattributes`.
fn commit_attributes(p: &common::Project, attributes: &str) {
    p.write(".gitattributes", attributes);
    p.git(&["add", ".gitattributes"]);
    p.git(&["commit", "-q", "-m", "attributes"]);
}

/// `core.autocrlf=input`: git stores LF and leaves the work tree's CRLF alone; so does the tick.
#[test]
fn under_autocrlf_input_a_crlf_task_list_keeps_its_crlf_and_only_the_box_changes() {
    let s = Setup::speckit(Evidence::Verified);
    let before = crlf_saved_over_lf(&s, |p| {
        p.git(&["config", "core.autocrlf", "input"]);
    });
    s.attest_signed(&[]);
    only_the_box_changed(&s, &before);
}

/// `*.md text eol=lf`: the same, through accept.
#[test]
fn under_an_eol_lf_attribute_a_crlf_task_list_keeps_its_crlf_and_only_the_box_changes() {
    let s = Setup::speckit(Evidence::Verified);
    let before = crlf_saved_over_lf(&s, |p| commit_attributes(p, "*.md text eol=lf\n"));
    let key = s.key.private.to_str().unwrap();
    let t006 = speckit_task("T006");
    s.project.speccoder(&["accept", &t006, "--reason", "shown by hand", "--key", key]).success();
    only_the_box_changed(&s, &before);
}

/// `* text=auto` (with `core.eol` left at LF): the same.
#[test]
fn under_text_auto_a_crlf_task_list_keeps_its_crlf_and_only_the_box_changes() {
    let s = Setup::speckit(Evidence::Verified);
    let before = crlf_saved_over_lf(&s, |p| {
        p.git(&["config", "core.eol", "lf"]);
        commit_attributes(p, "* text=auto\n");
    });
    s.attest_signed(&[]);
    only_the_box_changed(&s, &before);
}
