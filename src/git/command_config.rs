//! git's configuration of the command scope, which git reads over every configuration file and
//! counts as protected (as the user's own, never the repository's): what `GIT_CONFIG_COUNT`
//! counts in `GIT_CONFIG_KEY_<n>` and `GIT_CONFIG_VALUE_<n>` (as a CI sets it), then what
//! `git -c key=value` hands on to the programs it runs (an alias's, a hook's) in
//! `GIT_CONFIG_PARAMETERS`. gix reads the first itself when it opens a repository and is given
//! the second here as its command-line overrides, after the first, as git orders them.

use gix::bstr::{BStr, BString, ByteSlice};

use super::error::GitError;
use super::limits::SETTINGS_FILE_LIMIT;
use crate::model::shown::{one_line, with_causes};

/// The variable `git -c` hands its configuration on in.
const PARAMETERS: &str = "GIT_CONFIG_PARAMETERS";

/// The configuration of the command scope, read from the environment.
pub(super) struct CommandScope {
    /// `GIT_CONFIG_COUNT`'s entries, as gix reads them; `None` when it is unset or zero.
    counted: Option<gix::config::File>,
    /// `GIT_CONFIG_PARAMETERS`'s entries, in order.
    given: Vec<Entry>,
}

/// One entry of `GIT_CONFIG_PARAMETERS`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    /// The key as given (`section.name`, `section.subsection.name`).
    key: BString,
    /// The value; `None` for a key given alone, which a boolean reads as `true`.
    value: Option<BString>,
}

impl CommandScope {
    /// The command scope of this process's environment.
    ///
    /// # Errors
    /// [`GitError::CommandConfig`] naming the variable git cannot read either (a count that is no
    /// number, a key or value it counts that is unset, `GIT_CONFIG_PARAMETERS` not as git writes
    /// it, an invalid key), or a key speccoder cannot hand on to gix.
    pub(super) fn from_env() -> Result<CommandScope, GitError> {
        let counted = gix::config::File::from_env(Default::default()).map_err(|e| {
            GitError::CommandConfig { variable: "GIT_CONFIG_COUNT", problem: with_causes(&e) }
        })?;
        let given = match std::env::var_os(PARAMETERS) {
            Some(text) => parse_parameters(text.as_encoded_bytes())
                .map_err(|problem| GitError::CommandConfig { variable: PARAMETERS, problem })?,
            None => Vec::new(),
        };
        Ok(CommandScope { counted, given })
    }

    /// The values of `safe.directory`, `GIT_CONFIG_COUNT`'s before `GIT_CONFIG_PARAMETERS`'s, an
    /// entry without a value as empty (which drops the entries before it, as in git).
    pub(super) fn safe_directories(&self) -> Vec<BString> {
        const KEY: &str = "safe.directory";
        let counted = self.counted.as_ref().and_then(|file| file.strings(KEY)).unwrap_or_default();
        let given = self.given.iter().filter(|e| e.key.eq_ignore_ascii_case(KEY.as_bytes()));
        counted.into_iter().chain(given.map(|e| e.value.clone().unwrap_or_default())).collect()
    }

    /// `GIT_CONFIG_PARAMETERS`'s entries as gix takes its command-line overrides (`key=value`,
    /// or `key` alone), in order. gix splits each at its first `=` (a key holding one is refused
    /// when read) and trims the value's surrounding white space, which git keeps.
    pub(super) fn overrides(&self) -> Vec<BString> {
        let form = |e: &Entry| match &e.value {
            Some(value) => [&e.key[..], value].join(&b'=').into(),
            None => e.key.clone(),
        };
        self.given.iter().map(form).collect()
    }
}

