//! A cache hint: the hot loop asks for the records an event due soon will touch, so that
//! their misses overlap the work of the events before it (the fabric's per-port state of
//! a large fat tree does not fit in L2).

/// Asks the CPU to bring the cache line holding `x` into L1. No effect on memory.
#[inline(always)]
pub fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint with no effect on memory; the pointer is valid.
    unsafe {
        std::arch::x86_64::_mm_prefetch(x as *const T as *const i8, std::arch::x86_64::_MM_HINT_T0)
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// Asks the CPU for the cache line at `p` ready to be written (`prefetchw`): for the end
/// of a list being appended to, so that the append does not wait for the line. Any
/// address may be given (a prefetch never faults).
#[inline(always)]
pub fn prefetch_write<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetchw is a hint: it reads and writes no memory and never faults.
    unsafe {
        std::arch::asm!("prefetchw [{}]", in(reg) p, options(nostack, preserves_flags, readonly));
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
