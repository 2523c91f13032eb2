//! Reports and plots: a Markdown report of two runs with its SVG plots, and JSON that
//! round-trips.

use sim::plot::{comparison_svg, length_histogram_svg, outcomes_svg, write_run_plots};
use sim::report::{markdown_report, SimResult};
use sim::runner::{run, RunConfig, Shard};
use sim::Strategy;

fn result(white: Strategy, games: u64) -> SimResult {
    let cfg = RunConfig { white, ..RunConfig::new(rules::variants::by_name("gardner").expect("gardner"), 1) };
    SimResult::new(&cfg, run(&cfg, games, Shard::ALL, &|_| {}), Shard::ALL, games, None)
}

#[test]
fn json_round_trips() {
    let r = result(Strategy::Random, 200);
    let back = SimResult::from_json(&r.to_json()).expect("parses");
    assert_eq!(back, r);
    assert_eq!(back.to_json(), r.to_json());
}

#[test]
fn two_run_report_with_plots() {
    let base = result(Strategy::Random, 400);
    let other = result(Strategy::RandomPiece, 400);
    let runs = [("base", &base), ("random-piece White", &other)];
    let md = markdown_report("Gardner: random against random-piece", &runs);
    assert!(md.contains("## base") && md.contains("## random-piece White against base"), "{md}");
    assert!(md.contains("| white_win | ") && md.contains("95 % Wilson interval"), "{md}");
    assert!(md.contains("comparison.svg") && md.contains("run1-lengths.svg"), "{md}");
    for svg in [length_histogram_svg(&base), outcomes_svg(&base), comparison_svg("base", &base, "other", &other)] {
        let svg = svg.expect("plots draw");
        assert!(
            svg.starts_with("<svg") && svg.contains("</svg>") && svg.len() > 1000,
            "{}",
            &svg[..200.min(svg.len())]
        );
    }
    let dir = std::env::temp_dir().join(format!("fairylab-sim-report-{}", std::process::id()));
    write_run_plots(&dir, &runs).expect("plots written");
    for name in ["run0-outcomes.svg", "run0-lengths.svg", "run1-outcomes.svg", "run1-lengths.svg", "comparison.svg"] {
        let text = std::fs::read_to_string(dir.join(name)).expect("plot file");
        assert!(text.contains("<svg"), "{name}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A mean without samples has no value (not 0.0), nor a standard deviation with one sample:
/// null in the JSON and `-` in the summary (here a result of no games).
#[test]
fn a_mean_without_samples_is_null() {
    let cfg = RunConfig::new(rules::variants::by_name("gardner").expect("gardner"), 1);
    let r = SimResult::new(&cfg, sim::tally::Tally::default(), Shard::ALL, 0, None);
    let m = &r.plies_given_draw;
    assert_eq!((m.n, m.mean, m.sd, m.lo, m.hi), (0, None, None, None, None));
    let v: serde_json::Value = serde_json::from_str(&r.to_json()).expect("JSON");
    assert_eq!(v["plies_given_draw"]["mean"], serde_json::Value::Null);
    let line = r.summary().lines().find(|l| l.starts_with("plies_given_draw")).expect("a line").to_string();
    assert!(line.contains(" - ") && line.ends_with("sd -"), "{line}");
    let one = sim::report::MeanStat::new({
        let mut m = sim::stats::Moments::default();
        m.push(7);
        m
    });
    assert_eq!((one.mean, one.sd, one.lo), (Some(7.0), None, None));
}

/// Provenance: the program version and the interval methods are in every result.
#[test]
fn results_record_the_version_and_the_interval_methods() {
    let r = result(Strategy::Random, 20);
    let v: serde_json::Value = serde_json::from_str(&r.to_json()).expect("JSON");
    assert_eq!(v["fairylab_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(v["intervals"], serde_json::json!({"confidence": 0.95, "proportions": "Wilson", "means": "Student t"}));
    assert_eq!(v["independent"], true);
    let text = r.to_json();
    let at = |key: &str| text.find(&format!("\n  \"{key}\":")).unwrap_or_else(|| panic!("{key} missing"));
    assert!(at("schema") < at("fairylab_version") && at("fairylab_version") < at("variant"), "{text}");
}

/// Engine against engine in a variant without chance: one game played over and over. The
/// result says so (JSON `independent: false`, a warning before the table and in Markdown).
#[test]
fn deterministic_games_are_flagged_as_one_game_repeated() {
    let baby = rules::variants::by_name("baby").expect("baby");
    let engine: Strategy = "engine:depth=1".parse().expect("a strategy");
    let cfg = RunConfig { white: engine, black: engine, ..RunConfig::new(baby, 1) };
    let r = SimResult::new(&cfg, run(&cfg, 3, Shard::ALL, &|_| {}), Shard::ALL, 3, None);
    assert!(!r.independent);
    assert!(r.counts.white_wins == 3 || r.counts.black_wins == 3 || r.counts.draws == 3, "one game, three times");
    let v: serde_json::Value = serde_json::from_str(&r.to_json()).expect("JSON");
    assert_eq!(v["independent"], false);
    let summary = r.summary();
    let second = summary.lines().nth(1).expect("a second line");
    assert!(
        second.starts_with("warning: both strategies are deterministic") && second.contains("not 3 independent trials"),
        "{summary}"
    );
    assert!(markdown_report("engines", &[("base", &r)]).contains("**warning: both strategies are deterministic"));
    // One random side, or chance in the variant, makes the games independent again.
    for cfg in [
        RunConfig { white: Strategy::Random, ..cfg.clone() },
        RunConfig {
            white: engine,
            black: engine,
            ..RunConfig::new(rules::variants::by_name("probabilistic").expect("probabilistic"), 1)
        },
    ] {
        assert!(cfg.games_independent());
    }
    assert!(!result(Strategy::Random, 5).summary().contains("warning"));
}

/// One sample has a mean but no interval: null in JSON, said so in the text; under a cap the
/// length rows are means over the finished games, and the text says how many were cut off.
#[test]
fn text_says_what_the_means_cover() {
    let r = result(Strategy::Random, 1);
    let m = r.means().into_iter().find(|(_, m)| m.n == 1).map(|(name, _)| name).expect("a mean of one sample");
    let line = r.summary().lines().find(|l| l.starts_with(m)).expect("a line").to_string();
    assert!(line.contains("none (1 sample)"), "{line}");
    assert!(r.summary().contains("Student t (n - 1 degrees of freedom) for means"));
    let cfg =
        RunConfig { max_plies: Some(30), ..RunConfig::new(rules::variants::by_name("gardner").expect("gardner"), 1) };
    let capped = SimResult::new(&cfg, run(&cfg, 40, Shard::ALL, &|_| {}), Shard::ALL, 40, None);
    let (unfinished, finished) = (capped.counts.unfinished, capped.counts.plies.n);
    assert!(unfinished > 0 && finished > 0, "{unfinished} {finished}");
    let note = format!(
        "plies, full_moves: mean over the {finished} finished games; {unfinished} cut off at the cap of 30 plies"
    );
    assert!(capped.summary().contains(&note), "{}", capped.summary());
    assert!(markdown_report("capped", &[("base", &capped)]).contains(&note));
    assert!(!result(Strategy::Random, 20).summary().contains("finished games"));
}
