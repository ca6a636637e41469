//! The report's renderings, written as the rows come ([`ReportSink`]): for a person (text), a
//! machine (`--json`) and a pull request (`--markdown`). Each writes the same bytes whether the
//! rows stream from a run or are replayed from a collected [`Report`].

use crate::check::signatures::SignerInfo;
use crate::model::shown::{OneLine, one_line};
use std::fmt::Write as _;

use crate::verify::report::{
    Report, ReportEnd, ReportHead, ReportSink, TickReport, code_span, markdown_code,
};

/// The text report: one line per tick, indented findings, then the warnings, the signature time,
/// the verifier policy and the summary line. `out` takes whole lines, a row's at a time.
pub struct TextWriter<W> {
    /// Where the text goes.
    pub out: W,
}

impl<W: std::fmt::Write> ReportSink for TextWriter<W> {
    fn begin(&mut self, _: &ReportHead) {}

    fn row(&mut self, t: TickReport) {
        let _ = self.out.write_str(&tick_text(&t));
    }

    fn end(&mut self, head: &ReportHead, end: &ReportEnd) {
        let _ = self.out.write_str(&text_end(head, end));
    }
}

/// The text after the rows: the warnings, the signature time, the verifier policy, the summary.
pub(crate) fn text_end(head: &ReportHead, end: &ReportEnd) -> String {
    let mut out = String::new();
    for w in &end.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    let _ = writeln!(out, "{}", head.signature_time.line());
    if let Some(p) = &head.verifier_policy {
        let _ = writeln!(out, "verifier policy: {} sha256:{}", one_line(&p.source), p.sha256);
    }
    let _ = writeln!(out, "{}", end.summary_line(head));
    out
}

/// A signer as a row's text names it: its principals and key, or its key alone.
fn signer_text(s: &SignerInfo) -> String {
    let key = one_line(&s.key);
    if s.principals.is_empty() {
        format!("{} key {key}", s.kind)
    } else {
        let principals: Vec<_> = s.principals.iter().map(|p| one_line(p)).collect();
        format!("{} ({} {key})", principals.join(", "), s.kind)
    }
}

/// The text of one row: its line, then its findings, signers, recipe, rule and notes indented.
pub(crate) fn tick_text(t: &TickReport) -> String {
    let mut out = String::new();
    let commit = t.commit.as_deref().map_or("-".to_owned(), |c| c.chars().take(12).collect());
    let reason = t.reason.as_deref().map(|r| format!(" ({r})")).unwrap_or_default();
    let _ = writeln!(out, "{:<12} {} {commit}{reason}", t.outcome.as_str(), t.task);
    for (f, lines) in t.said_once() {
        let _ = writeln!(out, "    {}", f.said_at(&lines));
    }
    for s in &t.signers {
        let _ = writeln!(out, "    signed by {}", signer_text(s));
    }
    // With approvals, which signer made the tick is said apart: the order above is no one's word.
    if let Some(maker) = t.maker.as_ref().filter(|_| t.signers.len() > 1) {
        let _ = writeln!(out, "    made by {}", signer_text(maker));
    }
    // Carried evidence is signed by whoever re-issued it: where it came from is said beside them.
    if let Some(c) = &t.carried {
        let _ = writeln!(out, "    carried from {} ({})", one_line(&c.from), one_line(&c.time));
    }
    if let Some(recipe) = &t.policy {
        let _ = writeln!(out, "    policy: {recipe}");
    }
    if let Some(rule) = &t.rule {
        let _ = writeln!(out, "    rule: {rule}");
    }
    if t.accepted_unsigned {
        let _ = writeln!(out, "    unsigned lines accepted (--accept-unsigned)");
    }
    if !t.not_evaluated.is_empty() {
        let _ = writeln!(out, "    not evaluated: {}", t.not_evaluated.join(", "));
    }
    out
}

/// The `--json` report: one JSON object, the fields of [`Report`] in their order and then
/// `exit_code`, with the `ticks` array written a row at a time, and a line break at the end.
pub struct JsonWriter<W> {
    /// Where the JSON goes.
    pub out: W,
    /// Rows written so far.
    rows: usize,
    /// The object was opened (by [`ReportSink::begin`]) and not closed yet.
    open: bool,
    /// The exit code to write instead of the report's own ([`ReportEnd::exit_code`]).
    exit_code: Option<u8>,
    /// Why the run fails though its report is whole (an output file that could not be written),
    /// written as `error` before `exit_code`.
    error: Option<String>,
}

impl<W: std::fmt::Write> JsonWriter<W> {
    /// A writer of JSON to `out`.
    pub fn new(out: W) -> Self {
        JsonWriter { out, rows: 0, open: false, exit_code: None, error: None }
    }

