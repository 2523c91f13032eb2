//! Fuzz target: any text as a TOML variant file (`spec::parse_rules`, then what `load_variant_str` builds).
//! A variant that loads must have a playable start position: perft(2) and the invariants must hold.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rules::spec::parse_rules;

// `load_variant_str` is `parse_rules` then `variant::load`, which leaks the variant for `'static`;
// `with_variant` does the same build and start-FEN check but frees the variant after each input.
fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(spec) = parse_rules(text) else { return };
    fuzz_support::with_variant(spec, |_, start| {
        let _ = rules::perft(&start, 2);
        let legal = fuzz_support::check_position(&start);
        for &m in &legal {
            fuzz_support::check_notation(&start, m);
        }
    });
});
