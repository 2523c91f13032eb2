//! `fairylab snowfall odds` end to end: the seed's mate example in JSON (exact fractions under
//! the documented keys), the text report, and bad input as one `error:` line.

mod common;

use common::{assert_bad_input, assert_ok, fairylab, stderr, stdout, temp_path};
use serde_json::Value;

/// The seed's mate example rebuilt (tests/data/snowfall-gifts.txt, `mate-by-diagonal-drop`).
const AFTER_KG1: &str = "b3k3/8/8/8/6n1/8/7P/5BKR[] b - - 1 1";

fn odds_json(fen: &str, extra: &[&str]) -> Value {
    let mut args = vec!["snowfall", "odds", "--fen", fen, "--json"];
    args.extend_from_slice(extra);
    let o = fairylab(&args);
    assert_ok(&o);
    serde_json::from_str(&stdout(&o)).expect("JSON")
}

#[test]
fn odds_json_has_the_exact_joint_table_and_mate_odds() {
    let j = odds_json(AFTER_KG1, &["--snowfall", "17"]);
    assert_eq!(j["snowfall"], 17);
    assert_eq!(j["mover"], "white");
    assert_eq!(j["event_probability"], "17/100");
    let joint = j["joint"].as_object().expect("joint");
    assert_eq!(joint.len(), 27);
    assert_eq!(joint["W:P|B:P"], "2/5");
    assert_eq!(joint["W:Q|B:RP"], "1/300");
    assert_eq!(joint["W:RP|B:Q"], "1/600");
    assert_eq!(j["kinds"]["white"]["Q"], "7/100");
    assert_eq!(j["kinds"]["white"]["R"], "21/200");
    assert_eq!(j["mate_next"]["side"], "black");
    assert_eq!(j["mate_next"]["without_gift"], Value::Null);
    assert_eq!(j["mate_next"]["thanks_to_gift"], "1411/12000");
    let mates: Vec<&str> = j["mate_next"]["outcomes"]
        .as_array()
        .expect("outcomes")
        .iter()
        .filter_map(|o| o["mate"]["uci"].as_str())
        .collect();
    assert!(mates.contains(&"P@f2") && mates.contains(&"B@f2") && mates.contains(&"Q@f2"), "{mates:?}");
}

#[test]
fn the_percentage_scales_the_odds() {
    let j = odds_json(AFTER_KG1, &["--snowfall", "10"]);
    assert_eq!(j["mate_next"]["thanks_to_gift"], "83/1200");
}

#[test]
fn mated_next_ranks_the_moves() {
    // Black to move; after ...Ne4 White mates with a heavy gift: 17 % x 33/200.
    let j = odds_json("3b2k1/5ppp/6N1/2n5/8/8/8/6K1[] b - - 0 1", &[]);
    let moves = j["mated_next"]["moves"].as_array().expect("moves");
    let ne4 = moves.iter().find(|m| m["move"]["uci"] == "c5e4").expect("Ne4 listed");
    assert_eq!(ne4["probability"], "561/20000");
    let best = &j["mated_next"]["best_defence"]["probability"];
    assert_eq!(best, &moves[0]["probability"]);
}

#[test]
fn odds_text_names_the_numbers() {
    let o = fairylab(&["snowfall", "odds", "--fen", AFTER_KG1]);
    assert_ok(&o);
    let s = stdout(&o);
    assert!(s.contains("1411/12000 (11.76 %)"), "{s}");
    assert!(s.contains("B@f2#"), "{s}");
    // Black has 18 moves here, none of which lets White mate: five are listed and the rest
    // are said to be at the same chance, not left out silently.
    assert!(s.contains("... and 13 more moves, each at the same chance"), "{s}");
}

