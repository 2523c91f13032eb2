//! Fuzz target: any text as SAN (`parse_san`) in fixed positions of each variant.
//! A move that parses must be legal there, and `to_san` of it must parse back to the same move.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rules::san::{parse_san, to_san};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for pos in fuzz_support::notation_positions() {
        if let Ok(m) = parse_san(pos, text) {
            assert!(pos.legal_moves().contains(&m), "parse_san({text:?}) gave an illegal move in {}", pos.fen());
            let san = to_san(pos, m);
            assert_eq!(
                parse_san(pos, &san).ok(),
                Some(m),
                "{san} (from {text:?}) does not round-trip in {}",
                pos.fen()
            );
            fuzz_support::check_notation(pos, m);
        }
    }
});
