//! Predictor chess (RULINGS § Predictor chess): the hand-worked plies of
//! `tests/data/predictor/resolution.toml`, and properties of `predictor::resolve` over random
//! positions and random valid orders.
//!
//! The data file's expected results were worked out by hand from the seed and the rulings; this
//! test only compares. Each case's name is printed with whatever disagrees, and every failing
//! case is listed before the test fails.
//!
//! The properties: (a) a ply never creates pieces (promotions aside) and removes exactly the
//! annihilated and captured ones, every executed leg lands its piece and no other piece moves;
//! (b) a ply without interaction (no shared path square between
//! the colours, no move onto an enemy mover's start, no conditional fired) is White's primary
//! then Black's played in sequence; (c) mirroring the board with the colours swapped, and the
//! orders with it, mirrors the result and the report. The hand-worked cases are checked
//! against the same properties.

use std::collections::BTreeSet;

use proptest::prelude::*;
use rules::path::legs;
use rules::predictor::{outcome, resolve, side_view, Conditional, Orders, PieceAt, PlyReport};
use rules::{Color, Move, MoveKind, Position, Square};
use serde::Deserialize;

fn variant() -> &'static rules::Variant {
    rules::variants::predictor::variant()
}

fn position(fen: &str) -> Result<Position, String> {
    Position::from_fen(variant(), fen).map_err(|e| format!("bad FEN {fen}: {e}"))
}

// ---------------------------------------------------------------------------------------------
// The hand-worked cases.
// ---------------------------------------------------------------------------------------------

/// The least number of cases the data file must hold (issue 8).
const MIN_CASES: usize = 30;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DataFile {
    case: Vec<Case>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    rule: String,
    fen: String,
    white: String,
    black: String,
    board: Option<String>,
    annihilated: Option<Vec<String>>,
    captured: Option<Vec<String>>,
    fired: Option<[bool; 2]>,
    outcome: Option<String>,
    halfmoves: Option<u32>,
    fullmoves: Option<u32>,
    castling: Option<String>,
    error: Option<String>,
    side: Option<String>,
}

fn load_cases() -> Vec<Case> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/predictor/resolution.toml");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    let file: DataFile = toml::from_str(&text).unwrap_or_else(|e| panic!("cannot parse {path}: {e}"));
    file.case
}

/// The variant name of an error, from its `Debug` form (`Syntax { .. }` gives `Syntax`).
fn variant_name(e: &impl std::fmt::Debug) -> String {
    format!("{e:?}").chars().take_while(char::is_ascii_alphanumeric).collect()
}

fn piece_names(v: &[PieceAt]) -> BTreeSet<String> {
    v.iter().map(|p| format!("{}{}", p.letter, p.square)).collect()
}

fn castling_text(pos: &Position) -> String {
    let s: String =
        pos.castling_rights().iter().zip(['K', 'Q', 'k', 'q']).filter(|(on, _)| **on).map(|(_, c)| c).collect();
    if s.is_empty() {
        "-".into()
    } else {
        s
    }
}

fn outcome_text(pos: &Position) -> Option<String> {
    outcome(pos).map(|o| match o {
        rules::outcome::Outcome::Decisive { winner: Color::White, .. } => "white".into(),
        rules::outcome::Outcome::Decisive { winner: Color::Black, .. } => "black".into(),
        rules::outcome::Outcome::Draw { .. } => "draw".into(),
    })
}

