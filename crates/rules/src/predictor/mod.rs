//! Predictor chess's orders and plies (RULINGS § Predictor chess 2-5): a primary and an optional
//! conditional (a predicted enemy primary and a response), their validation, and a ply's resolution.
//!
//! Both sides move from the same position, so each side's moves are those it would have with
//! the turn (see [`side_view`]). An illegal order is rejected with a typed reason, never reduced.
//! [`resolve`] plays a ply from both sides' orders with the paths of `path.rs`.

pub mod commit;
pub mod game;
pub mod record;
pub mod referee;

use crate::color::Color;
use crate::moves::{Move, MoveKind};
use crate::path::legs;
use crate::position::Position;
use crate::square::Square;
use crate::uci::{to_uci, UciMove};

/// A conditional order: if the enemy's primary is `prediction`, also play `response`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Conditional {
    /// The predicted enemy primary (a move of the enemy's view of the position).
    pub prediction: Move,
    /// The response (a move of the ordering side's view, or an en-passant response).
    pub response: Move,
}

/// One side's orders for a ply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Orders {
    /// The primary move.
    pub primary: Move,
    /// The conditional, if any.
    pub conditional: Option<Conditional>,
}

/// Why orders were rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OrderError {
    /// The text is not `PRIMARY` or `PRIMARY if PREDICTION then RESPONSE`.
    #[error("invalid orders '{text}': {reason}")]
    Syntax {
        /// The text.
        text: String,
        /// What is wrong.
        reason: String,
    },
    /// The primary is not a legal move of the side.
    #[error("the primary {uci} is not a legal move for {side}: {why}")]
    IllegalPrimary {
        /// The move as written.
        uci: String,
        /// The side.
        side: Color,
        /// Why, in words ([`crate::explain::why_illegal`]).
        why: String,
    },
    /// The prediction is not a legal primary of the enemy, so it could never fire.
    #[error("the prediction {uci} is not a legal move for {side}, so it could never come true")]
    IllegalPrediction {
        /// The move as written.
        uci: String,
        /// The enemy.
        side: Color,
    },
    /// The response is neither a legal move nor an en-passant answer to the predicted push.
    #[error("the response {uci} is not a legal move for {side}: {why}")]
    IllegalResponse {
        /// The move as written.
        uci: String,
        /// The side.
        side: Color,
        /// Why, in words ([`crate::explain::why_illegal`]).
        why: String,
    },
    /// A square of the response's path is occupied before the ply (a conditional never captures).
    #[error("the response {uci} crosses {square}, which is occupied (a conditional's whole path must be empty)")]
    ResponsePathOccupied {
        /// The response.
        uci: String,
        /// The first occupied square of its path.
        square: Square,
    },
    /// The response moves a piece the primary moves (castling moves the king and the rook).
    #[error("the response {uci} moves the same piece as the primary")]
    ResponseSamePiece {
        /// The response.
        uci: String,
    },
    /// The response ends on a square the primary moves a piece to (castling: the king's or the rook's).
    #[error("the response {uci} ends on the primary's target {square}")]
    ResponseOntoPrimaryTarget {
        /// The response.
        uci: String,
        /// The primary's target.
        square: Square,
    },
    /// En passant is only a conditional on the enemy's double push (RULINGS 5).
    #[error("en passant {uci} is only possible as a conditional on the enemy's double push")]
    EnPassantPrimary {
        /// The move.
        uci: String,
    },
}

impl OrderError {
    /// The variant's name (`IllegalPrimary`, `ResponsePathOccupied`, …), as JSON reports give it.
    pub fn kind(&self) -> &'static str {
        match self {
            OrderError::Syntax { .. } => "Syntax",
            OrderError::IllegalPrimary { .. } => "IllegalPrimary",
            OrderError::IllegalPrediction { .. } => "IllegalPrediction",
            OrderError::IllegalResponse { .. } => "IllegalResponse",
            OrderError::ResponsePathOccupied { .. } => "ResponsePathOccupied",
            OrderError::ResponseSamePiece { .. } => "ResponseSamePiece",
            OrderError::ResponseOntoPrimaryTarget { .. } => "ResponseOntoPrimaryTarget",
            OrderError::EnPassantPrimary { .. } => "EnPassantPrimary",
        }
    }
}

