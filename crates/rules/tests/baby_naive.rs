//! An independent, deliberately simple Baby Chess implementation (its own 5x5 array board,
//! piece moves, check test and FEN reader) against the rules crate: the same legal moves (as UCI)
//! and the same switch counts after every move on 100,000 positions from random play in all
//! four setups, and the same perft at depth 5 from the four starts.
//!
//! Nothing here calls the rules crate's move generator for the naive side: it reads the FEN
//! text our position writes and derives everything from its own rules.

use rules::uci::to_uci;
use rules::variants::baby::{BabyOptions, BabySetup};
use rules::{variants, Position, Square};

/// A square: the FEN letter (upper case White) and the piece's switch count.
type Cell = Option<(char, u8)>;

#[derive(Clone)]
struct Naive {
    /// `[rank][file]`, rank 0 = rank 1.
    b: [[Cell; 5]; 5],
    white: bool,
    /// White may double-step from rank 2 (question 4).
    double: bool,
}

struct NaiveMove {
    from: (usize, usize),
    to: (usize, usize),
    promote: bool,
}

impl NaiveMove {
    fn uci(&self) -> String {
        let sq = |(f, r): (usize, usize)| format!("{}{}", (b'a' + f as u8) as char, r + 1);
        format!("{}{}{}", sq(self.from), sq(self.to), if self.promote { "q" } else { "" })
    }
}

impl Naive {
    fn from_fen(fen: &str, double: bool) -> Naive {
        let mut fields = fen.split(' ');
        let board = fields.next().expect("board");
        let mut b = [[None; 5]; 5];
        for (i, row) in board.split('/').enumerate() {
            let r = 4 - i;
            let mut f = 0;
            let mut chars = row.chars().peekable();
            while let Some(c) = chars.next() {
                if let Some(d) = c.to_digit(10) {
                    f += d as usize;
                } else {
                    let mut sw = 0;
                    if chars.peek() == Some(&'{') {
                        chars.next();
                        sw = chars.next().and_then(|d| d.to_digit(10)).expect("count") as u8;
                        assert_eq!(chars.next(), Some('}'));
                    }
                    b[r][f] = Some((c, sw));
                    f += 1;
                }
            }
            assert_eq!(f, 5, "{fen}");
        }
        Naive { b, white: fields.next() == Some("w"), double }
    }

    fn at(&self, f: i32, r: i32) -> Option<Cell> {
        if (0..5).contains(&f) && (0..5).contains(&r) {
            Some(self.b[r as usize][f as usize])
        } else {
            None
        }
    }

    /// Moves of the side `white`, ignoring its own king's safety.
    fn pseudo(&self, white: bool) -> Vec<NaiveMove> {
        let mut out = Vec::new();
        let fwd: i32 = if white { 1 } else { -1 };
        let own = |c: Cell| c.is_some_and(|(p, _)| p.is_ascii_uppercase() == white);
        let enemy = |c: Cell| c.is_some_and(|(p, _)| p.is_ascii_uppercase() != white);
        for r in 0..5i32 {
            for f in 0..5i32 {
                let Some((p, sw)) = self.b[r as usize][f as usize] else { continue };
                if p.is_ascii_uppercase() != white {
                    continue;
                }
                let mut targets: Vec<(i32, i32)> = Vec::new();
                let kind = p.to_ascii_lowercase();
                let leaps: &[(i32, i32)] = match kind {
                    'n' => &[(1, 2), (-1, 2), (2, 1), (-2, 1)],
                    'k' => &[(0, 1), (1, 0), (-1, 0), (1, 1), (-1, 1)],
                    _ => &[],
                };
                for &(dx, dy) in leaps {
                    if let Some(c) = self.at(f + dx, r + dy * fwd) {
                        if !own(c) {
                            targets.push((f + dx, r + dy * fwd));
                        }
                    }
                }
                let rays: &[(i32, i32)] = match kind {
                    'b' => &[(1, 1), (-1, 1)],
                    'r' => &[(0, 1), (1, 0), (-1, 0)],
                    'q' => &[(1, 1), (-1, 1), (0, 1), (1, 0), (-1, 0)],
                    _ => &[],
                };
                for &(dx, dy) in rays {
                    let (mut x, mut y) = (f + dx, r + dy * fwd);
                    while let Some(c) = self.at(x, y) {
                        if own(c) {
                            break;
                        }
                        targets.push((x, y));
                        if c.is_some() {
                            break;
                        }
                        x += dx;
                        y += dy * fwd;
                    }
                }
                if kind == 'p' {
                    if self.at(f, r + fwd) == Some(None) {
                        targets.push((f, r + fwd));
                        if white && self.double && r == 1 && self.at(f, r + 2) == Some(None) {
                            targets.push((f, r + 2));
                        }
                    }
                    for dx in [-1, 1] {
                        if self.at(f + dx, r + fwd).is_some_and(enemy) {
                            targets.push((f + dx, r + fwd));
                        }
                    }
                }
                for (x, y) in targets {
                    // Five switches used: only moves within the file.
                    if sw >= 5 && x != f {
                        continue;
                    }
                    let last = if white { 4 } else { 0 };
                    out.push(NaiveMove {
                        from: (f as usize, r as usize),
                        to: (x as usize, y as usize),
                        promote: kind == 'p' && y == last,
                    });
                }
            }
        }
        out
    }

