//! The references speccoder writes besides the notes: skips (`refs/speccoder/skipped/<unit>/<task>`)
//! and published held-out sets (`refs/speccoder/held-out/<unit>`), and the escaping that makes any
//! unit name or task id one valid reference-name component.
//!
//! Escaping: every byte of the UTF-8 text that is not an ASCII letter, digit, `-` or `_` becomes
//! `%` and two uppercase hex digits. `T005` and `001-bookmark-tags` stay as they are, `1.2` becomes
//! `1%2E2`, `bug:crash` becomes `bug%3Acrash`. The result never holds `.`, `/`, `:` or anything
//! else git refuses in a reference name, and exactly one text escapes to a given component. A skip
//! reference the published speccoder wrote names its task unescaped (`1.2`); the reader takes that
//! spelling too, for a task id only ([`skipped_task`]).

use super::shown::one_line;

/// The prefix of every skip reference.
pub const SKIPPED_PREFIX: &str = "refs/speccoder/skipped/";

/// The prefix of every published held-out reference.
pub const HELD_OUT_PREFIX: &str = "refs/speccoder/held-out/";

/// Whether `b` passes unescaped.
fn plain(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

/// `text` as one reference-name component (see the module documentation).
#[must_use]
pub fn escape_component(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if plain(b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The text a component escapes, when it is exactly what [`escape_component`] writes for it
/// (uppercase hex, nothing escaped that need not be, valid UTF-8); `None` otherwise.
#[must_use]
pub fn unescape_component(component: &str) -> Option<String> {
    let bytes = component.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' {
            let hex = component.get(i + 1..i + 3)?;
            if hex.bytes().any(|c| c.is_ascii_lowercase()) {
                return None;
            }
            let value = u8::from_str_radix(hex, 16).ok()?;
            if plain(value) {
                return None;
            }
            out.push(value);
            i += 3;
        } else if plain(b) {
            out.push(b);
            i += 1;
        } else {
            return None;
        }
    }
    String::from_utf8(out).ok()
}

/// The task a skip reference's task `component` names: the text it escapes
/// ([`unescape_component`]), or the component itself as the published speccoder writes a task id,
/// unescaped, when `is_task_id` takes it as a task id of the unit's format (an OpenSpec `1.2`,
/// which this crate spells `1%2E2`); `None` for anything else.
#[must_use]
pub fn skipped_task(component: &str, is_task_id: impl FnOnce(&str) -> bool) -> Option<String> {
    unescape_component(component).or_else(|| is_task_id(component).then(|| component.to_owned()))
}

/// The longest component [`escape_component`] may yield for a reference speccoder writes: a loose
/// reference is a file, written first as `<name>.lock`, so its name holds at most the file
/// system's 255 bytes (`NAME_MAX`) less the 5 of `.lock`. git and gix both refuse a longer one.
pub const MAX_COMPONENT_BYTES: usize = 250;

/// A unit name or task id whose escaped component is too long for a reference.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the {what} {} escapes to a reference-name component of {escaped} bytes (every byte other than an ASCII letter, digit, `-` or `_` takes three, `%XX`), more than the {MAX_COMPONENT_BYTES} bytes a reference file's name may hold (the file system's 255, less git's `.lock`), so its reference `{prefix}...` cannot be written; give the {what} a shorter name (for a unit, rename its directory) and run again",
    super::shown::one_line(.text)
)]
pub struct ComponentTooLong {
    /// What the text names: `unit` or `task`.
    pub what: &'static str,
    /// The text, unescaped.
    pub text: String,
    /// Its escaped length in bytes.
    pub escaped: usize,
    /// The prefix of the reference it would be part of.
    pub prefix: &'static str,
}

/// `text` escaped ([`escape_component`]) as a component of a reference under `prefix`, refused
/// when longer than [`MAX_COMPONENT_BYTES`]; `what` says what it names (`unit`, `task`). Every
/// writer of a skip or held-out reference goes through it.
///
/// # Errors
/// [`ComponentTooLong`].
pub fn checked_component(
    what: &'static str,
    text: &str,
    prefix: &'static str,
) -> Result<String, ComponentTooLong> {
    let escaped = escape_component(text);
    if escaped.len() > MAX_COMPONENT_BYTES {
        return Err(ComponentTooLong { what, text: text.to_owned(), escaped: escaped.len(), prefix });
    }
    Ok(escaped)
}

