//! Differential test against shakmaty for chess and crazyhouse: legal move sets, SAN with
//! check marks, FEN after every move, and SAN/UCI round-trips on seeded random playouts.
//!
//! Every position reached is compared move by move; a mismatch panics with the FEN, the move
//! and both sides' output. Coverage counters (checks, mates, en passant, castling, promotions,
//! drops giving check, promoted pieces, full pockets) are asserted so the playouts stay useful.

use rules::moves::MoveKind;
use rules::san::{parse_san, to_san};
use rules::uci::{parse_uci, to_uci};
use rules::{variants, Move, Position};
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::variant::Crazyhouse;
use shakmaty::{CastlingMode, Chess, EnPassantMode, FromSetup};

/// Positions each variant must compare (the requirement).
const MIN_POSITIONS: usize = 20_000;
/// Longest random playout, in plies.
const MAX_PLIES: usize = 150;

/// splitmix64: a tiny deterministic PRNG private to this test.
struct SplitMix(u64);

impl SplitMix {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0), by multiply-shift.
    fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// What the compared positions contained, so a weak playout generator is noticed.
#[derive(Debug, Default)]
struct Coverage {
    positions: usize,
    moves: usize,
    in_check: usize,
    mates: usize,
    stalemates: usize,
    castles: usize,
    en_passant: usize,
    promotions: usize,
    drops: usize,
    drops_giving_check: usize,
    positions_with_promoted: usize,
    max_pocket: u32,
}

/// Parses our FEN into the oracle's position type.
fn oracle_position<S: FromSetup + shakmaty::Position>(fen: &str) -> S {
    let parsed: Fen = match fen.parse() {
        Ok(f) => f,
        Err(e) => panic!("shakmaty cannot parse our FEN {fen}: {e}"),
    };
    // Some perft-suite positions have checks no legal game reaches (two bishops giving check),
    // and a FEN may hold more men than a game can have; shakmaty rejects those by default, we
    // accept them (docs/RULES.md, "Notation readings"), and the moves are still well defined.
    match parsed
        .into_position(CastlingMode::Standard)
        .or_else(shakmaty::PositionError::ignore_too_much_material)
        .or_else(shakmaty::PositionError::ignore_impossible_check)
    {
        Ok(p) => p,
        Err(e) => panic!("shakmaty rejects our FEN {fen}: {e}"),
    }
}

