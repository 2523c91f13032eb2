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
