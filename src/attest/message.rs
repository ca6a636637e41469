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
    let body = template
        .replace("{unit}", &one(&fields.unit))
        .replace("{task}", &one(&fields.task))
        .replace("{title}", &one(&fields.title))
        .replace("{verdict}", &one(&fields.verdict));
    let mut trailers: Vec<(String, String)> = vec![
        (keys::SPEC_TASK.to_owned(), one(&format!("{}/{}", fields.unit, fields.task))),
        (keys::VERDICT.to_owned(), one(&fields.verdict)),
    ];
    trailers.extend(fields.trailers.iter().map(|(k, v)| ((*k).to_owned(), one(v))));
    with_trailers(&body, &trailers)
}
