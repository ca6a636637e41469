//! Notes: what we write, git shows byte for byte; what git writes (fanned out), we read and edit.

use std::convert::Infallible;
use std::fmt::Write as _;

use super::fixture::Fixture;
use crate::git::{
    GitError, Joined, MergeNotesError, NOTES_REF, NoteOutcome, ObjectId, Repo, UpdateNoteError,
};

fn set(repo: &Repo, annotated: ObjectId, bytes: &[u8]) -> NoteOutcome {
    repo.update_note(NOTES_REF, annotated, |_| Ok::<_, Infallible>(Some(bytes.to_vec())))
        .expect("the note is written")
}

fn git_show(fx: &Fixture, annotated: ObjectId) -> Vec<u8> {
    fx.git_bytes(&["notes", "--ref=speccoder", "show", &annotated.to_string()], None)
}

/// `git notes list` as (annotated, note blob) pairs, sorted.
fn git_list(fx: &Fixture) -> Vec<(ObjectId, ObjectId)> {
    let mut out: Vec<(ObjectId, ObjectId)> = fx
        .git(&["notes", "--ref=speccoder", "list"])
        .lines()
        .map(|line| {
            let (blob, annotated) = line.split_once(' ').unwrap();
            (ObjectId::from_hex(annotated.as_bytes()).unwrap(), ObjectId::from_hex(blob.as_bytes()).unwrap())
        })
        .collect();
    out.sort();
    out
}

/// Let `git fast-import` make `count - real.len()` commits on a side branch and write notes for
/// them and for `real` in one commit of refs/notes/speccoder, fanned out as git sees fit (past 256
/// notes per level). Returns the annotated commits; note `i` reads `git note {i}\n`.
fn fast_import_notes(fx: &Fixture, real: &[ObjectId], count: usize) -> Vec<ObjectId> {
    let extra = count - real.len();
    let mut stream = String::new();
    for i in 0..extra {
        let message = format!("side {i}\n");
        write!(
            stream,
            "commit refs/heads/side\nmark :{}\ncommitter Git <git@example.com> {} +0000\ndata {}\n{message}\n",
            i + 1,
            1_600_000_000 + i,
            message.len()
        )
        .unwrap();
    }
    for i in 0..count {
        let body = format!("git note {i}\n");
        write!(stream, "blob\nmark :{}\ndata {}\n{body}\n", extra + i + 1, body.len()).unwrap();
    }
    let message = "Notes added by 'git fast-import'\n";
    write!(
        stream,
        "commit {NOTES_REF}\ncommitter Git <git@example.com> 1700000000 +0000\ndata {}\n{message}\n",
        message.len()
    )
    .unwrap();
    for (i, id) in real.iter().enumerate() {
        writeln!(stream, "N :{} {id}", extra + i + 1).unwrap();
    }
    for i in 0..extra {
        writeln!(stream, "N :{} :{}", extra + real.len() + i + 1, i + 1).unwrap();
    }
    stream.push_str("done\n");
    let marks = fx.path().join(".git/marks");
    let marks_arg = format!("--export-marks={}", marks.display());
    fx.git_bytes(&["fast-import", "--quiet", "--done", &marks_arg], Some(stream.as_bytes()));
    let exported = std::fs::read_to_string(&marks).unwrap();
    let mut by_mark = std::collections::HashMap::new();
    for line in exported.lines() {
        let (mark, id) = line.split_once(' ').unwrap();
        by_mark.insert(mark[1..].parse::<usize>().unwrap(), ObjectId::from_hex(id.as_bytes()).unwrap());
    }
    let mut annotated = real.to_vec();
    annotated.extend((0..extra).map(|i| by_mark[&(i + 1)]));
    annotated
}

#[test]
fn a_note_we_write_is_shown_by_git_notes_byte_for_byte_and_fsck_is_clean() {
    let fx = Fixture::new();
    let commit = fx.commit_file("a.txt", "a\n", "first");
    let repo = fx.repo();
    // No final newline, a leading blank line, CRLF, trailing blanks, a tab: nothing is normalised.
    let bytes = b"\n{\"payload\":\"x\"}  \r\n\t{\"b\":1}\n\n{\"c\":2}";
    let outcome = set(&repo, commit, bytes);
    assert!(matches!(outcome, NoteOutcome::Written { .. }));
    assert_eq!(git_show(&fx, commit), bytes);
    assert_eq!(repo.note(NOTES_REF, commit).unwrap().as_deref(), Some(&bytes[..]));
    assert_eq!(fx.git(&["log", "-1", "--format=%s", NOTES_REF]).trim(), "Notes added by 'speccoder attest'");
    assert!(fx.path().join(".git/logs/refs/notes/speccoder").exists(), "the notes ref has a reflog");
    fx.assert_fsck_clean();
}