/// A side without a move before its pending gift is checkmated or stalemated only if the gift
/// gives it nothing to drop that helps; counted by hand from RULINGS § SnowFall (17 %): black
/// is rescued from Ra8# by any piece but a pawn (a pawn cannot drop on the 8th rank), that is
/// by everything but the P token (8/20) and the two combos giving the opponent two pawns
/// unswitched (1/20 x 2/10 x 2/3): it stays mated with 83/100 + 17/100 x 61/150 = 13487/15000.
/// Stalemated, any gift rescues it, and every event gives both players something: 83/100.
#[test]
fn a_gift_can_rescue_a_side_without_a_move() {
    let mated = odds_json("R6k/6pp/8/8/8/8/8/6K1[] b - - 1 30", &[]);
    assert_eq!(mated["ending"]["without_gift"], "checkmate");
    assert_eq!(mated["ending"]["probability"], "13487/15000");
    assert_eq!(mated["ending"]["side"], "black");
    let stalemate = odds_json("7k/5Q2/6K1/8/8/8/8/8[] b - - 0 1", &[]);
    assert_eq!(
        (&stalemate["ending"]["without_gift"], &stalemate["ending"]["probability"]),
        (&Value::from("stalemate"), &Value::from("83/100"))
    );
    let text = stdout(&fairylab(&["snowfall", "odds", "--fen", "R6k/6pp/8/8/8/8/8/6K1[] b - - 1 30"]));
    assert!(text.contains("black has no move without a gift: it is checkmated, and the game ends, with probability 13487/15000 (89.91 %)"), "{text}");
    // A side with moves has no ending.
    assert_eq!(odds_json(AFTER_KG1, &[])["ending"], Value::Null);
}

/// Move 1 with White to move is a game's start, where no gift is pending: the explainer says
/// how it read the FEN rather than pretend Black just moved.
#[test]
fn a_start_position_is_noted() {
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1";
    assert!(odds_json(start, &[])["note"].as_str().is_some_and(|n| n.contains("no gift is pending")));
    assert_eq!(odds_json(AFTER_KG1, &[])["note"], Value::Null);
    let text = stdout(&fairylab(&["snowfall", "odds", "--fen", start]));
    assert!(text.starts_with("Note: move 1 with White to move"), "{text}");
}

#[test]
fn bad_odds_input_is_one_error_line() {
    assert_bad_input(&["snowfall", "odds", "--fen", "not a fen"], "FEN");
    assert_bad_input(&["snowfall", "odds", "--fen", AFTER_KG1, "--snowfall", "101"], "snowfall");
    assert_bad_input(&["snowfall", "odds", "--fen", "4k3/8/8/8/8/8/8/4K3[K] w - - 0 1"], "king");
    // Mated by an adjacent queen: no gift helps.
    assert_bad_input(&["snowfall", "odds", "--fen", "4k3/4Q3/4K3/8/8/8/8/8[] b - - 0 1"], "whatever the gift");
    assert_bad_input(&["perft", "--variant", "chess", "--snowfall", "12", "--depth", "1"], "--snowfall");
}

/// `fairylab match` between the gift-aware and the blind engine, two games at 300 nodes a move,
/// with `extra` arguments.
fn engine_vs_blind<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["match", "--variant", "snowfall", "--white", "engine", "--black", "blind"];
    args.extend_from_slice(&["--games", "2", "--nodes", "300"]);
    args.extend_from_slice(extra);
    args
}

#[test]
fn an_internal_match_with_a_node_budget_depends_only_on_its_seed() {
    let args = engine_vs_blind(&["--max-plies", "40", "--seed", "5", "--concurrency", "2"]);
    let (a, b) = (fairylab(&args), fairylab(&args));
    assert_ok(&a);
    assert_eq!(stdout(&a), stdout(&b));
    assert!(stdout(&a).contains("engine vs blind (snowfall, 300 nodes per move): 2 games"), "{}", stdout(&a));
    assert_bad_input(&["match", "--variant", "snowfall", "--white", "engine", "--black", "psychic"], "psychic");
}

#[test]
fn a_time_odds_match_gives_each_player_its_time() {
    let args = ["match", "--variant", "snowfall", "--white", "blind", "--black", "blind", "--games", "2"];
    let o = fairylab(&[&args[..], &["--movetime", "20", "--movetime2", "10", "--max-plies", "6"]].concat());
    assert_ok(&o);
    assert!(stdout(&o).contains("blind vs blind (snowfall, 20 ms against 10 ms per move): 2 games"), "{}", stdout(&o));
    assert_bad_input(&[&args[..], &["--nodes", "300", "--movetime2", "10"]].concat(), "--movetime2");
}

/// Runs `fairylab match` with `args` and `--pgn` to a file named `name`: its output and the
/// records it wrote, read back.
fn match_with_records(name: &str, args: &[&str]) -> (std::process::Output, Vec<rules::record::Record>) {
    let pgn = temp_path("snowfall-match", name);
    let pgn_arg = pgn.to_str().expect("UTF-8 path");
    let o = fairylab(&[args, &["--pgn", pgn_arg]].concat());
    assert_ok(&o);
    let text = std::fs::read_to_string(&pgn).expect("the PGN file");
    let games = rules::record::read_records(&text).expect("the records read back");
    (o, games)
}