    /// The exit code the object ends with, when it is not the report's own (`--allow-empty`, an
    /// output file that could not be written).
    pub fn set_exit_code(&mut self, code: u8) {
        self.exit_code = Some(code);
    }

    /// The failure the whole report ends with (`error`, before `exit_code`), as the failure
    /// shape `{"error", "exit_code"}` carries it: an output file that could not be written.
    pub fn set_error(&mut self, message: String) {
        self.error = Some(message);
    }

    /// Whether the object was begun and is not closed: a failure must close it
    /// ([`Self::fail`]) for stdout to stay one JSON object.
    #[must_use]
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// Ends an open object with the failure that stopped the run: `"error"` and `"exit_code"`
    /// after the rows written so far, as `{"error", "exit_code"}` carries them.
    pub fn fail(&mut self, message: &str, exit_code: u8) {
        if std::mem::take(&mut self.open) {
            let _ = writeln!(self.out, "],\"error\":{},\"exit_code\":{exit_code}}}", json(message));
        }
    }
}

/// `value` as compact JSON, as serde_json writes it inside the whole report.
fn json<T: serde::Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

impl<W: std::fmt::Write> ReportSink for JsonWriter<W> {
    fn begin(&mut self, head: &ReportHead) {
        self.open = true;
        let _ = write!(
            self.out,
            "{{\"mode\":{},\"head\":{},\"base\":{},\"trust\":{},\"accept_unsigned\":{},\"ticks\":[",
            json(head.mode),
            json(&head.head),
            json(&head.base),
            json(&OneLine(&head.trust)),
            json(&head.accept_unsigned),
        );
    }

    fn row(&mut self, tick: TickReport) {
        let comma = if self.rows == 0 { "" } else { "," };
        self.rows += 1;
        let _ = write!(self.out, "{comma}{}", json(&tick));
    }

    fn end(&mut self, head: &ReportHead, end: &ReportEnd) {
        let mut out = format!(
            "],\"totals\":{},\"not_evaluated\":{},\"warnings\":{},\"signature_time\":{}",
            json(&end.totals),
            json(&crate::verify::report::NOT_EVALUATED),
            json(&OneLine(&end.warnings)),
            json(&head.signature_time),
        );
        if let Some(policy) = &head.verifier_policy {
            let _ = write!(out, ",\"verifier_policy\":{}", json(policy));
        }
        if let Some(error) = &self.error {
            let _ = write!(out, ",\"error\":{}", json(error));
        }
        let _ = writeln!(out, ",\"exit_code\":{}}}", self.exit_code.unwrap_or_else(|| end.exit_code()));
        self.open = false;
        let _ = self.out.write_str(&out);
    }
}

/// The Markdown report (a pull request comment): a heading, the summary, the warnings, then a
/// table row per tick. The summary comes first and needs every row, so the rows are written to
/// `rows` (a temporary file, for a run) as they come, and [`heading`] gives what goes
/// before them once the run has ended.
pub struct MarkdownWriter<W> {
    /// Where the table rows go.
    rows: W,
    /// The first failure to write them.
    failed: Option<std::io::Error>,
    /// The report's head, once begun.
    head: Option<ReportHead>,
    /// The report's end, once ended.
    end: Option<ReportEnd>,
}

impl<W: std::io::Write> MarkdownWriter<W> {
    /// A writer of rows to `rows`.
    pub fn new(rows: W) -> Self {
        MarkdownWriter { rows, failed: None, head: None, end: None }
    }

    /// Everything before the rows (the heading, summary, signature time, policy, warnings and
    /// table header), once the report has ended; the rows; and the first failure to write them.
    pub fn finish(self) -> (Option<String>, W, Option<std::io::Error>) {
        let heading = self.head.as_ref().zip(self.end.as_ref()).map(|(head, end)| heading(head, end));
        (heading, self.rows, self.failed)
    }
}

impl<W: std::io::Write> ReportSink for MarkdownWriter<W> {
    fn begin(&mut self, head: &ReportHead) {
        self.head = Some(head.clone());
    }

    fn row(&mut self, t: TickReport) {
        let with_rule = self.head.as_ref().is_some_and(|h| h.verifier_policy.is_some());
        if self.failed.is_none()
            && let Err(e) = self.rows.write_all(markdown_row(&t, with_rule).as_bytes())
        {
            self.failed = Some(e);
        }
    }

    fn end(&mut self, _: &ReportHead, end: &ReportEnd) {
        self.end = Some(end.clone());
    }
}

