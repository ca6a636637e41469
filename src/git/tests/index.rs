//! The task commit's tree comes from the index; staging the ticked file leaves `git status` clean.

use super::fixture::Fixture;
use crate::git::{AsRead, GitError, Head, ObjectId, Repo, Staged};

/// Stages `bytes` as `path` under a fresh index lock, as a writer does: the work-tree file read
/// (as nothing there when it cannot be read: the write refuses such a place), the file prepared
/// ([`crate::git::LockedIndex::file_to_stage`]), then written and staged.
fn stage(repo: &Repo, path: &str, bytes: &[u8]) -> Result<(), GitError> {
    let index = repo.lock_index()?;
    let as_read = index.read_worktree_file(path, 1 << 20).unwrap_or_else(|_| AsRead::absent());
    let file = index.file_to_stage(path, bytes.to_vec(), as_read)?;
    assert_eq!(index.stage_and_commit(&file)?, Staged::Written, "nothing changed the file meanwhile");
    Ok(())
}

/// Reads `path`, prepares its tick, runs `meanwhile` (someone else's change to the work tree
/// while a writer signs), then writes and stages: what a writer does around its signing.
fn stage_around(repo: &Repo, path: &str, bytes: &[u8], meanwhile: impl FnOnce()) -> Staged {
    let index = repo.lock_index().unwrap();
    let as_read = index.read_worktree_file(path, 1 << 20).unwrap();
    let file = index.file_to_stage(path, bytes.to_vec(), as_read).unwrap();
    meanwhile();
    index.stage_and_commit(&file).unwrap()
}

/// A repository with a regular, an executable, a symlinked and a submodule entry, plus a
/// staged-but-uncommitted change and an unstaged one.
fn busy_fixture() -> Fixture {
    let fx = Fixture::new();
    fx.write("specs/001-x/tasks.md", "- [ ] T001 first\n- [ ] T002 second\n");
    fx.write_executable("bin/run.sh", "#!/bin/sh\necho hi\n");
    fx.write("README.md", "readme\n");
    fx.git(&["add", "."]);
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("README.md", fx.path().join("link")).unwrap();
        fx.git(&["add", "link"]);
    }
    let gitlink = "1111111111111111111111111111111111111111";
    fx.git(&["update-index", "--add", "--cacheinfo", &format!("160000,{gitlink},vendor/sub")]);
    fx.git(&["commit", "-q", "-m", "base"]);
    // Staged: a new file and a modification. Unstaged: a later edit of README.md.
    fx.write("src/new.rs", "fn main() {}\n");
    fx.write("README.md", "readme, staged\n");
    fx.git(&["add", "src/new.rs", "README.md"]);
    fx.write("README.md", "readme, staged, then edited again\n");
    fx
}

#[test]
fn the_tree_of_an_unchanged_index_is_exactly_what_git_write_tree_writes() {
    let fx = busy_fixture();
    let ours = fx.repo().lock_index().unwrap().tree_with(&[]).unwrap();
    assert_eq!(ours, fx.rev(fx.git(&["write-tree"]).trim()));
}

#[test]
fn an_override_replaces_only_that_file_and_keeps_staged_changes_and_modes() {
    let fx = busy_fixture();
    let ticked = b"- [X] T001 first\n- [ ] T002 second\n".to_vec();
    let tree = fx
        .repo()
        .lock_index()
        .unwrap()
        .tree_with(&[("specs/001-x/tasks.md".to_owned(), ticked.clone())])
        .unwrap();

    // What git builds from a copy of the index with the same blob staged.
    let copy = fx.path().join(".git/index-copy");
    std::fs::copy(fx.path().join(".git/index"), &copy).unwrap();
    let blob = fx.git_bytes(&["hash-object", "-w", "--stdin"], Some(&ticked));
    let blob = String::from_utf8(blob).unwrap();
    let mut cmd =
        fx.command(&["update-index", "--cacheinfo", &format!("100644,{},specs/001-x/tasks.md", blob.trim())]);
    cmd.env("GIT_INDEX_FILE", &copy);
    assert!(super::fixture::run(cmd, None).status.success());
    let mut cmd = fx.command(&["write-tree"]);
    cmd.env("GIT_INDEX_FILE", &copy);
    let expected = String::from_utf8(super::fixture::run(cmd, None).stdout).unwrap();
    assert_eq!(tree.to_string(), expected.trim());

    let listing = fx.git(&["ls-tree", "-r", &tree.to_string()]);
    assert!(listing.contains("100755 blob"), "the executable bit is kept: {listing}");
    assert!(listing.contains("160000 commit 1111111111111111111111111111111111111111\tvendor/sub"));
    assert!(listing.contains("\tsrc/new.rs"), "the staged new file is in the tree");
    #[cfg(unix)]
    assert!(listing.contains("120000 blob"), "the symlink is kept: {listing}");
    let readme = fx.git(&["cat-file", "-p", &format!("{tree}:README.md")]);
    assert_eq!(readme, "readme, staged\n", "the staged content, not the work tree's");
}

