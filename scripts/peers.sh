#!/usr/bin/env bash
# Installs the independent peers the tests check our output with: git, ssh-keygen, gpg, sqv, jq
# and strace, which delivers a signal at a chosen system call (Debian packages), the pinned
# OpenSpec CLI (npm, into .peers/ of this checkout), and the pinned securesystemslib and
# sigstore-python (PyPI, into the venv .peers/venv; scripts/peers-python.txt).
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
command -v strace >/dev/null || need+=(strace)
command -v npm >/dev/null || need+=(npm)
command -v python3 >/dev/null || need+=(python3)
python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)
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
# Reinstalled whole when scripts/peers-python.txt changes (its copy in the venv says what is there).
if [ ! -x .peers/venv/bin/python ] || ! cmp -s scripts/peers-python.txt .peers/venv/peers-python.txt; then
  echo "peers: installing securesystemslib and sigstore-python into .peers/venv"
  rm -rf .peers/venv
  python3 -m venv .peers/venv
  .peers/venv/bin/pip install --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    -r scripts/peers-python.txt
  cp scripts/peers-python.txt .peers/venv/peers-python.txt
fi
echo "peers: git $(git --version | cut -d' ' -f3), $(ssh -V 2>&1 | cut -d, -f1), gpg $(gpg --version | head -1 | cut -d' ' -f3), sqv $(sqv --version 2>/dev/null | cut -d' ' -f2), openspec $(.peers/node_modules/.bin/openspec --version), $(.peers/venv/bin/pip list --format=freeze 2>/dev/null | grep -E '^(securesystemslib|sigstore)==' | tr '\n' ' ')"
