//! Switch buffer management (MMU): ingress accounting per (port, class), admission with
//! drops counted by reason, and the XOFF/XON conditions of PFC.
//!
//! Two models (../shared/models/pfc.md):
//! - static: each ingress port owns `port_buffer` bytes; a lossless class pauses at
//!   `xoff` and resumes at `xon`, and may exceed `xoff` by its headroom;
//! - shared: the HPCC simulator's MMU (pfc.md 1.4): per-(port, class) reserve, per-port
//!   headroom, and a shared pool with dynamic threshold alpha x free space.
//!
//! A "class" is the priority under PFC and 0 for every priority under 802.3x PAUSE.
//!
//! With a cell size (`switch.cell`), every charge is the frame rounded up to whole cells,
//! as a switch that stores frames in fixed cells uses its buffer; thresholds stay in
//! bytes (a threshold written in cells is converted when the scenario is read).

use crate::ids::PortId;
use crate::net::prio_slots::PrioSlots;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum DropReason {
    /// Static model: the ingress port's buffer is full.
    BufferFull = 0,
    /// A lossless class used up its headroom (headroom too small for the link).
    HeadroomExceeded = 1,
    /// Shared model: a lossy class reached the dynamic threshold.
    SharedThreshold = 2,
    /// The egress queue reached its configured drop-tail limit.
    EgressFull = 3,
}

pub const DROP_REASONS: [&str; 4] = ["buffer_full", "headroom_exceeded", "shared_threshold", "egress_full"];

#[derive(Clone, Debug)]
pub enum Model {
    Static { port_buffer: u64 },
    Shared { reserve: u64 },
}

pub struct Mmu {
    model: Model,
    resume_offset: u64,
    /// Cell size in bytes (0: byte accounting), and per port the frame bytes (not
    /// rounded) charged, so that the run check can compare them with the queues.
    cell: u64,
    frame_bytes: Vec<u64>,
    /// Per port: all bytes charged to the port (static model).
    port_bytes: Vec<u64>,
    /// Per switch: buffer size, the part set aside for reserves and headroom, and the
    /// shared bytes in use.
    pools: Vec<Pool>,
    /// Per (port, class in use): the charges and what a frame's admission or release
    /// reads with them.
    charge: Vec<Charge>,
    slots: PrioSlots,
}

#[derive(Copy, Clone, Default, Debug)]
struct Pool {
    total: u64,
    fixed: u64,
    shared_used: u64,
}

/// One ingress (port, class): everything a frame's admission or release reads or writes,
/// in one cache line. The port's settings are copied into each of its classes so that a
/// frame does not touch a second line for them, and the watermarks (peak charge, lowest
/// charge once paused) and the PFC state of the ingress live here, as a switch's MMU
/// keeps them, rather than in counters elsewhere.
#[derive(Copy, Clone, Debug)]
#[repr(C, align(64))]
struct Charge {
    /// Bytes counted in reserve + shared, and in headroom.
    ingress: u64,
    hdrm: u64,
    /// Largest charge seen (reserve + shared + headroom).
    peak: u64,
    /// Smallest charge seen after the first XOFF (u64::MAX before).
    low_after_xoff: u64,
    headroom: u64,
    xoff: u64,
    xon: u64,
    /// The switch (`u32::MAX`: a host port, never charged) and its alpha as a shift.
    switch: u32,
    shift: u8,
    /// XOFF sent upstream and not yet resumed; an XOFF sent at some point.
    xoff_sent: bool,
    ever_xoff: bool,
}
const _: () = assert!(std::mem::size_of::<Charge>() == 64);

/// Per-port settings the world computes (headroom from the link, alpha from the rate).
#[derive(Copy, Clone, Debug, Default)]
pub struct PortBuffer {
    pub switch: u32,
    pub headroom: u64,
    pub xoff: u64,
    pub xon: u64,
    pub shift: u8,
}

impl Mmu {
    /// `ports[p]` is `None` for host ports. `switch_total[s]` is the shared buffer of
    /// switch s (shared model).
    /// Every class has its charges (unit tests).
    pub fn new(model: Model, resume_offset: u64, ports: &[Option<PortBuffer>], switch_total: &[u64], lossless_classes: u64) -> Self {
        Self::with_cells(model, resume_offset, ports, switch_total, lossless_classes, 0, PrioSlots::all())
    }

