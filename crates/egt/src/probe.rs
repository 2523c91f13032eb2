//! Probing a family: a position's value, its moves valued (best first, illegal ones marked), an
//! optimal line, and the value the rules give a position from its moves (the consistency check).

use serde::Serialize;

use crate::fen::{to_fen, ProbePosition};
use crate::generate::after_capture;
use crate::material::{BLACK, WHITE};
use crate::moves::NONE;
use crate::table::Family;
use crate::value::{Metric, TableRules, Value, DRAW};

/// One move of a probed position, valued for the side that plays it.
#[derive(Debug, Clone, Serialize)]
pub struct ProbeMove {
    /// Long algebraic with the piece letter: `Qd1-d8`, `Qd1xd8`, or `pass`.
    pub text: String,
    /// UCI-style squares (`d1d8`; `0000` for the pass).
    pub uci: String,
    /// The mover's value after this move.
    #[serde(skip)]
    pub value: Value,
    /// [`ProbeMove::value`] in words under the family's rules ([`describe_under`]).
    #[serde(rename = "value")]
    pub value_text: String,
    /// The sub-ending a capture moves into (`KR.K`): a conversion, where a DTC distance ends and
    /// the sub-ending's own count starts. `None` for a quiet move, a pass or a royal capture.
    pub conversion: Option<String>,
    /// The position after the move (`None` when it captures the royal: the game is over).
    #[serde(skip)]
    pub next: Option<ProbePosition>,
    /// Whether chess allows the move: `false` when it leaves the mover's royal attacked (a pass
    /// while in check included). The tables value such a move as lost at once (the opponent
    /// captures the royal), and [`probe`] and [`line`] leave it out. A move that captures the
    /// enemy royal or, under `-b`, bares Black's is legal: the game ends before the reply.
    #[serde(skip)]
    pub legal: bool,
}

/// The answer for one position.
#[derive(Debug, Clone, Serialize)]
pub struct ProbeResult {
    /// The table's material.
    pub material: String,
    /// The position.
    pub fen: String,
    /// `white` or `black`.
    pub side_to_move: &'static str,
    /// The family's metric, `DTC` or `DTM`.
    pub metric: String,
    /// The value for the side to move, as stored.
    #[serde(skip)]
    pub value: Value,
    /// [`ProbeResult::value`] in words under the family's rules ([`describe_under`]).
    #[serde(rename = "value")]
    pub value_text: String,
    /// How the game is over in this position, if it is ([`game_over`]): `checkmate`, `stalemate`
    /// or `bare king`.
    pub end: Option<&'static str>,
    /// Every legal move, best first (ties in generation order); none when the game is over.
    pub moves: Vec<ProbeMove>,
}

/// `white` or `black`, as the JSON answers name the side to move.
pub fn side_name(stm: usize) -> &'static str {
    if stm == WHITE {
        "white"
    } else {
        "black"
    }
}

/// A value in words: `win in 12`, `loss in 3`, `draw`.
pub fn describe(v: Value) -> String {
    match v {
        Value::Win(n) => format!("win in {n}"),
        Value::Loss(n) => format!("loss in {n}"),
        Value::Draw => "draw".to_string(),
        Value::Invalid => "invalid".to_string(),
    }
}

/// What a one-sided table's [`Value::Draw`] means: only White's wins were computed, so the
/// position may be a draw or a win for Black.
pub const NOT_WON_FOR_WHITE: &str = "not won for White";

/// A value in words under a family's rules: as [`describe`], except that a one-sided table's
/// [`Value::Draw`] is [`NOT_WON_FOR_WHITE`] (Black's wins were not computed).
///
/// ```
/// use egt::probe::describe_under;
/// use egt::{TableRules, Value};
///
/// let one_sided = TableRules { one_sided: true, ..TableRules::default() };
/// assert_eq!(describe_under(&one_sided, Value::Draw), "not won for White");
/// assert_eq!(describe_under(&TableRules::default(), Value::Draw), "draw");
/// assert_eq!(describe_under(&one_sided, Value::Win(3)), "win in 3");
/// ```
pub fn describe_under(rules: &TableRules, v: Value) -> String {
    match v {
        Value::Draw if rules.one_sided => NOT_WON_FOR_WHITE.to_string(),
        v => describe(v),
    }
}

/// The stored value of a position.
pub fn value(family: &Family, pos: &ProbePosition) -> Value {
    Value::from_byte(family.tables[pos.table].value_at(pos.stm, &pos.squares))
}

