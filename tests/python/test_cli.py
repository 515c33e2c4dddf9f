import argparse

import pytest

import dcsim
from dcsim import cli
from dcsim.results import Results


def parse(*argv):
    return cli.build_parser().parse_args(list(argv))


def test_run_arguments():
    a = parse("run", "sc.toml", "--out", "o", "--set", "a.b=1", "--set", "c=40Gbps", "--csv", "--quiet")
    assert a.command == "run" and a.scenario == "sc.toml" and a.out == "o"
    assert a.overrides == ["a.b=1", "c=40Gbps"]
    assert a.csv and a.quiet and a.func is cli.cmd_run


def test_run_defaults():
    a = parse("run", "sc.toml")
    assert a.out is None and a.overrides == [] and not a.csv and not a.quiet


def test_validate_arguments():
    a = parse("validate", "sc.toml", "--set", "x=y=z")
    assert a.func is cli.cmd_validate and a.overrides == ["x=y=z"]


@pytest.mark.parametrize("argv", [["run"], ["run", "x.toml", "--set", "novalue"], ["frobnicate"], []])
def test_usage_errors_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as ei:
        cli.main(argv)
    assert ei.value.code == 2


def test_bench_lists_the_fixed_scenarios(capsys):
    assert cli.main(["bench", "--list"]) == 0
    out = capsys.readouterr().out
    assert "fat_tree_k8_permutation" in out and "incast_64_to_1" in out


def test_bench_runs_a_short_benchmark(capsys):
    # A 0.2 ms slice of the incast benchmark, just to show the command works end to end.
    rc = cli.main(["bench", "--only", "incast", "--set", "simulation.duration=200us", "--json"])
    assert rc == 0
    import json
    row = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert row["hops"] > 0 and row["peak_rss_bytes"] > 0 and row["drops"] == 0

def test_keyboard_interrupt_exits_130(monkeypatch, capsys):
    def boom(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "cmd_validate", boom)
    assert cli.main(["validate", "x.toml"]) == 130
    assert "interrupted" in capsys.readouterr().err


def test_dcsim_error_exits_1_without_traceback(monkeypatch, capsys):
    def bad(args):
        raise dcsim.ScenarioError("switch.ecn.kmax: must be >= kmin")

    monkeypatch.setattr(cli, "cmd_validate", bad)
    assert cli.main(["validate", "x.toml"]) == 1
    err = capsys.readouterr().err
    assert err == "error: switch.ecn.kmax: must be >= kmin\n"


def test_unexpected_errors_are_not_hidden(monkeypatch):
    def bug(args):
        raise RuntimeError("bug")

    monkeypatch.setattr(cli, "cmd_validate", bug)
    with pytest.raises(RuntimeError):
        cli.main(["validate", "x.toml"])


@pytest.mark.parametrize("cmd", ["run", "validate"])
def test_missing_file_subprocess(cli, tmp_path, cmd):
    missing = tmp_path / "missing.toml"
    p = cli(cmd, missing)
    assert p.returncode == 1
    assert p.stderr.strip() == f"error: {missing}: no such file or directory"
    assert "Traceback" not in p.stderr


def test_help_and_version(cli):
    p = cli("--help")
    assert p.returncode == 0 and "run" in p.stdout and "validate" in p.stdout
    p = cli("--version")
    assert p.returncode == 0 and dcsim.__version__ in p.stdout


def test_result_table(example_raw):
    lines = cli.result_table(Results(example_raw))
    text = "\n".join(lines)
    assert "h0 -> h2" in text and "h1 -> h2" in text
    row0 = next(l for l in lines if "h0 -> h2" in l)
    row1 = next(l for l in lines if "h1 -> h2" in l)
    assert "19.50" in row0 and row0.rstrip().endswith("-")  # unfinished: no FCT
    assert row1.rstrip().endswith("123us")
    assert lines[-1] == "drops: 0   PFC frames: 3"


def test_result_table_maps_node_ids_and_port_counters():
    import numpy as np

    def u8(*v):
        return ("u8", np.array(v, dtype="<u8").tobytes())

    raw = {
        "tables": {
            "flows": {"src": u8(0), "dst": u8(2), "fct_us": ("f8", np.array([12.5]).tobytes())},
            "nodes": {"name": ["a", "b", "c"]},
            "ports": {"drops_buffer": u8(1, 2), "drops_ttl": u8(0, 4), "pfc_tx": u8(5, 6)},
        },
        "summary": "{}",
    }
    lines = cli.result_table(Results(raw))
    assert any("a -> c" in l and l.rstrip().endswith("12.5us") for l in lines)
    assert lines[-1] == "drops: 7   PFC frames: 11"


def test_result_table_limits_rows():
    import numpy as np

    n = 30
    raw = {"tables": {"flows": {"flow": ("u8", np.arange(n, dtype="<u8").tobytes())}}, "summary": "{}"}
    lines = cli.result_table(Results(raw), max_flows=5)
    assert any("25 more flows" in l for l in lines)
    assert lines[-1] == "drops: n/a   PFC frames: n/a"


@pytest.mark.parametrize("ps,text", [(999, "999ps"), (1500, "1.5ns"), (123_456_789, "123us"),
                                     (8_400_000_000, "8.4ms"), (2e12, "2s"), (float("nan"), "-")])
def test_fmt_time(ps, text):
    assert cli.fmt_time_ps(ps) == text