#[test]
fn replacing_a_note_keeps_history_and_leaves_other_notes_alone() {
    let fx = Fixture::new();
    let first = fx.commit_file("a.txt", "a\n", "first");
    let second = fx.commit_file("b.txt", "b\n", "second");
    let repo = fx.repo();
    set(&repo, first, b"one");
    set(&repo, second, b"two");
    let seen = std::cell::RefCell::new(Vec::new());
    repo.update_note(NOTES_REF, second, |current| {
        seen.borrow_mut().push(current.map(<[u8]>::to_vec));
        Ok::<_, Infallible>(Some(b"two, again".to_vec()))
    })
    .unwrap();
    assert_eq!(seen.into_inner(), vec![Some(b"two".to_vec())]);
    assert_eq!(git_show(&fx, first), b"one");
    assert_eq!(git_show(&fx, second), b"two, again");
    assert_eq!(fx.git(&["rev-list", "--count", NOTES_REF]).trim(), "3");
    fx.assert_fsck_clean();
}

#[test]
fn an_unchanged_note_writes_nothing_and_a_refusing_computation_writes_nothing() {
    let fx = Fixture::new();
    let commit = fx.commit_file("a.txt", "a\n", "first");
    let repo = fx.repo();
    set(&repo, commit, b"same");
    let before = fx.rev(NOTES_REF);
    assert_eq!(set(&repo, commit, b"same"), NoteOutcome::Unchanged);
    let refused = repo.update_note(NOTES_REF, commit, |_| Err(std::fmt::Error));
    assert!(matches!(refused, Err(UpdateNoteError::Compute(std::fmt::Error))));
    assert_eq!(fx.rev(NOTES_REF), before);
}

#[test]
fn removing_a_note_is_seen_by_git_and_the_last_removal_leaves_a_valid_empty_tree() {
    let fx = Fixture::new();
    let first = fx.commit_file("a.txt", "a\n", "first");
    let second = fx.commit_file("b.txt", "b\n", "second");
    let repo = fx.repo();
    set(&repo, first, b"one");
    set(&repo, second, b"two");
    repo.update_note(NOTES_REF, first, |_| Ok::<_, Infallible>(None)).unwrap();
    assert_eq!(git_list(&fx).len(), 1);
    assert_eq!(repo.note(NOTES_REF, first).unwrap(), None);
    repo.update_note(NOTES_REF, second, |_| Ok::<_, Infallible>(None)).unwrap();
    assert!(git_list(&fx).is_empty());
    assert_eq!(
        fx.git(&["log", "-1", "--format=%s", NOTES_REF]).trim(),
        "Notes removed by 'speccoder attest'"
    );
    fx.assert_fsck_clean();
}

#[test]
fn notes_git_wrote_with_fanout_are_read_listed_and_one_is_updated_without_losing_the_others() {
    let fx = Fixture::new();
    let real = fx.commit_file("a.txt", "a\n", "first");
    let annotated = fast_import_notes(&fx, &[real], 600);
    let root = fx.git(&["ls-tree", NOTES_REF]);
    assert!(
        root.lines()
            .all(|l| l.ends_with(|c: char| c.is_ascii_hexdigit())
                && l.split('\t').nth(1).unwrap().len() == 2),
        "git fanned the notes out: {root}"
    );
    let repo = fx.repo();
    let before = git_list(&fx);
    assert_eq!(before.len(), 600);
    assert_eq!(repo.notes(NOTES_REF).unwrap(), before);
    for (i, id) in annotated.iter().enumerate().step_by(97) {
        assert_eq!(repo.note(NOTES_REF, *id).unwrap().unwrap(), format!("git note {i}\n").into_bytes());
    }

    set(&repo, real, b"ours");
    assert_eq!(git_show(&fx, real), b"ours");
    let after = git_list(&fx);
    assert_eq!(after.len(), 600);
    let changed: Vec<_> = before.iter().zip(&after).filter(|(a, b)| a != b).collect();
    assert_eq!(changed.len(), 1, "only the one note changed");
    assert_eq!(changed[0].0.0, real);
    assert!(fx.git(&["ls-tree", "-r", "--name-only", NOTES_REF]).lines().all(|p| p.contains('/')));
    fx.assert_fsck_clean();
}

