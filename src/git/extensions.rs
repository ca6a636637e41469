//! The repository's format as git judges it on opening (`core.repositoryFormatVersion` and the
//! `extensions.*` keys of the repository's own configuration file), and what speccoder refuses
//! there: what git itself refuses, and what git accepts but speccoder cannot keep.
//!
//! git reads the format from the common git directory's `config` alone (never an included file,
//! the user's configuration or `config.worktree`), and only when the version is set. At version 1
//! every extension must be one it knows; at version 0 it ignores those it does not know (older
//! tools did) but refuses one that exists for version 1 only. speccoder does the same, knowing
//! what git 2.47 knows (and `relativeWorktrees`, which later git writes and gix reads), and
//! refuses besides what it cannot do as git does: references stored as reftable, objects kept
//! under a second format for a command that writes (`compatObjectFormat`), SHA-256 objects.
//! It deletes no object, so `preciousObjects` is kept.

use gix::bstr::ByteSlice;

use super::error::GitError;
use super::repo::Repo;

/// One `extensions.*` key of the repository's configuration file, with every value given to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Extension {
    /// The key as written (`extensions.compatObjectFormat`, `extensions.sub.key`).
    pub key: String,
    /// Each value in file order; `None` for a key written without `=` (git's implicit true).
    pub values: Vec<Option<String>>,
}

impl Extension {
    /// The extension's name as git compares it: the key after `extensions.`, in lower case.
    fn name(&self) -> String {
        self.key.get("extensions.".len()..).unwrap_or_default().to_ascii_lowercase()
    }

    /// The value git keeps (the last one), `None` when it has none (a key without `=`).
    fn last(&self) -> Option<&str> {
        self.values.last().and_then(Option::as_deref)
    }
}

/// Why speccoder will not work in the repository, judged from its format alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExtensionRefusal {
    /// A format version past 1, which git refuses.
    Version {
        /// The version the configuration sets.
        version: i64,
    },
    /// At version 1, an extension git does not know: git refuses the repository.
    Unknown {
        /// The key as written.
        key: String,
    },
    /// At version 0, an extension git reads at version 1 only: git refuses the repository.
    VersionZero {
        /// The key as written.
        key: String,
    },
    /// A known extension whose value git does not accept: git refuses the repository.
    Invalid {
        /// The key as written.
        key: String,
        /// Its value (the first git rejects), `None` for a key without `=`.
        value: Option<String>,
        /// What is wrong with it, to follow "which".
        why: &'static str,
    },
    /// References stored in another format than files (reftable).
    RefStorage {
        /// The format named.
        format: String,
    },
    /// Objects stored under another hash than SHA-1.
    ObjectFormat {
        /// The format named.
        format: String,
    },
    /// For a command that writes: a second object format git keeps every object's name in.
    CompatObjectFormat {
        /// The key as written.
        key: String,
        /// The format named.
        format: String,
    },
}

/// Whether the command opening the repository only reads it or also writes there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// `attest verify` and the other readers.
    Read,
    /// Every command that writes objects or references.
    Write,
}

/// The extensions git knows at any version (git's `handle_extension_v0`).
const ANY_VERSION: [&str; 4] = ["noop", "preciousobjects", "partialclone", "worktreeconfig"];

/// What speccoder refuses in a repository of format `version` (`None`: not set, where git checks
/// no extension) with `extensions`, for a command of `access`; `None` when it may work there.
pub(crate) fn refusal(
    version: Option<i64>,
    extensions: &[Extension],
    access: Access,
) -> Option<ExtensionRefusal> {
    let version = version.filter(|v| *v >= 0)?;
    if version > 1 {
        return Some(ExtensionRefusal::Version { version });
    }
    extensions.iter().find_map(|extension| {
        let name = extension.name();
        if ANY_VERSION.contains(&name.as_str()) {
            return invalid_value(extension, &name);
        }
        let known = version_one_only(extension, &name, extensions, access);
        match (version, known) {
            (0, None) => None,
            (0, Some(_)) => Some(ExtensionRefusal::VersionZero { key: extension.key.clone() }),
            (_, None) => Some(ExtensionRefusal::Unknown { key: extension.key.clone() }),
            (_, Some(verdict)) => verdict,
        }
    })
}

/// A value git refuses for an extension it knows at any version.
fn invalid_value(extension: &Extension, name: &str) -> Option<ExtensionRefusal> {
    let invalid = |value: &Option<String>, why| ExtensionRefusal::Invalid {
        key: extension.key.clone(),
        value: value.clone(),
        why,
    };
    extension.values.iter().find_map(|value| match (name, value) {
        ("noop", _) => None,
        ("partialclone", None) => Some(invalid(value, "has no value (it names the promisor remote)")),
        ("partialclone", Some(_)) => None,
        (_, value) => not_a_boolean(value).then(|| invalid(value, "is not a boolean")),
    })
}

