//! Skill levels (`Engine::set_skill`, UCI `Skill Level`) and the play server's levels
//! (`Handicap::level`): full strength unchanged, the same seed the same moves, a shallower
//! search, and weaker levels leaving the best move more often.

use engine::{Engine, Handicap, Limits, MAX_SKILL};
use rules::{variants, Position};

/// Win At Chess positions, from the test data: each has one clearly best move.
fn wac(n: usize) -> Vec<Position> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/wac.epd");
    let text = std::fs::read_to_string(path).expect("wac.epd");
    let chess = variants::by_name("chess").expect("chess");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .take(n)
        .map(|l| {
            let fen: Vec<&str> = l.split_whitespace().take(4).collect();
            Position::from_fen(chess, &format!("{} 0 1", fen.join(" "))).expect("FEN")
        })
        .collect()
}

/// How many of 40 Win At Chess positions a handicapped engine answers with the full engine's
/// depth-8 move (each position with its own seed); every move it plays must be legal.
fn best_move_counter() -> impl Fn(Option<Handicap>) -> usize {
    let positions = wac(40);
    let best: Vec<_> =
        positions.iter().map(|p| Engine::new().search(p.clone(), &[], Limits::depth(8), |_| {}).best).collect();
    move |handicap| {
        let mut hits = 0;
        for (seed, (pos, best)) in positions.iter().zip(&best).enumerate() {
            let mut e = Engine::new();
            e.set_handicap(handicap, seed as u64);
            let r = e.search(pos.clone(), &[], Limits::depth(8), |_| {});
            assert!(r.best.is_some_and(|m| pos.is_legal(m)), "{}", pos.fen());
            hits += usize::from(r.best == *best);
        }
        hits
    }
}

#[test]
fn full_strength_is_the_plain_search() {
    for pos in wac(12) {
        let plain = Engine::new().search(pos.clone(), &[], Limits::depth(5), |_| {});
        let mut e = Engine::new();
        e.set_skill(MAX_SKILL, 7);
        let full = e.search(pos.clone(), &[], Limits::depth(5), |_| {});
        assert_eq!((plain.best, plain.value, plain.nodes), (full.best, full.value, full.nodes), "{}", pos.fen());
    }
}

#[test]
fn a_level_searches_shallow_among_four_lines_and_repeats_itself_with_its_seed() {
    let positions = wac(30);
    let play = |level: u8, seed: u64| -> Vec<rules::Move> {
        positions
            .iter()
            .map(|pos| {
                let mut e = Engine::new();
                e.set_skill(level, seed);
                let r = e.search(pos.clone(), &[], Limits::movetime(std::time::Duration::from_secs(5)), |_| {});
                assert!(r.depth <= 1 + u32::from(level), "depth {} at level {level}", r.depth);
                assert!(r.lines.len() >= 4.min(pos.legal_moves().len()), "{} lines", r.lines.len());
                let best = r.best.expect("a move");
                assert!(pos.is_legal(best));
                assert!(r.lines.iter().any(|l| l.pv.first() == Some(&best)), "the move is one of the lines");
                assert_eq!(r.pv.first(), Some(&best), "the line reported is the move's");
                best
            })
            .collect()
    };
    assert_eq!(play(3, 11), play(3, 11), "the same seed plays the same moves");
    assert_ne!(play(3, 11), play(3, 12), "another seed plays other moves somewhere");
}

#[test]
fn weaker_levels_find_the_best_move_less_often() {
    let found = best_move_counter();
    let (low, middle, high) = (found(Handicap::skill(0)), found(Handicap::skill(4)), found(Handicap::skill(19)));
    eprintln!("the depth-8 move found at levels 0, 4 and 19: {low}, {middle} and {high} of 40");
    // Level 4 searches 5 plies, level 19 the full 8; their random shares differ too, so
    // between those two only a clear order is asked for.
    assert!(low < middle && low < high && middle <= high + 2, "levels 0, 4, 19: {low}, {middle}, {high} of 40");
    assert!(low <= 20, "level 0 plays the best move {low} times in 40");
}

#[test]
fn the_play_server_levels_step_up_to_full_strength() {
    let levels: Vec<Handicap> = (1..=7).map(|n| Handicap::level(n).expect("levels 1 to 7 are handicapped")).collect();
    for pair in levels.windows(2) {
        let (lower, upper) = (pair[0], pair[1]);
        assert!(
            lower.depth <= upper.depth && lower.weakness >= upper.weakness && lower != upper,
            "{lower:?} {upper:?}"
        );
    }
    assert_eq!(Handicap::level(8), None, "level 8 is full strength");
    assert_eq!(Handicap::level(0), Handicap::level(1));
    assert_eq!(Handicap::skill(MAX_SKILL), None);
    assert_eq!(Handicap::skill(0), Some(Handicap { depth: 1, weakness: 120 }));
    // Played: levels 1, 4 and 7 find the depth-8 move increasingly often.
    let found = best_move_counter();
    let (one, four, seven) = (found(Handicap::level(1)), found(Handicap::level(4)), found(Handicap::level(7)));
    eprintln!("the depth-8 move found at levels 1, 4 and 7: {one}, {four} and {seven} of 40");
    assert!(one < four && four < seven, "levels 1, 4, 7: {one}, {four}, {seven} of 40");
}
