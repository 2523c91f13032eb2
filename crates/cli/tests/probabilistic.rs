//! Probabilistic chess from the command line: the map on the board and every roll in `play`, AI
//! levels in `match` (a map per pair of games), `--ply-limit`, and bad input as one `error:` line.

mod common;

use common::{assert_bad_input, assert_ok, fairylab, fairylab_stdin, stdout};

#[test]
fn play_shows_the_map_and_every_roll() {
    let o = fairylab_stdin(&["play", "--variant", "probabilistic", "--movetime", "50", "--seed", "3"], "e4\nquit\n");
    assert_ok(&o);
    let out = stdout(&o);
    assert!(out.contains("the percentage with which a move onto it succeeds"), "{out}");
    assert!(out.contains("e4 (") && out.contains(" %): the dice say "), "{out}");
    assert!(out.contains("engine plays"), "{out}");
}

#[test]
fn internal_match_of_every_level() {
    for (white, black) in [("expectimax", "blind"), ("expectimax", "montecarlo")] {
        let o = fairylab(&[
            "match",
            "--variant",
            "probabilistic",
            "--white",
            white,
            "--black",
            black,
            "--games",
            "2",
            "--nodes",
            "3000",
            "--seed",
            "5",
        ]);
        assert_ok(&o);
        let out = stdout(&o);
        assert!(out.contains(&format!("{white} vs {black} (probabilistic, 3000 nodes per move): 2 games")), "{out}");
        assert!(out.contains("average length"), "{out}");
    }
}

#[test]
fn perft_and_the_ply_limit() {
    let o = fairylab(&["perft", "--variant", "probabilistic", "--depth", "4"]);
    assert_ok(&o);
    assert_eq!(stdout(&o).trim(), "197742", "pseudo-legal: more than chess's 197281");
    let o = fairylab(&["perft", "--variant", "probabilistic", "--ply-limit", "3", "--depth", "4"]);
    assert_ok(&o);
    assert_eq!(stdout(&o).trim(), "197742", "perft counts moves, not game ends");
    assert_bad_input(&["perft", "--variant", "chess", "--ply-limit", "3", "--depth", "1"], "--ply-limit");
    assert_bad_input(
        &["perft", "--variant", "probabilistic", "--fen", "8/8/8/8/8/8/8/K6k w - - 0 1", "--depth", "1"],
        "square map",
    );
}
