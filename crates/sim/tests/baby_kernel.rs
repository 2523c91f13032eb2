//! The Baby Chess playout kernel plays exactly the rules core's games: for every seed and
//! game index, the same moves and the same record as `runner::play_game`, from the four
//! starts and from mid-game positions where pieces are close to their switch limit.

use rand::Rng;
use rules::variants::baby::BabyOptions;
use rules::{Move, Position, Square};
use sim::baby::BabyKernel;
use sim::runner::{play_game, RunConfig, Scratch};
use sim::Strategy;

fn index(sq: Square) -> u8 {
    sq.rank() * 5 + sq.file()
}

/// Plays games `0..games` both ways and compares them move for move.
fn compare(cfg: &RunConfig, games: u64) -> (u64, u32) {
    let kernel = BabyKernel::for_config(cfg).expect("the kernel applies");
    let mut scratch = Scratch::new(cfg);
    let mut plies = 0;
    let mut most = 0;
    for i in 0..games {
        let mut core = Vec::new();
        let expected = play_game(cfg, i, &mut scratch, Some(&mut core));
        let mut line = Vec::new();
        let got = kernel.play(i, Some(&mut line));
        let core: Vec<(u8, u8)> = core.iter().map(|(m, _): &(Move, _)| (index(m.from()), index(m.to()))).collect();
        assert_eq!(line, core, "game {i} of {} from {}", cfg.variant().name, cfg.start.fen());
        assert_eq!(got, expected, "game {i} of {} from {}", cfg.variant().name, cfg.start.fen());
        plies += u64::from(got.plies);
        most = most.max(got.plies);
    }
    (plies, most)
}

#[test]
fn the_kernel_plays_the_rules_cores_games_from_every_start() {
    for o in BabyOptions::ALL {
        let v = rules::variants::baby(o);
        for (white, black) in [
            (Strategy::Random, Strategy::Random),
            (Strategy::RandomPiece, Strategy::RandomPiece),
            (Strategy::Random, Strategy::RandomPiece),
        ] {
            let cfg = RunConfig { white, black, ..RunConfig::new(v, 17) };
            let (plies, most) = compare(&cfg, 1500);
            assert!(plies > 1500 * 10 && most <= 170, "{}: {plies} plies, longest {most}", v.name);
        }
    }
}

#[test]
fn the_kernel_agrees_from_mid_game_positions_near_the_switch_limit() {
    let mut rng = rules::chance::seeded_rng(23);
    let mut frozen_starts = 0;
    for o in BabyOptions::ALL {
        let v = rules::variants::baby(o);
        let mut starts = 0;
        while starts < 60 {
            // A random walk into the game; keep positions where some piece has 4 or 5 switches.
            let mut pos = Position::start(v);
            let plies = rng.gen_range(10..80);
            for _ in 0..plies {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                pos.play_unchecked(moves[rng.gen_range(0..moves.len())]);
            }
            let most = pos.board().occupied().into_iter().map(|s| pos.switches_at(s)).max().unwrap_or(0);
            if most < 4 || pos.legal_moves().is_empty() {
                continue;
            }
            frozen_starts += usize::from(most == 5);
            starts += 1;
            let cfg = RunConfig { start: pos.clone(), ..RunConfig::new(v, starts) };
            compare(&cfg, 40);
            // Round trip through FEN (the `{n}` counts) gives the same kernel games.
            let again = Position::from_fen(v, &pos.fen()).expect("own FEN");
            let cfg2 = RunConfig { start: again, ..cfg.clone() };
            compare(&cfg2, 5);
        }
    }
    assert!(frozen_starts >= 20, "only {frozen_starts} starts with a frozen piece");
}

#[test]
fn the_kernel_honours_the_ply_cap() {
    let v = rules::variants::baby(BabyOptions::default());
    let cfg = RunConfig { max_plies: Some(12), ..RunConfig::new(v, 5) };
    compare(&cfg, 300);
}

#[test]
fn the_kernel_declines_other_variants_and_strategies() {
    let gardner = rules::variants::by_name("gardner").expect("gardner");
    assert!(BabyKernel::for_config(&RunConfig::new(gardner, 1)).is_none());
    let baby = rules::variants::baby(BabyOptions::default());
    let engine: Strategy = "engine:depth=1".parse().expect("strategy");
    assert!(BabyKernel::for_config(&RunConfig { white: engine, ..RunConfig::new(baby, 1) }).is_none());
}