/// Checks one case; the disagreements, empty when it holds.
fn check_case(c: &Case) -> Vec<String> {
    let mut out = Vec::new();
    let pos = match position(&c.fen) {
        Ok(p) => p,
        Err(e) => return vec![e],
    };
    let white = Orders::parse(&pos, Color::White, &c.white);
    let black = Orders::parse(&pos, Color::Black, &c.black);
    if let Some(expected) = &c.error {
        let (rejected, other, other_name) = match c.side.as_deref() {
            Some("white") => (&white, &black, "black"),
            Some("black") => (&black, &white, "white"),
            s => return vec![format!("side must be \"white\" or \"black\", not {s:?}")],
        };
        match rejected {
            Ok(o) => out.push(format!("expected {expected}, but the orders were accepted as {o:?}")),
            Err(e) if variant_name(e) != *expected => out.push(format!("expected {expected}, got {e:?} ({e})")),
            Err(_) => {}
        }
        if let Err(e) = other {
            out.push(format!("{other_name}'s orders should be valid: {e}"));
        }
        return out;
    }
    let (white, black) = match (white, black) {
        (Ok(w), Ok(b)) => (w, b),
        (w, b) => {
            for (name, r) in [("white", w), ("black", b)] {
                if let Err(e) = r {
                    out.push(format!("{name}'s orders rejected: {e}"));
                }
            }
            return out;
        }
    };
    let (after, report) = match resolve(&pos, &white, &black) {
        Ok(r) => r,
        Err(e) => return vec![format!("resolve refused valid orders: {e}")],
    };
    if after.hash() != after.hash_from_scratch() {
        out.push("the position's hash is not its hash from scratch".into());
    }
    // 4.5: the report carries both orders, predictions included, as written.
    for (side, text, orders) in
        [(Color::White, &c.white, &report.orders[0]), (Color::Black, &c.black, &report.orders[1])]
    {
        let reported = orders.to_text(&pos, side);
        if reported != *text {
            out.push(format!("the report's {side:?} orders are '{reported}', not '{text}'"));
        }
    }
    let Some(board) = &c.board else { return vec!["a resolved case needs `board`".into()] };
    if after.board_fen() != *board {
        out.push(format!("board: expected {board}, got {}", after.board_fen()));
    }
    for (what, expected, got) in [
        ("annihilated", &c.annihilated, piece_names(&report.annihilated)),
        ("captured", &c.captured, piece_names(&report.captured)),
    ] {
        let Some(expected) = expected else {
            out.push(format!("a resolved case needs `{what}`"));
            continue;
        };
        let expected: BTreeSet<String> = expected.iter().cloned().collect();
        if expected != got {
            out.push(format!("{what}: expected {expected:?}, got {got:?}"));
        }
    }
    for (what, list) in [("annihilated", &report.annihilated), ("captured", &report.captured)] {
        if piece_names(list).len() != list.len() {
            out.push(format!("{what} names a piece twice: {list:?}"));
        }
    }
    match c.fired {
        Some(f) if f != report.fired => out.push(format!("fired: expected {f:?}, got {:?}", report.fired)),
        Some(_) => {}
        None => out.push("a resolved case needs `fired`".into()),
    }
    let got = outcome_text(&after);
    if got != c.outcome {
        out.push(format!("outcome: expected {:?}, got {got:?} ({:?})", c.outcome, outcome(&after)));
    }
    if let Some(h) = c.halfmoves {
        if after.halfmoves() != h {
            out.push(format!("halfmoves: expected {h}, got {}", after.halfmoves()));
        }
    }
    if let Some(f) = c.fullmoves {
        if after.fullmoves() != f {
            out.push(format!("fullmoves: expected {f}, got {}", after.fullmoves()));
        }
    }
    if let Some(k) = &c.castling {
        if castling_text(&after) != *k {
            out.push(format!("castling: expected {k}, got {}", castling_text(&after)));
        }
    }
    if after.turn() != pos.turn() {
        out.push("after a ply the same side should be to move".into());
    }
    let properties = check_no_creation(&pos, &after, &report)
        .and_then(|()| check_every_piece_lands(&pos, &after, &report))
        .and_then(|_| check_independent_is_sequential(&pos, &after, &report))
        .and_then(|_| check_mirror(&pos, &after, &report));
    if let Err(e) = properties {
        out.push(format!("a property fails: {e}"));
    }
    out
}

