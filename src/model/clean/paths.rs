//! Absolute local paths: home, temp and per-user directories, file and ssh URLs into them, Windows drive and network paths.

use super::LeakKind;
use super::rule::{Anchor, Rule};

/// An absolute path into a home, temp or per-user directory, up to the separator after it.
const LOCAL_DIRS: &str = r#"/(?:home|Users|root|tmp|private|var/folders|var/tmp|run/user|Volumes|mnt/[a-z]/Users)(?:/|$|[\s:'"),;\]])"#;

/// The rules of this family, in the order the check tries them.
pub(super) fn rules() -> Vec<Rule> {
    use LeakKind::*;
    let home = "an absolute local path (home, temp or per-user directory)";
    vec![
        // Local paths. Before the path: anything that cannot continue a relative path, so
        // `src/home/x` and `./tmp/x` stay clean while ` /home/x`, `"/tmp/x` and `run-/home/x` do not.
        Rule::new(
            LocalPath,
            home,
            format!("(?:^|[^A-Za-z0-9.~/])(?P<leak>{LOCAL_DIRS})"),
            &[
                "/home",
                "/Users",
                "/root",
                "/tmp",
                "/private",
                "/var/folders",
                "/var/tmp",
                "/run/user",
                "/Volumes",
                "/mnt/",
            ],
        ),
        // `file:///home/…` (its path follows a `/`, so the rule above misses it); a file URL into
        // a CI work directory (`file:///builds/…`, as Gradle prints its report) is no leak.
        Rule::new(
            LocalPath,
            "a file URL of a local path",
            format!("(?i-u:file:)//(?i-u:localhost)?(?P<leak>{LOCAL_DIRS})"),
            &["file://"],
        )
        .folded(),
        // An ssh URL's path is a path on that machine.
        Rule::new(
            LocalPath,
            "an ssh URL into a home or temp directory",
            format!("(?i-u:ssh|sftp|scp)://[^\\s/]*(?P<leak>{LOCAL_DIRS})"),
            &["ssh://", "sftp://", "scp://"],
        )
        .folded(),
        Rule::new(
            WindowsPath,
            "an absolute Windows path",
            r"(?:^|[^A-Za-z0-9])(?P<leak>[A-Za-z]:[\\/][^\s\\/]*)",
            &[":\\", ":/"],
        )
        .anchored(Anchor::AfterDriveLetter),
        Rule::new(
            WindowsPath,
            "a Windows network path",
            r"(?:^|[^A-Za-z0-9\\])(?P<leak>\\\\[A-Za-z0-9._$-]+\\)",
            &["\\\\"],
        ),
    ]
}
