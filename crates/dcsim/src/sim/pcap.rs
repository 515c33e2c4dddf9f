//! `[stats.pcap]`: frames as they start transmission on the selected ports, written as
//! a pcap file (headers from `net::pcap`). Off unless configured: one `Option` test per
//! transmitted frame.

use super::Simulation;
use crate::error::{Error, Result};
use crate::ids::{PktId, PortId};
use crate::net::pcap::{encode, FrameCtx, PcapWriter, Wire, MAX_HDR};
use crate::plan::{PcapPlan, Plan, Transport};
use crate::units::SimTime;
use std::fs::File;

pub(crate) struct Capture {
    w: PcapWriter<File>,
    file: String,
    start: SimTime,
    end: SimTime,
    /// Per port: captured (empty: all ports).
    ports: Vec<bool>,
    /// Per flow: captured (empty: all flows; flowless PFC frames are always captured).
    flows: Vec<bool>,
    limit: u64,
    /// Frames selected (window, ports, flows) but not written: the limit was reached.
    pub(crate) not_written: u64,
    /// Per flow: the encoding above IP.
    wire: Vec<Wire>,
    mtu: u32,
    /// The first write error (reported when the run finishes).
    pub(crate) error: Option<String>,
}

/// Opens the file and turns the port and flow filters of `pc` (checked by validation)
/// into per-port and per-flow flags. `first_port[node]`: the node's first port id (the
/// last entry is the port count).
pub(super) fn build(plan: &Plan, pc: &PcapPlan, first_port: &[u32]) -> Result<Capture> {
    let mut ports = Vec::new();
    if !pc.ports.is_empty() {
        ports = vec![false; *first_port.last().unwrap_or(&0) as usize];
        for (node, idx) in pc.ports_at(plan).expect("validated plan: pcap ports exist") {
            ports[(first_port[node as usize] + idx) as usize] = true;
        }
    }
    let mut flows = Vec::new();
    if !pc.flows.is_empty() {
        flows = vec![false; plan.flows.len()];
        for &f in &pc.flows {
            flows[f as usize] = true;
        }
    }
    let wire = plan
        .flows
        .iter()
        .map(|f| match f.transport {
            Transport::Roce | Transport::Uet => Wire::Roce,
            Transport::Tcp => Wire::Tcp,
            Transport::Udp => Wire::Udp,
        })
        .collect();
    let f = File::create(&pc.file).map_err(|e| Error::scenario("stats.pcap.file", format!("cannot create '{}': {e}", pc.file)))?;
    let w = PcapWriter::new(f).map_err(|e| Error::scenario("stats.pcap.file", format!("cannot write '{}': {e}", pc.file)))?;
    Ok(Capture {
        w,
        file: pc.file.clone(),
        start: pc.start,
        end: pc.end,
        ports,
        flows,
        limit: pc.limit,
        not_written: 0,
        wire,
        mtu: plan.host.mtu,
        error: None,
    })
}

impl Capture {
    /// Flushes the buffer; the message of the first write error, if any.
    pub(crate) fn finish(&mut self) -> Option<String> {
        if self.error.is_none() {
            if let Err(e) = self.w.flush() {
                self.error = Some(format!("stats.pcap.file: cannot write '{}': {e}", self.file));
            }
        }
        self.error.clone()
    }
    pub(crate) fn frames(&self) -> u64 {
        self.w.written
    }
    /// The summary's `pcap` section: what was written, and what the limit cut.
    pub(crate) fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "file": self.file,
            "frames": self.w.written,
            "limit": self.limit,
            "frames_not_written": self.not_written,
            "truncated": self.not_written > 0,
        })
    }
}

impl Simulation {
    /// Records frame `id` (`frame` bytes) starting transmission on port `p`, if selected.
    #[cold]
    pub(super) fn capture(&mut self, p: PortId, id: PktId, frame: u32) {
        let now = self.now_t();
        let Some(c) = self.pcap.as_deref_mut() else { return };
        if now < c.start || now >= c.end || c.error.is_some() {
            return;
        }
        if !c.ports.is_empty() && !c.ports[p.idx()] {
            return;
        }
        let pkt = self.fx.pool.get(id);
        let fi = pkt.flow.0 as usize;
        let has_flow = fi < self.flows.len();
        if !c.flows.is_empty() && has_flow && !c.flows[fi] {
            return;
        }
        if c.w.written >= c.limit {
            c.not_written += 1;
            return;
        }
        let port = &self.fx.ports[p.idx()];
        let (fs, fd) = if has_flow { (self.flows[fi].src.0, self.flows[fi].dst.0) } else { (port.node.0, port.node.0) };
        let ctx = FrameCtx {
            tx_node: port.node.0,
            rx_node: self.fx.ports[port.peer.idx()].node.0,
            flow_src: fs,
            flow_dst: fd,
            // The current message's (a storage queue pair's changes with each I/O).
            msg_pkts: if has_flow && self.flows[fi].npkts != u32::MAX { self.flows[fi].npkts } else { 0 },
            mtu: c.mtu,
            wire: if has_flow { c.wire[fi] } else { Wire::Roce },
        };
        let mut buf = [0u8; MAX_HDR];
        let n = encode(pkt, frame, &ctx, &mut buf);
        if let Err(e) = c.w.record(now.0 / 1000, &buf[..n], frame) {
            c.error = Some(format!("stats.pcap.file: cannot write '{}': {e}", c.file));
        }
    }
}
