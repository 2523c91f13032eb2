#!/usr/bin/env python3
"""Reads a PGN file's comments and NAGs with python-chess, as tests/data/records/annotated.expected holds them.

Usage: python3 scripts/annotations_oracle.py tests/data/records/annotated.pgn > tests/data/records/annotated.expected
"""
import sys
import chess.pgn
from variations_oracle import games

def words(text):
    return " ".join(text.split())

print("# The comments and NAGs of tests/data/records/annotated.pgn as python-chess reads them: per game")
print("# the comment before its first move, then every move that has any, named by the moves from the")
print("# start up to it (UCI): its NAGs (sorted), the comment before it (a variation's first move) and")
print("# the comment after it, whitespace runs made one space.")
print(f"# source: python-chess {chess.__version__} (chess.pgn.read_game), written by scripts/annotations_oracle.py.")
for g in games(sys.argv[1]):
    if g.comment:
        print(f"comment {words(g.comment)}")
    notes = []
    def walk(node, path):
        for child in node.variations:
            p = path + [child.move.uci()]
            if child.nags or child.starting_comment or child.comment:
                nags = ",".join(str(x) for x in sorted(child.nags))
                notes.append(f"note {','.join(p)} nags={nags} before={words(child.starting_comment)} after={words(child.comment)}")
            walk(child, p)
    walk(g, [])
    for line in sorted(notes):
        print(line)
