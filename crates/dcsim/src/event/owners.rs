//! Which node each event belongs to: the one whose state it changes. A frame's arrival
//! and a transmitter's events belong to the port's node, a queue pair's timers to its
//! source host, a receiver's to its destination host. The parallel engine's partitions
//! keep their own nodes' events, and rounds served node by node (`rounds.rs`) keep each
//! node's events apart.

use super::Event;

/// The node of every event-naming index, flat.
#[derive(Clone, Default)]
pub struct Owners {
    nodes: usize,
    /// Per port.
    port: Vec<u32>,
    /// Per flow: source and destination host.
    src: Vec<u32>,
    dst: Vec<u32>,
    /// Per rate-schedule step, pause storm, NIC receive buffer and receive-rate change:
    /// the port each acts on.
    rate_step: Vec<u32>,
    storm: Vec<u32>,
    rx_nic: Vec<u32>,
    rx_change: Vec<u32>,
    /// Per rank of a job: its host.
    rank: Vec<u32>,
}

/// The ports and flows of a world, as `Owners::new` reads them.
pub struct OwnerTables {
    pub nodes: usize,
    /// The node of each port.
    pub port_node: Vec<u32>,
    /// The source and destination host of each flow.
    pub flow_src: Vec<u32>,
    pub flow_dst: Vec<u32>,
    /// The port each rate-schedule step, pause storm, NIC receive buffer and receive-rate
    /// change acts on.
    pub rate_step_port: Vec<u32>,
    pub storm_port: Vec<u32>,
    pub rx_nic_port: Vec<u32>,
    pub rx_change_port: Vec<u32>,
    /// The host of each job rank.
    pub rank_node: Vec<u32>,
}

impl Owners {
    pub fn new(t: OwnerTables) -> Self {
        let node = |ports: Vec<u32>| ports.into_iter().map(|p| t.port_node[p as usize]).collect();
        Owners {
            nodes: t.nodes,
            rate_step: node(t.rate_step_port),
            storm: node(t.storm_port),
            rx_nic: node(t.rx_nic_port),
            rx_change: node(t.rx_change_port),
            rank: t.rank_node,
            src: t.flow_src,
            dst: t.flow_dst,
            port: t.port_node,
        }
    }

    /// How many nodes the world has.
    pub fn nodes(&self) -> usize {
        self.nodes
    }

    /// The node event `ev` belongs to. Global events (FECN's rate updates, link failure
    /// steps, InfiniBand's credit updates) belong to none: runs with them are served in
    /// time order on one thread, and never ask.
    #[inline(always)]
    pub fn of(&self, ev: &Event) -> u32 {
        match *ev {
            Event::TxDone(p) | Event::Arrive(p, _) | Event::PauseExpire(p, ..) | Event::PfcRefresh(p, ..) | Event::Forward(p, _) => {
                self.port[p.idx()]
            }
            Event::QpWake(f) | Event::FlowStart(f) | Event::FlowStop(f) | Event::Rto(f, _) | Event::CcTimer(f, ..) | Event::SwBurst(f) => {
                self.src[f.idx()]
            }
            Event::CnpDeferred(f) | Event::CnpOut(f) | Event::DelAck(f, _) => self.dst[f.idx()],
            Event::PortRate(k) => self.rate_step[k as usize],
            Event::PauseStorm(k) => self.storm[k as usize],
            Event::RxDone(k) => self.rx_nic[k as usize],
            Event::RxRate(k) => self.rx_change[k as usize],
            Event::Rank(k) => self.rank[k as usize],
            Event::Credit(n) => n,
            Event::FecnTick | Event::Link(_) | Event::IbTick | Event::FastForward => unreachable!("{ev:?} belongs to no node"),
        }
    }
}
