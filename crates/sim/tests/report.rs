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