/// Every move of `pos` with its value, best first: the pseudo-legal moves the tables are built
/// from, those leaving the mover's royal attacked marked not [`ProbeMove::legal`].
pub fn moves(family: &Family, pos: &ProbePosition) -> Vec<ProbeMove> {
    let t = &family.tables[pos.table];
    let sq = pos.squares;
    let s = pos.stm;
    let them = 1 - s;
    let board = family.board;
    let o = t.moves.occupancy(&sq);
    let royal = t.material.royal(them);
    let mut out = Vec::new();
    t.moves.for_each_move(&sq, &o, s, |m, to, cap| {
        let letter = t.material.letter(m).to_ascii_uppercase();
        let sep = if cap == NONE { '-' } else { 'x' };
        let text = format!("{letter}{}{sep}{}", board.name(sq[m]), board.name(to));
        let uci = format!("{}{}", board.name(sq[m]), board.name(to));
        let safe = t.moves.leaves_royal_safe(&sq, o.occ, s, m, to, cap);
        let mut conversion = None;
        let (value, next, legal) = if cap == NONE {
            let mut c = sq;
            c[m] = to;
            let v = Value::from_byte(t.value_at(them, &c)).before();
            (v, Some(ProbePosition { table: pos.table, squares: c, stm: them }), safe)
        } else if usize::from(cap) == royal {
            (Value::Win(0), None, true)
        } else {
            let j = usize::from(cap);
            let ti = t.captures[j].unwrap_or(pos.table);
            let c = after_capture(&sq, t.indexer.men(), m, to, j);
            let v = family.tables[ti].value_at(them, &c);
            let value = match (family.rules.metric, Value::from_byte(v)) {
                (Metric::Dtc, Value::Win(_)) => Value::Loss(0),
                (Metric::Dtc, Value::Loss(_)) => Value::Win(1),
                (_, x) => x.before(),
            };
            let bares = family.rules.bare_king_lost(&family.tables[ti].material);
            conversion = Some(family.tables[ti].material.to_string());
            (value, Some(ProbePosition { table: ti, squares: c, stm: them }), safe || bares)
        };
        let value_text = describe_under(&family.rules, value);
        out.push(ProbeMove { text, uci, value, value_text, conversion, next, legal });
        true
    });
    if family.rules.null_move && s == BLACK && t.moves.has_legal_move(&sq, s) {
        let v = Value::from_byte(t.value_at(WHITE, &sq)).before();
        out.push(ProbeMove {
            text: "pass".into(),
            uci: "0000".into(),
            value: v,
            value_text: describe_under(&family.rules, v),
            conversion: None,
            next: Some(ProbePosition { table: pos.table, squares: sq, stm: WHITE }),
            legal: !t.moves.in_check(&sq, o.occ, BLACK),
        });
    }
    out.sort_by_key(|m| std::cmp::Reverse(m.value.rank()));
    out
}

/// Probes a position: its value, how the game is over if it is, and its legal moves (those leaving
/// the mover's royal attacked are left out; none in a finished position).
pub fn probe(family: &Family, pos: &ProbePosition) -> ProbeResult {
    let t = &family.tables[pos.table];
    let end = game_over(family, pos);
    let v = value(family, pos);
    ProbeResult {
        material: t.material.to_string(),
        fen: to_fen(&t.material, family.board, &pos.squares, pos.stm),
        side_to_move: side_name(pos.stm),
        metric: family.rules.metric.to_string(),
        value: v,
        value_text: describe_under(&family.rules, v),
        end,
        moves: match end {
            Some(_) => Vec::new(),
            None => moves(family, pos).into_iter().filter(|m| m.legal).collect(),
        },
    }
}

/// The value the rules give `pos` from its moves' values: what the stored value must equal.
pub fn expected_value(family: &Family, pos: &ProbePosition) -> Value {
    let t = &family.tables[pos.table];
    let sq = pos.squares;
    let s = pos.stm;
    let occ = t.moves.occupancy(&sq).occ;
    let rules = family.rules;
    let clamp = |v: Value| match v {
        Value::Win(_) if rules.one_sided && s == BLACK => Value::Draw,
        Value::Loss(_) if rules.one_sided && s == WHITE => Value::Draw,
        v => v,
    };
    if rules.bare_king_lost(&t.material) {
        return if s == WHITE { Value::Win(0) } else { Value::Loss(0) };
    }
    if t.moves.can_capture_royal(&sq, occ, s) {
        return clamp(Value::Win(0));
    }
    let best = moves(family, pos).into_iter().map(|m| m.value).max_by_key(|v| v.rank());
    // A winning move is never illegal (with -b it may bare the black royal while exposing White's:
    // the game ends first). Otherwise without a legal move the side is mated or stalemated.
    if !matches!(best, Some(Value::Win(_))) && !t.moves.has_legal_move(&sq, s) {
        let lost = rules.stalemate_wins || t.moves.in_check(&sq, occ, s);
        return clamp(if lost { Value::Loss(0) } else { Value::Draw });
    }
    clamp(best.unwrap_or(Value::Draw))
}

