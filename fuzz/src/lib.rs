//! Shared checks for the fuzz targets: the invariants every position must keep (legal moves agree with
//! the king-safety test, FEN round-trips, hash from scratch equals the incremental hash) and custom variants.
//!
//! A check that fails panics with the FEN and the move at fault, so a crash report can be reproduced with
//! `Position::from_fen` alone.

use rules::movement::Movement;
use rules::moves::MoveList;
use rules::san::{parse_san, to_san};
use rules::uci::{parse_uci, to_uci};
use rules::variant::{Rules, Variant, WinCondition};
use rules::{perft, Move, Position};

/// The built-in variants a playout may use (coinflip plays like chess, so it is left to the FEN target).
pub const PLAYOUT_VARIANTS: [&str; 3] = ["chess", "crazyhouse", "gardner"];

/// Fixed positions for the notation targets: start positions and positions with castling, en passant,
/// promotions, pockets and drops.
pub const NOTATION_POSITIONS: &[(&str, &str)] = &[
    ("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    ("chess", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
    ("chess", "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"),
    ("chess", "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1"),
    ("chess", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"),
    ("chess", "R6R/8/8/2Q1Q3/8/2Q5/8/1k2K3 w - - 0 1"),
    ("crazyhouse", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"),
    ("crazyhouse", "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R[Pn] w KQkq - 4 4"),
    ("crazyhouse", "2k5/4Q~3/8/8/8/8/5K2/8[RBNPrbnp] b - - 0 30"),
    ("gardner", "rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1"),
    ("gardner", "r1b1k/p1P1p/5/1p3/R3K w - - 0 9"),
];

/// The built-in variant of this name.
///
/// # Panics
///
/// If there is none (a fixed list in the targets, not fuzzer input).
pub fn variant(name: &str) -> &'static Variant {
    match rules::variants::by_name(name) {
        Some(v) => v,
        None => panic!("no built-in variant {name}"),
    }
}

/// Positions of [`NOTATION_POSITIONS`], parsed once per process.
pub fn notation_positions() -> &'static [Position] {
    static POSITIONS: std::sync::OnceLock<Vec<Position>> = std::sync::OnceLock::new();
    POSITIONS.get_or_init(|| {
        NOTATION_POSITIONS
            .iter()
            .map(|&(v, fen)| match Position::from_fen(variant(v), fen) {
                Ok(p) => p,
                Err(e) => panic!("fixed position {fen} ({v}): {e}"),
            })
            .collect()
    })
}

/// Whether the variant forbids leaving one's own royal piece attacked (so legality = king safety).
fn king_safety_rules(pos: &Position) -> bool {
    let v = pos.variant();
    v.win == WinCondition::Checkmate && !v.self_check && pos.king_square(pos.turn()).is_some()
}

/// The FEN re-parses, writes the same FEN, and (when the en-passant square it stores is the one the
/// FEN shows) gives an equal position with the same hash.
pub fn check_fen_round_trip(pos: &Position) {
    let v = pos.variant();
    let fen = pos.fen();
    assert_eq!(pos.hash(), pos.hash_from_scratch(), "{} hash of {fen} differs from the hash from scratch", v.name);
    let again = match Position::from_fen(v, &fen) {
        Ok(p) => p,
        Err(e) => panic!("{} FEN {fen} does not re-parse: {e}", v.name),
    };
    assert_eq!(again.fen(), fen, "{} FEN does not round-trip", v.name);
    if pos.ep_square() == pos.legal_ep_square() {
        assert!(again == *pos, "{} position {fen} differs after a FEN round trip", v.name);
        assert_eq!(again.hash(), pos.hash(), "{} hash of {fen} differs from the hash of its re-parsed FEN", v.name);
    }
}

/// Legal moves agree with pseudo-legal moves filtered by king safety, have no duplicates, and the counts
/// agree. Returns the legal moves.
pub fn check_legality(pos: &Position) -> MoveList {
    let fen = pos.fen();
    let legal = pos.legal_moves();
    let mut pseudo = MoveList::new();
    pos.gen_pseudo(&mut pseudo);
    assert_eq!(pos.count_legal(), legal.len(), "count_legal in {fen}");
    assert_eq!(pos.has_legal_move(), !legal.is_empty(), "has_legal_move in {fen}");
    for (i, m) in legal.iter().enumerate() {
        assert!(!legal[..i].contains(m), "duplicate legal move {m:?} in {fen}");
        assert!(pseudo.contains(m), "legal move {m:?} ({}) is not pseudo-legal in {fen}", to_uci(pos, *m));
    }
    let us = pos.turn();
    if king_safety_rules(pos) {
        for &m in &pseudo {
            let mut after = pos.clone();
            after.play_unchecked(m);
            let attacked = after.is_attacked_king(us);
            if legal.contains(&m) {
                assert!(!attacked, "legal move {} leaves the king attacked in {fen}", to_uci(pos, m));
            } else {
                assert!(attacked, "pseudo-legal move {} is missing from the legal moves in {fen}", to_uci(pos, m));
            }
        }
    } else {
        assert_eq!(legal.len(), pseudo.len(), "without king safety every pseudo-legal move is legal in {fen}");
    }
    legal
}

/// Playing `m` gives a position whose FEN round-trips and whose incremental hash equals the hash from
/// scratch and (when the en-passant square it stores is the one its FEN shows) that of its re-parsed FEN.
pub fn check_child(pos: &Position, m: Move) -> Position {
    let mut after = pos.clone();
    after.play_unchecked(m);
    let v = pos.variant();
    assert_eq!(
        after.hash(),
        after.hash_from_scratch(),
        "incremental hash after {} in {} differs from the hash from scratch",
        to_uci(pos, m),
        pos.fen()
    );
    if after.ep_square() == after.legal_ep_square() {
        let fen = after.fen();
        match Position::from_fen(v, &fen) {
            Ok(p) => assert_eq!(
                p.hash(),
                after.hash(),
                "incremental hash after {} in {} differs from the hash of {fen}",
                to_uci(pos, m),
                pos.fen()
            ),
            Err(e) => panic!("FEN {fen} after {} in {} does not parse: {e}", to_uci(pos, m), pos.fen()),
        }
    }
    check_fen_round_trip(&after);
    after
}

/// UCI and SAN of a legal move parse back to the same move.
pub fn check_notation(pos: &Position, m: Move) {
    let fen = pos.fen();
    let uci = to_uci(pos, m);
    match parse_uci(pos, &uci) {
        Ok(back) => assert_eq!(back, m, "UCI {uci} parses to another move in {fen}"),
        Err(e) => panic!("UCI {uci} of a legal move does not parse in {fen}: {e}"),
    }
    let san = to_san(pos, m);
    match parse_san(pos, &san) {
        Ok(back) => assert_eq!(back, m, "SAN {san} ({uci}) parses to another move in {fen}"),
        Err(e) => panic!("SAN {san} ({uci}) of a legal move does not parse in {fen}: {e}"),
    }
}

/// Every check above, on a position and each of its children. Returns the legal moves.
pub fn check_position(pos: &Position) -> MoveList {
    check_fen_round_trip(pos);
    let legal = check_legality(pos);
    for &m in &legal {
        check_child(pos, m);
    }
    legal
}

/// Builds a variant from `rules` and runs `f` on it, freeing the variant afterwards. `None` if the rules
/// are refused, or the start FEN is not a legal position (as `rules::variant::load` checks).
///
/// `Position` borrows its variant for `'static`, and `rules::variant::load` leaks it; the fuzzer runs
/// millions of inputs, so this leaks it only for the duration of `f` (which must not keep positions).
pub fn with_variant<T>(rules: Rules, f: impl FnOnce(&'static Variant, Position) -> T) -> Option<T> {
    let variant = Variant::new(rules).ok()?;
    let leaked: &'static mut Variant = Box::leak(Box::new(variant));
    let ptr: *mut Variant = leaked;
    let v: &'static Variant = leaked;
    let out = Position::from_fen(v, &v.start_fen).ok().map(|start| f(v, start));
    // SAFETY: `ptr` came from `Box::leak` above; `f` has returned and every `Position` built on `v`
    // (the start position included) has been dropped, so nothing refers to the variant any more.
    drop(unsafe { Box::from_raw(ptr) });
    out
}

/// A custom piece in a chess variant: chess with the knight's movement replaced by `movement`, then the
/// start position's perft(2) and the invariants on the start position and each child.
pub fn exercise_piece(movement: Movement) {
    let mut r = rules::variants::chess::rules();
    let Some(knight) = r.pieces.iter_mut().find(|p| p.letter == 'n') else { return };
    knight.movement = movement;
    with_variant(r, |_, start| {
        let _ = perft(&start, 2);
        let legal = check_position(&start);
        for &m in &legal {
            check_notation(&start, m);
        }
    });
}
