//! The bundle: the envelopes of one task commit as JSON Lines, stored as that commit's git note.

/// The notes reference that holds every bundle.
pub const NOTES_REF: &str = "refs/notes/speccoder";

/// Joins envelope lines into a bundle: each line followed by `\n`, nothing else.
#[must_use]
pub fn join<L: AsRef<[u8]>>(lines: &[L]) -> Vec<u8> {
    let mut out = Vec::with_capacity(lines.iter().map(|l| l.as_ref().len() + 1).sum());
    for line in lines {
        out.extend_from_slice(line.as_ref());
        out.push(b'\n');
    }
    out
}

/// Splits a bundle into its lines. A final line without `\n` counts; an empty line is kept (as
/// an empty slice) so that a reader can report it instead of silently skipping it, except for the
/// single empty remainder after the last `\n`.
#[must_use]
pub fn split(bundle: &[u8]) -> Vec<&[u8]> {
    let body = bundle.strip_suffix(b"\n").unwrap_or(bundle);
    if body.is_empty() {
        return Vec::new();
    }
    body.split(|b| *b == b'\n').collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_then_split_gives_the_lines_back() {
        let lines = [&b"{\"a\":1}"[..], b"{\"b\":2}"];
        let bundle = join(&lines);
        assert_eq!(bundle, b"{\"a\":1}\n{\"b\":2}\n");
        assert_eq!(split(&bundle), lines);
    }

    #[test]
    fn blank_lines_are_kept_for_the_reader_to_report() {
        assert_eq!(split(b"a\n\nb"), [&b"a"[..], b"", b"b"]);
        assert!(split(b"").is_empty());
        assert!(split(b"\n").is_empty());
    }
}