/// Compares one position with the oracle, move by move, and updates the coverage counters.
fn compare<S>(ours: &Position, cov: &mut Coverage)
where
    S: FromSetup + shakmaty::Position + Clone,
{
    let fen = ours.fen();
    let theirs: S = oracle_position(&fen);

    // Step 1. The oracle writes the same FEN back (both sides read it the same way).
    let their_fen = Fen::from_position(&theirs, EnPassantMode::Legal).to_string();
    assert_eq!(fen, their_fen, "FEN round-trip through shakmaty differs\n ours:   {fen}\n theirs: {their_fen}");

    // Step 2. Legal move sets as sorted UCI strings.
    let mut our_moves: Vec<(String, Move)> = ours.legal_moves().iter().map(|&m| (to_uci(ours, m), m)).collect();
    let mut their_moves: Vec<(String, shakmaty::Move)> =
        theirs.legal_moves().into_iter().map(|m| (m.to_uci(CastlingMode::Standard).to_string(), m)).collect();
    our_moves.sort_by(|a, b| a.0.cmp(&b.0));
    their_moves.sort_by(|a, b| a.0.cmp(&b.0));
    let our_ucis: Vec<&str> = our_moves.iter().map(|(u, _)| u.as_str()).collect();
    let their_ucis: Vec<&str> = their_moves.iter().map(|(u, _)| u.as_str()).collect();
    if our_ucis != their_ucis {
        let only_ours: Vec<&&str> = our_ucis.iter().filter(|u| !their_ucis.contains(u)).collect();
        let only_theirs: Vec<&&str> = their_ucis.iter().filter(|u| !our_ucis.contains(u)).collect();
        panic!(
            "legal moves differ in {fen}\n only ours:   {only_ours:?}\n only theirs: {only_theirs:?}\n ours:   {our_ucis:?}\n theirs: {their_ucis:?}"
        );
    }

    // Step 3. Check, mate, stalemate and insufficient material agree.
    assert_eq!(ours.is_check(), theirs.is_check(), "is_check differs in {fen}");
    assert_eq!(
        ours.is_insufficient_material(),
        theirs.is_insufficient_material(),
        "insufficient material differs in {fen}"
    );
    cov.positions += 1;
    cov.in_check += usize::from(ours.is_check());
    if our_moves.is_empty() {
        if ours.is_check() {
            cov.mates += 1;
        } else {
            cov.stalemates += 1;
        }
    }
    if ours.board().promoted().any() {
        cov.positions_with_promoted += 1;
    }
    cov.max_pocket = cov.max_pocket.max(ours.hand(ours.turn()).total());

    // Step 4. Per move: SAN with suffix, FEN after the move, SAN and UCI round-trips.
    for ((uci, m), (_, their_move)) in our_moves.iter().zip(&their_moves) {
        let (uci, m) = (uci.as_str(), *m);
        let our_san = to_san(ours, m);
        let mut their_child = theirs.clone();
        let mut their_san = SanPlus::from_move_and_play_unchecked(&mut their_child, *their_move).to_string();
        // Our one documented difference (docs/RULES.md): pawn drops carry their letter.
        if their_san.starts_with('@') {
            assert_eq!(
                parse_san(ours, &their_san).ok(),
                Some(m),
                "shakmaty's {their_san} is not read as {uci} in {fen}"
            );
            their_san.insert(0, 'P');
        }
        assert_eq!(our_san, their_san, "SAN differs in {fen} for {uci}\n ours:   {our_san}\n theirs: {their_san}");

        let mut our_child = ours.clone();
        our_child.play_unchecked(m);
        let our_after = our_child.fen();
        let their_after = Fen::from_position(&their_child, EnPassantMode::Legal).to_string();
        assert_eq!(
            our_after, their_after,
            "FEN after {uci} ({our_san}) differs in {fen}\n ours:   {our_after}\n theirs: {their_after}"
        );

        match parse_san(ours, &our_san) {
            Ok(back) => assert_eq!(back, m, "parse_san({our_san}) gives another move in {fen} (expected {uci})"),
            Err(e) => panic!("parse_san({our_san}) fails in {fen} (expected {uci}): {e}"),
        }
        match parse_uci(ours, uci) {
            Ok(back) => assert_eq!(back, m, "parse_uci({uci}) gives another move in {fen}"),
            Err(e) => panic!("parse_uci({uci}) fails in {fen}: {e}"),
        }

        cov.moves += 1;
        match m.kind() {
            MoveKind::Castle => cov.castles += 1,
            MoveKind::EnPassant => cov.en_passant += 1,
            MoveKind::Drop => {
                cov.drops += 1;
                cov.drops_giving_check += usize::from(our_child.is_check());
            }
            _ => {}
        }
        cov.promotions += usize::from(m.promotion_role().is_some());
    }
}

/// Picks the next playout move. Uniform choice rarely meets en passant and, in crazyhouse,
/// drops pieces as fast as they are won; so en passant is taken when offered half the time,
/// double steps are favoured a little, and board moves are preferred to drops three times in four.
fn pick(moves: &[Move], rng: &mut SplitMix) -> Move {
    let of_kind = |k: MoveKind| -> Vec<Move> { moves.iter().copied().filter(|m| m.kind() == k).collect() };
    let ep = of_kind(MoveKind::EnPassant);
    if !ep.is_empty() && rng.below(2) == 0 {
        return ep[rng.below(ep.len())];
    }
    let double = of_kind(MoveKind::DoubleStep);
    if !double.is_empty() && rng.below(4) == 0 {
        return double[rng.below(double.len())];
    }
    let board: Vec<Move> = moves.iter().copied().filter(|m| !m.is_drop()).collect();
    if !board.is_empty() && rng.below(4) != 0 {
        return board[rng.below(board.len())];
    }
    moves[rng.below(moves.len())]
}

