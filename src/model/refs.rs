//! The references speccoder writes besides the notes: skips (`refs/speccoder/skipped/<unit>/<task>`)
//! and published held-out sets (`refs/speccoder/held-out/<unit>`), and the escaping that makes any
//! unit name or task id one valid reference-name component.
//!
//! Escaping: every byte of the UTF-8 text that is not an ASCII letter, digit, `-` or `_` becomes
//! `%` and two uppercase hex digits. `T005` and `001-bookmark-tags` stay as they are, `1.2` becomes
//! `1%2E2`, `bug:crash` becomes `bug%3Acrash`. The result never holds `.`, `/`, `:` or anything
//! else git refuses in a reference name, and exactly one text escapes to a given component.
//!
//! The published speccoder (0.9.0) spells a skip reference otherwise: the unit as it is, the task
//! with only `%` and `:` escaped (`%25`, `%3A`), so its skip of `add.v2/1.2` is
//! `refs/speccoder/skipped/add.v2/1.2` where ours is `.../add%2Ev2/1%2E2`
//! ([`published_skipped_ref`]). Both spellings are read back ([`skip_of`]); a name both give, to two
//! tasks (the unit `a%2Eb`, spelt as it is, is `a.b` escaped), is the skip of the task its record's
//! `Spec-Task:` names ([`SkipOf::Shared`]).

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

/// `task` as the published speccoder spells it in a skip reference: `%` as `%25`, `:` as `%3A`
/// (git refuses a `:`), every other character as it is.
#[must_use]
pub fn published_task_component(task: &str) -> String {
    let mut out = String::with_capacity(task.len());
    for c in task.chars() {
        match c {
            '%' => out.push_str("%25"),
            ':' => out.push_str("%3A"),
            c => out.push(c),
        }
    }
    out
}

/// The task a component names as [`published_task_component`] writes it: `%25` and `%3A` read
/// back; `None` when the component holds a `:`, or a `%` that starts neither.
#[must_use]
pub fn published_task_of(component: &str) -> Option<String> {
    let mut out = String::with_capacity(component.len());
    let mut rest = component;
    while let Some(at) = rest.find(['%', ':']) {
        out.push_str(rest.get(..at)?);
        let tail = rest.get(at..)?;
        let (c, after) = match (tail.strip_prefix("%25"), tail.strip_prefix("%3A")) {
            (Some(after), _) => ('%', after),
            (_, Some(after)) => (':', after),
            _ => return None,
        };
        out.push(c);
        rest = after;
    }
    out.push_str(rest);
    Some(out)
}

/// A skip's `<unit>/<task>`.
fn target(unit: &str, task: &str) -> String {
    format!("{unit}/{task}")
}

/// The `<unit>/<task>` whose skip [`skipped_ref`] names `name`, if it names one.
fn our_reading(name: &str) -> Option<(String, String)> {
    let (unit, task) = name.strip_prefix(SKIPPED_PREFIX)?.split_once('/')?;
    Some((unescape_component(unit)?, unescape_component(task)?))
}

/// The `<unit>/<task>` whose skip the published speccoder names `name`, if it names one: the unit
/// as it is, the task read by [`published_task_of`].
fn published_reading(name: &str) -> Option<(String, String)> {
    let (unit, task) = name.strip_prefix(SKIPPED_PREFIX)?.split_once('/')?;
    Some((unit.to_owned(), published_task_of(task)?))
}

/// The `(unit, task)` the skip reference `name` may be the skip of: by our spelling
/// ([`skipped_ref`]), then by the published speccoder's ([`published_skipped_ref`]) where that
/// reads otherwise; none for a name neither reads.
#[must_use]
pub fn skip_readings(name: &str) -> Vec<(String, String)> {
    let ours = our_reading(name);
    let published = published_reading(name).filter(|reading| ours.as_ref() != Some(reading));
    ours.into_iter().chain(published).collect()
}