/// [`skipped_ref`], refused when a part escapes to more than [`MAX_COMPONENT_BYTES`].
///
/// # Errors
/// [`ComponentTooLong`].
pub fn checked_skipped_ref(unit: &str, task: &str) -> Result<String, ComponentTooLong> {
    let unit = checked_component("unit", unit, SKIPPED_PREFIX)?;
    let task = checked_component("task", task, SKIPPED_PREFIX)?;
    Ok(format!("{SKIPPED_PREFIX}{unit}/{task}"))
}

/// [`held_out_ref`], refused when the unit escapes to more than [`MAX_COMPONENT_BYTES`].
///
/// # Errors
/// [`ComponentTooLong`].
pub fn checked_held_out_ref(unit: &str) -> Result<String, ComponentTooLong> {
    Ok(format!("{HELD_OUT_PREFIX}{}", checked_component("unit", unit, HELD_OUT_PREFIX)?))
}

/// `refs/speccoder/skipped/<unit>/<task>`, both parts escaped.
#[must_use]
pub fn skipped_ref(unit: &str, task: &str) -> String {
    format!("{SKIPPED_PREFIX}{}/{}", escape_component(unit), escape_component(task))
}

/// The skip reference the published speccoder writes for `task` of `unit` where it spells it
/// otherwise than [`skipped_ref`]: the task id as it is (`1.2`, which this crate escapes to
/// `1%2E2`), read back as that task by [`skipped_task`]; `None` when both spell it alike, or
/// `is_task_id` takes no such id.
#[must_use]
pub fn published_skipped_ref(
    unit: &str,
    task: &str,
    is_task_id: impl FnOnce(&str) -> bool,
) -> Option<String> {
    (escape_component(task) != task && skipped_task(task, is_task_id).as_deref() == Some(task))
        .then(|| format!("{}{task}", skipped_unit_prefix(unit)))
}

/// `refs/speccoder/skipped/<unit>/`: the prefix of the skips of one unit.
#[must_use]
pub fn skipped_unit_prefix(unit: &str) -> String {
    format!("{SKIPPED_PREFIX}{}/", escape_component(unit))
}

/// `refs/speccoder/held-out/<unit>`, the unit escaped.
#[must_use]
pub fn held_out_ref(unit: &str) -> String {
    format!("{HELD_OUT_PREFIX}{}", escape_component(unit))
}

