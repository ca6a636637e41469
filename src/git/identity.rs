//! Author and committer identities as git forms them: configuration and `GIT_*` environment for
//! name and email, `GIT_AUTHOR_DATE` / `GIT_COMMITTER_DATE` or the current local time for the date.

use gix::bstr::{BString, ByteSlice};

use super::error::GitError;
use super::repo::Repo;

/// Which identity of a commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// The author line.
    Author,
    /// The committer line (also used for reflog entries).
    Committer,
}

impl Role {
    fn name(self) -> &'static str {
        match self {
            Role::Author => "author",
            Role::Committer => "committer",
        }
    }
    fn env(self) -> &'static str {
        match self {
            Role::Author => "AUTHOR",
            Role::Committer => "COMMITTER",
        }
    }
    fn date_variable(self) -> &'static str {
        match self {
            Role::Author => "GIT_AUTHOR_DATE",
            Role::Committer => "GIT_COMMITTER_DATE",
        }
    }
    /// The configuration keys that give the name, first found wins (`author.name` and
    /// `committer.name` carry `GIT_AUTHOR_NAME` / `GIT_COMMITTER_NAME` when set, as gix applies
    /// environment overrides to them).
    fn name_keys(self) -> [&'static str; 3] {
        match self {
            Role::Author => ["author.name", "user.name", "gitoxide.author.nameFallback"],
            Role::Committer => ["committer.name", "user.name", "gitoxide.committer.nameFallback"],
        }
    }
    /// The keys that give the email, first found wins (`gitoxide.user.emailFallback` is `EMAIL`).
    fn email_keys(self) -> [&'static str; 4] {
        match self {
            Role::Author => {
                ["author.email", "user.email", "gitoxide.user.emailFallback", "gitoxide.author.emailFallback"]
            }
            Role::Committer => [
                "committer.email",
                "user.email",
                "gitoxide.user.emailFallback",
                "gitoxide.committer.emailFallback",
            ],
        }
    }
    /// Where gix keeps the date taken from the environment.
    fn date_key(self) -> &'static str {
        match self {
            Role::Author => "gitoxide.commit.authorDate",
            Role::Committer => "gitoxide.commit.committerDate",
        }
    }
}

/// One role's name and email (cleaned as git cleans them) and the date its environment fixes,
/// as the configuration gives them. The configuration of a [`Repo`] does not change while it is
/// open, so each role is looked up once: a tick signs a commit, a notes commit and two reflog
/// entries, and each lookup tries up to eight keys, most of them missing.
#[derive(Debug)]
pub(crate) struct Ident {
    name: BString,
    email: BString,
    /// `GIT_AUTHOR_DATE` / `GIT_COMMITTER_DATE` as gix carries it; `None`: dated at each use.
    date: Option<BString>,
}

/// The identities of a [`Repo`], each looked up on first use.
#[derive(Debug, Default)]
pub(crate) struct Idents {
    author: std::cell::OnceCell<Ident>,
    committer: std::cell::OnceCell<Ident>,
}

impl Repo {
    /// The identity for `role`, dated now unless the environment fixes the date.
    ///
    /// gix caches a date when the repository is opened; we take the date at the time of the call
    /// instead, as git does for each command.
    pub(crate) fn signature(&self, role: Role) -> Result<gix::actor::Signature, GitError> {
        let ident = self.ident(role)?;
        let time = date(role, ident.date.as_ref())?;
        Ok(gix::actor::Signature { name: ident.name.clone(), email: ident.email.clone(), time })
    }

