//! The task commit's message: a subject and body from `templates/commit-message.txt`, then the
//! trailers as the last paragraph. Every value is sanitised so nothing from the evidence or the
//! spec can add a line or a trailer.

use crate::git::trailers::{TrailerError, sanitize_value, with_trailers};

/// The commit message template, compiled in so the binary needs no data files.
pub const TEMPLATE: &str = include_str!("../../templates/commit-message.txt");

/// The message template of a skip's commit (which closes nothing).
pub const SKIP_TEMPLATE: &str = include_str!("../../templates/skip-message.txt");

/// Trailer keys, in the order they are written.
pub use crate::model::trailer_keys as keys;

/// The fields the template and the trailers are filled from.
#[derive(Debug, Clone, Default)]
pub struct MessageFields {
    /// The unit.
    pub unit: String,
    /// The task id.
    pub task: String,
    /// The task's title.
    pub title: String,
    /// The verdict's wire spelling.
    pub verdict: String,
    /// Trailers after `Spec-Task` and `Verdict`, in order.
    pub trailers: Vec<(&'static str, String)>,
}

/// The full commit message, ending with one newline.
///
/// # Errors
/// When git would not read the trailers back exactly as written.
pub fn render(fields: &MessageFields) -> Result<String, TrailerError> {
    render_with(TEMPLATE, fields)
}

/// The full commit message from `template` (placeholders `{unit}`, `{task}`, `{title}`,
/// `{verdict}`), ending with one newline.
///
/// # Errors
/// When git would not read the trailers back exactly as written.
pub fn render_with(template: &str, fields: &MessageFields) -> Result<String, TrailerError> {
    let one = |s: &str| sanitize_value(s);
    let body = fill(
        template,
        &[
            ("{unit}", one(&fields.unit)),
            ("{task}", one(&fields.task)),
            ("{title}", one(&fields.title)),
            ("{verdict}", one(&fields.verdict)),
        ],
    );
    let mut trailers: Vec<(String, String)> = vec![
        (keys::SPEC_TASK.to_owned(), one(&format!("{}/{}", fields.unit, fields.task))),
        (keys::VERDICT.to_owned(), one(&fields.verdict)),
    ];
    trailers.extend(fields.trailers.iter().map(|(k, v)| ((*k).to_owned(), one(v))));
    with_trailers(&body, &trailers)
}

/// `template` with each of its placeholders replaced by its value, in one pass: a value is never
/// read again, so a `{title}` in a unit name or a title is written as it is.
fn fill(template: &str, values: &[(&str, String)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(at) = rest.find('{') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        match values.iter().find(|(placeholder, _)| rest.starts_with(placeholder)) {
            Some((placeholder, value)) => {
                out.push_str(value);
                rest = &rest[placeholder.len()..];
            }
            None => {
                out.push('{');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(unit: &str, task: &str, title: &str) -> MessageFields {
        MessageFields {
            unit: unit.to_owned(),
            task: task.to_owned(),
            title: title.to_owned(),
            verdict: "regression_only".to_owned(),
            trailers: Vec::new(),
        }
    }

    #[test]
    fn placeholders_in_a_unit_name_or_a_title_are_written_as_they_are_and_never_filled() {
        let msg = render(&fields("x{title}", "T001", "Print {verdict} and {task} {unit} {nope")).unwrap();
        let subject = msg.lines().next().unwrap();
        assert_eq!(subject, "x{title}/T001: Print {verdict} and {task} {unit} {nope");
        assert!(msg.contains("Closes task T001 of x{title} (regression_only)."), "{msg}");
        assert!(msg.contains("Spec-Task: x{title}/T001\n"), "{msg}");
    }

    #[test]
    fn a_template_fills_each_of_its_own_placeholders_and_keeps_other_braces() {
        let template = "{task}{{title}} {other} {unit}{\n";
        let msg = render_with(template, &fields("u{task}", "T1", "t{unit}")).unwrap();
        assert!(msg.starts_with("T1{t{unit}} {other} u{task}{\n"), "{msg}");
    }
}