#[test]
fn a_note_added_by_git_notes_add_is_read_and_replaced() {
    let fx = Fixture::new();
    let commit = fx.commit_file("a.txt", "a\n", "first");
    fx.git(&["notes", "--ref=speccoder", "add", "-m", "from git", &commit.to_string()]);
    let repo = fx.repo();
    assert_eq!(repo.note(NOTES_REF, commit).unwrap().unwrap(), b"from git\n");
    set(&repo, commit, b"from us");
    assert_eq!(git_show(&fx, commit), b"from us");
    fx.assert_fsck_clean();
}

#[test]
fn ten_thousand_notes_are_listed_in_one_walk() {
    let fx = Fixture::new();
    let real = fx.commit_file("a.txt", "a\n", "first");
    fast_import_notes(&fx, &[real], 10_000);
    let repo = fx.repo();
    let started = std::time::Instant::now();
    let listed = repo.notes(NOTES_REF).unwrap();
    let elapsed = started.elapsed();
    assert_eq!(listed.len(), 10_000);
    assert_eq!(listed, git_list(&fx));
    assert!(elapsed.as_secs() < 10, "listing took {elapsed:?}");
}

#[test]
fn two_threads_writing_notes_for_different_objects_both_keep_all_of_theirs() {
    let fx = Fixture::new();
    fx.commit_file("a.txt", "a\n", "first");
    let repo = fx.repo();
    let objects: Vec<ObjectId> =
        (0..50).map(|i| repo.write_blob(format!("object {i}\n").as_bytes()).unwrap()).collect();
    std::thread::scope(|scope| {
        for half in objects.chunks(25) {
            let path = fx.path().to_owned();
            scope.spawn(move || {
                let repo = Repo::discover(&path).unwrap();
                for id in half {
                    let body = format!("note of {id}");
                    repo.update_note(NOTES_REF, *id, |_| {
                        Ok::<_, Infallible>(Some(body.clone().into_bytes()))
                    })
                    .unwrap();
                }
            });
        }
    });
    let listed = git_list(&fx);
    assert_eq!(listed.len(), 50);
    for id in &objects {
        assert_eq!(git_show(&fx, *id), format!("note of {id}").into_bytes());
    }
    assert_eq!(fx.git(&["rev-list", "--count", NOTES_REF]).trim(), "50", "no write was lost");
    fx.assert_fsck_clean();
}

#[test]
fn a_notes_tree_holding_two_notes_for_one_object_is_reported_as_ambiguous() {
    let fx = Fixture::new();
    let commit = fx.commit_file("a.txt", "a\n", "first");
    let hex = commit.to_string();
    let blob = fx.git_bytes(&["hash-object", "-w", "--stdin"], Some(b"n\n"));
    let blob = String::from_utf8(blob).unwrap();
    let sub =
        fx.git_bytes(&["mktree"], Some(format!("100644 blob {}\t{}\n", blob.trim(), &hex[2..]).as_bytes()));
    let root = fx.git_bytes(
        &["mktree"],
        Some(
            format!(
                "100644 blob {b}\t{hex}\n040000 tree {s}\t{p}\n",
                b = blob.trim(),
                s = String::from_utf8(sub).unwrap().trim(),
                p = &hex[..2]
            )
            .as_bytes(),
        ),
    );
    let root = String::from_utf8(root).unwrap();
    let notes_commit = fx.git(&["commit-tree", "-m", "odd", root.trim()]);
    fx.git(&["update-ref", NOTES_REF, notes_commit.trim()]);
    let repo = fx.repo();
    assert!(matches!(repo.note(NOTES_REF, commit), Err(GitError::AmbiguousNote { .. })));
    assert_eq!(repo.notes(NOTES_REF).unwrap().len(), 2, "the listing shows both");
    let update = repo.update_note(NOTES_REF, commit, |_| Ok::<_, Infallible>(Some(b"x".to_vec())));
    assert!(matches!(update, Err(UpdateNoteError::Git(GitError::AmbiguousNote { .. }))));

    // Fetched from a remote, such notes are merged into nothing: ours stay where they were.
    let ours = "refs/notes/ours";
    repo.update_note(ours, commit, |_| Ok::<_, Infallible>(Some(b"ours\n".to_vec()))).unwrap();
    let before = fx.git(&["rev-parse", ours]);
    let merged = repo.merge_notes(ours, NOTES_REF, "merge", |_, _, _| Ok::<_, Infallible>(Joined::Theirs));
    assert!(matches!(merged, Err(MergeNotesError::Git(GitError::AmbiguousNote { .. }))), "{merged:?}");
    assert_eq!(fx.git(&["rev-parse", ours]), before);
}