/// A match's `--pgn` file gets its games added after those already there (it was overwritten):
/// two matches into one file keep all four games and the one there before. A UCI match refuses `--concurrency`, which
/// only internal matches use (it was accepted and ignored).
#[test]
fn a_match_adds_its_games_to_the_pgn_file() {
    // The file holds a game already, written without a final newline: the next game still
    // starts on a line of its own after a blank one.
    let pgn = temp_path("snowfall-match", "two-matches.pgn");
    std::fs::write(&pgn, "[Event \"kept\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0").expect("a PGN file");
    let args = ["match", "--variant", "snowfall", "--white", "blind", "--black", "blind", "--nodes", "300"];
    for seed in ["1", "2"] {
        let more = ["--games", "2", "--max-plies", "6", "--seed", seed, "--pgn", pgn.to_str().expect("UTF-8 path")];
        assert_ok(&fairylab(&[&args[..], &more[..]].concat()));
    }
    let games = rules::record::read_records(&std::fs::read_to_string(&pgn).expect("the PGN file")).expect("read back");
    assert_eq!(games.len(), 5);
    assert_eq!(games[0].tag("Event"), Some("kept"));
    let games = &games[1..];
    // Each dated, with its length (they were "????.??.??", without PlyCount).
    for g in games {
        assert!(g.tag("Date").is_some_and(|d| d.len() == 10 && !d.contains('?')), "{:?}", g.tag("Date"));
        assert_eq!(g.tag("PlyCount").map(str::to_string), Some(g.game.moves().len().to_string()));
    }
    assert_bad_input(&["match", "--engine2", "/bin/true", "--concurrency", "2"], "one game at a time");
    for flag in ["--nodes", "--depth", "--movetime2"] {
        assert_bad_input(
            &["match", "--engine2", "/bin/true", flag, "10"],
            &format!("{flag} applies to matches between fairylab's own levels"),
        );
    }
}

#[test]
fn the_oracle_level_plays_with_the_gifts_it_will_draw() {
    let players = ["match", "--variant", "snowfall", "--white", "oracle", "--black", "blind", "--nodes", "300"];
    let (o, games) = match_with_records("oracle.pgn", &[&players[..], &["--games", "2", "--max-plies", "8"]].concat());
    assert!(stdout(&o).contains("oracle vs blind (snowfall"), "{}", stdout(&o));
    assert_eq!(games.len(), 2);
    assert!(games.iter().any(|r| r.tag("White") == Some("oracle")));
}

#[test]
fn the_seer_level_plays_knowing_every_gift_to_come() {
    let players = ["match", "--variant", "snowfall", "--white", "seer", "--black", "blind", "--nodes", "300"];
    let (o, games) = match_with_records("seer.pgn", &[&players[..], &["--games", "2", "--max-plies", "8"]].concat());
    assert!(stdout(&o).contains("seer vs blind (snowfall"), "{}", stdout(&o));
    assert_eq!(games.len(), 2);
    assert!(games.iter().any(|r| r.tag("Black") == Some("seer")));
    assert_bad_input(
        &["match", "--variant", "snowfall", "--white", "seers", "--black", "blind", "--games", "2"],
        "unknown AI level 'seers'",
    );
}

#[test]
fn the_exact_level_plays_at_a_fixed_depth_against_the_blind_engine() {
    let players = ["match", "--variant", "snowfall", "--white", "exact", "--black", "blind", "--depth", "2"];
    let args = [&players[..], &["--games", "2", "--max-plies", "12", "--seed", "8"]].concat();
    let (o, games) = match_with_records("exact.pgn", &args);
    assert!(stdout(&o).contains("exact vs blind (snowfall, depth 2 per move): 2 games"), "{}", stdout(&o));
    assert_eq!(games.len(), 2);
    assert!(games.iter().any(|r| r.tag("White") == Some("exact")));
    // A fixed depth is as reproducible as a node budget.
    let again = fairylab(&args);
    assert_eq!(stdout(&o), stdout(&again));
    // Its two-ply form searches the gift after the opponent's reply as well.
    let two = ["match", "--variant", "snowfall", "--white", "blind", "--black", "exact2", "--depth", "1"];
    let o = fairylab(&[&two[..], &["--games", "2", "--max-plies", "6"]].concat());
    assert_ok(&o);
    assert!(stdout(&o).contains("blind vs exact2 (snowfall, depth 1 per move): 2 games"), "{}", stdout(&o));
    let o = fairylab(&[
        "match",
        "--variant",
        "snowfall",
        "--white",
        "exact0",
        "--black",
        "blind",
        "--depth",
        "1",
        "--max-plies",
        "6",
    ]);
    assert!(stdout(&o).contains("exact0 vs blind (snowfall, depth 1 per move): 2 games"), "{}", stdout(&o));
    assert_bad_input(&[&players[..], &["--nodes", "300"]].concat(), "--nodes");
    assert_bad_input(&[&players[..3], &["--depth", "0"]].concat(), "--depth");
}

