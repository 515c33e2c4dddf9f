//! The engine's allocator: its memory on huge pages where the system gives them only on
//! request. A large fabric's state (packet pool, egress rings, event wheel, port and flow
//! records) spans over 100 MiB that the hot loop reads at random; on 4 KiB pages most of
//! those cold reads also miss the TLB (k = 16 benchmark: 0.93 of the time at 5 ms,
//! docs/speed.md, "Huge pages"). With transparent huge pages in `madvise` mode (a common default)
//! memory must be advised before its first touch to get them, as glibc's
//! `glibc.malloc.hugetlb=1` tunable does, which a library cannot set once its process
//! runs. So, on Linux:
//! * blocks of `BIG` bytes or more are mapped on their own, the whole mapping advised
//!   (so that a block that grows, such as the packet pool, keeps the advice);
//! * the main heap grows in `STEP`s (`M_TOP_PAD`) while a world lives (`WorldHeap`),
//!   and each step is advised when a block of the engine's finds the heap grown,
//!   before the engine touches it.
//!
//! Memory of other threads' malloc arenas (a parallel run's second partition growing its
//! rings) stays on small pages. Placement never changes results.
//!
//! Setting `M_TOP_PAD` turns off glibc's adaptive mmap threshold (mallopt(3)): blocks
//! from 128 KiB up are mapped, and faulted in, afresh each time. Code that needs such
//! a block again and again keeps it (the parallel engine's mail does).

use std::alloc::{GlobalAlloc, Layout, System};

pub struct Engine;

/// Blocks from this size on are mapped on their own.
const BIG: usize = 1 << 20;
const PAGE: usize = 4096;

#[cfg(target_os = "linux")]
mod os {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::PAGE;
    const HUGE: usize = 2 << 20;
    /// The main heap's growth step.
    const STEP: usize = 32 << 20;

    fn round(n: usize) -> usize {
        (n + PAGE - 1) & !(PAGE - 1)
    }

    /// Asks for huge pages on the whole huge pages inside [a, e).
    unsafe fn advise(a: usize, e: usize) {
        let (a, e) = ((a + HUGE - 1) & !(HUGE - 1), e & !(HUGE - 1));
        if e > a {
            libc::madvise(a as *mut libc::c_void, e - a, libc::MADV_HUGEPAGE);
        }
    }

    pub unsafe fn map(n: usize) -> *mut u8 {
        let p =
            libc::mmap(std::ptr::null_mut(), round(n), libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0);
        if p == libc::MAP_FAILED {
            return std::ptr::null_mut();
        }
        advise_mapping(p as *mut u8, n);
        p as *mut u8
    }
    /// Advises a whole mapping of our own, not only the huge pages inside it now: a block
    /// of 1-4 MiB may hold none, and the flag must be on the mapping for the huge pages it
    /// holds once grown (`remap` keeps it).
    unsafe fn advise_mapping(p: *mut u8, n: usize) {
        libc::madvise(p as *mut libc::c_void, round(n), libc::MADV_HUGEPAGE);
    }
    pub unsafe fn unmap(p: *mut u8, n: usize) {
        libc::munmap(p as *mut libc::c_void, round(n));
    }
    /// Grows or shrinks a mapped block (the mapping keeps its advice).
    pub unsafe fn remap(p: *mut u8, old: usize, new: usize) -> *mut u8 {
        let q = libc::mremap(p as *mut libc::c_void, round(old), round(new), libc::MREMAP_MAYMOVE);
        if q == libc::MAP_FAILED {
            std::ptr::null_mut()
        } else {
            q as *mut u8
        }
    }

    /// The end of the main heap already advised (0: not yet seen).
    static HEAP_END: AtomicUsize = AtomicUsize::new(0);

    /// After a small block: advises what the main heap grew by since the last look.
    /// The first look only sets the growth step (which also fixes glibc's mmap
    /// threshold from the start); what the process held before is left as it is.
    #[inline]
    pub fn heap_grown() {
        let brk = unsafe { libc::sbrk(0) } as usize;
        let done = HEAP_END.load(Ordering::Relaxed);
        if brk <= done {
            return;
        }
        if done == 0 {
            unsafe { libc::mallopt(libc::M_TOP_PAD, STEP as i32) };
        } else {
            unsafe { advise(done, brk) };
        }
        HEAP_END.store(brk, Ordering::Relaxed);
    }