/// The position as `side` sees it for its orders: the same board with `side` to move (an
/// en-passant right lapses, since en passant is only a conditional).
pub fn side_view(pos: &Position, side: Color) -> Position {
    let mut view = pos.clone();
    if view.turn() != side {
        view.pass_turn();
    }
    view
}

/// The captures of the enemy king open to the side to move in `view` (RULINGS 6: a primary may
/// capture the enemy king if it stands attacked before the ply). They are primaries even when
/// the capturing side's own king is in check or pinned: the game ends with the ply, and if the
/// enemy takes the capturer's king at the same time, both kings go (a draw).
pub fn king_captures(view: &Position) -> Vec<Move> {
    let Some(k) = view.variant().king() else { return Vec::new() };
    let enemy_king = view.board().pieces(!view.turn(), k);
    if !enemy_king.any() {
        return Vec::new();
    }
    let mut pseudo = crate::moves::MoveList::new();
    view.gen_pseudo(&mut pseudo);
    pseudo.iter().copied().filter(|m| m.drop_role().is_none() && !m.is_pass() && enemy_king.contains(m.to())).collect()
}

/// Every primary open to the side to move in `view` (its [`side_view`]): its legal moves but en
/// passant (only a conditional), and the captures of an attacked enemy king (RULINGS 5, 6).
pub fn primaries(view: &Position) -> Vec<Move> {
    let mut moves: Vec<Move> = view.legal_moves().iter().copied().filter(|m| m.kind() != MoveKind::EnPassant).collect();
    for m in king_captures(view) {
        if !moves.contains(&m) {
            moves.push(m);
        }
    }
    moves
}

/// The king capture a UCI text names in `view`, if it is one.
fn king_capture(view: &Position, text: UciMove) -> Option<Move> {
    let UciMove::Normal { from, to, promotion } = text else { return None };
    king_captures(view).into_iter().find(|m| {
        m.from() == from && m.to() == to && promotion == m.promotion_role().map(|r| view.variant().piece(r).letter)
    })
}

/// Whether `m` is a valid primary for the side to move in `view`: a legal move, or a capture of
/// the attacked enemy king ([`king_captures`]).
pub fn is_primary(view: &Position, m: Move) -> bool {
    view.legal_moves().contains(&m) || king_captures(view).contains(&m)
}

/// The en-passant response `from`-`to` of the side to move in `view` to the predicted enemy
/// double push `prediction`: a pawn beside the pushed pawn's target stepping diagonally onto
/// the square it passed.
fn en_passant_response(view: &Position, prediction: Move, from: Square, to: Square) -> Option<Move> {
    if prediction.kind() != MoveKind::DoubleStep {
        return None;
    }
    let passed = Square::from_index(((prediction.from().index() + prediction.to().index()) / 2) as u8);
    let pawn = view.variant().pawn()?;
    let ours = view.board().piece_at(from).is_some_and(|p| p.color == view.turn() && p.role == pawn);
    let beside = from.rank() == prediction.to().rank() && from.file().abs_diff(prediction.to().file()) == 1;
    if !(ours && beside && to == passed) {
        return None;
    }
    // Legal as chess judges it right after the push: a pinned pawn may not take en passant,
    // as no other response may expose its own king.
    let m = Move::en_passant(from, to);
    let mut pushed = view.clone();
    pushed.pass_turn();
    pushed.play_unchecked(prediction);
    pushed.is_legal(m).then_some(m)
}

/// One move of an orders text: as written, and as read.
pub type OrderWord<'a> = (&'a str, UciMove);

