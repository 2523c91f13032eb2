//! Endgame tables as exact knowledge: with a KQ.KR table the search reports the table's mate
//! distance from positions far beyond its horizon and plays a move that keeps it; without the
//! table it does not; a table for other rules is not used.

use egt::tablebase::Tablebase;
use egt::{generate, BoardShape, Material, Metric, PieceSet, Request, TableRules};
use engine::{Engine, Limits};
use rules::{variants, Position};
use std::sync::Arc;

fn tables(metric: Metric) -> Arc<Tablebase> {
    tables_for("KQ.KR", metric)
}

fn tables_for(material: &str, metric: Metric) -> Arc<Tablebase> {
    let pieces = PieceSet::orthodox();
    let req = Request {
        material: Material::parse(material, &pieces).expect("material"),
        board: BoardShape::default(),
        rules: TableRules { metric, ..TableRules::default() },
        pieces,
        max_memory: 1 << 30,
    };
    Arc::new(Tablebase::new(vec![generate(&req, &mut |_| {}).expect("generate")]).expect("usable tables"))
}

#[test]
fn kqkr_mate_distances_come_from_the_table() {
    let chess = variants::by_name("chess").expect("chess");
    // KQKR's longest win under DTC (a long DTM win too), and its colour mirror.
    let tb = tables(Metric::Dtm);
    for fen in ["8/8/2k5/r7/8/8/8/K2Q4 w - - 0 1", "k2q4/8/8/8/R7/2K5/8/8 b - - 0 1"] {
        let pos = Position::from_fen(chess, fen).expect("fen");
        let bound = tb.bind(chess).expect("the table answers for chess");
        let (value, metric) = bound.probe(&pos).expect("covered");
        assert_eq!(metric, Metric::Dtm);
        let egt::Value::Win(n) = value else { panic!("{fen}: {value:?}") };
        let mut engine = Engine::new();
        engine.set_tablebase(Some(tb.clone()));
        let r = engine.search(pos.clone(), &[], Limits::depth(3), |_| {});
        assert_eq!(r.score.to_string(), format!("mate {n}"), "{fen}");
        // The move played keeps the win one move shorter.
        let mut after = pos.clone();
        after.play_unchecked(r.best.expect("a move"));
        let (v2, _) = bound.probe(&after).expect("covered");
        assert_eq!(v2, egt::Value::Loss(n - 1), "{fen}");
        // Without the table a depth-3 search sees no mate.
        let plain = Engine::new().search(pos, &[], Limits::depth(3), |_| {});
        assert!(!plain.score.to_string().starts_with("mate"), "{fen}: {}", plain.score);
    }
}

#[test]
fn tables_under_other_rules_are_refused() {
    let pieces = PieceSet::orthodox();
    let req = Request {
        material: Material::parse("KR.K", &pieces).expect("material"),
        board: BoardShape::default(),
        rules: TableRules { stalemate_wins: true, ..TableRules::default() },
        pieces,
        max_memory: 1 << 30,
    };
    let family = generate(&req, &mut |_| {}).expect("generate");
    assert!(Tablebase::new(vec![family]).is_err());
    // A 5x5 table does not answer for 8x8 chess.
    let pieces = PieceSet::orthodox();
    let req = Request {
        material: Material::parse("KQ.K", &pieces).expect("material"),
        board: BoardShape::new(5, 5).expect("5x5"),
        rules: TableRules::default(),
        pieces,
        max_memory: 1 << 30,
    };
    let tb = Tablebase::new(vec![generate(&req, &mut |_| {}).expect("generate")]).expect("tb");
    assert!(tb.bind(variants::by_name("chess").expect("chess")).is_none());
    assert!(tb.bind(variants::by_name("gardner").expect("gardner")).is_some());
    // Nor for crazyhouse, where a captured queen comes back from the hand: in
    // `8/8/8/8/8/8/2kQ4/K7[] b` the table's draw (Kxd2 leaves a bare king) is a win for Black.
    let tb = tables_for("KQ.K", Metric::Dtm);
    assert!(tb.bind(variants::by_name("chess").expect("chess")).is_some());
    for name in ["crazyhouse", "crazyhouse960"] {
        assert!(tb.bind(variants::by_name(name).expect(name)).is_none(), "{name}");
    }
    let house = variants::by_name("crazyhouse").expect("crazyhouse");
    let pos = Position::from_fen(house, "8/8/8/8/8/8/2kQ4/K7[] b - - 0 1").expect("fen");
    let mut engine = Engine::new();
    engine.set_tablebase(Some(tb));
    let r = engine.search(pos, &[], Limits::depth(8), |_| {});
    assert!(r.score.to_string().starts_with("mate "), "Black mates with the queen from its hand: {}", r.score);
}

