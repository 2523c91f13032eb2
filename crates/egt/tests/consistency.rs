//! Consistency: every stored value equals the best over the position's moves (random samples per
//! table, every option), symmetric images probe alike, and thread count changes no byte.

use egt::fen::ProbePosition;
use egt::index::Squares;
use egt::material::MAX_MEN;
use egt::probe::value;
use egt::{generate, BoardShape, Family, Material, Metric, PieceSet, Request, TableRules};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn family(material: &str, board: BoardShape, rules: TableRules, pieces: PieceSet) -> Family {
    let req = Request {
        material: Material::parse(material, &pieces).expect("material"),
        board,
        rules,
        pieces,
        max_memory: 4 << 30,
    };
    generate(&req, &mut |_| {}).expect("generate")
}

/// A random placement of a table's men on distinct squares.
fn random_position(f: &Family, table: usize, rng: &mut ChaCha8Rng) -> ProbePosition {
    let t = &f.tables[table];
    let n = t.material.men().len();
    let squares = f.board.squares() as u8;
    loop {
        let mut sq: Squares = [0; MAX_MEN];
        for s in sq.iter_mut().take(n) {
            *s = rng.gen_range(0..squares);
        }
        let distinct = (0..n).all(|a| (0..a).all(|b| sq[a] != sq[b]));
        if distinct {
            return ProbePosition { table, squares: sq, stm: rng.gen_range(0..2) };
        }
    }
}

/// Checks `samples` random positions of every table of the family.
fn check(f: &Family, samples: u64) {
    for r in egt::probe::check(f, samples, 7) {
        assert_eq!(r.checked, samples);
        assert!(r.mismatch_count == 0, "{}: {} disagree, e.g. {:?}", r.material, r.mismatch_count, r.mismatches);
    }
}

#[test]
fn kqkr_dtc_and_dtm_are_consistent() {
    for metric in [Metric::Dtc, Metric::Dtm] {
        let f = family(
            "KQ.KR",
            BoardShape::default(),
            TableRules { metric, ..TableRules::default() },
            PieceSet::orthodox(),
        );
        check(&f, 100_000);
    }
}

#[test]
fn options_are_consistent() {
    for (material, rules) in [
        ("KR.K", TableRules { null_move: true, ..TableRules::default() }),
        ("KNN.K", TableRules { stalemate_wins: true, ..TableRules::default() }),
        ("KR.KQ", TableRules { bare_king_loses: true, ..TableRules::default() }),
        ("KQ.KR", TableRules { one_sided: true, ..TableRules::default() }),
        ("KR.KN", TableRules { null_move: true, stalemate_wins: true, metric: Metric::Dtm, ..TableRules::default() }),
    ] {
        let f = family(material, BoardShape::default(), rules, PieceSet::orthodox());
        check(&f, 100_000);
    }
}

/// Every image of a position under the table's symmetry group probes alike.
#[test]
fn symmetric_images_probe_alike() {
    let mut pieces = PieceSet::orthodox();
    pieces.add_piecedef("L: 1,1,* 2,2,* 0,1,n+\nF: 1,1,*\n", false).expect("pieces");
    for (material, board) in [
        ("KQ.KR", BoardShape::default()),
        ("KBN.K", BoardShape::default()),
        ("KQ.KR", BoardShape::new(5, 5).expect("5x5")),
        ("KL.KF", BoardShape::default()),
        ("KR.KN", BoardShape::new(6, 8).expect("6x8")),
    ] {
        let f = family(material, board, TableRules::default(), pieces.clone());
        let ti = f.tables.len() - 1;
        let n = f.tables[ti].material.men().len();
        assert!(f.group.order() > 1, "{material} on {board}: some symmetry expected");
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for _ in 0..20_000 {
            let pos = random_position(&f, ti, &mut rng);
            let v = value(&f, &pos);
            for t in 0..f.group.order() as u8 {
                let mut img = pos.clone();
                for k in 0..n {
                    img.squares[k] = f.group.map(t, pos.squares[k]);
                }
                assert_eq!(value(&f, &img), v, "{material} on {board}: transform {t}");
            }
        }
    }
}

/// Generating with one and with two threads writes byte-identical files.
#[test]
fn thread_count_changes_no_byte() {
    let dir = std::env::temp_dir().join(format!("fairylab-egt-threads-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut files = Vec::new();
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
        let f = pool.install(|| {
            family(
                "KR.KN",
                BoardShape::default(),
                TableRules { metric: Metric::Dtm, ..TableRules::default() },
                PieceSet::orthodox(),
            )
        });
        let path = dir.join(format!("krkn-{threads}.egt"));
        f.save(&path).expect("save");
        files.push(std::fs::read(&path).expect("read"));
        let back = Family::load(&path).expect("load");
        assert_eq!(back.tables.len(), f.tables.len());
        for (a, b) in back.tables.iter().zip(&f.tables) {
            for stm in 0..2 {
                assert!((0..a.size()).all(|i| a.value(stm, i) == b.value(stm, i)), "{} reloads", a.material);
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(files[0].len(), files[1].len());
    assert!(files[0] == files[1], "1 and 2 threads differ");
}

/// Item 5 of the issue: a 5x5 table and pieces FairyGen cannot express (a finite-range rider, an
/// asymmetric piece with `+` symmetry, a piece that is only left-right symmetric) pass the check.
#[test]
fn small_boards_and_new_pieces_are_consistent() {
    let mut pieces = PieceSet::orthodox();
    pieces.add_piecedef("X: 1,0,3*\nL: 1,1,* 2,2,* 0,1,n+\nF: 1,1,*\n", false).expect("pieces");
    pieces.add_betza('Y', "WfF").expect("betza");
    let five = BoardShape::new(5, 5).expect("5x5");
    for (material, board, metric) in [
        ("KQ.KR", five, Metric::Dtc),
        ("KQ.KR", five, Metric::Dtm),
        ("KX.KN", BoardShape::default(), Metric::Dtc),
        ("KL.KF", BoardShape::default(), Metric::Dtm),
        ("KYY.K", BoardShape::new(6, 6).expect("6x6"), Metric::Dtm),
    ] {
        let f = family(material, board, TableRules { metric, ..TableRules::default() }, pieces.clone());
        check(&f, 100_000);
    }
}
