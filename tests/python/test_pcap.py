"""pcap export (docs/pcap.md): a tiny incast with PFC and DCQCN (ECN + CNP), written by
`dcsim run --pcap` and decoded with scapy and, when installed, tshark."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from dcsim import cli

INCAST = """
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
"""


@pytest.fixture(scope="module")
def capture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("pcap")
    (d / "inc.toml").write_text(INCAST)
    f = d / "run.pcap"
    rc = cli.main(["run", str(d / "inc.toml"), "--out", str(d / "out"), "--pcap", str(f), "--quiet"])
    assert rc == 0
    return f


def test_scapy_decodes_roce_ecn_cnp_pfc(capture: Path) -> None:
    scapy = pytest.importorskip("scapy.all")
    from scapy.contrib.mac_control import MACControlClassBasedFlowControl
    from scapy.contrib.roce import BTH

    pkts = scapy.rdpcap(str(capture))
    assert len(pkts) > 100
    psns: dict[int, list[int]] = {}
    ops, ce, cnp, pfc = set(), 0, 0, []
    for p in pkts:
        if p.haslayer(scapy.UDP) and p[scapy.UDP].dport == 4791:
            # scapy's BTH ends with the ICRC, which a headers-only capture leaves out.
            bth = BTH(bytes(p[scapy.UDP].payload)[:12] + bytes(4))
            ops.add(bth.opcode)
            if bth.opcode in (6, 7, 8, 10):
                psns.setdefault(bth.dqpn, []).append(bth.psn)
                assert p[scapy.Dot1Q].prio == 3, "the default data priority"
                ce += p[scapy.IP].tos & 3 == 3
                assert p[scapy.IP].tos & 3 in (2, 3), "data is ECN capable"
            if bth.opcode == 0x81:
                cnp += 1
        if p.haslayer(MACControlClassBasedFlowControl):
            pfc.append(p[MACControlClassBasedFlowControl])
    assert {6, 7, 8, 0x11, 0x81} <= ops, ops
    assert ce > 0 and cnp > 0
    # Each sender's data frames on its own link carry PSNs 0, 1, 2, ... (no loss here).
    for qp, seq in psns.items():
        assert sorted(set(seq)) == list(range(len(set(seq)))), qp
    assert pfc, "PFC frames"
    pauses = [f for f in pfc if f.c3_pause_time > 0]
    assert pauses and all(f.c3_enabled for f in pauses)


def test_tshark_decodes_the_same(capture: Path) -> None:
    tshark = shutil.which("tshark")
    if tshark is None:
        pytest.skip("tshark is not installed (apt-get install tshark)")

    def fields(filt: str, *names: str) -> list[list[str]]:
        args = [tshark, "-r", str(capture), "-Y", filt, "-T", "fields"]
        for n in names:
            args += ["-e", n]
        out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
        return [line.split("\t") for line in out.splitlines() if line]

    data = fields(
        "infiniband.bth.opcode == 6 || infiniband.bth.opcode == 7 || infiniband.bth.opcode == 8",
        "infiniband.bth.psn",
        "ip.dsfield.ecn",
        "ip.checksum.status",
    )
    assert data and all(r[2] in ("2", "Good") for r in data), data[:3]
    assert any(r[1] == "3" for r in data), "CE on some data frames"
    assert fields("infiniband.bth.opcode == 0x81", "infiniband.bth.destqp")
    acks = fields("infiniband.bth.opcode == 0x11", "infiniband.aeth.syndrome", "infiniband.aeth.msn")
    assert acks
    pfc = fields("macc.opcode == 0x0101", "macc.cbfc.enbv", "macc.cbfc.pause_time.c3")
    assert pfc, "PFC frames"
    assert all(r[0] == "0x0008" for r in pfc), pfc[:3]
    assert {r[1] for r in pfc} == {"65535", "0"}, "pause and resume"


def test_a_port_that_does_not_exist_fails_validation(tmp_path: Path) -> None:
    """`dcsim validate` rejects a pcap filter naming an unknown port, naming the field;
    no file is made."""
    from conftest import run_cli

    sc = tmp_path / "inc.toml"
    sc.write_text(INCAST)
    f = tmp_path / "never.pcap"
    for port, why in (("S0:9", "node has 5 ports (0..4)"), ("h1-h2", "no link between these nodes"), ("X:0", "no node named 'X'")):
        p = run_cli("validate", sc, "--set", f"stats.pcap.file='{f}'", "--set", f"stats.pcap.ports=['{port}']")
        assert p.returncode != 0, p.stdout
        assert "stats.pcap.ports[0]" in p.stderr and why in p.stderr, p.stderr
    p = run_cli("validate", sc, "--set", f"stats.pcap.file='{f}'", "--set", "stats.pcap.ports=['S0-h1', 'S0:4']")
    assert p.returncode == 0, p.stderr
    assert not f.exists()


def test_a_sweep_point_with_an_unknown_port_is_recorded_invalid(tmp_path: Path) -> None:
    """A sweep point whose pcap filter names no port gets its row with the error and
    nothing else in the store (no tables, no pcap file); the other point lands."""
    import dcsim

    sc = tmp_path / "inc.toml"
    sc.write_text(INCAST)
    store = tmp_path / "s"
    df = dcsim.sweep(
        sc,
        {"stats.pcap.ports": [["S0-h1"], ["S0:7"]]},
        store=store,
        overrides=[f"stats.pcap.file='{tmp_path / 'cap.pcap'}'", "simulation.duration='50us'"],
    )
    assert list(df["error"] == "") == [True, False]
    assert "stats.pcap.ports[0]" in df["error"][1] and "node has 5 ports" in df["error"][1], df["error"][1]
    st = dcsim.open_store(store)
    runs = st.runs()
    assert len(runs) == 2
    bad = runs[runs["error"] != ""]
    assert len(bad) == 1 and "stats.pcap.ports[0]" in bad["error"].iloc[0]
    good_id = runs.loc[runs["error"] == "", "run_id"].iloc[0]
    assert set(st.table("flows")["run_id"]) == {good_id}
    for name in st.table_names():
        assert set(st.table(name)["run_id"]) <= {good_id}, name
    bad_id = bad["run_id"].iloc[0]
    assert not [p for p in store.rglob("*") if bad_id in p.name and p.parent.name != "runs"]
    assert not list(store.rglob(".*tmp*"))


def test_a_capture_cut_by_its_limit_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "inc.toml").write_text(INCAST)
    f = tmp_path / "cut.pcap"
    rc = cli.main(
        ["run", str(tmp_path / "inc.toml"), "--out", str(tmp_path / "o"), "--pcap", str(f), "--set", "stats.pcap.limit=100", "--quiet"]
    )
    assert rc == 0
    err = capsys.readouterr().err
    assert "warning: stats.pcap.limit: the capture stopped at 100 frames" in err
    s = json.loads((tmp_path / "o" / "summary.json").read_text())["pcap"]
    assert s["frames"] == 100 and s["truncated"] and s["frames_not_written"] > 0
    # Uncut: no warning, not truncated.
    rc = cli.main(["run", str(tmp_path / "inc.toml"), "--out", str(tmp_path / "o2"), "--pcap", str(tmp_path / "all.pcap"), "--quiet"])
    assert rc == 0 and "stats.pcap" not in capsys.readouterr().err
    assert not json.loads((tmp_path / "o2" / "summary.json").read_text())["pcap"]["truncated"]