/// `GIT_CONFIG_PARAMETERS` read as git reads it (`git_config_from_parameters`): entries of
/// single-quoted words separated by white space, each `'key'='value'`, `'key'` alone (a boolean's
/// `true`), `'key'=` (the same), or the older `'key=value'`.
///
/// Written here because gix reads no `GIT_CONFIG_PARAMETERS`. Whatever git refuses ("bogus format
/// in GIT_CONFIG_PARAMETERS", an invalid key) is refused, never guessed at; the text is bounded
/// by [`SETTINGS_FILE_LIMIT`] and read once, left to right.
fn parse_parameters(text: &[u8]) -> Result<Vec<Entry>, String> {
    if text.len() as u64 > SETTINGS_FILE_LIMIT {
        return Err(format!(
            "it holds {} bytes, more than the {SETTINGS_FILE_LIMIT} speccoder reads",
            text.len()
        ));
    }
    let mut entries = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let (word, after) = dequote(rest).ok_or_else(bogus)?;
        let (entry, after) = match after {
            [b'=', value @ ..] => {
                let (value, after) = value_after_equals(value)?;
                (Entry { key: word.into(), value }, after)
            }
            [] => (older_entry(&word)?, after),
            [c, ..] if is_space(*c) => (older_entry(&word)?, after),
            _ => return Err(bogus()),
        };
        check_key(entry.key.as_bstr())?;
        entries.push(entry);
        rest = after.trim_start_with(|c| c.is_ascii() && is_space(c as u8));
    }
    Ok(entries)
}

/// git's refusal of text it does not read as entries.
fn bogus() -> String {
    "it is not a list of `'key'='value'` entries as git writes it (git: \"bogus format in GIT_CONFIG_PARAMETERS\")"
        .to_owned()
}

/// White space as git's `isspace` takes it.
fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

/// The single-quoted word at the start of `text` and the text after it, as git's
/// `sq_dequote_step` reads it: quoted parts joined by `\'` or `\!` between them; `None` when
/// `text` does not start with a quote or a quote is left open.
fn dequote(text: &[u8]) -> Option<(Vec<u8>, &[u8])> {
    let mut rest = text.strip_prefix(b"'")?;
    let mut word = Vec::new();
    loop {
        let end = rest.find_byte(b'\'')?;
        word.extend_from_slice(&rest[..end]);
        rest = &rest[end + 1..];
        match rest {
            [b'\\', c @ (b'\'' | b'!'), b'\'', after @ ..] => {
                word.push(*c);
                rest = after;
            }
            _ => return Some((word, rest)),
        }
    }
}

/// The value after `'key'=`: a quoted word ended by white space or the end, or nothing (`None`,
/// a boolean's `true`), and the text after it.
fn value_after_equals(text: &[u8]) -> Result<(Option<BString>, &[u8]), String> {
    match text {
        [b'\'', ..] => match dequote(text) {
            Some((value, after)) if after.first().is_none_or(|c| is_space(*c)) => {
                Ok((Some(value.into()), after))
            }
            _ => Err(bogus()),
        },
        [] => Ok((None, text)),
        [c, ..] if is_space(*c) => Ok((None, text)),
        _ => Err(bogus()),
    }
}

/// An entry of the older form, one quoted `key=value` (or `key` alone), as git's
/// `git_config_parse_parameter` reads it: split at the first `=`, white space trimmed off the
/// key only.
fn older_entry(word: &[u8]) -> Result<Entry, String> {
    let (key, value) = match word.find_byte(b'=') {
        Some(at) => (&word[..at], Some(BString::from(&word[at + 1..]))),
        None => (word, None),
    };
    let key = key.trim_with(|c| c.is_ascii() && is_space(c as u8));
    if key.is_empty() {
        return Err(format!(
            "the entry `{}` has no key (git: \"bogus config parameter\")",
            shown(word.as_bstr())
        ));
    }
    Ok(Entry { key: key.into(), value })
}

/// Whether `key` is one git takes (`git_config_parse_key`): a section of ASCII letters, digits
/// and `-`; a subsection of anything but a line end; a name of the same characters as a section,
/// beginning with a letter. A subsection holding `=` is refused too: gix's overrides would split
/// the key there.
fn check_key(key: &BStr) -> Result<(), String> {
    let invalid = |why: &str| Err(format!("the key `{}` {why} (git: \"invalid key\")", shown(key)));
    let Some(last) = key.rfind_byte(b'.').filter(|&dot| dot > 0) else {
        return invalid("has no section");
    };
    let (section, name) = (&key[..key.find_byte(b'.').unwrap_or(last)], &key[last + 1..]);
    let subsection = &key[section.len()..last];
    let keychar = |c: &u8| c.is_ascii_alphanumeric() || *c == b'-';
    if !name.first().is_some_and(u8::is_ascii_alphabetic) {
        return invalid("has no name beginning with a letter after its last dot");
    }
    if !section.iter().all(keychar) || !name.iter().all(keychar) || subsection.contains(&b'\n') {
        return invalid("holds a character git does not allow there");
    }
    if subsection.contains(&b'=') {
        return Err(format!(
            "the key `{}` holds `=` in its subsection, which speccoder cannot hand on to its git library: set it in a configuration file (`git config`) instead",
            shown(key)
        ));
    }
    Ok(())
}

