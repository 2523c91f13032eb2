//! Reproducibility: the same seed gives byte-identical JSON whatever the thread count,
//! merged shards equal the unsharded run, and sequential mode stops at the same count.

use sim::report::SimResult;
use sim::runner::{run, RunConfig, Shard};
use sim::sequential::{run_sequential, Quantity, SequentialPlan};
use sim::Strategy;

fn gardner() -> &'static rules::Variant {
    rules::variants::by_name("gardner").expect("gardner is built in")
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a thread pool")
}

fn json_with_threads(cfg: &RunConfig, games: u64, threads: usize) -> String {
    let tally = pool(threads).install(|| run(cfg, games, Shard::ALL, &|_| {}));
    SimResult::new(cfg, tally, Shard::ALL, games, None).to_json()
}

#[test]
fn same_seed_same_json_on_one_and_two_threads() {
    let mut cfg = RunConfig::new(gardner(), 2024);
    cfg.black = Strategy::RandomPiece;
    let one = json_with_threads(&cfg, 3000, 1);
    let two = json_with_threads(&cfg, 3000, 2);
    let three = json_with_threads(&cfg, 3000, 3);
    assert_eq!(one, two);
    assert_eq!(one, three);
    // And a different seed gives a different run (the test can fail).
    cfg.seed = 2025;
    assert_ne!(one, json_with_threads(&cfg, 3000, 2));
}

#[test]
fn merged_shards_equal_the_unsharded_run() {
    let cfg = RunConfig::new(gardner(), 7);
    let games = 1001;
    let direct = json_with_threads(&cfg, games, 2);
    let shards: Vec<SimResult> = (0..3)
        .map(|i| {
            let shard = Shard::new(i, 3).expect("valid shard");
            SimResult::new(&cfg, run(&cfg, games, shard, &|_| {}), shard, games, None)
        })
        .collect();
    assert_eq!(shards.iter().map(|s| s.games).sum::<u64>(), games);
    // Through JSON text, in any order.
    let reread: Vec<SimResult> =
        shards.iter().rev().map(|s| SimResult::from_json(&s.to_json()).expect("parses")).collect();
    let merged = SimResult::merge(&reread).expect("shards of one run merge");
    assert_eq!(merged.to_json(), direct);
    // A partial merge keeps its shard metadata and merges on with the rest.
    let partial = SimResult::merge(&shards[..2]).expect("two shards merge");
    assert_eq!(partial.shard.as_ref().map(|s| s.indices.clone()), Some(vec![0, 1]));
    let all = SimResult::merge(&[partial, shards[2].clone()]).expect("merge on");
    assert_eq!(all.to_json(), direct);
}

#[test]
fn merge_rejects_mixed_runs() {
    let cfg = RunConfig::new(gardner(), 7);
    let shard = |cfg: &RunConfig, i| {
        let s = Shard::new(i, 2).expect("valid");
        SimResult::new(cfg, run(cfg, 50, s, &|_| {}), s, 50, None)
    };
    let a = shard(&cfg, 0);
    let mut other_seed = cfg.clone();
    other_seed.seed = 8;
    assert!(SimResult::merge(&[a.clone(), shard(&other_seed, 1)]).is_err());
    let mut other_strategy = cfg.clone();
    other_strategy.white = Strategy::RandomPiece;
    assert!(SimResult::merge(&[a.clone(), shard(&other_strategy, 1)]).is_err());
    let chess = RunConfig::new(rules::variants::by_name("chess").expect("chess"), 7);
    let mut capped = chess.clone();
    capped.max_plies = Some(40);
    assert!(SimResult::merge(&[a.clone(), shard(&capped, 1)]).is_err());
    assert!(SimResult::merge(&[a.clone(), a.clone()]).is_err(), "a shard twice");
    let whole = SimResult::new(&cfg, run(&cfg, 50, Shard::ALL, &|_| {}), Shard::ALL, 50, None);
    assert!(SimResult::merge(&[whole]).is_err(), "a complete run is not a shard");
}

