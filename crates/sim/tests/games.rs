//! The games the runner plays follow the rules: every move legal, every finished game in a
//! terminal state by the rules crate's own judgement, the cap counted as unfinished, and
//! promotions detected.

use rules::game::Game;
use rules::{variants, Position};
use sim::runner::{classify, play_game, GameResult, RunConfig, Scratch};
use sim::Strategy;

fn replay(cfg: &RunConfig, games: u64) -> (u64, u64) {
    let mut scratch = Scratch::new(cfg);
    let (mut finished, mut promotions) = (0, 0);
    for i in 0..games {
        let mut line = Vec::new();
        let record = play_game(cfg, i, &mut scratch, Some(&mut line));
        assert_eq!(record.plies as usize, line.len());
        let mut game = Game::new(cfg.start.clone());
        let mut promoted = [false; 2];
        for (ply, &(m, _)) in line.iter().enumerate() {
            assert!(game.outcome().is_none(), "game {i} went on after the end at ply {ply}");
            let us = game.position().turn();
            promoted[us.index()] |= m.promotion_role().is_some();
            game.play(m).unwrap_or_else(|e| panic!("game {i}, ply {ply}: illegal move: {e}"));
        }
        assert_eq!(record.promoted, promoted, "game {i}");
        promotions += u64::from(promoted[0] || promoted[1]);
        match game.outcome() {
            Some(o) => {
                let (result, ending) = classify(o);
                assert_eq!((record.result, record.ending), (result, ending), "game {i}");
                finished += 1;
            }
            None => {
                assert_eq!(record.result, GameResult::Unfinished, "game {i} stopped before the end");
                assert_eq!(Some(record.plies), cfg.max_plies);
            }
        }
    }
    (finished, promotions)
}

#[test]
fn gardner_games_end_in_terminal_positions() {
    let mut cfg = RunConfig::new(variants::by_name("gardner").expect("gardner"), 5);
    let (finished, promotions) = replay(&cfg, 300);
    assert_eq!(finished, 300);
    assert!(promotions > 0);
    cfg.white = Strategy::RandomPiece;
    cfg.black = Strategy::RandomPiece;
    assert_eq!(replay(&cfg, 100).0, 100);
}

#[test]
fn chess_games_end_or_hit_the_cap() {
    let mut cfg = RunConfig::new(variants::by_name("chess").expect("chess"), 9);
    cfg.max_plies = Some(60);
    let (finished, _) = replay(&cfg, 40);
    assert!(finished < 40, "random chess games rarely end within 60 plies");
    cfg.max_plies = None;
    assert_eq!(replay(&cfg, 10).0, 10);
}

#[test]
fn crazyhouse_and_chance_variants_play_through() {
    let mut cfg = RunConfig::new(variants::by_name("crazyhouse").expect("crazyhouse"), 1);
    cfg.max_plies = Some(300);
    replay(&cfg, 10);
    let mut coin = RunConfig::new(variants::by_name("coinflip").expect("coinflip"), 1);
    coin.max_plies = Some(300);
    let mut scratch = Scratch::new(&coin);
    for i in 0..10 {
        let _ = play_game(&coin, i, &mut scratch, None);
    }
}

#[test]
fn engine_strategy_plays_deterministically_from_a_fen() {
    let v = variants::by_name("gardner").expect("gardner");
    let mut cfg = RunConfig::new(v, 4);
    cfg.start = Position::from_fen(v, "4k/5/2K2/5/Q4 w - - 0 1").expect("valid FEN");
    cfg.white = Strategy::Engine(sim::strategy::EngineLimit::Depth(3));
    cfg.max_plies = Some(40);
    let (finished, _) = replay(&cfg, 2);
    let mut a = Scratch::new(&cfg);
    let mut b = Scratch::new(&cfg);
    assert_eq!(play_game(&cfg, 0, &mut a, None), play_game(&cfg, 0, &mut b, None));
    // Queen and king against king: the engine mates against a random defender.
    assert_eq!(finished, 2);
    assert_eq!(play_game(&cfg, 1, &mut a, None).result, GameResult::WhiteWin);
}

/// RULINGS § Probabilistic 5: the ply limit ends every game (with a material adjudication),
/// in a simulation as in play; on the shrinking board it is what ends a game whose kings sit
/// on closed rings (seed 2 has two among its first 150 games, each on its own random map).
#[test]
fn probabilistic_games_end_at_the_ply_limit() {
    use rules::variants::probabilistic::{self, ProbOptions};
    use sim::runner::{run, Ending, Shard};
    let short = probabilistic::variant(ProbOptions { ply_limit: 10, ..ProbOptions::default() });
    let cfg = RunConfig::new(short, 1);
    let mut scratch = Scratch::new(&cfg);
    let mut at_limit = 0;
    for i in 0..300 {
        let record = play_game(&cfg, i, &mut scratch, None);
        assert!(record.plies <= 10, "game {i} ran {} plies past the limit of 10", record.plies);
        assert_ne!(record.result, GameResult::Unfinished);
        at_limit += u64::from(record.ending == Ending::PlyLimit);
    }
    let tally = run(&cfg, 300, Shard::ALL, &|_| {});
    assert_eq!(tally.endings.ply_limit, at_limit);
    assert!(at_limit > 250, "most random games reach ply 10 with both kings: {at_limit} of 300");
    assert_eq!(tally.endings.ply_limit + tally.endings.king_captured, 300);

    let shrinking = probabilistic::variant(ProbOptions { shrinking: true, ..ProbOptions::default() });
    let cfg = RunConfig::new(shrinking, 2);
    let tally = run(&cfg, 150, Shard::ALL, &|_| {});
    assert_eq!(tally.unfinished, 0);
    assert!(tally.endings.ply_limit >= 1, "a game ends only by the ply limit");
    assert!(
        tally.histograms.draw.len() <= 1001
            && tally.histograms.white_win.len() <= 1001
            && tally.histograms.black_win.len() <= 1001
    );
}
