import pytest

import dcsim
from conftest import REPO
from dcsim import cli


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
    assert parse("validate", "sc.toml", "--max-events", "5e10").max_events == 50_000_000_000
    assert parse("run", "sc.toml", "--max-events", "123").max_events == 123


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


def test_bench_reports_intervals_that_add_up_to_the_run(capsys):
    import json

    rc = cli.main(["bench", "--only", "incast", "--set", "simulation.duration=200us", "--every", "60us", "--json"])
    assert rc == 0
    cap = capsys.readouterr()
    row = json.loads(cap.out.strip().splitlines()[-1])
    iv = row["intervals"]
    # 60, 120, 180 us and the end at 200 us: the last interval is cut at the run's end.
    assert [r["to_ps"] for r in iv] == [60_000_000, 120_000_000, 180_000_000, 200_000_000]
    assert sum(r["hops"] for r in iv) == row["hops"] > 0
    assert all(r["packets_in_flight"] >= 0 and r["wall_s"] >= 0 for r in iv)
    lines = [ln for ln in cap.err.splitlines() if " ms: " in ln]
    assert len(lines) == 4 and lines[-1].startswith("bench_incast_64_to_1: to 0.2 ms: ")


@pytest.mark.parametrize("every, why", [("0ms", "must be positive"), ("10parsecs", "is not a duration")])
def test_bench_rejects_a_bad_interval(every, why, capsys):
    with pytest.raises(SystemExit) as ei:
        cli.main(["bench", "--only", "incast", "--every", every])
    assert ei.value.code == 2
    err = capsys.readouterr().err
    assert "--every" in err and why in err


def test_bench_names_a_bad_override_without_a_traceback(capsys):
    rc = cli.main(["bench", "--only", "incast", "--set", "simulation.duration=-1ms"])
    assert rc == 1
    err = capsys.readouterr().err
    assert err.startswith("incast_64_to_1: failed: simulation.duration") and "Traceback" not in err


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
    assert p.stderr.strip() == f"error: {missing}: cannot be read: no such file or directory"
    assert "Traceback" not in p.stderr


def test_help_and_version(cli):
    p = cli("--help")
    assert p.returncode == 0 and "run" in p.stdout and "validate" in p.stdout
    p = cli("--version")
    assert p.returncode == 0 and dcsim.__version__ in p.stdout


def test_result_table_from_a_real_run():
    import dcsim

    sc = dcsim.Scenario.from_dict(
        {
            "simulation": {"duration": "300us"},
            "topology": {"type": "star", "hosts": 3, "rate": "10Gbps", "delay": "1us"},
            "traffic": [
                {
                    "type": "flows",
                    "flows": [
                        {"src": "h1", "dst": "h0", "size": "20KB"},
                        {"src": "h2", "dst": "h0"},
                    ],
                }
            ],
        }
    )
    lines = cli.result_table(dcsim.run(sc), max_flows=1)
    text = "\n".join(lines)
    assert "h1 -> h0" in text and "1 more flows" in text
    finished = next(ln for ln in lines if "h1 -> h0" in ln)
    assert finished.split()[-2].endswith("us"), finished  # an FCT is shown
    assert any(ln.startswith("drops: 0") and "XOFF" in ln for ln in lines)
    assert any(ln.startswith("packet latency: p50") for ln in lines)


@pytest.mark.parametrize(
    "ps,text", [(999, "999ps"), (1500, "1.5ns"), (123_456_789, "123us"), (8_400_000_000, "8.4ms"), (2e12, "2s"), (float("nan"), "-")]
)
def test_fmt_time(ps, text):
    assert cli.fmt_time_ps(ps) == text


LOSSY_ROCE = """
[simulation]
duration = "20us"
[topology]
type = "star"
hosts = 3
rate = "40Gbps"
delay = "1us"
[[traffic]]
type = "incast"
receiver = "h0"
senders = ["h1", "h2"]
size = "10KB"
priority = 0
"""


def test_roce_on_a_lossy_priority_is_a_warning_in_the_cli_and_summary(tmp_path, capsys):
    sc = tmp_path / "lossy.toml"
    sc.write_text(LOSSY_ROCE)
    assert cli.main(["validate", str(sc)]) == 0
    err = capsys.readouterr().err
    assert "warning: traffic[0].priority: RoCE flows on priority 0, which is lossy" in err
    assert cli.main(["run", str(sc), "--out", str(tmp_path / "o"), "--quiet"]) == 0
    assert "warning: traffic[0].priority" in capsys.readouterr().err
    import json

    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["warnings"] == [w for w in dcsim.load(sc).plan.warnings] and len(summary["warnings"]) == 1
    # On the lossless priority: no warning.
    assert dcsim.loads(LOSSY_ROCE.replace("priority = 0", "priority = 3")).plan.warnings == []


def test_a_table_cut_short_by_its_cap_is_a_warning(tmp_path, capsys):
    sc = str(REPO / "scenarios" / "seed000_parking_lot_pfc.toml")
    caps = ["--set", "stats.max_rows=50", "--set", "stats.max_pfc_events=10"]
    assert cli.main(["run", sc, "--out", str(tmp_path / "o"), "--quiet", *caps]) == 0
    err = capsys.readouterr().err
    assert "warning: stats.max_pfc_events: the pfc_events table holds 10 rows; " in err
    assert "warning: stats.max_rows: the samples table holds 50 rows; " in err and "(raise stats.max_rows to keep them)" in err
    assert "rate changes" not in err  # nothing cut: no line
    # A log turned off (a cap of 0) is no surprise: no line for it.
    off = ["--set", "stats.max_pfc_events=0"]
    assert cli.main(["run", sc, "--out", str(tmp_path / "p"), "--quiet", *off]) == 0
    assert "warning" not in capsys.readouterr().err


def test_pfc_off_with_a_lossless_list_is_an_error_naming_the_field():
    with pytest.raises(dcsim.ScenarioError, match=r"switch\.pfc\.lossless: lists priority 3 as lossless"):
        dcsim.loads(LOSSY_ROCE + '[switch.pfc]\nmode = "off"\nlossless = [3]\n')


def test_titles_split_on_commas():
    assert cli.split_titles(["A,B,C"]) == ["A", "B", "C"]
    assert cli.split_titles(["A", "B"]) == ["A", "B"]
    assert cli.split_titles(None) is None
    a = parse("plot", "r1", "r2", "--title", "DCQCN, HPCC")
    assert cli.split_titles(a.titles) == ["DCQCN", "HPCC"]