#[test]
fn an_override_of_an_executable_keeps_it_executable_and_a_new_path_becomes_a_regular_file() {
    let fx = busy_fixture();
    let tree = fx
        .repo()
        .lock_index()
        .unwrap()
        .tree_with(&[
            ("bin/run.sh".to_owned(), b"#!/bin/sh\necho changed\n".to_vec()),
            ("docs/new.md".to_owned(), b"new\n".to_vec()),
        ])
        .unwrap();
    let listing = fx.git(&["ls-tree", "-r", &tree.to_string()]);
    assert!(listing.lines().any(|l| l.starts_with("100755 blob") && l.ends_with("\tbin/run.sh")));
    assert!(listing.lines().any(|l| l.starts_with("100644 blob") && l.ends_with("\tdocs/new.md")));
}

#[test]
fn overriding_a_symlink_or_submodule_or_a_bad_path_is_refused() {
    let fx = busy_fixture();
    let repo = fx.repo();
    let over = |path: &str| repo.lock_index().unwrap().tree_with(&[(path.to_owned(), b"x".to_vec())]);
    assert!(matches!(over("vendor/sub"), Err(GitError::NotAFile { .. })));
    #[cfg(unix)]
    assert!(matches!(over("link"), Err(GitError::NotAFile { .. })));
    for bad in ["../x", "/etc/passwd", "a//b", ".git/config", "a/./b", ""] {
        assert!(matches!(over(bad), Err(GitError::InvalidPath { .. })), "{bad:?} is refused");
    }
    assert!(matches!(over("README.md/inner"), Err(GitError::PathConflict { .. })));
}

