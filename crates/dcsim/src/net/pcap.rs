//! pcap export: real protocol headers built from a simulated frame (Ethernet, 802.1Q,
//! IPv4, UDP + RoCEv2 BTH/RETH/AETH, TCP, PFC / PAUSE MAC control) and the classic pcap
//! file format with nanosecond timestamps. The mapping per frame kind is in docs/pcap.md.
//! Only headers are captured: payload bytes are not written (caplen < len, as a
//! capture with a snap length), so that a file stays small and honest.

use crate::net::packet::{Feedback, Packet, PktKind, FLAG_CE, FLAG_CWR, FLAG_ECE, NO_RATE};
use std::io::Write;

/// Classic pcap magic for nanosecond timestamps.
pub const MAGIC_NS: u32 = 0xa1b2_3c4d;
/// LINKTYPE_ETHERNET.
const LINKTYPE_ETHERNET: u32 = 1;
/// Longest header stack this module builds (TCP with a SACK option, tagged).
pub const MAX_HDR: usize = 96;
/// RoCEv2 UDP destination port.
pub const ROCE_PORT: u16 = 4791;

/// How a flow's frames are encoded above IP.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Wire {
    Roce,
    Tcp,
    Udp,
}

/// What a frame's headers need beyond the packet itself.
#[derive(Copy, Clone, Debug)]
pub struct FrameCtx {
    /// Node sending the frame on this link, and the node at its other end (the MACs).
    pub tx_node: u32,
    pub rx_node: u32,
    /// The flow's endpoints (hosts): data goes `src` -> `dst`, feedback the other way.
    pub flow_src: u32,
    pub flow_dst: u32,
    /// Data frames in one message of the flow (0: unbounded), for the RDMA WRITE opcode.
    pub msg_pkts: u32,
    /// MTU (payload bytes per data frame), for TCP byte sequence numbers.
    pub mtu: u32,
    pub wire: Wire,
}

/// MAC address of node `n`: locally administered unicast 02:00:<node id, 32 bits>.
pub fn mac(n: u32) -> [u8; 6] {
    let b = n.to_be_bytes();
    [0x02, 0, b[0], b[1], b[2], b[3]]
}

/// IPv4 address of node `n`: 10.0.0.0/8 plus the node id (+1 so that node 0 is 10.0.0.1).
pub fn ipv4(n: u32) -> [u8; 4] {
    let v = 0x0a00_0000u32 | ((n + 1) & 0x00ff_ffff);
    v.to_be_bytes()
}

/// Internet checksum (RFC 1071) of `b`.
pub fn checksum(b: &[u8]) -> u16 {
    let mut s: u32 = 0;
    for c in b.chunks(2) {
        s += (c[0] as u32) << 8 | *c.get(1).unwrap_or(&0) as u32;
    }
    while s > 0xffff {
        s = (s & 0xffff) + (s >> 16);
    }
    !(s as u16)
}

/// A small cursor over a fixed header buffer.
struct Buf<'a> {
    b: &'a mut [u8; MAX_HDR],
    n: usize,
}

impl Buf<'_> {
    fn put(&mut self, s: &[u8]) {
        self.b[self.n..self.n + s.len()].copy_from_slice(s);
        self.n += s.len();
    }
    fn u8(&mut self, v: u8) {
        self.put(&[v])
    }
    fn u16(&mut self, v: u16) {
        self.put(&v.to_be_bytes())
    }
    fn u32(&mut self, v: u32) {
        self.put(&v.to_be_bytes())
    }
    fn u64(&mut self, v: u64) {
        self.put(&v.to_be_bytes())
    }
}

/// BTH opcodes (IBTA vol. 1, 9.2: RC = 0x00..; CNP = 0x81, RoCEv2 annex A17).
pub mod opcode {
    pub const WRITE_FIRST: u8 = 0x06;
    pub const WRITE_MIDDLE: u8 = 0x07;
    pub const WRITE_LAST: u8 = 0x08;
    pub const WRITE_ONLY: u8 = 0x0a;
    pub const ACKNOWLEDGE: u8 = 0x11;
    pub const CNP: u8 = 0x81;
}