#[test]
fn hand_worked_resolutions() {
    let cases = load_cases();
    assert!(cases.len() >= MIN_CASES, "only {} cases in resolution.toml, at least {MIN_CASES} wanted", cases.len());
    let mut names = BTreeSet::new();
    let mut failed = Vec::new();
    for c in &cases {
        assert!(names.insert(c.name.as_str()), "case name {} used twice", c.name);
        assert!(!c.rule.is_empty(), "case {} names no rule", c.name);
        let problems = check_case(c);
        if !problems.is_empty() {
            eprintln!("case {} (rule {}):", c.name, c.rule);
            for p in &problems {
                eprintln!("    {p}");
            }
            failed.push(c.name.clone());
        }
    }
    assert!(failed.is_empty(), "{} of {} cases failed: {}", failed.len(), cases.len(), failed.join(", "));
}

#[test]
fn every_rejection_appears_in_the_data() {
    let seen: BTreeSet<String> = load_cases().into_iter().filter_map(|c| c.error).collect();
    for name in [
        "Syntax",
        "IllegalPrimary",
        "IllegalPrediction",
        "IllegalResponse",
        "ResponsePathOccupied",
        "ResponseSamePiece",
        "ResponseOntoPrimaryTarget",
        "EnPassantPrimary",
    ] {
        assert!(seen.contains(name), "no case is rejected with {name}");
    }
}

/// A king taken ends the game, and the position it leaves, kingless, is written and read back
/// like any other (the record's last position; found by the FEN fuzz target).
#[test]
fn a_position_without_a_king_reads_back() {
    let pos = position("4k3/8/8/8/8/8/8/r3R1K1 w - - 0 1").expect("White may take the king that stands attacked");
    let take = Orders::parse(&pos, Color::White, "e1e8").expect("the king capture is a primary");
    let wait = Orders::parse(&pos, Color::Black, "a1e1").expect("Black takes the checking rook, which has gone");
    let (after, _) = resolve(&pos, &take, &wait).expect("the ply resolves");
    let fen = after.fen();
    assert!(!fen.contains('k'), "{fen}");
    let again = position(&fen).expect("a kingless Predictor position reads");
    assert_eq!(again.fen(), fen);
    assert_eq!(outcome_text(&again), outcome_text(&after));
    assert_eq!(outcome_text(&again).as_deref(), Some("white"));
    // In chess a king is never taken: a kingless position is refused.
    let chess = rules::variants::by_name("chess").expect("chess");
    assert!(Position::from_fen(chess, &fen).is_err());
}

/// Insufficient material is bare kings only: a lone knight wins when the enemy king steps onto
/// the square its Z path passes (the audit's case: Nb1-c3 visits b2, c2, c3 and the king goes
/// d3-c2), so K+N against K plays on, and so do K+B against K and same-coloured bishops.
#[test]
fn insufficient_material_is_bare_kings() {
    let pos = position("8/8/8/8/8/3k4/8/1N2K3 w - - 0 1").expect("K+N against K");
    assert_eq!(outcome_text(&pos), None, "K+N against K is not a draw in Predictor chess");
    let white = Orders::parse(&pos, Color::White, "b1c3").expect("a primary");
    let black = Orders::parse(&pos, Color::Black, "d3c2").expect("a primary");
    let (after, report) = resolve(&pos, &white, &black).expect("the ply resolves");
    let names: BTreeSet<String> = ["Nb1", "kd3"].map(String::from).into();
    assert_eq!(piece_names(&report.annihilated), names);
    assert_eq!(outcome_text(&after).as_deref(), Some("white"), "the king annihilated: White wins");
    for fen in ["8/8/8/8/8/3k4/8/2B1K3 w - - 0 1", "2b5/8/8/8/8/3k4/8/3BK3 w - - 0 1"] {
        assert_eq!(outcome_text(&position(fen).expect("valid")), None, "{fen}");
    }
    let bare = position("8/8/8/8/8/3k4/8/4K3 w - - 0 1").expect("bare kings");
    assert_eq!(outcome_text(&bare).as_deref(), Some("draw"), "bare kings are insufficient material");
    assert!(bare.is_insufficient_material());
}

