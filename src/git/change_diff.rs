//! The change a commit makes to its parent (or one tree to another), as git shows it: a patch
//! with three lines of context, whitespace and binary content in full, streamed line by line for
//! many commits from one `git diff-tree --stdin`, so that comparing a change with thousands of
//! candidates costs one process, not one per candidate.

use std::io::{BufReader, Read as _, Write as _};
use std::process::Stdio;

use gix::ObjectId;

use super::error::GitError;
use super::repo::Repo;

/// How much of one line of a patch is handed over whole; a longer line (a minified file, a
/// binary patch never has one) is handed over in parts of at most this many bytes, so that no
/// line of a hostile change is ever held whole.
pub const DIFF_LINE_MAX: usize = 1 << 20;

/// The options that fix the patch git writes whatever the user's configuration says: three lines
/// of context and no merging of nearby hunks, the default algorithm, binary content in full
/// (`--binary`), no renames, every submodule's change (whatever `.gitmodules` or
/// `diff.ignoreSubmodules` says: `ignore = all` would make a submodule moved to another commit no
/// change at all), no external diff and no text conversion.
const PATCH_OPTIONS: [&str; 11] = [
    "-p",
    "-U3",
    "--inter-hunk-context=0",
    "--diff-algorithm=myers",
    "--indent-heuristic",
    "--binary",
    "--no-renames",
    "--ignore-submodules=none",
    "--no-ext-diff",
    "--no-textconv",
    "--no-color",
];

/// One piece of a patch line, without its line ending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchLine<'a> {
    /// A whole line of at most [`DIFF_LINE_MAX`] bytes.
    Whole(&'a [u8]),
    /// A part of a longer line; `last` marks the part that ends it.
    Part {
        /// The bytes of this part.
        bytes: &'a [u8],
        /// Whether the line ends after it.
        last: bool,
    },
}

/// What one patch of [`Repo::change_patches`] is taken between.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchOf {
    /// A commit against a parent (none: a root commit, against the empty tree).
    Commit(ObjectId, Option<ObjectId>),
    /// A tree (the first) changed into another (the second).
    Trees(ObjectId, ObjectId),
}

impl PatchOf {
    /// Its line of `git diff-tree --stdin`'s input.
    fn input(&self) -> String {
        match self {
            PatchOf::Commit(commit, Some(parent)) => format!("{commit} {parent}\n"),
            PatchOf::Commit(commit, None) => format!("{commit}\n"),
            PatchOf::Trees(from, to) => format!("{from} {to}\n"),
        }
    }

    /// The line git writes before its patch: the commit (`--always`), or the two trees.
    fn header(&self) -> Vec<u8> {
        match self {
            PatchOf::Commit(commit, _) => commit.to_string().into_bytes(),
            PatchOf::Trees(from, to) => format!("{from} {to}").into_bytes(),
        }
    }
}

