//! A change of a blob carried onto its work-tree file line for line, each line keeping the end the
//! work tree gave it: what a writer puts in the work tree when git converts that file at its line
//! ends alone (`core.autocrlf=input`, `eol=lf`, `text=auto` leave a CRLF file as it was saved).

/// `on_disk`, a work-tree file whose lines are those of the blob `old` one for one (`\n` ends a
/// line), with each line that `new` changes against `old` replaced by `new`'s, keeping the CR the
/// work tree's line has before its LF where the blob's has none. `None` when the lines do not
/// correspond so: other line counts, or a changed line that the work tree holds neither as `old`
/// nor as `new` has it (but for that CR).
pub(super) fn carry_changed_lines(old: &[u8], new: &[u8], on_disk: &[u8]) -> Option<Vec<u8>> {
    let (old, new, disk) = (lines(old), lines(new), lines(on_disk));
    if old.len() != new.len() || old.len() != disk.len() {
        return None;
    }
    let mut out = Vec::with_capacity(on_disk.len());
    for ((old, new), disk) in old.iter().zip(&new).zip(&disk) {
        if old == new {
            out.extend_from_slice(disk);
            continue;
        }
        let cr = added_cr(disk, old).or_else(|| added_cr(disk, new))?;
        match new.strip_suffix(b"\n") {
            Some(body) if cr => {
                out.extend_from_slice(body);
                out.extend_from_slice(b"\r\n");
            }
            _ => out.extend_from_slice(new),
        }
    }
    Some(out)
}

/// The lines of `bytes`, each with its `\n`; the last one may have none.
fn lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes.split_inclusive(|byte| *byte == b'\n').collect()
}

/// Whether the work tree's line `disk` is the blob's line `blob` with a CR put before its LF
/// (`Some(true)`) or as it is (`Some(false)`); `None` when it is neither.
fn added_cr(disk: &[u8], blob: &[u8]) -> Option<bool> {
    if disk == blob {
        return Some(false);
    }
    let body = blob.strip_suffix(b"\n")?;
    (disk.strip_suffix(b"\r\n")? == body).then_some(true)
}

#[cfg(test)]
mod tests {
    use super::carry_changed_lines;

    #[test]
    fn a_tick_of_an_lf_blob_keeps_every_crlf_of_the_work_tree() {
        let old = b"# T\n- [ ] T001 a\n- [ ] T002 b\n";
        let new = b"# T\n- [ ] T001 a\n- [X] T002 b\n";
        let disk = b"# T\r\n- [ ] T001 a\n- [ ] T002 b\r\n";
        assert_eq!(carry_changed_lines(old, new, disk).unwrap(), b"# T\r\n- [ ] T001 a\n- [X] T002 b\r\n");
    }

    #[test]
    fn a_work_tree_that_already_holds_the_new_line_keeps_it_as_it_is() {
        let old = b"- [ ] T001 a\n";
        let new = b"- [X] T001 a\n";
        assert_eq!(carry_changed_lines(old, new, b"- [X] T001 a\r\n").unwrap(), b"- [X] T001 a\r\n");
        assert_eq!(carry_changed_lines(old, new, old).unwrap(), new);
    }

    #[test]
    fn a_last_line_without_a_newline_stays_without_one() {
        let carried = carry_changed_lines(b"a\n- [ ] T1", b"a\n- [X] T1", b"a\r\n- [ ] T1").unwrap();
        assert_eq!(carried, b"a\r\n- [X] T1");
    }

    #[test]
    fn lines_that_do_not_correspond_carry_nothing() {
        let (old, new) = (&b"a\n- [ ] T1\n"[..], &b"a\n- [X] T1\n"[..]);
        assert_eq!(carry_changed_lines(old, new, b"a\n- [ ] T1\nmore\n"), None, "another count");
        assert_eq!(carry_changed_lines(old, new, b"a\n- [ ] T1 edited\n"), None, "another text");
        assert_eq!(carry_changed_lines(old, new, b"a\n- [ ] T1\n\r\n"), None, "another count again");
    }
}
