# Sourced by scripts/example.sh (from the crate root):
# `example_repo DIR` copies the bundled Spec Kit example (fixtures/speckit) to DIR and commits it
# once on `main` as Ada Lovelace.
example_repo() {
  cp -R fixtures/speckit "$1"
  git -C "$1" init -q -b main
  git -C "$1" config user.name "Ada Lovelace"
  git -C "$1" config user.email ada@example.com
  git -C "$1" add -A
  git -C "$1" commit -q -m "Bookmark tags: spec, plan and tasks"
}
