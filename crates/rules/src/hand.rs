//! Pieces in hand (pockets) for drop variants.
//! A hand counts pieces per role for one colour.

use crate::piece::{Role, MAX_ROLES};

/// Pieces held by one side, by role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Hand {
    counts: [u8; MAX_ROLES],
}

impl Hand {
    /// How many of a role are held.
    #[inline]
    pub fn count(&self, role: Role) -> u8 {
        // 0 for a role beyond any variant's.
        self.counts.get(role.index()).copied().unwrap_or(0)
    }

    /// Total number of pieces held.
    pub fn total(&self) -> u32 {
        self.counts.iter().map(|&c| u32::from(c)).sum()
    }

    /// Whether the hand is empty.
    pub fn is_empty(&self) -> bool {
        self.counts.iter().all(|&c| c == 0)
    }

    /// Adds one piece; returns the new count, or `None` if the count would exceed 64 (or the
    /// role is beyond any variant's).
    #[inline]
    pub fn add(&mut self, role: Role) -> Option<u8> {
        let c = self.counts.get_mut(role.index())?;
        if *c >= 64 {
            return None;
        }
        *c += 1;
        Some(*c)
    }

    /// Removes one piece; returns the new count, or `None` if none was held.
    #[inline]
    pub fn remove(&mut self, role: Role) -> Option<u8> {
        let c = self.counts.get_mut(role.index())?;
        *c = c.checked_sub(1)?;
        Some(*c)
    }

    /// Roles with at least one piece, with their counts.
    pub fn iter(&self) -> impl Iterator<Item = (Role, u8)> + '_ {
        self.counts.iter().enumerate().filter(|(_, &c)| c > 0).map(|(i, &c)| (Role(i as u8), c))
    }
}
