//! Placeholder: protocol (being written).
