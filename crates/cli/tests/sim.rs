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
    // The games a half-width of 0.01 needs, per quantity, in the summary as in the JSON.
    let needed = json["required_games"]["quantities"]["white_win"].as_u64().expect("a count");
    assert!(out.contains("games needed for a 95 % half-width of 0.01: "), "{out}");
    assert!(out.contains(&format!("white_win {needed}")), "{out}");
    // `--json -`: the same JSON on stdout, the summary on stderr, no file named '-'.
    let o = fairylab(&run_args("300", "5", "2", "-"));
    assert_ok(&o);
    assert_eq!(stdout(&o), read(&path));
    assert!(stderr(&o).contains("300 games of gardner"), "{}", stderr(&o));
    assert!(!std::path::Path::new("-").exists());
}

/// Per-game data: `--games-csv` writes a row per game whose counts are the run's, and
/// `--show-game N` prints game N's record, which reads back to the row's result and length.
#[test]
fn sim_exports_each_game() {
    let (json, csv) = (temp("games.json"), temp("games.csv"));
    let o = fairylab(&[
        "sim",
        "--variant",
        "baby",
        "--games",
        "120",
        "--seed",
        "3",
        "--threads",
        "2",
        "--json",
        &json,
        "--games-csv",
        &csv,
    ]);
    assert_ok(&o);
    let v: serde_json::Value = serde_json::from_str(&read(&json)).expect("JSON");
    let text = read(&csv);
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("game,result,ending,plies,white_promoted,black_promoted"));
    let rows: Vec<Vec<String>> = lines.map(|l| l.split(',').map(String::from).collect()).collect();
    assert_eq!(rows.len(), 120);
    let count = |r: &str| rows.iter().filter(|row| row[1] == r).count() as u64;
    assert_eq!(count("1-0"), v["counts"]["white_wins"].as_u64().expect("count"));
    assert_eq!(count("0-1"), v["counts"]["black_wins"].as_u64().expect("count"));
    assert_eq!(count("1/2-1/2"), v["counts"]["draws"].as_u64().expect("count"));
    let plies: u64 = rows.iter().map(|row| row[3].parse::<u64>().expect("plies")).sum();
    let mean = v["plies"]["mean"].as_f64().expect("mean");
    assert!((plies as f64 / 120.0 - mean).abs() < 1e-9, "{plies} plies, mean {mean}");
    // Game 7 on its own: the same game as the run's seventh row.
    let o = fairylab(&["sim", "--variant", "baby", "--seed", "3", "--show-game", "7"]);
    assert_ok(&o);
    let pgn = stdout(&o);
    let row = &rows[7];
    assert!(pgn.contains(&format!("[Result \"{}\"]", row[1])), "{pgn}\n{row:?}");
    let game = rules::record::read_pgn(&pgn).expect("the record reads back");
    assert_eq!(game.moves().len().to_string(), row[3]);
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
    // Thousands of threads made a run of 10 games take seconds; millions never started.
    assert_bad_input(&["sim", "--variant", "gardner", "--games", "5", "--threads", "257"], "257 threads: at most 256");
    assert_bad_input(
        &["sim", "--variant", "gardner", "--games", "5", "--threads", "18446744073709551615"],
        "at most 256",
    );
    assert_bad_input(&["sim", "baby", "--report", &ok, "--threads", "100000"], "100000 threads: at most 256");
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
    assert_bad_input(&["sim", "merge", &a, &wins], "white wins + ");
    // Counts above the games, sums that would wrap around 2⁶⁴, histograms that disagree.
    let promotions = edit("m-promotions.json", &|v| v["counts"]["promotion_any"] = serde_json::json!(1_000_000_000u64));
    assert_bad_input(&["sim", "merge", &a, &promotions], "promotion_any is 1000000000, more than the 10 games");
    let wrap = edit("m-wrap.json", &|v| {
        for key in ["white_wins", "black_wins"] {
            let n = v["counts"][key].as_u64().expect("a count");
            v["counts"][key] = serde_json::json!(n + (1u64 << 63));
        }
    });
    let counts: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&b).expect("read")).expect("JSON");
    let white = counts["counts"]["white_wins"].as_u64().expect("a count") + (1u64 << 63);
    assert_bad_input(&["sim", "merge", &a, &wrap], &format!("{white} white wins"));
    let histogram = edit("m-histogram.json", &|v| v["counts"]["histograms"]["draw"] = serde_json::json!([1]));
    assert_bad_input(&["sim", "merge", &a, &histogram], "histograms.draw holds 1 game, but the counts say");
    let version = edit("m-version.json", &|v| v["fairylab_version"] = serde_json::json!("0.0.1"));
    assert_bad_input(&["sim", "merge", &a, &version], "result 2 was written by fairylab 0.0.1");
    let old = edit("m-old.json", &|v| {
        v.as_object_mut().expect("an object").remove("fairylab_version");
    });
    assert_bad_input(&["sim", "merge", &a, &old], "result 2 records no fairylab_version");
    let uncapped = edit("m-uncapped.json", &|v| v["max_plies"] = serde_json::Value::Null);
    assert_bad_input(&["sim", "merge", &a, &uncapped], "differs in max_plies: 'none' against '200'");
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

