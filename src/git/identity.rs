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
    /// Where gix keeps the date taken from the environment.
    fn date_key(self) -> &'static str {
        match self {
            Role::Author => "gitoxide.commit.authorDate",
            Role::Committer => "gitoxide.commit.committerDate",
        }
    }
}

impl Repo {
    /// The identity for `role`, dated now unless the environment fixes the date.
    ///
    /// gix caches a date when the repository is opened; we take the date at the time of the call
    /// instead, as git does for each command.
    pub(crate) fn signature(&self, role: Role) -> Result<gix::actor::Signature, GitError> {
        let missing = || GitError::IdentityMissing { role: role.name(), env: role.env() };
        let configured = match role {
            Role::Author => self.inner.author(),
            Role::Committer => self.inner.committer(),
        };
        // Only name and email are taken from gix: its date is the one of the moment the
        // repository was opened.
        let (name, email) = match configured {
            Some(Ok(sig)) => (sig.name.to_owned(), sig.email.to_owned()),
            Some(Err(_)) | None => return Err(missing()),
        };
        let name = without_crud(&name);
        let email = without_crud(&email);
        if name.is_empty() {
            return Err(GitError::EmptyIdentityName { role: role.name() });
        }
        let time = self.date(role)?;
        Ok(gix::actor::Signature { name, email, time })
    }

    fn date(&self, role: Role) -> Result<gix::date::Time, GitError> {
        let Some(value) = self.inner.config_snapshot().string(role.date_key()) else {
            return Ok(gix::date::Time::now_local_or_utc());
        };
        let bad =
            || GitError::BadDate { variable: role.date_variable(), value: value.to_str_lossy().into_owned() };
        let text = value.to_str().map_err(|_| bad())?;
        gix::date::parse(text.trim(), Some(gix::date::Zoned::now())).map_err(|_| bad())
    }
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