#[test]
fn dtc_tables_drive_the_conversion() {
    let chess = variants::by_name("chess").expect("chess");
    let tb = tables(Metric::Dtc);
    let bound = tb.bind(chess).expect("the table answers for chess");
    let mut pos = Position::from_fen(chess, "8/8/2k5/r7/8/8/8/K2Q4 w - - 0 1").expect("fen");
    let mut engine = Engine::new();
    engine.set_tablebase(Some(tb.clone()));
    // White plays table-optimal moves all the way to the conversion (31 moves), Black too.
    let (egt::Value::Win(start), _) = bound.probe(&pos).expect("covered") else { panic!("a win") };
    assert_eq!(start, 31);
    for ply in 0..2 * start {
        let r = engine.search(pos.clone(), &[], Limits::depth(2), |_| {});
        let m = r.best.expect("a move");
        let capture = pos.board().piece_at(m.to()).is_some();
        pos.play_unchecked(m);
        if capture {
            assert_eq!(ply, 2 * start - 2, "the queen captures the rook on White's last move");
            return;
        }
        let expected =
            if ply % 2 == 0 { egt::Value::Loss(start - 1 - ply / 2) } else { egt::Value::Win(start - 1 - ply / 2) };
        assert_eq!(bound.probe(&pos).expect("covered").0, expected, "ply {ply}");
    }
    panic!("no conversion");
}

/// Every legal move with the table's value after it, for positions of both colours: each quiet
/// move's value is its child's probed value seen from the mover, the captures convert (DTC), the
/// best comes first and equals the position's own value, and the moves are the legal moves
/// (the table's pseudo-legal extras all lose at once).
#[test]
fn the_tables_value_every_move() {
    let chess = variants::by_name("chess").expect("chess");
    let mut captures = 0;
    for metric in [Metric::Dtc, Metric::Dtm] {
        let tb = tables(metric);
        let bound = tb.bind(chess).expect("the table answers for chess");
        for fen in [
            "8/8/2k5/r7/8/8/8/K2Q4 w - - 0 1",
            "k2q4/8/8/8/R7/2K5/8/8 b - - 0 1",
            "8/8/2k5/r7/8/8/8/1K1Q4 b - - 0 1",
            "3k4/8/3K4/8/8/8/r7/7Q w - - 0 1",
            "7q/R7/8/8/8/3k4/8/3K4 b - - 0 1",
            "8/8/2k5/8/8/8/3r4/K2Q4 w - - 0 1",
            "k2q4/3R4/8/8/8/2K5/8/8 b - - 0 1",
        ] {
            let pos = Position::from_fen(chess, fen).expect("fen");
            let moves = bound.moves(&pos).expect("covered");
            let (value, _) = bound.probe(&pos).expect("covered");
            assert_eq!(moves[0].1, value, "{fen} ({metric:?}): the best move keeps the position's value");
            assert!(moves.windows(2).all(|w| w[0].1.rank() >= w[1].1.rank()), "{fen}: best first");
            let legal: Vec<String> = pos.legal_moves().iter().map(|m| rules::uci::to_uci(&pos, *m)).collect();
            for m in &legal {
                let (_, v) = moves.iter().find(|(u, _)| u == m).unwrap_or_else(|| panic!("{fen}: {m} missing"));
                let mv = rules::uci::parse_uci(&pos, m).expect("legal");
                let mut after = pos.clone();
                after.play_unchecked(mv);
                let (child, _) = bound.probe(&after).unwrap_or((egt::Value::Draw, metric));
                let capture = pos.board().piece_at(mv.to()).is_some();
                captures += usize::from(capture);
                match (capture, metric, child) {
                    // A capture leaves a king against king and queen or rook, won for the
                    // capturer here: DTC counts the conversion itself, DTM goes on to the mate.
                    (true, Metric::Dtc, _) => assert_eq!(*v, egt::Value::Win(1), "{fen}: {m}"),
                    (true, _, _) => assert!(matches!(v, egt::Value::Win(n) if *n > 1), "{fen}: {m} {v:?}"),
                    (false, _, c) => assert_eq!(*v, c.before(), "{fen} ({metric:?}): {m}"),
                }
            }
            for (u, v) in &moves {
                if !legal.contains(u) {
                    assert_eq!(*v, egt::Value::Loss(0), "{fen}: the illegal {u} loses the king at once");
                }
            }
        }
    }
    assert!(captures >= 4, "captures valued: {captures}");
}

