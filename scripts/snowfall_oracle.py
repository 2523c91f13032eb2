#!/usr/bin/env python3
"""Independent oracle for the SnowFall chess gift generator (a test reference, not product code).

Written on 2026-11-29 from the seed (seeds/snowfall-chess.txt) and RULINGS.md's SnowFall section
alone, without reading the Rust generator (crates/rules/src/gift.rs, odds.rs) or its tests, so
that it checks them independently. It agreed exactly with `fairylab snowfall odds --json` on
1,788 positions (36,019 outcomes), caps binding for one or both players in 1,598 of them.

Usage:
  python3 scripts/snowfall_oracle.py "FEN"         # joint distribution and marginals given a gift event
  python3 scripts/snowfall_oracle.py --selftest    # the seed's own worked numbers and lists
  python3 scripts/snowfall_oracle.py --data FENS   # one line per FEN of the file FENS:
                                                   # FEN <TAB> key=fraction ... (tests/data/snowfall-odds-oracle.txt)

As a library:  joint(fen) -> {"W:..|B:..": Fraction}, kinds(j) -> {"white": {k: Fraction}, ...}
"""
import sys
from fractions import Fraction as F
from collections import defaultdict

ORDER = "QRBNP"
# Caps (seed: "maximum is total 2 boards of pieces, so 16P, 2Q, 4N etc.", RULINGS 4)
CAPS = {"P": 16, "N": 4, "B": 4, "R": 4, "Q": 2}
# The set PPPPPPPPLLLLLLLLRRQC
TOKENS = "PPPPPPPPLLLLLLLLRRQC"
# The ten combos: (mover's part, opponent's part), seed "Combo Generation in general"
COMBOS = [
    ("B", "PP"),
    ("N", "PP"),
    ("RP", "BN"),
    ("Q", "RP"),
    ("Q", "BN"),
    ("Q", "BB"),
    ("Q", "NN"),
    ("Q", "NP"),
    ("Q", "BP"),
    ("BB", "NN"),
]
# L: (mover, opponent) four equally likely pairs
L_PAIRS = [("N", "N"), ("B", "B"), ("N", "B"), ("B", "N")]


def raw_events():
    """Uncorrected (mover part, opponent part, probability) given a gift event."""
    out = []
    n = len(TOKENS)
    for t in set(TOKENS):
        pt = F(TOKENS.count(t), n)
        if t in "PRQ":  # both players receive that piece
            out.append((t, t, pt))
        elif t == "L":
            for m, o in L_PAIRS:
                out.append((m, o, pt / 4))
        elif t == "C":
            for m, o in COMBOS:
                out.append((m, o, pt / 10 * F(2, 3)))  # not switched
                out.append((o, m, pt / 10 * F(1, 3)))  # switched
    assert sum(p for _, _, p in out) == 1
    return out


def canon(s):
    return "".join(sorted(s, key=ORDER.index))


def correct(part, counts):
    """Per-player correction: grant pieces one at a time while they fit; drop the rest."""
    have = dict(counts)
    got = []
    for pc in part:
        if have.get(pc, 0) < CAPS[pc]:
            have[pc] = have.get(pc, 0) + 1
            got.append(pc)
    return canon(got)


def parse_fen(fen):
    """Return (white counts, black counts, side to move). Counts = board + hand, per type."""
    parts = fen.split()
    place = parts[0]
    stm = parts[1] if len(parts) > 1 else "w"
    hand = ""
    if "[" in place:
        place, rest = place.split("[", 1)
        hand = rest.split("]", 1)[0]
    else:
        ranks = place.split("/")
        if len(ranks) == 9:  # crazyhouse alternative: hand as a ninth "rank"
            place = "/".join(ranks[:8])
            hand = ranks[8]
    w = defaultdict(int)
    b = defaultdict(int)
    for ch in place + hand:
        if ch.isalpha():
            u = ch.upper()
            if u in CAPS:
                (w if ch.isupper() else b)[u] += 1
    return dict(w), dict(b), stm


def joint_from_counts(wc, bc, mover):
    res = defaultdict(F)
    for m, o, p in raw_events():
        if mover == "white":
            wg, bg = correct(m, wc), correct(o, bc)
        else:
            wg, bg = correct(o, wc), correct(m, bc)
        res["W:%s|B:%s" % (wg or "-", bg or "-")] += p
    return dict(res)


def joint(fen):
    wc, bc, stm = parse_fen(fen)
    mover = "black" if stm == "w" else "white"
    return joint_from_counts(wc, bc, mover)


def kinds(j):
    out = {"white": {k: F(0) for k in ORDER}, "black": {k: F(0) for k in ORDER}}
    for key, p in j.items():
        wpart, bpart = key.split("|")
        wg, bg = wpart[2:], bpart[2:]
        for k in ORDER:
            if k in wg:
                out["white"][k] += p
            if k in bg:
                out["black"][k] += p
    return out


def prob(j, pred):
    """P(pred(white gift, black gift)) given an event."""
    t = F(0)
    for key, p in j.items():
        wpart, bpart = key.split("|")
        wg, bg = wpart[2:].replace("-", ""), bpart[2:].replace("-", "")
        if pred(wg, bg):
            t += p
    return t


def _lists_for(fen, mover_is_white):
    """Corrected combo lists (unswitched, switched) as sets of (white, black) strings, per item."""
    wc, bc, _ = parse_fen(fen)
    un, sw = [], []
    for m, o in COMBOS:
        if mover_is_white:
            un.append((correct(m, wc), correct(o, bc)))
            sw.append((correct(o, wc), correct(m, bc)))
        else:
            un.append((correct(o, wc), correct(m, bc)))
            sw.append((correct(m, wc), correct(o, bc)))
    return un, sw