// ---------------------------------------------------------------------------------------------
// Properties over random positions and orders.
// ---------------------------------------------------------------------------------------------

/// Start positions: the start, and middlegames with castling, promotions and en passant near.
const STARTS: [&str; 5] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "r3k3/1P4P1/8/8/8/8/1p4p1/R3K3 w Qq - 0 1",
    "r3k2r/ppp2ppp/2n1b3/3pP3/3P4/2N1B3/PPP2PPP/R3K2R b KQkq - 0 9",
];

/// The longest random playout before the ply, in moves.
const MAX_PLAYOUT: usize = 30;

/// A position from start `start` after the random legal moves `choices`.
fn random_position(start: usize, choices: &[u16]) -> Position {
    let mut pos = position(STARTS[start % STARTS.len()]).expect("the start FENs are valid");
    for &c in choices {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        pos.play_unchecked(moves[c as usize % moves.len()]);
    }
    pos
}

/// The primaries `side` may order (every legal move but en passant).
fn primaries(pos: &Position, side: Color) -> Vec<Move> {
    side_view(pos, side).legal_moves().iter().copied().filter(|m| m.kind() != MoveKind::EnPassant).collect()
}

/// Every valid conditional of `side` for the primary `primary` and the prediction `prediction`:
/// the side's legal moves and the en-passant answers to a predicted double push, kept when the
/// whole orders validate.
fn responses(pos: &Position, side: Color, primary: Move, prediction: Move) -> Vec<Orders> {
    let view = side_view(pos, side);
    let mut candidates: Vec<Move> = view.legal_moves().iter().copied().collect();
    if prediction.kind() == MoveKind::DoubleStep {
        let (from, to) = (prediction.from(), prediction.to());
        let passed = Square::from_index(((from.index() + to.index()) / 2) as u8);
        for df in [-1i8, 1] {
            if let Some(beside) = to.offset(df, 0) {
                candidates.push(Move::en_passant(beside, passed));
            }
        }
    }
    candidates
        .into_iter()
        .map(|response| Orders { primary, conditional: Some(Conditional { prediction, response }) })
        .filter(|o| o.validate(pos, side).is_ok())
        .collect()
}

/// Random valid orders for both sides, or `None` when a side has no primary. `seeds` pick the
/// primaries, whether each side adds a conditional, whether its prediction is the enemy's real
/// primary (so that it fires) or a random enemy move, and the response.
fn random_orders(pos: &Position, seeds: &[u16; 8]) -> Option<[Orders; 2]> {
    let pick = |list: &[Move], seed: u16| list.get(seed as usize % list.len().max(1)).copied();
    let own = [primaries(pos, Color::White), primaries(pos, Color::Black)];
    let primary = [pick(&own[0], seeds[0])?, pick(&own[1], seeds[1])?];
    let mut orders =
        [Orders { primary: primary[0], conditional: None }, Orders { primary: primary[1], conditional: None }];
    for side in [Color::White, Color::Black] {
        let (i, e) = (side.index(), (!side).index());
        let s = &seeds[2 + 3 * i..5 + 3 * i];
        if s[0].is_multiple_of(3) {
            continue;
        }
        let prediction = if s[0] % 3 == 1 { primary[e] } else { pick(&own[e], s[1])? };
        let valid = responses(pos, side, primary[i], prediction);
        if let Some(o) = valid.get(s[2] as usize % valid.len().max(1)) {
            orders[i] = *o;
        }
    }
    Some(orders)
}

/// Piece counts by colour and role.
fn counts(pos: &Position) -> Vec<[u32; 2]> {
    variant().roles().map(|r| [Color::White, Color::Black].map(|c| pos.board().pieces(c, r).count())).collect()
}

