//! End-to-end test of the chance API on the `coinflip` test variant: exact outcome
//! distributions, exact multi-ply probabilities, and a seeded sampler that matches them.

use rules::chance::{seeded_rng, ChanceError, Distribution, Event, Probability};
use rules::orders::Simultaneous;
use rules::{variants, Color, Move, Position};
use std::collections::HashMap;

fn coinflip() -> &'static rules::Variant {
    variants::by_name("coinflip").expect("coinflip is built in")
}

/// The move a fixed policy tries: the first legal move in UCI order.
fn policy(pos: &Position) -> Option<Move> {
    let mut moves: Vec<Move> = pos.legal_moves().into_iter().collect();
    moves.sort_by_key(|&m| rules::uci::to_uci(pos, m));
    moves.first().copied()
}

/// Exact distribution of FENs after `plies` attempts under the policy.
fn exact(pos: &Position, plies: u32, p: Probability, out: &mut HashMap<String, Probability>) {
    let m = match (plies, policy(pos)) {
        (0, _) | (_, None) => {
            *out.entry(pos.fen()).or_insert(Probability::from_integer(0)) += p;
            return;
        }
        (_, Some(m)) => m,
    };
    for &(event, q) in pos.chance(m).outcomes() {
        let mut child = pos.clone();
        child.play_event(m, event);
        exact(&child, plies - 1, p * q, out);
    }
}

#[test]
fn a_coinflip_move_succeeds_with_probability_one_half() {
    let pos = Position::start(coinflip());
    for m in pos.legal_moves() {
        let d = pos.chance(m);
        assert_eq!(d.outcomes(), &[(Event::Success, Probability::new(1, 2)), (Event::Failure, Probability::new(1, 2))]);
    }
    let chess = Position::start(variants::by_name("chess").expect("chess"));
    let m = chess.legal_moves()[0];
    assert!(chess.chance(m).is_certain());
}

#[test]
fn failure_passes_the_turn_and_clears_en_passant() {
    let v = coinflip();
    let pos = Position::from_fen(v, "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1").expect("valid FEN");
    assert_eq!(pos.ep_square().map(|s| s.to_string()).as_deref(), Some("e3"));
    let m = rules::uci::parse_uci(&pos, "e8d8").expect("legal");
    let mut failed = pos.clone();
    failed.play_event(m, Event::Failure);
    assert_eq!(failed.turn(), Color::White);
    assert_eq!(failed.board(), pos.board());
    assert_eq!(failed.ep_square(), None);
    assert_eq!(failed.fen(), "4k3/8/8/8/3pP3/8/8/4K3 w - - 1 2");
}

#[test]
fn sampling_matches_the_exact_distribution_over_three_plies() {
    let start = Position::start(coinflip());
    let mut dist = HashMap::new();
    exact(&start, 3, Probability::from_integer(1), &mut dist);
    let total = dist.values().fold(Probability::from_integer(0), |a, b| a + b);
    assert_eq!(total, Probability::from_integer(1));
    // 2^3 event sequences; some lead to the same position.
    assert!(dist.len() >= 4, "{dist:?}");

    let n = 40_000u32;
    let mut rng = seeded_rng(2026);
    let mut seen: HashMap<String, u32> = HashMap::new();
    for _ in 0..n {
        let mut pos = start.clone();
        for _ in 0..3 {
            if let Some(m) = policy(&pos) {
                pos.play_sampled(m, &mut rng);
            }
        }
        *seen.entry(pos.fen()).or_default() += 1;
    }
    for (fen, p) in &dist {
        let p = *p.numer() as f64 / *p.denom() as f64;
        let observed = f64::from(seen.get(fen).copied().unwrap_or(0)) / f64::from(n);
        let se = (p * (1.0 - p) / f64::from(n)).sqrt();
        assert!((observed - p).abs() < 4.0 * se, "{fen}: observed {observed}, exact {p}");
    }
    assert!(seen.keys().all(|fen| dist.contains_key(fen)), "sampled a position the exact tree does not have");
}

#[test]
fn sampler_is_deterministic_and_fair_for_thirds() {
    let d = Distribution::new(vec![('a', Probability::new(1, 3)), ('b', Probability::new(2, 3))]).expect("valid");
    let draw = |seed| {
        let mut rng = seeded_rng(seed);
        (0..64).map(|_| *d.sample(&mut rng)).collect::<String>()
    };
    assert_eq!(draw(7), draw(7));
    assert_ne!(draw(7), draw(8));
    let mut rng = seeded_rng(1);
    let n = 300_000;
    let a = (0..n).filter(|_| *d.sample(&mut rng) == 'a').count() as f64 / n as f64;
    let se = ((1.0 / 3.0) * (2.0 / 3.0) / n as f64).sqrt();
    assert!((a - 1.0 / 3.0).abs() < 4.0 * se, "{a}");
}

#[test]
fn malformed_distributions_are_refused() {
    assert!(matches!(Distribution::new(vec![(1, Probability::new(1, 2))]), Err(ChanceError::NotNormalised(_))));
    assert!(matches!(Distribution::<u8>::new(vec![]), Err(ChanceError::Empty)));
    assert!(matches!(
        Distribution::new(vec![(1, Probability::from_integer(1)), (2, Probability::from_integer(0))]),
        Err(ChanceError::Empty)
    ));
}

/// A toy simultaneous variant: each side names one move; White's is played, then
/// Black's if it is still legal. It shows the shape of the orders API.
struct TakeTurns;

#[derive(Debug, thiserror::Error)]
#[error("illegal order {0}")]
struct BadOrder(String);

impl Simultaneous for TakeTurns {
    type Orders = String;
    type Report = (bool, bool);
    type Error = BadOrder;

    fn validate(&self, position: &Position, side: Color, orders: &String) -> Result<(), BadOrder> {
        let mut pos = position.clone();
        if pos.turn() != side {
            pos.pass_turn();
        }
        rules::uci::parse_uci(&pos, orders).map(|_| ()).map_err(|_| BadOrder(orders.clone()))
    }

    fn resolve(
        &self,
        position: &Position,
        white: &String,
        black: &String,
    ) -> Result<(Position, (bool, bool)), BadOrder> {
        self.validate(position, Color::White, white)?;
        self.validate(position, Color::Black, black)?;
        let mut pos = position.clone();
        let w = rules::uci::parse_uci(&pos, white).map_err(|_| BadOrder(white.clone()))?;
        pos.play_unchecked(w);
        let black_played = match rules::uci::parse_uci(&pos, black) {
            Ok(b) => {
                pos.play_unchecked(b);
                true
            }
            Err(_) => {
                pos.pass_turn();
                false
            }
        };
        Ok((pos, (true, black_played)))
    }
}

#[test]
fn simultaneous_orders_resolve_purely() {
    let start = Position::start(variants::by_name("chess").expect("chess"));
    let (a, ra) = TakeTurns.resolve(&start, &"e2e4".into(), &"e7e5".into()).expect("valid orders");
    let (b, rb) = TakeTurns.resolve(&start, &"e2e4".into(), &"e7e5".into()).expect("valid orders");
    assert_eq!(a.fen(), b.fen());
    assert_eq!(ra, rb);
    assert_eq!(a.fen(), "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
    assert!(TakeTurns.resolve(&start, &"e2e5".into(), &"e7e5".into()).is_err());
}
