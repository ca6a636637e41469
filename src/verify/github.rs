//! The report as GitHub Actions workflow commands: one `::error` annotation per tick that does not
//! hold, at the tick's line of its `tasks.md`, and the person's report fenced off with
//! `::stop-commands::` so that nothing the checked repository wrote (a task title, a trailer, a
//! value from a note) is ever read by the runner as a command.
//!
//! Escaping follows GitHub's runner: in a message `%`, CR and LF become `%25`, `%0D`, `%0A`; in a
//! property (`file`, `line`, `title`) also `:` and `,` become `%3A` and `%2C`.

use std::fmt::Write as _;

use crate::verify::report::{Report, TickReport};

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
    let mut out = format!("::stop-commands::{token}\n");
    out.push_str(&report.to_text());
    let _ = writeln!(out, "::{token}::");
    for tick in report.ticks.iter().filter(|t| t.fails()) {
        let _ = writeln!(out, "{}", annotation(tick, locate(&tick.task).as_ref()));
    }
    out
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