/// The moves a side played (its primary, and its response when the conditional fired).
fn played(orders: &Orders, fired: bool) -> Vec<Move> {
    let mut v = vec![orders.primary];
    if let (true, Some(c)) = (fired, orders.conditional) {
        v.push(c.response);
    }
    v
}

/// (a) Resolution never creates pieces: per colour and role, the count after (promoted pieces
/// counted as the pawns they were) is at most the count before, and exactly the count before
/// less the annihilated and captured pieces.
fn check_no_creation(pos: &Position, after: &Position, report: &PlyReport) -> Result<(), TestCaseError> {
    let v = variant();
    let pawn = v.pawn().expect("chess has pawns").index();
    let before = counts(pos);
    let mut folded = counts(after);
    let gone: BTreeSet<Square> = report.annihilated.iter().map(|p| p.square).collect();
    for side in [Color::White, Color::Black] {
        let i = side.index();
        for m in played(&report.orders[i], report.fired[i]) {
            if let (Some(r), false) = (m.promotion_role(), gone.contains(&m.from())) {
                folded[r.index()][i] -= 1;
                folded[pawn][i] += 1;
            }
        }
    }
    let mut lost = vec![[0u32; 2]; before.len()];
    for p in report.annihilated.iter().chain(&report.captured) {
        let role = v.role_by_letter(p.letter).expect("a reported letter is a piece of the variant");
        let color = if p.letter.is_ascii_uppercase() { Color::White } else { Color::Black };
        prop_assert_eq!(
            pos.board().piece_at(p.square).map(|q| (q.role, q.color)),
            Some((role, color)),
            "{} is reported but not on the board before the ply",
            p.letter
        );
        lost[role.index()][color.index()] += 1;
    }
    for r in 0..before.len() {
        for c in 0..2 {
            prop_assert!(folded[r][c] <= before[r][c], "role {} colour {} grew: {:?} -> {:?}", r, c, before, folded);
            prop_assert_eq!(
                folded[r][c] + lost[r][c],
                before[r][c],
                "role {} colour {}: lost pieces unaccounted",
                r,
                c
            );
        }
    }
    let total = |p: &Position| p.board().occupied().count() as usize;
    prop_assert_eq!(total(after) + report.annihilated.len() + report.captured.len(), total(pos));
    Ok(())
}

/// (a') Every piece is accounted for on the board: each leg of a played move whose piece was
/// not annihilated ends with that piece (promoted if it promotes) on its target, and every
/// other piece that neither moved nor was captured is still where it stood.
fn check_every_piece_lands(pos: &Position, after: &Position, report: &PlyReport) -> Result<(), TestCaseError> {
    let gone: BTreeSet<Square> = report.annihilated.iter().map(|p| p.square).collect();
    let taken: BTreeSet<Square> = report.captured.iter().map(|p| p.square).collect();
    let mut moved = BTreeSet::new();
    for side in [Color::White, Color::Black] {
        let i = side.index();
        for m in played(&report.orders[i], report.fired[i]) {
            for leg in legs(&side_view(pos, side), m) {
                moved.insert(leg.from);
                if gone.contains(&leg.from) {
                    continue;
                }
                let piece = pos.board().piece_at(leg.from).expect("a played leg starts on a piece");
                let role = m.promotion_role().unwrap_or(piece.role);
                prop_assert_eq!(
                    after.board().piece_at(leg.to).map(|q| (q.role, q.color)),
                    Some((role, side)),
                    "the piece from {} did not land on {}: {:?}",
                    leg.from,
                    leg.to,
                    report
                );
            }
        }
    }
    for sq in pos.board().occupied() {
        if !moved.contains(&sq) && !taken.contains(&sq) {
            prop_assert_eq!(after.board().piece_at(sq), pos.board().piece_at(sq), "the piece on {} changed", sq);
        }
    }
    Ok(())
}

