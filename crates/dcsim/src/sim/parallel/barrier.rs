//! The barrier between the partitions' rounds. A round is one lookahead of simulated time
//! (a microsecond on most fabrics), often only microseconds of work, so a partition that
//! finishes first spins for a while before it sleeps: std's `Barrier` puts every waiter
//! to sleep in the kernel and wakes it with a futex call, tens of microseconds per round
//! on a virtual machine, more than the round itself on a small fabric. A waiter sleeps
//! after `SPIN` without the round ending (an unbalanced round), and at once when there are
//! more threads than cores: a spinning waiter would then hold the core that the last
//! partition of the round needs.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// How long a waiter spins before it sleeps.
const SPIN: Duration = Duration::from_micros(50);

pub(super) struct SpinBarrier {
    n: usize,
    spin: Duration,
    arrived: AtomicUsize,
    /// Rounds completed: a waiter leaves when it moves on.
    generation: AtomicUsize,
    /// Waiters asleep, and their wake-up.
    sleepers: Mutex<usize>,
    wake: Condvar,
}

impl SpinBarrier {
    pub fn new(n: usize) -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
        let spin = if n <= cores { SPIN } else { Duration::ZERO };
        SpinBarrier {
            n,
            spin,
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            sleepers: Mutex::new(0),
            wake: Condvar::new(),
        }
    }

    /// Returns once all `n` threads have called it. What a thread wrote before it is
    /// visible to every thread after it (the last arrival's read of `arrived` acquires
    /// every earlier arrival's write, and `generation` passes that on).
    pub fn wait(&self) {
        let gen = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            // Reset before the release: a thread that sees the new generation may arrive
            // at the next round at once.
            self.arrived.store(0, Ordering::Relaxed);
            // Under the lock, so that a waiter cannot check the generation and then sleep
            // through its change.
            let sleepers = self.sleepers.lock().unwrap();
            self.generation.store(gen.wrapping_add(1), Ordering::Release);
            if *sleepers > 0 {
                self.wake.notify_all();
            }
            return;
        }
        let start = Instant::now();
        let mut k = 0u32;
        while self.generation.load(Ordering::Acquire) == gen {
            std::hint::spin_loop();
            k = k.wrapping_add(1);
            if k.is_multiple_of(64) && start.elapsed() >= self.spin {
                let mut sleepers = self.sleepers.lock().unwrap();
                *sleepers += 1;
                while self.generation.load(Ordering::Acquire) == gen {
                    sleepers = self.wake.wait(sleepers).unwrap();
                }
                *sleepers -= 1;
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    /// Every thread sees every other thread's writes of a round after the barrier, over
    /// many rounds, with more threads than this machine may have cores (waiters sleep).
    #[test]
    fn rounds_see_each_others_writes() {
        let n = 4;
        let barrier = SpinBarrier::new(n);
        let slots: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
        std::thread::scope(|s| {
            for me in 0..n {
                let (barrier, slots) = (&barrier, &slots);
                s.spawn(move || {
                    for round in 1..=2000u64 {
                        slots[me].store(round, Ordering::Relaxed);
                        barrier.wait();
                        for (j, x) in slots.iter().enumerate() {
                            assert_eq!(x.load(Ordering::Relaxed), round, "thread {me} round {round}: slot {j}");
                        }
                        barrier.wait();
                    }
                });
            }
        });
    }
}
