//! Placeholder: xboard (being written).