/// Splits an orders text into its moves, checking only the syntax: the primary and, for a
/// conditional, the prediction and the response (`PRIMARY` or `PRIMARY if PREDICTION then
/// RESPONSE`, each move in UCI).
#[allow(clippy::type_complexity)]
pub fn order_words(text: &str) -> Result<(OrderWord<'_>, Option<(OrderWord<'_>, OrderWord<'_>)>), OrderError> {
    let syntax = |reason: &str| OrderError::Syntax { text: text.to_string(), reason: reason.to_string() };
    fn word<'a>(text: &str, w: &'a str) -> Result<OrderWord<'a>, OrderError> {
        UciMove::parse(w).map(|m| (w, m)).map_err(|e| OrderError::Syntax {
            text: text.to_string(),
            reason: match coordinates_of(w) {
                // The seed's own notation (`e2-e4`, `Ng1-f3`, `Bc4xf7`): say what it is in UCI.
                Some(uci) => format!("orders are written in UCI coordinates: '{uci}' for '{w}'"),
                None if matches!(w, "O-O" | "0-0" | "O-O-O" | "0-0-0") => {
                    "castling is written as the king's move in UCI: e1g1 or e1c1 (White), e8g8 or e8c8 (Black)".into()
                }
                None => e.reason,
            },
        })
    }
    let word = |w| word(text, w);
    match text.split_whitespace().collect::<Vec<_>>().as_slice() {
        [p] => Ok((word(p)?, None)),
        [p, "if", q, "then", r] => Ok((word(p)?, Some((word(q)?, word(r)?)))),
        [] => Err(syntax("no move")),
        _ => Err(syntax("expected 'PRIMARY' or 'PRIMARY if PREDICTION then RESPONSE'")),
    }
}

/// `w` in UCI if it is a move in long algebraic notation (an optional piece letter, the start,
/// `-` or `x`, the target, an optional promotion `=Q` or `Q`), else `None`.
fn coordinates_of(w: &str) -> Option<String> {
    let w = w.strip_prefix(|c: char| "KQRBN".contains(c)).unwrap_or(w);
    let (from, rest) = (w.get(..2)?, w.get(2..)?);
    let rest = rest.strip_prefix(['-', 'x'])?;
    let (to, promotion) = (rest.get(..2)?, rest.get(2..)?.trim_start_matches('='));
    let square = |t: &str| Square::parse(t).map(|_| t.to_ascii_lowercase());
    let promotion = match promotion {
        "" => String::new(),
        p if p.len() == 1 && "QRBNqrbn".contains(p) => p.to_ascii_lowercase(),
        _ => return None,
    };
    Some(format!("{}{}{promotion}", square(from)?, square(to)?))
}

/// Why the move written `text` is not legal in `view` (one side's view of the position).
fn why(view: &Position, text: &str) -> String {
    match crate::uci::UciMove::parse(text) {
        Ok(u) => crate::explain::why_illegal(view, &u),
        Err(e) => e.to_string(),
    }
}

impl Orders {
    /// Reads `PRIMARY` or `PRIMARY if PREDICTION then RESPONSE` (UCI squares, castling as the
    /// king's move `e1c1`, promotion suffix) for `side` in `pos`, and validates it.
    pub fn parse(pos: &Position, side: Color, text: &str) -> Result<Orders, OrderError> {
        let ((primary, primary_text), conditional) = order_words(text)?;
        let view = side_view(pos, side);
        let enemy = side_view(pos, !side);
        let primary_move = primary_text
            .to_move(&view)
            .or_else(|| king_capture(&view, primary_text))
            .ok_or_else(|| OrderError::IllegalPrimary { uci: primary.to_string(), side, why: why(&view, primary) })?;
        let conditional = match conditional {
            None => None,
            Some(((q, q_text), (r, r_text))) => {
                let prediction = q_text
                    .to_move(&enemy)
                    .ok_or_else(|| OrderError::IllegalPrediction { uci: q.to_string(), side: !side })?;
                let response = r_text
                    .to_move(&view)
                    .or_else(|| match r_text {
                        UciMove::Normal { from, to, promotion: None } => {
                            en_passant_response(&view, prediction, from, to)
                        }
                        _ => None,
                    })
                    .ok_or_else(|| OrderError::IllegalResponse { uci: r.to_string(), side, why: why(&view, r) })?;
                Some(Conditional { prediction, response })
            }
        };
        let orders = Orders { primary: primary_move, conditional };
        orders.validate(pos, side)?;
        Ok(orders)
    }

