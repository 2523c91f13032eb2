#!/usr/bin/env python3
"""python-chess as a real UCI client of `fairylab uci`.

Plays complete games of standard chess and crazyhouse, the engine against itself, through
chess.engine.SimpleEngine. Each game opens with a few random legal moves (seeded, so games
differ yet every run plays the same ones), then the engine moves for both sides with a small
node limit until python-chess declares the game over (checkmate, stalemate, insufficient
material, or a claimable draw: fifty moves or threefold repetition). Every other game is played
with pondering on: after each move python-chess sends `go ponder` on the expected reply and
`stop` before the next search, whose move must then be the next search's, not the ponder's.
Every move the engine sends must be legal for python-chess. Then python-chess analyses positions of those games
with MultiPV 3 and with a restricted root (`searchmoves`, python-chess's `root_moves`): three
lines of different legal moves, best first, and a best move among the moves given. Exit status
0 when all games finish and every analysis holds, 1 otherwise.

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


def play_game(engine, board_class, seed, nodes, opening_plies, max_plies, ponder):
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
            result = engine.play(board, chess.engine.Limit(nodes=nodes), game=game_id, ponder=ponder)
        except chess.engine.EngineError as e:
            return board, f"engine error at {board.fen()}: {e}"
        move = result.move
        if move is None:
            return board, f"no move in a position python-chess considers not over: {board.fen()}"
        if move not in board.legal_moves:
            return board, f"illegal move {move.uci()} in {board.fen()}"
        board.push(move)
    return board, None


def check_analysis(engine, board):
    """MultiPV 3 and searchmoves on one position; returns an error or None."""
    legal = list(board.legal_moves)
    if len(legal) < 3:
        return None
    infos = engine.analyse(board, chess.engine.Limit(depth=5), multipv=3)
    if [i.get("multipv") for i in infos] != [1, 2, 3]:
        return f"multipv {[i.get('multipv') for i in infos]} in {board.fen()}"
    firsts = [i["pv"][0] for i in infos]
    if len(set(firsts)) != 3 or any(m not in board.legal_moves for m in firsts):
        return f"lines {[m.uci() for m in firsts]} in {board.fen()}"
    scores = [i["score"].relative.score(mate_score=100000) for i in infos]
    if scores != sorted(scores, reverse=True):
        return f"scores {scores} not best first in {board.fen()}"
    given = random.Random(board.ply()).sample(legal, 2)
    result = engine.play(board, chess.engine.Limit(depth=4), root_moves=given)
    if result.move not in given:
        return f"searchmoves {[m.uci() for m in given]} played {result.move} in {board.fen()}"
    return None


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
    analysed = 0
    start = time.monotonic()
    with chess.engine.SimpleEngine.popen_uci([args.bin, "uci"]) as engine:
        for name in args.variants.split(","):
            board_class = VARIANTS[name]
            for i in range(args.games):
                seed = args.seed * 1000 + i
                t = time.monotonic()
                ponder = i % 2 == 1
                board, error = play_game(engine, board_class, seed, args.nodes, 2 + i % 5, args.max_plies, ponder)
                outcome = board.outcome(claim_draw=True)
                summary = (
                    f"{name} game {i + 1}: {board.ply()} plies, "
                    f"{outcome.result() + ' by ' + outcome.termination.name.lower() if outcome else 'unfinished'}"
                    f"{', pondering' if ponder else ''} ({time.monotonic() - t:.1f} s)"
                )
                if error:
                    failures += 1
                    print(f"FAIL {summary}: {error}", flush=True)
                else:
                    print(summary, flush=True)
                # Analyses of a position from the game's middle (python-chess sets MultiPV itself).
                middle = board_class()
                for move in board.move_stack[: board.ply() // 2]:
                    middle.push(move)
                error = check_analysis(engine, middle)
                analysed += 1
                if error:
                    failures += 1
                    print(f"FAIL {name} analysis {i + 1}: {error}", flush=True)
        print(f"{analysed} positions analysed with MultiPV 3 and searchmoves")
    print(f"{failures} failure(s), {time.monotonic() - start:.1f} s in all")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
