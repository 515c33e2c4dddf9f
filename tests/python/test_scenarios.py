"""Shipped scenario files, the seed study's published numbers through the CLI, byte-identical
reruns, and malformed scenarios rejected with the field named."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import dcsim

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted((ROOT / "scenarios").glob("*.toml"))


def dcsim_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dcsim", *args], capture_output=True, text=True)


def test_scenarios_are_shipped():
    assert SCENARIOS, "scenarios/ holds the validation scenarios"


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_every_scenario_runs(path):
    res = dcsim.run(path)
    assert len(res.flows) > 0
    counters = res.summary["counters"]
    assert counters["link_packet_hops"] > 0
    # A lossless scenario (PFC with headroom computed for its links) drops nothing; the
    # lossy ones (seed 002, drop-tail without PAUSE) say so with mode = "off", and TCP
    # runs on a lossy priority (the lossless ones are covered by the checks below).
    text = path.read_text()
    if 'mode = "off"' not in text and 'transport = "tcp"' not in text:
        assert counters["drops_total"] == 0, counters["drops"]
    # The run's own invariants (conservation, lossless, counters) hold.
    checks = res.summary["checks"]
    assert checks["ok"] is True, checks
    assert checks["conservation"]["ok"] and checks["lossless_no_drops"]["ok"], checks


def test_seed000_cli_prints_the_published_result(tmp_path):
    p = dcsim_cli("run", str(ROOT / "scenarios/seed000_parking_lot_pfc.toml"), "--out", str(tmp_path / "o"))
    assert p.returncode == 0, p.stderr
    import pandas as pd

    flows = pd.read_parquet(tmp_path / "o" / "flows.parquet")
    g = dict(zip(flows["src"], flows["goodput_steady_gbps"]))
    for h, published in {"A": 6.3, "B": 6.3, "C": 6.3, "D": 18.9}.items():
        assert abs(g[h] - published) <= 0.03 * published, (h, g[h])
        assert f"{h} -> R" in p.stdout
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["counters"]["drops_total"] == 0


def test_two_runs_with_one_seed_are_byte_identical(tmp_path):
    src = str(ROOT / "scenarios/seed000_parking_lot_pfc.toml")
    for d in ("a", "b"):
        p = dcsim_cli("run", src, "--out", str(tmp_path / d), "--quiet", "--set", "simulation.duration=3ms")
        assert p.returncode == 0, p.stderr
    files = sorted(f.name for f in (tmp_path / "a").iterdir())
    assert "summary.json" in files and "flows.parquet" in files
    for f in files:
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f


BASE = """
[simulation]
duration = "1ms"
[host]
mtu = "2048B"
[topology]
type = "star"
hosts = 3
rate = "40Gbps"
delay = "1us"
[[traffic]]
type = "flows"
flows = [{ src = "h1", dst = "h0" }]
"""

TWO_ISLANDS = """
[simulation]
duration = "1ms"
[topology]
type = "explicit"
hosts = ["A", "B", "C", "D"]
switches = ["S1", "S2"]
links = [
  { a = "A", b = "S1", rate = "10Gbps", delay = "1us" },
  { a = "B", b = "S1", rate = "10Gbps", delay = "1us" },
  { a = "C", b = "S2", rate = "10Gbps", delay = "1us" },
  { a = "D", b = "S2", rate = "10Gbps", delay = "1us" },
]
[[traffic]]
type = "flows"
flows = [{ src = "A", dst = "C" }]
"""

ISOLATED_SWITCH = TWO_ISLANDS.replace('switches = ["S1", "S2"]', 'switches = ["S1", "S2", "S3"]').replace(
    '{ a = "C", b = "S2"', '{ a = "S1", b = "S2", rate = "10Gbps", delay = "1us" },\n  { a = "C", b = "S2"'
)


def sub(old: str, new: str) -> str:
    assert old in BASE, old
    return BASE.replace(old, new)


MALFORMED = [
    ("unknown_key", sub('duration = "1ms"', 'duration = "1ms"\nduraton = "2ms"'), "simulation"),
    ("negative_rate", sub('rate = "40Gbps"', 'rate = "-40Gbps"'), "topology.rate"),
    ("zero_rate", sub('rate = "40Gbps"', 'rate = "0Gbps"'), "topology.rate"),
    ("unit_typo", sub('rate = "40Gbps"', 'rate = "40Gbs"'), "topology.rate"),
    ("number_without_unit", sub('delay = "1us"', "delay = 1"), "topology.delay"),
    ("zero_mtu", sub('mtu = "2048B"', 'mtu = "0B"'), "host.mtu"),
    ("zero_duration", sub('duration = "1ms"', 'duration = "0ms"'), "simulation.duration"),
    (
        "xon_above_xoff",
        BASE + '[switch.buffer]\ntype = "static"\nsize = "500KB"\n[switch.pfc]\nxoff = "100KB"\nxon = "120KB"\n',
        "switch.pfc.xon",
    ),
    ("buffer_below_one_mtu", BASE + '[switch.buffer]\ntype = "static"\nsize = "1KB"\n', "switch.buffer.size"),
    ("unknown_host_in_flow", sub('dst = "h0"', 'dst = "Q"'), "traffic[0].flows[0].dst"),
    ("flow_to_itself", sub('dst = "h0"', 'dst = "h1"'), "traffic[0].flows[0]"),
    ("priority_out_of_range", sub('dst = "h0" }', 'dst = "h0", priority = 9 }'), "priority"),
    ("lossless_priority_out_of_range", BASE + "[switch.pfc]\nlossless = [8]\n", "switch.pfc.lossless"),
    (
        "odd_fat_tree",
        BASE.replace('type = "star"\nhosts = 3\nrate = "40Gbps"', 'type = "fat_tree"\nk = 3\nhost_rate = "40Gbps"\nfabric_rate = "40Gbps"'),
        "topology.k",
    ),
    ("unknown_topology_type", sub('type = "star"', 'type = "torus"'), "topology"),
    ("unreachable_destination", TWO_ISLANDS, "traffic[0].flows[0]"),
    ("disconnected_graph", ISOLATED_SWITCH.replace('flows = [{ src = "A", dst = "C" }]', 'flows = [{ src = "A", dst = "B" }]'), "topology"),
    ("ack_every_zero", sub('mtu = "2048B"', 'mtu = "2048B"\nack_every = 0'), "host.ack_every"),
    ("unknown_pfc_mode", BASE + '[switch.pfc]\nmode = "sometimes"\n', "switch.pfc.mode"),
    ("static_buffer_below_headroom", BASE + '[switch.buffer]\ntype = "static"\nsize = "8KB"\n', "switch.buffer.size"),
    (
        "udp_closed_loop",
        sub('flows = [{ src = "h1", dst = "h0" }]', 'transport = "udp"\nmessages = 3\nflows = [{ src = "h1", dst = "h0", size = "4KB" }]'),
        "traffic[0].messages",
    ),
    ("l2cm_key_of_another_type", BASE + '[switch.l2cm]\ntype = "qcn"\nq_sc = "100KB"\n', "switch.l2cm.q_sc"),
    (
        "rate_schedule_unknown_peer",
        BASE + '[switch]\nrate_schedule = [{ node = "S0", peer = "nowhere", at = "1ms", rate = "1Gbps" }]\n',
        "switch.rate_schedule[0].peer",
    ),
    (
        "override_unknown_switch",
        BASE + '[[switch.congestion_override]]\nnodes = ["S9"]\ndetection = "rcm_1a"\nthreshold = "10KB"\n',
        "switch.congestion_override[0].nodes[0]",
    ),
    (
        "override_without_nodes",
        BASE + '[[switch.congestion_override]]\ndetection = "rcm_1a"\nthreshold = "10KB"\n',
        "switch.congestion_override[0].nodes",
    ),
    ("alpha_shift_too_large", BASE + '[switch.buffer]\ntype = "shared"\nsize = "4MiB"\nalpha_shift = 40\n', "switch.buffer.alpha_shift"),
]


@pytest.mark.parametrize("name,text,field", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_scenario_is_rejected_with_the_field_named(tmp_path, name, text, field):
    f = tmp_path / f"{name}.toml"
    f.write_text(text)
    p = dcsim_cli("validate", str(f))
    assert p.returncode == 1, (p.stdout, p.stderr)
    assert field in p.stderr, p.stderr
    assert p.stderr.startswith("error: "), p.stderr
    for leak in ("Traceback", "panicked", "RUST_BACKTRACE"):
        assert leak not in p.stderr, p.stderr
    # `run` refuses it the same way, before simulating anything.
    r = dcsim_cli("run", str(f), "--out", str(tmp_path / "out"))
    assert r.returncode == 1 and field in r.stderr


def test_malformed_case_count():
    assert len(MALFORMED) >= 15


def test_sweep_keeps_going_past_a_failed_point(tmp_path):
    out = tmp_path / "sweep.csv"
    p = dcsim_cli(
        "sweep",
        str(ROOT / "scenarios/seed000_parking_lot_pfc.toml"),
        "--grid",
        "switch.arbitration=per_port,bogus,per_flow",
        "--set",
        "simulation.duration=2ms",
        "--set",
        "stats.steady_start=1ms",
        "--out",
        str(out),
        "--per-flow",
    )
    assert p.returncode == 1, p.stderr  # a point failed, after every point ran
    import pandas as pd

    df = pd.read_csv(out, keep_default_na=False)
    assert list(df["switch.arbitration"]) == ["per_port", "bogus", "per_flow"]
    assert df["error"][0] == "" and "switch.arbitration" in df["error"][1] and df["error"][2] == ""
    assert float(df["goodput_D->R"][0]) > 2 * float(df["goodput_A->R"][0])  # parking-lot unfairness
    assert float(df["jain"][2]) > 0.99  # per-flow: fair


def test_sweep_api_returns_a_dataframe():
    df = dcsim.sweep(
        ROOT / "scenarios/seed000_parking_lot_pfc.toml",
        {"host.mtu": ["1024B", "2048B"]},
        overrides=["simulation.duration=1ms", "stats.steady_start=0.5ms"],
    )
    assert len(df) == 2 and (df["error"] == "").all() and (df["drops"] == 0).all()


def test_plot_writes_a_png(tmp_path):
    run_dir = tmp_path / "run"
    p = dcsim_cli(
        "run",
        str(ROOT / "scenarios/dcqcn_2to1.toml"),
        "--out",
        str(run_dir),
        "--quiet",
        "--set",
        "simulation.duration=2ms",
        "--set",
        "stats.steady_start=1ms",
    )
    assert p.returncode == 0, p.stderr
    png = tmp_path / "fig.png"
    p = dcsim_cli("plot", str(run_dir), str(run_dir), "--queue", "S0:h0", "--out", str(png))
    assert p.returncode == 0, p.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    p = dcsim_cli("plot", str(run_dir), "--queue", "S0:nowhere", "--out", str(png))
    assert p.returncode == 1 and "no port of S0 toward nowhere" in p.stderr


def test_detection_rule_per_switch_from_a_file(tmp_path):
    text = (ROOT / "scenarios/seed000_parking_lot_rcm_1a.toml").read_text()
    text += '\n[[switch.congestion_override]]\nnodes = ["S1"]\ndetection = "rcm_1b"\nthreshold = "1B"\n'
    f = tmp_path / "mixed.toml"
    f.write_text(text)
    res = dcsim.run(f, overrides=["simulation.duration=3ms"])
    c = res.congestion.set_index(["node", "peer"])
    base = dcsim.run(ROOT / "scenarios/seed000_parking_lot_rcm_1a.toml", overrides=["simulation.duration=3ms"]).congestion.set_index(
        ["node", "peer"]
    )
    assert c.loc[("S1", "S2"), "marked"] > 2 * base.loc[("S1", "S2"), "marked"]
