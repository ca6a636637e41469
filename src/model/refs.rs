//! The references speccoder writes besides the notes: skips (`refs/speccoder/skipped/<unit>/<task>`)
//! and published held-out sets (`refs/speccoder/held-out/<unit>`), and the escaping that makes any
//! unit name or task id one valid reference-name component.
//!
//! Escaping: every byte of the UTF-8 text that is not an ASCII letter, digit, `-` or `_` becomes
//! `%` and two uppercase hex digits. `T005` and `001-bookmark-tags` stay as they are, `1.2` becomes
//! `1%2E2`, `bug:crash` becomes `bug%3Acrash`. The result never holds `.`, `/`, `:` or anything
//! else git refuses in a reference name, and exactly one text escapes to a given component.

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

/// `refs/speccoder/skipped/<unit>/<task>`, both parts escaped.
#[must_use]
pub fn skipped_ref(unit: &str, task: &str) -> String {
    format!("{SKIPPED_PREFIX}{}/{}", escape_component(unit), escape_component(task))
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn escaped_names_are_valid_reference_names() {
        for text in ["1.2", "bug:x", "..", "a.lock", "@{u}", "~^:?*[", " "] {
            let name = skipped_ref("001-x", text);
            assert!(gix::refs::FullName::try_from(name.as_str()).is_ok(), "{name}");
        }
    }
}
