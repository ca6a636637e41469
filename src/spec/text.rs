//! Markdown text as the spec rules see it: UTF-8 files, lines without their endings, ATX headings.

use super::error::{SpecError, shown};
use super::tree::{EntryKind, SourceTree};

/// The largest file of a unit read, in bytes: a task list, spec.md, a delta spec (a real one is a
/// few KiB). A larger one is refused before it is read or parsed, so that a hostile file costs
/// bounded time and memory (reading is linear in the size; `examples/bench_task_list.rs`
/// measures a task list's worst shapes at this size).
pub const SPEC_FILE_LIMIT: usize = 1024 * 1024;

/// The most bytes an OpenSpec change's delta specs hold together (a real change has a few, of a
/// few KiB each): each is held to [`SPEC_FILE_LIMIT`], and a change of many folders, each with
/// its `spec.md` (one blob they all name costs the repository nothing), is refused once their
/// sum passes this, so that reading a change costs bounded memory.
pub const DELTAS_LIMIT: usize = 8 * SPEC_FILE_LIMIT;

/// Refuses `what` at `path` (`the task list`, `spec.md`, ...) when its `size` is over
/// [`SPEC_FILE_LIMIT`].
pub(crate) fn check_size(path: &str, what: &'static str, size: u64) -> Result<(), SpecError> {
    if size > SPEC_FILE_LIMIT as u64 {
        return Err(SpecError::FileTooLarge { path: path.to_owned(), what, size, limit: SPEC_FILE_LIMIT });
    }
    Ok(())
}

/// Decodes `bytes` read from `path` as UTF-8 text, naming the first bad byte's offset on failure:
/// one that is not UTF-8, or a NUL, which UTF-8 allows and no text file holds.
pub(crate) fn decode(path: &str, bytes: Vec<u8>) -> Result<String, SpecError> {
    if bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]) {
        return Err(SpecError::Utf16 { path: path.to_owned() });
    }
    // `contains` searches a word at a time; the offset is counted only for the error.
    if bytes.contains(&0) {
        let offset = bytes.iter().position(|b| *b == 0).unwrap_or_default();
        return Err(SpecError::NulByte { path: path.to_owned(), offset });
    }
    String::from_utf8(bytes)
        .map_err(|e| SpecError::NotUtf8 { path: path.to_owned(), offset: e.utf8_error().valid_up_to() })
}

/// The bytes of the file at `path`; Ok(None) when absent. A symbolic link, a submodule or a
/// directory there is refused, never taken for absent (the boxes of a task list there would go
/// unread); `what` names the file for that message (`the task list`). A file over `max` bytes is
/// refused before it is read ([`check_size`], when `max` is [`SPEC_FILE_LIMIT`]).
pub(crate) fn read_file(
    tree: &dyn SourceTree,
    path: &str,
    what: &'static str,
    max: u64,
) -> Result<Option<Vec<u8>>, SpecError> {
    match tree.file_within(path, max)? {
        Some(Ok(bytes)) => Ok(Some(bytes)),
        Some(Err(size)) => Err(SpecError::FileTooLarge {
            path: path.to_owned(),
            what,
            size,
            limit: usize::try_from(max).unwrap_or(usize::MAX),
        }),
        None => match tree.kind(path)? {
            Some(EntryKind::Dir) => {
                Err(SpecError::NotAFile { path: path.to_owned(), what, found: "directory" })
            }
            Some(EntryKind::Special) => {
                Err(SpecError::NotAFile { path: path.to_owned(), what, found: "FIFO, socket or device" })
            }
            found => SpecError::entry_refused(path, found, what, "file").map_or(Ok(None), Err),
        },
    }
}

/// The UTF-8 text of the unit's file at `path`, at most [`SPEC_FILE_LIMIT`] bytes; Ok(None) when
/// absent; what [`read_file`] refuses is refused, and a file stored through a filter
/// ([`refuse_filtered`]).
pub(crate) fn read_text(
    tree: &dyn SourceTree,
    path: &str,
    what: &'static str,
) -> Result<Option<String>, SpecError> {
    let Some(bytes) = read_file(tree, path, what, SPEC_FILE_LIMIT as u64)? else {
        return Ok(None);
    };
    refuse_filtered(tree, path, what, &bytes)?;
    decode(path, bytes).map(Some)
}

/// The `version` values git-lfs reads as a pointer's (its `v1Aliases`): the one it writes, the
/// pre-release `hawser` one and the alpha `git-media` one.
const LFS_POINTER_VERSIONS: [&str; 3] =
    ["https://git-lfs.github.com/spec/v1", "https://hawser.github.com/spec/v1", "http://git-media.io/v/2"];

/// How many bytes of a blob git-lfs reads to tell a pointer (its `blobSizeCutoff`): what follows
/// them is never read, and a pointer found in them is smudged, whatever comes after.
const LFS_POINTER_READ: usize = 1024;