/// Means have Student-t intervals (n − 1 degrees of freedom): the audit's case, two White wins
/// of 34 plies on average with sd 4.243, is [−4.12, 72.12], not the normal [28.12, 39.88]; a
/// single sample has no interval. The JSON says which version and methods made it.
#[test]
fn sim_means_have_student_t_intervals() {
    let path = temp("student-t.json");
    let o = fairylab(&["sim", "--variant", "baby", "--games", "10", "--seed", "4", "--json", &path]);
    assert_ok(&o);
    let json: serde_json::Value = serde_json::from_str(&read(&path)).expect("valid JSON");
    let m = &json["plies_given_white_win"];
    assert_eq!(m["n"], 2);
    assert_eq!(format!("{:.2} {:.2}", m["lo"].as_f64().expect("lo"), m["hi"].as_f64().expect("hi")), "-4.12 72.12");
    assert_eq!(json["plies_given_black_win"]["n"], 1);
    assert!(json["plies_given_black_win"]["lo"].is_null());
    let out = stdout(&o);
    assert!(out.contains("[-4.119, 72.119]") && out.contains("none (1 sample)"), "{out}");
    assert_eq!(json["fairylab_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(json["intervals"]["means"], "Student t");
    assert_eq!(json["intervals"]["proportions"], "Wilson");
    assert_eq!(json["intervals"]["confidence"], 0.95);
    assert!(stderr(&o).contains("games/s on "), "{}", stderr(&o));
}

/// Probabilistic chess: each game draws its own map from its own stream (seeds 99 and 1 no
/// longer play every game on the seed-0 map), with results independent of threads and shards;
/// a start position given with --fen is played on its own map in every game, and the output
/// says which.
#[test]
fn sim_probabilistic_games_draw_their_own_maps() {
    let run = |name: &str, extra: &[&str]| {
        let path = temp(name);
        let mut args = vec!["sim", "--variant", "probabilistic", "--games", "12", "--json", &path];
        args.extend(extra);
        let o = fairylab(&args);
        assert_ok(&o);
        (read(&path), stdout(&o))
    };
    let (seed99, out) = run("p99.json", &["--seed", "99", "--threads", "2"]);
    assert!(out.contains("each game drew its own random map"), "{out}");
    let json: serde_json::Value = serde_json::from_str(&seed99).expect("valid JSON");
    assert_eq!(json["square_maps"], "per_game");
    assert_eq!(json["start_fen"], "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    let (seed1, _) = run("p1.json", &["--seed", "1"]);
    assert_ne!(seed99, seed1);
    let (one_thread, _) = run("p99-t1.json", &["--seed", "99", "--threads", "1"]);
    assert_eq!(seed99, one_thread);
    let mut shards = Vec::new();
    for i in 0..2 {
        let spec = format!("{i}/2");
        let path = temp(&format!("p99-shard{i}.json"));
        let o = fairylab(&[
            "sim",
            "--variant",
            "probabilistic",
            "--games",
            "12",
            "--seed",
            "99",
            "--shard",
            &spec,
            "--json",
            &path,
        ]);
        assert_ok(&o);
        shards.push(path);
    }
    let o = fairylab(&["sim", "merge", &shards[1], &shards[0]]);
    assert_ok(&o);
    assert_eq!(stdout(&o), seed99);
    // A start position with a map, given explicitly: that map in every game.
    let start = format!("{} {FIXED_MAP}", json["start_fen"].as_str().expect("a FEN"));
    let (fixed, out) = run("p99-fixed.json", &["--seed", "99", "--fen", &start]);
    assert!(out.contains("every game was played on the map of the given start position"), "{out}");
    let fixed: serde_json::Value = serde_json::from_str(&fixed).expect("valid JSON");
    assert_eq!(fixed["square_maps"], "fixed");
    assert_eq!(fixed["start_fen"], start.as_str());
    assert_ne!(fixed["counts"], json["counts"]);
}

/// Chess960 games draw their own start and SnowFall games their own percentage (where none was
/// chosen), as a game of the variant does: the CSV gives each game's, uniformly spread; the
/// run is the same on any thread count and its shards merge; a chosen percentage, a given FEN
/// or a shard of another draw change that.
#[test]
fn sim_games_draw_their_chess960_start_and_snowfall_percentage() {
    let run = |name: &str, args: &[&str]| {
        let path = temp(name);
        let csv = temp(&format!("{name}.csv"));
        let mut all = vec!["sim", "--games", "300", "--seed", "5", "--json", &path, "--games-csv", &csv];
        all.extend(args);
        let o = fairylab(&all);
        assert_ok(&o);
        (serde_json::from_str::<serde_json::Value>(&read(&path)).expect("valid JSON"), read(&csv), stdout(&o))
    };
    let column = |csv: &str, header: &str| -> Vec<u16> {
        let mut lines = csv.lines();
        assert!(lines.next().is_some_and(|h| h.ends_with(header)), "{csv}");
        lines.map(|l| l.rsplit(',').next().and_then(|n| n.parse().ok()).expect("a drawn number")).collect()
    };
    let (json, csv, out) = run("c960.json", &["--variant", "chess960", "--threads", "2"]);
    assert_eq!(json["start_draw"], "chess960");
    assert!(out.contains("each game drew one of the 960 Chess960 starts"), "{out}");
    let starts = column(&csv, ",chess960_start");
    assert_eq!(starts.len(), 300);
    let distinct: std::collections::BTreeSet<_> = starts.iter().collect();
    assert!(distinct.len() > 250 && starts.iter().all(|&n| n < 960), "{distinct:?}");
    let (one_thread, csv1, _) = run("c960-t1.json", &["--variant", "chess960", "--threads", "1"]);
    assert_eq!((&one_thread["counts"], &csv1), (&json["counts"], &csv));
    // The game's record starts from its drawn position.
    let o = fairylab(&["sim", "--variant", "chess960", "--seed", "5", "--show-game", "7"]);
    assert_ok(&o);
    let fen = rules::variants::chess960::start_fen(starts[7]).expect("a start");
    assert!(stdout(&o).contains(&format!("[FEN \"{fen}\"]")), "{}", stdout(&o));
    // SnowFall: every percentage from 10 to 24 comes up, none other.
    let (json, csv, out) = run("sf.json", &["--variant", "snowfall"]);
    assert_eq!(json["start_draw"], "snowfall_percent");
    assert!(out.contains("each game drew its own from 10 to 24 %"), "{out}");
    let percents: std::collections::BTreeSet<u16> = column(&csv, ",snowfall_percent").into_iter().collect();
    assert_eq!(percents, (10..=24).collect(), "{percents:?}");
    let o = fairylab(&["sim", "--variant", "snowfall", "--seed", "5", "--show-game", "0"]);
    assert!(stdout(&o).contains("[SnowFall \""), "{}", stdout(&o));
    // Chosen: every game at 20 %, nothing drawn, no column.
    let (json, csv, _) = run("sf20.json", &["--variant", "snowfall", "--snowfall", "20"]);
    assert_eq!(json["start_draw"], serde_json::Value::Null);
    assert!(csv.starts_with("game,result,ending,plies,white_promoted,black_promoted\n"), "{csv}");
    // Shards of a drawing run merge; a shard of a run without the draw does not join them.
    let shard = |name: &str, spec: &str, extra: &[&str]| {
        let path = temp(name);
        let mut args =
            vec!["sim", "--variant", "snowfall", "--games", "40", "--seed", "5", "--shard", spec, "--json", &path];
        args.extend(extra);
        assert_ok(&fairylab(&args));
        path
    };
    let (a, b) = (shard("sf-s0.json", "0/2", &[]), shard("sf-s1.json", "1/2", &[]));
    assert_ok(&fairylab(&["sim", "merge", &a, &b]));
    let fixed = shard("sf-s1-fixed.json", "1/2", &["--snowfall", "17"]);
    let o = fairylab(&["sim", "merge", &a, &fixed]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stderr(&o).contains("start_draw"), "{}", stderr(&o));
}

/// A probability map for `--fen` (every square 50 %, the kings' squares too).
const FIXED_MAP: &str = "50,50,50,50,50,50,50,50/50,50,50,50,50,50,50,50/50,50,50,50,50,50,50,50/50,50,50,50,50,50,50,50/50,50,50,50,50,50,50,50/50,50,50,50,50,50,50,50/50,50,50,50,50,50,50,50/50,50,50,50,50,50,50,50";

/// Engine against engine in a variant without chance plays one game over and over: the text
/// warns before the table and the JSON says `independent: false`.
#[test]
fn sim_warns_when_every_game_is_the_same() {
    let path = temp("deterministic.json");
    let o = fairylab(&[
        "sim",
        "--variant",
        "baby",
        "--white",
        "engine:depth=1",
        "--black",
        "engine:depth=1",
        "--games",
        "3",
        "--json",
        &path,
    ]);
    assert_ok(&o);
    let out = stdout(&o);
    let second = out.lines().nth(1).unwrap_or_default();
    assert!(second.starts_with("warning: both strategies are deterministic"), "{out}");
    assert!(second.contains("not 3 independent trials and the intervals do not apply"), "{out}");
    let json: serde_json::Value = serde_json::from_str(&read(&path)).expect("valid JSON");
    assert_eq!(json["independent"], false);
    let random = fairylab(&["sim", "--variant", "baby", "--white", "engine:depth=1", "--games", "3"]);
    assert_ok(&random);
    assert!(!stdout(&random).contains("warning"), "{}", stdout(&random));
}

/// Under --max-plies the length rows are means over the finished games: the text says so.
#[test]
fn sim_says_when_means_leave_out_games_cut_off() {
    let o = fairylab(&["sim", "--variant", "baby", "--games", "40", "--max-plies", "30", "--seed", "2"]);
    assert_ok(&o);
    let out = stdout(&o);
    assert!(
        out.contains("plies, full_moves: mean over the ") && out.contains("cut off at the cap of 30 plies"),
        "{out}"
    );
    let o = fairylab(&["sim", "--variant", "baby", "--games", "40", "--seed", "2"]);
    assert!(!stdout(&o).contains("finished game"), "{}", stdout(&o));
}

/// The JSON file appears whole at the end of a run or not at all: a run that fails after the
/// early check leaves nothing (it used to leave an empty file), a run leaves no temporary
/// file behind, and a directory is refused before the run.
#[test]
fn sim_json_appears_only_when_complete() {
    let dir = common::temp_path("sim-test-atomic", "out");
    std::fs::create_dir_all(&dir).expect("a directory");
    let path = dir.join("run.json").display().to_string();
    assert_bad_input(
        &[
            "sim",
            "--variant",
            "gardner",
            "--half-width",
            "0.1",
            "--min-games",
            "2000",
            "--max-games",
            "1000",
            "--json",
            &path,
        ],
        "--max-games 1000 is below --min-games 2000",
    );
    assert!(!std::path::Path::new(&path).exists(), "a failed run left {path}");
    assert_ok(&fairylab(&["sim", "--variant", "gardner", "--games", "5", "--json", &path]));
    let names: Vec<String> = std::fs::read_dir(&dir)
        .expect("the directory")
        .map(|e| e.expect("an entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["run.json"]);
    assert!(read(&path).ends_with("}\n"));
    assert_bad_input(
        &["sim", "--variant", "gardner", "--games", "5", "--json", &dir.display().to_string()],
        "cannot write JSON file",
    );
}
