//! Author and committer identities as git forms them: gix's lookup of name and email, cleaned by
//! git's rules, and `GIT_AUTHOR_DATE` / `GIT_COMMITTER_DATE` or the current local time for the date.

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

/// The keys git's identity is configured by, each of which git refuses given without a value,
/// whichever identity it forms.
const IDENTITY_KEYS: [&str; 6] =
    ["user.name", "user.email", "author.name", "author.email", "committer.name", "committer.email"];

impl Repo {
    /// The identity for `role` as gix looks it up (the `GIT_*` environment, `author.*` /
    /// `committer.*`, `user.*`, `EMAIL`), cleaned as git cleans it, and dated now unless the
    /// environment fixes the date.
    ///
    /// # Errors
    /// [`GitError::ConfigWithoutValue`] for an identity key given without a value (git refuses
    /// it before it reads the others); [`GitError::IdentityMissing`],
    /// [`GitError::EmptyIdentityName`], [`GitError::BadDate`].
    pub(crate) fn signature(&self, role: Role) -> Result<gix::actor::Signature, GitError> {
        for key in IDENTITY_KEYS {
            self.config_value(key)?;
        }
        let found = match role {
            Role::Author => self.inner.author(),
            Role::Committer => self.inner.committer(),
        };
        let Some(Ok(found)) = found else {
            return Err(GitError::IdentityMissing { role: role.name(), env: role.env() });
        };
        let name = without_crud(found.name);
        if name.is_empty() {
            return Err(GitError::EmptyIdentityName { role: role.name() });
        }
        let email = without_crud(found.email);
        Ok(gix::actor::Signature { name, email, time: self.date(role)? })
    }

    /// Who moved a reference, for its reflog entry: the committer, dated now, as for a commit;
    /// without one (a fresh CI checkout has no `user.name` or `user.email`), a fallback identity,
    /// as git logs a reference update under one rather than refuse it. Only a commit needs an
    /// identity ([`Repo::signature`]); a fast-forward or a remote-tracking copy does not.
    ///
    /// The fallback is gix's generic one (`no name configured <noEmailAvailable@example.com>`,
    /// with whatever part of an identity is configured), set on a copy of the repository so that
    /// commits still require a configured identity; a date the environment sets but that cannot
    /// be read is replaced by now.
    pub(crate) fn reflog_signature(&self) -> gix::actor::Signature {
        if let Ok(committer) = self.signature(Role::Committer) {
            return committer;
        }
        let time = self.date(Role::Committer).unwrap_or_else(|_| gix::date::Time::now_local_or_utc());
        let mut repo = self.inner.clone();
        let (name, email) = match repo.committer_or_set_generic_fallback() {
            Ok(found) => (without_crud(found.name), without_crud(found.email)),
            Err(_) => (BString::default(), BString::default()),
        };
        // An empty name or email (configured so, or unreadable) still makes a valid reflog line.
        gix::actor::Signature { name, email, time }
    }

    /// The date of a `role` signature made now: the environment's (`GIT_AUTHOR_DATE`,
    /// `GIT_COMMITTER_DATE`) when set, else the current time in the local time zone.
    ///
    /// Taken here rather than from gix's lookup because gix dates an identity once, when the
    /// repository is opened, and takes a date it cannot parse for no date at all; git dates each
    /// commit when it is made and refuses a bad date.
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
