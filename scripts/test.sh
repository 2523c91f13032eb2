#!/usr/bin/env bash
# The project's test command (README "Test"): the whole Rust test suite, then the
# Fairy-Stockfish oracle for Gardner when pyffish is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace
if python3 -c 'import pyffish' 2>/dev/null; then
  # `cargo test` built the CLI for its integration tests (test profile, optimised).
  python3 scripts/gardner_oracle.py --bin "${CARGO_TARGET_DIR:-target}/debug/fairylab" --positions 2000
else
  echo "pyffish not installed: skipping the Gardner oracle (pip install pyffish)" >&2
fi
