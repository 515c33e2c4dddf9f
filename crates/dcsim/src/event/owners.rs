//! Which node each event belongs to: the one whose state it changes. A frame's arrival
//! and a transmitter's events belong to the port's node, a queue pair's timers to its
//! source host, a receiver's to its destination host. The parallel engine's partitions
//! keep their own nodes' events, and rounds served node by node (`rounds.rs`) keep each
//! node's events apart.

use super::{Event, ModelEvent};

/// Whose state a fabric model's event (`Event::Model`) changes, as the model states it
/// per kind of event (`FabricModel::EVENTS`): the node of the port or of the flow's end
/// its first field names, the node of the port a list of the model's gives for the index
/// it holds (`Listed`), or none (a global event: runs with it are served in time order
/// on one thread).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Subject {
    None,
    Port,
    FlowSrc,
    FlowDst,
    Listed,
}

/// The node of every event-naming index, flat.
#[derive(Clone, Default)]
pub struct Owners {
    nodes: usize,
    /// Per port.
    port: Vec<u32>,
    /// Per flow: source and destination host.
    src: Vec<u32>,
    dst: Vec<u32>,
    /// Per rate-schedule step: the port it acts on.
    rate_step: Vec<u32>,
    /// Per rank of a job: its host.
    rank: Vec<u32>,
    /// Per kind of model event: whose it is, and for `Subject::Listed` the node of each
    /// index.
    model: Vec<(Subject, Vec<u32>)>,
}

/// The ports and flows of a world, as `Owners::new` reads them.
pub struct OwnerTables {
    pub nodes: usize,
    /// The node of each port.
    pub port_node: Vec<u32>,
    /// The source and destination host of each flow.
    pub flow_src: Vec<u32>,
    pub flow_dst: Vec<u32>,
    /// The port each rate-schedule step acts on.
    pub rate_step_port: Vec<u32>,
    /// The host of each job rank.
    pub rank_node: Vec<u32>,
    /// The fabric models' kinds of event: (kind, whose, for `Subject::Listed` the port
    /// of each index).
    pub model_events: Vec<(u8, Subject, Vec<u32>)>,
}

impl Owners {
    pub fn new(t: OwnerTables) -> Self {
        let node = |ports: Vec<u32>| ports.into_iter().map(|p| t.port_node[p as usize]).collect::<Vec<u32>>();
        let mut model = vec![(Subject::None, Vec::new()); 256];
        for (kind, subject, ports) in t.model_events {
            model[kind as usize] = (subject, node(ports));
        }
        Owners {
            model,
            nodes: t.nodes,
            rate_step: node(t.rate_step_port),
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
            Event::TxDone(p) | Event::Arrive(p, _) | Event::Forward(p, _) => self.port[p.idx()],
            Event::QpWake(f) | Event::FlowStart(f) | Event::FlowStop(f) | Event::Rto(f, _) | Event::CcTimer(f, ..) | Event::SwBurst(f) => {
                self.src[f.idx()]
            }
            Event::DelAck(f, _) => self.dst[f.idx()],
            Event::PortRate(k) => self.rate_step[k as usize],
            Event::Rank(k) => self.rank[k as usize],
            Event::Credit(n) => n,
            Event::Model(m) => self.of_model(m),
            Event::FastForward => unreachable!("{ev:?} belongs to no node"),
        }
    }

    #[inline]
    fn of_model(&self, m: ModelEvent) -> u32 {
        let (subject, listed) = &self.model[m.kind as usize];
        match subject {
            Subject::Port => self.port[m.a() as usize],
            Subject::FlowSrc => self.src[m.a() as usize],
            Subject::FlowDst => self.dst[m.a() as usize],
            Subject::Listed => listed[m.a() as usize],
            Subject::None => unreachable!("{m:?} belongs to no node"),
        }
    }
}