#[test]
fn an_index_with_unresolved_conflicts_is_refused() {
    let fx = Fixture::new();
    fx.commit_file("f.txt", "base\n", "base");
    fx.git(&["checkout", "-q", "-b", "other"]);
    fx.commit_file("f.txt", "other\n", "other");
    fx.git(&["checkout", "-q", "main"]);
    fx.commit_file("f.txt", "main\n", "main");
    let merge = fx.git_output(&["merge", "-q", "other"], None);
    assert!(!merge.status.success(), "the merge conflicts");
    let repo = fx.repo();
    match repo.lock_index().unwrap().tree_with(&[]) {
        Err(GitError::Unmerged { paths }) => assert_eq!(paths, vec!["f.txt".to_owned()]),
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert!(matches!(stage(&repo, "g.txt", b"x"), Err(GitError::Unmerged { .. })));
}

#[test]
fn ticking_committing_and_staging_leaves_git_status_clean_and_fsck_happy() {
    let fx = Fixture::new();
    fx.write("specs/001-x/tasks.md", "- [ ] T001 first\n");
    fx.write_executable("bin/run.sh", "#!/bin/sh\n");
    fx.git(&["add", "."]);
    fx.git(&["commit", "-q", "-m", "base"]);
    fx.write("src/lib.rs", "// staged\n");
    fx.git(&["add", "src/lib.rs"]);

    let repo = fx.repo();
    let Head::Branch { name, commit: head } = repo.head().unwrap() else { panic!("on a branch") };
    let ticked = b"- [X] T001 first\n".to_vec();
    let tree =
        repo.lock_index().unwrap().tree_with(&[("specs/001-x/tasks.md".to_owned(), ticked.clone())]).unwrap();
    let commit =
        repo.create_commit_on_branch(&name, head, tree, "Tick T001\n\nSpec-Task: 001-x/T001\n").unwrap();
    stage(&repo, "specs/001-x/tasks.md", &ticked).unwrap();

    assert_eq!(fx.rev("HEAD"), commit);
    assert_eq!(fx.git(&["status", "--porcelain", "--untracked-files=all"]), "");
    assert_eq!(std::fs::read(fx.path().join("specs/001-x/tasks.md")).unwrap(), ticked);
    assert_eq!(fx.git(&["diff", "HEAD", "--stat"]), "", "the index equals the new commit");
    fx.assert_fsck_clean();
}

#[test]
fn staging_keeps_the_executable_bit_and_adds_untracked_paths() {
    let fx = Fixture::new();
    fx.write("run.sh", "#!/bin/sh\n");
    fx.git(&["add", "run.sh"]);
    fx.git(&["update-index", "--chmod=+x", "run.sh"]);
    fx.git(&["commit", "-q", "-m", "base"]);
    let repo = fx.repo();
    stage(&repo, "run.sh", b"#!/bin/sh\necho 2\n").unwrap();
    stage(&repo, "notes/new.md", b"new\n").unwrap();
    let staged = fx.git(&["ls-files", "-s"]);
    assert!(staged.lines().any(|l| l.starts_with("100755 ") && l.ends_with("\trun.sh")), "{staged}");
    assert!(staged.lines().any(|l| l.starts_with("100644 ") && l.ends_with("\tnotes/new.md")), "{staged}");
    // Staged but not committed: status shows exactly these two, and no work-tree difference.
    assert_eq!(fx.git(&["diff", "--name-only"]), "");
    assert_eq!(fx.git(&["status", "--porcelain"]), "A  notes/new.md\nM  run.sh\n");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(fx.path().join("run.sh")).unwrap().permissions().mode();
        assert_ne!(mode & 0o100, 0, "the work-tree file stays executable");
    }
}

#[cfg(unix)]
#[test]
fn a_staged_file_is_replaced_whole_and_the_index_holds_its_stat() {
    let fx = Fixture::new();
    fx.write("specs/001-x/tasks.md", "- [ ] T001 first\n- [ ] T002 second\n");
    fx.git(&["add", "."]);
    fx.git(&["commit", "-q", "-m", "base"]);
    let path = fx.path().join("specs/001-x/tasks.md");
    // A second name for the file: the old inode keeps the old content, as after git's checkout.
    let other_name = fx.path().join("tasks-link.md");
    std::fs::hard_link(&path, &other_name).unwrap();
    let repo = fx.repo();
    let ticked = b"- [X] T001 first\n- [ ] T002 second\n";
    stage(&repo, "specs/001-x/tasks.md", ticked).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), ticked);
    assert_eq!(std::fs::read(&other_name).unwrap(), b"- [ ] T001 first\n- [ ] T002 second\n");
    assert_eq!(fx.git(&["diff", "--name-only", "--", "specs"]), "", "the index holds the new file's stat");
    assert_eq!(fx.git(&["show", ":specs/001-x/tasks.md"]).as_bytes(), ticked);
}

#[test]
fn the_new_content_a_stopped_writer_left_beside_the_file_is_replaced_and_never_left_behind() {
    let fx = Fixture::new();
    fx.write("specs/001-x/tasks.md", "- [ ] T001 first\n");
    fx.git(&["add", "."]);
    fx.git(&["commit", "-q", "-m", "base"]);
    // What a writer killed between creating its new file and renaming it leaves.
    let leftover = fx.path().join("specs/001-x/.tasks.md.speccoder-new");
    std::fs::write(&leftover, "- [X] T001 half writ").unwrap();

    stage(&fx.repo(), "specs/001-x/tasks.md", b"- [X] T001 first\n").unwrap();

    assert!(!leftover.exists(), "the leftover was used and renamed away");
    assert_eq!(std::fs::read(fx.path().join("specs/001-x/tasks.md")).unwrap(), b"- [X] T001 first\n");
    assert_eq!(fx.git(&["status", "--porcelain", "--untracked-files=all"]), "M  specs/001-x/tasks.md\n");
}