/// The tables ignore the fifty-move rule; the search does not (Syzygy's cursed wins). KQKR's
/// longest DTC win needs 61 half-moves to its conversion: from a clock of 39 it is a win, from
/// 60 a draw. Under DTM the 69 half-moves to mate are within the rule only from a clock of 31
/// or less; beyond, the table gives no verdict and the search claims no mate.
#[test]
fn the_fifty_move_rule_bounds_a_table_win() {
    let chess = variants::by_name("chess").expect("chess");
    let score = |tb: &Arc<Tablebase>, clock: u32| {
        let pos = Position::from_fen(chess, &format!("8/8/2k5/r7/8/8/8/K2Q4 w - - {clock} 1")).expect("fen");
        let mut engine = Engine::new();
        engine.set_tablebase(Some(tb.clone()));
        engine.search(pos, &[], Limits::depth(3), |_| {}).score
    };
    let dtc = tables(Metric::Dtc);
    let win = score(&dtc, 39);
    assert!(matches!(win, engine::Score::Cp(cp) if cp > 10_000), "clock 39: {win}");
    let cursed = score(&dtc, 60);
    assert!(matches!(cursed, engine::Score::Cp(cp) if cp.abs() <= 2), "clock 60: {cursed}");
    let dtm = tables(Metric::Dtm);
    assert_eq!(score(&dtm, 31).to_string(), "mate 35");
    let beyond = score(&dtm, 40);
    assert!(!beyond.to_string().starts_with("mate"), "clock 40: {beyond}");
}

#[test]
fn a_mate_no_move_can_hasten_is_a_draw_beyond_the_clock() {
    // KBNK's longest mate, 33 moves (65 half-moves): nothing can reset the count (a capture of
    // the bishop or knight draws), so from 36 half-moves on the defence holds to the fifty-move rule.
    let chess = variants::by_name("chess").expect("chess");
    let tb = tables_for("KBN.K", Metric::Dtm);
    let score = |fen: &str| {
        let pos = Position::from_fen(chess, fen).expect("fen");
        let mut engine = Engine::new();
        engine.set_tablebase(Some(tb.clone()));
        engine.search(pos, &[], Limits::depth(3), |_| {}).score
    };
    assert_eq!(score("8/8/8/8/8/8/2k5/KNB5 w - - 30 1").to_string(), "mate 33");
    for (fen, want) in [("8/8/8/8/8/8/2k5/KNB5 w - - 36 1", 1), ("8/8/8/8/8/8/2K5/knb5 b - - 90 1", 1)] {
        let drawn = score(fen);
        assert_eq!(drawn, engine::Score::Cp(want), "{fen}");
    }
}
