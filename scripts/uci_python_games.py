#!/usr/bin/env python3
"""python-chess as a real UCI client of `fairylab uci`.

Plays complete games of standard chess and crazyhouse, the engine against itself, through
chess.engine.SimpleEngine. Each game opens with a few random legal moves (seeded, so games
differ yet every run plays the same ones), then the engine moves for both sides with a small
node limit until python-chess declares the game over (checkmate, stalemate, insufficient
material, or a claimable draw: fifty moves or threefold repetition). Every move the engine
sends must be legal for python-chess. Exit status 0 when all games finish, 1 otherwise.

    python3 scripts/uci_python_games.py --bin target/release/fairylab
"""

import argparse
import random
import sys
import time

import chess
import chess.engine
import chess.variant

VARIANTS = {"chess": chess.Board, "crazyhouse": chess.variant.CrazyhouseBoard}


def play_game(engine, board_class, seed, nodes, opening_plies, max_plies):
    """Plays one game; returns (board, error or None)."""
    rng = random.Random(seed)
    board = board_class()
    for _ in range(opening_plies):
        if board.is_game_over(claim_draw=True):
            break
        board.push(rng.choice(list(board.legal_moves)))
    # A new game for the engine (`ucinewgame`), and the same for every move of it.
    game_id = object()
    while not board.is_game_over(claim_draw=True):
        if board.ply() >= max_plies:
            return board, f"no result after {max_plies} plies"
        try:
            result = engine.play(board, chess.engine.Limit(nodes=nodes), game=game_id)
        except chess.engine.EngineError as e:
            return board, f"engine error at {board.fen()}: {e}"
        move = result.move
        if move is None:
            return board, f"no move in a position python-chess considers not over: {board.fen()}"
        if move not in board.legal_moves:
            return board, f"illegal move {move.uci()} in {board.fen()}"
        board.push(move)
    return board, None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", required=True, help="the fairylab binary")
    parser.add_argument("--games", type=int, default=10, help="games per variant (default 10)")
    parser.add_argument("--nodes", type=int, default=2000, help="node limit per move (default 2000)")
    parser.add_argument("--max-plies", type=int, default=1000, help="a game longer than this fails")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--variants", default="chess,crazyhouse")
    args = parser.parse_args()

    failures = 0
    start = time.monotonic()
    with chess.engine.SimpleEngine.popen_uci([args.bin, "uci"]) as engine:
        for name in args.variants.split(","):
            board_class = VARIANTS[name]
            for i in range(args.games):
                seed = args.seed * 1000 + i
                t = time.monotonic()
                board, error = play_game(engine, board_class, seed, args.nodes, 2 + i % 5, args.max_plies)
                outcome = board.outcome(claim_draw=True)
                summary = (
                    f"{name} game {i + 1}: {board.ply()} plies, "
                    f"{outcome.result() + ' by ' + outcome.termination.name.lower() if outcome else 'unfinished'}"
                    f" ({time.monotonic() - t:.1f} s)"
                )
                if error:
                    failures += 1
                    print(f"FAIL {summary}: {error}", flush=True)
                else:
                    print(summary, flush=True)
    print(f"{failures} failure(s), {time.monotonic() - start:.1f} s in all")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
