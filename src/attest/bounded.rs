//! Reading a file the user points at (evidence, red output, held-out files and manifests) with a
//! bound on how much of it is read.

/// Reads the file `path` when it holds at most `max` bytes; `Ok(None)` when it is longer.
///
/// The file's size only sizes the buffer (it may change while read); the bound is enforced on
/// what is read. Sized, a small file is read in one call instead of a probe and doubling reads.
pub(crate) fn read_bounded(path: &std::path::Path, max: u64) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::Read as _;
    let file = std::fs::File::open(path)?;
    let hint = file.metadata().map_or(0, |m| m.len()).min(max).saturating_add(1);
    let mut buf = Vec::with_capacity(usize::try_from(hint).unwrap_or(0));
    file.take(max.saturating_add(1)).read_to_end(&mut buf)?;
    Ok((buf.len() as u64 <= max).then_some(buf))
}

#[cfg(test)]
mod tests {
    use super::read_bounded;

    #[test]
    fn a_file_of_at_most_the_bound_is_read_whole_and_a_longer_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        for (len, max, whole) in
            [(0, 0, true), (5, 5, true), (6, 5, false), (70_000, 70_000, true), (70_001, 70_000, false)]
        {
            let bytes: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            std::fs::write(&file, &bytes).unwrap();
            let read = read_bounded(&file, max).unwrap();
            assert_eq!(read, whole.then_some(bytes), "{len} bytes against a bound of {max}");
        }
        assert!(read_bounded(&dir.path().join("missing"), 10).is_err());
    }
}