#[test]
fn an_edit_saved_after_the_file_was_read_is_kept_and_the_index_still_gets_the_blob() {
    let fx = Fixture::new();
    fx.commit_file("tasks.md", "- [ ] T001\n", "base");
    let staged = stage_around(&fx.repo(), "tasks.md", b"- [X] T001\n", || {
        fx.write("tasks.md", "- [ ] T001\n- [ ] T002 my note\n");
    });
    assert_eq!(staged, Staged::EditKept);
    assert_eq!(
        std::fs::read_to_string(fx.path().join("tasks.md")).unwrap(),
        "- [ ] T001\n- [ ] T002 my note\n"
    );
    assert_eq!(fx.git(&["show", ":tasks.md"]), "- [X] T001\n", "the index holds the blob");
    // git compares the content (the entry has no stat) and shows the edit against the blob.
    assert_eq!(fx.git(&["status", "--porcelain"]), "MM tasks.md\n");
    let diff = fx.git(&["diff", "--", "tasks.md"]);
    assert!(diff.contains("-- [X] T001\n+- [ ] T001\n+- [ ] T002 my note"), "{diff}");
    assert!(!fx.path().join(".tasks.md.speccoder-new").exists(), "no new file is left beside it");
}

#[cfg(unix)]
#[test]
fn a_file_whose_stat_changed_after_it_was_read_is_kept_even_with_the_same_content() {
    use std::os::unix::fs::PermissionsExt;
    let fx = Fixture::new();
    fx.commit_file("tasks.md", "- [ ] T001\n", "base");
    let path = fx.path().join("tasks.md");
    let staged = stage_around(&fx.repo(), "tasks.md", b"- [X] T001\n", || {
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    });
    assert_eq!(staged, Staged::EditKept);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "- [ ] T001\n");
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o755, "the mode stays");
}

#[cfg(unix)]
#[test]
fn a_read_only_tasks_file_is_still_ticked_and_stays_read_only() {
    use std::os::unix::fs::PermissionsExt;
    let fx = Fixture::new();
    fx.commit_file("tasks.md", "- [ ] T001\n", "base");
    let path = fx.path().join("tasks.md");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    stage(&fx.repo(), "tasks.md", b"- [X] T001\n").unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "- [X] T001\n");
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o444);
    assert_eq!(fx.git(&["status", "--porcelain"]), "M  tasks.md\n");
}

#[cfg(unix)]
#[test]
fn a_link_put_in_the_place_of_a_tracked_file_is_never_written_through() {
    let fx = Fixture::new();
    fx.commit_file("tasks.md", "- [ ] T001\n", "base");
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim.md");
    std::fs::write(&victim, "- [ ] T001\n").unwrap();
    std::fs::remove_file(fx.path().join("tasks.md")).unwrap();
    std::os::unix::fs::symlink(&victim, fx.path().join("tasks.md")).unwrap();
    let repo = fx.repo();
    let index = repo.lock_index().unwrap();
    // A link is never read as the file; whatever stands where a file was read (or was absent) is
    // someone's change, left in place.
    let file = index.file_to_stage("tasks.md", b"- [X] T001\n".to_vec(), AsRead::absent()).unwrap();
    assert_eq!(index.stage_and_commit(&file).unwrap(), Staged::EditKept);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "- [ ] T001\n");
    assert!(std::fs::symlink_metadata(fx.path().join("tasks.md")).unwrap().file_type().is_symlink());
}

