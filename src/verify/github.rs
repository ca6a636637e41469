//! The report as GitHub Actions workflow commands: one `::error` annotation per tick that does not
//! hold, at the tick's line of its `tasks.md`, and the person's report fenced off with
//! `::stop-commands::` so that nothing the checked repository wrote (a task title, a trailer, a
//! value from a note) is ever read by the runner as a command.
//!
//! Escaping follows GitHub's runner: in a message `%`, CR and LF become `%25`, `%0D`, `%0A`; in a
//! property (`file`, `line`, `title`) also `:` and `,` become `%3A` and `%2C`.

use std::fmt::Write as _;

use crate::verify::render;
use crate::verify::report::{Report, ReportEnd, ReportHead, ReportSink, TickReport};

/// Where a tick is: the file and 1-based line GitHub annotates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// Project-relative path (`specs/001-x/tasks.md`).
    pub file: String,
    /// 1-based line.
    pub line: usize,
}

/// A workflow command's message, escaped.
#[must_use]
pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// A workflow command's property value, escaped.
#[must_use]
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// The `::error` annotation of one tick that does not hold.
#[must_use]
pub fn annotation(tick: &TickReport, at: Option<&Location>) -> String {
    let reason = tick.reason.as_deref().map(|r| format!(" ({r})")).unwrap_or_default();
    let title = format!("speccoder: {} is {}{reason}", tick.task, tick.outcome.as_str());
    let mut message = tick.findings.first().map(|f| f.message.clone()).unwrap_or_default();
    if let Some(commit) = &tick.commit {
        let _ = write!(message, " (task commit {commit})");
    }
    let mut properties = Vec::new();
    if let Some(at) = at {
        properties.push(format!("file={}", escape_property(&at.file)));
        properties.push(format!("line={}", at.line));
    }
    properties.push(format!("title={}", escape_property(&title)));
    format!("::error {}::{}", properties.join(","), escape_data(&message))
}

/// The whole output for a workflow step: the person's report between `::stop-commands::<token>`
/// and `::<token>::`, then one annotation per tick that does not hold (located by `locate`, given
/// `<unit>/<task>`). `token` must be unpredictable to whoever wrote the repository's content.
#[must_use]
pub fn render(report: &Report, token: &str, locate: impl Fn(&str) -> Option<Location>) -> String {
    let mut writer = GithubWriter::new(String::new(), token.to_owned(), locate);
    report.replay(&mut writer);
    writer.out
}

/// [`render`](fn@render) as the rows come: the text report is written as it streams, inside the
/// fence, and the annotations of the rows that do not hold (one line each, made as the row goes
/// by) after it, at the end.
pub struct GithubWriter<W, L> {
    /// Where the output goes.
    pub out: W,
    /// The fence's token.
    token: String,
    /// Where a tick is.
    locate: L,
    /// The annotations of the rows so far that do not hold.
    annotations: Vec<String>,
}

impl<W: std::fmt::Write, L: Fn(&str) -> Option<Location>> GithubWriter<W, L> {
    /// A writer to `out`, fenced with `token`, annotating where `locate` says.
    pub fn new(out: W, token: String, locate: L) -> Self {
        GithubWriter { out, token, locate, annotations: Vec::new() }
    }
}

impl<W: std::fmt::Write, L: Fn(&str) -> Option<Location>> ReportSink for GithubWriter<W, L> {
    fn begin(&mut self, _: &ReportHead) {
        let _ = writeln!(self.out, "::stop-commands::{}", self.token);
    }

    fn row(&mut self, tick: TickReport) {
        if tick.fails() {
            self.annotations.push(annotation(&tick, (self.locate)(&tick.task).as_ref()));
        }
        let _ = self.out.write_str(&render::tick_text(&tick));
    }

    fn end(&mut self, head: &ReportHead, end: &ReportEnd) {
        let _ = self.out.write_str(&render::text_end(head, end));
        let _ = writeln!(self.out, "::{}::", self.token);
        for line in std::mem::take(&mut self.annotations) {
            let _ = writeln!(self.out, "{line}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_and_properties_are_escaped_as_github_reads_them() {
        assert_eq!(escape_data("50% done\r\n::error::x"), "50%25 done%0D%0A::error::x");
        assert_eq!(escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    }

    #[test]
    fn a_tick_without_evidence_is_annotated_at_its_line() {
        let tick = TickReport::without_commit(
            "001-x/T005".into(),
            "ticked_without_evidence",
            "no commit, ticked: yes\nreally".into(),
        );
        let at = Location { file: "specs/001-x/tasks.md".into(), line: 7 };
        assert_eq!(
            annotation(&tick, Some(&at)),
            "::error file=specs/001-x/tasks.md,line=7,title=speccoder%3A 001-x/T005 is unverifiable (ticked_without_evidence)::no commit, ticked: yes%0Areally"
        );
        assert!(annotation(&tick, None).starts_with("::error title=speccoder%3A 001-x/T005"));
    }
}
