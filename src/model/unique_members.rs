//! JSON read for a member named twice. RFC 8259 leaves an object whose member names repeat to
//! each parser (serde_json keeps the last, others the first), so a file that repeats one says one
//! thing to us and another to a reader beside us: such a file is refused, at any depth.

use std::collections::HashSet;
use std::fmt;

use serde::de::{Deserialize, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};

use super::shown::shown;

/// Any JSON value, read only to refuse an object that names a member twice; nothing is kept.
/// Read through `serde_path_to_error`, the error names where the object is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UniqueMembers;

impl<'de> Deserialize<'de> for UniqueMembers {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(Check).map(|()| UniqueMembers)
    }
}

/// The visitor of [`UniqueMembers`].
struct Check;

impl<'de> Visitor<'de> for Check {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<UniqueMembers>()?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if seen.contains(&key) {
                return Err(A::Error::custom(format!(
                    "the member `{}` is named twice in one object, which JSON readers take differently; keep one",
                    shown(&key, 60)
                )));
            }
            map.next_value::<UniqueMembers>()?;
            seen.insert(key);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(json: &str) -> Result<(), String> {
        let de = &mut serde_json::Deserializer::from_str(json);
        serde_path_to_error::deserialize::<_, UniqueMembers>(de).map(|_| ()).map_err(|e| {
            let path = e.path().to_string();
            format!("{path}: {}", e.into_inner())
        })
    }

    #[test]
    fn a_member_named_twice_at_any_depth_is_refused_where_it_is() {
        let err = check(r#"{"monitor": {"state": "suspected", "state": "clean"}}"#).unwrap_err();
        assert!(err.starts_with("monitor: the member `state` is named twice"), "{err}");
        let err = check(r#"{"d": [{"a": 1}, {"q": {"x": 1, "x": 2}}]}"#).unwrap_err();
        assert!(err.starts_with("d[1].q: the member `x` is named twice"), "{err}");
    }

    #[test]
    fn every_other_value_reads() {
        let json = r#"{"a": [1, -2, 3.5, "s", true, null, {}, []], "b": {"a": {"a": 1}}, "c": 18446744073709551615}"#;
        assert_eq!(check(json), Ok(()));
    }
}
