//! The statistics report of a table, as FairyGen's `rep2.txt` gives it and beyond: won fractions
//! counted over all placements (FairyGen's way) and over legal positions, distance histograms, king
//! captures, tactical wins and the longest wins with an example each.
//!
//! Every canonical index stands for its whole orbit under the symmetry group, so counts are weighted
//! by orbit size and are counts of placements of the men on distinct squares (identical men
//! unordered). A placement is legal when the side to move cannot capture the enemy royal (the side
//! not to move is not in check).

use rayon::prelude::*;
use serde::Serialize;

use crate::fen::to_fen;
use crate::material::{BLACK, WHITE};
use crate::table::{Family, Table};
use crate::value::{is_loss, is_win};

/// Distances tracked in histograms (moves 0..=126).
const HIST: usize = 127;

/// Won fractions (0..1) by side to move.
#[derive(Debug, Clone, Serialize)]
pub struct Fractions {
    /// White to move and White wins.
    pub won_wtm: f64,
    /// Black to move and White wins.
    pub won_btm: f64,
    /// White to move and Black wins (two-sided tables).
    pub lost_wtm: f64,
    /// Black to move and Black wins (two-sided tables).
    pub lost_btm: f64,
}

/// Fractions over legal positions, named as the published Syzygy statistics are.
#[derive(Debug, Clone, Serialize)]
pub struct LegalFractions {
    /// Legal white-to-move positions White wins.
    pub won_wtm: f64,
    /// Legal black-to-move positions Black loses.
    pub lost_btm: f64,
    /// Legal white-to-move positions White loses (two-sided).
    pub lost_wtm: f64,
    /// Legal black-to-move positions Black wins (two-sided).
    pub won_btm: f64,
    /// Legal white-to-move placements.
    pub positions_wtm: u64,
    /// Legal black-to-move placements.
    pub positions_btm: u64,
}

/// The longest win for one side to move.
#[derive(Debug, Clone, Serialize)]
pub struct Longest {
    /// Moves of the winning side.
    pub moves: u32,
    /// An example position: the first legal one in index order (`None` when there is no such win,
    /// or when every such position is illegal in play).
    pub fen: Option<String>,
    /// Whether such wins exist only in positions illegal in play (the side not to move in check:
    /// the wins in 0 by capturing the royal), so no example is given.
    pub only_illegal: bool,
}

/// The report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The ending.
    pub material: String,
    /// The board.
    pub board: String,
    /// DTC or DTM.
    pub metric: String,
    /// FairyGen-style option flags.
    pub options: String,
    /// Whether Black's wins were computed.
    pub two_sided: bool,
    /// The symmetry reduction.
    pub symmetry: String,
    /// Table indices per side to move (holes included).
    pub indices: u64,
    /// Placements of the men on distinct squares (per side to move).
    pub placements: u64,
    /// Fractions over all placements, legal or not (FairyGen's statistics).
    pub all_placements: Fractions,
    /// Fractions over legal positions only.
    pub legal: LegalFractions,
    /// White-to-move wins by capturing the black royal at once (placements), and their share of the
    /// white-to-move wins.
    pub king_captures_wtm: u64,
    /// King captures as a fraction of white-to-move wins.
    pub king_capture_share: f64,
    /// White wins in 0, 1 or 2 moves ("tactical"), white to move and black to move.
    pub tactical_wtm: u64,
    /// Black to move, lost within 2 moves.
    pub tactical_btm: u64,
    /// White-to-move White wins by distance in moves (placements).
    pub histogram_wtm: Vec<u64>,
    /// Black-to-move Black losses by distance in moves (placements).
    pub histogram_btm: Vec<u64>,
    /// The longest win of White, in moves, over both sides to move.
    pub longest_win_moves: u32,
    /// The longest white win with White to move.
    pub longest_wtm: Longest,
    /// The longest black loss with Black to move.
    pub longest_btm: Longest,
    /// The longest black win with Black to move (two-sided).
    pub longest_black_win_btm: Longest,
    /// The longest white loss with White to move (two-sided).
    pub longest_black_win_wtm: Longest,
}