/// Refuses `bytes`, read from `path` as `what`, when they are not the text people read: the tree
/// gives the path a `filter` attribute (a checkout runs the driver over them), or they are a Git
/// LFS pointer whatever the attributes say (a checkout with git-lfs shows the object it names).
/// Read as they are, either would be a task list with no tasks, or with other ticks than the ones
/// people see.
fn refuse_filtered(
    tree: &dyn SourceTree,
    path: &str,
    what: &'static str,
    bytes: &[u8],
) -> Result<(), SpecError> {
    let how = match tree.filter_driver(path)? {
        Some(driver) => format!("the tree's `.gitattributes` give it `filter={}`", shown(&driver, 100)),
        None if is_lfs_pointer(bytes) => "it is a Git LFS pointer".to_owned(),
        None => return Ok(()),
    };
    Err(SpecError::Filtered { path: path.to_owned(), what, how })
}

/// Whether git-lfs may smudge `bytes` as a pointer (its `DecodeFrom`): their first
/// [`LFS_POINTER_READ`] bytes, white space trimmed at both ends (Unicode's, as Go's
/// `bytes.TrimSpace`), split into lines (a `\r` before each `\n` dropped), whose first line not
/// empty and not an extension's (`ext-…`) is `version` and one of [`LFS_POINTER_VERSIONS`] with
/// one space between. git-lfs asks more of the lines after it (an `oid`, a `size`); a blob that
/// passes this but not those is refused too: no task list starts with a pointer's version line.
fn is_lfs_pointer(bytes: &[u8]) -> bool {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(LFS_POINTER_READ)]);
    let first = head
        .trim()
        .split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .find(|line| !line.is_empty() && !line.starts_with("ext-"));
    let version = first.and_then(|line| line.strip_prefix("version "));
    version.is_some_and(|version| LFS_POINTER_VERSIONS.contains(&version))
}

/// Strips one line ending from `line`: a final `\n` and a `\r` just before it.
pub(crate) fn without_ending(line: &str) -> &str {
    match line.strip_suffix('\n') {
        Some(rest) => rest.strip_suffix('\r').unwrap_or(rest),
        None => line,
    }
}

/// The lines of `text`, each without its ending (`\n`, `\r\n` or a lone `\r`, as CommonMark ends
/// a line); no empty line follows a final ending. How spec.md and delta specs are split for their
/// hashes (docs/architecture.md, "Where each fact lives"), and a task list for its reader
/// (`task_list.rs`): one splitter, so that each reads the lines a renderer shows.
pub(crate) fn lines(text: &str) -> impl Iterator<Item = &str> {
    lines_at(text).map(|(_, line)| line)
}

/// [`lines`], each with the byte offset in `text` at which it starts.
pub(crate) fn lines_at(text: &str) -> impl Iterator<Item = (usize, &str)> {
    line_ranges(text, 0).map(|range| (range.start, text.get(range).unwrap_or_default()))
}

/// The byte ranges of [`lines`] of `text` from byte `start` on (a boundary of a character).
pub(crate) fn line_ranges(text: &str, start: usize) -> impl Iterator<Item = std::ops::Range<usize>> {
    let bytes = text.as_bytes();
    let mut from = start;
    std::iter::from_fn(move || {
        let rest = bytes.get(from..).filter(|rest| !rest.is_empty())?;
        #[cfg(test)]
        LINES_READ.with(|read| read.set(read.get() + 1));
        let len = rest.iter().position(|b| matches!(b, b'\n' | b'\r')).unwrap_or(rest.len());
        let ending = match rest.get(len..) {
            Some([b'\r', b'\n', ..]) => 2,
            Some([]) | None => 0,
            Some(_) => 1,
        };
        let line = from..from + len;
        from += len + ending;
        Some(line)
    })
}

