//! A table of `speccoder.toml` as the published speccoder reads it into one of its structs: it
//! deserializes the parsed value (`toml::Value`, through serde), which takes more than a table of
//! keys. An array fills the struct's keys in their declared order, and must hold exactly one
//! element for each (the struct has no defaults, so a missing one is refused, and the value's
//! reader refuses one more); a date or time where a string is expected is read as its text, as
//! written. [`published_form`] writes such a value in the one form this crate's readers judge, a
//! table of keys, so that each reader reads every form the published tool takes with the meaning
//! it gives, and refuses what it refuses.

use toml::Value;

/// What the published tool's reader expects at a key.
#[derive(Debug, PartialEq, Eq)]
pub enum Shape {
    /// A boolean.
    Bool,
    /// A string (a date or time is read as its text).
    Text,
    /// A struct (a table, or an array of its keys' values in order).
    Struct(&'static Fields),
}

/// A struct of the published tool's: its name in the file, and its keys in declared order.
#[derive(Debug, PartialEq, Eq)]
pub struct Fields {
    /// The table as a message names it (`[attest]`).
    pub name: &'static str,
    /// Its keys, in the order an array fills them, each with what it holds.
    pub keys: &'static [(&'static str, Shape)],
}

impl Fields {
    /// Whether `key` is one of its keys.
    #[must_use]
    pub fn holds(&self, key: &str) -> bool {
        self.keys.iter().any(|(name, _)| *name == key)
    }

    /// Its keys in order, for a message: `enabled, signer, sign_at`.
    #[must_use]
    pub fn key_list(&self) -> String {
        self.keys.iter().map(|(name, _)| *name).collect::<Vec<_>>().join(", ")
    }
}

/// An array written where a struct is expected that does not hold one element for each key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "an array here fills the keys of {} in their order ({}), one element each, as the published speccoder reads it, and this one has {given}: write exactly {}, or a table of the keys",
    .of.name, .of.key_list(), .of.keys.len()
)]
pub struct ArrayLength {
    /// Its elements.
    pub given: usize,
    /// The struct it was to fill.
    pub of: &'static Fields,
}

/// An [`ArrayLength`] and the dotted keys that lead to the array, below the value given to
/// [`published_form`] (empty: that value itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Misfit {
    /// The keys, outermost first.
    pub path: Vec<&'static str>,
    /// What is wrong with the array.
    pub problem: ArrayLength,
}

/// `value`, read where the published tool expects `shape`, written as a table of keys: an array
/// where a struct is expected becomes the table of its keys in order, and a date or time where a
/// string is expected becomes its text. Within a struct, each of its keys is read by its own
/// shape; anything else (a key it does not have, a value of another type) is left as written,
/// for the caller's reader to name.
///
/// # Errors
/// [`Misfit`]: an array with fewer or more elements than its struct has keys.
pub fn published_form(value: &Value, shape: &Shape) -> Result<Value, Misfit> {
    match (shape, value) {
        (Shape::Text, Value::Datetime(at)) => Ok(Value::String(at.to_string())),
        (Shape::Struct(of), Value::Array(items)) if items.len() != of.keys.len() => {
            Err(Misfit { path: Vec::new(), problem: ArrayLength { given: items.len(), of } })
        }
        (Shape::Struct(of), Value::Array(items)) => {
            struct_form(of, of.keys.iter().zip(items).map(|((key, _), item)| (*key, item)))
        }
        (Shape::Struct(of), Value::Table(table)) => {
            struct_form(of, table.iter().map(|(k, v)| (k.as_str(), v)))
        }
        _ => Ok(value.clone()),
    }
}

/// The table of `entries`, each key of `of` read by its shape.
fn struct_form<'a>(
    of: &Fields,
    entries: impl Iterator<Item = (&'a str, &'a Value)>,
) -> Result<Value, Misfit> {
    let mut table = toml::Table::new();
    for (key, value) in entries {
        let value = match of.keys.iter().find(|(name, _)| *name == key) {
            Some((name, shape)) => published_form(value, shape).map_err(|mut misfit| {
                misfit.path.insert(0, name);
                misfit
            })?,
            None => value.clone(),
        };
        table.insert(key.to_owned(), value);
    }
    Ok(Value::Table(table))
}