    fn play(&mut self, m: &NaiveMove) {
        let (p, sw) = self.b[m.from.1][m.from.0].take().expect("piece");
        let sw = if m.from.0 != m.to.0 { sw + 1 } else { sw };
        self.b[m.to.1][m.to.0] = if m.promote { Some((if self.white { 'Q' } else { 'q' }, 0)) } else { Some((p, sw)) };
        self.white = !self.white;
    }

    /// Whether the side `white`'s king can be captured by the other side's next move.
    fn king_attacked(&self, white: bool) -> bool {
        let king = if white { 'K' } else { 'k' };
        self.pseudo(!white).iter().any(|m| self.b[m.to.1][m.to.0].is_some_and(|(p, _)| p == king))
    }

    fn legal(&self) -> Vec<NaiveMove> {
        self.pseudo(self.white)
            .into_iter()
            .filter(|m| {
                let mut after = self.clone();
                after.play(m);
                !after.king_attacked(self.white)
            })
            .collect()
    }

    fn perft(&self, depth: u32) -> u64 {
        let moves = self.legal();
        if depth <= 1 {
            return if depth == 0 { 1 } else { moves.len() as u64 };
        }
        moves
            .iter()
            .map(|m| {
                let mut c = self.clone();
                c.play(m);
                c.perft(depth - 1)
            })
            .sum()
    }
}

/// xorshift64*: a seeded generator without dependencies.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

fn counts_of(pos: &Position) -> [[u8; 5]; 5] {
    let mut out = [[0; 5]; 5];
    for (r, row) in out.iter_mut().enumerate() {
        for (f, c) in row.iter_mut().enumerate() {
            *c = Square::new(f as u8, r as u8).map_or(0, |s| pos.switches_at(s));
        }
    }
    out
}

fn naive_counts(n: &Naive) -> [[u8; 5]; 5] {
    n.b.map(|row| row.map(|c| c.map_or(0, |(_, sw)| sw)))
}

#[test]
fn random_positions_agree_with_the_naive_implementation() {
    const POSITIONS: usize = 100_000;
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut checked = 0;
    let mut games = 0;
    let mut frozen_seen = 0;
    let mut promotions_seen = 0;
    while checked < POSITIONS {
        let options = BabyOptions::ALL[games % 4];
        games += 1;
        let v = variants::baby(options);
        let mut pos = Position::start(v);
        let mut plies = 0;
        loop {
            let naive = Naive::from_fen(&pos.fen(), options.white_double_step);
            let mut ours: Vec<String> = pos.legal_moves().iter().map(|&m| to_uci(&pos, m)).collect();
            let mut theirs: Vec<String> = naive.legal().iter().map(NaiveMove::uci).collect();
            ours.sort();
            theirs.sort();
            assert_eq!(ours, theirs, "legal moves differ in {} ({})", pos.fen(), v.name);
            checked += 1;
            if naive_counts(&naive).iter().flatten().any(|&c| c >= 5) {
                frozen_seen += 1;
            }
            for m in naive.legal() {
                let mut n2 = naive.clone();
                n2.play(&m);
                let mut p2 = pos.clone();
                p2.play_unchecked(rules::uci::parse_uci(&pos, &m.uci()).expect("our move"));
                assert_eq!(counts_of(&p2), naive_counts(&n2), "switch counts after {} in {}", m.uci(), pos.fen());
                promotions_seen += usize::from(m.promote);
            }
            if ours.is_empty() {
                break;
            }
            let pick = &ours[rng.below(ours.len())];
            let m = rules::uci::parse_uci(&pos, pick).expect("legal");
            pos.play_unchecked(m);
            plies += 1;
            assert!(plies <= 170, "game longer than 170 plies");
        }
    }
    assert!(frozen_seen > 100, "too few positions with a frozen piece: {frozen_seen}");
    assert!(promotions_seen > 100, "too few promotions: {promotions_seen}");
}

#[test]
fn naive_perft_equals_ours_at_depth_5() {
    for options in BabyOptions::ALL {
        let v = variants::baby(options);
        let start = Position::start(v);
        let naive = Naive::from_fen(&start.fen(), options.white_double_step);
        for depth in 1..=5 {
            assert_eq!(naive.perft(depth), rules::perft(&start, depth), "{} depth {depth}", v.name);
        }
    }
    // The setups are what RULINGS § Baby Chess gives.
    let gardner = variants::baby(BabyOptions { setup: BabySetup::Gardner, white_double_step: false });
    assert_eq!(Position::start(gardner).fen(), "rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1");
}

#[test]
fn naive_perft_reproduces_the_data_files() {
    const MAX_NODES: u64 = 300_000;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data");
    let mut checked = 0;
    for (file, double) in [("baby.perft", false), ("baby-double.perft", true)] {
        let text = std::fs::read_to_string(dir.join(file)).expect("data file");
        let mut fen = String::new();
        for line in text.lines() {
            if let Some(f) = line.strip_prefix("epd ") {
                fen = f.to_string();
            } else if let Some(rest) = line.strip_prefix("perft ") {
                let mut it = rest.split_whitespace().map(|x| x.parse::<u64>().expect("number"));
                let (depth, nodes) = (it.next().expect("depth"), it.next().expect("nodes"));
                if nodes <= MAX_NODES {
                    assert_eq!(Naive::from_fen(&fen, double).perft(depth as u32), nodes, "{file}: {fen} depth {depth}");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 40, "{checked} lines checked");
}