#[derive(Clone)]
struct Acc {
    placements: u64,
    won: [u64; 2],
    lost: [u64; 2],
    legal: [u64; 2],
    legal_won: [u64; 2],
    legal_lost: [u64; 2],
    king_captures: u64,
    hist: [Vec<u64>; 2],
    /// (moves, index) of the longest white win per side to move, and black win per side to move.
    longest_white: [(u32, u64); 2],
    longest_black: [(u32, u64); 2],
    /// The same over legal positions only, for the examples.
    legal_white: [(u32, u64); 2],
    legal_black: [(u32, u64); 2],
}

impl Acc {
    fn new() -> Acc {
        Acc {
            placements: 0,
            won: [0; 2],
            lost: [0; 2],
            legal: [0; 2],
            legal_won: [0; 2],
            legal_lost: [0; 2],
            king_captures: 0,
            hist: [vec![0; HIST], vec![0; HIST]],
            longest_white: [(0, u64::MAX); 2],
            longest_black: [(0, u64::MAX); 2],
            legal_white: [(0, u64::MAX); 2],
            legal_black: [(0, u64::MAX); 2],
        }
    }

    fn merge(mut self, o: Acc) -> Acc {
        self.placements += o.placements;
        for s in 0..2 {
            self.won[s] += o.won[s];
            self.lost[s] += o.lost[s];
            self.legal[s] += o.legal[s];
            self.legal_won[s] += o.legal_won[s];
            self.legal_lost[s] += o.legal_lost[s];
            for d in 0..HIST {
                self.hist[s][d] += o.hist[s][d];
            }
            self.longest_white[s] = better(self.longest_white[s], o.longest_white[s]);
            self.longest_black[s] = better(self.longest_black[s], o.longest_black[s]);
            self.legal_white[s] = better(self.legal_white[s], o.legal_white[s]);
            self.legal_black[s] = better(self.legal_black[s], o.legal_black[s]);
        }
        self.king_captures += o.king_captures;
        self
    }
}

/// The longer win; on equal length the smaller index.
fn better(a: (u32, u64), b: (u32, u64)) -> (u32, u64) {
    if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) {
        b
    } else {
        a
    }
}

/// Computes the report of a family's main table.
pub fn report(family: &Family) -> Report {
    report_table(family, family.tables.len() - 1)
}

