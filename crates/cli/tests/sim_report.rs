//! End-to-end tests of `fairylab sim baby --report DIR` (the Baby Chess seed's questions in
//! one run) and `fairylab bench --sim`: the files written, the JSON agreeing with the
//! report, thread-count independence, and bad input giving one `error:` line and exit 2.

mod common;

use common::{assert_bad_input, assert_ok, fairylab};
use std::path::PathBuf;
use std::process::Output;

fn temp(name: &str) -> PathBuf {
    common::temp_path("sim-report-test", name)
}

/// A quick report: half-width 0.05 and 2,000 question-4 games.
fn quick_report(dir: &str, threads: &str) -> Output {
    fairylab(&[
        "sim",
        "baby",
        "--report",
        dir,
        "--half-width",
        "0.05",
        "--q4-games",
        "2000",
        "--seed",
        "9",
        "--threads",
        threads,
    ])
}

fn read(dir: &std::path::Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("{v} is not a number"))
}

#[test]
fn baby_report_writes_consistent_files_independent_of_threads() {
    let one = temp("threads1");
    let two = temp("threads2");
    assert_ok(&quick_report(&one.display().to_string(), "1"));
    assert_ok(&quick_report(&two.display().to_string(), "2"));
    for name in [
        "report.md",
        "results.json",
        "run0-outcomes.svg",
        "run0-lengths.svg",
        "run1-outcomes.svg",
        "run1-lengths.svg",
        "comparison.svg",
    ] {
        let text = read(&two, name);
        assert!(!text.is_empty(), "{name} is empty");
        if name.ends_with(".svg") {
            assert!(text.contains("<svg"), "{name} is not an SVG");
        }
    }
    let json_text = read(&one, "results.json");
    assert_eq!(json_text, read(&two, "results.json"), "results.json depends on --threads");
    let json: serde_json::Value = serde_json::from_str(&json_text).expect("valid JSON");
    let report = read(&one, "report.md");

    let base = &json["base"];
    let q4 = &json["q4"];
    let q = &json["questions"];
    assert_eq!(base["variant"], "baby");
    assert_eq!(q4["variant"], "baby-double");
    assert_eq!(q4["games"], 2000);
    assert_eq!(base["sequential"]["met"], true);
    let games = base["games"].as_u64().expect("games");
    assert!(games >= 1000);
    for key in ["white_win", "black_win", "draw", "promotion_any"] {
        let hw = (f(&base[key]["hi"]) - f(&base[key]["lo"])) / 2.0;
        assert!(hw <= 0.05, "{key}: {hw}");
    }
    // The report's tables show the JSON's numbers.
    for key in ["white_win", "black_win", "draw"] {
        let row = format!(
            "| {key} | {} | {:.4} | [{:.4}, {:.4}] |",
            base[key]["count"],
            f(&base[key]["p"]),
            f(&base[key]["lo"]),
            f(&base[key]["hi"])
        );
        assert!(report.contains(&row), "report.md lacks {row:?}");
    }
    assert!(report.contains(&format!("**{games} games**")), "game count");
    let rp = &base["promotion_random_player"];
    assert!(report.contains(&format!(
        "| a player chosen at random | {} | {} | {:.4} |",
        rp["count"],
        2 * games,
        f(&rp["p"])
    )));
    let plies = &q["q3"]["length"]["plies"];
    assert!(report.contains(&format!("| {:.3} |", f(&plies["estimate"]["mean"]))));
    assert!(report.contains(&format!("| {} |", plies["required_games"])));
    // Q3's run counts follow from the sd with Student's t: a few more than the normal
    // (z sd / 0.01)², z = 1.959964 (t > z; about (z² + 1)/2 more for many samples), and for the
    // conditional mean divided by the White-win rate. The intervals are t intervals too.
    let need = (1.959_963_984_540_054 * f(&plies["estimate"]["sd"]) / 0.01).powi(2).ceil() as u64;
    let samples = plies["required_samples"].as_u64().expect("samples");
    assert!(samples > need && samples <= need + 4, "{samples} against the normal {need}");
    let e = &plies["estimate"];
    let n = e["n"].as_u64().expect("n") as f64;
    let normal = 1.959_963_984_540_054 * f(&e["sd"]) / n.sqrt();
    let reported = (f(&e["hi"]) - f(&e["lo"])) / 2.0;
    assert!(reported > normal && reported < normal * 1.01, "{reported} against the normal {normal}");
    let cond = &q["q3"]["length_given_white_win"]["plies"];
    let wins = cond["required_samples"].as_u64().expect("wins") as f64;
    let rate = f(&base["white_win"]["p"]);
    assert_eq!(cond["required_games"].as_u64(), Some((wins / rate).ceil() as u64));
    // Differences: Q4 − base, the first-mover difference inside the base run.
    let d = &q["q4"]["differences"]["white_win"];
    assert!((f(&d["estimate"]) - (f(&q4["white_win"]["p"]) - rate)).abs() < 1e-12);
    assert!(f(&d["lo"]) < f(&d["estimate"]) && f(&d["estimate"]) < f(&d["hi"]));
    assert_eq!(q["q4"]["method"], "newcombe-hybrid-score");
    let fm = &q["q1"]["first_mover"];
    assert!((f(&fm["estimate"]) - (rate - f(&base["black_win"]["p"]))).abs() < 1e-12);
    assert!(report.contains(&format!("{:+.4} | [{:+.4}, {:+.4}]", f(&d["estimate"]), f(&d["lo"]), f(&d["hi"]))));
    assert_eq!(fm["significant"], f(&fm["lo"]) > 0.0 || f(&fm["hi"]) < 0.0);
    // Timing is in the report only, with the thread count in words.
    assert!(report.contains("games/s"));
    assert!(report.contains("games/s) on 1 thread. "), "report.md on one thread");
    assert!(read(&two, "report.md").contains("games/s) on 2 threads. "), "report.md on two threads");
    assert!(!report.contains("1 threads"));
    assert!(!json_text.contains("seconds") && !json_text.contains("games/s"));
}

