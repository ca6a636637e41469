//! Tests against real repositories made with the real `git` binary in temporary directories.

mod commits;
mod config;
mod fixture;
mod index;
mod notes;
mod trailers;
mod tree;

#[test]
fn git_errors_can_cross_threads() {
    fn send_sync<T: Send + Sync + 'static>() {}
    send_sync::<crate::git::GitError>();
}