/// How the game is over at `pos`, if it is: `bare king` under `-b` when Black has only its royal
/// and White more (whoever is to move: docs/RULES.md), else `checkmate` or `stalemate` when the side
/// to move has no legal move; `None` while the game goes on.
pub fn game_over(family: &Family, pos: &ProbePosition) -> Option<&'static str> {
    let t = &family.tables[pos.table];
    if family.rules.bare_king_lost(&t.material) {
        return Some(BARE_KING);
    }
    if t.moves.has_legal_move(&pos.squares, pos.stm) {
        return None;
    }
    let occ = t.moves.occupancy(&pos.squares).occ;
    Some(if t.moves.in_check(&pos.squares, occ, pos.stm) { "checkmate" } else { "stalemate" })
}

/// [`game_over`]'s word for `-b`'s end: Black has only its royal left.
pub const BARE_KING: &str = "bare king";

/// An optimal line from `pos`: the best legal move each ply (first of equals) until the royal is
/// captured, the game is over ([`game_over`]: checkmate, stalemate, or `-b`'s bare king), the
/// position is drawn, or `max_plies` plies are played.
pub fn line(family: &Family, pos: &ProbePosition, max_plies: usize) -> Vec<(ProbeMove, String)> {
    let mut out = Vec::new();
    let mut pos = pos.clone();
    for _ in 0..max_plies {
        if family.tables[pos.table].value_at(pos.stm, &pos.squares) >= DRAW {
            break;
        }
        if game_over(family, &pos).is_some() {
            break;
        }
        let Some(best) = moves(family, &pos).into_iter().find(|m| m.legal) else { break };
        let next = best.next.clone();
        let fen = match &next {
            Some(n) => to_fen(&family.tables[n.table].material, family.board, &n.squares, n.stm),
            None => String::new(),
        };
        out.push((best, fen));
        match next {
            Some(n) => pos = n,
            None => break,
        }
    }
    out
}

/// One table's result of [`check`].
#[derive(Debug, Clone)]
pub struct CheckResult {
    /// The table's material.
    pub material: String,
    /// Positions checked.
    pub checked: u64,
    /// Up to ten disagreements: the FEN, the stored value and the value the moves give.
    pub mismatches: Vec<(String, Value, Value)>,
    /// All disagreements.
    pub mismatch_count: u64,
}

/// Checks `samples` random placements (men on distinct squares, either side to move) of every
/// table of a family: the stored value must equal [`expected_value`]. The placements come from a
/// SplitMix64 stream of `seed` and the table's number, so a run is reproducible.
pub fn check(family: &Family, samples: u64, seed: u64) -> Vec<CheckResult> {
    let mut out = Vec::new();
    for (ti, t) in family.tables.iter().enumerate() {
        let n = t.material.men().len();
        let squares = family.board.squares() as u64;
        let mut state = seed ^ (ti as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut next = move || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let mut r =
            CheckResult { material: t.material.to_string(), checked: 0, mismatches: Vec::new(), mismatch_count: 0 };
        while r.checked < samples {
            let mut sq = [0u8; crate::material::MAX_MEN];
            for s in sq.iter_mut().take(n) {
                *s = (next() % squares) as u8;
            }
            if (0..n).any(|x| (0..x).any(|y| sq[x] == sq[y])) {
                continue;
            }
            let pos = ProbePosition { table: ti, squares: sq, stm: (next() & 1) as usize };
            let (got, want) = (value(family, &pos), expected_value(family, &pos));
            if got != want {
                r.mismatch_count += 1;
                if r.mismatches.len() < 10 {
                    r.mismatches.push((to_fen(&t.material, family.board, &sq, pos.stm), got, want));
                }
            }
            r.checked += 1;
        }
        out.push(r);
    }
    out
}
