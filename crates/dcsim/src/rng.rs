//! Seeded randomness. Every draw the model makes during a run is derived from (seed,
//! stream name, component, event): either statelessly (`keyed`: the same inputs always
//! give the same number) or from a generator that belongs to one component
//! (`Rng::for_component`). No generator is shared between components, so the numbers a
//! component sees do not depend on the order in which other components run: a
//! partitioned or parallel engine draws the same numbers. Building a scenario (traffic
//! generators) uses named streams (`Rng::stream`).

#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

/// SplitMix64 step: also a good 64-bit mixing function for hashes.
#[inline]
pub fn splitmix64(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Stateless 64-bit mix (finaliser of SplitMix64).
#[inline]
pub fn mix64(mut x: u64) -> u64 {
    splitmix64(&mut x)
}

/// FNV-1a, 64 bit: stream names and scenario hashes.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The key of stream `name` of the run seeded with `seed`, for `keyed` draws.
pub fn stream_key(seed: u64, name: &str) -> u64 {
    mix64(seed ^ fnv1a64(name.as_bytes()))
}

/// A pseudo-random u64 determined by a stream key and the parts that name a component
/// and an event (e.g. port, priority, flow, sequence number, time).
#[inline]
pub fn keyed(key: u64, parts: &[u64]) -> u64 {
    let mut h = key;
    for &p in parts {
        h = mix64(h ^ p);
    }
    h
}

/// Uniform in [0, 1) from 64 random bits.
#[inline]
pub fn unit(x: u64) -> f64 {
    (x >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

impl Rng {
    /// The generator of one component (e.g. a congestion point) in stream `name`.
    pub fn for_component(seed: u64, name: &str, component: u64) -> Rng {
        let mut x = keyed(stream_key(seed, name), &[component]);
        Rng { s: [splitmix64(&mut x), splitmix64(&mut x), splitmix64(&mut x), splitmix64(&mut x)] }
    }

    /// The stream `name` of the run seeded with `seed`.
    pub fn stream(seed: u64, name: &str) -> Rng {
        let mut x = seed ^ fnv1a64(name.as_bytes());
        Rng { s: [splitmix64(&mut x), splitmix64(&mut x), splitmix64(&mut x), splitmix64(&mut x)] }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let r = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        r
    }

    /// Uniform in [0, 1).
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        unit(self.next_u64())
    }

    /// Uniform integer in [0, n), n > 0 (multiply-shift; the bias is below 2^-64 * n).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Exponentially distributed value with the given mean.
    pub fn exp(&mut self, mean: f64) -> f64 {
        // 1 - u is in (0, 1], so the logarithm is finite.
        -mean * (1.0 - self.next_f64()).ln()
    }

    /// Fisher-Yates shuffle.
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            v.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn streams_are_deterministic_and_independent() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::stream(7, "ecmp");
                move |_| r.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::stream(7, "ecmp");
                move |_| r.next_u64()
            })
            .collect();
        let c: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::stream(7, "ties");
                move |_| r.next_u64()
            })
            .collect();
        let d: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::stream(8, "ecmp");
                move |_| r.next_u64()
            })
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, d);
    }
}