/// (b) Without interaction the ply is White's primary then Black's, played in sequence.
fn check_independent_is_sequential(
    pos: &Position,
    after: &Position,
    report: &PlyReport,
) -> Result<bool, TestCaseError> {
    if report.fired != [false, false] {
        return Ok(false);
    }
    let [w, b] = report.orders.map(|o| o.primary);
    let wl = legs(&side_view(pos, Color::White), w);
    let bl = legs(&side_view(pos, Color::Black), b);
    for x in &wl {
        for y in &bl {
            if x.path.intersects(y.path) || x.to == y.from || y.to == x.from {
                return Ok(false);
            }
        }
    }
    prop_assert!(report.annihilated.is_empty(), "annihilation without interaction: {:?}", report);
    let mut seq = side_view(pos, Color::White);
    seq.play_unchecked(w);
    prop_assert_eq!(seq.turn(), Color::Black);
    seq.play_unchecked(b);
    prop_assert_eq!(after.board_fen(), seq.board_fen(), "the ply differs from White's move then Black's");
    Ok(true)
}

fn mirror_square(sq: Square) -> Square {
    Square::new(sq.file(), 7 - sq.rank()).expect("a mirrored square is on the board")
}

/// The placement mirrored top to bottom with the colours swapped.
fn mirror_board(board: &str) -> String {
    let ranks: Vec<String> = board.split('/').rev().map(|r| r.chars().map(swap_case).collect()).collect();
    ranks.join("/")
}

fn swap_case(c: char) -> char {
    if c.is_ascii_uppercase() {
        c.to_ascii_lowercase()
    } else {
        c.to_ascii_uppercase()
    }
}

/// The whole FEN mirrored: placement, side to move, castling rights, en-passant square.
fn mirror_fen(fen: &str) -> String {
    let f: Vec<&str> = fen.split_whitespace().collect();
    let turn = if f[1] == "w" { "b" } else { "w" };
    let castling = if f[2] == "-" {
        "-".to_string()
    } else {
        let swapped: Vec<char> = f[2].chars().map(swap_case).collect();
        let ordered: String = ['K', 'Q', 'k', 'q'].into_iter().filter(|c| swapped.contains(c)).collect();
        ordered
    };
    let ep = match Square::parse(f[3]) {
        Some(sq) => mirror_square(sq).to_string(),
        None => "-".into(),
    };
    format!("{} {turn} {castling} {ep} {} {}", mirror_board(f[0]), f[4], f[5])
}

/// Orders text with every square mirrored (`e2e4 if e7e5 then d2d3` -> `e7e5 if e2e4 then d7d6`).
fn mirror_orders(text: &str) -> String {
    let word = |w: &str| -> String {
        if w == "if" || w == "then" {
            return w.into();
        }
        w.chars().map(|c| if c.is_ascii_digit() { char::from(b'9' - (c as u8 - b'0')) } else { c }).collect()
    };
    text.split_whitespace().map(word).collect::<Vec<_>>().join(" ")
}

fn mirror_pieces(v: &[PieceAt]) -> BTreeSet<String> {
    v.iter().map(|p| format!("{}{}", swap_case(p.letter), mirror_square(p.square))).collect()
}