#[cfg(test)]
mod tests {
    use super::*;

    const INNER: Fields = Fields { name: "[t.inner]", keys: &[("a", Shape::Text), ("b", Shape::Text)] };
    const OUTER: Fields = Fields {
        name: "[t]",
        keys: &[("on", Shape::Bool), ("name", Shape::Text), ("inner", Shape::Struct(&INNER))],
    };

    fn form(text: &str) -> Result<Value, Misfit> {
        let doc: toml::Table = text.parse().expect("TOML");
        published_form(&doc["t"], &Shape::Struct(&OUTER))
    }

    fn table(text: &str) -> Value {
        Value::Table(text.parse().expect("TOML"))
    }

    #[test]
    fn an_array_fills_the_keys_in_their_order_at_every_level() {
        let want = table("on = true\nname = \"n\"\n[inner]\na = \"x\"\nb = \"y\"\n");
        assert_eq!(form("t = [true, \"n\", [\"x\", \"y\"]]\n").unwrap(), want);
        assert_eq!(form("t = [true, \"n\", { a = \"x\", b = \"y\" }]\n").unwrap(), want);
        assert_eq!(form("[t]\non = true\nname = \"n\"\ninner = [\"x\", \"y\"]\n").unwrap(), want);
    }

    #[test]
    fn a_date_or_time_where_a_string_is_expected_is_its_text_and_elsewhere_stays_as_written() {
        let got = form("t = [1979-05-27, \"n\", [1979-05-27T07:32:00.5-07:00, 07:32:00]]\n").unwrap();
        assert!(got["on"].is_datetime(), "a boolean's place: left for the reader to refuse");
        assert_eq!(got["inner"]["a"].as_str(), Some("1979-05-27T07:32:00.5-07:00"));
        assert_eq!(got["inner"]["b"].as_str(), Some("07:32:00"));
        let got = form("[t]\nname = 2026-01-01T00:00:00Z\ninner = 2026-01-01\n").unwrap();
        assert_eq!(got["name"].as_str(), Some("2026-01-01T00:00:00Z"));
        assert!(got["inner"].is_datetime(), "a struct's place: left for the reader to refuse");
    }

    #[test]
    fn an_array_of_another_length_than_its_struct_s_keys_is_refused_naming_where_it_is() {
        for (text, path, given) in [
            ("t = []\n", vec![], 0),
            ("t = [true, \"n\"]\n", vec![], 2),
            ("t = [true, \"n\", {}, 1]\n", vec![], 4),
            ("t = [true, \"n\", [\"x\"]]\n", vec!["inner"], 1),
            ("[t]\ninner = [\"x\", \"y\", \"z\"]\n", vec!["inner"], 3),
        ] {
            let misfit = form(text).unwrap_err();
            assert_eq!((misfit.path, misfit.problem.given), (path, given), "{text}");
        }
        let err = form("t = [true]\n").unwrap_err().problem.to_string();
        assert!(err.contains("the keys of [t] in their order (on, name, inner), one element each"), "{err}");
        assert!(err.contains("this one has 1: write exactly 3, or a table of the keys"), "{err}");
    }

    #[test]
    fn other_keys_and_values_are_left_as_written_for_the_reader() {
        let text = "[t]\nother = 2026-01-01\non = \"yes\"\nname = 1\ninner = { c = [1] }\n";
        assert_eq!(form(text).unwrap(), table(&text.replace("[t]\n", "")));
        let doc: toml::Table = "t = \"x\"\n".parse().unwrap();
        assert_eq!(published_form(&doc["t"], &Shape::Struct(&OUTER)).unwrap(), doc["t"]);
    }
}