#[cfg(test)]
thread_local! {
    /// How many lines [`lines_at`] gave on this thread, for the tests that hold a unit's lookups
    /// to a cost that grows with its lines, not their square.
    pub(crate) static LINES_READ: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The level (1..=6) of an ATX heading line: 1 to 6 `#` at the very start, then a space, a tab or
/// the end of the line.
pub(crate) fn heading_level(line: &str) -> Option<usize> {
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    if !(1..=6).contains(&hashes) {
        return None;
    }
    match line.as_bytes().get(hashes) {
        None | Some(b' ' | b'\t') => Some(hashes),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_end_at_lf_crlf_or_a_lone_cr_as_commonmark_ends_them() {
        let got: Vec<&str> = lines("a\r\nb\nc\rd\n\ne").collect();
        assert_eq!(got, ["a", "b", "c", "d", "", "e"]);
        let at: Vec<(usize, &str)> = lines_at("a\r\rb\r\n").collect();
        assert_eq!(at, [(0, "a"), (2, ""), (3, "b")]);
        assert_eq!(lines("x\r").collect::<Vec<_>>(), ["x"]);
        assert_eq!(lines("x\r\n").collect::<Vec<_>>(), ["x"]);
        assert_eq!(lines("x\n").collect::<Vec<_>>(), ["x"]);
        assert_eq!(lines("").count(), 0);
    }

    #[test]
    fn headings_are_one_to_six_hashes_then_a_space_or_the_end() {
        assert_eq!(heading_level("# A"), Some(1));
        assert_eq!(heading_level("###\tA"), Some(3));
        assert_eq!(heading_level("######"), Some(6));
        assert_eq!(heading_level("####### A"), None);
        assert_eq!(heading_level("#A"), None);
        assert_eq!(heading_level(" # A"), None);
        assert_eq!(heading_level("text"), None);
    }

    #[test]
    fn a_file_over_the_limit_is_refused_by_every_tree_naming_its_size() {
        let at_limit = "a".repeat(SPEC_FILE_LIMIT);
        let over = format!("{at_limit}b");
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("specs/x")).unwrap();
        let fx = crate::git::test_support::Fixture::new();
        for (name, text) in [("spec.md", &at_limit), ("big.md", &over)] {
            std::fs::write(dir.path().join("specs/x").join(name), text).unwrap();
            fx.write(&format!("specs/x/{name}"), text);
        }
        fx.git(&["add", "."]);
        fx.git(&["commit", "-q", "-m", "spec"]);
        let repo = fx.repo();
        let git = repo.tree(repo.commit(fx.rev("HEAD")).unwrap().tree);
        let mem = crate::spec::tree::MemTree::from_files([
            ("specs/x/spec.md", at_limit.as_str()),
            ("specs/x/big.md", over.as_str()),
        ])
        .unwrap();
        let fs = crate::spec::tree::FsTree::new(dir.path());
        for tree in [&mem as &dyn SourceTree, &fs, &git] {
            assert_eq!(read_text(tree, "specs/x/spec.md", "spec.md").unwrap().as_ref(), Some(&at_limit));
            let err = read_text(tree, "specs/x/big.md", "spec.md").unwrap_err();
            assert!(
                matches!(err, SpecError::FileTooLarge { what: "spec.md", size, .. } if size == over.len() as u64),
                "{err:?}"
            );
            assert!(err.to_string().starts_with(&format!("`specs/x/big.md` is {} bytes, more than the {SPEC_FILE_LIMIT} bytes speccoder reads of spec.md", over.len())), "{err}");
            assert!(read_text(tree, "specs/x/absent.md", "spec.md").unwrap().is_none());
        }
    }

    /// A pointer to the object of `oid`, as git-lfs writes one with version `version`.
    fn pointer(version: &str) -> String {
        let oid = "4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393";
        format!("version {version}\noid sha256:{oid}\nsize 12\n")
    }

    #[test]
    fn a_git_lfs_pointer_is_told_as_git_lfs_tells_it_where_it_would_smudge_it() {
        for version in LFS_POINTER_VERSIONS {
            let ptr = pointer(version);
            // Each shape checked with `git lfs smudge` (3.3.0): it shows the object for these.
            let smudged = [
                ptr.clone(),
                ptr.replace('\n', "\r\n"),
                format!("\n\n{ptr}"),
                format!(" \t\r\n{ptr}"),
                format!("\u{a0}\u{b}\u{c}{ptr}"),
                ptr.replace('\n', "\n\n"),
                format!("{ptr}{}- [X] T001 past what git-lfs reads\n", "\n".repeat(LFS_POINTER_READ)),
            ];
            // git-lfs's parser passes extension lines before `version` over; refused as well.
            let extended = format!("ext-0-foo sha256:{}\n{ptr}", "0".repeat(64));
            for bytes in smudged.into_iter().chain([extended]) {
                assert!(is_lfs_pointer(bytes.as_bytes()), "{bytes:?}");
            }
            // And it shows these as they are stored.
            let kept = [
                format!("{}{ptr}", "\n".repeat(LFS_POINTER_READ)),
                ptr.replacen(' ', "  ", 1),
                format!("# Tasks\n{ptr}"),
                ptr.replacen(version, &format!("{version}1"), 1),
            ];
            for bytes in kept {
                assert!(!is_lfs_pointer(bytes.as_bytes()), "{bytes:?}");
            }
        }
        assert!(!is_lfs_pointer(b"- [ ] T001 a\n"));
        assert!(!is_lfs_pointer(b""));
    }

    #[test]
    fn a_spec_file_stored_through_a_filter_is_refused_naming_how_and_what_to_do() {
        let fx = crate::git::test_support::Fixture::new();
        fx.write("specs/x/spec.md", pointer(LFS_POINTER_VERSIONS[0]));
        fx.write("specs/y/spec.md", "# Plain text\n");
        fx.write("specs/y/.gitattributes", "spec.md filter=git-crypt diff=git-crypt\n");
        fx.write("specs/z/spec.md", "# Plain text\n");
        fx.git(&["add", "."]);
        fx.git(&["commit", "-q", "-m", "spec"]);
        let repo = fx.repo();
        let git = repo.tree(repo.commit(fx.rev("HEAD")).unwrap().tree);
        let refused = |path| match read_text(&git, path, "spec.md") {
            Err(SpecError::Filtered { how, what: "spec.md", .. }) => how,
            other => panic!("{path}: {other:?}"),
        };
        assert_eq!(refused("specs/x/spec.md"), "it is a Git LFS pointer");
        assert_eq!(refused("specs/y/spec.md"), "the tree's `.gitattributes` give it `filter=git-crypt`");
        let err = read_text(&git, "specs/y/spec.md", "spec.md").unwrap_err().to_string();
        assert!(err.contains("store spec.md as plain text: remove the `filter` attribute"), "{err}");
        assert_eq!(read_text(&git, "specs/z/spec.md", "spec.md").unwrap().as_deref(), Some("# Plain text\n"));
    }

    #[test]
    fn a_directory_where_a_file_is_read_is_refused_never_taken_for_absent() {
        let tree = crate::spec::tree::MemTree::from_files([("specs/x/tasks.md/tasks.md", "- [x] T001 a\n")])
            .unwrap();
        let err = read_file(&tree, "specs/x/tasks.md", "the task list", u64::MAX).unwrap_err();
        assert!(
            matches!(err, SpecError::NotAFile { what: "the task list", found: "directory", .. }),
            "{err:?}"
        );
        assert!(read_file(&tree, "specs/y/tasks.md", "the task list", u64::MAX).unwrap().is_none());
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_where_a_file_is_read_in_the_work_tree_is_refused_unopened_never_taken_for_absent() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("specs/x")).unwrap();
        let fifo = std::process::Command::new("mkfifo").arg(dir.path().join("specs/x/tasks.md")).status();
        assert!(fifo.unwrap().success());
        let tree = crate::spec::tree::FsTree::new(dir.path());
        // Opening the FIFO for reading would wait for a writer that never comes.
        let err = read_file(&tree, "specs/x/tasks.md", "the task list", u64::MAX).unwrap_err();
        assert!(matches!(err, SpecError::NotAFile { found: "FIFO, socket or device", .. }), "{err:?}");
        let message = err.to_string();
        assert!(
            message.starts_with("`specs/x/tasks.md` is a FIFO, socket or device where the task list"),
            "{message}"
        );
    }

    #[test]
    fn a_submodule_where_a_file_is_read_is_refused_never_taken_for_absent() {
        let mut tree = crate::spec::tree::MemTree::new();
        tree.insert_submodule("specs/x/tasks.md").unwrap();
        let err = read_file(&tree, "specs/x/tasks.md", "the task list", u64::MAX).unwrap_err();
        assert!(matches!(err, SpecError::Submodule { what: "the task list", kind: "file", .. }), "{err:?}");
        let message = err.to_string();
        assert!(message.starts_with("`specs/x/tasks.md` is a submodule"), "{message}");
        assert!(message.contains("keep the task list in the project's own tree"), "{message}");
    }

    #[test]
    fn a_nul_byte_is_refused_as_no_text_so_utf16_without_a_mark_hides_no_box() {
        let utf16: Vec<u8> = "- [x] T001 a\n".encode_utf16().flat_map(u16::to_le_bytes).collect();
        let err = decode("specs/x/tasks.md", utf16).unwrap_err();
        assert!(matches!(err, SpecError::NulByte { offset: 1, .. }), "{err:?}");
        assert!(err.to_string().contains("UTF-16"), "{err}");
        assert!(matches!(decode("t.md", b"a\n\0".to_vec()), Err(SpecError::NulByte { offset: 2, .. })));
        for bom in [[0xff, 0xfe], [0xfe, 0xff]] {
            let err = decode("t.md", [&bom[..], "- [x] T001".as_bytes()].concat()).unwrap_err();
            assert!(err.to_string().contains("is UTF-16 (it starts with a UTF-16 byte order mark)"), "{err}");
        }
    }

    #[test]
    fn invalid_utf8_names_the_file_and_the_offset_of_the_first_bad_byte() {
        let err = decode("specs/x/tasks.md", b"ok\n\xff".to_vec()).unwrap_err();
        assert!(matches!(err, SpecError::NotUtf8 { offset: 3, .. }));
        assert!(err.to_string().contains("specs/x/tasks.md"));
    }
}