#[test]
fn a_notes_ref_pointing_at_a_damaged_tree_is_an_error_not_a_panic() {
    let fx = Fixture::new();
    let commit = fx.commit_file("a.txt", "a\n", "first");
    let bad_tree = fx.git_bytes(
        &["hash-object", "-t", "tree", "--literally", "-w", "--stdin"],
        Some(b"100644 no-nul-and-no-id"),
    );
    let bad_tree = String::from_utf8(bad_tree).unwrap();
    let notes_commit = fx.git(&["commit-tree", "-m", "broken", bad_tree.trim()]);
    fx.git(&["update-ref", NOTES_REF, notes_commit.trim()]);
    let repo = fx.repo();
    assert!(repo.note(NOTES_REF, commit).is_err());
    assert!(repo.notes(NOTES_REF).is_err());
    assert!(repo.update_note(NOTES_REF, commit, |_| Ok::<_, Infallible>(Some(vec![]))).is_err());

    let blob = fx.git_bytes(&["hash-object", "-w", "--stdin"], Some(b"not a commit"));
    fx.git(&["update-ref", NOTES_REF, String::from_utf8(blob).unwrap().trim()]);
    let repo = fx.repo();
    assert!(matches!(repo.note(NOTES_REF, commit), Err(GitError::NotesRefUnusable { .. })));
}

#[test]
fn notes_refs_outside_refs_notes_are_refused_for_writing() {
    let fx = Fixture::new();
    let commit = fx.commit_file("a.txt", "a\n", "first");
    let repo = fx.repo();
    let result = repo.update_note("refs/heads/main", commit, |_| Ok::<_, Infallible>(Some(vec![1])));
    assert!(matches!(result, Err(UpdateNoteError::Git(GitError::InvalidRefName { .. }))));
    assert_eq!(repo.note("refs/notes/absent", commit).unwrap(), None);
    assert!(repo.notes("refs/notes/absent").unwrap().is_empty());
}

#[test]
fn a_writer_that_loses_the_race_reads_again_and_keeps_the_winners_note() {
    let fx = Fixture::new();
    let ours = fx.commit_file("a.txt", "a\n", "first");
    let theirs = fx.commit_file("b.txt", "b\n", "second");
    let repo = fx.repo();
    let other = fx.repo();
    let mut calls = 0;
    let outcome = repo
        .update_note(NOTES_REF, ours, |current| {
            calls += 1;
            if calls == 1 {
                // Another writer moves the notes ref between our read and our swap.
                set(&other, theirs, b"theirs");
            }
            assert_eq!(current, None);
            Ok::<_, Infallible>(Some(b"ours".to_vec()))
        })
        .unwrap();
    assert!(matches!(outcome, NoteOutcome::Written { .. }));
    assert_eq!(calls, 2, "the computation ran again on the fresh notes");
    assert_eq!(git_show(&fx, ours), b"ours");
    assert_eq!(git_show(&fx, theirs), b"theirs");
    assert_eq!(fx.git(&["rev-list", "--count", NOTES_REF]).trim(), "2");
    fx.assert_fsck_clean();
}

