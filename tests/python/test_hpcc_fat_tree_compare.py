"""`scripts/hpcc_fat_tree_compare.py`, the HPCC study's large-scale comparison: every cell
of the study (workload x load x algorithm) names a shipped scenario with that workload, load
and algorithm, and the script prints one table row per non-empty size bin."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from dcsim._toml import loads

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("hpcc_fat_tree_compare", ROOT / "scripts" / "hpcc_fat_tree_compare.py")
assert spec and spec.loader
compare = importlib.util.module_from_spec(spec)
spec.loader.exec_module(compare)

CC = {"dcqcn": "dcqcn", "dcqcn_win": "dcqcn", "timely": "timely", "timely_win": "timely", "dctcp": "dctcp_rate", "hpcc": "hpcc"}
CDF = {"hadoop": "hpcc_FbHdp_distribution.txt", "websearch": "hpcc_WebSearch_distribution.txt"}


@pytest.mark.parametrize("workload", compare.WORKLOADS)
@pytest.mark.parametrize("load", [30, 50])
@pytest.mark.parametrize("algo", compare.ALGOS)
def test_each_cell_names_the_matching_scenario(workload, load, algo):
    s = loads(compare.scenario(workload, algo, load).read_text())
    cc = s["host"]["cc"]
    assert cc["type"] == CC[algo]
    assert ("window" in cc) == (algo.endswith("_win") or algo == "dctcp")
    # The study's "+win" window follows the rate (run.py: HAS_WIN 1, VAR_WIN 1).
    assert cc.get("var_window", False) == algo.endswith("_win")
    # The study's switches queue ACKs behind data (switch-node.cc: AckHighPrio 0).
    assert s["host"]["ack_queue"] == "data"
    assert s["traffic"][0]["file"].endswith(CDF[workload])
    assert s["traffic"][0]["load"] == load / 100
    assert s["topology"]["file"].endswith("hpcc_fat.txt")


def test_prints_one_row_per_non_empty_bin(capsys, tmp_path):
    args = ["--workload", "websearch", "--loads", "30", "--algos", "hpcc,dcqcn"]
    assert compare.main([*args, "--save", str(tmp_path)]) == 0
    out = capsys.readouterr()
    assert out.err.count("checks ok") == 2 and "drops 0 (lossless 0)" in out.err
    lines = out.out.splitlines()
    assert lines[0].startswith("websearch, 30 % load") and lines[2] == "| size (B) | flows | hpcc | dcqcn |"
    rows = [line.split("|")[1:-1] for line in lines[4:] if line.startswith("| ")]
    assert rows and all(int(r[1]) > 0 for r in rows)
    # Three percentiles where some flow of the bin finished, "-" where none did.
    assert all(len(c.split(" / ")) == 3 or c.strip() == "-" for r in rows for c in r[2:])
    assert all(len(c.split(" / ")) == 3 for c in rows[0][2:])
    # The saved runs give the same tables.
    assert compare.main([*args, "--load-from", str(tmp_path)]) == 0
    assert capsys.readouterr().out == out.out
