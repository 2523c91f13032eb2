//! Fuzz target: any text as Betza notation (`parse_betza`).
//! A movement that parses has atoms, and as a piece in chess it must generate moves that keep the invariants.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rules::betza::parse_betza;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(movement) = parse_betza(text) else { return };
    assert!(!movement.is_empty(), "parse_betza({text:?}) gave no atoms");
    assert!(movement.atoms().iter().all(|a| (a.dx, a.dy) != (0, 0)), "parse_betza({text:?}) gave a null step");
    fuzz_support::exercise_piece(movement);
});