    /// `new` with every charge rounded up to cells of `cell` bytes (0: bytes), and
    /// charges for the classes of `slots` only.
    pub fn with_cells(
        model: Model,
        resume_offset: u64,
        ports: &[Option<PortBuffer>],
        switch_total: &[u64],
        lossless_classes: u64,
        cell: u64,
        slots: PrioSlots,
    ) -> Self {
        let mut pools: Vec<Pool> = switch_total.iter().map(|&total| Pool { total, ..Default::default() }).collect();
        if let Model::Shared { reserve } = model {
            for pb in ports.iter().flatten() {
                pools[pb.switch as usize].fixed += reserve + pb.headroom * lossless_classes;
            }
        }
        let charge = ports
            .iter()
            .flat_map(|p| {
                let c = p.unwrap_or(PortBuffer { switch: u32::MAX, ..Default::default() });
                let ch = Charge {
                    ingress: 0,
                    hdrm: 0,
                    peak: 0,
                    low_after_xoff: u64::MAX,
                    headroom: c.headroom,
                    xoff: c.xoff,
                    xon: c.xon,
                    switch: c.switch,
                    shift: c.shift,
                    xoff_sent: false,
                    ever_xoff: false,
                };
                std::iter::repeat_n(ch, slots.per_port())
            })
            .collect();
        let frame_bytes = if cell != 0 { vec![0; ports.len()] } else { Vec::new() };
        Mmu { model, resume_offset, cell, frame_bytes, port_bytes: vec![0; ports.len()], pools, charge, slots }
    }

    /// A parallel run's merge: port `p`'s charges, and its switch's pool, as `other`
    /// (the partition that ran the switch) has them.
    pub fn adopt_port(&mut self, other: &Mmu, p: usize) {
        self.port_bytes[p] = other.port_bytes[p];
        if self.cell != 0 {
            self.frame_bytes[p] = other.frame_bytes[p];
        }
        let r = self.slots.of_port(p);
        self.charge[r.clone()].copy_from_slice(&other.charge[r.clone()]);
        let sw = self.charge[r.start].switch;
        if sw != u32::MAX {
            self.pools[sw as usize] = other.pools[sw as usize];
        }
    }

    /// Free shared space times alpha for ingress `port` (pfc.md: PfcThreshold).
    #[inline]
    fn threshold(&self, i: usize) -> u64 {
        let c = &self.charge[i];
        let pool = &self.pools[c.switch as usize];
        pool.total.saturating_sub(pool.fixed + pool.shared_used) >> c.shift
    }

    #[inline]
    fn shared_used(&self, i: usize, reserve: u64) -> u64 {
        self.charge[i].ingress.saturating_sub(reserve)
    }

    /// Charges a frame of `size` bytes arriving on (port, class), or says why it drops.
    /// `lossless`: the class is paused by PFC/PAUSE, so it may use headroom.
    #[inline]
    pub fn admit(&mut self, port: PortId, class: u8, size: u64, lossless: bool) -> Result<(), DropReason> {
        let p = port.idx();
        let i = self.slots.at(p, class);
        let frame = size;
        let size = self.charge_of(size);
        match self.model {
            Model::Static { port_buffer } => {
                let c = &self.charge[i];
                if lossless && c.ingress + size > c.xoff + c.headroom {
                    return Err(DropReason::HeadroomExceeded);
                }
                if self.port_bytes[p] + size > port_buffer {
                    return Err(DropReason::BufferFull);
                }
                self.charge[i].ingress += size;
                self.port_bytes[p] += size;
            }
            Model::Shared { reserve } => {
                let thr = self.threshold(i);
                let over_shared = size + self.shared_used(i, reserve) > thr;
                let c = &self.charge[i];
                if over_shared && (!lossless || size + c.hdrm > c.headroom) {
                    return Err(if lossless { DropReason::HeadroomExceeded } else { DropReason::SharedThreshold });
                }
                let s = c.switch as usize;
                let ch = &mut self.charge[i];
                let nb = ch.ingress + size;
                if nb <= reserve {
                    ch.ingress = nb;
                } else if nb - reserve > thr {
                    ch.hdrm += size;
                } else {
                    ch.ingress = nb;
                    self.pools[s].shared_used += size.min(nb - reserve);
                }
            }
        }
        let ch = &mut self.charge[i];
        ch.peak = ch.peak.max(ch.ingress + ch.hdrm);
        if self.cell != 0 {
            self.frame_bytes[p] = self.frame_bytes[p].wrapping_add(frame);
        }
        Ok(())
    }

    /// What a frame of `size` bytes takes of the buffer: itself, or whole cells.
    #[inline(always)]
    pub fn charge_of(&self, size: u64) -> u64 {
        if self.cell == 0 {
            size
        } else {
            size.div_ceil(self.cell) * self.cell
        }
    }