#[test]
fn a_note_two_fanout_levels_deep_is_read_by_git_and_us_and_replaced_in_place() {
    let fx = Fixture::new();
    let commit = fx.commit_file("a.txt", "a\n", "first");
    let other = fx.commit_file("b.txt", "b\n", "second");
    let hex = commit.to_string();
    let deep = format!("{}/{}/{}", &hex[..2], &hex[2..4], &hex[4..]);
    let stream = format!(
        "commit {NOTES_REF}\ncommitter Git <git@example.com> 1700000000 +0000\ndata 5\ndeep\nM 100644 inline {deep}\ndata 10\ndeep note\n\ndone\n"
    );
    fx.git_bytes(&["fast-import", "--quiet", "--done"], Some(stream.as_bytes()));
    assert_eq!(git_show(&fx, commit), b"deep note\n", "git reads the deep layout");
    let repo = fx.repo();
    assert_eq!(repo.note(NOTES_REF, commit).unwrap().unwrap(), b"deep note\n");
    assert_eq!(repo.notes(NOTES_REF).unwrap().len(), 1);

    set(&repo, commit, b"replaced");
    set(&repo, other, b"other");
    assert_eq!(git_show(&fx, commit), b"replaced");
    assert_eq!(git_show(&fx, other), b"other");
    assert_eq!(git_list(&fx).len(), 2, "no second copy of the replaced note");
    assert_eq!(repo.notes(NOTES_REF).unwrap(), git_list(&fx));
    fx.assert_fsck_clean();
}

#[test]
fn past_256_notes_we_fan_the_tree_out_as_git_does_and_git_reads_every_note() {
    let fx = Fixture::new();
    fx.commit_file("a.txt", "a\n", "first");
    let repo = fx.repo();
    let objects: Vec<ObjectId> =
        (0..300).map(|i| repo.write_blob(format!("object {i}\n").as_bytes()).unwrap()).collect();
    for id in &objects {
        set(&repo, *id, id.to_string().as_bytes());
    }
    let root = fx.git(&["ls-tree", "--name-only", NOTES_REF]);
    assert!(root.lines().all(|name| name.len() == 2), "fanned out: {root}");
    assert_eq!(git_list(&fx).len(), 300);
    for id in objects.iter().step_by(37) {
        assert_eq!(git_show(&fx, *id), id.to_string().into_bytes());
    }
    fx.assert_fsck_clean();
}

#[test]
fn many_notes_set_in_one_commit_are_read_by_git_and_leave_the_others_alone() {
    let fx = Fixture::new();
    let first = fx.commit_file("a.txt", "a\n", "first");
    let repo = fx.repo();
    set(&repo, first, b"kept\n");
    let objects: Vec<ObjectId> =
        (0..600).map(|i| repo.write_blob(format!("object {i}\n").as_bytes()).unwrap()).collect();
    let notes: Vec<(ObjectId, Vec<u8>)> =
        objects.iter().map(|id| (*id, format!("{{\"n\":\"{id}\"}}\n").into_bytes())).collect();
    let before = repo.ref_target(NOTES_REF).unwrap().unwrap();
    let outcome = repo.set_notes(NOTES_REF, &notes).unwrap();
    let NoteOutcome::Written { notes_commit } = outcome else { panic!("written: {outcome:?}") };
    assert_eq!(repo.commit(notes_commit).unwrap().parents, [before], "one commit on top of the old one");
    assert_eq!(git_list(&fx).len(), 601);
    assert_eq!(git_show(&fx, first), b"kept\n");
    for (id, bytes) in notes.iter().step_by(53) {
        assert_eq!(git_show(&fx, *id), *bytes);
        assert_eq!(repo.note(NOTES_REF, *id).unwrap().as_deref(), Some(&bytes[..]));
    }
    assert_eq!(repo.set_notes(NOTES_REF, &notes).unwrap(), NoteOutcome::Unchanged);
    assert!(matches!(repo.set_notes("refs/heads/x", &notes), Err(GitError::InvalidRefName { .. })));
    fx.assert_fsck_clean();
}

/// Whether git itself can read object `id`.
fn git_has(fx: &Fixture, id: ObjectId) -> bool {
    fx.git_output(&["cat-file", "-e", &id.to_string()], None).status.success()
}

#[test]
fn new_objects_are_written_loose_as_git_writes_them_and_no_pack_is_added() {
    let fx = Fixture::new();
    let base = fx.commit_file("a.txt", "a\n", "base");
    let packs = || std::fs::read_dir(fx.path().join(".git/objects/pack")).map_or(0, Iterator::count);
    let before = packs();
    let repo = fx.repo();
    let tree = repo.tree_from_files(&[("b.txt".to_owned(), b"b\n".to_vec())]).unwrap();
    let commit = repo.create_commit_detached(&[base], tree, "loose\n").unwrap();
    assert!(git_has(&fx, commit) && git_has(&fx, tree), "git reads what gix wrote");
    let loose = |id: ObjectId| {
        let hex = id.to_string();
        fx.path().join(".git/objects").join(&hex[..2]).join(&hex[2..]).is_file()
    };
    assert!(loose(commit) && loose(tree));
    let notes_commit =
        repo.advance_branch_with_note("refs/heads/main", base, commit, "loose\n", NOTES_REF, b"the note\n");
    assert_eq!(notes_commit.unwrap(), fx.rev(NOTES_REF));
    assert_eq!(git_show(&fx, commit), b"the note\n");
    assert_eq!(packs(), before, "no pack was added");
    fx.git(&["gc", "-q"]);
    assert_eq!(git_show(&fx, commit), b"the note\n", "git gc packs them later");
    fx.assert_fsck_clean();
}

