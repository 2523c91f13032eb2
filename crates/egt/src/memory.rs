//! Hints for large tables probed at random: transparent huge pages for a fresh allocation and a
//! cache prefetch. The only `unsafe` of the table code; the engine's transposition table uses it too.

/// Asks the kernel to back the (not yet touched) allocation of `v` with transparent huge pages:
/// random accesses into a large table otherwise spend much of their time on TLB misses.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
pub fn advise_huge_pages<T>(v: &Vec<T>) {
    const HUGE: usize = 2 << 20;
    let start = v.as_ptr() as usize;
    let end = start + v.capacity() * std::mem::size_of::<T>();
    let aligned = start.next_multiple_of(HUGE);
    if end > aligned + HUGE {
        let len = (end - aligned) / HUGE * HUGE;
        // SAFETY: madvise only advises on a range inside our own live allocation; it changes no
        // contents, and failure (e.g. THP disabled) is harmless.
        unsafe {
            libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
        }
    }
}

/// Elsewhere: nothing to advise.
#[cfg(not(target_os = "linux"))]
pub fn advise_huge_pages<T>(_: &Vec<T>) {}

/// Hints the processor to bring the cache line of `r` closer.
#[inline]
#[allow(unsafe_code)]
pub fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `_mm_prefetch` only hints the cache; it never faults, reads or writes memory
        // visibly, and SSE is part of the x86_64 baseline. The pointer is a live reference.
        unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(r as *const T as *const i8) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}