#[cfg(unix)]
#[test]
fn staging_never_writes_through_a_symbolic_link() {
    let fx = Fixture::new();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), fx.path().join("specs")).unwrap();
    fx.commit_file("a.txt", "a\n", "base");
    let repo = fx.repo();
    let result = stage(&repo, "specs/tasks.md", b"x");
    assert!(matches!(result, Err(GitError::UnsafeWorktreePath { .. })), "{result:?}");
    assert!(!outside.path().join("tasks.md").exists());
}

#[test]
fn a_tree_built_with_overrides_of_an_empty_index_holds_just_those_files() {
    let fx = Fixture::new();
    let repo = fx.repo();
    let tree = repo.lock_index().unwrap().tree_with(&[("a/b.txt".to_owned(), b"b\n".to_vec())]).unwrap();
    assert_eq!(fx.git(&["ls-tree", "-r", "--name-only", &tree.to_string()]), "a/b.txt\n");
    let empty = repo.lock_index().unwrap().tree_with(&[]).unwrap();
    assert_eq!(empty, ObjectId::empty_tree(repo.object_hash()));
}

#[test]
fn a_sparse_index_gives_the_same_tree_as_git_write_tree() {
    let fx = Fixture::new();
    fx.write("specs/001-x/tasks.md", "- [ ] T001\n");
    fx.write("other/deep/file.txt", "other\n");
    fx.write("top.txt", "top\n");
    fx.git(&["add", "."]);
    fx.git(&["commit", "-q", "-m", "base"]);
    fx.git(&["sparse-checkout", "init", "--cone", "--sparse-index"]);
    fx.git(&["sparse-checkout", "set", "specs"]);
    let staged = fx.git(&["ls-files", "--sparse", "-s"]);
    assert!(staged.contains("040000 ") && staged.contains("\tother/"), "the index is sparse: {staged}");
    let repo = fx.repo();
    let ours = repo.lock_index().unwrap().tree_with(&[]).unwrap();
    assert_eq!(ours, fx.rev(fx.git(&["write-tree"]).trim()));
    let ticked = repo
        .lock_index()
        .unwrap()
        .tree_with(&[("specs/001-x/tasks.md".to_owned(), b"- [X] T001\n".to_vec())])
        .unwrap();
    assert_eq!(fx.git(&["show", &format!("{ticked}:other/deep/file.txt")]), "other\n");
    assert_eq!(fx.git(&["show", &format!("{ticked}:specs/001-x/tasks.md")]), "- [X] T001\n");
}

#[test]
fn a_tree_from_files_alone_equals_what_git_builds_from_the_same_files() {
    let fx = Fixture::new();
    let repo = fx.repo();
    let files = vec![
        ("001-x/manifest.json".to_owned(), b"{}\n".to_vec()),
        ("001-x/files/tests/a.rs".to_owned(), b"#[test] fn a() {}\n".to_vec()),
        ("001-x.json".to_owned(), b"[]\n".to_vec()),
    ];
    let tree = repo.tree_from_files(&files).unwrap();
    let scratch = fx.path().join(".git/scratch-index");
    for (path, bytes) in &files {
        let blob = String::from_utf8(fx.git_bytes(&["hash-object", "-w", "--stdin"], Some(bytes))).unwrap();
        let mut cmd =
            fx.command(&["update-index", "--add", "--cacheinfo", &format!("100644,{},{path}", blob.trim())]);
        cmd.env("GIT_INDEX_FILE", &scratch);
        assert!(super::fixture::run(cmd, None).status.success());
    }
    let mut cmd = fx.command(&["write-tree"]);
    cmd.env("GIT_INDEX_FILE", &scratch);
    let by_git = String::from_utf8(super::fixture::run(cmd, None).stdout).unwrap();
    assert_eq!(tree.to_string(), by_git.trim());
    let twice = vec![files[0].clone(), files[0].clone()];
    assert!(matches!(repo.tree_from_files(&twice), Err(GitError::InvalidPath { .. })));
    let clash = vec![("a".to_owned(), vec![]), ("a/b".to_owned(), vec![])];
    assert!(matches!(repo.tree_from_files(&clash), Err(GitError::PathConflict { .. })));
}