/// A task commit on top of HEAD that no reference names yet (a new file).
fn unreferenced_commit(fx: &Fixture, repo: &Repo, head: ObjectId) -> ObjectId {
    let tree = repo.tree_from_files(&[("task.txt".to_owned(), b"done\n".to_vec())]).unwrap();
    let commit = repo.create_commit_detached(&[head], tree, "Tick T001\n\nbody\n").unwrap();
    assert_eq!(fx.git(&["branch", "--contains", &commit.to_string()]), "", "no branch holds it yet");
    commit
}

/// The subject of the last reflog entry of `name`.
fn last_reflog(fx: &Fixture, name: &str) -> String {
    fx.git(&["reflog", "show", "-1", "--format=%gs", name]).trim().to_owned()
}

#[test]
fn a_commit_and_its_note_move_together_with_every_reflog_written() {
    let fx = Fixture::new();
    let head = fx.commit_file("a.txt", "a\n", "base");
    let repo = fx.repo();
    let commit = unreferenced_commit(&fx, &repo, head);

    let outcome = repo.advance_branch_with_note(
        "refs/heads/main",
        head,
        commit,
        "Tick T001\n\nbody\n",
        NOTES_REF,
        b"the note\n",
    );

    assert_eq!(outcome.unwrap(), fx.rev(NOTES_REF));
    assert_eq!(fx.rev("refs/heads/main"), commit);
    assert_eq!(git_show(&fx, commit), b"the note\n");
    assert_eq!(last_reflog(&fx, "refs/heads/main"), "commit: Tick T001");
    assert_eq!(last_reflog(&fx, "HEAD"), "commit: Tick T001");
    assert_eq!(last_reflog(&fx, NOTES_REF), "notes: Notes added by 'speccoder attest'");
    assert!(
        !fx.path().join(".git/HEAD.lock").exists()
            && !fx.path().join(".git/refs/notes/speccoder.lock").exists()
    );
    fx.assert_fsck_clean();
}

#[test]
fn a_note_whose_notes_reference_moved_meanwhile_lands_on_top_with_the_branch_moved() {
    let fx = Fixture::new();
    let head = fx.commit_file("a.txt", "a\n", "base");
    let repo = fx.repo();
    let commit = unreferenced_commit(&fx, &repo, head);
    fx.git(&["notes", "--ref=speccoder", "add", "-m", "theirs", &head.to_string()]);
    let theirs = fx.rev(NOTES_REF);

    let outcome =
        repo.advance_branch_with_note("refs/heads/main", head, commit, "Tick T001\n", NOTES_REF, b"ours\n");

    let Ok(notes_commit) = outcome else { panic!("the note is written: {outcome:?}") };
    assert_eq!(fx.rev(&format!("{notes_commit}^")), theirs, "ours sits on top of theirs");
    assert_eq!(fx.rev("refs/heads/main"), commit);
    assert_eq!(git_show(&fx, head), b"theirs\n");
    assert_eq!(git_show(&fx, commit), b"ours\n");
    assert_eq!(last_reflog(&fx, "HEAD"), "commit: Tick T001");
    fx.assert_fsck_clean();
}

#[test]
fn when_the_branch_moved_meanwhile_neither_reference_moves() {
    let fx = Fixture::new();
    let head = fx.commit_file("a.txt", "a\n", "base");
    let repo = fx.repo();
    let commit = unreferenced_commit(&fx, &repo, head);
    let other = fx.commit_file("b.txt", "b\n", "someone else's commit");

    let outcome =
        repo.advance_branch_with_note("refs/heads/main", head, commit, "Tick T001\n", NOTES_REF, b"ours\n");

    let Err(GitError::RefMoved { name, expected, found }) = outcome else {
        panic!("the branch moved: {outcome:?}")
    };
    assert_eq!((name.as_str(), expected, found), ("refs/heads/main", Some(head), Some(other)));
    assert_eq!(fx.rev("refs/heads/main"), other);
    assert!(!fx.git_output(&["rev-parse", "--verify", "-q", NOTES_REF], None).status.success());
    fx.assert_fsck_clean();
}

