//! Castling on boards of 5 to 7 files, where the king's move can read as a step of the king: every
//! position of `tests/data/castling-narrow.txt` has Fairy-Stockfish's legal moves in UCI, and each UCI
//! text reads back as the one move it was written for.

use rules::uci::{parse_uci, to_uci};
use rules::{spec, Position};
use std::collections::BTreeSet;
use std::path::Path;

fn data(rel: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data").join(rel)
}

#[test]
fn narrow_boards_castle_in_fairy_stockfish_notation() {
    let text = std::fs::read_to_string(data("castling-narrow.txt")).expect("castling-narrow.txt");
    let (mut variant, mut fen) = (None, None);
    let (mut positions, mut castlings) = (0, 0);
    for (n, line) in text.lines().enumerate() {
        let at = || format!("castling-narrow.txt:{}", n + 1);
        if let Some(name) = line.strip_prefix("variant ") {
            let path = data(&format!("variants/{name}.toml"));
            variant = Some(spec::load_variant_file(&path).unwrap_or_else(|e| panic!("{}: {e}", at())));
        } else if let Some(f) = line.strip_prefix("fen ") {
            fen = Some(f.to_string());
        } else if let Some(moves) = line.strip_prefix("moves ") {
            let v = variant.unwrap_or_else(|| panic!("{}: no variant before the moves", at()));
            let fen = fen.take().unwrap_or_else(|| panic!("{}: no FEN before the moves", at()));
            let pos = Position::from_fen(v, &fen).unwrap_or_else(|e| panic!("{}: {e}", at()));
            let expected: BTreeSet<&str> = moves.split_whitespace().collect();
            let legal = pos.legal_moves();
            let written: Vec<String> = legal.iter().map(|&m| to_uci(&pos, m)).collect();
            let ours: BTreeSet<&str> = written.iter().map(String::as_str).collect();
            assert_eq!(ours.len(), written.len(), "{}: two moves share a UCI text in {fen}: {written:?}", at());
            assert_eq!(ours, expected, "{}: {fen}", at());
            for (&m, text) in legal.iter().zip(&written) {
                assert_eq!(parse_uci(&pos, text).ok(), Some(m), "{}: {text} in {fen}", at());
                if m.kind() == rules::MoveKind::Castle {
                    castlings += 1;
                }
            }
            positions += 1;
        }
    }
    assert_eq!(positions, 24, "the file's positions");
    assert!(castlings >= 20, "only {castlings} castlings among the positions");
}

/// A board of 4 files cannot castle (both castlings would leave the king on c1): asked for, it
/// is refused; inherited from chess, it is dropped.
#[test]
fn four_files_have_no_castling() {
    let asked = "name = \"c4\"\nparent = \"chess\"\nfiles = 4\nranks = 4\nstart = \"r1kr/pppp/PPPP/R1KR w - - 0 1\"\nremove-pieces = [\"n\", \"b\", \"q\"]\npromotion = [\"r\"]\ndouble-step = false\ncastling = true\n";
    let e = spec::load_variant_str(asked).expect_err("castling on 4 files");
    assert!(e.to_string().contains("castling needs at least 5 files"), "{e}");
    let inherited = asked.replace("castling = true\n", "");
    let v = spec::load_variant_str(&inherited).expect("castling dropped");
    assert!(v.rules().castling.is_none());
}

/// Shredder-FEN's castling letters in standard chess (python-chess reads them): the corner
/// rooks' files stand for `KQkq`, and the FEN is written back with those; another file is
/// refused, since standard castling has no other rook.
#[test]
fn shredder_letters_name_the_corner_rooks_in_standard_chess() {
    let v = rules::variants::by_name("chess").expect("chess");
    let p = rules::Position::from_fen(v, "r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1").expect("Shredder-FEN");
    assert_eq!(p.fen(), "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    let p = rules::Position::from_fen(v, "r3k2r/8/8/8/8/8/8/R3K2R w Ha - 0 1").expect("Shredder-FEN");
    assert_eq!(p.fen(), "r3k2r/8/8/8/8/8/8/R3K2R w Kq - 0 1");
    assert!(rules::Position::from_fen(v, "r3k2r/8/8/8/8/8/8/R3K2R w Bb - 0 1").is_err());
    assert!(rules::Position::from_fen(v, "r3k2r/8/8/8/8/8/8/R3K2R w HK - 0 1").is_err(), "the same right twice");
}