/// Computes the report of table `ti` of a family.
pub fn report_table(family: &Family, ti: usize) -> Report {
    let t: &Table = &family.tables[ti];
    let m = &t.material;
    let royal = [m.royal(WHITE), m.royal(BLACK)];
    let size = t.size();
    const CHUNK: u64 = 1 << 14;
    let acc = (0..size.div_ceil(CHUNK))
        .into_par_iter()
        .fold(Acc::new, |mut a, c| {
            for idx in c * CHUNK..((c + 1) * CHUNK).min(size) {
                if t.value(WHITE, idx) == crate::value::INVALID {
                    continue;
                }
                let sq = t.indexer.decode(idx);
                let w = t.indexer.weight(&sq);
                let occ = t.moves.occupancy(&sq).occ;
                a.placements += w;
                for s in [WHITE, BLACK] {
                    let v = t.value(s, idx);
                    let capture_now = t.moves.side_attacks(&sq, occ, s, sq[royal[1 - s]]);
                    // White wins: white to move and won, or black to move and lost.
                    let (white_wins, black_wins) =
                        if s == WHITE { (is_win(v), is_loss(v)) } else { (is_loss(v), is_win(v)) };
                    let moves = if is_win(v) { u32::from(v) / 2 } else { u32::from(v).saturating_sub(1) / 2 };
                    if white_wins {
                        a.won[s] += w;
                        a.hist[s][moves as usize] += w;
                        a.longest_white[s] = better(a.longest_white[s], (moves, idx));
                        if s == WHITE && capture_now {
                            a.king_captures += w;
                        }
                    }
                    if black_wins {
                        a.lost[s] += w;
                        a.longest_black[s] = better(a.longest_black[s], (moves, idx));
                    }
                    if !capture_now {
                        a.legal[s] += w;
                        if white_wins {
                            a.legal_won[s] += w;
                            a.legal_white[s] = better(a.legal_white[s], (moves, idx));
                        }
                        if black_wins {
                            a.legal_lost[s] += w;
                            a.legal_black[s] = better(a.legal_black[s], (moves, idx));
                        }
                    }
                }
            }
            a
        })
        .reduce(Acc::new, Acc::merge);
    let frac = |x: u64, of: u64| if of == 0 { 0.0 } else { x as f64 / of as f64 };
    // The example is the first legal position among the longest; when none of them is legal (the
    // wins in 0 of a side that can capture the royal) the length stands without an example.
    let longest = |(moves, idx): (u32, u64), (legal_moves, legal_idx): (u32, u64), s: usize| {
        let legal = legal_idx != u64::MAX && legal_moves == moves;
        Longest {
            moves,
            fen: legal.then(|| to_fen(m, family.board, &t.indexer.decode(legal_idx), s)),
            only_illegal: idx != u64::MAX && !legal,
        }
    };
    let trim = |mut h: Vec<u64>| {
        while h.len() > 1 && h.last() == Some(&0) {
            h.pop();
        }
        h
    };
    let tactical = |s: usize| acc.hist[s][..3].iter().sum();
    Report {
        material: m.to_string(),
        board: family.board.to_string(),
        metric: family.rules.metric.to_string(),
        options: family.rules.flags(),
        two_sided: !family.rules.one_sided,
        symmetry: family.group.name(),
        indices: size,
        placements: acc.placements,
        all_placements: Fractions {
            won_wtm: frac(acc.won[WHITE], acc.placements),
            won_btm: frac(acc.won[BLACK], acc.placements),
            lost_wtm: frac(acc.lost[WHITE], acc.placements),
            lost_btm: frac(acc.lost[BLACK], acc.placements),
        },
        legal: LegalFractions {
            won_wtm: frac(acc.legal_won[WHITE], acc.legal[WHITE]),
            lost_btm: frac(acc.legal_won[BLACK], acc.legal[BLACK]),
            lost_wtm: frac(acc.legal_lost[WHITE], acc.legal[WHITE]),
            won_btm: frac(acc.legal_lost[BLACK], acc.legal[BLACK]),
            positions_wtm: acc.legal[WHITE],
            positions_btm: acc.legal[BLACK],
        },
        king_captures_wtm: acc.king_captures,
        king_capture_share: frac(acc.king_captures, acc.won[WHITE]),
        tactical_wtm: tactical(WHITE),
        tactical_btm: tactical(BLACK),
        histogram_wtm: trim(acc.hist[WHITE].clone()),
        histogram_btm: trim(acc.hist[BLACK].clone()),
        longest_win_moves: acc.longest_white[WHITE].0.max(acc.longest_white[BLACK].0),
        longest_wtm: longest(acc.longest_white[WHITE], acc.legal_white[WHITE], WHITE),
        longest_btm: longest(acc.longest_white[BLACK], acc.legal_white[BLACK], BLACK),
        longest_black_win_btm: longest(acc.longest_black[BLACK], acc.legal_black[BLACK], BLACK),
        longest_black_win_wtm: longest(acc.longest_black[WHITE], acc.legal_black[WHITE], WHITE),
    }
}