/// What a reference under `refs/speccoder/` stands for, in the words of its user: `the skip of
/// <unit>/<task>` or `the published held-out set of <unit>`, each part unescaped
/// ([`unescape_component`]; a task the published speccoder wrote as it is, [`skipped_task`]) and
/// kept on one line ([`one_line`]: an escaped `%0A` is a newline); `None` for any other reference,
/// or one whose parts do not read back.
#[must_use]
pub fn stands_for(reference: &str) -> Option<String> {
    if let Some(rest) = reference.strip_prefix(SKIPPED_PREFIX) {
        let (unit, task) = rest.split_once('/')?;
        let task = skipped_task(task, |task| !task.contains(['%', '/']))?;
        let target = format!("{}/{task}", unescape_component(unit)?);
        return Some(format!("the skip of {}", one_line(&target)));
    }
    let unit = unescape_component(reference.strip_prefix(HELD_OUT_PREFIX)?)?;
    Some(format!("the published held-out set of {}", one_line(&unit)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_speccoder_reference_stands_for_its_task_or_unit_as_written_and_on_one_line() {
        let skip = skipped_ref("ロ\u{30b0}イン", "2.10");
        assert_eq!(skip, "refs/speccoder/skipped/%E3%83%AD%E3%82%B0%E3%82%A4%E3%83%B3/2%2E10");
        assert_eq!(stands_for(&skip).as_deref(), Some("the skip of ログイン/2.10"));
        let published = "refs/speccoder/skipped/add-x/1.2";
        assert_eq!(stands_for(published).as_deref(), Some("the skip of add-x/1.2"));
        let broken = skipped_ref("a\nb", "T1");
        assert_eq!(stands_for(&broken).as_deref(), Some("the skip of a\\nb/T1"));
        assert_eq!(
            stands_for(&held_out_ref("add.x")).as_deref(),
            Some("the published held-out set of add.x")
        );
        for other in ["refs/speccoder/skipped/%e3/T1", "refs/speccoder/skipped/u", "refs/heads/main"] {
            assert_eq!(stands_for(other), None, "{other}");
        }
    }

    #[test]
    fn ordinary_names_stay_as_they_are_and_the_rest_is_percent_escaped() {
        assert_eq!(escape_component("001-bookmark-tags"), "001-bookmark-tags");
        assert_eq!(escape_component("T005"), "T005");
        assert_eq!(escape_component("1.2"), "1%2E2");
        assert_eq!(escape_component("bug:x.lock"), "bug%3Ax%2Elock");
        assert_eq!(escape_component("é"), "%C3%A9");
        assert_eq!(skipped_ref("add-tag-filter", "1.2"), "refs/speccoder/skipped/add-tag-filter/1%2E2");
        assert_eq!(held_out_ref("001-x"), "refs/speccoder/held-out/001-x");
    }

    #[test]
    fn every_escaped_name_reads_back_and_only_the_canonical_spelling_does() {
        for text in ["T001", "1.10.2", "bug:a..b", "a/b", "x y~^:?*[\\", "..", ".lock", "é€"] {
            let escaped = escape_component(text);
            assert!(escaped.bytes().all(|b| plain(b) || b == b'%' || b.is_ascii_hexdigit()), "{escaped}");
            assert_eq!(unescape_component(&escaped).as_deref(), Some(text));
        }
        for odd in ["%41", "%2e", "%2", "%ZZ", "a.b", "a/b", "%FF"] {
            assert_eq!(unescape_component(odd), None, "{odd}");
        }
    }

    #[test]
    fn a_skip_ref_reads_the_escaped_task_and_the_published_unescaped_task_id_and_nothing_else() {
        let dotted_id =
            |id: &str| id.split('.').all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        assert_eq!(skipped_task("1%2E2", dotted_id).as_deref(), Some("1.2"));
        assert_eq!(skipped_task("1.2", dotted_id).as_deref(), Some("1.2"));
        assert_eq!(skipped_task("1.10.2", dotted_id).as_deref(), Some("1.10.2"));
        assert_eq!(skipped_task("T005", dotted_id).as_deref(), Some("T005"));
        for odd in ["a.b", "1.2.", "%2e", "1%2e2", "1.2%2E3", "1 2"] {
            assert_eq!(skipped_task(odd, dotted_id), None, "{odd}");
        }
        assert_eq!(skipped_task("1.2", |_| false), None);
    }

    #[test]
    fn the_published_spelling_of_a_skip_is_named_only_where_it_differs_from_ours() {
        let dotted = |id: &str| id.split('.').all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        assert_eq!(
            published_skipped_ref("add-tags", "1.2", dotted).as_deref(),
            Some("refs/speccoder/skipped/add-tags/1.2")
        );
        assert_eq!(published_skipped_ref("001-x", "T005", |_| true), None);
        assert_eq!(published_skipped_ref("add-tags", "a.b", dotted), None);
    }

    #[test]
    fn escaped_names_are_valid_reference_names() {
        for text in ["1.2", "bug:x", "..", "a.lock", "@{u}", "~^:?*[", " "] {
            let name = skipped_ref("001-x", text);
            assert!(gix::refs::FullName::try_from(name.as_str()).is_ok(), "{name}");
        }
    }

    #[test]
    fn a_name_that_escapes_past_what_a_reference_file_holds_is_refused_by_name_and_limit() {
        let long = format!("001-{}", "é".repeat(100));
        assert!(long.len() < 255, "a valid unit name");
        let err = checked_held_out_ref(&long).unwrap_err();
        assert_eq!(err.escaped, 604);
        assert!(
            err.to_string().contains("more than the 250 bytes a reference file's name may hold"),
            "{err}"
        );
        assert_eq!(
            checked_skipped_ref(&long, "T005").unwrap_err(),
            ComponentTooLong { prefix: SKIPPED_PREFIX, ..err }
        );
        let fits = "a".repeat(250);
        assert_eq!(checked_held_out_ref(&fits).unwrap(), held_out_ref(&fits));
        assert!(checked_held_out_ref(&"a".repeat(251)).is_err());
        assert_eq!(checked_skipped_ref("001-x", "T005").unwrap(), skipped_ref("001-x", "T005"));
    }
}