#[test]
fn baby_report_bad_input_is_one_error_line() {
    let ok = temp("bad").display().to_string();
    let base = ["sim", "baby", "--half-width", "0.05", "--q4-games", "10"];
    let with = |extra: &[&str]| -> Vec<String> { base.iter().chain(extra).map(|s| s.to_string()).collect() };
    let check = |extra: &[&str], mentions: &str| {
        let args = with(extra);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_bad_input(&refs, mentions);
    };
    check(&["--report", &ok, "--setup", "nope"], "--setup");
    check(&["--report", &ok, "--half-width", "0"], "--half-width");
    check(&["--report", &ok, "--half-width", "-0.01"], "--half-width");
    check(&["--report", &ok, "--q4-games", "0"], "--q4-games");
    check(&["--report", &ok, "--threads", "0"], "--threads");
    check(&[], "--report");
    // A directory below a regular file cannot be created, whoever runs the test.
    let file = temp("a-file");
    std::fs::write(&file, "x").expect("write");
    let below = file.join("report");
    check(&["--report", &below.display().to_string()], "cannot create the report directory");
}

#[test]
fn bench_sim_prints_the_speed_and_the_target() {
    let o = fairylab(&["bench", "--sim", "--games", "20000", "--threads", "2"]);
    assert_ok(&o);
    let out = String::from_utf8_lossy(&o.stdout);
    for line in
        ["games: 20000", "threads: 2", "time: ", "games/s: ", "target: >= 500000 games/s", "1 thread: games: 5000"]
    {
        assert!(out.contains(line), "{line:?} missing in {out}");
    }
    assert!(out.contains(": pass") || out.contains(": FAIL"), "{out}");
    assert_bad_input(&["bench", "--games", "10"], "--sim");
    assert_bad_input(&["bench", "--sim", "--games", "0"], "--games");
}