impl Report {
    /// The report as JSON (docs/FORMATS.md, "Endgame table reports"). A one-sided table did not
    /// compute Black's wins: their fractions and longest wins are `null`, not 0.
    pub fn json(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self).unwrap_or(serde_json::Value::Null);
        if !self.two_sided {
            for (group, field) in [
                ("all_placements", "lost_wtm"),
                ("all_placements", "lost_btm"),
                ("legal", "lost_wtm"),
                ("legal", "won_btm"),
            ] {
                v[group][field] = serde_json::Value::Null;
            }
            v["longest_black_win_btm"] = serde_json::Value::Null;
            v["longest_black_win_wtm"] = serde_json::Value::Null;
        }
        v
    }

    /// The report as text, in the spirit of FairyGen's `rep2.txt`.
    pub fn text(&self) -> String {
        use std::fmt::Write;
        let pct = |x: f64| format!("{:.2} %", 100.0 * x);
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{} on {}, {}{}{}",
            self.material,
            self.board,
            self.metric,
            if self.options.is_empty() { String::new() } else { format!(", options {}", self.options) },
            if self.two_sided { ", two-sided" } else { ", one-sided" }
        );
        let _ = writeln!(
            s,
            "symmetry {}, {} indices per side to move, {} placements",
            self.symmetry, self.indices, self.placements
        );
        let _ = writeln!(s);
        let _ = writeln!(s, "all placements (FairyGen's count, legal or not):");
        let _ = writeln!(s, "  white to move: {} won for White", pct(self.all_placements.won_wtm));
        let _ = writeln!(s, "  black to move: {} won for White", pct(self.all_placements.won_btm));
        if self.two_sided {
            let _ = writeln!(s, "  white to move: {} won for Black", pct(self.all_placements.lost_wtm));
            let _ = writeln!(s, "  black to move: {} won for Black", pct(self.all_placements.lost_btm));
        }
        let _ = writeln!(
            s,
            "  king captures among white-to-move wins: {} ({})",
            self.king_captures_wtm,
            pct(self.king_capture_share)
        );
        let _ = writeln!(
            s,
            "  white wins in 0-2 moves (tactical): {} white to move, {} black to move",
            self.tactical_wtm, self.tactical_btm
        );
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "legal positions ({} white to move, {} black to move):",
            self.legal.positions_wtm, self.legal.positions_btm
        );
        let _ = writeln!(s, "  white to move: {} won for White", pct(self.legal.won_wtm));
        let _ = writeln!(s, "  black to move: {} lost for Black", pct(self.legal.lost_btm));
        if self.two_sided {
            let _ = writeln!(s, "  white to move: {} lost for White", pct(self.legal.lost_wtm));
            let _ = writeln!(s, "  black to move: {} won for Black", pct(self.legal.won_btm));
        }
        let _ = writeln!(s);
        let _ = writeln!(s, "longest white win: {} moves", self.longest_win_moves);
        let mut longest = [("white to move", &self.longest_wtm), ("black to move", &self.longest_btm)].to_vec();
        if self.two_sided {
            longest.push(("black wins, black to move", &self.longest_black_win_btm));
            longest.push(("black wins, white to move", &self.longest_black_win_wtm));
        }
        for (label, l) in longest {
            if let Some(fen) = &l.fen {
                let _ = writeln!(s, "  {label}: {} moves, e.g. {fen}", l.moves);
            } else if l.only_illegal {
                let _ = writeln!(
                    s,
                    "  {label}: {} moves, only in positions illegal in play (the side not to move in check)",
                    l.moves
                );
            }
        }
        let _ = writeln!(s);
        let _ = writeln!(s, "{:>6} {:>14} {:>14}", "moves", "wtm won", "btm lost");
        for d in 0..self.histogram_wtm.len().max(self.histogram_btm.len()) {
            let w = self.histogram_wtm.get(d).copied().unwrap_or(0);
            let b = self.histogram_btm.get(d).copied().unwrap_or(0);
            let _ = writeln!(s, "{d:>6} {w:>14} {b:>14}");
        }
        s
    }
}
