//! Fuzz target: any text as a FEN for every built-in variant (`Position::from_fen`).
//! A FEN that parses must round-trip, and its position must keep the move-generation invariants.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rules::Position;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for &v in rules::variants::all() {
        let _ = rules::fen::parse_setup(v, text);
        let Ok(pos) = Position::from_fen(v, text) else { continue };
        fuzz_support::check_position(&pos);
    }
});