#[test]
fn the_sampled_level_searches_futures_of_its_own_at_a_fixed_depth() {
    let players = ["match", "--variant", "snowfall", "--white", "sampled4", "--black", "blind", "--depth", "2"];
    let args = [&players[..], &["--games", "2", "--max-plies", "16", "--seed", "9", "--snowfall", "24"]].concat();
    let (o, games) = match_with_records("sampled.pgn", &args);
    assert!(stdout(&o).contains("sampled vs blind (snowfall, depth 2 per move): 2 games"), "{}", stdout(&o));
    assert_eq!(games.len(), 2);
    assert!(games.iter().any(|r| r.tag("Black") == Some("sampled")));
    // Its futures come from its own seed, itself from the match's: reproducible.
    assert_eq!(stdout(&o), stdout(&fairylab(&args)));
    for bad in ["sampled0", "sampled2000", "sampledx"] {
        assert_bad_input(&["match", "--variant", "snowfall", "--white", bad, "--black", "blind"], "sampledN");
    }
}

#[test]
fn the_jitter_level_votes_over_noisy_blind_searches_reproducibly() {
    let players = ["match", "--variant", "snowfall", "--white", "jitter3x30", "--black", "blind", "--depth", "2"];
    let args = [&players[..], &["--games", "2", "--max-plies", "16", "--seed", "9", "--snowfall", "24"]].concat();
    let o = fairylab(&args);
    assert!(stdout(&o).contains("jitter vs blind (snowfall, depth 2 per move): 2 games"), "{}", stdout(&o));
    assert_eq!(stdout(&o), stdout(&fairylab(&args)));
    for bad in ["jitter0", "jitter8x", "jitter8x2000", "jitterx25", "jitter8x-5"] {
        assert_bad_input(&["match", "--variant", "snowfall", "--white", bad, "--black", "blind"], "jitterNxA");
    }
}

#[test]
fn each_pair_of_match_games_draws_its_snowfall_percentage() {
    let players = ["match", "--variant", "snowfall", "--white", "engine", "--black", "blind", "--nodes", "300"];
    let (o, games) = match_with_records(
        "drawn.pgn",
        &[&players[..], &["--games", "6", "--max-plies", "2", "--seed", "40"]].concat(),
    );
    assert!(stderr(&o).contains("(SnowFall % drawn from 10..=24 for each pair of games)"), "{}", stderr(&o));
    assert_eq!(games.len(), 6);
    for r in &games {
        // Game n (1-based) belongs to pair (n - 1) / 2, whose stream is seeded with 40 + pair.
        let round: u64 = r.tag("Round").and_then(|n| n.parse().ok()).expect("a round number");
        let mut rng = rules::chance::seeded_rng(40 + (round - 1) / 2);
        let drawn = rules::variants::snowfall::draw_percent(&mut rng);
        assert_eq!(r.tag("SnowFall"), Some(drawn.to_string().as_str()), "game {round}");
        assert!(rules::variants::snowfall::PERCENTS.contains(&drawn));
    }
}

#[test]
fn an_internal_match_writes_its_games_with_their_gifts() {
    let (o, games) =
        match_with_records("games.pgn", &engine_vs_blind(&["--snowfall", "24", "--max-plies", "60", "--seed", "3"]));
    assert_eq!(games.len(), 2);
    // Each record replays to the final position the match reported, gifts included.
    let log = stderr(&o);
    let finals: Vec<&str> = log.lines().filter_map(|l| l.split(" final ").nth(1)).collect();
    for r in &games {
        let fen = r.game.position().fen();
        assert!(finals.contains(&fen.as_str()), "{fen} not among {finals:?}");
        assert_eq!(r.tag("SnowFall"), Some("24"));
        assert!(r.tag("White").is_some_and(|w| w == "engine" || w == "blind"));
    }
    let gifts = games.iter().flat_map(|r| r.game.events()).filter(|e| matches!(e, rules::chance::Event::Gift(_)));
    assert!(gifts.count() > 0, "no gift read back from 120 plies at 24 %");
}
