//! Zobrist keys for incremental position hashing.
//! Keys come from a fixed splitmix64 stream, so hashes are stable across runs and builds.

use crate::piece::MAX_ROLES;

/// The splitmix64 finaliser: a well-mixed 64-bit value from any input (the keys below; the
/// engine's research evaluation noise).
pub const fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

const fn table<const N: usize>(salt: u64) -> [u64; N] {
    let mut out = [0u64; N];
    let mut i = 0;
    while i < N {
        out[i] = splitmix(salt.wrapping_mul(0x1000_0000_0000).wrapping_add(i as u64));
        i += 1;
    }
    out
}

const PIECES: [u64; 2 * MAX_ROLES * 64] = table(1);
const HAND: [u64; 2 * MAX_ROLES * 65] = table(2);
const CASTLING: [u64; 16] = table(3);
const EP_FILE: [u64; 8] = table(4);
const STATE: [u64; 64 * 8] = table(5);
const SQUARE_STATE: [u64; 64 * 8] = table(6);

/// The key XORed in when Black is to move.
pub const BLACK_TO_MOVE: u64 = 0xF8D6_26AA_AF27_8509;

/// Key of a piece (colour index, role index) on a square.
#[inline]
pub fn piece(color: usize, role: usize, sq: usize) -> u64 {
    PIECES[(color * MAX_ROLES + role) * 64 + sq]
}

/// Key of holding `count` pieces of a role in hand (count 0 has key 0 by convention of XORing pairs).
#[inline]
pub fn hand(color: usize, role: usize, count: u8) -> u64 {
    if count == 0 {
        0
    } else {
        HAND[(color * MAX_ROLES + role) * 65 + (count as usize).min(64)]
    }
}

/// Key of a castling-rights set (4 bits).
#[inline]
pub fn castling(rights: u8) -> u64 {
    if rights == 0 {
        0
    } else {
        CASTLING[rights as usize & 15]
    }
}

/// Key of an en-passant file.
#[inline]
pub fn ep_file(file: u8) -> u64 {
    EP_FILE[file as usize & 7]
}

/// XOR of the keys of the set bits of `value`, from a table of 8 keys per square.
#[inline]
fn byte_key(table: &[u64; 64 * 8], sq: usize, value: u8) -> u64 {
    let keys = &table[(sq & 63) * 8..(sq & 63) * 8 + 8];
    keys.iter().enumerate().filter(|(bit, _)| value & (1 << bit) != 0).fold(0, |k, (_, key)| k ^ key)
}

/// Key of a piece state byte on a square (0 for state 0).
#[inline]
pub fn state(sq: usize, value: u8) -> u64 {
    byte_key(&STATE, sq, value)
}

/// Key of a per-square variant byte (0 for value 0).
#[inline]
pub fn square_state(sq: usize, value: u8) -> u64 {
    byte_key(&SQUARE_STATE, sq, value)
}
