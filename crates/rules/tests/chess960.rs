//! Chess960: Scharnagl's numbering, X-FEN and Shredder-FEN castling fields read and written,
//! castling in UCI (the king takes its rook) and SAN, the castling edge cases of
//! `tests/data/chess960.perft` (python-chess and Fairy-Stockfish's move lists), clear errors for
//! rights no Chess960 game can have, and shakmaty (Chess960 mode) as an oracle on random games
//! from all 960 start positions.

use rules::moves::MoveKind;
use rules::san::{parse_san, to_san};
use rules::uci::{parse_uci, to_uci};
use rules::variants::chess960;
use rules::{variants, Position, Variant};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

fn chess960() -> &'static Variant {
    variants::by_name("chess960").expect("chess960 is built in")
}

/// One block of the reference file: id, FEN, and the castling moves its comment lists.
struct Entry {
    id: String,
    fen: String,
    castles: Option<Vec<String>>,
}

fn entries() -> Vec<Entry> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/chess960.perft");
    let text = std::fs::read_to_string(path).expect("tests/data/chess960.perft");
    let mut out = Vec::new();
    for block in text.split("\n\n") {
        let mut e = Entry { id: String::new(), fen: String::new(), castles: None };
        for line in block.lines() {
            if let Some(list) = line.strip_prefix("# root castling moves: ") {
                let moves = list.split_whitespace().filter(|m| *m != "none").map(str::to_string).collect();
                e.castles = Some(moves);
            } else if let Some(id) = line.strip_prefix("id ") {
                e.id = id.to_string();
            } else if let Some(fen) = line.strip_prefix("epd ") {
                e.fen = fen.to_string();
            }
        }
        if !e.id.is_empty() {
            out.push(e);
        }
    }
    assert!(out.len() >= 30, "{} entries", out.len());
    out
}

#[test]
fn start_positions_are_numbered_as_scharnagl_numbers_them() {
    let mut checked = 0;
    for e in entries() {
        let Some(n) = e.id.strip_prefix("start-").filter(|n| !n.ends_with("shredder")) else { continue };
        let n: u16 = n.parse().expect("a number");
        assert_eq!(chess960::start_fen(n).as_deref(), Some(e.fen.as_str()), "start position {n}");
        checked += 1;
    }
    assert_eq!(checked, 16);
    assert_eq!(chess960::start_fen(518).as_deref(), Some(chess960().start_fen.as_str()));
    assert_eq!(chess960::start_fen(960), None);
    // Every number gives a different setup, each with the king between its rooks and the
    // bishops on squares of both colours.
    let mut seen = std::collections::HashSet::new();
    for n in 0..chess960::POSITIONS {
        let rank = chess960::back_rank(n).expect("0..960");
        let at = |c: char| rank.iter().enumerate().filter(|(_, &p)| p == c).map(|(i, _)| i).collect::<Vec<_>>();
        let (rooks, king, bishops) = (at('R'), at('K'), at('B'));
        assert!(rooks[0] < king[0] && king[0] < rooks[1], "{n}: {rank:?}");
        assert_ne!(bishops[0] % 2, bishops[1] % 2, "{n}: {rank:?}");
        assert!(seen.insert(rank), "{n} repeats");
        let fen = chess960::start_fen(n).expect("0..960");
        assert_eq!(Position::from_fen(chess960(), &fen).expect("a start position").fen(), fen);
    }
}

#[test]
fn castling_fields_read_and_written_as_x_fen() {
    for e in entries() {
        let pos = Position::from_fen(chess960(), &e.fen).unwrap_or_else(|err| panic!("{}: {err}", e.id));
        // Shredder-FEN reads to the same position, written back in X-FEN as python-chess writes it.
        let x_fen = match e.id.strip_suffix("-shredder") {
            Some(twin) => entries().into_iter().find(|t| t.id == twin).expect("its twin").fen,
            None => e.fen.clone(),
        };
        assert_eq!(pos.fen(), x_fen, "{}", e.id);
        assert_eq!(pos.variant().name, "chess960");
    }
}

