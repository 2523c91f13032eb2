//! Fuzz target: any text as a SnowFall FEN (hands in brackets), and every explainer answer on it
//! (`rules::odds`, as `fairylab snowfall odds` and the server's live odds give them). Nothing may
//! panic; the gift event's outcomes are a distribution (each positive, summing to one, given the
//! event and with it); no outcome takes a player past a cap it was under; the mate odds are
//! probabilities with `thanks_to_gift <= can_mate` (equal where no mate exists without a gift),
//! and an outcome without gifts keeps the giftless mate; every legal move's risk of being mated
//! is a probability.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rules::chance::Probability;
use rules::gift::{self, Kind};
use rules::odds;
use rules::{Color, Position};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let v = rules::variants::snowfall::variant(17);
    let Ok(pos) = Position::from_fen(v, text) else { return };
    let (zero, one) = (Probability::from_integer(0), Probability::from_integer(1));
    let fen = pos.fen();
    let g = odds::gift_odds(&pos).expect("a SnowFall position has gift odds");
    let total: Probability = g.joint.iter().map(|(_, p)| *p).sum();
    assert_eq!(total, one, "the joint outcomes of {fen} sum to {total}");
    assert!(g.joint.iter().all(|(_, p)| *p > zero), "{fen}: an outcome of probability 0 is listed");
    assert!(g.kinds.iter().flatten().all(|p| *p >= zero && *p <= one), "{fen}: {:?}", g.kinds);
    let have = gift::counts(&pos);
    for (gifts, _) in &g.joint {
        for c in Color::ALL {
            for k in Kind::ALL {
                let before = have[c.index()][k as usize];
                let got = gifts.of(c).count(k);
                assert!(got == 0 || before + got <= k.cap(), "{fen}: {gifts} takes {c} past the {k:?} cap");
            }
        }
    }
    let dist = gift::distribution(&pos, 17);
    let total: Probability = dist.outcomes().iter().map(|(_, p)| *p).sum();
    assert_eq!(total, one, "the gift distribution of {fen} sums to {total}");
    let m = odds::mate_odds(&pos).expect("mate odds");
    let total: Probability = m.outcomes.iter().map(|o| o.probability).sum();
    assert_eq!(total, one, "{fen}: the mate odds' outcomes sum to {total}");
    assert!(m.thanks_to_gift >= zero && m.thanks_to_gift <= m.can_mate && m.can_mate <= one, "{fen}");
    // Where nothing is given the mate is the one without a gift (a gift to the defender may
    // spoil it: a piece in hand to drop in the way).
    for o in m.outcomes.iter().filter(|o| o.gifts.is_empty()) {
        assert_eq!(o.mate, m.without_gift, "{fen}: no gift, another mate");
    }
    if m.without_gift.is_none() {
        assert_eq!(m.thanks_to_gift, m.can_mate, "{fen}: every mate is a gift's");
    }
    // The risk per move costs a search of every move and outcome: only where moves are few.
    if pos.legal_moves().len() <= 12 {
        for (mv, p) in odds::mated_odds(&pos).expect("mated odds") {
            assert!(p >= zero && p <= one, "{fen}: {mv:?} {p}");
        }
    }
});