    /// Checks the orders of `side` against the position before the ply (RULINGS 2, 5).
    pub fn validate(&self, pos: &Position, side: Color) -> Result<(), OrderError> {
        let view = side_view(pos, side);
        let enemy = side_view(pos, !side);
        let primary_uci = to_uci(&view, self.primary);
        if self.primary.kind() == MoveKind::EnPassant {
            return Err(OrderError::EnPassantPrimary { uci: primary_uci });
        }
        if !is_primary(&view, self.primary) {
            let why = why(&view, &primary_uci);
            return Err(OrderError::IllegalPrimary { uci: primary_uci, side, why });
        }
        let Some(c) = self.conditional else { return Ok(()) };
        if !enemy.legal_moves().contains(&c.prediction) {
            return Err(OrderError::IllegalPrediction { uci: to_uci(&enemy, c.prediction), side: !side });
        }
        let uci = to_uci(&view, c.response);
        let legal = view.legal_moves().contains(&c.response)
            || (c.response.kind() == MoveKind::EnPassant
                && en_passant_response(&view, c.prediction, c.response.from(), c.response.to()) == Some(c.response));
        if !legal {
            let why = why(&view, &uci);
            return Err(OrderError::IllegalResponse { uci, side, why });
        }
        let occupied = pos.board().occupied();
        let response_legs = legs(&view, c.response);
        for leg in &response_legs {
            // The first occupied square along the path: the nearest to the start by steps (a
            // line's squares, and the knight's Z g2, f2, f3, are 1, 2, 3 steps away).
            let steps = |sq: &Square| {
                (i32::from(sq.file()) - i32::from(leg.from.file())).abs()
                    + (i32::from(sq.rank()) - i32::from(leg.from.rank())).abs()
            };
            if let Some(square) = (leg.path & occupied).min_by_key(steps) {
                return Err(OrderError::ResponsePathOccupied { uci, square });
            }
        }
        // Castling moves two pieces to two squares: every leg of the primary and of the
        // response counts (the castling rook is one of the primary's pieces, and its destination
        // one of the primary's targets).
        let primary_legs = legs(&view, self.primary);
        if response_legs.iter().any(|r| primary_legs.iter().any(|p| p.from == r.from)) {
            return Err(OrderError::ResponseSamePiece { uci });
        }
        if let Some(square) = response_legs.iter().map(|r| r.to).find(|&to| primary_legs.iter().any(|p| p.to == to)) {
            return Err(OrderError::ResponseOntoPrimaryTarget { uci, square });
        }
        Ok(())
    }

    /// The canonical text: `e2e4`, or `e2e4 if e7e5 then b1c3`.
    pub fn to_text(&self, pos: &Position, side: Color) -> String {
        let view = side_view(pos, side);
        let mut s = to_uci(&view, self.primary);
        if let Some(c) = self.conditional {
            s.push_str(&format!(
                " if {} then {}",
                to_uci(&side_view(pos, !side), c.prediction),
                to_uci(&view, c.response)
            ));
        }
        s
    }
}

/// One moving piece in a ply: a leg of an executed order (castling has two).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Mover {
    color: Color,
    from: Square,
    to: Square,
    path: crate::Bitboard,
    promotion: Option<crate::Role>,
}

/// A piece named in a ply report: its letter (upper case for White) and its square before the ply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PieceAt {
    /// FEN letter.
    pub letter: char,
    /// Square before the ply.
    pub square: Square,
}

/// What a ply did (RULINGS 4.5): both sides' orders, which conditionals fired, and what was
/// annihilated or captured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlyReport {
    /// The orders, White's then Black's.
    pub orders: [Orders; 2],
    /// Whether each side's conditional fired (its prediction matched the enemy primary).
    pub fired: [bool; 2],
    /// Pieces annihilated by mutual capture or crossing paths.
    pub annihilated: Vec<PieceAt>,
    /// Pieces captured by moves that executed.
    pub captured: Vec<PieceAt>,
}

fn piece_at(pos: &Position, sq: Square) -> Option<PieceAt> {
    let p = pos.board().piece_at(sq)?;
    Some(PieceAt { letter: pos.variant().piece(p.role).char(p.color), square: sq })
}