#[test]
fn castling_moves_match_the_references_in_uci_and_san() {
    let mut listed = 0;
    for e in entries() {
        let Some(expected) = &e.castles else { continue };
        listed += 1;
        let pos = Position::from_fen(chess960(), &e.fen).expect("valid");
        let mut ours: Vec<String> =
            pos.legal_moves().iter().filter(|m| m.kind() == MoveKind::Castle).map(|&m| to_uci(&pos, m)).collect();
        ours.sort();
        let mut expected = expected.clone();
        expected.sort();
        assert_eq!(ours, expected, "{}", e.id);
        for text in &ours {
            let m = parse_uci(&pos, text).expect("our UCI reads back");
            assert_eq!(m.kind(), MoveKind::Castle);
            let san = to_san(&pos, m);
            assert!(san.starts_with("O-O"), "{san}");
            assert_eq!(parse_san(&pos, &san).expect("SAN reads back"), m);
        }
    }
    assert!(listed >= 10, "{listed}");
    // The king that does not move: g1h1 castles (Kg1, Rf1); SAN O-O.
    let pos = Position::from_fen(chess960(), "b1rb1nk1/1p3p2/p3pnpp/2ppB3/1P3P2/2PPN1P1/P3P2P/1QRBN1KR w KQq - 0 11")
        .expect("valid");
    let m = parse_uci(&pos, "g1h1").expect("castling");
    assert_eq!(to_san(&pos, m), "O-O");
    let mut after = pos.clone();
    after.play(m).expect("legal");
    assert!(
        after.fen().starts_with("b1rb1nk1/1p3p2/p3pnpp/2ppB3/1P3P2/2PPN1P1/P3P2P/1QRBNRK1 b q - "),
        "{}",
        after.fen()
    );
    // King and rook swapping squares from the start (position 600: Kf1, Rg1): legal at once.
    let pos = Position::from_fen(chess960(), "rbqnbkrn/pppppppp/8/8/8/8/PPPPPPPP/RBQNBKRN w KQkq - 0 1").expect("600");
    let m = parse_uci(&pos, "f1g1").expect("castling");
    assert_eq!((m.kind(), to_san(&pos, m).as_str()), (MoveKind::Castle, "O-O"));
    let mut after = pos.clone();
    after.play(m).expect("legal");
    assert!(after.fen().starts_with("rbqnbkrn/pppppppp/8/8/8/8/PPPPPPPP/RBQNBRKN b kq - "), "{}", after.fen());
}

