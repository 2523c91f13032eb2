#!/usr/bin/env python3
"""Differential test of fairylab's custom fairy pieces against Fairy-Stockfish (pyffish).

For every variant of VARIANTS (a fairylab variant file under tests/data/variants/ and the same
variant for pyffish in tests/data/<name>.variants.ini):

1. plays seeded random games with pyffish from the variant's start (some with a bias to captures,
   some long) and collects --positions distinct positions (by the first four FEN fields);
2. runs fairylab once: FAIRYLAB_BIN moves --variant-file FILE --batch FENS, one line of sorted
   UCI moves per FEN;
3. compares each line with pyffish's legal moves for the FEN.

It covers what a perft suite of a few positions misses (an audit found a pinned dabbaba leaping
past its pinner in 50 of 7,730 random positions): leapers and riders of every kind, chiral
pieces for both colours, promotions to fairy pieces, castling on narrow boards in
Fairy-Stockfish's UCI. Prints one "name: N positions, M mismatches" line per variant and
"N positions, M mismatches" in all; exit 0 when all agree, 1 on a mismatch (the first few shown),
2 when fairylab cannot be run.

Usage: scripts/fairy_oracle.py [--bin PATH] [--positions N] [--seed S]
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

try:
    import pyffish as sf
except ImportError:  # pragma: no cover
    sys.exit("fairy_oracle: pyffish is not installed (pip install pyffish)")

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
# The variants compared: each has variants/<name>.toml and <name>.variants.ini.
# (customleaper.variants.ini is written for Debian's Fairy-Stockfish 11.1 and reads otherwise in pyffish;
# pyffish has a built-in "nightrider", the same game, which it keeps over the file's.)
# Pins of a straight-line leaper are rare in random games: leapers gets five times the positions.
VARIANTS = {"leapers": 5, "chiral": 1, "nightrider": 1, "castling5": 1, "castling6": 1, "castling7": 1}
FIFTY_MOVE_PLIES = 100


def generate(variant, n, rng, normalise=lambda fen: fen):
    """Distinct (fen, sorted legal moves) pairs from random games of `variant` (pyffish's FENs,
    passed through `normalise`). Shared with gardner_oracle.py."""
    start = sf.start_fen(variant)
    seen, out = set(), []

    def add(fen, moves):
        key = " ".join(fen.split()[:4])
        if key not in seen:
            seen.add(key)
            out.append((normalise(fen), moves))

    games = 0
    while len(out) < n:
        games += 1
        if games > 50 * n + 1000:
            raise RuntimeError(f"{variant}: could not find {n} distinct positions")
        length = rng.choice((rng.randint(1, 12), rng.randint(8, 40), rng.randint(30, 120)))
        capture_bias = rng.choice((0.0, 0.3, 0.7))
        fen = start
        moves = sorted(sf.legal_moves(variant, fen, []))
        add(fen, moves)
        for _ in range(length):
            if not moves or sf.is_immediate_game_end(variant, fen, [])[0]:
                break
            if int(fen.split()[4]) >= FIFTY_MOVE_PLIES:
                break
            move = None
            if capture_bias and rng.random() < capture_bias:
                caps = [m for m in moves if sf.is_capture(variant, fen, [], m)]
                if caps:
                    move = rng.choice(caps)
            fen = sf.get_fen(variant, fen, [move or rng.choice(moves)])
            moves = sorted(sf.legal_moves(variant, fen, []))
            add(fen, moves)
            if len(out) >= n:
                break
    return out[:n]


def compare(binary, variant, cases, timeout):
    """The mismatches of fairylab against `cases`, or an error text."""
    text = "".join(fen + "\n" for fen, _ in cases)
    with tempfile.NamedTemporaryFile("w", suffix=".fens", delete=False) as f:
        f.write(text)
        path = f.name
    toml = os.path.join(DATA, "variants", f"{variant}.toml")
    cmd = [binary, "moves", "--variant-file", toml, "--batch", path]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"cannot run {' '.join(cmd)}: {e}"
    finally:
        os.unlink(path)
    if proc.returncode != 0:
        return f"{' '.join(cmd)} exited {proc.returncode}\n{proc.stderr[-2000:]}"
    lines = proc.stdout.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) != len(cases):
        return f"{len(cases)} FENs in, {len(lines)} lines out"
    out = []
    for (fen, want), line in zip(cases, lines):
        got = line.split()
        if got != want:
            out.append((fen, sorted(set(want) - set(got)), sorted(set(got) - set(want)), line))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.environ.get("FAIRYLAB_BIN", "target/release/fairylab"))
    ap.add_argument("--positions", type=int, default=400, help="distinct positions per variant (default 400)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--show", type=int, default=3, help="mismatches to print per variant")
    ap.add_argument("--timeout", type=float, default=600)
    args = ap.parse_args()

    total, bad, failed = 0, 0, False
    for variant, weight in VARIANTS.items():
        with open(os.path.join(DATA, f"{variant}.variants.ini")) as f:
            sf.load_variant_config(f.read())
        cases = generate(variant, weight * args.positions, random.Random(f"{args.seed}:{variant}"))
        result = compare(args.bin, variant, cases, args.timeout)
        if isinstance(result, str):
            print(f"fairy_oracle: {variant}: {result}", file=sys.stderr)
            return 2
        total += len(cases)
        bad += len(result)
        print(f"{variant}: {len(cases)} positions, {len(result)} mismatches")
        for fen, missing, extra, line in result[: args.show]:
            print(f"  FEN     {fen}\n  missing {' '.join(missing) or '-'}\n  extra   {' '.join(extra) or '-'}")
            if not missing and not extra:
                print(f"  note    same moves, but not sorted or with duplicates: {line!r}")
        failed |= bool(result)
    print(f"fairy oracle: {total} positions, {bad} mismatches")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