    fn ident(&self, role: Role) -> Result<&Ident, GitError> {
        let cell = match role {
            Role::Author => &self.idents.author,
            Role::Committer => &self.idents.committer,
        };
        if let Some(ident) = cell.get() {
            return Ok(ident);
        }
        // Name and email are looked up here in gix's order (`Repository::author` /
        // `committer`) rather than through those calls: they also date the identity with
        // `Time::now_local_or_utc`, whose time zone lookup opens jiff's database and so walks the
        // whole zoneinfo directory, a fifth of what an attest costs.
        let config = self.inner.config_snapshot();
        let first = |keys: &[&str]| keys.iter().find_map(|key| config.string(*key));
        let (Some(name), Some(email)) = (first(&role.name_keys()), first(&role.email_keys())) else {
            return Err(GitError::IdentityMissing { role: role.name(), env: role.env() });
        };
        let name = without_crud(&name);
        if name.is_empty() {
            return Err(GitError::EmptyIdentityName { role: role.name() });
        }
        let date = config.string(role.date_key());
        Ok(cell.get_or_init(|| Ident { name, email: without_crud(&email), date }))
    }
}

/// The date of a `role` signature made now: `configured` (the environment's date) when set,
/// else the current time in the local time zone.
fn date(role: Role, configured: Option<&BString>) -> Result<gix::date::Time, GitError> {
    let now = jiff::Timestamp::now();
    let zone = local_time_zone();
    let Some(value) = configured else {
        let offset = zone.to_offset(now).seconds();
        return Ok(gix::date::Time { seconds: now.as_second(), offset });
    };
    let bad =
        || GitError::BadDate { variable: role.date_variable(), value: value.to_str_lossy().into_owned() };
    let text = value.to_str().map_err(|_| bad())?;
    gix::date::parse(text.trim(), Some(gix::date::Zoned::new(now, zone))).map_err(|_| bad())
}

/// The local time zone as the C library finds it: `TZ` (a zoneinfo name, a file, or a POSIX
/// rule; empty means UTC), else `/etc/localtime`; UTC when none of them can be read. Read once a
/// process, as the C library does: a tick dates a commit, a notes commit and reflog entries.
///
/// Written here, over jiff's TZif and POSIX parsers, because `jiff::tz::TimeZone::system` opens
/// jiff's zone database to name the zone, which lists every file under the zoneinfo directory;
/// a commit date needs only the offset.
fn local_time_zone() -> jiff::tz::TimeZone {
    static ZONE: std::sync::OnceLock<jiff::tz::TimeZone> = std::sync::OnceLock::new();
    ZONE.get_or_init(read_local_time_zone).clone()
}

fn read_local_time_zone() -> jiff::tz::TimeZone {
    use jiff::tz::TimeZone;
    let from_file = |path: &std::path::Path| {
        std::fs::read(path).ok().and_then(|bytes| TimeZone::tzif("Local", &bytes).ok())
    };
    let Some(tz) = std::env::var_os("TZ") else {
        return from_file(std::path::Path::new("/etc/localtime")).unwrap_or(TimeZone::UTC);
    };
    let Some(tz) = tz.to_str() else { return TimeZone::UTC };
    let tz = tz.strip_prefix(':').unwrap_or(tz);
    if tz.is_empty() {
        return TimeZone::UTC;
    }
    let path = std::path::Path::new(tz);
    let file = if path.is_absolute() {
        from_file(path)
    } else if path.components().all(|c| matches!(c, std::path::Component::Normal(_))) {
        let dir = std::env::var_os("TZDIR").unwrap_or_else(|| "/usr/share/zoneinfo".into());
        from_file(&std::path::Path::new(&dir).join(path))
    } else {
        None
    };
    file.or_else(|| TimeZone::posix(tz).ok()).unwrap_or(TimeZone::UTC)
}

/// Characters git strips from both ends of a name or email.
fn is_crud(c: u8) -> bool {
    c <= 32 || matches!(c, b',' | b':' | b';' | b'<' | b'>' | b'"' | b'\\' | b'\'')
}

/// Git's cleanup of an identity part: crud trimmed at both ends, `\n`, `<` and `>` dropped inside.
pub(crate) fn without_crud(raw: &[u8]) -> BString {
    let start = raw.iter().position(|&c| !is_crud(c)).unwrap_or(raw.len());
    let end = raw.iter().rposition(|&c| !is_crud(c)).map_or(start, |i| i + 1);
    raw[start..end.max(start)]
        .iter()
        .copied()
        .filter(|c| !matches!(c, b'\n' | b'<' | b'>'))
        .collect::<Vec<u8>>()
        .into()
}
