//! Zugzwang (`tests/data/zugzwang.epd`): positions where a pass would beat every move, so a
//! null-move cut-off must be verified. Each is searched to depth 12 and must give its best move.

use engine::{Engine, Limits, Score};
use rules::{san, variants, Position};

/// The positions with their best move in SAN, from the test data.
fn positions() -> Vec<(String, Position, String)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/zugzwang.epd");
    let text = std::fs::read_to_string(path).expect("zugzwang.epd");
    let chess = variants::by_name("chess").expect("chess");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let fields: Vec<&str> = l.split_whitespace().collect();
            let pos = Position::from_fen(chess, &format!("{} 0 1", fields[..4].join(" "))).expect("FEN");
            let opcode = |name: &str| {
                let at = l.find(name).unwrap_or_else(|| panic!("{name} in {l}")) + name.len();
                l[at..].split(';').next().expect("opcode").trim().trim_matches('"').to_string()
            };
            (opcode(" id "), pos, opcode(" bm "))
        })
        .collect()
}

#[test]
fn zugzwang_positions_get_their_best_move_at_depth_12() {
    let positions = positions();
    assert_eq!(positions.len(), 3);
    for (id, pos, bm) in positions {
        let best = san::parse_san(&pos, &bm).expect("bm");
        let r = Engine::new().search(pos.clone(), &[], Limits::depth(12), |_| {});
        assert_eq!(
            r.best,
            Some(best),
            "{id}: {} found instead of {bm}",
            r.best.map_or("none".into(), |m| rules::uci::to_uci(&pos, m))
        );
    }
}

#[test]
fn the_rook_sacrifice_into_zugzwang_is_seen_as_mate_in_2() {
    // Before null-move verification this took depth 29: Black's pass (with the rook en prise)
    // cut off the search of 1.Ra6, where every Black move loses.
    let (_, pos, _) = positions().pop().expect("zugzwang.003");
    let r = Engine::new().search(pos, &[], Limits::depth(6), |_| {});
    assert_eq!(r.score, Score::Mate(2));
}