/// Resolves a ply from the position before it and both sides' validated orders (RULINGS 4):
/// 4.1 the primaries and the conditionals whose prediction equals the enemy primary exactly;
/// 4.2 pieces capturing each other are annihilated; 4.3 every pair of different-coloured moves
/// whose paths share a square annihilates all pieces involved (castling's legs count apart);
/// 4.4 the rest move at once: a capture of a piece that moved away lands on an empty square,
/// a piece that stayed is captured. Pure: the same inputs give the same result.
pub fn resolve(pos: &Position, white: &Orders, black: &Orders) -> Result<(Position, PlyReport), OrderError> {
    white.validate(pos, Color::White)?;
    black.validate(pos, Color::Black)?;
    let orders = [*white, *black];
    // Step 1. The moves to be done.
    let mut fired = [false; 2];
    let mut movers: Vec<Mover> = Vec::new();
    for side in [Color::White, Color::Black] {
        let o = orders[side.index()];
        let enemy_primary = orders[(!side).index()].primary;
        let view = side_view(pos, side);
        let mut moves = vec![o.primary];
        if let Some(c) = o.conditional {
            if c.prediction == enemy_primary {
                fired[side.index()] = true;
                moves.push(c.response);
            }
        }
        for m in moves {
            for leg in legs(&view, m) {
                movers.push(Mover {
                    color: side,
                    from: leg.from,
                    to: leg.to,
                    path: leg.path,
                    promotion: m.promotion_role(),
                });
            }
        }
    }
    let n = movers.len();
    let mut gone = vec![false; n];
    // Step 2. Mutual captures.
    for a in 0..n {
        for b in 0..n {
            let (ma, mb) = (movers[a], movers[b]);
            if ma.color != mb.color && ma.to == mb.from && mb.to == ma.from {
                gone[a] = true;
                gone[b] = true;
            }
        }
    }
    // Step 3. Crossing paths, all pairs at once among the moves still to be done.
    let mut crossed = vec![false; n];
    for a in 0..n {
        for b in 0..n {
            let (ma, mb) = (movers[a], movers[b]);
            if !gone[a] && !gone[b] && ma.color != mb.color && ma.path.intersects(mb.path) {
                crossed[a] = true;
                crossed[b] = true;
            }
        }
    }
    let mut after = pos.clone();
    let mut annihilated = Vec::new();
    for i in 0..n {
        if gone[i] || crossed[i] {
            annihilated.extend(piece_at(pos, movers[i].from));
            after.take_piece(movers[i].from);
        }
    }
    // Step 4. The rest move at once: lift them all, then land them.
    let executing: Vec<Mover> = (0..n).filter(|&i| !gone[i] && !crossed[i]).map(|i| movers[i]).collect();
    let lifted: Vec<_> = executing.iter().map(|m| after.take_piece(m.from)).collect();
    let mut captured = Vec::new();
    let keep = &pos.variant().t.castle_keep;
    let mut rights = 0x0f_u8;
    for i in 0..n {
        if gone[i] || crossed[i] {
            rights &= keep[movers[i].from.index()];
        }
    }
    for (m, piece) in executing.iter().zip(lifted) {
        let Some((mut piece, state)) = piece else { continue };
        if let Some((victim, _)) = after.take_piece(m.to) {
            captured.push(PieceAt { letter: pos.variant().piece(victim.role).char(victim.color), square: m.to });
        }
        if let Some(r) = m.promotion {
            piece.role = r;
        }
        after.put_piece(m.to, piece, state);
        rights &= keep[m.from.index()] & keep[m.to.index()];
    }
    after.keep_castling(rights);
    // A ply is a move of both sides: the same side is "to move" again, one fullmove later (en
    // passant never carries over). The halfmove clock counts two per ply and restarts after a
    // capture, an annihilation or a pawn move.
    after.pass_turn();
    after.pass_turn();
    let pawn = pos.variant().pawn();
    let pawn_moved = executing.iter().any(|m| pos.board().role_at(m.from) == pawn);
    if !captured.is_empty() || !annihilated.is_empty() || pawn_moved {
        after.halfmoves = 0;
    }
    Ok((after, PlyReport { orders, fired, annihilated, captured }))
}

