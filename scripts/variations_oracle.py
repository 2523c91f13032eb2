#!/usr/bin/env python3
"""Reads a PGN file's variations with python-chess, as tests/data/records/variations.expected holds them.

Usage: python3 scripts/variations_oracle.py tests/data/records/variations.pgn > tests/data/records/variations.expected
"""
import sys
import chess.pgn

def lines(game):
    out = []
    def walk(node, prefix):
        for i, child in enumerate(node.variations):
            if i > 0:
                full = prefix + [child.move.uci()]
                n = child
                while n.variations:
                    n = n.variations[0]
                    full.append(n.move.uci())
                out.append((len(prefix), full))
        for child in node.variations:
            walk(child, prefix + [child.move.uci()])
    walk(game, [])
    return out

def games(path):
    """Each game of the PGN file at path as python-chess reads it (none may have a read error),
    after a `game N` line."""
    pgn = open(path)
    n = 0
    while True:
        g = chess.pgn.read_game(pgn)
        if g is None:
            return
        assert not g.errors, g.errors
        n += 1
        print(f"game {n}")
        yield g

if __name__ == "__main__":
    print("# The lines of tests/data/records/variations.pgn as python-chess reads them: per game its main line")
    print("# and every variation as a whole line from the start (in UCI), with the ply where it parts.")
    print(f"# source: python-chess {chess.__version__} (chess.pgn.read_game; crazyhouse by its Variant tag),")
    print("#   written by scripts/variations_oracle.py; no game has a read error.")
    for g in games(sys.argv[1]):
        print("main " + ",".join(m.uci() for m in g.mainline_moves()))
        for parts, full in sorted(lines(g), key=lambda x: x[1]):
            print(f"var {parts} " + ",".join(full))
