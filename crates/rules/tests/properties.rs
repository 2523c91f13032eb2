//! Property tests of the rules core's invariants on random playouts in chess, crazyhouse, gardner
//! and SnowFall (gifts sampled into the hands): incremental hash, FEN round-trip, legal =
//! king-safe pseudo-legal, copy-make, and SnowFall's caps.
//!
//! A playout is a start position plus a list of move choices (each taken modulo the number of
//! legal moves), so proptest shrinks a failure to the shortest game that still shows it.
//!
//! Hash from scratch: `Position::from_fen` computes the hash from nothing, so a position
//! rebuilt from its FEN must equal the incrementally updated one. `fen()` writes the
//! en-passant square only when a *legal* en-passant capture exists (as shakmaty and lichess
//! do), while the position keeps it whenever a pawn could capture there pseudo-legally (and
//! hashes it). So the rebuild uses `exact_fen`, which writes `ep_square()` as stored; nothing
//! else is lost by FEN in these variants (promoted pieces are written with `~` in crazyhouse,
//! and chess and gardner keep no piece state).

use proptest::prelude::*;
use rules::chance::{seeded_rng, Event};
use rules::gift::{self, Kind};
use rules::{variants, Color, Move, MoveList, Position};

/// The longest playout, in plies.
const MAX_PLIES: usize = 160;

/// The FEN with the stored en-passant square (see the module comment), so that
/// `from_fen(exact_fen(pos))` rebuilds `pos` exactly.
fn exact_fen(pos: &Position) -> String {
    let castling: String =
        pos.castling_rights().iter().zip(['K', 'Q', 'k', 'q']).filter(|(on, _)| **on).map(|(_, c)| c).collect();
    format!(
        "{} {} {} {} {} {}",
        pos.board_fen(),
        if pos.turn() == Color::White { 'w' } else { 'b' },
        if castling.is_empty() { "-".to_string() } else { castling },
        pos.ep_square().map_or("-".to_string(), |s| s.to_string()),
        pos.halfmoves(),
        pos.fullmoves(),
    )
}

/// Start FENs: the variant's start position, plus the perft suite for chess.
fn starts(variant: &str) -> Vec<String> {
    let v = variants::by_name(variant).unwrap_or_else(|| panic!("variant {variant} missing"));
    let mut out = vec![Position::start(v).fen()];
    if variant == "chess" {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/perftsuite.epd");
        if let Ok(text) = std::fs::read_to_string(path) {
            out.extend(
                text.lines()
                    .filter_map(|l| l.split(';').next())
                    .map(str::trim)
                    .filter(|f| !f.is_empty() && !f.starts_with('#'))
                    .map(String::from),
            );
        }
    }
    out
}

/// Checks every invariant in one position.
fn check_position(pos: &Position) -> Result<(), TestCaseError> {
    let fen = pos.fen();

    // Step 1. The incremental hash equals the hash computed from scratch.
    let rebuilt = Position::from_fen(pos.variant(), &exact_fen(pos))
        .map_err(|e| TestCaseError::fail(format!("exact FEN {} of {fen} does not parse: {e}", exact_fen(pos))))?;
    prop_assert_eq!(rebuilt.hash(), pos.hash(), "incremental hash differs from scratch in {}", fen);
    prop_assert!(rebuilt == *pos, "rebuilding {} from its exact FEN gives another position", fen);

    // Step 2. FEN round-trip.
    let reparsed = Position::from_fen(pos.variant(), &fen)
        .map_err(|e| TestCaseError::fail(format!("our own FEN {fen} does not parse: {e}")))?;
    prop_assert_eq!(reparsed.fen(), fen.clone(), "FEN round-trip");

    // Step 3. Legal moves are exactly the pseudo-legal moves that leave the mover's king safe.
    let us = pos.turn();
    let legal = pos.legal_moves();
    let mut pseudo = MoveList::new();
    pos.gen_pseudo(&mut pseudo);
    for (i, &m) in legal.iter().enumerate() {
        prop_assert!(!legal[..i].contains(&m), "{:?} generated twice in {}", m, fen);
        prop_assert!(pseudo.contains(&m), "legal {:?} is not pseudo-legal in {}", m, fen);
        let mut after = pos.clone();
        after.play_unchecked(m);
        prop_assert!(!after.is_attacked_king(us), "legal {:?} leaves the king attacked in {}", m, fen);
    }
    for &m in pseudo.iter().filter(|m| !legal.contains(m)) {
        let mut after = pos.clone();
        after.play_unchecked(m);
        prop_assert!(after.is_attacked_king(us), "safe pseudo-legal {:?} missing from the legal moves in {}", m, fen);
    }

    // Step 4. Copy-make: playing on a copy leaves the original untouched.
    let snapshot = pos.clone();
    for &m in &legal {
        let mut copy = pos.clone();
        prop_assert!(copy.play(m).is_ok(), "play({:?}) refuses a legal move in {}", m, fen);
        prop_assert!(*pos == snapshot && pos.hash() == snapshot.hash(), "playing on a copy changed {}", fen);
    }
    prop_assert_eq!(pos.fen(), fen, "playing on copies changed the FEN");
    Ok(())
}

