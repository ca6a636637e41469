//! Configuration values and the origin URL without credentials.

use super::fixture::Fixture;
use crate::git::strip_credentials;

#[test]
fn configuration_values_come_from_the_repository_and_its_includes() {
    let fx = Fixture::new();
    std::fs::write(fx.path().join(".git/extra.config"), "[speccoder]\n\tsigner = ssh\n").unwrap();
    fx.git(&["config", "include.path", "extra.config"]);
    fx.git(&["config", "speccoder.store", "~/held-out"]);
    fx.git(&["config", "speccoder.absolute", "/srv/held-out"]);
    let repo = fx.repo();
    assert_eq!(repo.config_string("user.name").as_deref(), Some("Test Person"));
    assert_eq!(repo.config_string("speccoder.signer").as_deref(), Some("ssh"));
    assert_eq!(repo.config_string("speccoder.absent"), None);
    assert_eq!(
        repo.config_path("speccoder.absolute").unwrap(),
        Some(std::path::PathBuf::from("/srv/held-out"))
    );
    let expanded = repo.config_path("speccoder.store").unwrap().unwrap();
    assert!(expanded.ends_with("held-out") && !expanded.starts_with("~"), "{expanded:?}");
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
        ("https://oauth2:glpat-0123456789abcdefghij@gitlab.com/g/p.git", Some("https://gitlab.com/g/p.git")),
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
        ("git@github.com:acme/app.git", Some("git@github.com:acme/app.git")),
        ("user:pw@host:repo.git", Some("host:repo.git")),
        ("host:/srv/git/app.git", Some("host:/srv/git/app.git")),
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
