//! pcap export: the header bytes of each frame kind, and a short run's file.

use dcsim::ids::{FlowId, NodeId};
use dcsim::net::packet::{Feedback, Packet, PktKind, FLAG_CE, FLAG_CWR};
use dcsim::net::pcap::{checksum, encode, FrameCtx, Wire, MAX_HDR};
use dcsim::units::{Rate, SimTime};
use std::path::Path;

fn ctx(wire: Wire) -> FrameCtx {
    FrameCtx { tx_node: 5, rx_node: 7, flow_src: 1, flow_dst: 2, msg_pkts: 3, mtu: 1000, wire }
}

fn enc(p: &Packet, len: u32, wire: Wire) -> Vec<u8> {
    let mut b = [0u8; MAX_HDR];
    let n = encode(p, len, &ctx(wire), &mut b);
    b[..n].to_vec()
}

fn u16at(b: &[u8], i: usize) -> u16 {
    u16::from_be_bytes([b[i], b[i + 1]])
}
fn u24at(b: &[u8], i: usize) -> u32 {
    u32::from_be_bytes([0, b[i], b[i + 1], b[i + 2]])
}

#[test]
fn data_frames_roce_headers() {
    let f = FlowId(9);
    for (seq, op, ackreq) in [(0u32, 0x06u8, false), (1, 0x07, false), (2, 0x08, true), (3, 0x06, false)] {
        let mut p = Packet::data(f, NodeId(2), seq, 1000, 1062, 3, SimTime::ZERO);
        if seq == 1 {
            p.flags |= FLAG_CE;
        }
        let b = enc(&p, 1062, Wire::Roce);
        assert_eq!(&b[0..6], &[2, 0, 0, 0, 0, 7], "dst MAC: the next hop");
        assert_eq!(&b[6..12], &[2, 0, 0, 0, 0, 5], "src MAC: the sender on this link");
        assert_eq!(u16at(&b, 12), 0x8100);
        assert_eq!(b[14] >> 5, 3, "PCP = priority");
        assert_eq!(u16at(&b, 16), 0x0800);
        let ip = &b[18..38];
        assert_eq!(ip[0], 0x45);
        assert_eq!(ip[1] & 3, if seq == 1 { 3 } else { 2 }, "ECN: CE when marked, else ECT(0)");
        assert_eq!(ip[1] >> 2, 3 << 3, "DSCP CS3");
        assert_eq!(u16at(ip, 2) as usize, 1062 - 18);
        assert_eq!(ip[9], 17);
        assert_eq!(&ip[12..16], &[10, 0, 0, 2]);
        assert_eq!(&ip[16..20], &[10, 0, 0, 3]);
        assert_eq!(checksum(ip), 0, "a valid IPv4 header checksum sums to 0");
        assert_eq!(u16at(&b, 40), 4791);
        let bth = &b[46..58];
        assert_eq!(bth[0], op, "opcode of seq {seq}");
        assert_eq!(u24at(bth, 5), 9, "dest QP = flow id");
        assert_eq!(bth[8] & 0x80 != 0, ackreq);
        assert_eq!(u24at(bth, 9), seq, "PSN");
        let reth = matches!(op, 0x06 | 0x0a);
        assert_eq!(b.len(), 58 + if reth { 16 } else { 0 });
        if reth {
            assert_eq!(u32::from_be_bytes(b[70..74].try_into().unwrap()), 3000, "RETH DMA length");
        }
    }
    // A one-packet message: WRITE Only.
    let mut c = ctx(Wire::Roce);
    c.msg_pkts = 1;
    let mut b = [0u8; MAX_HDR];
    encode(&Packet::data(FlowId(1), NodeId(2), 0, 10, 72, 0, SimTime::ZERO), 72, &c, &mut b);
    assert_eq!(b[46], 0x0a);
}

