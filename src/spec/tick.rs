//! Ticking a task: the box of one line changes, every other byte of the task list stays.

use super::error::SpecError;
use super::task_line::parse_task_line;
use super::text::without_ending;
use super::unit::Format;

/// `tasks_md` with the box of line `line_index` (0-based, lines split at `\n`) ticked: `[ ]`
/// becomes `[X]` (Spec Kit) or `[x]` (OpenSpec). Only that one byte changes; line endings, a
/// missing final newline, trailing text and every other line stay byte for byte. Errors: no such
/// line, not a task line of `format` (or not UTF-8), already ticked.
pub fn tick(tasks_md: &[u8], line_index: usize, format: Format) -> Result<Vec<u8>, SpecError> {
    let mut start = 0;
    let mut count = 0;
    let mut found = None;
    for (i, line) in tasks_md.split_inclusive(|&b| b == b'\n').enumerate() {
        if i == line_index {
            found = Some((start, line));
        }
        start += line.len();
        count += 1;
    }
    let line_no = line_index.saturating_add(1);
    let Some((line_start, line)) = found else {
        return Err(SpecError::NoSuchLine { line: line_no, count });
    };
    let not_task = || SpecError::NotATaskLine { line: line_no, format: format.display_name() };
    let text = std::str::from_utf8(line).map_err(|_| not_task())?;
    let task = parse_task_line(format, without_ending(text)).ok_or_else(not_task)?;
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
    fn other_lines_may_hold_bytes_that_are_not_utf8() {
        let before = b"\xff\xfe junk\n* [ ] T9 x\n";
        assert_eq!(tick(before, 1, Format::SpecKit).unwrap(), b"\xff\xfe junk\n* [X] T9 x\n");
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
        assert!(matches!(tick(md, 1, Format::OpenSpec), Err(SpecError::NotATaskLine { .. })));
        assert!(matches!(tick(b"- [ ] T1 \xff\n", 0, Format::SpecKit), Err(SpecError::NotATaskLine { .. })));
        assert!(tick(b"", 0, Format::SpecKit).is_err());
        assert!(tick(b"- [ ] T1\n", usize::MAX, Format::SpecKit).is_err());
    }
}
