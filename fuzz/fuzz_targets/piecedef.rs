//! Fuzz target: any text as FairyGen piecedef: one line, a step list, and a whole file, strict and lenient.
//! Whatever parses must agree between the readers where they must, and work as a piece in chess.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rules::piecedef::{parse_piecedef, parse_piecedef_lenient, parse_piecedef_line, parse_piecedef_moves};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let strict = parse_piecedef(text);
    let lenient = parse_piecedef_lenient(text);
    if let Ok(defs) = &strict {
        // Lenient reading only adds meaning to what the strict reader refuses or leaves spec-less;
        // it must accept every file the strict reader accepts, with the same letters.
        let Ok(len) = &lenient else { panic!("strict accepts {text:?}, lenient refuses: {lenient:?}") };
        let a: Vec<char> = defs.iter().map(|d| d.letter).collect();
        let b: Vec<char> = len.iter().map(|d| d.letter).collect();
        assert_eq!(a, b, "strict and lenient disagree on the letters of {text:?}");
        for d in defs {
            assert!(!d.movement.is_empty(), "piece {} of {text:?} has no steps", d.letter);
        }
    }
    if let Ok(def) = parse_piecedef_line(text) {
        assert!(!def.movement.is_empty(), "line {text:?} has no steps");
        fuzz_support::exercise_piece(def.movement);
    }
    if let Ok(movement) = parse_piecedef_moves(text) {
        assert!(!movement.is_empty(), "step list {text:?} has no steps");
        fuzz_support::exercise_piece(movement);
    }
});