#[test]
fn sequential_mode_is_reproducible_and_meets_the_target() {
    let cfg = RunConfig::new(gardner(), 11);
    let mut plan = SequentialPlan::new(0.02);
    plan.quantities = vec![Quantity::WhiteWin, Quantity::Draw, Quantity::PromotionAny];
    let a = pool(1).install(|| run_sequential(&cfg, &plan, &|_| {}));
    let b = pool(2).install(|| run_sequential(&cfg, &plan, &|_| {}));
    assert!(a.met);
    assert_eq!(a.tally.games, b.tally.games);
    assert_eq!(a.batches, b.batches);
    assert_eq!(a.tally, b.tally);
    assert!(a.tally.games >= plan.min_games);
    for q in &plan.quantities {
        assert!(q.half_width(&a.tally) <= plan.half_width, "{q}: {}", q.half_width(&a.tally));
    }
    // The batch before the last did not meet the target (it would have stopped there).
    if a.batches.len() > 1 {
        let before = a.batches[a.batches.len() - 2];
        let t = run(&cfg, before, Shard::ALL, &|_| {});
        assert!(!plan.met(&t));
    }
    // The games played are games 0..n: the same as a fixed run of n games.
    assert_eq!(run(&cfg, a.tally.games, Shard::ALL, &|_| {}), a.tally);
}

#[test]
fn sequential_mean_target_and_minimum() {
    let cfg = RunConfig::new(gardner(), 3);
    let mut plan = SequentialPlan::new(2.0);
    plan.quantities = vec![Quantity::Plies, Quantity::PliesGivenWhiteWin];
    plan.min_games = 1500;
    let a = run_sequential(&cfg, &plan, &|_| {});
    assert!(a.met);
    assert!(a.tally.games >= 1500);
    assert_eq!(a.batches[0], 1500);
    for q in &plan.quantities {
        assert!(q.half_width(&a.tally) <= 2.0);
    }
    // With a cap it gives up and says so.
    let mut hard = SequentialPlan::new(0.001);
    hard.min_games = 1000;
    hard.max_games = 2000;
    let b = run_sequential(&cfg, &hard, &|_| {});
    assert!(!b.met);
    assert_eq!(b.tally.games, 2000);
}

/// The same two properties for Baby Chess, whose random games take the dedicated kernel.
#[test]
fn baby_kernel_runs_are_reproducible_and_shard_exactly() {
    let v = rules::variants::baby(rules::variants::baby::BabyOptions::default());
    let cfg = RunConfig::new(v, 31);
    let games = 20_001;
    let one = json_with_threads(&cfg, games, 1);
    assert_eq!(one, json_with_threads(&cfg, games, 2));
    let shards: Vec<SimResult> = (0..4)
        .map(|i| {
            let shard = Shard::new(i, 4).expect("valid shard");
            SimResult::new(&cfg, run(&cfg, games, shard, &|_| {}), shard, games, None)
        })
        .collect();
    assert_eq!(SimResult::merge(&shards).expect("shards merge").to_json(), one);
}

fn probabilistic() -> &'static rules::Variant {
    rules::variants::by_name("probabilistic").expect("probabilistic is built in")
}