    /// Bytes charged in all (the sum over (port, class) of ingress and headroom
    /// charges, wrapping; in cells, the frame bytes behind them), and what is wrong with the counters: a value that wrapped
    /// below zero, a static port total that differs from its classes' charges, a shared
    /// pool using more than it has.
    pub fn audit(&self) -> (u64, Vec<String>) {
        const HALF: u64 = 1 << 63;
        let mut bad = Vec::new();
        let mut total = 0u64;
        for (i, c) in self.charge.iter().enumerate() {
            if c.ingress >= HALF || c.hdrm >= HALF {
                let (p, class) = self.slots.port_prio(i);
                bad.push(format!("MMU charge of port {p} class {class} is negative"));
            }
            total = total.wrapping_add(c.ingress).wrapping_add(c.hdrm);
        }
        if self.cell != 0 {
            // In cells: every charge whole cells, at least the frames' bytes; the frame
            // bytes are what the queues must hold.
            let frames = self.frame_bytes.iter().fold(0u64, |a, &b| a.wrapping_add(b));
            if !total.is_multiple_of(self.cell) || total < frames {
                bad.push(format!("MMU charges {total} B in cells of {} B for {frames} B of frames", self.cell));
            }
            total = frames;
        }
        if let Model::Static { .. } = self.model {
            for (p, &b) in self.port_bytes.iter().enumerate() {
                let classes = self.charge[self.slots.of_port(p)].iter().fold(0u64, |a, c| a.wrapping_add(c.ingress));
                if b >= HALF || b != classes {
                    bad.push(format!("MMU port {p}: {} B charged to the port, {} B to its classes", b as i64, classes as i64));
                }
            }
        }
        for (s, pool) in self.pools.iter().enumerate() {
            if pool.shared_used >= HALF || pool.shared_used > pool.total {
                bad.push(format!("MMU shared pool of switch {s} uses {} B of {} B", pool.shared_used as i64, pool.total));
            }
        }
        (total, bad)
    }

    /// Releases a frame charged to (port, class) when it starts leaving the switch.
    #[inline]
    pub fn release(&mut self, port: PortId, class: u8, size: u64) {
        let p = port.idx();
        let i = self.slots.at(p, class);
        if self.cell != 0 {
            self.frame_bytes[p] = self.frame_bytes[p].wrapping_sub(size);
        }
        let size = self.charge_of(size);
        match self.model {
            Model::Static { .. } => {
                self.charge[i].ingress -= size;
                self.port_bytes[p] -= size;
            }
            Model::Shared { reserve } => {
                let ch = &mut self.charge[i];
                let from_h = ch.hdrm.min(size);
                let from_s = (size - from_h).min(ch.ingress.saturating_sub(reserve));
                ch.hdrm -= from_h;
                ch.ingress -= size - from_h;
                self.pools[ch.switch as usize].shared_used -= from_s;
            }
        }
        let ch = &mut self.charge[i];
        if ch.ever_xoff {
            ch.low_after_xoff = ch.low_after_xoff.min(ch.ingress + ch.hdrm);
        }
    }

    /// The XOFF condition of (port, class), checked after an admitted arrival.
    #[inline]
    pub fn over_xoff(&self, port: PortId, class: u8) -> bool {
        let p = port.idx();
        let i = self.slots.at(p, class);
        match self.model {
            Model::Static { .. } => self.charge[i].ingress >= self.charge[i].xoff,
            Model::Shared { reserve } => self.charge[i].hdrm > 0 || self.shared_used(i, reserve) >= self.threshold(i),
        }
    }

    /// The XON condition of (port, class), checked after a departure.
    #[inline]
    pub fn under_xon(&self, port: PortId, class: u8) -> bool {
        let p = port.idx();
        let i = self.slots.at(p, class);
        match self.model {
            Model::Static { .. } => self.charge[i].ingress <= self.charge[i].xon,
            Model::Shared { reserve } => {
                let su = self.shared_used(i, reserve);
                self.charge[i].hdrm == 0 && (su == 0 || su + self.resume_offset <= self.threshold(i))
            }
        }
    }

    /// Bytes charged to (port, class): reserve + shared + headroom.
    #[inline]
    pub fn occupancy(&self, port: PortId, class: u8) -> u64 {
        let c = self.at(port, class);
        c.ingress + c.hdrm
    }

    #[inline(always)]
    fn at(&self, port: PortId, class: u8) -> &Charge {
        &self.charge[self.slots.at(port.idx(), class)]
    }

    /// Largest charge of (port, class) so far, and its smallest after the first XOFF
    /// (u64::MAX: none yet).
    pub fn peak(&self, port: PortId, class: u8) -> u64 {
        self.at(port, class).peak
    }
    pub fn low_after_xoff(&self, port: PortId, class: u8) -> u64 {
        self.at(port, class).low_after_xoff
    }

    /// Whether an XOFF sent for (port, class) has not been resumed yet.
    #[inline]
    pub fn xoff_sent(&self, port: PortId, class: u8) -> bool {
        self.at(port, class).xoff_sent
    }

