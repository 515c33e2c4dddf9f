//! The fabric as a model sees it: the nodes and their ports, the packet pool, the egress
//! queues, the switch buffer, the routes, the per-(port, priority) counters and the event
//! queue with its clock. A model's hooks get this and their own state, never the whole
//! world: what a model may touch is what it is given.
//!
//! Work that belongs to the world (a transmitter choosing its next frame, a NIC's queue
//! pairs leaving a pause) is asked for with `kick` and `unpark` and done by the world
//! right after the hook returns, in the order asked.

use crate::event::EventQueue;
use crate::ids::{FlowId, NodeId, PktId, PortId};
use crate::net::mmu::Mmu;
use crate::net::packet::{Feedback, PacketPool};
use crate::net::port::{Node, Port};
use crate::net::prio_slots::PrioSlots;
use crate::net::queue::EgressQueues;
use crate::net::routing::Routing;
use crate::net::stats::PrioCounters;
use crate::units::SimTime;

/// What a hook asks the world to do once it returns.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum After {
    /// Let the (idle) transmitter of the port pick its next frame.
    Kick(PortId),
    /// A host's queue pairs of this priority may send again (its port was unpaused).
    Unpark(NodeId, u8),
    /// A flow's receiver sent a CNP: counted against the flow.
    CnpSent(FlowId),
    /// Send a PFC frame (or PAUSE) out of the port for the class: XOFF if true, else XON.
    Pause(PortId, u8, bool),
    /// A NIC hands a frame it received on the port to its transport.
    Deliver(PortId, PktId),
    /// Re-send the XOFF of the ingress (port, class), or XON if it is back under its
    /// threshold (a PFC refresh).
    Refresh(PortId, u8),
    /// Drop every frame egress (port, priority) holds: the PFC watchdog put the queue in
    /// a storm, with the "drop" action.
    StormDrain(PortId, u8),
    /// A frame a model made in place of another (a trimmed header) takes the switch's
    /// data path again, as if it had just come in through the port.
    Receive(PortId, PktId),
    /// A frame a model took is lost (counted at its port by the model): counted against
    /// its flow if it is data, then freed.
    Drop(PktId),
    /// Feedback for a flow's reaction point (a FECN probe's rate), unless its source
    /// has stopped.
    Feedback(FlowId, Feedback),
    /// The port's link failed: its pauses end, its queues are emptied (buffer released)
    /// and what they held is lost (`FabricModel::port_down`, `lost_at_down`).
    PortDown(PortId),
}

pub struct Fabric {
    pub q: EventQueue,
    pub pool: PacketPool,
    pub nodes: Vec<Node>,
    pub ports: Vec<Port>,
    pub routing: Routing,
    pub egress: EgressQueues,
    pub mmu: Mmu,
    /// Counters per (port, priority in use), at `slots.at(port, priority)`.
    pub prio_stats: Vec<PrioCounters>,
    /// Where each (port, priority)'s state is, in the per-(port, priority) arrays of
    /// the fabric and of the models.
    pub slots: PrioSlots,
    /// Preamble, start delimiter and inter-frame gap added to each frame on the wire
    /// (0 when `host.preamble_ifg` is off).
    pub preamble: u32,
    /// What the hooks asked of the world, in order (`After`); empty between hooks.
    pub after: Vec<After>,
}

impl Fabric {
    /// The current time.
    #[inline]
    pub fn now(&self) -> SimTime {
        self.q.now()
    }

    /// Asks the world to let port `p`'s transmitter pick its next frame.
    #[inline]
    pub fn kick(&mut self, p: PortId) {
        self.after.push(After::Kick(p));
    }

    /// Whether node `n` is a host.
    #[inline]
    pub fn is_host(&self, n: NodeId) -> bool {
        self.nodes[n.idx()].is_host
    }

    /// The first port of node `n` (a host's only port).
    #[inline]
    pub fn first_port(&self, n: NodeId) -> PortId {
        PortId(self.nodes[n.idx()].ports.start)
    }

    /// Opens port `p`'s transmitter for priority `prio` again (a pause ended), adding the
    /// paused time to its counter; returns whether it was paused. A host's queue pairs of
    /// that priority are unparked after the hook (`After::Unpark`).
    pub fn unpause(&mut self, p: PortId, prio: u8) -> bool {
        let now = self.now();
        let port = &mut self.ports[p.idx()];
        if port.paused & (1 << prio) == 0 {
            return false;
        }
        port.paused &= !(1 << prio);
        let since = port.paused_since[prio as usize];
        self.prio_stats[self.slots.at(p.idx(), prio)].paused_ps += (now - since).0;
        let node = port.node;
        if self.nodes[node.idx()].is_host {
            self.after.push(After::Unpark(node, prio));
        }
        true
    }
}
