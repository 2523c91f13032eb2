//! Proof that move generation, playing moves and perft never touch the heap: a counting
//! global allocator (this binary only) and zero allocations asserted in chess, crazyhouse and gardner.
//!
//! Lazily built tables are warmed up first by one untimed pass over the same calls. The
//! counter is thread-local, so tests running in parallel do not see each other's allocations.
// A global allocator can only be written as `unsafe impl GlobalAlloc`; the unsafe code here
// forwards every call unchanged to `System`.
#![allow(unsafe_code)]

use rules::{perft, variants, MoveList, Position};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;

/// Counts allocations per thread and forwards everything to the system allocator.
struct CountingAllocator;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count_one() {
    // `try_with`: the counter may already be gone while a thread shuts down.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so the
// `GlobalAlloc` contract holds exactly as it does for `System`; counting touches only a
// const-initialised thread-local `Cell`, which never allocates.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: forwarded unchanged (see the impl's comment).
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// Allocations made by this thread while running `f`.
fn allocations_in(f: impl FnOnce()) -> u64 {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

/// The calls under test: legal moves (returned and appended), copy-make of every move, perft.
fn exercise(pos: &Position, depth: u32) -> u64 {
    let moves = black_box(pos.legal_moves());
    let mut list = MoveList::new();
    pos.gen_legal(&mut list);
    let mut nodes = list.len() as u64;
    for &m in &moves {
        let mut child = pos.clone();
        child.play_unchecked(m);
        nodes += black_box(child.legal_moves()).len() as u64;
    }
    nodes + perft(black_box(pos), depth)
}

/// Asserts that `exercise` allocates nothing on each position, after one warm-up pass.
fn assert_alloc_free(variant: &str, cases: &[(&str, u32)]) {
    let v = variants::by_name(variant).unwrap_or_else(|| panic!("variant {variant} missing"));
    let positions: Vec<(Position, u32)> = cases
        .iter()
        .map(|&(fen, depth)| (Position::from_fen(v, fen).unwrap_or_else(|e| panic!("{fen}: {e}")), depth))
        .collect();
    // Step 1. Warm up: build any lazily initialised tables.
    for (pos, depth) in &positions {
        black_box(exercise(pos, *depth));
    }
    // Step 2. Measure.
    for ((pos, depth), (fen, _)) in positions.iter().zip(cases) {
        let mut nodes = 0;
        let n = allocations_in(|| nodes = exercise(pos, *depth));
        assert!(nodes > 0, "{variant} {fen}: nothing was generated");
        assert_eq!(n, 0, "{variant} {fen}: {n} heap allocations in legal_moves/play_unchecked/perft({depth})");
    }
}

#[test]
fn counter_sees_allocations() {
    // The allocator is really installed: a Vec allocates once, a String push reallocates.
    let n = allocations_in(|| {
        let mut s = black_box(String::with_capacity(1));
        s.push_str("more than one byte");
        black_box(s);
    });
    assert_eq!(n, 2);
}

#[test]
fn chess_is_alloc_free() {
    assert_alloc_free(
        "chess",
        &[
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 3),
            ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 2),
            ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 3),
            ("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", 2),
            ("n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1", 3),
        ],
    );
}

#[test]
fn crazyhouse_is_alloc_free() {
    assert_alloc_free(
        "crazyhouse",
        &[
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1", 3),
            ("r2q1rk1/ppp2ppp/2n1bn2/2b1p3/4P3/2NP1N2/PPP1BPPP/R1BQK2R[Pp] w KQ - 0 8", 2),
            ("4k3/8/8/8/8/8/8/Q~3K3[QRBNPqrbnp] b - - 0 1", 2),
            ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R[NBnb] w KQkq - 0 1", 1),
        ],
    );
}

#[test]
fn gardner_is_alloc_free() {
    assert_alloc_free(
        "gardner",
        &[
            ("rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1", 4),
            ("4k/1P3/5/2p2/K4 w - - 0 1", 4),
            ("k4/5/1r3/5/K1Q2 b - - 0 1", 3),
        ],
    );
}