#[test]
fn a_lock_file_a_stopped_writer_left_is_named_and_neither_reference_moves() {
    for stale in ["refs/notes/speccoder", "refs/heads/main", "HEAD"] {
        let fx = Fixture::new();
        let head = fx.commit_file("a.txt", "a\n", "base");
        let repo = fx.repo();
        let commit = unreferenced_commit(&fx, &repo, head);
        let lock = repo.ref_lock_path(stale);
        std::fs::create_dir_all(lock.parent().unwrap()).unwrap();
        std::fs::write(&lock, "").unwrap();

        let outcome = repo.advance_branch_with_note(
            "refs/heads/main",
            head,
            commit,
            "Tick T001\n",
            NOTES_REF,
            b"ours\n",
        );

        let Err(err @ GitError::RefLocked { .. }) = outcome else {
            panic!("{stale}: the lock is named: {outcome:?}")
        };
        assert!(err.to_string().ends_with(&format!("remove {}", lock.display())), "{stale}: {err}");
        assert!(lock.is_absolute(), "{stale}: the lock is named by an absolute path");
        assert_eq!(fx.rev("refs/heads/main"), head, "{stale}: the branch stays");
        assert!(!fx.git_output(&["rev-parse", "--verify", "-q", NOTES_REF], None).status.success());
    }
}
#[test]
fn a_packed_refs_lock_a_stopped_pack_refs_left_is_named_and_neither_reference_moves() {
    let fx = Fixture::new();
    let head = fx.commit_file("a.txt", "a\n", "base");
    let repo = fx.repo();
    let commit = unreferenced_commit(&fx, &repo, head);
    // `git pack-refs` killed while it held the lock leaves it; git's own updates of loose
    // references go on, gix's reference transaction waits for it.
    let lock = std::path::absolute(fx.path().join(".git/packed-refs.lock")).unwrap();
    std::fs::write(&lock, "").unwrap();

    let outcome =
        repo.advance_branch_with_note("refs/heads/main", head, commit, "Tick T001\n", NOTES_REF, b"ours\n");

    let Err(err @ GitError::RefLocked { .. }) = outcome else { panic!("the lock is named: {outcome:?}") };
    assert!(err.to_string().ends_with(&format!("remove {}", lock.display())), "{err}");
    assert_eq!(fx.rev("refs/heads/main"), head, "the branch stays");
    assert!(!fx.git_output(&["rev-parse", "--verify", "-q", NOTES_REF], None).status.success());

    let outcome =
        repo.update_note(NOTES_REF, head, |_| Ok::<_, std::convert::Infallible>(Some(b"x\n".to_vec())));
    let Err(UpdateNoteError::Git(err @ GitError::RefLocked { .. })) = outcome else {
        panic!("the lock is named: {outcome:?}")
    };
    assert!(err.to_string().ends_with(&format!("remove {}", lock.display())), "{err}");
}

/// `git mktree` of `text` (git's `ls-tree` format); the tree id.
fn mktree(fx: &Fixture, text: &str) -> String {
    String::from_utf8(fx.git_bytes(&["mktree"], Some(text.as_bytes()))).unwrap().trim().to_owned()
}

/// A tree of directories written byte for byte, duplicate names kept (git never writes one).
fn literal_tree(fx: &Fixture, entries: &[(&str, &str)]) -> String {
    let mut bytes = Vec::new();
    for (name, id) in entries {
        bytes.extend_from_slice(b"40000 ");
        bytes.extend_from_slice(name.as_bytes());
        bytes.push(0);
        bytes.extend_from_slice(&hex::decode(id).unwrap());
    }
    let args = ["hash-object", "-t", "tree", "--literally", "-w", "--stdin"];
    String::from_utf8(fx.git_bytes(&args, Some(&bytes))).unwrap().trim().to_owned()
}

/// Points the notes ref at a notes commit of `tree`.
fn notes_tree(fx: &Fixture, tree: &str) {
    let notes_commit = fx.git(&["commit-tree", "-m", "hostile", tree]);
    fx.git(&["update-ref", NOTES_REF, notes_commit.trim()]);
}