/// Writes the headers of frame `p` (of `len` bytes on the wire) into `out`; returns how
/// many bytes were written (never more than `len`: a shorter simulated frame cuts them).
pub fn encode(p: &Packet, len: u32, c: &FrameCtx, out: &mut [u8; MAX_HDR]) -> usize {
    let mut b = Buf { b: out, n: 0 };
    match p.kind {
        PktKind::Pfc => {
            let (classes, quanta) = p.pause();
            b.put(&[0x01, 0x80, 0xc2, 0, 0, 0x01]);
            b.put(&mac(c.tx_node));
            b.u16(0x8808);
            if classes == 0xff {
                // 802.3x PAUSE: one quanta value for the whole link.
                b.u16(0x0001);
                b.u16(quanta.min(0xffff) as u16);
            } else {
                // 802.1Qbb PFC: class-enable vector and 8 per-class quanta.
                b.u16(0x0101);
                b.u16(classes as u16);
                for i in 0..8 {
                    b.u16(if classes & (1 << i) != 0 { quanta.min(0xffff) as u16 } else { 0 });
                }
            }
        }
        PktKind::QcnCnm | PktKind::Bcn | PktKind::Bcn00 => {
            // 802.1Qau CNM (ethertype 0x22e9): version/reserved/QntzFb, CPID, Qoffset,
            // Qdelta; BCN (its 802.1Qau precursor) in the same layout, Fb in Qdelta.
            b.put(&mac(c.flow_src));
            b.put(&mac(c.tx_node));
            b.u16(0x22e9);
            let (fb, cp) = match p.feedback_of() {
                Feedback::Qcn { fb } => (fb as i32, 0),
                Feedback::Bcn { cp, fb } => (fb, cp),
                Feedback::BcnStop { cp } => (i32::MIN, cp),
                _ => (0, 0),
            };
            b.u16(if p.kind == PktKind::QcnCnm { (fb as u16) & 0x3f } else { 0 });
            b.u64(cp as u64);
            b.u16(0);
            b.u16(fb as u16);
            b.u32(p.flow.0);
        }
        _ => encode_ip(p, len, c, &mut b),
    }
    b.n.min(len as usize)
}

fn encode_ip(p: &Packet, len: u32, c: &FrameCtx, b: &mut Buf) {
    let data = p.kind == PktKind::Data;
    // Data (and its trimmed header) travels from the flow's source; every other kind
    // toward `p.dst` from the flow's other end.
    let from_src = data || matches!(p.kind, PktKind::Probe | PktKind::Trimmed);
    let (src, dst) = if from_src { (c.flow_src, c.flow_dst) } else { (c.flow_dst, c.flow_src) };
    b.put(&mac(c.rx_node));
    b.put(&mac(c.tx_node));
    if data {
        b.u16(0x8100);
        b.u16((p.prio as u16 & 7) << 13);
    }
    b.u16(0x0800);
    let ip_at = b.n;
    let ip_len = (len as usize).saturating_sub(ip_at).min(0xffff) as u16;
    let tcp = c.wire == Wire::Tcp && matches!(p.kind, PktKind::Data | PktKind::TcpAck);
    // DSCP: priority << 3 (CS<prio>); ECN: ECT(0) on data, CE when marked.
    let ecn = if data {
        if p.flags & FLAG_CE != 0 {
            3
        } else {
            2
        }
    } else {
        0
    };
    b.put(&[0x45, (p.prio << 5) | ecn]);
    b.u16(ip_len);
    b.u16(0);
    b.u16(0x4000); // DF
    b.put(&[64, if tcp { 6 } else { 17 }]);
    b.u16(0);
    b.put(&ipv4(src));
    b.put(&ipv4(dst));
    let sum = checksum(&b.b[ip_at..ip_at + 20]);
    b.b[ip_at + 10..ip_at + 12].copy_from_slice(&sum.to_be_bytes());
    let l4_len = ip_len.saturating_sub(20);
    if tcp {
        return encode_tcp(p, c, b);
    }
    // UDP: RoCEv2 source port from the flow (entropy), checksum 0 (RoCEv2 allows it).
    b.u16(0xc000 | (p.flow.0 & 0x3fff) as u16);
    b.u16(if c.wire == Wire::Udp && data { 9 } else { ROCE_PORT });
    b.u16(l4_len);
    b.u16(0);
    if c.wire == Wire::Udp && data {
        return;
    }
    let qp = p.flow.0 & 0x00ff_ffff;
    let (op, psn, ack_req) = match p.kind {
        PktKind::Data => {
            let seq = p.seq();
            let (first, last) =
                if c.msg_pkts == 0 { (seq == 0, false) } else { (seq.is_multiple_of(c.msg_pkts), seq % c.msg_pkts == c.msg_pkts - 1) };
            let op = match (first, last) {
                (true, true) => opcode::WRITE_ONLY,
                (true, false) => opcode::WRITE_FIRST,
                (false, true) => opcode::WRITE_LAST,
                (false, false) => opcode::WRITE_MIDDLE,
            };
            (op, seq, last)
        }
        PktKind::Ack | PktKind::Nak | PktKind::TcpAck => (opcode::ACKNOWLEDGE, p.seq().wrapping_sub(1), false),
        PktKind::Cnp | PktKind::SwitchCnp => (opcode::CNP, 0, false),
        // Other RoCE-borne notifications: vendor-range opcodes (docs/pcap.md).
        PktKind::Probe => (0xc0, 0, false),
        PktKind::ProbeReply => (0xc1, 0, false),
        PktKind::RemotePfc => (0xc2, 0, false),
        PktKind::Trimmed => (0xc4, p.seq(), false),
        _ => (0xc3, 0, false),
    };
    // BTH: opcode, SE|M|pad|TVer, P_Key, FECN/BECN+resv, dest QP, AckReq+resv, PSN.
    b.u8(op);
    b.u8(0);
    b.u16(0xffff);
    b.u8(if p.kind == PktKind::Cnp { 0x40 } else { 0 }); // BECN on a CNP
    b.put(&qp.to_be_bytes()[1..]);
    b.u8(if ack_req { 0x80 } else { 0 });
    b.put(&(psn & 0x00ff_ffff).to_be_bytes()[1..]);
    match p.kind {
        PktKind::Data if matches!(op, opcode::WRITE_FIRST | opcode::WRITE_ONLY) => {
            // RETH: virtual address, R_Key, DMA length of the message.
            b.u64(0);
            b.u32(p.flow.0);
            b.u32(c.msg_pkts.saturating_mul(c.mtu));
        }
        PktKind::Ack | PktKind::Nak | PktKind::TcpAck => {
            // AETH: syndrome (ACK: 0 + credits 0x1f = invalid; NAK: 0x60 PSN sequence
            // error), MSN = the expected PSN.
            b.u8(if p.kind == PktKind::Nak { 0x60 } else { 0x1f });
            b.put(&(p.seq() & 0x00ff_ffff).to_be_bytes()[1..]);
        }
        PktKind::Cnp | PktKind::SwitchCnp => b.put(&[0; 16]), // CNP: 16 reserved bytes
        PktKind::Probe | PktKind::ProbeReply => {
            let r = p.probe_rate();
            b.u32(if r == NO_RATE { 0xffff_ffff } else { r });
        }
        PktKind::RemotePfc => {
            let (prio, pause) = p.remote_pause();
            b.u8(prio);
            b.u64(pause.0 / 1000);
        }
        _ => {}
    }
    // SwitchCnp's rate (bit/s) follows the 16 reserved bytes' first 8.
    if p.kind == PktKind::SwitchCnp {
        if let Feedback::SwitchCnp { rate, .. } = p.feedback_of() {
            let at = b.n - 16;
            b.b[at..at + 8].copy_from_slice(&rate.map_or(0, |r| r.0).to_be_bytes());
        }
    }
}

