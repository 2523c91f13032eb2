//! Simultaneous play: a ply where both sides' orders are resolved together.
//! Variants with simultaneous moves (Predictor chess) implement [`Simultaneous`].

use crate::position::Position;

/// The rules of a simultaneous-move variant: a pure resolution function from the
/// position before the ply and both sides' orders to the position after it and a report.
pub trait Simultaneous {
    /// What one side submits for a ply.
    type Orders;
    /// What the ply did (moves executed, predictions fired, pieces removed).
    type Report;
    /// Why a set of orders was rejected.
    type Error: std::error::Error;

    /// Checks one side's orders against the position before the ply.
    fn validate(&self, position: &Position, side: crate::Color, orders: &Self::Orders) -> Result<(), Self::Error>;

    /// Resolves a ply. Must be pure: the same inputs always give the same result.
    fn resolve(
        &self,
        position: &Position,
        white: &Self::Orders,
        black: &Self::Orders,
    ) -> Result<(Position, Self::Report), Self::Error>;
}
