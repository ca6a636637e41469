//! Markdown text as the spec rules see it: UTF-8 files, lines without their endings, ATX headings.

use super::error::SpecError;
use super::tree::{EntryKind, SourceTree};

/// Decodes `bytes` read from `path` as UTF-8 text, naming the first bad byte's offset on failure:
/// one that is not UTF-8, or a NUL, which UTF-8 allows and no text file holds.
pub(crate) fn decode(path: &str, bytes: Vec<u8>) -> Result<String, SpecError> {
    if bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]) {
        return Err(SpecError::Utf16 { path: path.to_owned() });
    }
    if let Some(offset) = bytes.iter().position(|b| *b == 0) {
        return Err(SpecError::NulByte { path: path.to_owned(), offset });
    }
    String::from_utf8(bytes)
        .map_err(|e| SpecError::NotUtf8 { path: path.to_owned(), offset: e.utf8_error().valid_up_to() })
}

/// The bytes of the file at `path`; Ok(None) when absent. A symbolic link, a submodule or a
/// directory there is refused, never taken for absent (the boxes of a task list there would go
/// unread); `what` names the file for that message (`the task list`).
pub(crate) fn read_file(
    tree: &dyn SourceTree,
    path: &str,
    what: &'static str,
) -> Result<Option<Vec<u8>>, SpecError> {
    match tree.file(path)? {
        Some(bytes) => Ok(Some(bytes)),
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

/// The UTF-8 text of the file at `path`; Ok(None) when absent; what [`read_file`] refuses is refused.
pub(crate) fn read_text(
    tree: &dyn SourceTree,
    path: &str,
    what: &'static str,
) -> Result<Option<String>, SpecError> {
    read_file(tree, path, what)?.map(|bytes| decode(path, bytes)).transpose()
}

/// Strips one line ending from `line`: a final `\n` and a `\r` just before it.
pub(crate) fn without_ending(line: &str) -> &str {
    match line.strip_suffix('\n') {
        Some(rest) => rest.strip_suffix('\r').unwrap_or(rest),
        None => line,
    }
}

/// The lines of `text` split at `\n`, each without its ending (`\n`, or `\r\n`); no empty line
/// follows a final newline. How spec.md and delta specs are split for their hashes
/// (docs/architecture.md, "Where each fact lives"); a task list is split by its own reader
/// (`task_list.rs`), as CommonMark splits it.
pub(crate) fn lines(text: &str) -> impl Iterator<Item = &str> {
    lines_at(text).map(|(_, line)| line)
}

/// [`lines`], each with the byte offset in `text` at which it starts.
pub(crate) fn lines_at(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split_inclusive('\n').scan(0, |start, raw| {
        let at = *start;
        *start += raw.len();
        Some((at, without_ending(raw)))
    })
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
    fn lines_lose_lf_and_crlf_endings_but_keep_a_lone_cr() {
        let got: Vec<&str> = lines("a\r\nb\nc\rd\n\ne").collect();
        assert_eq!(got, ["a", "b", "c\rd", "", "e"]);
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
    fn a_directory_where_a_file_is_read_is_refused_never_taken_for_absent() {
        let tree = crate::spec::tree::MemTree::from_files([("specs/x/tasks.md/tasks.md", "- [x] T001 a\n")])
            .unwrap();
        let err = read_file(&tree, "specs/x/tasks.md", "the task list").unwrap_err();
        assert!(
            matches!(err, SpecError::NotAFile { what: "the task list", found: "directory", .. }),
            "{err:?}"
        );
        assert!(read_file(&tree, "specs/y/tasks.md", "the task list").unwrap().is_none());
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
        let err = read_file(&tree, "specs/x/tasks.md", "the task list").unwrap_err();
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
        let err = read_file(&tree, "specs/x/tasks.md", "the task list").unwrap_err();
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