/// The game's end after a ply, judged from the position it left (RULINGS 6): a side whose
/// king was captured or annihilated loses (both kings gone: a draw); a side in check without a
/// legal primary is checkmated, one without a legal primary and not in check is stalemated (a
/// draw; both sides without a primary: a draw); then the fifty-move and insufficient-material
/// draws. Repetition needs the game's history and is judged by its caller.
pub fn outcome(pos: &Position) -> Option<crate::outcome::Outcome> {
    use crate::outcome::{EndReason, Outcome};
    if let Some(k) = pos.variant().king() {
        let has = |c: Color| pos.board().pieces(c, k).any();
        match (has(Color::White), has(Color::Black)) {
            (false, false) => return Some(Outcome::Draw { reason: EndReason::KingCaptured }),
            (false, true) => return Some(Outcome::Decisive { winner: Color::Black, reason: EndReason::KingCaptured }),
            (true, false) => return Some(Outcome::Decisive { winner: Color::White, reason: EndReason::KingCaptured }),
            (true, true) => {}
        }
    }
    let stuck = [Color::White, Color::Black].map(|c| {
        let view = side_view(pos, c);
        (!view.has_legal_move() && king_captures(&view).is_empty()).then(|| view.is_check())
    });
    match stuck {
        [Some(_), Some(_)] => return Some(Outcome::Draw { reason: EndReason::Stalemate }),
        [Some(true), None] => return Some(Outcome::Decisive { winner: Color::Black, reason: EndReason::Checkmate }),
        [None, Some(true)] => return Some(Outcome::Decisive { winner: Color::White, reason: EndReason::Checkmate }),
        [Some(false), None] | [None, Some(false)] => return Some(Outcome::Draw { reason: EndReason::Stalemate }),
        [None, None] => {}
    }
    if pos.halfmoves() >= 100 {
        return Some(Outcome::Draw { reason: EndReason::FiftyMoves });
    }
    if pos.is_insufficient_material() {
        return Some(Outcome::Draw { reason: EndReason::InsufficientMaterial });
    }
    None
}

/// Predictor chess as a [`crate::orders::Simultaneous`] rule set: [`Orders::validate`] and
/// [`resolve`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Predictor;

impl crate::orders::Simultaneous for Predictor {
    type Orders = Orders;
    type Report = PlyReport;
    type Error = OrderError;

    fn validate(&self, position: &Position, side: Color, orders: &Orders) -> Result<(), OrderError> {
        orders.validate(position, side)
    }