/// (c) Swapping the colours (and mirroring) swaps the orders and mirrors the result and report.
fn check_mirror(pos: &Position, after: &Position, report: &PlyReport) -> Result<(), TestCaseError> {
    let m_pos = position(&mirror_fen(&pos.fen())).map_err(TestCaseError::fail)?;
    let texts = [report.orders[0].to_text(pos, Color::White), report.orders[1].to_text(pos, Color::Black)];
    let m_texts = [mirror_orders(&texts[1]), mirror_orders(&texts[0])];
    let parse = |side: Color, text: &str| {
        Orders::parse(&m_pos, side, text)
            .map_err(|e| TestCaseError::fail(format!("mirrored orders {text} rejected in {}: {e}", m_pos.fen())))
    };
    let m_white = parse(Color::White, &m_texts[0])?;
    let m_black = parse(Color::Black, &m_texts[1])?;
    let (m_after, m_report) =
        resolve(&m_pos, &m_white, &m_black).map_err(|e| TestCaseError::fail(format!("mirror refused: {e}")))?;
    prop_assert_eq!(m_after.board_fen(), mirror_board(&after.board_fen()), "mirrored board");
    prop_assert_eq!(m_report.fired, [report.fired[1], report.fired[0]], "mirrored fired");
    prop_assert_eq!(piece_names(&m_report.annihilated), mirror_pieces(&report.annihilated), "mirrored annihilated");
    prop_assert_eq!(piece_names(&m_report.captured), mirror_pieces(&report.captured), "mirrored captured");
    prop_assert_eq!(m_report.orders[0].to_text(&m_pos, Color::White), m_texts[0].clone());
    prop_assert_eq!(m_report.orders[1].to_text(&m_pos, Color::Black), m_texts[1].clone());
    let rights = after.castling_rights();
    prop_assert_eq!(m_after.castling_rights(), [rights[2], rights[3], rights[0], rights[1]], "mirrored rights");
    prop_assert_eq!(m_after.halfmoves(), after.halfmoves());
    let swap = |o: Option<String>| {
        o.map(|s| match s.as_str() {
            "white" => "black".to_string(),
            "black" => "white".to_string(),
            _ => s,
        })
    };
    prop_assert_eq!(outcome_text(&m_after), swap(outcome_text(after)), "mirrored outcome");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn resolution_properties(
        start in 0usize..STARTS.len(),
        choices in prop::collection::vec(any::<u16>(), 0..MAX_PLAYOUT),
        seeds in any::<[u16; 8]>(),
    ) {
        let pos = random_position(start, &choices);
        let Some([white, black]) = random_orders(&pos, &seeds) else { return Ok(()) };
        let (after, report) = resolve(&pos, &white, &black)
            .map_err(|e| TestCaseError::fail(format!("valid orders refused in {}: {e}", pos.fen())))?;
        prop_assert_eq!(report.orders, [white, black]);
        prop_assert_eq!(after.hash(), after.hash_from_scratch());
        check_no_creation(&pos, &after, &report)?;
        check_every_piece_lands(&pos, &after, &report)?;
        check_independent_is_sequential(&pos, &after, &report)?;
        check_mirror(&pos, &after, &report)?;
    }
}

/// The properties' generator reaches what they are about: fired conditionals, annihilations,
/// captures, independent plies (so (b) is not vacuous). Deterministic seeds, no proptest.
#[test]
fn the_generator_covers_the_interesting_plies() {
    let (mut fired, mut annihilated, mut captured, mut independent) = (0, 0, 0, 0);
    let mut x: u32 = 0x9e37_79b9;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        (x >> 8) as u16
    };
    for _ in 0..300 {
        let start = next() as usize % STARTS.len();
        let choices: Vec<u16> = (0..next() as usize % MAX_PLAYOUT).map(|_| next()).collect();
        let seeds = [(); 8].map(|()| next());
        let pos = random_position(start, &choices);
        let Some([white, black]) = random_orders(&pos, &seeds) else { continue };
        let (after, report) = resolve(&pos, &white, &black).expect("valid orders");
        fired += usize::from(report.fired.contains(&true));
        annihilated += usize::from(!report.annihilated.is_empty());
        captured += usize::from(!report.captured.is_empty());
        independent += usize::from(check_independent_is_sequential(&pos, &after, &report).expect("sequential"));
    }
    eprintln!("fired {fired}, annihilated {annihilated}, captured {captured}, independent {independent}");
    assert!(
        fired >= 30 && annihilated >= 10 && captured >= 5 && independent >= 50,
        "fired {fired}, annihilated {annihilated}, captured {captured}, independent {independent} of 300"
    );
}