/// `text` on one line, as a message quotes it.
fn shown(text: &BStr) -> String {
    one_line(&text.to_str_lossy()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::{Entry, parse_parameters};
    use gix::bstr::BString;

    fn entry(key: &str, value: Option<&str>) -> Entry {
        Entry { key: key.into(), value: value.map(BString::from) }
    }

    /// What git lists of `GIT_CONFIG_PARAMETERS` set to `text` (`git config --null --list`,
    /// nothing else configured), or `None` when git refuses it.
    fn as_git_lists(text: &str) -> Option<Vec<(String, Option<String>)>> {
        let home = tempfile::tempdir().unwrap();
        let out = std::process::Command::new("git")
            .args(["config", "--null", "--list"])
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", home.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_PARAMETERS", text)
            .current_dir(home.path())
            .output()
            .unwrap();
        let listed = String::from_utf8(out.stdout).unwrap();
        out.status.success().then(|| {
            let split = |e: &str| match e.split_once('\n') {
                Some((k, v)) => (k.to_owned(), Some(v.to_owned())),
                None => (e.to_owned(), None),
            };
            listed.split_terminator('\0').map(split).collect()
        })
    }

    #[test]
    fn parameters_are_read_as_git_writes_and_reads_them_and_refused_where_git_refuses_them() {
        // As `git -c user.name=X -c "user.signingkey=a'b c" -c core.bare` hands them on.
        let written = r"'user.name'='X' 'user.signingkey'='a'\''b c' 'core.bare'";
        let read = [("user.name", Some("X")), ("user.signingkey", Some("a'b c")), ("core.bare", None)];
        assert_eq!(parse_parameters(written.as_bytes()).unwrap(), read.map(|(k, v)| entry(k, v)));
        let texts = [
            written,
            "'user.name=Ada Lovelace'\t'core.bare'=\n'a.b'='' 'x.y'='1'\\!'2'",
            "' user.name =x=y'  'url.https://e.com/.insteadof'='git:'",
            "",
            // Refused by git.
            "bogus",
            " 'a.b'='x'",
            "'a.b'='x",
            "'a.b'='x''c.d'='y'",
            "'a.b'=x",
            "'a.b'x",
            "'user'='x'",
            "'a.1b'='x'",
            "'a_b.c'='x'",
            "''='x'",
            "'=x'",
            "'a.b.'='x'",
            "'.b'='x'",
        ];
        for text in texts {
            let ours = parse_parameters(text.as_bytes()).ok().map(|entries| {
                let plain = |b: &BString| String::from_utf8(b.to_vec()).unwrap();
                entries.iter().map(|e| (plain(&e.key).to_lowercase(), e.value.as_ref().map(plain))).collect()
            });
            assert_eq!(ours, as_git_lists(text), "{text:?}");
        }
    }

    #[test]
    fn a_key_whose_subsection_holds_an_equals_sign_or_an_endless_text_is_refused_saying_why() {
        let err = parse_parameters(b"'url.a=b.insteadof'='x'").unwrap_err();
        assert!(err.contains("holds `=` in its subsection") && err.contains("git config"), "{err}");
        let long = format!("'a.b'='{}'", "x".repeat(2 << 20));
        let err = parse_parameters(long.as_bytes()).unwrap_err();
        assert!(err.contains("more than the 1048576 speccoder reads"), "{err}");
        let err = parse_parameters(b"'a.b'='x").unwrap_err();
        assert!(err.contains("bogus format in GIT_CONFIG_PARAMETERS"), "{err}");
    }
}