fn encode_tcp(p: &Packet, c: &FrameCtx, b: &mut Buf) {
    let port = 0x8000 | (p.flow.0 & 0x7fff) as u16;
    let (sport, dport) = if p.kind == PktKind::Data { (port, 5001) } else { (5001, port) };
    let at = b.n;
    b.u16(sport);
    b.u16(dport);
    let seq_bytes = |s: u32| s.wrapping_mul(c.mtu);
    let sack = if p.kind == PktKind::TcpAck { p.sack() } else { None };
    let (seq, ack) = if p.kind == PktKind::Data { (seq_bytes(p.seq()), 0) } else { (0, seq_bytes(p.seq())) };
    b.u32(seq);
    b.u32(ack);
    let words = 5 + if sack.is_some() { 3 } else { 0 };
    let mut flags: u16 = if p.kind == PktKind::Data { 0x18 } else { 0x10 }; // PSH|ACK, ACK
    if p.flags & FLAG_ECE != 0 && p.kind == PktKind::TcpAck {
        flags |= 0x40;
    }
    if p.flags & FLAG_CWR != 0 && p.kind == PktKind::Data {
        flags |= 0x80;
    }
    b.u16((words << 12) | flags);
    b.u16(0xffff);
    b.u16(0); // checksum not computed (payload not captured)
    b.u16(0);
    if let Some(s) = sack {
        // NOP NOP SACK(5) len 10: one block [s, s+1) in bytes.
        b.put(&[1, 1, 5, 10]);
        b.u32(seq_bytes(s));
        b.u32(seq_bytes(s + 1));
    }
    debug_assert_eq!(b.n - at, words as usize * 4);
}

/// Buffered classic pcap writer (nanosecond timestamps, Ethernet link type).
pub struct PcapWriter<W: Write> {
    w: std::io::BufWriter<W>,
    pub written: u64,
}

impl<W: Write> PcapWriter<W> {
    /// Writes the 24-byte file header (snap length 65535).
    pub fn new(w: W) -> std::io::Result<Self> {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, w);
        let mut h = [0u8; 24];
        h[0..4].copy_from_slice(&MAGIC_NS.to_le_bytes());
        h[4..6].copy_from_slice(&2u16.to_le_bytes());
        h[6..8].copy_from_slice(&4u16.to_le_bytes());
        h[16..20].copy_from_slice(&65535u32.to_le_bytes());
        h[20..24].copy_from_slice(&LINKTYPE_ETHERNET.to_le_bytes());
        w.write_all(&h)?;
        Ok(PcapWriter { w, written: 0 })
    }
    /// One record: time in ns, the captured bytes and the frame's length on the wire.
    pub fn record(&mut self, t_ns: u64, bytes: &[u8], len: u32) -> std::io::Result<()> {
        let mut h = [0u8; 16];
        h[0..4].copy_from_slice(&((t_ns / 1_000_000_000) as u32).to_le_bytes());
        h[4..8].copy_from_slice(&((t_ns % 1_000_000_000) as u32).to_le_bytes());
        h[8..12].copy_from_slice(&(bytes.len() as u32).to_le_bytes());
        h[12..16].copy_from_slice(&len.to_le_bytes());
        self.w.write_all(&h)?;
        self.w.write_all(bytes)?;
        self.written += 1;
        Ok(())
    }
    pub fn flush(&mut self) -> std::io::Result<()> {
        self.w.flush()
    }
}