    /// Worlds alive in the process (`WorldHeap`).
    static WORLDS: AtomicUsize = AtomicUsize::new(0);

    pub fn world_built() {
        if WORLDS.fetch_add(1, Ordering::Relaxed) == 0 {
            unsafe { libc::mallopt(libc::M_TOP_PAD, STEP as i32) };
        }
    }
    pub fn world_freed() {
        if WORLDS.fetch_sub(1, Ordering::Relaxed) == 1 {
            unsafe { libc::mallopt(libc::M_TOP_PAD, 0) };
        }
    }
}

/// Held by a world while it lives: the main heap grows in `STEP`s (`M_TOP_PAD`) while
/// any world does. The pad is glibc's for every arena, and a thread arena keeps that
/// much of its free top when its blocks are freed, which `malloc_trim` does not give
/// back (it trims only the main arena's top): so the pad goes back to glibc's default
/// once the last world starts to be freed, before the frees, and a parallel run's
/// second partition returns its arena (100 ms of k = 16: 0.93 of the benchmark's
/// peak, docs/speed.md).
pub(crate) struct WorldHeap(());

impl WorldHeap {
    pub(crate) fn hold() -> Self {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        os::world_built();
        WorldHeap(())
    }
}

impl Drop for WorldHeap {
    fn drop(&mut self) {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        os::world_freed();
    }
}

/// Gives the malloc arenas' free pages back to the system (glibc's `malloc_trim`): the
/// end of a run frees the world's small records, whose pages the results never reuse,
/// and a process keeps its results for as long as it studies them.
pub(crate) fn give_back() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        libc::malloc_trim(0);
    }
}

#[inline]
fn big(size: usize, align: usize) -> bool {
    cfg!(target_os = "linux") && size >= BIG && align <= PAGE
}

unsafe impl GlobalAlloc for Engine {
    #[inline]
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        #[cfg(target_os = "linux")]
        {
            if big(l.size(), l.align()) {
                return os::map(l.size());
            }
            let p = System.alloc(l);
            os::heap_grown();
            p
        }
        #[cfg(not(target_os = "linux"))]
        System.alloc(l)
    }
    #[inline]
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        #[cfg(target_os = "linux")]
        {
            if big(l.size(), l.align()) {
                return os::map(l.size()); // fresh anonymous pages are zero
            }
            let p = System.alloc_zeroed(l);
            os::heap_grown();
            p
        }
        #[cfg(not(target_os = "linux"))]
        System.alloc_zeroed(l)
    }
    #[inline]
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        #[cfg(target_os = "linux")]
        if big(l.size(), l.align()) {
            return os::unmap(p, l.size());
        }
        System.dealloc(p, l)
    }
    #[inline]
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        match (big(l.size(), l.align()), big(new, l.align())) {
            (false, false) => {
                let q = System.realloc(p, l, new);
                #[cfg(target_os = "linux")]
                os::heap_grown();
                q
            }
            #[cfg(target_os = "linux")]
            (true, true) => os::remap(p, l.size(), new),
            _ => {
                // Between the heap and a mapping of its own: move the bytes.
                let q = self.alloc(Layout::from_size_align_unchecked(new, l.align()));
                if !q.is_null() {
                    std::ptr::copy_nonoverlapping(p, q, l.size().min(new));
                    self.dealloc(p, l);
                }
                q
            }
        }
    }
}

#[cfg(test)]
mod tests {
    /// Blocks that cross `BIG` either way keep their bytes (the engine's allocator is the
    /// test binary's too).
    #[test]
    fn blocks_keep_their_bytes_across_the_big_threshold() {
        let mut v: Vec<u32> = (0..1000).collect();
        for n in [300_000, 2_000_000, 5_000] {
            v.resize(n, 7);
            v.shrink_to_fit();
            assert!(v[..1000].iter().enumerate().all(|(i, &x)| x == i as u32));
            assert!(v[1000..].iter().all(|&x| x == 7));
        }
        let z = vec![0u64; 1 << 18];
        assert!(z.iter().all(|&x| x == 0));
    }
}
