//! The system's reason for a failure, as an output error says it.

/// The system's reason for `e`, without any path a library put into it (`tempfile` names its
/// temporary file, which the user never named).
pub(super) fn of(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(code) => std::io::Error::from_raw_os_error(code).to_string(),
        None => e.kind().to_string(),
    }
}