/// Whether a value is not one git reads as a boolean (no value reads as true).
fn not_a_boolean(value: &Option<String>) -> bool {
    value.as_deref().is_some_and(|v| gix::config::Boolean::try_from(v.as_bytes().as_bstr()).is_err())
}

/// For an extension git knows at version 1 only: `Some` with what speccoder makes of it (`None`
/// inside: it may work there); `None` for one git does not know.
fn version_one_only(
    extension: &Extension,
    name: &str,
    all: &[Extension],
    access: Access,
) -> Option<Option<ExtensionRefusal>> {
    let invalid = |why| {
        Some(ExtensionRefusal::Invalid {
            key: extension.key.clone(),
            value: extension.last().map(str::to_owned),
            why,
        })
    };
    const NO_FORMAT: &str = "names no object format git knows (`sha1`, `sha256`)";
    Some(match (name, extension.last()) {
        ("noop-v1", _) => None,
        ("relativeworktrees", _) => invalid_value(extension, name),
        ("objectformat" | "refstorage" | "compatobjectformat", None) => invalid("has no value"),
        ("objectformat", Some("sha1")) | ("refstorage", Some("files")) => None,
        ("objectformat", Some("sha256")) => Some(ExtensionRefusal::ObjectFormat { format: "sha256".into() }),
        ("objectformat", Some(_)) => invalid(NO_FORMAT),
        ("refstorage", Some("reftable")) => Some(ExtensionRefusal::RefStorage { format: "reftable".into() }),
        ("refstorage", Some(_)) => invalid("names no reference storage git knows (`files`, `reftable`)"),
        ("compatobjectformat", Some(format)) => {
            let own = all.iter().find(|e| e.name() == "objectformat").and_then(Extension::last);
            if extension.values.len() > 1 {
                invalid("is set more than once")
            } else if format != "sha1" && format != "sha256" {
                invalid(NO_FORMAT)
            } else if format == own.unwrap_or("sha1") {
                invalid("is the repository's own object format")
            } else if access == Access::Write {
                Some(ExtensionRefusal::CompatObjectFormat {
                    key: extension.key.clone(),
                    format: format.to_owned(),
                })
            } else {
                None
            }
        }
        _ => return None,
    })
}

impl Repo {
    /// Refuses a repository whose format git refuses, or that speccoder cannot read, or (for
    /// `access` [`Access::Write`]) write as git does ([`refusal`]); checked before anything is
    /// read or written.
    pub(crate) fn refuse_format(&self, access: Access) -> Result<(), GitError> {
        let snapshot = self.inner.config_snapshot();
        let file = snapshot.plumbing();
        let version = file.integer_filter("core.repositoryFormatVersion", own_file).ok().flatten();
        match refusal(version, &extensions_of(file), access) {
            None => Ok(()),
            Some(refusal) => {
                Err(GitError::Extension { git_dir: self.common_dir_absolute(), refusal: Box::new(refusal) })
            }
        }
    }
}

/// Whether a configuration section comes from the repository's own file, where git reads the
/// format: not an included file, nor another level of configuration.
fn own_file(meta: &gix::config::file::Metadata) -> bool {
    meta.source == gix::config::Source::Local && meta.level == 0
}

/// The `extensions.*` keys of the repository's own file, each once (names compare whatever their
/// case), with every value it is given there in file order.
fn extensions_of(file: &gix::config::File) -> Vec<Extension> {
    let mut extensions: Vec<Extension> = Vec::new();
    for section in file.sections_by_name_and_filter("extensions", own_file).into_iter().flatten() {
        let prefix = match section.header().subsection_name() {
            Some(sub) => format!("extensions.{}.", sub.to_str_lossy()),
            None => "extensions.".to_owned(),
        };
        let mut names: Vec<String> = Vec::new();
        for name in section.value_names() {
            if !names.iter().any(|n| n.eq_ignore_ascii_case(&name)) {
                names.push(name);
            }
        }
        for name in names {
            let explicit = section.values(&name);
            let values: Vec<Option<String>> = if explicit.is_empty() {
                vec![None]
            } else {
                explicit.iter().map(|v| Some(v.to_str_lossy().into_owned())).collect()
            };
            let key = format!("{prefix}{name}");
            match extensions.iter_mut().find(|e| e.key.eq_ignore_ascii_case(&key)) {
                Some(seen) => seen.values.extend(values),
                None => extensions.push(Extension { key, values }),
            }
        }
    }
    extensions
}

#[cfg(test)]
mod tests {
    use super::{Access, Extension, ExtensionRefusal, refusal};

    fn ext(key: &str, value: Option<&str>) -> Extension {
        Extension { key: key.to_owned(), values: vec![value.map(str::to_owned)] }
    }

