//! Configuration values as gix resolves them (repository, includes, global, environment), and the
//! origin URL with credentials removed.

use std::ffi::OsString;
use std::path::PathBuf;

use gix::bstr::{BStr, BString};

use super::error::GitError;
use super::repo::Repo;
use crate::model::shown::{bytes_shown, one_line};

/// A work tree's sparse checkout ([`Repo::sparse_checkout`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SparseCheckout {
    /// None is configured: a path marked skip-worktree was marked by hand
    /// (`git update-index --skip-worktree`), and `git sparse-checkout add` refuses to run.
    Off,
    /// Cone mode: `git sparse-checkout add <dir>` brings a directory in.
    Cone,
    /// Patterns as in `.gitignore`, the last match winning: a pattern may exclude a file inside a
    /// directory that another pattern includes.
    NonCone,
}

impl Repo {
    /// The value of configuration `key` (`section.name` or `section.sub.name`) as git reads a
    /// string, its bytes as they are: the last entry's, whichever file or scope sets it; `None`
    /// when unset. The one place a string of git's configuration is read: every other reading of
    /// one goes through it.
    ///
    /// # Errors
    /// [`GitError::ConfigWithoutValue`] when the last entry is the key alone, without a value
    /// (`git -c key`, a line `key` without `=`), naming where it is set: git refuses it ("missing
    /// value for"), and taking a value set before it would take what the user overrode.
    pub(crate) fn config_value(&self, key: &str) -> Result<Option<BString>, GitError> {
        let Some(key) = gix::config::KeyRef::parse_unvalidated(key.into()) else { return Ok(None) };
        self.config_value_at(key.section_name, key.subsection_name, key.value_name)
    }

    /// [`Repo::config_value`] of the key in parts: `section` and `name` matched as git matches
    /// them (in any case), `subsection` byte for byte (a branch's name, a remote's).
    pub(crate) fn config_value_at(
        &self,
        section: &str,
        subsection: Option<&BStr>,
        name: &str,
    ) -> Result<Option<BString>, GitError> {
        let snapshot = self.inner.config_snapshot();
        let Some(sections) = snapshot.plumbing().sections_by_name(section) else { return Ok(None) };
        let last = sections
            .filter(|s| s.header().subsection_name() == subsection)
            .filter_map(|s| s.value_implicit(name).map(|value| (value, s.meta().clone())))
            .last();
        match last {
            None => Ok(None),
            Some((Some(value), _)) => Ok(Some(value)),
            Some((None, meta)) => Err(GitError::ConfigWithoutValue {
                key: git_key(section, subsection, name),
                origin: set_in(&meta),
            }),
        }
    }

    /// The text of configuration `key` ([`Repo::config_value`]); `None` when unset.
    ///
    /// # Errors
    /// [`GitError::ConfigNotText`] when it is set to bytes that are not UTF-8: a value that is
    /// set never reads as unset; [`GitError::ConfigWithoutValue`].
    pub fn config_string(&self, key: &str) -> Result<Option<String>, GitError> {
        let Some(value) = self.config_value(key)? else { return Ok(None) };
        match String::from_utf8(value.into()) {
            Ok(text) => Ok(Some(text)),
            Err(_) => Err(GitError::ConfigNotText { key: key.to_owned() }),
        }
    }

    /// The value of configuration `key` as git hands it to the file system or a program (a key
    /// file, a program's path): its bytes as they are, UTF-8 or not ([`Repo::config_value`]);
    /// `None` when unset.
    ///
    /// # Errors
    /// [`GitError::ConfigNotText`] where a path must be UTF-8 (not on unix);
    /// [`GitError::ConfigWithoutValue`].
    pub fn config_os_string(&self, key: &str) -> Result<Option<OsString>, GitError> {
        let Some(value) = self.config_value(key)? else { return Ok(None) };
        let path =
            gix::path::from_bstring(value).map_err(|_| GitError::ConfigNotText { key: key.to_owned() })?;
        Ok(Some(path.into_os_string()))
    }

    /// Whether configuration `key` is set, to anything (text or not, empty or not, the key alone).
    pub fn config_is_set(&self, key: &str) -> bool {
        !matches!(self.config_value(key), Ok(None))
    }

    /// The boolean of configuration `key` as git reads it (`true`, `yes`, `on`, `1`, ...);
    /// `None` when unset or not a boolean.
    pub fn config_bool(&self, key: &str) -> Option<bool> {
        self.inner.config_snapshot().boolean(key)
    }

