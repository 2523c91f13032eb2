//! Published endgame facts (tests/data/egt-facts.txt): longest wins under DTM and DTC, FairyGen's
//! statistics, the Syzygy KQvKR percentages and the options' known effects.

use egt::stats::Report;
use egt::{generate, BoardShape, Material, Metric, PieceSet, Request, TableRules};

const FACTS: &str = include_str!("../../../tests/data/egt-facts.txt");
const PIECEDEF: &str = include_str!("../../../tests/data/fairygen-piecedef.ini");

struct Fact<'a> {
    line: &'a str,
    material: &'a str,
    rules: TableRules,
    quantity: &'a str,
    op: &'a str,
    value: f64,
    tolerance: f64,
    slow: bool,
}

fn facts() -> Vec<Fact<'static>> {
    let mut out = Vec::new();
    for line in FACTS.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let metric = match f[1] {
            "dtm" => Metric::Dtm,
            "dtc" => Metric::Dtc,
            x => panic!("{line}: metric {x}"),
        };
        let mut rules = TableRules { metric, ..TableRules::default() };
        for o in f[2].split(',').filter(|o| *o != "-") {
            match o {
                "-0" => rules.null_move = true,
                "-s" => rules.stalemate_wins = true,
                "-b" => rules.bare_king_loses = true,
                "one-sided" => rules.one_sided = true,
                x => panic!("{line}: option {x}"),
            }
        }
        let tolerance = f.get(6).and_then(|t| t.parse().ok()).unwrap_or(0.0);
        out.push(Fact {
            line,
            material: f[0],
            rules,
            quantity: f[3],
            op: f[4],
            value: f[5].parse().expect("value"),
            tolerance,
            slow: f.last() == Some(&"slow"),
        });
    }
    out
}

fn report(material: &str, rules: TableRules) -> Report {
    let mut pieces = PieceSet::orthodox();
    pieces.add_piecedef(PIECEDEF, true).expect("piecedef");
    let req = Request {
        material: Material::parse(material, &pieces).expect("material"),
        board: BoardShape::default(),
        rules,
        pieces,
        max_memory: 8 << 30,
    };
    egt::stats::report(&generate(&req, &mut |_| {}).expect("generate"))
}

fn quantity(r: &Report, q: &str) -> f64 {
    let pct = |x: f64| 100.0 * x;
    match q {
        "longest" => f64::from(r.longest_win_moves),
        "longest_wtm" => f64::from(r.longest_wtm.moves),
        "longest_btm" => f64::from(r.longest_btm.moves),
        "won_wtm" => pct(r.all_placements.won_wtm),
        "won_btm" => pct(r.all_placements.won_btm),
        "legal_won_wtm" => pct(r.legal.won_wtm),
        "legal_lost_btm" => pct(r.legal.lost_btm),
        "btm_wins_over_2" => {
            let all: u64 = r.histogram_btm.iter().sum();
            let over: u64 = r.histogram_btm.iter().skip(3).sum();
            100.0 * over as f64 / all as f64
        }
        x => panic!("unknown quantity {x}"),
    }
}

fn run(slow: bool) {
    let mut failures = Vec::new();
    let mut cache: Vec<(String, TableRules, Report)> = Vec::new();
    for f in facts().into_iter().filter(|f| f.slow == slow) {
        let key = f.material.to_string();
        if !cache.iter().any(|(m, r, _)| *m == key && *r == f.rules) {
            cache.push((key.clone(), f.rules, report(f.material, f.rules)));
        }
        let r = &cache.iter().find(|(m, r, _)| *m == key && *r == f.rules).expect("cached").2;
        let got = quantity(r, f.quantity);
        let ok = match f.op {
            "=" => got == f.value,
            "<=" => got <= f.value,
            ">=" => got >= f.value,
            "~" => (got - f.value).abs() <= f.tolerance,
            x => panic!("{}: operator {x}", f.line),
        };
        eprintln!("{:<60} got {got:.4}{}", f.line, if ok { "" } else { "  <-- FAILS" });
        if !ok {
            failures.push(format!("{}: got {got}", f.line));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn facts_up_to_four_men() {
    run(false);
}

/// Five men: `cargo test --release -p fairylab-egt --test facts -- --ignored`.
#[test]
#[ignore = "five-man tables: minutes; run in release with --ignored"]
fn five_men_facts() {
    run(true);
}