/// Plays `choices` from `pos` (each taken modulo the number of legal moves), each move by
/// `play`, and checks every position on the way.
fn walk(
    mut pos: Position,
    choices: &[u32],
    mut play: impl FnMut(&mut Position, Move) -> Result<(), TestCaseError>,
) -> Result<(), TestCaseError> {
    for &c in choices {
        check_position(&pos)?;
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return Ok(());
        }
        play(&mut pos, moves[c as usize % moves.len()])?;
    }
    check_position(&pos)
}

/// Plays out `choices` from start FEN number `start` and checks every position on the way.
fn playout(variant: &str, start: usize, choices: &[u32]) -> Result<(), TestCaseError> {
    let v = variants::by_name(variant).unwrap_or_else(|| panic!("variant {variant} missing"));
    let fens = starts(variant);
    let fen = &fens[start % fens.len()];
    let pos = Position::from_fen(v, fen).map_err(|e| TestCaseError::fail(format!("bad start {fen}: {e}")))?;
    walk(pos, choices, |pos, m| {
        let before = pos.hash();
        pos.play_unchecked(m);
        prop_assert_ne!(before, pos.hash(), "a move left the hash unchanged");
        Ok(())
    })
}

/// The caps of the SnowFall rulings (board and hand together, per player): two full sets.
const CAPS: [(Kind, u8); 5] =
    [(Kind::Pawn, 16), (Kind::Knight, 4), (Kind::Bishop, 4), (Kind::Rook, 4), (Kind::Queen, 2)];

/// Plays out `choices` in SnowFall at `percent` %, every move's gift event drawn from the seeded
/// generator, and checks every position on the way: the invariants above, that a gift never
/// lifts a count past its cap, and that only a gift event ever grows a hand.
fn snowfall_playout(percent: u8, seed: u64, choices: &[u32]) -> Result<(), TestCaseError> {
    let mut rng = seeded_rng(seed);
    walk(Position::start(variants::snowfall::variant(percent)), choices, |pos, m| {
        let hands_before = pos.board_fen();
        let mut moved = pos.clone();
        moved.play_unchecked(m);
        let mid = gift::counts(&moved);
        let event = pos.play_sampled(m, &mut rng);
        let after = gift::counts(pos);
        for color in [Color::White, Color::Black] {
            for (kind, cap) in CAPS {
                // A promotion may pass a cap; a gift may not add to a count at or past it.
                let (was, now) = (mid[color.index()][kind as usize], after[color.index()][kind as usize]);
                prop_assert!(
                    now <= cap.max(was),
                    "{:?} holds {} {:?} after {:?} ({:?}) from {}, above the cap {}",
                    color,
                    now,
                    kind,
                    m,
                    event,
                    hands_before,
                    cap
                );
            }
        }
        match event {
            Event::Gift(g) => {
                prop_assert!(pos.board() == moved.board(), "a gift changed the board after {:?}", m);
                for color in [Color::White, Color::Black] {
                    for kind in Kind::ALL {
                        let (was, now) = (mid[color.index()][kind as usize], after[color.index()][kind as usize]);
                        prop_assert_eq!(
                            now,
                            was + g.of(color).count(kind),
                            "{:?} {:?}: the hand is not the gift",
                            color,
                            kind
                        );
                    }
                }
            }
            _ => prop_assert!(after == mid && *pos == moved, "no gift, yet {} differs from the move alone", pos.fen()),
        }
        Ok(())
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn chess_invariants(start in 0usize..1000, choices in prop::collection::vec(any::<u32>(), 0..MAX_PLIES)) {
        playout("chess", start, &choices)?;
    }

    #[test]
    fn crazyhouse_invariants(choices in prop::collection::vec(any::<u32>(), 0..MAX_PLIES)) {
        playout("crazyhouse", 0, &choices)?;
    }

    #[test]
    fn gardner_invariants(choices in prop::collection::vec(any::<u32>(), 0..MAX_PLIES)) {
        playout("gardner", 0, &choices)?;
    }

    #[test]
    fn snowfall_invariants(percent in 10u8..=60, seed in any::<u64>(), choices in prop::collection::vec(any::<u32>(), 0..MAX_PLIES)) {
        snowfall_playout(percent, seed, &choices)?;
    }
}