/// Probabilistic chess: each game draws its own map (RULINGS § Probabilistic chess, 1) from
/// its own stream, so different seeds and different games get different maps, a run still does
/// not depend on threads or shards, and a given start position keeps its map in every game.
#[test]
fn probabilistic_games_draw_their_own_maps() {
    use sim::runner::game_rng;
    let v = probabilistic();
    let cfg = RunConfig { max_plies: Some(150), ..RunConfig::new(v, 99) };
    assert!(cfg.random_maps);
    // Game i's start is the rules' random map drawn first from game i's stream.
    let start = |cfg: &RunConfig, game| cfg.game_start(&mut game_rng(cfg.seed, game)).fen();
    let expected =
        rules::variants::probabilistic::start(v, &rules::variants::probabilistic::random_map(v, &mut game_rng(99, 3)));
    assert_eq!(start(&cfg, 3), expected.fen());
    assert_ne!(start(&cfg, 0), start(&cfg, 1), "two games of one run");
    assert_ne!(start(&cfg, 0), start(&RunConfig { seed: 1, ..cfg.clone() }, 0), "seeds 99 and 1");
    assert_ne!(start(&cfg, 0), rules::Position::start(v).fen(), "not the variant's fixed start map");
    // Reproducible whatever the threads and shards.
    let games = 60;
    let direct = json_with_threads(&cfg, games, 1);
    assert_eq!(direct, json_with_threads(&cfg, games, 2));
    let shards: Vec<SimResult> = (0..3)
        .map(|i| {
            let shard = Shard::new(i, 3).expect("valid shard");
            SimResult::new(&cfg, run(&cfg, games, shard, &|_| {}), shard, games, None)
        })
        .collect();
    assert_eq!(SimResult::merge(&shards).expect("shards merge").to_json(), direct);
    let r = SimResult::from_json(&direct).expect("parses");
    assert_eq!(r.square_maps, Some(sim::report::SquareMaps::PerGame));
    assert_eq!(
        r.start_fen, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "no map: each game has its own"
    );
    // A given start position: its map in every game, and the result says so.
    let fixed = RunConfig { max_plies: Some(150), ..RunConfig::from_position(rules::Position::start(v), 99) };
    assert_eq!(start(&fixed, 0), start(&fixed, 1));
    assert_eq!(start(&fixed, 0), rules::Position::start(v).fen());
    let fixed_json = json_with_threads(&fixed, games, 2);
    assert_ne!(fixed_json, direct);
    let f = SimResult::from_json(&fixed_json).expect("parses");
    assert_eq!(f.square_maps, Some(sim::report::SquareMaps::Fixed));
    assert_eq!(f.start_fen, rules::Position::start(v).fen());
    assert!(f.summary().contains("every game was played on the map of the given start position"), "{}", f.summary());
    // Other variants have no maps.
    let g = SimResult::from_json(&json_with_threads(&RunConfig::new(gardner(), 1), 10, 1)).expect("parses");
    assert_eq!(g.square_maps, None);
}

/// Two shards of a gardner run with a cap, so some games are unfinished (which the merge
/// took for an inconsistency before: it compared the finished games' lengths with all games).
fn capped_shards() -> (RunConfig, Vec<SimResult>) {
    let cfg = RunConfig { max_plies: Some(60), ..RunConfig::new(gardner(), 5) };
    let shards = (0..2)
        .map(|i| {
            let s = Shard::new(i, 2).expect("valid");
            SimResult::new(&cfg, run(&cfg, 40, s, &|_| {}), s, 40, None)
        })
        .collect();
    (cfg, shards)
}