/// The Markdown before the table's rows.
fn heading(head: &ReportHead, end: &ReportEnd) -> String {
    let mut out = String::from("### speccoder attest verify\n\n");
    let _ = writeln!(out, "{}\n", end.summary_line(head));
    let _ = writeln!(out, "{}\n", head.signature_time.line());
    if let Some(p) = &head.verifier_policy {
        let _ = writeln!(out, "verifier policy: {} sha256 `{}`\n", markdown_code(&p.source), p.sha256);
    }
    for w in &end.warnings {
        // A warning may name tasks of the repository: one code span, as in the table.
        let _ = writeln!(out, "> **warning:** {}\n", code_span(w));
    }
    out.push_str(if head.verifier_policy.is_some() {
        "| outcome | task | commit | reason | policy | rule |\n| --- | --- | --- | --- | --- | --- |\n"
    } else {
        "| outcome | task | commit | reason | policy |\n| --- | --- | --- | --- | --- |\n"
    });
    out
}

/// One table row of the Markdown report.
fn markdown_row(t: &TickReport, with_rule: bool) -> String {
    let mut commit = t.commit.as_deref().map_or("-".to_owned(), |c| format!("`{}`", &c[..c.len().min(12)]));
    if let Some(c) = &t.carried {
        let from: String = c.from.chars().take(12).collect();
        let _ = write!(commit, " carried from {}", markdown_code(&format!("{from} ({})", c.time)));
    }
    let reason = match &t.reason {
        Some(r) => format!("{r}: {}", t.headline()),
        None => t.headline(),
    };
    let policy = t.policy.as_ref().map_or("-".to_owned(), |p| markdown_code(&p.to_string()));
    let rule = match (&t.rule, with_rule) {
        (_, false) => String::new(),
        (Some(rule), true) => format!(" {} |", markdown_code(rule)),
        (None, true) => " - |".to_owned(),
    };
    format!(
        "| {} | {} | {commit} | {} | {policy} |{rule}\n",
        t.outcome.as_str(),
        markdown_code(&t.task),
        markdown_code(&reason),
    )
}

impl Report {
    /// The report for a person: one line per tick, indented findings, a summary line.
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut text = TextWriter { out: String::new() };
        self.replay(&mut text);
        text.out
    }

    /// The report as a pull request comment.
    #[must_use]
    pub fn to_markdown(&self) -> String {
        let mut writer = MarkdownWriter::new(Vec::new());
        self.replay(&mut writer);
        let (heading, rows, _) = writer.finish();
        heading.unwrap_or_default() + &String::from_utf8_lossy(&rows)
    }

    /// The report as `--json` prints it, `exit_code` last.
    #[must_use]
    pub fn to_json(&self, exit_code: u8) -> String {
        let mut json = JsonWriter::new(String::new());
        json.set_exit_code(exit_code);
        self.replay(&mut json);
        json.out
    }
}

/// Writes what a sink is given to two sinks: the first, then the second.
pub struct Both<A, B>(pub A, pub B);