#[test]
fn ack_nak_cnp() {
    for kind in [PktKind::Ack, PktKind::Nak] {
        let p = Packet::ack(kind, FlowId(4), NodeId(1), 17, 66, 0, SimTime::ZERO, false, true);
        let b = enc(&p, 66, Wire::Roce);
        assert_eq!(u16at(&b, 12), 0x0800, "ACKs travel untagged");
        assert_eq!(&b[26..30], &[10, 0, 0, 3], "from the flow's destination");
        assert_eq!(&b[30..34], &[10, 0, 0, 2]);
        assert_eq!(b[15] & 3, 0, "not ECN capable");
        assert_eq!(b[42], 0x11, "RC Acknowledge");
        assert_eq!(u24at(&b, 51), 16, "PSN of the last frame acknowledged");
        assert_eq!(b[54], if kind == PktKind::Nak { 0x60 } else { 0x1f }, "AETH syndrome");
        assert_eq!(u24at(&b, 55), 17, "MSN");
        assert_eq!(b.len(), 58);
    }
    let p = Packet::cnp(FlowId(4), NodeId(1), 78, 0, true);
    let b = enc(&p, 78, Wire::Roce);
    assert_eq!(b[42], 0x81);
    assert_eq!(b[46] & 0x40, 0x40, "BECN");
    assert_eq!(u24at(&b, 47), 4);
    assert_eq!(b.len(), 70);
    assert!(b[54..70].iter().all(|&x| x == 0));
}

#[test]
fn pfc_and_pause() {
    let b = enc(&Packet::pfc(0b0000_1000, 0xffff, 64), 64, Wire::Roce);
    assert_eq!(&b[0..6], &[0x01, 0x80, 0xc2, 0, 0, 1]);
    assert_eq!(u16at(&b, 12), 0x8808);
    assert_eq!(u16at(&b, 14), 0x0101);
    assert_eq!(u16at(&b, 16), 0x0008, "class-enable vector");
    for i in 0..8 {
        assert_eq!(u16at(&b, 18 + 2 * i), if i == 3 { 0xffff } else { 0 });
    }
    assert_eq!(b.len(), 34);
    let b = enc(&Packet::pfc(0xff, 0, 64), 64, Wire::Roce);
    assert_eq!(u16at(&b, 14), 0x0001, "802.3x PAUSE");
    assert_eq!(u16at(&b, 16), 0);
}

#[test]
fn tcp_segments() {
    let mut p = Packet::data(FlowId(3), NodeId(2), 5, 1000, 1062, 0, SimTime::ZERO);
    p.flags |= FLAG_CWR;
    let b = enc(&p, 1062, Wire::Tcp);
    assert_eq!(b[18 + 9], 6);
    let t = &b[38..];
    assert_eq!(u16at(t, 0), 0x8003);
    assert_eq!(u32::from_be_bytes(t[4..8].try_into().unwrap()), 5000, "seq in bytes");
    assert_eq!(t[13] & 0x80, 0x80, "CWR");
    let p = Packet::tcp_ack(FlowId(3), NodeId(1), 4, Some(6), 66, 0, SimTime::ZERO, true);
    let b = enc(&p, 90, Wire::Tcp);
    let t = &b[34..];
    assert_eq!(u32::from_be_bytes(t[8..12].try_into().unwrap()), 4000, "ack in bytes");
    assert_eq!(t[12] >> 4, 8, "data offset with SACK");
    assert_eq!(t[13], 0x50, "ACK|ECE");
    assert_eq!(&t[20..24], &[1, 1, 5, 10]);
    assert_eq!(u32::from_be_bytes(t[24..28].try_into().unwrap()), 6000);
}

#[test]
fn other_kinds_and_snap() {
    let b = enc(&Packet::feedback(FlowId(1), NodeId(1), 0, Feedback::Qcn { fb: 40 }, 64), 64, Wire::Roce);
    assert_eq!(u16at(&b, 12), 0x22e9);
    assert_eq!(u16at(&b, 14), 40);
    let b = enc(&Packet::feedback(FlowId(1), NodeId(1), 6, Feedback::SwitchCnp { cp: 6, rate: Some(Rate(5)) }, 78), 78, Wire::Roce);
    assert_eq!(b[42], 0x81);
    assert_eq!(&b[54..62], &5u64.to_be_bytes());
    let b = enc(&Packet::probe(PktKind::Probe, FlowId(1), NodeId(2), 77, 64), 64, Wire::Roce);
    assert_eq!(b[42], 0xc0);
    let b = enc(&Packet::remote_pfc(FlowId(1), NodeId(1), 3, SimTime::us(2), 64), 64, Wire::Roce);
    assert_eq!((b[42], b[54]), (0xc2, 3));
    // A simulated frame shorter than the headers cuts them (caplen <= len).
    let b = enc(&Packet::cnp(FlowId(4), NodeId(1), 60, 0, true), 60, Wire::Roce);
    assert_eq!(b.len(), 60);
}

