//! A string read another way (as a terminal shows it, or decoded), and where each of its bytes
//! came from in the raw string, so that a leak found in it is reported where it is written.

/// A string read another way, and where each of its runs of bytes starts in the raw string.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct View {
    /// The text as read.
    pub(super) text: String,
    /// `(offset in text, offset in the raw string)` at the start of each run of bytes copied from
    /// the raw string and of each decoded character, in order.
    runs: Vec<(usize, usize)>,
}

impl View {
    /// An empty view of a raw string of `len` bytes.
    pub(super) fn of_len(len: usize) -> View {
        View { text: String::with_capacity(len), runs: Vec::new() }
    }

    /// The offset in the raw string of the byte at `at` in [`View::text`] (`at` may be its end).
    pub(super) fn raw_offset(&self, at: usize) -> usize {
        let run = self.runs.partition_point(|(kept, _)| *kept <= at).saturating_sub(1);
        self.runs.get(run).map_or(at, |(kept, raw)| raw + (at - kept))
    }

    /// Keeps `raw[from..to]`, a run of the raw string.
    pub(super) fn keep(&mut self, raw: &str, from: usize, to: usize) {
        if from < to {
            self.runs.push((self.text.len(), from));
            self.text.push_str(&raw[from..to]);
        }
    }

    /// Puts the character `c`, decoded from the raw string's bytes from `from` on.
    pub(super) fn put(&mut self, c: char, from: usize) {
        self.runs.push((self.text.len(), from));
        self.text.push(c);
    }

    /// Marks the end of the text as the raw string's byte `at`, so that a leak that ends with a
    /// decoded character ends after the bytes it was decoded from.
    pub(super) fn end_at(&mut self, at: usize) {
        self.runs.push((self.text.len(), at));
    }
}