#[test]
fn castling_rights_no_chess960_game_can_have_are_refused() {
    let v = chess960();
    let bad = |fen: &str| match Position::from_fen(v, fen) {
        Ok(p) => panic!("{fen} read as {}", p.fen()),
        Err(e) => e.to_string(),
    };
    // The kings on different files, both with rights.
    let e = bad("2b1k2r/pppq1ppp/2n2n2/4p3/4P3/2NP1N2/PPP2PPP/rR1K3R w KQk - 0 1");
    assert!(e.contains("different files"), "{e}");
    // A right without a rook on that side of the king.
    let e = bad("4k3/8/8/8/8/8/8/R3K3 w K - 0 1");
    assert!(e.contains("rook"), "{e}");
    // A file letter naming a square with no rook.
    let e = bad("4k3/8/8/8/8/8/8/R3K2R w G - 0 1");
    assert!(e.contains("rook"), "{e}");
    // Orthodox chess reads file letters only for its corner rooks (Shredder-FEN, as python-chess
    // does): `HAha` is `KQkq`; any other file is Chess960's and refused.
    let chess = variants::by_name("chess").expect("chess");
    let p = Position::from_fen(chess, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1").expect("corners");
    assert_eq!(p.fen(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    assert!(Position::from_fen(chess, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w Bb - 0 1").is_err());
}

/// splitmix64: a tiny deterministic PRNG private to this test.
struct SplitMix(u64);

impl SplitMix {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        ((u128::from(z) * n as u128) >> 64) as usize
    }
}

#[test]
fn random_games_from_every_start_agree_with_shakmaty() {
    let (positions, castles, drops) = random_games_agree::<Chess>(chess960(), 960);
    assert!(positions > 30_000, "{positions}");
    assert!(castles > 500, "castled {castles} times");
    assert_eq!(drops, 0);
}

/// Crazyhouse960 against shakmaty's crazyhouse in Chess960 mode: drops, captures to hand and
/// Chess960 castling together.
#[test]
fn crazyhouse960_games_from_every_start_agree_with_shakmaty() {
    let v = variants::by_name("crazyhouse960").expect("crazyhouse960 is built in");
    let (positions, castles, drops) = random_games_agree::<shakmaty::variant::Crazyhouse>(v, 961);
    eprintln!("crazyhouse960 against shakmaty: {positions} positions, {castles} castlings, {drops} drops");
    assert!(positions > 30_000, "{positions}");
    assert!(castles > 500 && drops > 1000, "castled {castles} times, dropped {drops} times");
}

/// Plays a random game of up to 40 plies from each of the 960 starts in `v`, castling whenever
/// it can half of the time, comparing every position's legal moves, FEN and castling rights with
/// shakmaty's `S` in Chess960 mode; returns the positions compared, the castling moves and the
/// drops played.
fn random_games_agree<S>(v: &'static Variant, seed: u64) -> (usize, usize, usize)
where
    S: shakmaty::FromSetup + shakmaty::Position + Clone,
{
    let mut rng = SplitMix(seed);
    let (mut positions, mut castles, mut drops) = (0, 0, 0);
    for n in 0..chess960::POSITIONS {
        let fen = chess960::start_fen_in(v, n).expect("0..960");
        let mut ours = Position::from_fen(v, &fen).expect("start");
        assert_eq!(ours.variant().name, v.name);
        let parsed: Fen = fen.parse().expect("shakmaty reads it");
        let mut theirs: S = parsed.into_position(CastlingMode::Chess960).expect("shakmaty accepts it");
        for _ in 0..40 {
            let mut a: Vec<String> = ours.legal_moves().iter().map(|&m| to_uci(&ours, m)).collect();
            let mut b: Vec<String> =
                theirs.legal_moves().iter().map(|m| m.to_uci(CastlingMode::Chess960).to_string()).collect();
            a.sort();
            b.sort();
            assert_eq!(a, b, "legal moves of {}", ours.fen());
            positions += 1;
            if a.is_empty() {
                break;
            }
            // Castling whenever it is there, to exercise it; otherwise a random move.
            let pick = ours
                .legal_moves()
                .iter()
                .copied()
                .find(|m| m.kind() == MoveKind::Castle)
                .filter(|_| rng.below(2) == 0)
                .unwrap_or_else(|| ours.legal_moves()[rng.below(a.len())]);
            let text = to_uci(&ours, pick);
            castles += usize::from(pick.kind() == MoveKind::Castle);
            drops += usize::from(pick.kind() == MoveKind::Drop);
            let m = shakmaty::uci::UciMove::from_ascii(text.as_bytes())
                .expect("UCI")
                .to_move(&theirs)
                .expect("legal for shakmaty");
            theirs.play_unchecked(m);
            ours.play(pick).expect("legal");
            // Our FEN reads back into the same position, of the same variant, even once a right
            // is gone (the fen fuzz target's invariant).
            let fen = ours.fen();
            let again = Position::from_fen(ours.variant(), &fen).expect("our FEN reads back");
            assert_eq!(again.fen(), fen);
            if ours.ep_square() == ours.legal_ep_square() {
                assert!(again == ours, "{fen} reads back into another position");
            }
            // The same position: placement, side, and castling rights (shakmaty's Shredder-style
            // rights against ours, by the rook squares left).
            let their_fen = Fen::from_position(&theirs, shakmaty::EnPassantMode::Legal).to_string();
            let board = |f: &str| f.split(' ').take(2).collect::<Vec<_>>().join(" ");
            assert_eq!(board(&ours.fen()), board(&their_fen), "after {text}");
            assert_eq!(
                ours.castling_rights().iter().filter(|&&r| r).count(),
                theirs.castles().castling_rights().count(),
                "castling rights after {text} in {}",
                ours.fen()
            );
        }
    }
    (positions, castles, drops)
}

#[test]
fn records_round_trip_with_the_start_position() {
    use rules::game::Game;
    use rules::record::{read_pgn, write_pgn};
    // Position 600 (Kf1, Rg1): castling at once swaps king and rook.
    let start = Position::from_fen(chess960(), &chess960::start_fen(600).expect("600")).expect("valid");
    let mut game = Game::new(start);
    for text in ["f1g1", "f8g8", "b2b3"] {
        let m = parse_uci(game.position(), text).expect("legal");
        game.play(m).expect("legal");
    }
    let pgn = write_pgn(&game, &[]);
    assert!(pgn.contains("[Variant \"Chess960\"]"), "{pgn}");
    assert!(pgn.contains("[FEN \"rbqnbkrn/pppppppp/8/8/8/8/PPPPPPPP/RBQNBKRN w KQkq - 0 1\"]"), "{pgn}");
    assert!(pgn.contains("1. O-O O-O 2. b3"), "{pgn}");
    let back = read_pgn(&pgn).expect("reads back");
    assert_eq!(back.moves(), game.moves());
    assert_eq!(back.position().fen(), game.position().fen());
    // WinBoard's name for the variant, and the orthodox setup without a FEN tag.
    let back = read_pgn("[Variant \"fischerandom\"]\n\n1. e4 e5 2. Nf3 Nf6 3. Bc4 Bc5 4. O-O *\n").expect("reads");
    assert_eq!(back.position().variant().name, "chess960");
    assert_eq!(to_uci(&back.start().clone(), back.moves()[0]), "e2e4");
    assert!(back.position().fen().starts_with("rnbqk2r/pppp1ppp/5n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 b kq - "));
    // Written, number 518 (the orthodox start) is named too, as lichess writes it; it reads back.
    let orthodox = Position::from_fen(chess960(), &chess960::start_fen(518).expect("518")).expect("valid");
    let pgn = write_pgn(&Game::new(orthodox), &[]);
    assert!(pgn.contains("[SetUp \"1\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\"]"), "{pgn}");
    assert_eq!(read_pgn(&pgn).expect("reads back").start().fen(), chess960::start_fen(518).expect("518"));
}
