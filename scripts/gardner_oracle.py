#!/usr/bin/env python3
"""Differential test of fairylab's Gardner move generator against Fairy-Stockfish (pyffish).

1. Plays seeded random games from the Gardner start with pyffish (game lengths vary, a game
   stops early at its end: no legal move, an immediate variant end, or the 50-move clock at 100)
   and collects --positions distinct positions (distinct by the first four FEN fields; the
   positions without a legal move are kept: they test the empty answer).
2. Writes them to a temporary file, one FEN per line, and runs fairylab once:
       FAIRYLAB_BIN moves --variant gardner --batch FILE
   which must print exactly one line per FEN: its legal moves in UCI, sorted ascending,
   space-separated (an empty line when there is none).
3. Compares each line with pyffish's legal moves for the same FEN.

Prints "N positions, M mismatches"; exit 0 when all agree, 1 on any mismatch (the first few are
shown with FEN, missing and extra moves), 2 when fairylab cannot be run or its output does not
have one line per FEN.

Conventions checked against pyffish 0.0.90 (Fairy-Stockfish core), variant "gardner":
- pyffish writes Gardner FENs as 5 ranks of 5 squares, "rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1";
  castling is always "-", and so is en passant (no double step). The script normalises anyway:
  it drops any "~" promoted marker and any "[...]" pocket (pyffish writes neither for gardner)
  and refuses a FEN that is not 6 fields of 5 ranks.
- UCI moves: "a1b2"; promotions with a lower-case piece letter, "b4b5q" (also n, b, r). No
  castling, no drops. The comparison is on the sorted move lists, so order and duplicates in
  fairylab's line count as mismatches too.

Usage: scripts/gardner_oracle.py [--bin PATH] [--positions N] [--seed S] [--keep FILE]
FAIRYLAB_BIN in the environment is used when --bin is not given; the default is
target/release/fairylab.
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

try:
    import pyffish as sf  # noqa: F401 (fairy_oracle uses it)
except ImportError:  # pragma: no cover
    sys.exit("gardner_oracle: pyffish is not installed (pip install pyffish)")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fairy_oracle  # noqa: E402 (the random games are generated the same way)

VARIANT = "gardner"


def normalise(fen):
    """Return pyffish's FEN in the project's form (see the module doc) or raise ValueError."""
    fields = fen.split()
    if len(fields) != 6:
        raise ValueError(f"not a 6-field FEN: {fen!r}")
    board = fields[0]
    if "[" in board:
        board = board[: board.index("[")]
    board = board.replace("~", "")
    ranks = board.split("/")
    if len(ranks) != 5:
        raise ValueError(f"not 5 ranks: {fen!r}")
    for r in ranks:
        width = sum(int(c) if c.isdigit() else 1 for c in r)
        if width != 5:
            raise ValueError(f"rank {r!r} is not 5 squares wide: {fen!r}")
    fields[0] = board
    return " ".join(fields)


def generate(n, seed):
    """Return a list of (fen, sorted legal moves) with n distinct positions."""
    return fairy_oracle.generate(VARIANT, n, random.Random(seed), normalise)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.environ.get("FAIRYLAB_BIN", "target/release/fairylab"),
                    help="fairylab binary (default: $FAIRYLAB_BIN or target/release/fairylab)")
    ap.add_argument("--positions", type=int, default=2000, help="distinct positions (default 2000)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--show", type=int, default=5, help="mismatches to print (default 5)")
    ap.add_argument("--keep", metavar="FILE", help="also write the FEN list to FILE")
    ap.add_argument("--timeout", type=float, default=600, help="seconds for the fairylab run")
    args = ap.parse_args()

    cases = generate(args.positions, args.seed)
    text = "".join(fen + "\n" for fen, _ in cases)
    if args.keep:
        with open(args.keep, "w") as f:
            f.write(text)

    with tempfile.NamedTemporaryFile("w", suffix=".fens", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        cmd = [args.bin, "moves", "--variant", VARIANT, "--batch", path]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
        except (OSError, subprocess.TimeoutExpired) as e:
            print(f"gardner_oracle: cannot run {' '.join(cmd)}: {e}", file=sys.stderr)
            return 2
    finally:
        os.unlink(path)
    if proc.returncode != 0:
        print(f"gardner_oracle: {' '.join(cmd)} exited {proc.returncode}\n{proc.stderr[-2000:]}",
              file=sys.stderr)
        return 2
    lines = proc.stdout.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) != len(cases):
        print(f"gardner_oracle: {len(cases)} FENs in, {len(lines)} lines out", file=sys.stderr)
        return 2

    mismatches = []
    for (fen, want), line in zip(cases, lines):
        got = line.split()
        if got != want:
            missing = sorted(set(want) - set(got))
            extra = sorted(set(got) - set(want))
            note = ""
            if not missing and not extra:
                note = "same moves, but not sorted ascending or with duplicates"
            mismatches.append((fen, missing, extra, note, line))

    print(f"{len(cases)} positions, {len(mismatches)} mismatches")
    for fen, missing, extra, note, line in mismatches[: args.show]:
        print(f"  FEN     {fen}")
        print(f"  missing {' '.join(missing) or '-'}")
        print(f"  extra   {' '.join(extra) or '-'}")
        if note:
            print(f"  note    {note}: {line!r}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