#[test]
fn staging_a_file_outside_the_sparse_checkout_is_refused() {
    let fx = Fixture::new();
    fx.write("specs/tasks.md", "- [ ] T001\n");
    fx.write("other/file.txt", "other\n");
    fx.git(&["add", "."]);
    fx.git(&["commit", "-q", "-m", "base"]);
    fx.git(&["sparse-checkout", "init", "--cone", "--sparse-index"]);
    fx.git(&["sparse-checkout", "set", "specs"]);
    let repo = fx.repo();
    assert!(matches!(stage(&repo, "other/new.txt", b"x"), Err(GitError::InvalidPath { .. })));
    stage(&repo, "specs/tasks.md", b"- [X] T001\n").unwrap();
    assert_eq!(fx.git(&["status", "--porcelain"]), "M  specs/tasks.md\n");
}

#[test]
fn an_index_whose_checksum_does_not_match_is_refused_and_left_as_it_is() {
    let fx = busy_fixture();
    let index = fx.path().join(".git/index");
    let mut bytes = std::fs::read(&index).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&index, &bytes).unwrap();
    let err = fx.repo().lock_index().err().expect("a damaged index is refused").to_string();
    assert!(err.contains("read the index"), "{err}");
    assert_eq!(std::fs::read(&index).unwrap(), bytes, "nothing was written");
    assert!(!fx.path().join(".git/index.lock").exists(), "the lock was released");
}

#[test]
fn a_second_writer_waits_for_the_lock_and_then_gives_up_naming_the_index() {
    let fx = busy_fixture();
    let repo = fx.repo();
    let held = repo.lock_index().unwrap();
    let started = std::time::Instant::now();
    match fx.repo().lock_index() {
        Err(GitError::IndexLocked { path, .. }) => assert_eq!(path, held.path()),
        other => panic!("expected the lock to be refused, got {:?}", other.map(|_| ())),
    }
    assert!(started.elapsed() >= std::time::Duration::from_secs(1), "it waited before giving up");
    let git_add = fx.git_output(&["add", "README.md"], None);
    assert!(!git_add.status.success(), "git itself sees the lock");
    drop(held);
    assert!(!fx.path().join(".git/index.lock").exists(), "dropping the lock removes it");
    fx.repo().lock_index().unwrap();
}

#[test]
fn a_lock_released_without_staging_leaves_the_index_byte_for_byte() {
    let fx = busy_fixture();
    let before = std::fs::read(fx.path().join(".git/index")).unwrap();
    let repo = fx.repo();
    let index = repo.lock_index().unwrap();
    index.tree_with(&[("specs/001-x/tasks.md".to_owned(), b"- [X] T001 first\n".to_vec())]).unwrap();
    drop(index);
    assert_eq!(std::fs::read(fx.path().join(".git/index")).unwrap(), before);
}

#[test]
fn a_tree_built_after_git_changed_the_index_sees_the_change() {
    let fx = busy_fixture();
    let repo = fx.repo();
    let before = repo.lock_index().unwrap().tree_with(&[]).unwrap();
    fx.write("later.txt", "staged after the first tree\n");
    fx.git(&["add", "later.txt"]);
    let after = repo.lock_index().unwrap().tree_with(&[]).unwrap();
    assert_ne!(after, before);
    assert_eq!(after, fx.rev(fx.git(&["write-tree"]).trim()));
}

#[test]
fn staging_after_git_changed_the_index_keeps_the_change() {
    let fx = busy_fixture();
    let repo = fx.repo();
    repo.lock_index().unwrap().tree_with(&[]).unwrap();
    fx.write("later.txt", "staged after the tree was built\n");
    fx.git(&["add", "later.txt"]);
    stage(&repo, "notes/new.md", b"new\n").unwrap();
    let staged = fx.git(&["diff", "--cached", "--name-only"]);
    assert!(staged.lines().any(|p| p == "later.txt"), "git's change is kept: {staged}");
    assert!(staged.lines().any(|p| p == "notes/new.md"), "ours is staged: {staged}");
    assert_eq!(fx.git(&["status", "--porcelain", "--", "later.txt", "notes/new.md"]).lines().count(), 2);
}