    fn judged(version: Option<i64>, extensions: &[Extension], access: Access) -> Option<ExtensionRefusal> {
        refusal(version, extensions, access)
    }

    #[test]
    fn at_version_one_an_extension_git_does_not_know_is_refused_for_reading_and_writing() {
        let foo = [ext("extensions.foo", Some("true"))];
        for access in [Access::Read, Access::Write] {
            assert_eq!(
                judged(Some(1), &foo, access),
                Some(ExtensionRefusal::Unknown { key: "extensions.foo".into() })
            );
        }
        let sub = [ext("extensions.sub.key", Some("x"))];
        assert!(matches!(judged(Some(1), &sub, Access::Read), Some(ExtensionRefusal::Unknown { .. })));
    }

    #[test]
    fn at_version_zero_or_unset_an_unknown_extension_is_ignored_as_git_ignores_it() {
        let foo = [ext("extensions.foo", Some("true"))];
        assert_eq!(judged(Some(0), &foo, Access::Write), None);
        assert_eq!(judged(None, &foo, Access::Write), None);
        let compat = [ext("extensions.compatObjectFormat", Some("sha256"))];
        assert_eq!(judged(None, &compat, Access::Write), None, "git checks nothing without a version");
    }

    #[test]
    fn at_version_zero_an_extension_of_version_one_only_is_refused_as_git_refuses_it() {
        for key in [
            "extensions.noop-v1",
            "extensions.objectFormat",
            "extensions.compatObjectFormat",
            "extensions.refStorage",
            "extensions.relativeWorktrees",
        ] {
            let one = [ext(key, Some("sha1"))];
            assert_eq!(
                judged(Some(0), &one, Access::Read),
                Some(ExtensionRefusal::VersionZero { key: key.into() }),
                "{key}"
            );
        }
    }

    #[test]
    fn the_extensions_speccoder_keeps_are_accepted_at_version_one() {
        let kept = [
            ext("extensions.noop", None),
            ext("extensions.noop-v1", Some("anything")),
            ext("extensions.preciousObjects", Some("true")),
            ext("extensions.partialClone", Some("origin")),
            ext("extensions.worktreeConfig", None),
            ext("extensions.objectFormat", Some("sha1")),
            ext("extensions.refStorage", Some("files")),
            ext("extensions.relativeWorktrees", Some("yes")),
            ext("extensions.compatObjectFormat", Some("sha256")),
        ];
        assert_eq!(judged(Some(1), &kept, Access::Read), None);
        assert_eq!(judged(Some(1), &kept[..8], Access::Write), None);
    }

    #[test]
    fn a_second_object_format_is_read_but_refused_to_a_writer() {
        let compat = [ext("extensions.compatObjectFormat", Some("sha256"))];
        assert_eq!(judged(Some(1), &compat, Access::Read), None);
        assert_eq!(
            judged(Some(1), &compat, Access::Write),
            Some(ExtensionRefusal::CompatObjectFormat {
                key: "extensions.compatObjectFormat".into(),
                format: "sha256".into()
            })
        );
    }

    #[test]
    fn a_value_git_refuses_for_an_extension_it_knows_is_refused_naming_the_key() {
        let cases = [
            ext("extensions.worktreeConfig", Some("bogus")),
            ext("extensions.preciousObjects", Some("2x")),
            ext("extensions.partialClone", None),
            ext("extensions.objectFormat", Some("md5")),
            ext("extensions.refStorage", Some("FILES")),
            ext("extensions.refStorage", None),
            ext("extensions.compatObjectFormat", Some("sha1")),
        ];
        for case in cases {
            let judged = judged(Some(1), std::slice::from_ref(&case), Access::Read);
            assert!(
                matches!(&judged, Some(ExtensionRefusal::Invalid { key, .. }) if *key == case.key),
                "{case:?}: {judged:?}"
            );
        }
        let twice = Extension {
            key: "extensions.compatObjectFormat".into(),
            values: vec![Some("sha256".into()), Some("sha256".into())],
        };
        assert!(matches!(judged(Some(1), &[twice], Access::Read), Some(ExtensionRefusal::Invalid { .. })));
    }

    #[test]
    fn reftable_sha256_and_a_version_past_one_are_refused_to_every_command() {
        let reftable = [ext("extensions.refStorage", Some("reftable"))];
        assert_eq!(
            judged(Some(1), &reftable, Access::Read),
            Some(ExtensionRefusal::RefStorage { format: "reftable".into() })
        );
        let sha256 = [ext("extensions.objectFormat", Some("sha256"))];
        assert!(matches!(
            judged(Some(1), &sha256, Access::Read),
            Some(ExtensionRefusal::ObjectFormat { .. })
        ));
        assert_eq!(judged(Some(2), &[], Access::Read), Some(ExtensionRefusal::Version { version: 2 }));
    }
}
