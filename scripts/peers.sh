#!/usr/bin/env bash
# Installs the independent peers the tests check our output with: git, ssh-keygen, gpg, sqv, jq
# (Debian packages) and the pinned OpenSpec CLI (npm, into .peers/ of this checkout).
# Safe to run again: it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

OPENSPEC_VERSION=1.13.2

need=()
command -v git >/dev/null || need+=(git)
command -v ssh-keygen >/dev/null || need+=(openssh-client)
command -v gpg >/dev/null || need+=(gnupg)
command -v sqv >/dev/null || need+=(sqv)
command -v jq >/dev/null || need+=(jq)
command -v npm >/dev/null || need+=(npm)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "peers: installing ${need[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi

if [ ! -x .peers/node_modules/.bin/openspec ] ||
   [ "$(.peers/node_modules/.bin/openspec --version 2>/dev/null)" != "$OPENSPEC_VERSION" ]; then
  echo "peers: installing @fission-ai/openspec@$OPENSPEC_VERSION into .peers/"
  mkdir -p .peers
  npm install --silent --no-audit --no-fund --prefix .peers "@fission-ai/openspec@$OPENSPEC_VERSION" >/dev/null
fi
echo "peers: git $(git --version | cut -d' ' -f3), $(ssh -V 2>&1 | cut -d, -f1), gpg $(gpg --version | head -1 | cut -d' ' -f3), sqv $(sqv --version 2>/dev/null | cut -d' ' -f2), openspec $(.peers/node_modules/.bin/openspec --version)"