fn merge_error(shards: &[SimResult]) -> String {
    match SimResult::merge(shards) {
        Ok(_) => panic!("the merge should fail"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn merge_takes_shards_with_unfinished_games() {
    let (cfg, shards) = capped_shards();
    assert!(shards.iter().all(|s| s.counts.unfinished > 0), "the cap must cut games off");
    let direct = SimResult::new(&cfg, run(&cfg, 40, Shard::ALL, &|_| {}), Shard::ALL, 40, None);
    assert_eq!(SimResult::merge(&shards).expect("shards merge").to_json(), direct.to_json());
}

/// Damaged or edited counts are refused with the numbers as they are in the file, whatever
/// their size: no sum wraps around, no count exceeds the games, the histograms agree with the
/// counts and moments, and a shard holds exactly its share of the planned games.
#[test]
fn merge_refuses_damaged_counts() {
    let (_, shards) = capped_shards();
    let (a, b) = (&shards[0], &shards[1]);
    let edited = |change: &dyn Fn(&mut SimResult)| {
        let mut r = b.clone();
        change(&mut r);
        merge_error(&[a.clone(), r])
    };
    let e = edited(&|r| r.counts.promotion_any = 1_000_000_000);
    assert!(e.contains("promotion_any is 1000000000, more than the 20 games"), "{e}");
    let e = edited(&|r| r.counts.endings.stalemate += 1_000);
    assert!(e.contains("endings") && e.contains("stalemate"), "{e}");
    // 2⁶³ more White and Black wins: the u64 sum would wrap to the right total.
    let e = edited(&|r| {
        r.counts.white_wins += 1 << 63;
        r.counts.black_wins += 1 << 63;
    });
    let (w, bw) = (b.counts.white_wins + (1 << 63), b.counts.black_wins + (1 << 63));
    assert!(e.contains(&format!("{w} white wins + {bw} black wins")), "{e}");
    let total = u128::from(w) + u128::from(bw) + u128::from(b.counts.draws) + u128::from(b.counts.unfinished);
    assert!(e.contains(&format!("= {total}")), "{e}");
    let e = edited(&|r| r.counts.histograms.draw = vec![1]);
    assert!(e.contains("histograms.draw holds 1 game, but the counts say"), "{e}");
    let e = edited(&|r| {
        let h = &mut r.counts.histograms.draw;
        let (last, first) = (h.len() - 1, h.iter().position(|&c| c > 0).expect("a draw"));
        if first < last {
            h[first] -= 1;
            h[last] += 1;
        } else {
            h[first] -= 1;
            h[first - 1] += 1;
        }
    });
    assert!(e.contains("the length histograms give"), "{e}");
    let e = edited(&|r| r.counts.histograms.draw.push(0));
    assert!(e.contains("histograms.draw ends in a zero count"), "{e}");
    let e = edited(&|r| r.counts.histograms.unfinished = vec![r.counts.unfinished]);
    assert!(e.contains("not stopped at the cap of 60 plies"), "{e}");
    // A consistent tally of twice the games is not the shard's share of the run.
    let e = edited(&|r| {
        let t = r.counts.clone();
        r.counts.merge(&t);
        r.games = r.counts.games;
    });
    assert!(e.contains("40 games, but shard [1] of a run of 40 games in 2 shards holds 20"), "{e}");
    // Versions: only this fairylab's shards (it recomputes the statistics).
    let e = edited(&|r| r.fairylab_version = Some("0.0.1".into()));
    assert!(e.contains("result 2 was written by fairylab 0.0.1; this is fairylab"), "{e}");
    let e = edited(&|r| r.fairylab_version = None);
    assert!(e.contains("result 2 records no fairylab_version"), "{e}");
    // Metadata in words, not Rust's Debug.
    let e = edited(&|r| r.max_plies = None);
    assert!(e.contains("differs in max_plies: 'none' against '60'"), "{e}");
    assert!(SimResult::merge(&shards).is_ok());
}

/// The random-player promotion proportion is planned like the others (`required_games`) and
/// can be a sequential target; means stop on their Student-t half-width, the one reported.
#[test]
fn sequential_quantities_use_the_reported_intervals() {
    let cfg = RunConfig::new(rules::variants::baby(rules::variants::baby::BabyOptions::default()), 4);
    let mut plan = SequentialPlan::new(0.02);
    plan.quantities = vec!["promotion_random_player".parse().expect("a quantity")];
    let a = run_sequential(&cfg, &plan, &|_| {});
    assert!(a.met);
    let r = SimResult::sequential(&cfg, &plan, a);
    let p = &r.promotion_random_player;
    assert!((p.hi - p.lo) / 2.0 <= 0.02, "{p:?}");
    let need = r.required_games.quantities.get("promotion_random_player").copied().expect("planned");
    assert!(need > 0 && need <= r.games, "{need} of {}", r.games);
    assert_eq!(need, Quantity::PromotionRandomPlayer.required_games(&r.counts, 0.02));
    // Means: the t half-width of the interval the result reports.
    let t = run(&cfg, 30, Shard::ALL, &|_| {});
    let few = SimResult::new(&cfg, t.clone(), Shard::ALL, 30, None);
    let m = &few.plies_given_white_win;
    let reported = (m.hi.expect("hi") - m.lo.expect("lo")) / 2.0;
    assert!((Quantity::PliesGivenWhiteWin.half_width(&t) - reported).abs() < 1e-9);
    assert!(reported > 1.96 * m.sd.expect("sd") / (m.n as f64).sqrt() * 1.01, "wider than the normal interval");
}
