//! The pack's directory while the range is checked. The check hands on each note as it reads it
//! ([`NoteKeeper`]), and the note is written into the pack then, from the checking thread, with
//! the payload digest of each line kept for the summary: no note is read twice, and the files are
//! written while other commits are checked. Nothing appears at the pack's path before the export
//! finishes it; a range that does not hold drops the pack and every file with it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::git::Repo;
use crate::model::bundle;
use crate::model::held::NoteKeeper;
use crate::output_file::{NewDir, OutputError, refuse_in_git_dir};

/// The directory a pack is written into, and the notes kept in it so far.
#[derive(Debug)]
pub struct Pack {
    /// The new directory, at its path only once finished.
    dir: NewDir,
    /// The notes written, and the first that could not be.
    kept: Mutex<Kept>,
}

/// What [`Pack`] kept.
#[derive(Debug, Default)]
struct Kept {
    /// Task commit (hex) -> the payload sha256 of each line of its note, for each note written.
    lines: HashMap<String, Vec<String>>,
    /// The first note that could not be written: the export then fails with it.
    failed: Option<OutputError>,
}

/// The file of a task commit's note in the pack.
pub(super) fn notes_file(commit: &str) -> String {
    format!("{commit}.intoto.jsonl")
}

impl Pack {
    /// Starts the pack at `out` ([`NewDir::create`]), which must lie outside `repo`'s git
    /// directory, the common one of its worktrees and those of the repositories around it
    /// ([`Repo::git_dirs_guarded`], [`refuse_in_git_dir`]).
    ///
    /// # Errors
    /// [`OutputError`]: `out` is inside the git directory, a link, a file, a directory with
    /// files, or has no parent.
    pub fn create(repo: &Repo, out: &Path) -> Result<Pack, OutputError> {
        let guarded = repo.git_dirs_guarded();
        refuse_in_git_dir(out, &guarded.iter().map(PathBuf::as_path).collect::<Vec<_>>())?;
        Ok(Pack { dir: NewDir::create(out)?, kept: Mutex::default() })
    }

    /// The directory, and each note kept in it with its lines' payload digests.
    ///
    /// # Errors
    /// The first note that could not be written.
    pub(super) fn into_parts(self) -> Result<(NewDir, HashMap<String, Vec<String>>), OutputError> {
        let kept = self.kept.into_inner().unwrap_or_else(PoisonError::into_inner);
        match kept.failed {
            Some(e) => Err(e),
            None => Ok((self.dir, kept.lines)),
        }
    }

    fn kept(&self) -> MutexGuard<'_, Kept> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl NoteKeeper for Pack {
    /// Writes the note once. A note with a line the check could not read is not kept: that tick
    /// does not hold, so neither does the range, and the pack is dropped. The notes are written
    /// one at a time, under the lock of what is kept: threads that create files in one directory
    /// at once wait for it in the kernel, which spins while another thread's file is made.
    fn keep(&self, commit: &str, note: &[u8], payload_sha256: &[&str]) {
        if bundle::lines(note).count() != payload_sha256.len() {
            return;
        }
        let mut kept = self.kept();
        if kept.failed.is_some() || kept.lines.contains_key(commit) {
            return;
        }
        match self.dir.write(&notes_file(commit), note) {
            Ok(()) => {
                kept.lines
                    .insert(commit.to_owned(), payload_sha256.iter().map(|d| (*d).to_owned()).collect());
            }
            Err(e) => kept.failed = Some(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::test_support::Fixture;
    use crate::output_file::Problem;

    #[test]
    fn each_note_is_written_once_and_one_with_an_unread_line_is_not_kept() {
        let fx = Fixture::new();
        let out = fx.home().join("pack");
        let pack = Pack::create(&fx.repo(), &out).unwrap();
        pack.keep("c1", b"{\"a\":1}\n{\"b\":2}\n", &["d1", "d2"]);
        pack.keep("c1", b"{\"a\":1}\n{\"b\":2}\n", &["d1", "d2"]);
        pack.keep("c2", b"{\"a\":1}\nnot an envelope\n", &["d1"]);
        let (new_dir, kept) = pack.into_parts().unwrap();
        assert_eq!(kept.len(), 1);
        assert_eq!(kept["c1"], ["d1", "d2"]);
        new_dir.finish().unwrap();
        assert_eq!(std::fs::read(out.join("c1.intoto.jsonl")).unwrap(), b"{\"a\":1}\n{\"b\":2}\n");
        assert!(!out.join("c2.intoto.jsonl").exists());
    }

    #[test]
    fn a_note_that_cannot_be_written_fails_the_pack() {
        let fx = Fixture::new();
        let pack = Pack::create(&fx.repo(), &fx.home().join("pack")).unwrap();
        pack.keep("../outside", b"{}\n", &["d"]);
        pack.keep("c1", b"{}\n", &["d"]);
        let err = pack.into_parts().unwrap_err();
        assert!(err.to_string().contains("outside.intoto.jsonl"), "{err}");
    }

    #[test]
    fn a_pack_inside_the_git_directory_or_the_worktrees_common_one_is_refused_and_nothing_is_made() {
        let fx = Fixture::new();
        fx.git(&["commit", "-q", "--allow-empty", "-m", "first"]);
        let linked = fx.home().join("linked");
        fx.git(&["worktree", "add", "-q", linked.to_str().unwrap()]);
        let main_git = fx.path().join(".git");
        let in_linked = Repo::discover(&linked).unwrap();
        for (repo, out) in [
            (fx.repo(), main_git.join("refs/heads/pack")),
            (fx.repo(), fx.path().join("./.git/refs/notes/speccoder")),
            (in_linked, main_git.join("refs/notes/speccoder")),
        ] {
            let err = Pack::create(&repo, &out).unwrap_err();
            assert!(matches!(err.problem, Problem::InGitDirectory(_)), "{err}");
            assert!(!out.exists(), "{}", out.display());
        }
        let refs = fx.git(&["for-each-ref", "--format=%(refname)"]);
        assert_eq!(refs.lines().filter(|r| r.contains("pack") || r.contains("speccoder")).count(), 0);
    }
}
