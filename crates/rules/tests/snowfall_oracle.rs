//! The SnowFall gift generator against an independent oracle: `scripts/snowfall_oracle.py`,
//! written from the seed and RULINGS alone, gave the exact joint outcome of a gift event for
//! the positions of `tests/data/snowfall-odds-oracle.txt` (the seed's examples, caps binding
//! for one or both players, promoted pieces, both hand notations); `rules::odds::gift_odds`
//! must give the same outcomes with the same fractions.

use rules::{odds, variants, Position};
use std::collections::BTreeMap;

#[test]
fn gift_events_agree_with_the_oracle() {
    let data = include_str!("../../../tests/data/snowfall-odds-oracle.txt");
    let snowfall = variants::by_name("snowfall").expect("snowfall");
    let mut checked = 0;
    let mut failures = Vec::new();
    for (n, line) in data.lines().enumerate().filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty()) {
        let (fen, outcomes) = line.split_once('\t').expect("FEN <TAB> outcomes");
        let want: BTreeMap<String, String> = outcomes
            .split(' ')
            .map(|kv| {
                let (k, v) = kv.split_once('=').expect("key=fraction");
                (k.to_string(), v.to_string())
            })
            .collect();
        let pos = Position::from_fen(snowfall, fen).unwrap_or_else(|e| panic!("line {}: {fen}: {e}", n + 1));
        let g = odds::gift_odds(&pos).expect("a SnowFall position");
        let mut got: BTreeMap<String, String> = BTreeMap::new();
        for (gifts, p) in &g.joint {
            let text = if *p.denom() == 1 { p.numer().to_string() } else { format!("{}/{}", p.numer(), p.denom()) };
            assert!(got.insert(gifts.key(), text).is_none(), "line {}: {} twice", n + 1, gifts.key());
        }
        if got != want {
            failures.push(format!("line {}: {fen}\n ours:   {got:?}\n oracle: {want:?}", n + 1));
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{} of {checked} positions differ:\n{}", failures.len(), failures.join("\n"));
    assert!(checked >= 250, "{checked} positions");
}