impl Repo {
    /// Streams the patch of each of `changes` to `sink`, with the index of the change in `changes`, line by line
    /// in the order git writes them ([`PATCH_OPTIONS`]). An empty change gives no line. One `git
    /// diff-tree --stdin` does them all.
    ///
    /// # Errors
    /// git cannot run, or fails (an object it needs is missing and cannot be fetched), or its
    /// output is not the patches asked for.
    pub fn change_patches(
        &self,
        changes: &[PatchOf],
        sink: &mut dyn FnMut(usize, PatchLine<'_>),
    ) -> Result<(), GitError> {
        if changes.is_empty() {
            return Ok(());
        }
        let action = format!("computing the changes of {} commit(s)", changes.len());
        let failed = |status: Option<i32>, stderr: String| GitError::GitCommand {
            action: action.clone(),
            status,
            stderr,
        };
        let cannot_run = |e: std::io::Error| {
            failed(None, format!("the git program could not be run ({e}); install git and put it on PATH"))
        };
        let mut args = vec!["diff-tree", "--stdin", "--always", "--root"];
        args.extend(PATCH_OPTIONS);
        // Held until git has ended: the directory it runs in.
        let mut history = self.history_command(&args)?;
        let mut child = history
            .cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(cannot_run)?;
        let input: String = changes.iter().map(PatchOf::input).collect();
        let mut stdin = child.stdin.take();
        let writer = std::thread::spawn(move || stdin.as_mut().map(|pipe| pipe.write_all(input.as_bytes())));
        let mut stderr = child.stderr.take();
        let reader = std::thread::spawn(move || {
            let mut text = Vec::new();
            if let Some(pipe) = stderr.as_mut() {
                let _ = pipe.take(64 * 1024).read_to_end(&mut text);
                let _ = std::io::copy(pipe, &mut std::io::sink());
            }
            String::from_utf8_lossy(&text).trim().to_owned()
        });
        let headers: Vec<Vec<u8>> = changes.iter().map(PatchOf::header).collect();
        let streamed = match child.stdout.take() {
            Some(stdout) => split_patches(BufReader::new(stdout), &headers, sink),
            None => Ok(()),
        };
        let status = child.wait().map_err(cannot_run)?;
        let _ = writer.join();
        let stderr = reader.join().unwrap_or_default();
        if !status.success() {
            return Err(failed(status.code(), stderr));
        }
        streamed.map_err(|reason| failed(status.code(), reason.to_string()))
    }
}

/// Hands the lines of `out` (git's patches, each after its line of `headers`) to `sink`.
fn split_patches(
    mut out: impl std::io::BufRead,
    headers: &[Vec<u8>],
    sink: &mut dyn FnMut(usize, PatchLine<'_>),
) -> Result<(), PatchStreamError> {
    // `--always` names every commit (and git every pair of trees), in the order given; a patch
    // line never is a bare object id or two (it starts with a space, `+`, `-`, `@`, a header word,
    // or is a base85 line of 1 + 5n bytes).
    let hex = |i: usize| headers.get(i).cloned();
    let mut next = 0usize;
    let mut expected = hex(0);
    let mut current: Option<usize> = None;
    let mut line: Vec<u8> = Vec::new();
    let mut long = false;
    let unnamed = |line: &[u8]| {
        PatchStreamError::Unnamed(String::from_utf8_lossy(&line[..line.len().min(80)]).into_owned())
    };
    loop {
        let buf = out.fill_buf().map_err(PatchStreamError::Read)?;
        if buf.is_empty() {
            break;
        }
        let (mut rest, ends) = match buf.iter().position(|b| *b == b'\n') {
            Some(at) => (&buf[..at], true),
            None => (buf, false),
        };
        let used = rest.len() + usize::from(ends);
        while line.len() + rest.len() > DIFF_LINE_MAX {
            let (head, tail) = rest.split_at(DIFF_LINE_MAX - line.len());
            line.extend_from_slice(head);
            rest = tail;
            let i = current.ok_or_else(|| unnamed(&line))?;
            sink(i, PatchLine::Part { bytes: &line, last: false });
            line.clear();
            long = true;
        }
        line.extend_from_slice(rest);
        out.consume(used);
        if !ends {
            continue;
        }
        if !long && expected.as_deref() == Some(line.as_slice()) {
            current = Some(next);
            next += 1;
            expected = hex(next);
        } else {
            let i = current.ok_or_else(|| unnamed(&line))?;
            sink(
                i,
                if long { PatchLine::Part { bytes: &line, last: true } } else { PatchLine::Whole(&line) },
            );
        }
        line.clear();
        long = false;
    }
    if next != headers.len() {
        return Err(PatchStreamError::Missing { named: next, asked: headers.len() });
    }
    Ok(())
}

/// Why git's stream of patches cannot be split by commit.
#[derive(Debug, thiserror::Error)]
enum PatchStreamError {
    /// Reading git's output failed.
    #[error("reading git's output failed: {0}")]
    Read(std::io::Error),
    /// A line came before any commit was named (its first bytes).
    #[error("git wrote `{0}` before naming a commit")]
    Unnamed(String),
    /// Not every commit asked for was named.
    #[error("git named {named} of the {asked} commits asked for")]
    Missing {
        /// How many were named.
        named: usize,
        /// How many were asked for.
        asked: usize,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u8) -> ObjectId {
        ObjectId::from_hex(format!("{n:02x}").repeat(20).as_bytes()).unwrap()
    }

    fn collect(text: &[u8], changes: &[PatchOf]) -> Result<Vec<(usize, Vec<u8>, bool)>, PatchStreamError> {
        let headers: Vec<Vec<u8>> = changes.iter().map(PatchOf::header).collect();
        let mut got = Vec::new();
        split_patches(std::io::Cursor::new(text.to_vec()), &headers, &mut |i, piece| match piece {
            PatchLine::Whole(b) => got.push((i, b.to_vec(), true)),
            PatchLine::Part { bytes, last } => got.push((i, bytes.to_vec(), last)),
        })?;
        Ok(got)
    }

    #[test]
    fn each_commits_or_tree_pairs_lines_go_to_its_change_and_an_empty_change_gives_none() {
        let changes =
            [PatchOf::Commit(id(1), Some(id(2))), PatchOf::Trees(id(3), id(5)), PatchOf::Commit(id(4), None)];
        let text = format!("{}\n@@ -1 +1 @@\n-a\n+b\n{} {}\n{}\n+c\n", id(1), id(3), id(5), id(4));
        let got = collect(text.as_bytes(), &changes).unwrap();
        assert_eq!(
            got,
            [
                (0, b"@@ -1 +1 @@".to_vec(), true),
                (0, b"-a".to_vec(), true),
                (0, b"+b".to_vec(), true),
                (2, b"+c".to_vec(), true)
            ]
        );
    }

    #[test]
    fn output_that_names_no_commit_or_too_few_is_refused() {
        assert!(collect(b"+a\n", &[PatchOf::Commit(id(1), None)]).is_err());
        assert!(
            collect(
                format!("{}\n", id(1)).as_bytes(),
                &[PatchOf::Commit(id(1), None), PatchOf::Commit(id(2), None)]
            )
            .is_err()
        );
    }

    #[test]
    fn a_line_longer_than_the_bound_comes_in_parts() {
        let long = vec![b'x'; DIFF_LINE_MAX + 10];
        let mut text = format!("{}\n+", id(1)).into_bytes();
        text.extend_from_slice(&long);
        text.extend_from_slice(b"\n+short\n");
        let got = collect(&text, &[PatchOf::Commit(id(1), None)]).unwrap();
        let (parts, short) = got.split_at(got.len() - 1);
        assert_eq!(parts.iter().map(|(_, b, _)| b.len()).sum::<usize>(), long.len() + 1);
        assert!(parts.iter().all(|(i, b, _)| *i == 0 && b.len() <= DIFF_LINE_MAX));
        assert_eq!(parts.iter().filter(|(_, _, last)| *last).count(), 1, "one part ends the line");
        assert!(parts.last().unwrap().2);
        assert_eq!(short, [(0, b"+short".to_vec(), true)]);
    }
}