    /// How this work tree's sparse checkout is configured, as `git sparse-checkout` reads it
    /// (`core.sparseCheckout`, `core.sparseCheckoutCone`, per work tree in `config.worktree`).
    pub fn sparse_checkout(&self) -> SparseCheckout {
        match (self.config_bool("core.sparseCheckout"), self.config_bool("core.sparseCheckoutCone")) {
            (Some(true), Some(true)) => SparseCheckout::Cone,
            (Some(true), _) => SparseCheckout::NonCone,
            _ => SparseCheckout::Off,
        }
    }

    /// The path in configuration `key` with `~` expanded; `None` when unset.
    ///
    /// # Errors
    /// [`GitError::ConfigWithoutValue`] ([`Repo::config_value`]); [`GitError::Gix`] for a path
    /// that cannot be expanded.
    pub fn config_path(&self, key: &str) -> Result<Option<PathBuf>, GitError> {
        self.config_value(key)?;
        self.inner.config_snapshot().trusted_path(key).map_err(|source| GitError::Gix {
            action: format!("read the path in configuration `{key}`"),
            source,
        })
    }

    /// The URL of remote `origin` as it may be published ([`strip_credentials`]): without
    /// credentials, and `None` without an origin, when it is a local repository, or when it is
    /// not UTF-8 (as one with control characters, it is not published).
    pub fn origin_url_without_credentials(&self) -> Option<String> {
        strip_credentials(&self.config_string("remote.origin.url").ok()??)
    }
}

/// A key as git names it in a message: its section and name in lower case, its subsection as it
/// is (each byte that is not UTF-8 escaped).
pub(super) fn git_key(section: &str, subsection: Option<&BStr>, name: &str) -> String {
    let (section, name) = (section.to_ascii_lowercase(), name.to_ascii_lowercase());
    match subsection {
        Some(sub) => format!("{section}.{}.{name}", bytes_shown(sub)),
        None => format!("{section}.{name}"),
    }
}

/// Where a configuration entry is set, as a message says it: a file, git's command line (which
/// `git -c` hands on in `GIT_CONFIG_PARAMETERS`) or `GIT_CONFIG_COUNT`'s entries.
fn set_in(meta: &gix::config::file::Metadata) -> String {
    use gix::config::Source;
    match (meta.source, meta.path.as_deref()) {
        (Source::Cli, _) => {
            "set on git's command line, `git -c`, handed on in GIT_CONFIG_PARAMETERS".to_owned()
        }
        (Source::Env, _) => "set in GIT_CONFIG_COUNT's GIT_CONFIG_KEY_<n>".to_owned(),
        (_, Some(path)) => {
            let path = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
            format!("set in {}", one_line(&path.to_string_lossy()))
        }
        _ => "set in git's configuration".to_owned(),
    }
}

/// `url` as it may be published, or `None` when there is nothing to publish.
///
/// - `None` for a local repository: a path (`/srv/git/app.git`, `../app`, `C:\repos\app`; git
///   reads a URL without `://` whose first `:` comes after a `/`, or that has none, as a path) or
///   a `file://` URL; and for a URL with control characters or whitespace.
/// - Otherwise the URL without credentials: the user information of every scheme is removed,
///   except an ssh user name without a password (`ssh://git@host/r`, `git@host:r`); the query and
///   the fragment are removed (`?private_token=…`).
pub fn strip_credentials(url: &str) -> Option<String> {
    if url.is_empty() || url.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return None;
    }
    let Some((scheme, rest)) = url.split_once("://") else {
        return strip_scp_like(url);
    };
    if scheme.eq_ignore_ascii_case("file") || scheme.contains(['/', '\\']) {
        return None;
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let path = tail.split(['?', '#']).next().unwrap_or_default();
    let (user, host) = match authority.rsplit_once('@') {
        Some((userinfo, host)) => (userinfo.split(':').next(), host),
        None => (None, authority),
    };
    let ssh = ["ssh", "git+ssh", "ssh+git"].iter().any(|s| scheme.eq_ignore_ascii_case(s));
    Some(match user {
        Some(user) if ssh && !user.is_empty() => format!("{scheme}://{user}@{host}{path}"),
        _ => format!("{scheme}://{host}{path}"),
    })
}

