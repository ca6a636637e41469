//! How a command's result reaches the user: its report on stdout (text, or JSON with `--json`),
//! its failure on stderr, and its exit code.

/// Prints a command's result (`--json`: one JSON object; otherwise its Display) and returns its
/// exit code; a failure goes to stderr as `speccoder <command>: <message>` (and to stdout as
/// `{"error", "exit_code"}` with `--json`).
pub(crate) fn finish<R, E>(
    command: &str,
    json: bool,
    result: Result<R, E>,
    code: impl Fn(&R) -> u8,
    error_code: impl Fn(&E) -> u8,
) -> u8
where
    R: serde::Serialize + std::fmt::Display,
    E: std::fmt::Display,
{
    match result {
        Ok(report) => {
            if json {
                println!("{}", serde_json::to_string(&report).unwrap_or_default());
            } else {
                // Rendered whole, then printed: printed piece by piece, line-buffered stdout
                // makes one write per line, and a reader on a pipe wakes up for each.
                let text = report.to_string();
                print!("{text}");
            }
            code(&report)
        }
        Err(e) => {
            let exit_code = error_code(&e);
            if json {
                println!("{}", serde_json::json!({ "error": e.to_string(), "exit_code": exit_code }));
            }
            eprintln!("speccoder {command}: {e}");
            exit_code
        }
    }
}