    /// Records an XOFF (true) or XON sent for (port, class).
    pub fn set_xoff_sent(&mut self, port: PortId, class: u8, xoff: bool) {
        let c = &mut self.charge[self.slots.at(port.idx(), class)];
        c.xoff_sent = xoff;
        c.ever_xoff |= xoff;
    }

    pub fn headroom(&self, port: PortId) -> u64 {
        self.charge[self.slots.of_port(port.idx()).start].headroom
    }
    pub fn xoff(&self, port: PortId) -> u64 {
        self.charge[self.slots.of_port(port.idx()).start].xoff
    }
    pub fn xon(&self, port: PortId) -> u64 {
        self.charge[self.slots.of_port(port.idx()).start].xon
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_port(model: Model, headroom: u64, xoff: u64, xon: u64) -> Mmu {
        let pb = PortBuffer { switch: 0, headroom, xoff, xon, shift: 3 };
        Mmu::new(model, 3 * 1024, &[Some(pb)], &[1 << 20], 1)
    }

    #[test]
    fn a_frame_takes_whole_cells() {
        let pb = PortBuffer { switch: 0, headroom: 0, xoff: 10_000, xon: 5_000, shift: 3 };
        for model in [Model::Static { port_buffer: 1 << 20 }, Model::Shared { reserve: 0 }] {
            let mut m = Mmu::with_cells(model, 0, &[Some(pb)], &[1 << 20], 1, 208, PrioSlots::all());
            m.admit(PortId(0), 3, 65, true).unwrap();
            assert_eq!(m.occupancy(PortId(0), 3), 208);
            m.admit(PortId(0), 3, 209, true).unwrap();
            assert_eq!(m.occupancy(PortId(0), 3), 208 + 416);
            // The audit sees the frames' bytes behind the cells.
            assert_eq!(m.audit(), (65 + 209, vec![]));
            m.release(PortId(0), 3, 65);
            m.release(PortId(0), 3, 209);
            assert_eq!(m.occupancy(PortId(0), 3), 0);
            assert_eq!(m.audit(), (0, vec![]));
        }
    }

    #[test]
    fn static_hysteresis_and_headroom() {
        let mut m = one_port(Model::Static { port_buffer: 100_000 }, 20_000, 60_000, 50_000);
        let p = PortId(0);
        for _ in 0..59 {
            m.admit(p, 3, 1000, true).unwrap();
        }
        assert!(!m.over_xoff(p, 3));
        m.admit(p, 3, 1000, true).unwrap();
        assert!(m.over_xoff(p, 3));
        // Headroom absorbs up to xoff + headroom, then the class drops.
        for _ in 0..20 {
            m.admit(p, 3, 1000, true).unwrap();
        }
        assert_eq!(m.admit(p, 3, 1000, true), Err(DropReason::HeadroomExceeded));
        // XON only once back at the low watermark.
        for _ in 0..29 {
            m.release(p, 3, 1000);
        }
        assert!(!m.under_xon(p, 3));
        m.release(p, 3, 1000);
        assert!(m.under_xon(p, 3));
    }

    #[test]
    fn static_lossy_drops_when_port_full() {
        let mut m = one_port(Model::Static { port_buffer: 10_000 }, 0, 0, 0);
        for _ in 0..10 {
            m.admit(PortId(0), 0, 1000, false).unwrap();
        }
        assert_eq!(m.admit(PortId(0), 0, 1000, false), Err(DropReason::BufferFull));
    }

    #[test]
    fn shared_dynamic_threshold() {
        // 1 MiB buffer, one port, reserve 4 KiB, headroom 10 KB, alpha 1/8.
        let mut m = one_port(Model::Shared { reserve: 4096 }, 10_000, 0, 0);
        let p = PortId(0);
        let free0 = (1u64 << 20) - 4096 - 10_000;
        // Threshold T = (free0 - used)/8; XOFF when used >= T, i.e. used >= free0/9.
        let mut used = 0;
        while !m.over_xoff(p, 3) {
            m.admit(p, 3, 1000, true).unwrap();
            used += 1000;
        }
        let shared = used - 4096;
        assert!(shared as f64 >= free0 as f64 / 9.0 - 1000.0 && (shared as f64) <= free0 as f64 / 9.0 + 1000.0, "{shared}");
        // Headroom takes the rest, then drops.
        let mut h = 0;
        while m.admit(p, 3, 1000, true).is_ok() {
            h += 1000;
        }
        assert!((9_000..=10_000).contains(&h), "{h}");
        // Draining everything releases the pool and allows XON.
        let total = m.occupancy(p, 3);
        for _ in 0..total / 1000 {
            m.release(p, 3, 1000);
        }
        assert!(m.under_xon(p, 3));
        assert_eq!(m.occupancy(p, 3), total % 1000);
    }
}