/// A blob holding `text`; its id.
fn blob(fx: &Fixture, text: &str) -> String {
    String::from_utf8(fx.git_bytes(&["hash-object", "-w", "--stdin"], Some(text.as_bytes())))
        .unwrap()
        .trim()
        .to_owned()
}

#[test]
fn a_notes_tree_reaching_one_tree_twice_is_refused_never_walked_again() {
    let fx = Fixture::new();
    let commit = fx.commit_file("a.txt", "a\n", "first");
    let hex = commit.to_string();
    let note = blob(&fx, "n\n");
    let sub = mktree(&fx, &format!("100644 blob {note}\t{}\n", &hex[2..]));
    // Sixteen fan-out directories, the note's own among them, all naming one subtree.
    let mut names: Vec<String> = (0..16).map(|i| format!("{:02x}", i * 16 + 1)).collect();
    names[0] = hex[..2].to_owned();
    names.sort();
    names.dedup();
    let text: String = names.iter().map(|n| format!("040000 tree {sub}\t{n}\n")).collect();
    notes_tree(&fx, &mktree(&fx, &text));
    let repo = fx.repo();
    let err = repo.notes(NOTES_REF).unwrap_err();
    assert!(matches!(err, GitError::NotesTreeHostile { .. }), "{err}");
    assert!(err.to_string().contains(&format!("the tree {sub} is reached twice")), "{err}");
    // A lookup follows one fan-out directory and reads the subtree once.
    assert_eq!(repo.note(NOTES_REF, commit).unwrap().as_deref(), Some(&b"n\n"[..]));

    // The note's own fan-out name listed twice, naming the same subtree: the lookup refuses too.
    notes_tree(&fx, &literal_tree(&fx, &[(&hex[..2], &sub), (&hex[..2], &sub)]));
    let err = fx.repo().note(NOTES_REF, commit).unwrap_err();
    assert!(matches!(err, GitError::NotesTreeHostile { .. }), "{err}");
}

#[test]
fn names_are_read_as_git_writes_them_in_lowercase_hex_only() {
    let fx = Fixture::new();
    let commit = fx.commit_file("a.txt", "a\n", "first");
    let hex = commit.to_string();
    let note = blob(&fx, "n\n");
    // The whole id in capitals at the root, and the rest of it in capitals under its fan-out.
    let sub = mktree(&fx, &format!("100644 blob {note}\t{}\n", hex[2..].to_uppercase()));
    let root = format!("100644 blob {note}\t{}\n040000 tree {sub}\t{}\n", hex.to_uppercase(), &hex[..2]);
    notes_tree(&fx, &mktree(&fx, &root));
    let repo = fx.repo();
    assert_eq!(repo.note(NOTES_REF, commit).unwrap(), None);
    assert!(repo.notes(NOTES_REF).unwrap().is_empty());
    // A fan-out directory in capitals is not one.
    let sub = mktree(&fx, &format!("100644 blob {note}\t{}\n", &hex[2..]));
    let upper = format!("040000 tree {sub}\t{}\n", hex[..2].to_uppercase());
    if hex[..2].to_uppercase() != hex[..2] {
        notes_tree(&fx, &mktree(&fx, &upper));
        assert_eq!(fx.repo().note(NOTES_REF, commit).unwrap(), None);
        assert!(fx.repo().notes(NOTES_REF).unwrap().is_empty());
    }
}

#[test]
fn a_lookup_reads_at_most_its_budget_of_trees() {
    let fx = Fixture::new();
    let commit = fx.commit_file("a.txt", "a\n", "first");
    let hex = commit.to_string();
    // The note's fan-out name listed 70 times, each naming a different subtree.
    let subs: Vec<String> = (0..70)
        .map(|i| mktree(&fx, &format!("100644 blob {}\tdecoy-{i}\n", blob(&fx, &format!("{i}\n")))))
        .collect();
    let entries: Vec<(&str, &str)> = subs.iter().map(|s| (&hex[..2], s.as_str())).collect();
    notes_tree(&fx, &literal_tree(&fx, &entries));
    let err = fx.repo().note(NOTES_REF, commit).unwrap_err();
    assert!(err.to_string().contains("takes more than 64 trees"), "{err}");
    // The listing reads each of them once and finds no note.
    assert!(fx.repo().notes(NOTES_REF).unwrap().is_empty());
}
