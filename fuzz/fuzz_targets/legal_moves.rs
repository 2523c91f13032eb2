//! Fuzz target: playouts in chess, crazyhouse and gardner where each input byte picks the next legal move.
//! After every move: legal moves = pseudo-legal moves that keep the king safe, hash = hash from the FEN, FEN round-trips.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rules::Position;

/// Plies per playout: long enough for crowded crazyhouse hands, short enough to keep executions fast.
const MAX_PLIES: usize = 300;

fuzz_target!(|data: &[u8]| {
    let Some((&first, moves)) = data.split_first() else { return };
    let names = fuzz_support::PLAYOUT_VARIANTS;
    let v = fuzz_support::variant(names[first as usize % names.len()]);
    let mut pos = Position::start(v);
    for &byte in moves.iter().take(MAX_PLIES) {
        let legal = fuzz_support::check_legality(&pos);
        if legal.is_empty() {
            break;
        }
        let m = legal[byte as usize % legal.len()];
        fuzz_support::check_notation(&pos, m);
        pos = fuzz_support::check_child(&pos, m);
    }
    fuzz_support::check_legality(&pos);
});
