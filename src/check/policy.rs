//! The policy rule: a task-verification's `policy_sha256` must be the judge configuration at the
//! task commit's parent, under one of the two recipes of [`crate::model::policy`]. The published
//! recipe hashes in the version of the tool that wrote the note; that version is taken only from
//! the note's one summary (`verifier.version.speccoder`), whose signature covers it, never from
//! anything unsigned or from this verifier's own version. A decision records no version: its
//! digest is tried with each release of the published tool ([`PUBLISHED_RELEASES`]), since the
//! version only salts the hash of the configuration.

use crate::check::line::{Body, ReadLine};
use crate::check::outcome::{CommitOutcome, Finding};
use gix::ObjectId;
use gix::objs::tree::EntryKind;

use crate::git::{GitError, Repo};
use crate::model::policy::{
    CONFIG_FILE, CONFIG_MAX_BYTES, JudgeConfig, PUBLISHED_RELEASES, PolicyError, Recipe, shown_version,
    too_large,
};

/// Why `speccoder.toml` at a commit cannot be used: the file is there and is no configuration
/// (evidence about the project), or the repository cannot read it (no evidence at all).
#[derive(Debug, thiserror::Error)]
pub enum ConfigFileError {
    /// The file is no configuration: not a regular file, not UTF-8, too large, not TOML.
    #[error(transparent)]
    Unusable(#[from] PolicyError),
    /// The tree or the file could not be read (an object missing or damaged names itself).
    #[error("speccoder.toml cannot be read: {0}")]
    Unread(#[from] GitError),
}

/// The text of `speccoder.toml` in tree `tree`, with its blob, as both wings read it; `None` when
/// there is none. Anything but a regular file there (a symbolic link, a directory, a submodule),
/// or a file that is not UTF-8, is refused: `attest` stops and `attest verify` reports the policy
/// unreadable, so that the two never judge by two different configurations.
///
/// # Errors
/// [`ConfigFileError::Unusable`] saying what is there, or [`ConfigFileError::Unread`] when the
/// tree or the file cannot be read.
pub fn config_file(repo: &Repo, tree: ObjectId) -> Result<Option<(ObjectId, String)>, ConfigFileError> {
    let view = repo.tree(tree);
    let (Some(kind), Some(blob)) = (view.entry_kind(CONFIG_FILE)?, view.entry_id(CONFIG_FILE)?) else {
        return Ok(None);
    };
    let what = match kind {
        EntryKind::Blob | EntryKind::BlobExecutable => None,
        EntryKind::Link => Some("a symbolic link"),
        EntryKind::Tree => Some("a directory"),
        EntryKind::Commit => Some("a submodule"),
    };
    if let Some(what) = what {
        return Err(PolicyError(format!(
            "it is {what} in the commit, not a regular file; commit the configuration itself at {CONFIG_FILE}"
        ))
        .into());
    }
    // The size from the object's header first: a larger file is never read.
    let bytes = repo.blob_within(blob, CONFIG_MAX_BYTES as u64)?.map_err(too_large)?;
    let text = String::from_utf8(bytes).map_err(|_| PolicyError("it is not valid UTF-8".to_owned()))?;
    Ok(Some((blob, text)))
}

/// The `verifier.version` key that names the tool which wrote a summary.
pub const VERSION_KEY: &str = "speccoder";

/// The speccoder version the note's one summary records, or why there is none to use.
///
/// A decision (`attested`, `skipped`) is one task-verification line with no summary, so it
/// records no version ([`policy_recipe`] tries each release for it).
///
/// # Errors
/// The reason, for a report: no summary, several summaries, or a summary without the version.
pub fn recorded_version(lines: &[ReadLine]) -> Result<&str, &'static str> {
    let mut summaries = lines.iter().filter_map(|l| match &l.body {
        Body::Summary(s) => Some(s),
        _ => None,
    });
    match (summaries.next(), summaries.next()) {
        (None, _) => Err(
            "the note has no summary (a decision is one task-verification line), so it records no speccoder version",
        ),
        (Some(_), Some(_)) => {
            Err("the note has more than one summary, so no one speccoder version is recorded")
        }
        (Some(s), None) => s
            .verifier
            .version
            .as_ref()
            .and_then(|v| v.get(VERSION_KEY))
            .map(String::as_str)
            .ok_or("the summary records no speccoder version (verifier.version.speccoder)"),
    }
}

/// The recipe under which `config` gives the signed digest `signed` of the note `lines`, as both
/// wings judge it: a tick's with the version its one summary records, a decision's with each
/// release ([`JudgeConfig::matching_any_release`]); `None` when neither recipe gives it.
#[must_use]
pub fn matching_recipe(config: &JudgeConfig, signed: &str, lines: &[ReadLine]) -> Option<Recipe> {
    if is_decision(lines) {
        config.matching_any_release(signed)
    } else {
        config.matching(signed, recorded_version(lines).ok())
    }
}

/// Whether the note `lines` is a decision: no summary, so no recorded version.
fn is_decision(lines: &[ReadLine]) -> bool {
    !lines.iter().any(|l| matches!(l.body, Body::Summary(_)))
}

/// The signed digest `signed` (on note line `line`) against `config`, the judge configuration at
/// the parent (or why it cannot be read): the recipe that gives it, or a `policy_mismatch` that
/// shows what each recipe gives (a `policy_unreadable` when the configuration cannot be read,
/// naming the object the repository lacks or holds damaged, when that is why).
pub fn policy_recipe(
    config: Result<&JudgeConfig, &ConfigFileError>,
    signed: &str,
    lines: &[ReadLine],
    line: usize,
    findings: &mut Vec<Finding>,
) -> Option<Recipe> {
    let config = match config {
        Ok(config) => config,
        Err(e) => {
            let message = format!("at the parent commit, {e}");
            let finding = Finding::new(CommitOutcome::Mismatch, "policy_unreadable", message).at_line(line);
            findings.push(match e {
                ConfigFileError::Unread(git) => finding.unread(git),
                ConfigFileError::Unusable(_) => finding,
            });
            return None;
        }
    };
    let found = matching_recipe(config, signed, lines);
    if found.is_some() {
        return found;
    }
    let version = recorded_version(lines);
    let decision = is_decision(lines);
    let ours = config.sha256();
    let published = match version {
        Ok(v) => format!(
            "the published recipe with speccoder {} (the version the summary records) gives {}",
            shown_version(v),
            config.published_sha256(v)
        ),
        Err(why) if decision => format!(
            "{why}, and the published recipe gives it with no release of speccoder from {} to {}",
            PUBLISHED_RELEASES[0],
            PUBLISHED_RELEASES[PUBLISHED_RELEASES.len() - 1]
        ),
        Err(why) => format!("the published recipe cannot be recomputed: {why}"),
    };
    findings.push(
        Finding::new(
            CommitOutcome::Mismatch,
            "policy_mismatch",
            format!(
                "the judge configuration at the parent commit is not the one the evidence was judged under: \
                 the version-free recipe gives {ours}; {published}"
            ),
        )
        .at_line(line)
        .expected_found(signed, ours),
    );
    None
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::check::line::read_line;
    use crate::model::canonical::value_to_canonical;
    use crate::model::dsse::Envelope;
    use crate::model::summary;

    /// Line `number`: an unsigned statement with `predicate` of `predicate_type`.
    fn line(number: usize, predicate_type: &str, predicate: Value) -> ReadLine {
        let statement = json!({
            "_type": "https://in-toto.io/Statement/v1",
            "subject": [{"name": "001-x/T001", "digest": {"gitCommit": "ab".repeat(20)}}],
            "predicateType": predicate_type,
            "predicate": predicate,
        });
        let raw = Envelope::unsigned(value_to_canonical(&statement)).to_line();
        read_line(number, &raw).unwrap_or_else(|f| panic!("{f:?}"))
    }

    fn summary_line(version: Option<Value>) -> ReadLine {
        let mut verifier = json!({"id": summary::VERIFIER_ID});
        if let Some(v) = version {
            verifier["version"] = v;
        }
        line(
            2,
            summary::TYPE,
            json!({
                "verifier": verifier,
                "timeVerified": "2026-12-01T00:00:00Z",
                "resourceUri": "git:x",
                "policy": {"uri": summary::POLICY_URI, "digest": {"sha256": "ef"}},
                "inputAttestations": [],
                "verificationResult": "PASSED",
                "verifiedLevels": [summary::LEVEL_VERIFIED],
            }),
        )
    }

    fn decision_line() -> ReadLine {
        line(
            1,
            crate::model::predicate::TYPE,
            json!({
                "verdict": "attested",
                "unit": {"format": "speckit", "feature": "001-x", "dir": "specs/001-x"},
                "task": {"id": "T001", "line_hash": "ab", "title": "t"},
                "tree": "t", "policy_sha256": "ef", "time": "2026-12-01T00:00:00Z",
                "decider": {"by": "Ada", "reason": "looked fine"},
            }),
        )
    }

    #[test]
    fn a_configuration_over_its_cap_is_refused_by_its_size() {
        let fx = crate::git::test_support::Fixture::new();
        let over = format!("# {}\n", "x".repeat(CONFIG_MAX_BYTES));
        let commit = fx.commit_file(CONFIG_FILE, &over, "a configuration too large to read");
        let repo = fx.repo();
        let Err(ConfigFileError::Unusable(err)) = config_file(&repo, repo.commit_tree(commit).unwrap())
        else {
            panic!("a configuration too large is unusable")
        };
        assert_eq!(err, too_large(over.len() as u64), "the one wording, with what to do");
        assert!(err.0.starts_with(&format!("it is {} bytes, more than the", over.len())), "{err}");
    }

    #[test]
    fn the_version_comes_from_the_one_summary() {
        let lines = [decision_line(), summary_line(Some(json!({"speccoder": "0.7.2", "other": "1"})))];
        assert_eq!(recorded_version(&lines), Ok("0.7.2"));
    }

    #[test]
    fn no_summary_several_summaries_or_no_version_record_no_version() {
        assert!(recorded_version(&[decision_line()]).unwrap_err().contains("no summary"));
        let two = [
            summary_line(Some(json!({"speccoder": "0.7.2"}))),
            summary_line(Some(json!({"speccoder": "0.9.0"}))),
        ];
        assert!(recorded_version(&two).unwrap_err().contains("more than one summary"));
        assert!(recorded_version(&[summary_line(None)]).unwrap_err().contains("verifier.version.speccoder"));
        let other_tool = [summary_line(Some(json!({"other": "1.0"})))];
        assert!(recorded_version(&other_tool).unwrap_err().contains("verifier.version.speccoder"));
    }

    #[test]
    fn a_digest_of_either_recipe_holds_and_is_named() {
        let config = JudgeConfig::parse(Some("[tests]\ncommand = \"make\"\n")).unwrap();
        let lines = [decision_line(), summary_line(Some(json!({"speccoder": "0.7.2"})))];
        let mut findings = Vec::new();
        let ours = policy_recipe(Ok(&config), &config.sha256(), &lines, 1, &mut findings);
        assert_eq!(ours, Some(Recipe::VersionFree));
        let published =
            policy_recipe(Ok(&config), &config.published_sha256("0.7.2"), &lines, 1, &mut findings);
        assert_eq!(published, Some(Recipe::Published { speccoder_version: "0.7.2".into() }));
        assert!(findings.is_empty(), "{findings:?}");
    }

    #[test]
    fn a_digest_of_neither_is_a_mismatch_showing_both_digests_and_the_version() {
        let config = JudgeConfig::parse(None).unwrap();
        let lines = [decision_line(), summary_line(Some(json!({"speccoder": "0.7.2"})))];
        let mut findings = Vec::new();
        let signed = config.published_sha256("0.9.0");
        assert_eq!(policy_recipe(Ok(&config), &signed, &lines, 1, &mut findings), None);
        let [f] = findings.as_slice() else { panic!("{findings:?}") };
        assert_eq!((f.code, f.outcome, f.line), ("policy_mismatch", CommitOutcome::Mismatch, Some(1)));
        assert!(f.message.contains(&config.sha256()), "{}", f.message);
        assert!(
            f.message.contains(&format!(
                "speccoder 0.7.2 (the version the summary records) gives {}",
                config.published_sha256("0.7.2")
            )),
            "{}",
            f.message
        );
        assert_eq!(
            (f.expected.as_deref(), f.found.as_deref()),
            (Some(signed.as_str()), Some(config.sha256().as_str()))
        );
    }

    #[test]
    fn a_decision_the_published_tool_made_holds_under_the_release_whose_digest_it_is() {
        let config = JudgeConfig::parse(Some("[checks.test]\nargv = [\"true\"]\n")).unwrap();
        for release in ["0.0.1", "0.7.2", "0.9.0"] {
            let mut findings = Vec::new();
            let signed = config.published_sha256(release);
            let found = policy_recipe(Ok(&config), &signed, &[decision_line()], 1, &mut findings);
            assert_eq!(found, Some(Recipe::Published { speccoder_version: release.to_owned() }));
            assert!(findings.is_empty(), "{findings:?}");
        }
        let mut findings = Vec::new();
        let ours = config.sha256();
        assert_eq!(
            policy_recipe(Ok(&config), &ours, &[decision_line()], 1, &mut findings),
            Some(Recipe::VersionFree)
        );
    }

    #[test]
    fn a_decision_under_another_configuration_or_no_release_is_a_mismatch_that_says_so() {
        let config = JudgeConfig::parse(None).unwrap();
        let other = JudgeConfig::parse(Some("[tests]\ntimeout = 1\n")).unwrap();
        for signed in [config.published_sha256("0.9.1-dev"), other.published_sha256("0.9.0")] {
            let mut findings = Vec::new();
            assert_eq!(policy_recipe(Ok(&config), &signed, &[decision_line()], 1, &mut findings), None);
            let [f] = findings.as_slice() else { panic!("{findings:?}") };
            assert_eq!(f.code, "policy_mismatch");
            assert!(f.message.contains("the note has no summary"), "{}", f.message);
            assert!(f.message.contains("no release of speccoder from 0.0.1 to 0.9.0"), "{}", f.message);
        }
    }

    #[test]
    fn a_configuration_that_is_not_toml_is_its_own_finding_and_names_no_object() {
        let mut findings = Vec::new();
        let not_toml = ConfigFileError::from(JudgeConfig::parse(Some("[checks\nargv = ")).unwrap_err());
        assert_eq!(policy_recipe(Err(&not_toml), "ef", &[], 1, &mut findings), None);
        let [f] = findings.as_slice() else { panic!("{findings:?}") };
        assert_eq!(
            (f.code, f.outcome, f.line, f.unread.as_deref()),
            ("policy_unreadable", CommitOutcome::Mismatch, Some(1), None)
        );
    }

    #[test]
    fn a_configuration_the_repository_lacks_or_holds_corrupt_names_the_object_so_the_run_is_no_verdict() {
        use crate::check::outcome::Unread;
        let id = ObjectId::from_hex(&[b'a'; 40]).unwrap();
        let corrupt = GitError::CorruptObject { id, kind: "blob", reason: "garbage".into() };
        for (e, unread) in [
            (GitError::ObjectMissing { id, tree_filter: None }, Unread::Missing(id)),
            (corrupt, Unread::Corrupt(id)),
        ] {
            let mut findings = Vec::new();
            assert_eq!(policy_recipe(Err(&ConfigFileError::Unread(e)), "ef", &[], 1, &mut findings), None);
            let [f] = findings.as_slice() else { panic!("{findings:?}") };
            assert_eq!((f.code, f.unread.as_deref()), ("policy_unreadable", Some(&unread)));
            assert!(
                f.message.contains(&format!("speccoder.toml cannot be read: object {id}")),
                "{}",
                f.message
            );
        }
    }
}
