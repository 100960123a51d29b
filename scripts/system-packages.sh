#!/usr/bin/env bash
# The Debian packages the test suite needs beside node_modules, installed when missing (npm test's
# pretest and .ci/run both start here, so the README's test command alone sets up a fresh machine):
#   chromium    the browser tests (playwright-core drives Debian's Chromium; CHROMIUM_PATH overrides)
#   cmake, g++  building upstream llama.cpp's server from node-llama-cpp's bundled source
#   git         cloning that source bundle
#   ShellCheck  (package shellcheck) lints the SLURM scripts `plan --format slurm` writes
#   bsdutils    script(1): the hang-up test on a real pty
#   util-linux  setpriv: the unreadable-folder test when the suite runs as root
# As root (or with password-less sudo) and apt-get, missing ones are installed; otherwise this stops
# at once, before the long llama.cpp build, with the exact command to run.
set -euo pipefail

missing=()
need() { command -v "$1" >/dev/null 2>&1 || missing+=("$2"); }
if [[ -n "${CHROMIUM_PATH:-}" && -x "${CHROMIUM_PATH}" ]]; then :; else need chromium chromium; fi
need cmake cmake
need g++ g++
need git git
need shellcheck shellcheck
need script bsdutils
need setpriv util-linux
[[ ${#missing[@]} -eq 0 ]] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "servebench tests: missing ${missing[*]} (Debian package names), and this machine has no apt-get: install them with its package manager, then run npm test again." >&2
  exit 1
fi
uid=$(id -u)
if [[ "${uid}" = 0 ]]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo=(sudo)
else
  echo "servebench tests: missing Debian packages ${missing[*]}; install them, then run npm test again:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
  exit 1
fi
echo "servebench tests: installing ${missing[*]} (apt-get)…" >&2
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
