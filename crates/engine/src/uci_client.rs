//! Placeholder: driving an external UCI engine as a process (being written).
