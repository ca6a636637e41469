//! Ticking a task: the box of one line changes, every other byte of the task list stays.

use super::error::SpecError;
use super::task_list::TaskList;
use super::text::{check_size, decode};
use super::unit::Format;

/// `tasks_md` with the box of the task on line `line_index` ticked: `[ ]` becomes `[X]` (Spec
/// Kit) or `[x]` (OpenSpec). Lines are those of the task list reader (split at `\n`, `\r\n` or a
/// lone `\r`; a byte order mark is not part of line 0), and the line must hold a task as that
/// reader reads it, so a line in a code block or a comment is never ticked. Only that one byte
/// changes; line endings, a byte order mark, a missing final newline, trailing text and every other
/// line stay byte for byte. Errors: a task list too large or not UTF-8, no such line, no task on
/// that line, already ticked.
pub fn tick(tasks_md: &[u8], line_index: usize, format: Format) -> Result<Vec<u8>, SpecError> {
    const PATH: &str = "tasks.md";
    check_size(PATH, "the task list", tasks_md.len() as u64)?;
    let text = decode(PATH, tasks_md.to_vec())?;
    let list = TaskList::read(text, format);
    let line_no = line_index.saturating_add(1);
    let Some(line_start) = list.line_start(line_index) else {
        return Err(SpecError::NoSuchLine { line: line_no, count: list.line_count() });
    };
    let not_task = || SpecError::NotATaskLine { line: line_no, format };
    let tasks = list.tasks();
    let task = tasks.iter().find(|(i, _)| *i == line_index).map(|(_, t)| t).ok_or_else(not_task)?;
    if task.ticked {
        return Err(SpecError::AlreadyTicked { line: line_no });
    }
    let mut out = tasks_md.to_vec();
    let slot = out.get_mut(line_start + task.box_at).ok_or_else(not_task)?;
    *slot = format.tick_char();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticking_changes_only_the_box_and_keeps_crlf_and_other_lines() {
        let before = b"# Tasks\r\n\r\n- [ ] T001 First  \r\n- [ ] T002 [US1] Second (FR-001)\r\n";
        let after = tick(before, 2, Format::SpecKit).unwrap();
        assert_eq!(after, b"# Tasks\r\n\r\n- [X] T001 First  \r\n- [ ] T002 [US1] Second (FR-001)\r\n");
    }

    #[test]
    fn ticking_the_last_line_without_a_final_newline_keeps_it_without_one() {
        let before = b"## 1. Impl\n- [x] 1.1 Done\n  - [ ] 1.2 Last one  trailing\t";
        let after = tick(before, 2, Format::OpenSpec).unwrap();
        assert_eq!(after, b"## 1. Impl\n- [x] 1.1 Done\n  - [x] 1.2 Last one  trailing\t");
    }

    #[test]
    fn ticking_keeps_cr_only_and_mixed_endings_and_a_byte_order_mark() {
        let before = "\u{feff}# T\r- [ ] T001 a\r\n- [ ] T002 b\n* [ ] T003 c\r".as_bytes();
        let after = tick(before, 3, Format::SpecKit).unwrap();
        assert_eq!(after, "\u{feff}# T\r- [ ] T001 a\r\n- [ ] T002 b\n* [X] T003 c\r".as_bytes());
        let first = tick("\u{feff}- [ ] T001 a\r".as_bytes(), 0, Format::SpecKit).unwrap();
        assert_eq!(first, "\u{feff}- [X] T001 a\r".as_bytes());
    }

    #[test]
    fn a_task_line_in_a_fence_or_a_comment_is_never_ticked() {
        let md = b"```\n- [ ] T001 fake\n```\n<!--\n- [ ] T001 fake\n-->\n- [ ] T001 real\n";
        for fake in [1, 4] {
            assert!(
                matches!(tick(md, fake, Format::SpecKit), Err(SpecError::NotATaskLine { .. })),
                "line {fake}"
            );
        }
        let after = tick(md, 6, Format::SpecKit).unwrap();
        assert_eq!(after, b"```\n- [ ] T001 fake\n```\n<!--\n- [ ] T001 fake\n-->\n- [X] T001 real\n");
    }

    #[test]
    fn a_task_list_that_is_not_utf8_or_too_large_is_refused() {
        let err = tick(b"\xff junk\n* [ ] T9 x\n", 1, Format::SpecKit).unwrap_err();
        assert!(matches!(err, SpecError::NotUtf8 { offset: 0, .. }), "{err:?}");
        let big = vec![b'\n'; crate::spec::SPEC_FILE_LIMIT + 1];
        assert!(matches!(tick(&big, 0, Format::SpecKit), Err(SpecError::FileTooLarge { .. })));
    }

    #[test]
    fn ticking_an_already_ticked_line_is_an_error() {
        for done in [&b"- [x] T001 a\n"[..], b"- [X] T001 a\n"] {
            let err = tick(done, 0, Format::SpecKit).unwrap_err();
            assert!(matches!(err, SpecError::AlreadyTicked { line: 1 }));
            assert!(err.to_string().contains("already ticked"));
        }
    }

    #[test]
    fn ticking_a_line_that_is_missing_or_no_task_is_an_error() {
        let md = b"# T\n- [ ] T001 a\n";
        assert!(matches!(tick(md, 5, Format::SpecKit), Err(SpecError::NoSuchLine { line: 6, count: 2 })));
        assert!(matches!(tick(md, 0, Format::SpecKit), Err(SpecError::NotATaskLine { line: 1, .. })));
        let err = tick(md, 1, Format::OpenSpec).unwrap_err();
        assert!(matches!(err, SpecError::NotATaskLine { .. }));
        assert!(err.to_string().contains("line 2 is not an OpenSpec task line (`- [ ] 1.1 Title`)"), "{err}");
        let err = tick(md, 0, Format::SpecKit).unwrap_err();
        assert!(err.to_string().contains("line 1 is not a Spec Kit task line (`- [ ] T001 Title`)"), "{err}");
        assert!(matches!(tick(b"+ [ ] T1 x\n", 0, Format::SpecKit), Err(SpecError::NotATaskLine { .. })));
        assert!(tick(b"", 0, Format::SpecKit).is_err());
        assert!(tick(b"- [ ] T1\n", usize::MAX, Format::SpecKit).is_err());
    }
}
