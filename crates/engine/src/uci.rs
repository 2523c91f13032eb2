//! Placeholder: uci (being written).
