//! The empty directory a new one replaces ([`super::NewDir`]): only this user's is replaced, and
//! the new directory keeps its owner, its group (a team's directory stays the team's) and its
//! permissions, or the replacement is refused.

/// The empty directory at a path when a new one was started there, as it was then.
#[derive(Debug, Clone)]
pub(super) struct Replaced {
    /// Its metadata, read without following a link.
    meta: std::fs::Metadata,
}

/// What of the empty directory a new one put in its place could not keep.
#[derive(Debug, thiserror::Error)]
pub enum Unkept {
    /// The directory is another user's (its user id): one of this user's would take its place,
    /// and its owner would lose it.
    #[error(
        "it is an empty directory of another user (uid {0}), which is never replaced by one of this user's"
    )]
    Owner(u32),
    /// The new directory could not be given the group or the permissions of the empty one.
    #[error(
        "it is an empty directory whose {what} the new directory put in its place could not be given ({reason})"
    )]
    Attribute {
        /// What, with its value: `group (gid 50)`, `permissions (2770)`.
        what: String,
        /// The system's reason.
        reason: String,
    },
}

impl Replaced {
    /// The empty directory of metadata `meta`.
    pub(super) fn of(meta: std::fs::Metadata) -> Replaced {
        Replaced { meta }
    }

    /// Its permissions.
    pub(super) fn permissions(&self) -> std::fs::Permissions {
        self.meta.permissions()
    }
}

#[cfg(unix)]
impl Replaced {
    /// Gives `new` (the new directory, opened), which this user made, the group of this one, and
    /// then `mode` (this one's permissions, as its owner writes into it meanwhile), so that the
    /// files written into it get what files written into this one get (its group, through a
    /// set-group-ID bit).
    ///
    /// # Errors
    /// [`Unkept::Owner`] when this one is another user's; [`Unkept::Attribute`] when its group
    /// cannot be given (this user is in no such group).
    pub(super) fn give_owner_and_group(
        &self,
        new: &std::fs::File,
        mode: std::fs::Permissions,
    ) -> Result<(), Unkept> {
        use std::os::unix::fs::MetadataExt as _;
        let group = || format!("group (gid {})", self.meta.gid());
        let made = new.metadata().map_err(|e| unkept(format!("owner (uid {})", self.meta.uid()), &e))?;
        if made.uid() != self.meta.uid() {
            return Err(Unkept::Owner(self.meta.uid()));
        }
        if made.gid() != self.meta.gid() {
            std::os::unix::fs::fchown(new, None, Some(self.meta.gid())).map_err(|e| unkept(group(), &e))?;
        }
        new.set_permissions(mode).map_err(|e| unkept(group(), &e))?;
        let given = new.metadata().map_err(|e| unkept(group(), &e))?;
        if given.gid() == self.meta.gid() {
            Ok(())
        } else {
            Err(Unkept::Attribute { what: group(), reason: format!("it has gid {}", given.gid()) })
        }
    }

    /// Gives `new` (the new directory, opened) the permissions of this one, whole (a
    /// set-group-ID bit too).
    ///
    /// # Errors
    /// [`Unkept::Attribute`]: the system refused them, or kept other bits.
    pub(super) fn give_permissions(&self, new: &std::fs::File) -> Result<(), Unkept> {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = self.meta.permissions().mode() & 0o7777;
        let what = || format!("permissions ({mode:o})");
        new.set_permissions(self.meta.permissions()).map_err(|e| unkept(what(), &e))?;
        let given = new.metadata().map_err(|e| unkept(what(), &e))?.permissions().mode() & 0o7777;
        if given == mode {
            Ok(())
        } else {
            Err(Unkept::Attribute { what: what(), reason: format!("it has {given:o}") })
        }
    }
}

/// Elsewhere a directory has no owner or group to keep.
#[cfg(not(unix))]
impl Replaced {
    /// Gives `new` `mode`.
    pub(super) fn give_owner_and_group(
        &self,
        new: &std::fs::File,
        mode: std::fs::Permissions,
    ) -> Result<(), Unkept> {
        new.set_permissions(mode).map_err(|e| unkept("permissions".to_owned(), &e))
    }

    /// Gives `new` the permissions of this one.
    pub(super) fn give_permissions(&self, new: &std::fs::File) -> Result<(), Unkept> {
        new.set_permissions(self.permissions()).map_err(|e| unkept("permissions".to_owned(), &e))
    }
}

/// [`Unkept::Attribute`] for `what`, which failed with `e`.
fn unkept(what: String, e: &std::io::Error) -> Unkept {
    Unkept::Attribute { what, reason: super::reason::of(e) }
}
