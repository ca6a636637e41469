#!/usr/bin/env bash
# The bundled example, end to end: builds speccoder, copies the Spec Kit example
# (fixtures/speckit) into a temporary git repository, makes a throwaway SSH key, attests task
# T005 with the bundled evidence (fixtures/evidence/verified.json + red.log), shows the task
# commit's trailers and the note, decodes one statement, and checks one line with ssh-keygen.
# Nothing outside the temporary directory is touched; it is removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

for tool in git ssh-keygen jq; do
  command -v "$tool" >/dev/null || { bash scripts/peers.sh; break; }
done

speccoder() { cargo run --quiet --locked --manifest-path "$root/Cargo.toml" -- "$@"; }
step() { printf '\n== %s\n' "$*"; }

step "build, and check that the published schemas match the types"
speccoder schema --check --out "$root/schema"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Keep the machine's git configuration out of the example.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$work/gitconfig"
: >"$work/gitconfig"
unset SSH_AUTH_SOCK

step "a Spec Kit project in a fresh repository"
repo=$work/bookmarks
source scripts/example-repo.sh
example_repo "$repo"
git -C "$repo" log --oneline

step "a throwaway ed25519 key, and the verifier's allowed-signers file"
ssh-keygen -q -t ed25519 -N '' -C ada@example.com -f "$work/ada"
printf 'ada@example.com namespaces="in-toto" %s\n' "$(cat "$work/ada.pub")" >"$work/allowed_signers"
cat "$work/allowed_signers"

step "the runner's evidence for task T005 (red output beside it)"
task=001-bookmark-tags/T005
mkdir "$work/run"
jq --arg task "$task" '.task = $task' fixtures/evidence/verified.json >"$work/run/evidence.json"
cp fixtures/evidence/red.log "$work/run/red.log"
jq -c '.phases[] | {phase, result}' "$work/run/evidence.json"

step "speccoder attest $task"
speccoder -C "$repo" attest "$task" --evidence "$work/run/evidence.json" --key "$work/ada"

step "the task commit (git log -1 --format=%B)"
git -C "$repo" log -1 --format=%B
step "its trailers as git reads them (git interpret-trailers --parse)"
git -C "$repo" log -1 --format=%B | git interpret-trailers --parse

step "the note (git notes --ref=speccoder show HEAD): one DSSE envelope per line, shortened here"
git -C "$repo" notes --ref=speccoder show HEAD >"$work/note"
awk '{ printf "%s... (%d bytes)\n", substr($0, 1, 96), length($0) }' "$work/note"

step "the task-verification statement, decoded from its line (jq + base64)"
tv=$(jq -r '.payload | @base64d | fromjson | .predicateType' "$work/note" |
  grep -n -x https://speccoder.dev/task-verification/v0 | cut -d: -f1)
sed -n "${tv}p" "$work/note" | jq -r .payload | base64 -d | jq .

step "ssh-keygen -Y verify of the summary line, over PAE bytes built here"
sed -n '$p' "$work/note" >"$work/line"
jq -r .payload "$work/line" | base64 -d >"$work/payload"
jq -r '.signatures[0].sig' "$work/line" | base64 -d >"$work/line.sig"
type=$(jq -r .payloadType "$work/line")
{
  printf 'DSSEv1 %d %s %d ' "$(printf '%s' "$type" | wc -c)" "$type" "$(wc -c <"$work/payload")"
  cat "$work/payload"
} >"$work/pae"
ssh-keygen -Y verify -f "$work/allowed_signers" -I ada@example.com -n in-toto -s "$work/line.sig" <"$work/pae"

step "speccoder attest verify --branch --all: the example holds against the verifier's own trust"
speccoder -C "$repo" attest verify --branch --all --allowed-signers "$work/allowed_signers"

step "a tampered copy: the signed verdict's trailer edited by amend, its note copied along"
tampered=$work/tampered
git clone -q "$repo" "$tampered"
git -C "$tampered" fetch -q origin refs/notes/speccoder:refs/notes/speccoder
git -C "$tampered" config user.name "Mallory"
git -C "$tampered" config user.email mallory@example.com
git -C "$tampered" log -1 --format=%B | sed 's/^Verdict: verified$/Verdict: regression_only/' >"$work/msg"
git -C "$tampered" commit -q --amend -F "$work/msg"
git -C "$tampered" notes --ref=speccoder copy "$(git -C "$repo" rev-parse HEAD)" HEAD
if speccoder -C "$tampered" attest verify --branch --all --allowed-signers "$work/allowed_signers"; then
  echo "the tampered copy verified: that is a bug" >&2
  exit 1
fi
echo "(the tampered copy fails, as it must: exit 26)"
