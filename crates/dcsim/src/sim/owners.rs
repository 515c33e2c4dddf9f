//! Which node each event belongs to: the one whose state it changes. A frame's arrival
//! and a transmitter's events belong to the port's node, a queue pair's timers to its
//! source host, a receiver's to its destination host. The parallel engine's partitions
//! keep their own nodes' events, and rounds served node by node (`event/rounds.rs`)
//! group each round's events by it.

use crate::event::Event;
use crate::ids::NodeId;

/// The node of every event-naming index, flat.
#[derive(Default)]
pub(crate) struct Owners {
    /// Per port.
    port: Vec<u32>,
    /// Per flow: source and destination host.
    src: Vec<u32>,
    dst: Vec<u32>,
    /// Per rate-schedule step, pause storm, NIC receive buffer and receive-rate change.
    rate_step: Vec<u32>,
    storm: Vec<u32>,
    rx_nic: Vec<u32>,
    rx_change: Vec<u32>,
}

impl Owners {
    /// Built from the world's tables once they are final.
    pub(crate) fn new(sim: &super::Simulation) -> Self {
        let port = sim.ports.iter().map(|p| p.node.0).collect::<Vec<_>>();
        let of_port = |p: crate::ids::PortId| port[p.idx()];
        Owners {
            src: sim.flows.iter().map(|h| h.src.0).collect(),
            dst: sim.flows.iter().map(|h| h.dst.0).collect(),
            rate_step: sim.rate_schedule.iter().map(|&(p, _)| of_port(p)).collect(),
            storm: sim.pause_storms.storms.iter().map(|s| of_port(s.port)).collect(),
            rx_nic: sim.rx.nics.iter().map(|n| of_port(n.port)).collect(),
            rx_change: sim.rx.changes.iter().map(|c| of_port(sim.rx.nics[c.0 as usize].port)).collect(),
            port,
        }
    }

    /// The node event `ev` belongs to. Global events (FECN's rate updates, link failure
    /// steps, InfiniBand's credit updates) belong to none: runs with them are served in
    /// time order on one thread, and never ask.
    #[inline]
    pub(crate) fn of(&self, ev: &Event) -> NodeId {
        NodeId(match *ev {
            Event::TxDone(p) | Event::Arrive(p, _) | Event::PauseExpire(p, ..) | Event::PfcRefresh(p, ..) | Event::Forward(p, _) => self.port[p.idx()],
            Event::QpWake(f) | Event::FlowStart(f) | Event::FlowStop(f) | Event::Rto(f, _) | Event::CcTimer(f, ..) | Event::SwBurst(f) => self.src[f.idx()],
            Event::CnpDeferred(f) | Event::DelAck(f, _) => self.dst[f.idx()],
            Event::PortRate(k) => self.rate_step[k as usize],
            Event::PauseStorm(k) => self.storm[k as usize],
            Event::RxDone(k) => self.rx_nic[k as usize],
            Event::RxRate(k) => self.rx_change[k as usize],
            Event::FecnTick | Event::Link(_) | Event::IbTick => unreachable!("{ev:?} belongs to no node"),
        })
    }
}
