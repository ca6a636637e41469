//! The report as GitHub Actions workflow commands: one `::error` annotation per tick that does not
//! hold, at the tick's line of its `tasks.md`, and the person's report fenced off with
//! `::stop-commands::` so that nothing the checked repository wrote (a task title, a trailer, a
//! value from a note) is ever read by the runner as a command.
//!
//! Escaping follows GitHub's runner: in a message `%`, CR and LF become `%25`, `%0D`, `%0A`; in a
//! property (`file`, `line`, `title`) also `:` and `,` become `%3A` and `%2C`. An annotation
//! quotes what a note, a commit or a file holds (a finding's message, a task): it is kept on its
//! line first ([`one_line`]), as every other output keeps it, so that no line break reaches
//! GitHub as `%0A`.

use std::fmt::Write as _;

use crate::model::shown::one_line;
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

/// The `::error` annotation of one tick that does not hold: its title and message each on one
/// line, whatever the text they quote holds.
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
    properties.push(format!("title={}", escape_property(&one_line(&title))));
    format!("::error {}::{}", properties.join(","), escape_data(&one_line(&message)))
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
    /// The fence was opened and is not closed: a failure must close it ([`Self::fail`]), or the
    /// runner ignores every later workflow command of the step.
    open: bool,
}

impl<W: std::fmt::Write, L: Fn(&str) -> Option<Location>> GithubWriter<W, L> {
    /// A writer to `out`, fenced with `token`, annotating where `locate` says.
    pub fn new(out: W, token: String, locate: L) -> Self {
        GithubWriter { out, token, locate, annotations: Vec::new(), open: false }
    }

    /// Whether the fence was opened and is not closed.
    #[must_use]
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// Ends an open fence with the failure that stopped the run: the fence closed, the
    /// annotations of the rows written so far, and one annotation for the failure itself.
    pub fn fail(&mut self, message: &str, exit_code: u8) {
        if self.close_fence() {
            let title = format!("speccoder: attest verify stopped (exit {exit_code})");
            let _ = writeln!(self.out, "::error title={}::{}", escape_property(&title), escape_data(message));
        }
    }

    /// Closes an open fence and writes the annotations kept so far; false when it was not open.
    fn close_fence(&mut self) -> bool {
        if !std::mem::take(&mut self.open) {
            return false;
        }
        let _ = writeln!(self.out, "::{}::", self.token);
        for line in std::mem::take(&mut self.annotations) {
            let _ = writeln!(self.out, "{line}");
        }
        true
    }
}

impl<W: std::fmt::Write, L: Fn(&str) -> Option<Location>> ReportSink for GithubWriter<W, L> {
    fn begin(&mut self, _: &ReportHead) {
        self.open = true;
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
        self.close_fence();
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
            "::error file=specs/001-x/tasks.md,line=7,title=speccoder%3A 001-x/T005 is unverifiable (ticked_without_evidence)::no commit, ticked: yes\\nreally"
        );
        assert!(annotation(&tick, None).starts_with("::error title=speccoder%3A 001-x/T005"));
    }

    #[test]
    fn a_message_or_a_task_that_would_break_its_line_stays_on_the_annotation_s_line() {
        let hostile = "x/\n::error::fake\r\u{2028}##[group]g 50%";
        let mut tick = TickReport::without_commit(format!("001-x/T005{hostile}"), "stale", hostile.into());
        tick.commit = Some("0123abcd".into());
        let line = annotation(&tick, None);
        assert_eq!(
            line,
            "::error title=speccoder%3A 001-x/T005x/\\n%3A%3Aerror%3A%3Afake\\r\\u{2028}##[group]g 50%25 is unverifiable (stale)::x/\\n::error::fake\\r\\u{2028}##[group]g 50%25 (task commit 0123abcd)"
        );
        assert_eq!(line.lines().count(), 1);
    }

    #[test]
    fn a_run_that_fails_after_its_rows_began_closes_the_fence_and_annotates_what_it_printed() {
        let mut writer = GithubWriter::new(String::new(), "tok".into(), |_: &str| None);
        writer.fail("never begun", 13);
        assert_eq!(writer.out, "", "nothing was fenced, so nothing is closed");
        let head = ReportHead::new("branch", &crate::verify::trust::Trust::default(), 2);
        writer.begin(&head);
        writer.row(TickReport::without_commit("001-x/T001".into(), "ticked_without_evidence", "no".into()));
        writer.fail("object 0211 is damaged:\nrun git fsck", 13);
        let lines: Vec<&str> = writer.out.lines().collect();
        assert_eq!(lines.first(), Some(&"::stop-commands::tok"), "{}", writer.out);
        let closed = lines.iter().position(|l| *l == "::tok::").unwrap_or_else(|| panic!("{}", writer.out));
        assert!(lines[closed + 1].starts_with("::error title=speccoder%3A 001-x/T001 is unverifiable"));
        assert_eq!(
            lines[closed + 2..],
            [
                "::error title=speccoder%3A attest verify stopped (exit 13)::object 0211 is damaged:%0Arun git fsck"
            ]
        );
        assert!(!writer.is_open());
    }
}
