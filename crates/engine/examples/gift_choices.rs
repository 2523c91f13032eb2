//! Where the fair expectation of gifts moves differently: on the positions of a SnowFall match
//! record (`fairylab match --variant snowfall ... --pgn FILE`), the move of the blind engine, of
//! the gift-aware engine and of sampled futures ([`Engine::search_futures`]), all at one depth.
//!
//! For each player it prints how often its move is a drop, a capture, a check or a king move,
//! and what its move leaves: the pieces in the mover's hand, and each king's exposure to drop
//! checks (the empty squares from which a piece of a kind the enemy holds in hand would give
//! check). Then the same, over the positions where sampled futures and the blind engine differ.
//!
//! ```sh
//! cargo run --release -p fairylab-engine --example gift_choices -- games.pgn [DEPTH] [GAMES] [EVERY] [FUTURES]
//! ```

use engine::{Engine, Limits, SearchParams};
use rules::{Color, Move, Position, Role};
use std::process::ExitCode;

/// The measures of one chosen move, summed over positions.
#[derive(Default, Clone, Copy)]
struct Tally {
    positions: u64,
    drops: u64,
    captures: u64,
    checks: u64,
    king_moves: u64,
    /// Pieces left in the mover's hand.
    hand: u64,
    /// Drop-check squares open against the mover's king, then against the enemy's.
    own_exposure: u64,
    enemy_exposure: u64,
}

impl Tally {
    fn add(&mut self, pos: &Position, m: Move) {
        let us = pos.turn();
        let mut after = pos.clone();
        after.play_unchecked(m);
        self.positions += 1;
        self.drops += u64::from(m.is_drop());
        self.captures += u64::from(pos.is_capture(m));
        self.checks += u64::from(after.is_check());
        self.king_moves += u64::from(!m.is_drop() && pos.king_square(us) == Some(m.from()));
        self.hand += u64::from(after.hand(us).total());
        self.own_exposure += exposure(&after, us);
        self.enemy_exposure += exposure(&after, !us);
    }

    fn print(&self, name: &str) {
        let n = self.positions.max(1) as f64;
        let pct = |x: u64| 100.0 * x as f64 / n;
        println!(
            "  {name:<8} drop {:5.1} %  capture {:5.1} %  check {:5.1} %  king {:5.1} %  hand {:5.2}  own exposure {:5.2}  enemy exposure {:5.2}",
            pct(self.drops),
            pct(self.captures),
            pct(self.checks),
            pct(self.king_moves),
            self.hand as f64 / n,
            self.own_exposure as f64 / n,
            self.enemy_exposure as f64 / n,
        );
    }
}

/// The empty squares from which a piece of a kind `color`'s enemy holds in hand would check
/// `color`'s king, summed over those kinds.
fn exposure(pos: &Position, color: Color) -> u64 {
    let Some(king) = pos.king_square(color) else { return 0 };
    let occ = pos.board().occupied();
    let enemy_hand = pos.hand(!color);
    "PNBRQ"
        .chars()
        .filter_map(|c| pos.variant().role_by_letter(c))
        .filter(|&r: &Role| enemy_hand.count(r) > 0)
        .map(|r| u64::from((pos.attacks(king, color, r, occ) & !occ).count()))
        .sum()
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gift_choices: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The numeric argument at `i`, or `default`.
fn number(args: &[String], i: usize, default: u64) -> Result<u64, String> {
    args.get(i).map_or(Ok(default), |a| a.parse().map_err(|_| format!("{a:?} is not a number")))
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().ok_or("usage: gift_choices GAMES.pgn [DEPTH] [GAMES] [EVERY] [FUTURES]")?;
    let depth = number(&args, 1, 6)? as u32;
    let games = number(&args, 2, 30)? as usize;
    let every = number(&args, 3, 6)?.max(1) as usize;
    let futures = number(&args, 4, 8)?.max(1);
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let records = rules::record::read_records(&text).map_err(|e| format!("{path}: {e}"))?;
    let names = ["blind", "engine", "sampled"];
    let (mut all, mut differing) = ([Tally::default(); 3], [Tally::default(); 3]);
    let mut same = [0u64; 3];
    let mut engine = Engine::new();
    for (g, record) in records.iter().take(games).enumerate() {
        let game = &record.game;
        let mut pos = game.start().clone();
        for (i, (&m, &event)) in game.moves().iter().zip(game.events()).enumerate() {
            if i % every == every / 2 && pos.has_legal_move() {
                let v = pos.variant();
                let limits = Limits::depth(depth);
                let mut plain = |params: SearchParams| {
                    engine.set_params(Some(params));
                    engine.clear();
                    engine.search(pos.clone(), &[], limits, |_| {}).best
                };
                let blind = plain(SearchParams::blind(v));
                let aware = plain(SearchParams::for_variant(v));
                engine.set_params(Some(SearchParams { chance_plies: 0, ..SearchParams::for_variant(v) }));
                let sampled = engine.search_futures(&pos, &[], limits, g as u64, futures);
                let (Some(blind), Some(aware), Some(sampled)) = (blind, aware, sampled) else { continue };
                let chosen = [blind, aware, sampled];
                for k in 0..3 {
                    all[k].add(&pos, chosen[k]);
                }
                same[0] += u64::from(aware == blind);
                same[1] += u64::from(sampled == blind);
                same[2] += u64::from(sampled == aware);
                if sampled != blind {
                    for k in 0..3 {
                        differing[k].add(&pos, chosen[k]);
                    }
                }
            }
            pos.play_event(m, event);
        }
    }
    let n = all[0].positions;
    if n == 0 {
        return Err(format!("{path}: no position to search"));
    }
    let pct = |x: u64| 100.0 * x as f64 / n as f64;
    println!("{n} positions, depth {depth}, {futures} futures");
    println!(
        "same move: engine and blind {:.1} %, sampled and blind {:.1} %, sampled and engine {:.1} %",
        pct(same[0]),
        pct(same[1]),
        pct(same[2])
    );
    println!("every position:");
    for k in 0..3 {
        all[k].print(names[k]);
    }
    println!("the {} positions where sampled and blind differ:", differing[0].positions);
    for k in 0..3 {
        differing[k].print(names[k]);
    }
    Ok(())
}