const INCAST: &str = r#"
name = "pcap_incast"
[simulation]
duration = "300us"
[host.cc]
type = "dcqcn"
[topology]
type = "star"
hosts = 5
rate = "40Gbps"
delay = "1us"
[switch.buffer]
type = "shared"
size = "200KiB"
[switch.ecn]
mode = "red"
kmin = "5KB"
kmax = "50KB"
pmax = 0.2
[[traffic]]
type = "incast"
receiver = "h0"
senders = ["h1", "h2", "h3", "h4"]
size = "200KB"
"#;

fn load(extra: &str) -> dcsim::error::Result<dcsim::plan::Plan> {
    dcsim::scenario::load_str(&format!("{INCAST}\n{extra}"), Path::new("."), &[])
}

#[test]
fn run_writes_a_pcap() {
    let dir = std::env::temp_dir().join(format!("dcsim_pcap_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("a.pcap");
    let plan = load(&format!("[stats.pcap]\nfile = {:?}\nlimit = 100000", f.to_str().unwrap())).unwrap();
    let res = dcsim::sim::run(&plan).unwrap();
    let b = std::fs::read(&f).unwrap();
    assert_eq!(u32::from_le_bytes(b[0..4].try_into().unwrap()), 0xa1b23c4d);
    let (mut i, mut n, mut last, mut ce, mut pfc, mut cnp) = (24, 0, 0u64, 0, 0, 0);
    while i < b.len() {
        let t = u32::from_le_bytes(b[i..i + 4].try_into().unwrap()) as u64 * 1_000_000_000
            + u32::from_le_bytes(b[i + 4..i + 8].try_into().unwrap()) as u64;
        let cap = u32::from_le_bytes(b[i + 8..i + 12].try_into().unwrap()) as usize;
        let len = u32::from_le_bytes(b[i + 12..i + 16].try_into().unwrap()) as usize;
        assert!(cap <= len && t >= last);
        let fr = &b[i + 16..i + 16 + cap];
        match u16at(fr, 12) {
            0x8808 => pfc += 1,
            0x8100 if fr[19] & 3 == 3 => ce += 1,
            0x0800 if fr[42] == 0x81 => cnp += 1,
            _ => {}
        }
        last = t;
        n += 1;
        i += 16 + cap;
    }
    assert_eq!(i, b.len());
    assert!(n > 100, "{n} frames");
    assert_eq!(n, res.summary["counters"]["link_packet_hops"].as_u64().unwrap(), "every frame once");
    assert!(ce > 0 && cnp > 0 && pfc > 0, "ce {ce} cnp {cnp} pfc {pfc}");
    let _ = res;
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_options_name_the_field() {
    let e = load("[stats.pcap]\nfile = \"/tmp/x.pcap\"\nstart = \"10us\"\nend = \"5us\"").unwrap_err().to_string();
    assert!(e.contains("stats.pcap.end"), "{e}");
    // Ports and flows are checked by validation (`dcsim validate`), before any run.
    let invalid = |extra: &str| load(extra).unwrap_err().to_string();
    let e = invalid("[stats.pcap]\nfile = \"/tmp/x.pcap\"\nports = [\"nope-S0\"]");
    assert!(e.contains("stats.pcap.ports[0]") && e.contains("no node named 'nope'"), "{e}");
    let e = invalid("[stats.pcap]\nfile = \"/tmp/x.pcap\"\nports = [\"S0:0\", \"S0:9\"]");
    assert!(e.contains("stats.pcap.ports[1]") && e.contains("node has 5 ports (0..4)"), "{e}");
    let e = invalid("[stats.pcap]\nfile = \"/tmp/x.pcap\"\nports = [\"h1-h2\"]");
    assert!(e.contains("stats.pcap.ports[0]") && e.contains("no link"), "{e}");
    let e = invalid("[stats.pcap]\nfile = \"/tmp/x.pcap\"\nports = [\"S0\"]");
    assert!(e.contains("stats.pcap.ports[0]") && e.contains("expected NODE:PORT_INDEX"), "{e}");
    let e = invalid("[stats.pcap]\nfile = \"/tmp/x.pcap\"\nflows = [99]");
    assert!(e.contains("stats.pcap.flows[0]"), "{e}");
    let e = dcsim::sim::run(&load("[stats.pcap]\nfile = \"/no/such/dir/x.pcap\"").unwrap()).unwrap_err().to_string();
    assert!(e.contains("stats.pcap.file"), "{e}");
}

/// "NODE-PEER" and "NODE:INDEX" name the same port, numbered in link order as the
/// world numbers it: capturing S0's port toward h2 sees only frames between S0 and h2.
#[test]
fn a_port_by_peer_is_its_index() {
    let plan = load("[stats.pcap]\nfile = \"/tmp/x.pcap\"\nports = [\"S0-h2\", \"S0:2\", \"h3:0\"]").unwrap();
    let at = plan.stats.pcap.as_ref().unwrap().ports_at(&plan).unwrap();
    let s0 = plan.nodes.iter().position(|n| n.name == "S0").unwrap() as u32;
    let h3 = plan.nodes.iter().position(|n| n.name == "h3").unwrap() as u32;
    assert_eq!(at, vec![(s0, 2), (s0, 2), (h3, 0)]);
}

/// A storage queue pair's messages change size with each I/O: an 8 KiB write (8 frames
/// of 1024 B) is labelled WRITE First, 6 Middle, Last, not 8 WRITE Only (the entry's
/// 64 B request size).
#[test]
fn storage_writes_are_labelled_by_their_block() {
    let dir = std::env::temp_dir().join(format!("dcsim_pcap_storage_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("s.pcap");
    let text = format!(
        "[simulation]\nduration = \"100us\"\n[host]\nmtu = \"1024B\"\n[topology]\ntype = \"star\"\nhosts = 2\nrate = \"25Gbps\"\ndelay = \"1us\"\n\
         [[traffic]]\ntype = \"storage\"\nclients = [\"h0\"]\nservers = [\"h1\"]\nread_fraction = 0.0\nblock_sizes = [\"8KiB\"]\nconcurrency = 1\n\
         [stats.pcap]\nfile = {:?}\nports = [\"h0:0\"]\n",
        f.to_str().unwrap()
    );
    let plan = dcsim::scenario::load_str(&text, Path::new("."), &[]).unwrap();
    dcsim::sim::run(&plan).unwrap();
    let b = std::fs::read(&f).unwrap();
    let mut ops = [0u32; 256];
    let mut i = 24;
    while i < b.len() {
        let cap = u32::from_le_bytes(b[i + 8..i + 12].try_into().unwrap()) as usize;
        let fr = &b[i + 16..i + 16 + cap];
        let ip = if u16at(fr, 12) == 0x8100 { 18 } else { 14 };
        if u16at(fr, ip - 2) == 0x0800 && fr[ip + 9] == 17 && u16at(fr, ip + 22) == 4791 {
            ops[fr[ip + 28] as usize] += 1;
        }
        i += 16 + cap;
    }
    let (first, middle, last, only) = (ops[0x06], ops[0x07], ops[0x08], ops[0x0a]);
    assert!(last >= 5, "writes completed: {last}");
    assert!(first == last || first == last + 1, "first {first} last {last}");
    assert!(middle >= 6 * last && middle <= 6 * first, "middle {middle} (first {first}, last {last})");
    assert_eq!(only, 0, "no 8 KiB write is one frame");
    std::fs::remove_dir_all(&dir).ok();
}