/// An scp-like `[user@]host:path` as the `ssh://` URL git reads it as, so that what is published
/// is a URI (RFC 3986), as every other shape is: `git@github.com:acme/app.git` becomes
/// `ssh://git@github.com/acme/app.git`, the spelling npm and pip give it (`host:/srv/app.git`
/// becomes `ssh://host/srv/app.git`). Its user information loses a password, and with it the user
/// (where the first `:` ends git's host, as in `user:pw@host:r`); a user name alone is kept, as an
/// `ssh://` URL keeps it: ssh authenticates by key, so the name (`git`) is an account, never a
/// secret, unlike a user name in an `https` URL, which may be a token. A character a URI's path
/// may not hold (`?`, `#`, `%`, a non-ASCII one) is percent-encoded, as git's path holds it
/// literally. A bracketed host is read as [`bracketed`] says. A local path is `None`.
fn strip_scp_like(url: &str) -> Option<String> {
    let bytes = url.as_bytes();
    let drive = bytes.len() >= 3
        && bytes[0].is_ascii_alphabetic()
        && bytes[1] == b':'
        && matches!(bytes[2], b'/' | b'\\');
    let colon = url.find(':')?;
    if drive || url.find(['/', '\\']).is_some_and(|slash| slash < colon) {
        return None;
    }
    let (user, host, path) = if url.starts_with('[') || url.contains("@[") {
        bracketed(url)?
    } else {
        let first_segment = url.split('/').next().unwrap_or(url);
        let (user, rest) = match first_segment.rsplit_once('@') {
            Some((userinfo, _)) if userinfo.contains(':') => (None, &url[userinfo.len() + 1..]),
            Some((user, _)) => (Some(user), &url[user.len() + 1..]),
            None => (None, url),
        };
        let (host, path) = rest.split_once(':')?;
        (user.map(str::to_owned), host.to_owned(), path)
    };
    let user = user.map(|user| format!("{}@", uri_encoded(&user).replace('@', "%40"))).unwrap_or_default();
    let path = uri_encoded(path.strip_prefix('/').unwrap_or(path));
    Some(format!("ssh://{user}{host}/{path}"))
}

/// The user, the host (with its port, an IPv6 address in brackets) and the path of an scp-like
/// URL with a bracketed part, as git reads it (`connect.c`): the bracket opens after the first
/// `@[`, or else at the start; the host part ends at the first `:` after its `]`; the brackets
/// are dropped, and a port is split at the first `:` of what they held with the user before it,
/// when only digits follow it (below 65536). So `[git@host:22]:x.git` is user `git`, host
/// `host:22`, path `x.git`; `git@[host:2222]:x.git` the same with port 2222; `[::1]:x.git` host
/// `[::1]`. `None` for a form git reads otherwise than its spelling says, or that no URI says as
/// git reads it (a `]` not right before the `:`, text git drops, a user with a `:`, a bracket or
/// an `@` in a host, a host with a `:` that is no IPv6 address): no origin is published rather
/// than one git does not connect to.
fn bracketed(url: &str) -> Option<(Option<String>, String, &str)> {
    let open = url.find("@[").map_or(0, |at| at + 1);
    let close = open + url[open..].find(']')?;
    let path = url[close + 1..].strip_prefix(':')?;
    let (before, inside) = (&url[..open], &url[open + 1..close]);
    // What git hands ssh: the user part and the bracket's text, with the port split off.
    let user_and_host = format!("{before}{inside}");
    let (user_and_host, port) = match user_and_host.split_once(':') {
        Some((name, port))
            if !port.is_empty()
                && port.bytes().all(|b| b.is_ascii_digit())
                && port.parse::<u32>().is_ok_and(|p| p < 65536) =>
        {
            (name.to_owned(), Some(port.to_owned()))
        }
        _ => (user_and_host, None),
    };
    let (user, host) = match user_and_host.rsplit_once('@') {
        Some((user, host)) => (Some(user), host),
        None => (None, user_and_host.as_str()),
    };
    let odd_host = host.is_empty()
        || host.contains(['[', ']', '@'])
        || (host.contains(':') && host.parse::<std::net::Ipv6Addr>().is_err());
    if odd_host || user.is_some_and(|user| user.is_empty() || user.contains([':', '[', ']'])) {
        return None;
    }
    let host = match port {
        Some(port) => format!("{host}:{port}"),
        None if host.contains(':') => format!("[{host}]"),
        None => host.to_owned(),
    };
    Some((user.map(str::to_owned), host, path))
}