impl<A: ReportSink, B: ReportSink> ReportSink for Both<A, B> {
    fn begin(&mut self, head: &ReportHead) {
        self.0.begin(head);
        self.1.begin(head);
    }
    fn row(&mut self, tick: TickReport) {
        self.0.row(tick.clone());
        self.1.row(tick);
    }
    fn end(&mut self, head: &ReportHead, end: &ReportEnd) {
        self.0.end(head, end);
        self.1.end(head, end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::report::PolicyReport;
    use crate::verify::report::TickOutcome;
    use crate::verify::trust::Trust;

    /// A report with what every rendering shows: a head and base, rows that hold and fail (one
    /// with a rule), warnings and a verifier policy.
    fn full_report() -> Report {
        let mut failing =
            TickReport::without_commit("unit|a/T001".into(), "ticked_again", "set again by `x` | <b>".into());
        failing.rule = Some("strict".into());
        let mut holding = TickReport::without_commit("unit-b/T002".into(), "ticked_again", "m".into());
        holding.outcome = TickOutcome::Evidenced;
        holding.reason = None;
        holding.findings.clear();
        holding.commit = Some("0123456789abcdef0123456789abcdef01234567".into());
        let mut report = Report::new("branch", vec![failing, holding], &Trust::default());
        report.head = Some("0123456789abcdef0123456789abcdef01234567".into());
        report.base = Some("89abcdef0123456789abcdef0123456789abcdef".into());
        report.warnings.push("a warning naming `unit|a`".into());
        report.verifier_policy =
            Some(PolicyReport { sha256: "ab".repeat(32), source: "policy.toml".into(), local_file: true });
        report
    }

    #[test]
    fn the_streamed_json_is_the_collected_report_as_serde_writes_it() {
        /// The report's fields, then `exit_code`: the object `--json` printed when the report was
        /// collected whole.
        #[derive(serde::Serialize)]
        struct WithExitCode<'a> {
            #[serde(flatten)]
            report: &'a Report,
            exit_code: u8,
        }
        for report in [Report::new("commits", Vec::new(), &Trust::default()), full_report()] {
            for exit_code in [0, 13, 26] {
                let whole = serde_json::to_string(&WithExitCode { report: &report, exit_code }).unwrap();
                assert_eq!(report.to_json(exit_code), whole + "\n");
            }
        }
    }

    #[test]
    fn a_json_report_cut_short_is_still_one_object_with_the_error() {
        let report = full_report();
        let mut json = JsonWriter::new(String::new());
        json.begin(&report.report_head());
        json.row(report.ticks[0].clone());
        assert!(json.is_open());
        json.fail("the notes ref moved", 13);
        assert!(!json.is_open());
        let value: serde_json::Value = serde_json::from_str(&json.out).unwrap();
        assert_eq!(value["error"], "the notes ref moved");
        assert_eq!(value["exit_code"], 13);
        assert_eq!(value["ticks"].as_array().map(Vec::len), Some(1));
    }

    #[test]
    fn a_whole_json_report_that_fails_after_its_rows_names_the_failure_in_error() {
        let report = full_report();
        let mut json = JsonWriter::new(String::new());
        json.begin(&report.report_head());
        report.ticks.iter().for_each(|tick| json.row(tick.clone()));
        json.set_exit_code(13);
        json.set_error("cannot write r.md".into());
        json.end(&report.report_head(), &report.report_end());
        let value: serde_json::Value = serde_json::from_str(&json.out).unwrap();
        assert_eq!(
            (value["error"].as_str(), value["exit_code"].as_u64()),
            (Some("cannot write r.md"), Some(13))
        );
        assert_eq!(value["totals"]["checked"], 2, "the whole report: {value:#}");
    }

    #[test]
    fn rows_written_one_at_a_time_make_the_text_and_markdown_of_the_whole_report() {
        let report = full_report();
        let (head, end) = (report.report_head(), report.report_end());
        let mut text = TextWriter { out: String::new() };
        let mut markdown = MarkdownWriter::new(Vec::new());
        text.begin(&head);
        markdown.begin(&head);
        for tick in &report.ticks {
            text.row(tick.clone());
            markdown.row(tick.clone());
        }
        text.end(&head, &end);
        markdown.end(&head, &end);
        let (heading, rows, failed) = markdown.finish();
        assert!(failed.is_none());
        let markdown = heading.unwrap() + &String::from_utf8(rows).unwrap();
        assert_eq!(text.out, report.to_text());
        assert_eq!(markdown, report.to_markdown());
        // The summary heads the Markdown though it needs every row; the text ends with it.
        assert!(markdown.starts_with("### speccoder attest verify\n\n2 checked: 1 evidenced"), "{markdown}");
        assert!(text.out.ends_with("regressed: not evaluated\n"), "{}", text.out);
        assert!(markdown.contains("| unverifiable | ` unit\\|a/T001 ` |"), "{markdown}");
    }

    #[test]
    fn where_evidence_was_carried_from_is_said_in_every_rendering_each_kept_on_its_line() {
        let mut report = full_report();
        report.ticks[1].carried = Some(crate::model::predicate::Carried {
            from: "abc\n1 checked: 1 evidenced|`x`".into(),
            patch_id: "p\u{2028}q".into(),
            time: "2026-01-02T03:04:05Z".into(),
        });
        let text = report.to_text();
        assert!(
            text.contains("\n    carried from abc\\n1 checked: 1 evidenced|`x` (2026-01-02T03:04:05Z)\n"),
            "{text}"
        );
        assert!(!text.lines().any(|l| l.starts_with("1 checked")), "{text}");
        let markdown = report.to_markdown();
        assert!(
            markdown.contains("| `0123456789ab` carried from ` abc 1 checke (2026-01-02T03:04:05Z) ` |"),
            "{markdown}"
        );
        let json: serde_json::Value = serde_json::from_str(&report.to_json(0)).unwrap();
        let carried = &json["ticks"][1]["carried"];
        assert_eq!(carried["from"], "abc\\n1 checked: 1 evidenced|`x`", "{json:#}");
        assert_eq!(
            (&carried["patch_id"], &carried["time"]),
            (&"p\\u{2028}q".into(), &"2026-01-02T03:04:05Z".into())
        );
        assert_eq!(json["ticks"][0]["carried"], serde_json::Value::Null, "{json:#}");
    }

    #[test]
    fn a_policy_path_with_a_line_break_stays_on_its_own_line_of_the_text() {
        let mut report = full_report();
        let forged = "p\n1 checked: 1 evidenced, 0 stale, 0 unverifiable, 0 skipped; regressed: none";
        report.verifier_policy =
            Some(PolicyReport { sha256: "ab".repeat(32), source: forged.into(), local_file: true });
        let text = report.to_text();
        assert!(text.contains("verifier policy: p\\n1 checked"), "{text}");
        assert!(!text.lines().any(|l| l.starts_with("1 checked")), "{text}");
    }
}