    fn resolve(
        &self,
        position: &Position,
        white: &Orders,
        black: &Orders,
    ) -> Result<(Position, PlyReport), OrderError> {
        resolve(position, white, black)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    fn pos(fen: &str) -> Position {
        Position::from_fen(crate::variants::by_name("chess").expect("chess"), fen).expect("valid")
    }

    #[test]
    fn orders_round_trip_as_text() {
        let p = pos(START);
        for (side, text) in [
            (Color::White, "e2e4"),
            (Color::White, "e2e4 if e7e5 then d2d3"),
            (Color::Black, "g8f6 if d2d4 then e7e6"),
            (Color::Black, "e7e5"),
        ] {
            let o = Orders::parse(&p, side, text).expect(text);
            assert_eq!(o.to_text(&p, side), text);
        }
    }

    #[test]
    fn bad_orders_are_rejected_with_a_reason() {
        let p = pos(START);
        let err = |side, text: &str| Orders::parse(&p, side, text).expect_err(text);
        assert!(matches!(err(Color::White, ""), OrderError::Syntax { .. }));
        // The seed's notation gets its UCI spelling.
        for (written, uci) in [("e2-e4", "e2e4"), ("Ng1-f3", "g1f3"), ("e7xd8=Q", "e7d8q")] {
            let e = err(Color::White, written).to_string();
            assert!(e.contains(&format!("'{uci}' for '{written}'")), "{e}");
        }
        assert!(err(Color::White, "O-O").to_string().contains("castling is written as the king's move in UCI"));
        // A refusal says why the move is not legal.
        assert!(err(Color::White, "e2e5").to_string().ends_with("the pawn on e2 cannot move so"));
        assert!(matches!(err(Color::White, "e2e4 if e7e5"), OrderError::Syntax { .. }));
        assert!(matches!(err(Color::White, "e2e5"), OrderError::IllegalPrimary { .. }));
        assert!(matches!(err(Color::Black, "e2e4"), OrderError::IllegalPrimary { .. }), "White's move for Black");
        assert!(matches!(err(Color::White, "e2e4 if e7e4 then d2d4"), OrderError::IllegalPrediction { .. }));
        assert!(matches!(err(Color::White, "e2e4 if e7e5 then d2d5"), OrderError::IllegalResponse { .. }));
        // The knight's Z from b1 to c3 crosses b2 and c2: in the start position no knight may
        // answer by a conditional (the seed's own "if e7-e5 then Nb1-c3" needs those squares free).
        let sq = |n: &str| Square::parse(n).expect("a square");
        assert_eq!(
            err(Color::White, "e2e4 if e7e5 then b1c3"),
            OrderError::ResponsePathOccupied { uci: "b1c3".into(), square: sq("b2") }
        );
        // The knight's Z g2, f2, f3: g2 is the first square it crosses.
        assert_eq!(
            err(Color::White, "e2e4 if e7e5 then g1f3"),
            OrderError::ResponsePathOccupied { uci: "g1f3".into(), square: sq("g2") }
        );
        // Responses are judged before the ply: the primary's pawn still stands on e2.
        assert!(matches!(err(Color::White, "e2e4 if d7d5 then f1c4"), OrderError::IllegalResponse { .. }));
        assert!(matches!(err(Color::White, "e2e4 if e7e5 then e2e3"), OrderError::ResponseSamePiece { .. }));
        let q = pos("4k3/8/8/8/8/8/8/Q2RK3 w - - 0 1");
        assert_eq!(
            Orders::parse(&q, Color::White, "a1d4 if e8e7 then d1d4"),
            Err(OrderError::ResponseOntoPrimaryTarget { uci: "d1d4".into(), square: sq("d4") })
        );
        let ep = pos("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3");
        assert_eq!(Orders::parse(&ep, Color::White, "e5f6"), Err(OrderError::EnPassantPrimary { uci: "e5f6".into() }));
    }

    #[test]
    fn en_passant_is_a_conditional_on_the_double_push() {
        let p = pos("rnbqkbnr/pppppppp/8/4P3/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
        let o = Orders::parse(&p, Color::White, "a2a3 if d7d5 then e5d6").expect("en passant as a conditional");
        let c = o.conditional.expect("a conditional");
        assert_eq!(c.response.kind(), MoveKind::EnPassant);
        assert_eq!(o.to_text(&p, Color::White), "a2a3 if d7d5 then e5d6");
        // Not on a single push, and not as a primary.
        assert!(matches!(
            Orders::parse(&p, Color::White, "a2a3 if d7d6 then e5d6"),
            Err(OrderError::IllegalResponse { .. })
        ));
        assert!(matches!(Orders::parse(&p, Color::White, "e5d6"), Err(OrderError::IllegalPrimary { .. })));
        // A pawn pinned to its king along the rank may not take en passant: after ...d7-d5
        // both pawns would leave the fifth rank and open it to the rook.
        let pinned = pos("4k3/3p4/8/r3P2K/8/8/8/8 w - - 0 1");
        assert!(matches!(
            Orders::parse(&pinned, Color::White, "h5h4 if d7d5 then e5d6"),
            Err(OrderError::IllegalResponse { .. })
        ));
        let free = pos("4k3/3p4/8/4P2K/8/8/8/r7 w - - 0 1");
        assert!(Orders::parse(&free, Color::White, "h5h4 if d7d5 then e5d6").is_ok());
    }

    fn ply(fen: &str, white: &str, black: &str) -> (String, PlyReport) {
        let p = pos(fen);
        let w = Orders::parse(&p, Color::White, white).expect(white);
        let b = Orders::parse(&p, Color::Black, black).expect(black);
        let (after, report) = resolve(&p, &w, &b).expect("valid orders");
        assert_eq!(after.hash(), after.hash_from_scratch());
        (after.board_fen(), report)
    }

    fn names(v: &[PieceAt]) -> Vec<String> {
        v.iter().map(|p| format!("{}{}", p.letter, p.square)).collect()
    }

    #[test]
    fn long_castling_against_a_rook_on_b1() {
        // The seed's elaboration: 0-0-0 against ...Rb8-b1 annihilates both rooks, the king
        // stands on c1.
        let (board, r) = ply("1r2k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "e1c1", "b8b1");
        assert_eq!(board, "4k3/8/8/8/8/8/8/2K5");
        assert_eq!(names(&r.annihilated), ["Ra1", "rb8"]);
        assert!(r.captured.is_empty());
    }

    #[test]
    fn mutual_captures_and_crossing_paths_annihilate() {
        let (board, r) = ply("r3k3/8/8/8/8/8/8/R3K3 w - - 0 1", "a1a8", "a8a1");
        assert_eq!((board.as_str(), names(&r.annihilated)), ("4k3/8/8/8/8/8/8/4K3", vec!["Ra1".into(), "ra8".into()]));
        // Bc1-h6 crosses e3, where ...Ra3-e3 ends.
        let (board, r) = ply("6k1/8/8/8/8/r7/8/2B1K3 w - - 0 1", "c1h6", "a3e3");
        assert_eq!(board, "6k1/8/8/8/8/8/8/4K3");
        assert_eq!(names(&r.annihilated), ["Bc1", "ra3"]);
    }

    #[test]
    fn captures_land_where_the_piece_was() {
        // The knight leaves h5 (by its Z: h6, g6, g7): the rook lands on an empty h5.
        let (board, r) = ply("4k3/8/8/7n/8/8/8/4K2R w - - 0 1", "h1h5", "h5g7");
        assert_eq!(board, "4k3/6n1/8/7R/8/8/8/4K3");
        assert!(r.captured.is_empty() && r.annihilated.is_empty());
        // The knight stays: it is taken.
        let (board, r) = ply("4k3/8/8/7n/8/8/8/4K2R w - - 0 1", "h1h5", "e8d8");
        assert_eq!(board, "3k4/8/8/7R/8/8/8/4K3");
        assert_eq!(names(&r.captured), ["nh5"]);
    }

    #[test]
    fn conditionals_fire_only_on_the_exact_prediction() {
        let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let (board, r) = ply(fen, "e2e4 if e7e5 then d2d3", "e7e5");
        assert_eq!(r.fired, [true, false]);
        assert_eq!(board, "rnbqkbnr/pppp1ppp/8/4p3/4P3/3P4/PPP2PPP/RNBQKBNR");
        let (board, r) = ply(fen, "e2e4 if e7e5 then d2d3", "e7e6");
        assert_eq!(r.fired, [false, false]);
        assert_eq!(board, "rnbqkbnr/pppp1ppp/4p3/8/4P3/8/PPPP1PPP/RNBQKBNR");
    }

    #[test]
    fn en_passant_meets_the_push_and_both_pawns_go() {
        // RULINGS 5, literally: the en-passant response's path (d6) meets the push's (d6, d5).
        let (board, r) =
            ply("rnbqkbnr/pppppppp/8/4P3/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", "a2a3 if d7d5 then e5d6", "d7d5");
        assert_eq!(r.fired, [true, false]);
        assert_eq!(names(&r.annihilated), ["Pe5", "pd7"]);
        assert_eq!(board, "rnbqkbnr/ppp1pppp/8/8/8/P7/1PPP1PPP/RNBQKBNR");
    }

    #[test]
    fn the_game_ends_with_a_king_or_without_a_primary() {
        use crate::outcome::{EndReason, Outcome};
        // A king annihilated: Ke2-f3 meets the knight's Z g4-g3-f3-f2.
        let p = pos("4k3/8/8/8/6n1/8/4K3/8 w - - 0 1");
        let w = Orders::parse(&p, Color::White, "e2f3").expect("legal");
        let b = Orders::parse(&p, Color::Black, "g4f2").expect("legal");
        let (after, r) = resolve(&p, &w, &b).expect("valid");
        assert_eq!(names(&r.annihilated), ["Ke2", "ng4"]);
        assert_eq!(outcome(&after), Some(Outcome::Decisive { winner: Color::Black, reason: EndReason::KingCaptured }));
        // White mated before the ply (back rank), Black with moves.
        let mated = pos("6k1/8/8/8/8/8/5PPP/r5K1 w - - 0 1");
        assert_eq!(outcome(&mated), Some(Outcome::Decisive { winner: Color::Black, reason: EndReason::Checkmate }));
        // Black without a move and not in check: stalemate.
        let stalemate = pos("k7/2Q5/1K6/8/8/8/8/8 w - - 0 1");
        assert_eq!(outcome(&stalemate), Some(Outcome::Draw { reason: EndReason::Stalemate }));
        assert_eq!(outcome(&pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")), None);
        assert_eq!(
            outcome(&pos("4k3/8/8/8/8/8/8/4K3 w - - 0 1")),
            Some(Outcome::Draw { reason: EndReason::InsufficientMaterial })
        );
    }
}
