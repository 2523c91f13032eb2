//! Placeholder: matches between UCI engines (being written).
