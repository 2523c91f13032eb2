//! Predictor chess's orders (RULINGS § Predictor chess 2, 3, 5): a primary move and an optional
//! conditional (a predicted enemy primary and a response), their text form and their validation.
//!
//! Both sides move from the same position, so each side's moves are those it would have with
//! the turn (see [`side_view`]). An illegal order is rejected with a typed reason, never reduced.
//! Resolution of a ply builds on this and on `path.rs` (issue 8, in progress).

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
    #[error("the primary {uci} is not a legal move for {side}")]
    IllegalPrimary {
        /// The move as written.
        uci: String,
        /// The side.
        side: Color,
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
    #[error("the response {uci} is not a legal move for {side}")]
    IllegalResponse {
        /// The move as written.
        uci: String,
        /// The side.
        side: Color,
    },
    /// A square of the response's path is occupied before the ply (a conditional never captures).
    #[error("the response {uci} crosses {square}, which is occupied (a conditional's whole path must be empty)")]
    ResponsePathOccupied {
        /// The response.
        uci: String,
        /// The first occupied square of its path.
        square: Square,
    },
    /// The response moves the primary's piece.
    #[error("the response {uci} moves the same piece as the primary")]
    ResponseSamePiece {
        /// The response.
        uci: String,
    },
    /// The response ends on the primary's target.
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

/// The position as `side` sees it for its orders: the same board with `side` to move (an
/// en-passant right lapses, since en passant is only a conditional).
pub fn side_view(pos: &Position, side: Color) -> Position {
    let mut view = pos.clone();
    if view.turn() != side {
        view.pass_turn();
    }
    view
}

/// The en-passant response `uci` of `side` to the predicted enemy double push `prediction`: a
/// pawn of `side` beside the pushed pawn's target stepping diagonally onto the square it passed.
fn en_passant_response(view: &Position, prediction: Move, text: &UciMove) -> Option<Move> {
    let UciMove::Normal { from, to, promotion: None } = *text else { return None };
    if prediction.kind() != MoveKind::DoubleStep {
        return None;
    }
    let passed = Square::from_index(((prediction.from().index() + prediction.to().index()) / 2) as u8);
    let pawn = view.variant().pawn()?;
    let ours = view.board().piece_at(from).is_some_and(|p| p.color == view.turn() && p.role == pawn);
    let beside = from.rank() == prediction.to().rank() && from.file().abs_diff(prediction.to().file()) == 1;
    (ours && beside && to == passed).then(|| Move::en_passant(from, to))
}

impl Orders {
    /// Reads `PRIMARY` or `PRIMARY if PREDICTION then RESPONSE` (UCI squares, castling as the
    /// king's move `e1c1`, promotion suffix) for `side` in `pos`, and validates it.
    pub fn parse(pos: &Position, side: Color, text: &str) -> Result<Orders, OrderError> {
        let syntax = |reason: &str| OrderError::Syntax { text: text.to_string(), reason: reason.to_string() };
        let words: Vec<&str> = text.split_whitespace().collect();
        let (primary, conditional) = match words.as_slice() {
            [p] => (*p, None),
            [p, "if", q, "then", r] => (*p, Some((*q, *r))),
            [] => return Err(syntax("no move")),
            _ => return Err(syntax("expected 'PRIMARY' or 'PRIMARY if PREDICTION then RESPONSE'")),
        };
        let uci = |w: &str| UciMove::parse(w).map_err(|e| syntax(&e.reason));
        let view = side_view(pos, side);
        let enemy = side_view(pos, !side);
        let primary_text = uci(primary)?;
        let primary_move =
            primary_text.to_move(&view).ok_or_else(|| OrderError::IllegalPrimary { uci: primary.to_string(), side })?;
        let conditional = match conditional {
            None => None,
            Some((q, r)) => {
                let prediction = uci(q)?
                    .to_move(&enemy)
                    .ok_or_else(|| OrderError::IllegalPrediction { uci: q.to_string(), side: !side })?;
                let r_text = uci(r)?;
                let response = r_text
                    .to_move(&view)
                    .or_else(|| en_passant_response(&view, prediction, &r_text))
                    .ok_or_else(|| OrderError::IllegalResponse { uci: r.to_string(), side })?;
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
        if !view.legal_moves().contains(&self.primary) {
            return Err(OrderError::IllegalPrimary { uci: primary_uci, side });
        }
        let Some(c) = self.conditional else { return Ok(()) };
        if !enemy.legal_moves().contains(&c.prediction) {
            return Err(OrderError::IllegalPrediction { uci: to_uci(&enemy, c.prediction), side: !side });
        }
        let uci = to_uci(&view, c.response);
        let legal = view.legal_moves().contains(&c.response)
            || (c.response.kind() == MoveKind::EnPassant
                && en_passant_response(
                    &view,
                    c.prediction,
                    &UciMove::Normal { from: c.response.from(), to: c.response.to(), promotion: None },
                ) == Some(c.response));
        if !legal {
            return Err(OrderError::IllegalResponse { uci, side });
        }
        let occupied = pos.board().occupied();
        for leg in legs(&view, c.response) {
            if let Some(square) = (leg.path & occupied).first() {
                return Err(OrderError::ResponsePathOccupied { uci, square });
            }
        }
        if c.response.from_square() == self.primary.from_square() {
            return Err(OrderError::ResponseSamePiece { uci });
        }
        if c.response.to() == self.primary.to() {
            return Err(OrderError::ResponseOntoPrimaryTarget { uci, square: self.primary.to() });
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
    }
}