/// What the name of a reference under [`SKIPPED_PREFIX`] says of the skips of one unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipOf {
    /// The skip of this task of the unit, by our spelling or the published speccoder's.
    Task(String),
    /// The skip of `task` of the unit by one spelling, and of `other` (`<unit>/<task>`, another
    /// unit's task) by the other: a unit spelt as it is that is another's name escaped (`a%2Eb`,
    /// which is `a.b` escaped, and a task the two spell alike, `T005`). The name alone cannot tell
    /// which skip it is; the `Spec-Task:` of the commit it points at says.
    Shared {
        /// The unit's task.
        task: String,
        /// The other task it may be the skip of, `<unit>/<task>`.
        other: String,
    },
    /// Under the unit's own prefix ([`skipped_unit_prefix`]) but the skip of none of its tasks: no
    /// skip ref.
    NoTask,
    /// Not the unit's: under another prefix.
    Other,
}

/// What the skip reference `name` says of the skips of `unit`: the task it names by our spelling
/// ([`skipped_ref`]), or by the published speccoder's ([`published_skipped_ref`]) when
/// `is_task_id` takes the task as one of the unit's format; either [`SkipOf::Shared`] with another
/// task when the other spelling names that one.
#[must_use]
pub fn skip_of(name: &str, unit: &str, is_task_id: impl FnOnce(&str) -> bool) -> SkipOf {
    let ours = our_reading(name);
    let published = published_reading(name);
    let of_unit = |reading: &Option<(String, String)>| reading.as_ref().is_some_and(|(u, _)| u == unit);
    let (mine, theirs) = if of_unit(&ours) {
        (ours, published)
    } else if of_unit(&published) && published.as_ref().is_some_and(|(_, task)| is_task_id(task)) {
        (published, ours)
    } else if name.starts_with(&skipped_unit_prefix(unit)) {
        return SkipOf::NoTask;
    } else {
        return SkipOf::Other;
    };
    let (_, task) = mine.unwrap_or_default();
    match theirs {
        Some((u, t)) if u != unit => SkipOf::Shared { task, other: target(&u, &t) },
        _ => SkipOf::Task(task),
    }
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
/// otherwise than [`skipped_ref`]: `refs/speccoder/skipped/<unit>/<task>`, the unit as it is and
/// the task by [`published_task_component`] (`add.v2/1.2`, which this crate escapes to
/// `add%2Ev2/1%2E2`). `None` when both spell it alike, or when that is no reference name git takes
/// (a unit holding a `:` or a space, or ending in `.lock`): git refused it to the published
/// speccoder, whose skip then failed, so no skip has that name.
#[must_use]
pub fn published_skipped_ref(unit: &str, task: &str) -> Option<String> {
    let name = format!("{}{}", published_unit_prefix(unit)?, published_task_component(task));
    (name != skipped_ref(unit, task) && is_ref_name(&name)).then_some(name)
}

/// Whether git takes `name` as a reference name (`git check-ref-format`), by gix's check of the
/// same rules.
fn is_ref_name(name: &str) -> bool {
    gix::validate::reference::name(name.into()).is_ok()
}

/// `refs/speccoder/skipped/<unit>/`: the prefix of the skips of one unit.
#[must_use]
pub fn skipped_unit_prefix(unit: &str) -> String {
    format!("{SKIPPED_PREFIX}{}/", escape_component(unit))
}

/// `refs/speccoder/skipped/<unit>/`, the unit as it is: the prefix of the published speccoder's
/// skips of one unit; `None` when no reference name has it (git refused it to that tool).
#[must_use]
pub fn published_unit_prefix(unit: &str) -> Option<String> {
    let prefix = format!("{SKIPPED_PREFIX}{unit}/");
    (!unit.contains('/') && is_ref_name(&format!("{prefix}x"))).then_some(prefix)
}

/// The prefixes under which the skips of `unit` are found: ours ([`skipped_unit_prefix`]), then
/// the published speccoder's ([`published_unit_prefix`]) where it differs.
#[must_use]
pub fn skip_prefixes(unit: &str) -> Vec<String> {
    let ours = skipped_unit_prefix(unit);
    let published = published_unit_prefix(unit).filter(|p| *p != ours);
    std::iter::once(ours).chain(published).collect()
}

/// `refs/speccoder/held-out/<unit>`, the unit escaped.
#[must_use]
pub fn held_out_ref(unit: &str) -> String {
    format!("{HELD_OUT_PREFIX}{}", escape_component(unit))
}

/// What a reference under `refs/speccoder/` stands for, in the words of its user: `the skip of
/// <unit>/<task>` or `the published held-out set of <unit>`, each part unescaped: a skip by our
/// spelling ([`skipped_ref`]), else by the published speccoder's ([`published_skipped_ref`]); kept
/// on one line ([`one_line`]: an escaped `%0A` is a newline); `None` for any other reference, or
/// one whose parts do not read back.
#[must_use]
pub fn stands_for(reference: &str) -> Option<String> {
    if reference.starts_with(SKIPPED_PREFIX) {
        let (unit, task) = our_reading(reference).or_else(|| published_reading(reference))?;
        return Some(format!("the skip of {}", one_line(&target(&unit, &task))));
    }
    let unit = unescape_component(reference.strip_prefix(HELD_OUT_PREFIX)?)?;
    Some(format!("the published held-out set of {}", one_line(&unit)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skip_ref_is_read_as_ours_then_as_the_published_speccoder_s_where_that_reads_otherwise() {
        let read = |name: &str| skip_readings(&format!("{SKIPPED_PREFIX}{name}"));
        let pair = |unit: &str, task: &str| (unit.to_owned(), task.to_owned());
        assert_eq!(read("s/1%2E2"), [pair("s", "1.2")]);
        assert_eq!(read("001-a/T006"), [pair("001-a", "T006")], "both spellings alike: one reading");
        assert_eq!(read("add.v2/1.2"), [pair("add.v2", "1.2")]);
        assert_eq!(read("a%2Eb/T006"), [pair("a.b", "T006"), pair("a%2Eb", "T006")]);
        assert!(read("no-task").is_empty());
    }

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
        // Not our spelling (an escape in lower case), so the published speccoder's: the unit as it is.
        let lower = "refs/speccoder/skipped/%e3/T1";
        assert_eq!(stands_for(lower).as_deref(), Some("the skip of %e3/T1"));
        for other in ["refs/speccoder/skipped/u", "refs/speccoder/skipped/u/1%2", "refs/heads/main"] {
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

    /// An OpenSpec task id, as `spec::is_task_id` reads one (the model cannot call it).
    fn openspec_id(id: &str) -> bool {
        let numbers = id.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        numbers.split('.').all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            && (numbers.len() == id.len() || numbers.contains('.'))
    }

    #[test]
    fn a_skip_ref_reads_the_escaped_task_and_the_published_unescaped_task_id_and_nothing_else() {
        let of = |name: &str| skip_of(&format!("{SKIPPED_PREFIX}add-tags/{name}"), "add-tags", openspec_id);
        for (part, task) in
            [("1%2E2", "1.2"), ("1.2", "1.2"), ("1.10.2", "1.10.2"), ("1.1a", "1.1a"), ("T005", "T005")]
        {
            assert_eq!(of(part), SkipOf::Task(task.to_owned()), "{part}");
        }
        for odd in ["a.b", "1.2.", "%2e", "1%2e2", "1.2%2E3", "1 2", "1.2/x"] {
            assert_eq!(of(odd), SkipOf::NoTask, "{odd}");
        }
        let other = skip_of("refs/speccoder/skipped/other/1.2", "add-tags", openspec_id);
        assert_eq!(other, SkipOf::Other);
    }

    #[test]
    fn the_published_spelling_of_a_skip_keeps_the_unit_as_it_is_and_escapes_only_percent_and_colon() {
        let published = |unit: &str, task: &str| published_skipped_ref(unit, task);
        assert_eq!(published("add-tags", "1.2").as_deref(), Some("refs/speccoder/skipped/add-tags/1.2"));
        assert_eq!(published("add.v2", "1.2").as_deref(), Some("refs/speccoder/skipped/add.v2/1.2"));
        assert_eq!(published("add.v2", "T005").as_deref(), Some("refs/speccoder/skipped/add.v2/T005"));
        assert_eq!(published("été", "1.1a").as_deref(), Some("refs/speccoder/skipped/été/1.1a"));
        assert_eq!(published("50%off", "2.1").as_deref(), Some("refs/speccoder/skipped/50%off/2.1"));
        assert_eq!(published("a", "bug:x.y").as_deref(), Some("refs/speccoder/skipped/a/bug%3Ax.y"));
        assert_eq!(published_task_component("50%:x"), "50%25%3Ax");
        // Spelt alike: nothing more to look for.
        assert_eq!(published("001-x", "T005"), None);
        assert_eq!(published("a", "bug:x"), None);
        // No reference name git takes, so none the published speccoder could write.
        for unit in ["a:b", "my change", "x.lock", "a~b", "a?b", "a*b", "a[b", "a^b", "a\\b", "a@{b"] {
            assert_eq!(published(unit, "1.2"), None, "{unit}");
        }
    }

    #[test]
    fn a_published_skip_ref_reads_back_as_its_task_and_its_unit_as_it_is() {
        for (unit, task) in
            [("add.v2", "1.2"), ("add.v2", "T005"), ("été", "1.1a"), ("50%off", "2.1"), ("a", "1.2")]
        {
            let name = published_skipped_ref(unit, task).unwrap();
            assert!(gix::refs::FullName::try_from(name.as_str()).is_ok(), "{name}");
            let read = skip_of(&name, unit, |id| openspec_id(id) || id == "T005");
            let Some(prefix) = skip_prefixes(unit).into_iter().find(|p| name.starts_with(p.as_str())) else {
                panic!("{name} is under none of the prefixes of {unit}");
            };
            assert!(prefix.ends_with('/'), "{prefix}");
            match read {
                SkipOf::Task(t) | SkipOf::Shared { task: t, .. } => assert_eq!(t, task, "{name}"),
                other => panic!("{name}: {other:?}"),
            }
        }
        // Another unit's, or a part the published speccoder never writes: not this unit's task.
        assert_eq!(skip_of("refs/speccoder/skipped/add.v2/1.2", "add", openspec_id), SkipOf::Other);
        assert_eq!(skip_of("refs/speccoder/skipped/add.v2/1%2E2", "add.v2", openspec_id), SkipOf::Other);
        assert_eq!(skip_of("refs/speccoder/skipped/add.v2/x:y", "add.v2", |_| true), SkipOf::Other);
        assert_eq!(skip_of("refs/speccoder/skipped/add%2Ev2/1.2", "add.v2", openspec_id), SkipOf::NoTask);
        assert_eq!(skip_prefixes("add-tags"), vec!["refs/speccoder/skipped/add-tags/".to_owned()]);
        assert_eq!(skip_prefixes("a:b"), vec!["refs/speccoder/skipped/a%3Ab/".to_owned()]);
        assert_eq!(skip_prefixes("add.v2").len(), 2);
    }

    #[test]
    fn a_name_both_spellings_give_to_two_tasks_is_read_as_shared_with_the_other() {
        // `a%2Eb` spelt as it is (the published speccoder) is `a.b` escaped (ours).
        let name = "refs/speccoder/skipped/a%2Eb/T005";
        assert_eq!(skipped_ref("a.b", "T005"), name);
        assert_eq!(published_skipped_ref("a%2Eb", "T005").as_deref(), Some(name));
        let shared =
            |task: &str, other: &str| SkipOf::Shared { task: task.to_owned(), other: other.to_owned() };
        assert_eq!(skip_of(name, "a.b", |_| true), shared("T005", "a%2Eb/T005"));
        assert_eq!(skip_of(name, "a%2Eb", |_| true), shared("T005", "a.b/T005"));
        // A task whose escapes the published speccoder does not write is ours alone.
        assert_eq!(
            skip_of("refs/speccoder/skipped/a%2Eb/1%2E2", "a.b", openspec_id),
            SkipOf::Task("1.2".into())
        );
        assert_eq!(
            published_skipped_ref("a%2Eb", "1.2").as_deref(),
            Some("refs/speccoder/skipped/a%2Eb/1.2")
        );
        assert_eq!(
            skip_of("refs/speccoder/skipped/a%2Eb/1.2", "a%2Eb", openspec_id),
            SkipOf::Task("1.2".into())
        );
    }

    #[test]
    fn the_published_task_spelling_reads_back_and_nothing_else_does() {
        for task in ["1.2", "bug:x", "50%", "a%3Ab", ":%:"] {
            assert_eq!(published_task_of(&published_task_component(task)).as_deref(), Some(task), "{task}");
        }
        for odd in ["a:b", "%2E", "%", "%3a", "%2"] {
            assert_eq!(published_task_of(odd), None, "{odd}");
        }
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
