//! What a SnowFall gift is worth to the player who moves first after it, measured on the games
//! of a match record (`fairylab match --variant snowfall ... --pgn FILE`).
//!
//! For every gift event in the record, the position after the move is searched to a fixed depth
//! twice, from the side to move's view: once without the gift and once with it. The search gain
//! beyond the static gain (the hands' value, which both players' gifts mostly cancel) is the
//! tempo of the first drop: what moving first with the new pieces is worth. It is reported by
//! the player whose move the event followed (the player exposed to it), with the share of events
//! worth more than 400 centipawns.
//!
//! ```sh
//! cargo run --release -p fairylab-engine --example gift_tempo -- games.pgn [DEPTH]
//! ```

use engine::{Engine, Evaluator, Limits, SearchParams, Value};
use rules::chance::Event;
use std::collections::BTreeMap;
use std::process::ExitCode;

/// Values beyond this many centipawns (mates) count as this much.
const CLIP: Value = 1500;
/// A tempo worth more than this counts as a large swing.
const LARGE: f64 = 400.0;

/// Per exposed player: the events, the sum and sum of squares of the tempo, the large swings.
#[derive(Default)]
struct Tally {
    events: usize,
    sum: f64,
    squares: f64,
    large: usize,
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gift_tempo: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().ok_or("usage: gift_tempo GAMES.pgn [DEPTH]")?;
    let depth: u32 = match args.get(1) {
        Some(d) => d.parse().map_err(|_| format!("depth {d:?} is not a number"))?,
        None => 6,
    };
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let records = rules::record::read_records(&text).map_err(|e| format!("{path}: {e}"))?;
    let mut engine = Engine::new();
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    for record in &records {
        let names = [record.tag("White").unwrap_or("White"), record.tag("Black").unwrap_or("Black")];
        let game = &record.game;
        let mut pos = game.start().clone();
        let params = SearchParams::blind(pos.variant());
        engine.set_params(Some(params));
        let eval = Evaluator::for_params(pos.variant(), &params);
        for (&m, &event) in game.moves().iter().zip(game.events()) {
            let mover = names[pos.turn().index()];
            if let Event::Gift(_) = event {
                let mut without = pos.clone();
                without.play_event(m, Event::Success);
                let mut with = pos.clone();
                with.play_event(m, event);
                if without.has_legal_move() && with.has_legal_move() {
                    let mut value = |p: &rules::Position| {
                        engine.clear();
                        f64::from(engine.search(p.clone(), &[], Limits::depth(depth), |_| {}).value.clamp(-CLIP, CLIP))
                    };
                    let searched = value(&with) - value(&without);
                    let statically = f64::from(eval.evaluate(&with).clamp(-CLIP, CLIP))
                        - f64::from(eval.evaluate(&without).clamp(-CLIP, CLIP));
                    let tempo = searched - statically;
                    let t = tallies.entry(mover.to_string()).or_default();
                    t.events += 1;
                    t.sum += tempo;
                    t.squares += tempo * tempo;
                    t.large += usize::from(tempo > LARGE);
                }
            }
            pos.play_event(m, event);
        }
    }
    println!("the tempo of a gift's first drop, depth {depth}, by the player whose move the event followed:");
    for (name, t) in &tallies {
        let n = t.events as f64;
        let mean = t.sum / n;
        let sd = (t.squares / n - mean * mean).max(0.0).sqrt();
        println!(
            "{name}: {} events, mean {mean:.1} ± {:.1} (s.e.), sd {sd:.1}, above {LARGE}: {:.1} %",
            t.events,
            sd / n.sqrt(),
            100.0 * t.large as f64 / n
        );
    }
    Ok(())
}