/// `text` with every character a URI's path segment may not hold (RFC 3986 `pchar`, and `/`)
/// percent-encoded, byte by byte.
fn uri_encoded(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    //! Configuration values and the origin URL without credentials.

    use crate::git::strip_credentials;
    use crate::git::test_support::Fixture;

    #[test]
    fn configuration_values_come_from_the_repository_and_its_includes() {
        let fx = Fixture::new();
        std::fs::write(fx.path().join(".git/extra.config"), "[speccoder]\n\tsigner = ssh\n").unwrap();
        fx.git(&["config", "include.path", "extra.config"]);
        fx.git(&["config", "speccoder.store", "~/held-out"]);
        fx.git(&["config", "speccoder.absolute", "/srv/held-out"]);
        let repo = fx.repo();
        assert_eq!(repo.config_string("user.name").unwrap().as_deref(), Some("Test Person"));
        assert_eq!(repo.config_string("speccoder.signer").unwrap().as_deref(), Some("ssh"));
        assert_eq!(repo.config_string("speccoder.absent").unwrap(), None);
        assert_eq!(
            repo.config_path("speccoder.absolute").unwrap(),
            Some(std::path::PathBuf::from("/srv/held-out"))
        );
        let expanded = repo.config_path("speccoder.store").unwrap().unwrap();
        assert!(expanded.ends_with("held-out") && !expanded.starts_with("~"), "{expanded:?}");
    }

    #[test]
    fn a_value_that_is_not_utf8_is_set_never_unset() {
        use std::os::unix::ffi::OsStrExt as _;
        let fx = Fixture::new();
        let mut config = std::fs::read(fx.path().join(".git/config")).unwrap();
        config.extend_from_slice(b"[user]\n\tname = Jos\xe9\n\tsigningKey = /home/k\xe9y\n");
        std::fs::write(fx.path().join(".git/config"), config).unwrap();
        let repo = fx.repo();
        let err = repo.config_string("user.name").unwrap_err().to_string();
        assert!(err.contains("`user.name` is set, but its value is not UTF-8"), "{err}");
        assert!(repo.config_is_set("user.signingKey"));
        let key = repo.config_os_string("user.signingKey").unwrap().unwrap();
        assert_eq!(key.as_bytes(), b"/home/k\xe9y");
        assert_eq!(repo.config_os_string("user.absent").unwrap(), None);
    }

    /// git refuses a key given alone where it reads a string ("missing value for"): the last
    /// entry decides, whichever file or scope sets it, and an earlier value is never taken for it.
    #[test]
    fn a_key_given_alone_last_is_refused_naming_where_it_is_set_and_a_value_after_it_is_taken() {
        let fx = Fixture::new();
        fx.git(&["config", "user.signingKey", "/keys/k1"]);
        let mut config = std::fs::read(fx.path().join(".git/config")).unwrap();
        config.extend_from_slice(b"[user]\n\tsigningKey\n[gpg \"ssh\"]\n\tallowedSignersFile\n");
        std::fs::write(fx.path().join(".git/config"), config).unwrap();
        let repo = fx.repo();
        let local = std::fs::canonicalize(fx.path().join(".git/config")).unwrap();
        for err in [
            repo.config_os_string("user.signingKey").unwrap_err(),
            repo.config_string("user.signingkey").unwrap_err(),
            repo.config_path("gpg.ssh.allowedSignersFile").unwrap_err(),
        ] {
            assert!(matches!(err, crate::git::GitError::ConfigWithoutValue { .. }), "{err:?}");
            assert_eq!(crate::exit::ExitClass::class(&err), crate::exit::Class::Config);
            let said = err.to_string();
            assert!(
                said.contains("is given without a value") && said.contains("missing value for"),
                "{said}"
            );
            assert!(said.contains(&format!("set in {}", local.display())), "{said}");
        }
        assert!(repo.config_is_set("user.signingKey"));
        fx.git(&["config", "--add", "user.signingKey", "/keys/k2"]);
        assert_eq!(fx.repo().config_string("user.signingKey").unwrap().as_deref(), Some("/keys/k2"));
    }

    #[test]
    fn the_origin_url_loses_its_credentials() {
        let fx = Fixture::new();
        let repo = fx.repo();
        assert_eq!(repo.origin_url_without_credentials(), None);
        fx.git(&["remote", "add", "origin", "https://user:s3cret@github.com/acme/app.git"]);
        let repo = fx.repo();
        assert_eq!(repo.origin_url_without_credentials().as_deref(), Some("https://github.com/acme/app.git"));
    }

    #[test]
    fn credentials_are_stripped_from_every_url_shape() {
        let cases = [
            ("https://github.com/acme/app.git", Some("https://github.com/acme/app.git")),
            ("https://user:pw@github.com/acme/app.git", Some("https://github.com/acme/app.git")),
            ("https://ghp_token@github.com/acme/app.git", Some("https://github.com/acme/app.git")),
            (
                "https://oauth2:glpat-0123456789abcdefghij@gitlab.com/g/p.git",
                Some("https://gitlab.com/g/p.git"),
            ),
            ("HTTP://u:p@host:8080/r?x=1", Some("HTTP://host:8080/r")),
            ("https://u:p@w@host/r", Some("https://host/r")),
            (
                "https://gitlab.example.com/g/p.git?private_token=0123456789abcdefghij",
                Some("https://gitlab.example.com/g/p.git"),
            ),
            ("https://host/r.git#access_token=abc", Some("https://host/r.git")),
            ("https://host?token=abc", Some("https://host")),
            ("git://token@host/r.git", Some("git://host/r.git")),
            ("ssh://git@github.com/acme/app.git", Some("ssh://git@github.com/acme/app.git")),
            ("ssh://git:pw@github.com/acme/app.git", Some("ssh://git@github.com/acme/app.git")),
            ("git+ssh://git:pw@host/r", Some("git+ssh://git@host/r")),
            ("git@github.com:acme/app.git", Some("ssh://git@github.com/acme/app.git")),
            ("user:pw@host:repo.git", Some("ssh://host/repo.git")),
            ("host:/srv/git/app.git", Some("ssh://host/srv/git/app.git")),
            ("host:~ada/app.git", Some("ssh://host/~ada/app.git")),
            ("git@[host:2222]:acme/app.git", Some("ssh://git@host:2222/acme/app.git")),
            ("[::1]:app.git", Some("ssh://[::1]/app.git")),
            ("[host:2222]:app.git", Some("ssh://host:2222/app.git")),
            ("[host]:app.git", Some("ssh://host/app.git")),
            ("host:a#b?c%d/é.git", Some("ssh://host/a%23b%3Fc%25d/%C3%A9.git")),
            ("/srv/git/app.git", None),
            ("../app", None),
            ("./app.git", None),
            ("app.git", None),
            ("dir/with:colon", None),
            ("C:\\repos\\app", None),
            ("C:/repos/app", None),
            ("file:///srv/git/app.git", None),
            ("FILE://localhost/srv/git/app.git", None),
            ("https://host/a b", None),
            ("https://host/a\nb", None),
            ("", None),
        ];
        for (url, expected) in cases {
            assert_eq!(strip_credentials(url).as_deref(), expected, "{url:?}");
        }
    }

    /// What `git fetch-pack --diag-url` says git 2.47 connects to for each, and `None` where no
    /// URI says that, or git drops or misreads part of the spelling.
    #[test]
    fn a_bracketed_scp_like_url_is_published_as_git_connects_to_it() {
        let cases = [
            // User, host and port inside the brackets: ssh `-p 22 git@host`, path `x.git`.
            ("[git@host:22]:x.git", Some("ssh://git@host:22/x.git")),
            ("[git@host:22]:/srv/x.git", Some("ssh://git@host:22/srv/x.git")),
            ("[git@host]:x.git", Some("ssh://git@host/x.git")),
            ("[h:0022]:x", Some("ssh://h:0022/x")),
            ("[fe80::1]:x", Some("ssh://[fe80::1]/x")),
            ("u@h@[k:1]:x", Some("ssh://u%40h@k:1/x")),
            // git reads these otherwise than they are spelt: a password with the port taken for
            // the host, text after `]` dropped, a bracket in the user, no port of 99999.
            ("[u:pw@host:22]:x", None),
            ("u:pw@[host:22]:x", None),
            ("u@[h]x:y", None),
            ("[a@[b]:c", None),
            ("host:p@[x]:y", None),
            ("[h:99999]:x", None),
            ("[h:+22]:x", None),
            ("[@h]:x", None),
            ("[u@]:x", None),
            ("u@[h:x", None),
        ];
        for (url, expected) in cases {
            assert_eq!(strip_credentials(url).as_deref(), expected, "{url:?}");
        }
    }
}
