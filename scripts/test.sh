#!/usr/bin/env bash
# The project's test command (README "Test"): the whole Rust test suite, the Fairy-Stockfish
# oracles (Gardner, custom fairy pieces) when pyffish is installed, and the web page's tests in headless Chromium
# when Debian's chromium and npm are there.
set -euo pipefail
cd "$(dirname "$0")/.."
# The tests' temporary files (databases, tables, records, browser profiles) in one directory of
# this run, removed at its end, whatever the result: a run leaves nothing in /tmp.
TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/fairylab-test-XXXXXX")
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT
cargo test --workspace
if python3 -c 'import pyffish' 2>/dev/null; then
  # `cargo test` built the CLI for its integration tests (test profile, optimised).
  python3 scripts/gardner_oracle.py --bin "${CARGO_TARGET_DIR:-target}/debug/fairylab" --positions 2000
  # Custom fairy pieces (leapers, riders, chiral pieces, narrow-board castling) the same way.
  python3 scripts/fairy_oracle.py --bin "${CARGO_TARGET_DIR:-target}/debug/fairylab"
else
  echo "pyffish not installed: skipping the Fairy-Stockfish oracles (pip install pyffish)" >&2
fi

# The web page end to end in headless Chromium (web-tests/: playwright-core from npm).
# Paths made absolute here: the tests run from web-tests/.
target="${CARGO_TARGET_DIR:-target}"
case "$target" in /*) ;; *) target="$PWD/$target" ;; esac
if [ -x /usr/bin/chromium ] && command -v npm >/dev/null; then
  (cd web-tests && npm ci --no-audit --no-fund --silent && FAIRYLAB_BIN="$target/debug/fairylab" \
    FAIRYLAB_SCREENSHOTS="$target/web-screenshots" node --test e2e.test.mjs sha256.test.mjs)
elif command -v node >/dev/null; then
  echo "chromium or npm missing: skipping the web page's browser tests (apt-get install chromium)" >&2
  (cd web-tests && node --test sha256.test.mjs)
else
  echo "node missing: skipping the web page's tests" >&2
fi