/// Random playouts from `starts` until `MIN_POSITIONS` positions are compared.
fn run<S>(variant: &str, starts: &[String], seed: u64) -> Coverage
where
    S: FromSetup + shakmaty::Position + Clone,
{
    let v = variants::by_name(variant).unwrap_or_else(|| panic!("variant {variant} missing"));
    let mut rng = SplitMix(seed);
    let mut cov = Coverage::default();
    let mut game = 0;
    while cov.positions < MIN_POSITIONS {
        // Half the playouts start from the first FEN, the others cycle through the rest.
        let start = match starts.len() {
            1 => &starts[0],
            _ if game % 2 == 0 => &starts[0],
            n => &starts[1 + (game / 2) % (n - 1)],
        };
        game += 1;
        let mut pos = Position::from_fen(v, start).unwrap_or_else(|e| panic!("bad start FEN {start}: {e}"));
        // Vary the playout length so short games from the suite positions mix with long ones.
        let plies = 1 + rng.below(MAX_PLIES);
        for _ in 0..plies {
            compare::<S>(&pos, &mut cov);
            let moves = pos.legal_moves();
            if moves.is_empty() || pos.is_insufficient_material() {
                break;
            }
            let m = pick(&moves, &mut rng);
            pos.play_unchecked(m);
        }
    }
    cov
}

/// The FENs of the perft suite (`FEN ;D1 n ;D2 ...`), if the file is present.
fn perft_suite() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/perftsuite.epd");
    std::fs::read_to_string(path)
        .map(|text| {
            text.lines()
                .filter_map(|l| l.split(';').next())
                .map(str::trim)
                .filter(|f| !f.is_empty() && !f.starts_with('#'))
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn chess_agrees_with_shakmaty() {
    let mut starts = vec![Position::start(variants::by_name("chess").expect("chess")).fen()];
    let suite = perft_suite();
    starts.extend(suite.iter().cloned());
    let cov = run::<Chess>("chess", &starts, 0xC0FF_EE00_0000_0001);
    eprintln!("chess: {} suite starts, {cov:?}", suite.len());
    assert!(cov.positions >= MIN_POSITIONS);
    assert!(cov.in_check > 500 && cov.mates > 0 && cov.castles > 100, "weak coverage: {cov:?}");
    assert!(cov.en_passant > 100 && cov.promotions > 200, "weak coverage: {cov:?}");
}

/// Positions no game reaches, which a FEN may still hold (docs/RULES.md, "Notation readings"):
/// too many men, impossible checks. Read and played, move for move as shakmaty plays them once
/// told to ignore what it refuses by default.
#[test]
fn positions_no_game_reaches_are_read_and_played() {
    let chess = variants::by_name("chess").expect("chess");
    let mut cov = Coverage::default();
    for fen in [
        "rnBqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/QQQQKQQQ w kq - 0 1",
        "r3k1nr/p3b3/2pppbpp/2PP1K1R/6q1/1PNB1PP1/1pN1Pp2/R1BQ4 w - - 2 20",
        "B6b/8/8/8/2K5/5k2/8/b6B b - - 0 1",
    ] {
        let pos = Position::from_fen(chess, fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        compare::<Chess>(&pos, &mut cov);
        for &m in pos.legal_moves().iter() {
            let mut after = pos.clone();
            after.play_unchecked(m);
            compare::<Chess>(&after, &mut cov);
        }
    }
    assert!(cov.positions >= 40 && cov.moves > 900 && cov.in_check >= 3, "{cov:?}");
}

#[test]
fn crazyhouse_agrees_with_shakmaty() {
    let starts = vec![Position::start(variants::by_name("crazyhouse").expect("crazyhouse")).fen()];
    let cov = run::<Crazyhouse>("crazyhouse", &starts, 0xC0FF_EE00_0000_0002);
    eprintln!("crazyhouse: {cov:?}");
    assert!(cov.positions >= MIN_POSITIONS);
    assert!(cov.in_check > 500 && cov.mates > 0 && cov.castles > 100, "weak coverage: {cov:?}");
    assert!(cov.drops_giving_check > 1000 && cov.positions_with_promoted > 100, "weak coverage: {cov:?}");
    assert!(cov.max_pocket >= 10 && cov.en_passant > 20, "weak coverage: {cov:?}");
}
