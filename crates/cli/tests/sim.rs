//! End-to-end tests of `fairylab sim` and `fairylab sim merge`: summaries, JSON files,
//! thread-count independence, shards merged into the unsharded result, and bad input
//! giving one `error:` line with exit status 2.

mod common;

use common::{assert_bad_input, assert_ok, fairylab, stderr, stdout};

fn temp(name: &str) -> String {
    common::temp_path("sim-test", name).display().to_string()
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).expect("the JSON file exists")
}

fn run_args<'a>(games: &'a str, seed: &'a str, threads: &'a str, json: &'a str) -> Vec<&'a str> {
    vec![
        "sim",
        "--variant",
        "gardner",
        "--white",
        "random",
        "--black",
        "random-piece",
        "--games",
        games,
        "--seed",
        seed,
        "--threads",
        threads,
        "--json",
        json,
    ]
}

#[test]
fn sim_prints_a_summary_and_writes_json() {
    let path = temp("summary.json");
    let o = fairylab(&run_args("300", "5", "2", &path));
    assert_ok(&o);
    let out = stdout(&o);
    assert!(out.contains("300 games of gardner"), "{out}");
    assert!(out.contains("white_win") && out.contains("plies_given_white_win"), "{out}");
    assert!(stderr(&o).contains("games/s"), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_str(&read(&path)).expect("valid JSON");
    assert_eq!(json["variant"], "gardner");
    assert_eq!(json["games"], 300);
    assert_eq!(json["seed"], 5);
    assert_eq!(json["strategies"]["black"], "random-piece");
    for key in ["white_win", "black_win", "draw", "promotion_any", "promotion_white", "promotion_black"] {
        for field in ["p", "lo", "hi"] {
            assert!(json[key][field].is_number(), "{key}.{field}");
        }
    }
    for key in ["plies", "full_moves", "plies_given_white_win"] {
        for field in ["mean", "sd", "lo", "hi"] {
            assert!(json[key][field].is_number(), "{key}.{field}");
        }
    }
    let counts = &json["counts"];
    let total = ["white_wins", "black_wins", "draws", "unfinished"]
        .iter()
        .map(|k| counts[k].as_u64().expect("a count"))
        .sum::<u64>();
    assert_eq!(total, 300);
}

#[test]
fn sim_json_does_not_depend_on_threads() {
    let one = temp("threads1.json");
    let two = temp("threads2.json");
    assert_ok(&fairylab(&run_args("400", "77", "1", &one)));
    assert_ok(&fairylab(&run_args("400", "77", "2", &two)));
    assert_eq!(read(&one), read(&two));
}

#[test]
fn sim_shards_merge_into_the_unsharded_result() {
    let direct = temp("direct.json");
    assert_ok(&fairylab(&run_args("500", "3", "2", &direct)));
    let mut shards = Vec::new();
    for i in 0..3 {
        let path = temp(&format!("shard{i}.json"));
        let spec = format!("{i}/3");
        let mut args = run_args("500", "3", "1", &path);
        args.extend(["--shard", &spec]);
        assert_ok(&fairylab(&args));
        shards.push(path);
    }
    let merged = temp("merged.json");
    let o = fairylab(&["sim", "merge", &shards[2], &shards[0], &shards[1], "--json", &merged]);
    assert_ok(&o);
    assert!(stdout(&o).contains("500 games of gardner"), "{}", stdout(&o));
    assert_eq!(read(&merged), read(&direct));
    // Without --json the merged JSON goes to stdout.
    let o = fairylab(&["sim", "merge", &shards[0], &shards[1], &shards[2]]);
    assert_ok(&o);
    assert_eq!(stdout(&o), read(&direct));
}

#[test]
fn sim_sequential_mode_reports_its_stopping_point() {
    let path = temp("sequential.json");
    let o = fairylab(&[
        "sim",
        "--variant",
        "gardner",
        "--half-width",
        "0.03",
        "--quantities",
        "white_win,draw",
        "--seed",
        "1",
        "--json",
        &path,
    ]);
    assert_ok(&o);
    let json: serde_json::Value = serde_json::from_str(&read(&path)).expect("valid JSON");
    assert_eq!(json["sequential"]["met"], true);
    assert!(json["games"].as_u64().expect("games") >= 1000);
    let hw = (json["white_win"]["hi"].as_f64().expect("hi") - json["white_win"]["lo"].as_f64().expect("lo")) / 2.0;
    assert!(hw <= 0.03, "{hw}");
    assert!(stdout(&o).contains("sequential: half-width 0.03"), "{}", stdout(&o));
}

#[test]
fn sim_bad_input_is_one_error_line() {
    let ok = temp("ok.json");
    assert_bad_input(&["sim", "--variant", "nope", "--games", "5"], "unknown variant 'nope'");
    assert_bad_input(
        &["sim", "--variant", "gardner", "--white", "greedy", "--games", "5"],
        "unknown strategy 'greedy'",
    );
    assert_bad_input(&["sim", "--variant", "gardner", "--black", "engine:depth=0", "--games", "5"], "depth=0");
    assert_bad_input(
        &["sim", "--variant", "gardner", "--white", "engine:depth=99", "--games", "1"],
        "depth=99: at most 64",
    );
    assert_bad_input(&["sim", "--variant", "gardner", "--black", "engine:nodes=-4", "--games", "5"], "nodes=-4");
    assert_bad_input(&["sim", "--variant", "gardner", "--games", "0"], "--games");
    assert_bad_input(&["sim", "--variant", "gardner", "--games", "5", "--seed", "-1"], "'-1' is not a seed");
    assert_bad_input(&["sim", "--variant", "gardner", "--games", "-3"], "'-3' is not a positive whole number");
    assert_bad_input(&["sim", "--variant", "gardner", "--half-width", "-0.1"], "--half-width");
    assert_bad_input(&["sim", "--variant", "gardner", "--games", "5", "--threads", "0"], "--threads");
    assert_bad_input(&["sim", "--variant", "gardner", "--games", "5", "--max-plies", "0"], "--max-plies");
    assert_bad_input(
        &["sim", "--variant", "gardner", "--games", "5", "--shard", "3/2"],
        "index must be below the count",
    );
    assert_bad_input(&["sim", "--variant", "gardner", "--games", "5", "--shard", "x"], "not of the form i/N");
    assert_bad_input(&["sim", "--variant", "gardner"], "--games");
    assert_bad_input(&["sim", "--variant", "gardner", "--games", "5", "--fen", "bad"], "FEN 'bad'");
    assert_bad_input(
        &["sim", "--variant", "gardner", "--games", "5", "--json", "/nonexistent-dir/out.json"],
        "cannot write JSON file /nonexistent-dir/out.json",
    );
    assert_bad_input(
        &["sim", "--variant", "gardner", "--half-width", "0.1", "--quantities", "speed"],
        "unknown quantity",
    );
    // Predictor chess is played in simultaneous plies: not simulated as moves in turn (nor searched).
    assert_bad_input(&["sim", "--variant", "predictor", "--games", "5"], "simultaneous plies");
    assert_bad_input(&["analyse", "--variant", "predictor", "--depth", "2"], "simultaneous plies");
    assert_ok(&fairylab(&["sim", "--variant", "gardner", "--games", "5", "--json", &ok]));
}

#[test]
fn sim_merge_rejects_mixed_runs() {
    let shard = |name: &str, variant: &str, seed: &str, white: &str, spec: &str| {
        let path = temp(name);
        let o = fairylab(&[
            "sim",
            "--variant",
            variant,
            "--white",
            white,
            "--games",
            "20",
            "--seed",
            seed,
            "--shard",
            spec,
            "--json",
            &path,
            "--max-plies",
            "200",
        ]);
        assert_ok(&o);
        path
    };
    let a = shard("m-a.json", "gardner", "1", "random", "0/2");
    let other_seed = shard("m-seed.json", "gardner", "2", "random", "1/2");
    let other_variant = shard("m-variant.json", "chess", "1", "random", "1/2");
    let other_strategy = shard("m-strategy.json", "gardner", "1", "random-piece", "1/2");
    assert_bad_input(&["sim", "merge", &a, &other_seed], "seed");
    assert_bad_input(&["sim", "merge", &a, &other_variant], "variant");
    assert_bad_input(&["sim", "merge", &a, &other_strategy], "white strategy");
    assert_bad_input(&["sim", "merge", &a, &a], "shard 0 appears more than once");
    // Edited files: a shard outside the run, counts that do not add up.
    let b = shard("m-b.json", "gardner", "1", "random", "1/2");
    let edit = |name: &str, change: &dyn Fn(&mut serde_json::Value)| {
        let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&b).expect("read")).expect("JSON");
        change(&mut v);
        let path = temp(name);
        std::fs::write(&path, v.to_string()).expect("write");
        path
    };
    let outside = edit("m-outside.json", &|v| v["shard"]["indices"] = serde_json::json!([5]));
    assert_bad_input(&["sim", "merge", &a, &outside], "claims shard 5, but the run has shards 0 to 1");
    let games = edit("m-games.json", &|v| v["counts"]["games"] = serde_json::json!(99));
    assert_bad_input(&["sim", "merge", &a, &games], "counts do not add up");
    let wins = edit("m-wins.json", &|v| {
        let w = v["counts"]["white_wins"].as_u64().expect("wins");
        v["counts"]["white_wins"] = serde_json::json!(w + 1);
    });
    assert_bad_input(&["sim", "merge", &a, &wins], "wins, draws and unfinished games");
    assert_ok(&fairylab(&["sim", "merge", &a, &b]));
    let whole = temp("m-whole.json");
    assert_ok(&fairylab(&["sim", "--variant", "gardner", "--games", "20", "--json", &whole]));
    assert_bad_input(&["sim", "merge", &whole], "not a shard");
    let junk = temp("junk.json");
    std::fs::write(&junk, "{\"not\": \"a result\"}").expect("write");
    assert_bad_input(&["sim", "merge", &junk], "is not a fairylab simulation result");
    assert_bad_input(&["sim", "merge", "/nonexistent-dir/a.json"], "cannot read /nonexistent-dir/a.json");
    assert_bad_input(&["sim", "merge", &a, "--json", "/nonexistent-dir/out.json"], "cannot write JSON file");
}