def selftest():
    ok = True

    def check(name, got, want):
        nonlocal ok
        flag = "OK " if got == want else "BAD"
        if got != want:
            ok = False
        print(f"{flag} {name}: got {got} want {want}")

    start_after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[] b KQkq - 0 1"
    j = joint(start_after_e4)
    k = kinds(j)
    check("P(mover white gets Q)", k["white"]["Q"], F(7, 100))
    check("P(mover white gets R)", k["white"]["R"], F(21, 200))
    # Mate example (no caps binding): white just moved Kg1; black gets a diagonal piece
    # (P on f2 also attacks g1; B, Q diagonal) -> 83/120 ~ "about 70%"
    check("P(opponent gets P/B/Q)", prob(j, lambda w, b: any(c in b for c in "PBQ")), F(83, 120))
    # black just moved Ne4; white gets a heavy piece (R or Q) -> 33/200 "about 16%"
    jb = joint("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[] w KQkq - 0 1")
    check("P(opponent gets R/Q)", prob(jb, lambda w, b: any(c in w for c in "RQ")), F(33, 200))
    check("0.17*83/120 ~ 0.12", round(float(F(17, 100) * F(83, 120)), 2), 0.12)
    check("0.17*33/200 < 0.03", float(F(17, 100) * F(33, 200)) < 0.03, True)

    # Example 1: after 1.e4, both sides have 8 pawns on board + 8 in hand
    ex1 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[PPPPPPPPpppppppp] b KQkq - 0 1"
    un, sw = _lists_for(ex1, True)
    seed_un = [("B", ""), ("N", ""), ("R", "BN"), ("Q", "R"), ("Q", "BN"), ("Q", "BB"),
               ("Q", "NN"), ("Q", "N"), ("Q", "B"), ("BB", "NN")]
    seed_sw = [("", "B"), ("", "N"), ("BN", "R"), ("R", "Q"), ("BN", "Q"), ("BB", "Q"),
               ("NN", "Q"), ("N", "Q"), ("B", "Q"), ("NN", "BB")]
    check("example 1 list (not switched)", un, seed_un)
    check("example 1 list (switched)", sw, seed_sw)
    j1 = joint(ex1)
    check("example 1: P case -> nobody gets a pawn", prob(j1, lambda w, b: "P" in w or "P" in b), F(0))

    # Example 2: white 8 pawns on board + 8 in hand; black 2 bishops on board + 2 in hand
    ex2w = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[PPPPPPPPbb] b KQkq - 0 1"
    un, sw = _lists_for(ex2w, True)
    seed_un = [("B", "PP"), ("N", "PP"), ("R", "N"), ("Q", "RP"), ("Q", "N"), ("Q", ""),
               ("Q", "NN"), ("Q", "NP"), ("Q", "P"), ("BB", "NN")]
    seed_sw = [("", ""), ("", "N"), ("BN", "RP"), ("R", "Q"), ("BN", "Q"), ("BB", "Q"),
               ("NN", "Q"), ("N", "Q"), ("B", "Q"), ("NN", "")]
    check("example 2 after 1.e4 (not switched)", un, seed_un)
    check("example 2 after 1.e4 (switched)", sw, seed_sw)
    j2 = joint(ex2w)
    # P case: black gets P, white not
    check("example 2: P token -> W:-|B:P", j2.get("W:-|B:P"), F(8, 20))
    # L case list (white mover): NN, B-, BN, N-  each 25% of 8/20
    check("example 2 L: W:N|B:N", j2.get("W:N|B:N"), F(8, 20) / 4)
    check("example 2 L: W:B|B:N", j2.get("W:B|B:N"), F(8, 20) / 4)
    check("example 2 L: W:B|B:- + W:N|B:-",
          (j2.get("W:B|B:-", 0), j2.get("W:N|B:-", 0)), (F(8, 20) / 4, F(8, 20) / 4))
    ex2b = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR[PPPPPPPPbb] w KQkq - 0 2"
    un, sw = _lists_for(ex2b, False)
    seed_un_b = [("", ""), ("", "N"), ("BN", "RP"), ("R", "Q"), ("BN", "Q"), ("BB", "Q"),
                 ("NN", "Q"), ("N", "Q"), ("B", "Q"), ("NN", "")]
    seed_sw_b = [("B", "PP"), ("N", "PP"), ("R", "N"), ("Q", "RP"), ("Q", "N"), ("Q", ""),
                 ("Q", "NN"), ("Q", "NP"), ("Q", "P"), ("BB", "NN")]
    check("example 2 after 1.e4 e5 (not switched)", un, seed_un_b)
    check("example 2 after 1.e4 e5 (switched)", sw, seed_sw_b)
    print("ALL OK" if ok else "SOME FAILED")
    return ok


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--selftest":
        sys.exit(0 if selftest() else 1)
    if len(sys.argv) > 2 and sys.argv[1] == "--data":
        for fen in open(sys.argv[2]):
            fen = fen.strip()
            if fen and not fen.startswith("#"):
                j = joint(fen)
                print(fen + "\t" + " ".join(f"{k}={j[k]}" for k in sorted(j) if j[k]))
        sys.exit(0)
    j = joint(sys.argv[1])
    for key in sorted(j):
        print(key, j[key])
    for side, d in kinds(j).items():
        print(side, {k: str(v) for k, v in d.items()})
