"""Storage scenes, the stepping handle and ``dcsim tune --quick`` (seed 004's ECN tuning)."""

import json

import pytest

import dcsim
from dcsim.errors import ArgumentError

REPO_SCENE = "scenarios/seed004_storage_oltp.toml"


def test_a_stepped_run_without_changes_equals_a_plain_run(repo_root=None):
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / REPO_SCENE
    plain = dcsim.run(path)
    st = dcsim.Stepper(path)
    assert st.kpi() is None
    for t in range(250_000_000, st.end_ps, 250_000_000):
        st.run_until(t)
        k = st.kpi()
        assert k is not None and k["time_ps"] <= t
    stepped = st.finish()
    assert stepped.summary["storage"] == plain.summary["storage"]
    assert stepped.table("io").drop(columns="run_id").equals(plain.table("io").drop(columns="run_id"))
    assert stepped.flows.drop(columns="run_id").equals(plain.flows.drop(columns="run_id"))


def test_set_ecn_changes_the_marks_and_checks_its_arguments():
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / REPO_SCENE
    marks = []
    for change in (False, True):
        st = dcsim.Stepper(path, overrides=["traffic[0].read_fraction=0.0"])
        st.run_until(1_000_000_000)
        if change:
            st.set_ecn(10_000_000, 11_000_000, 0.01)
        res = st.finish()
        io = res.table("io")
        marks.append(int(io[io["time_ps"] > 1_100_000_000]["ecn_marked"].sum()))
    assert marks[0] > 100 and marks[1] < marks[0] / 20, marks
    st = dcsim.Stepper(path)
    with pytest.raises(dcsim.ScenarioError, match="set_ecn.kmax"):
        st.set_ecn(10, 5, 0.1)
    with pytest.raises(ArgumentError):
        st.set_ecn("5KB", 10, 0.1)  # type: ignore[arg-type]


def test_tune_quick(tmp_path, cli):
    """``dcsim tune --quick``: a classifier, settings per scene class, a report; and on
    the backup scene, where a sweep shows that the defaults are not the best setting,
    the learnt setting beats them (checked by an independent run)."""
    pytest.importorskip("sklearn")
    pytest.importorskip("optuna")
    from dcsim import tuning
    from dcsim.tuning.scenes import DEFAULT_ECN, Scene

    out = tmp_path / "tune"
    p = cli("tune", "--quick", "--quiet", "--out", out)
    assert p.returncode == 0, p.stderr
    assert (out / "model.pkl").is_file() and (out / "report.md").is_file()
    settings = json.loads((out / "settings.json").read_text())
    assert set(settings["settings"]) == set(tuning.QUICK.profiles)
    ev = json.loads((out / "evaluation.json").read_text())
    assert 0.0 <= ev["accuracy_held_out"] <= 1.0 and len(ev["scenes"]) == len(tuning.QUICK.profiles)
    assert "Held-out scenes" in p.stdout

    cfg = tuning.QUICK
    scene = Scene("backup", cfg.train_loads[0], cfg.train_seeds[0])

    def iops(ecn):
        return dcsim.run(scene.scenario(ecn, cfg.duration_us, cfg.interval_us)).summary["storage"]["iops"]

    default = iops(DEFAULT_ECN)
    sweep = {ecn: iops(ecn) for ecn in [(20_000, 400_000, 0.05), (50_000, 800_000, 0.1), (100_000, 1_600_000, 0.2)]}
    assert max(sweep.values()) > default, (default, sweep)
    learnt = tuple(settings["settings"]["backup"])
    assert iops(learnt) > default, (learnt, default)


def test_phase_2_follows_a_scene_change(tmp_path, cli):
    """Seed 004's phase 2 within one run: OLTP clients stop at 1.5 ms and web-server-log
    writers start. The classifier of ``dcsim tune --quick`` names OLTP while its I/Os
    run (they drain for a while after the stop, beside the new writes), then the log
    writers, and the switches get each class's settings in turn."""
    pytest.importorskip("sklearn")
    pytest.importorskip("optuna")
    from dcsim import tuning
    from dcsim.tuning.adaptive import adaptive
    from dcsim.tuning.scenes import Scene, scene_change

    out = tmp_path / "tune"
    p = cli("tune", "train", "--quick", "--quiet", "--out", out)
    assert p.returncode == 0, p.stderr
    model = tuning.load(out)
    cfg = model.config
    first, then = Scene("oltp_data", 768, 101), Scene("web_server_log", 768, 101)
    res, named = adaptive(
        scene_change(first, then, 1500, 3000, interval_us=cfg.interval_us), model.classifier, model.settings, cfg.snapshot_us
    )
    # Snapshots every 200 us from 200 us: 400..1400 us are OLTP alone, the last two
    # are after OLTP's I/Os have drained.
    during = named[1:7]
    assert during.count("oltp_data") >= 5, named
    assert named[-2:] == ["web_server_log", "web_server_log"], named
    assert res.summary["storage"]["ios"] > 0


def test_mean_ci_is_students_t_interval():
    """The 95 % interval of the seeds table: mean +- t(n-1) s / sqrt(n)."""
    from dcsim.tuning.pipeline import mean_ci

    m, h = mean_ci([10.0, 12.0, 14.0, 16.0, 18.0])  # s = sqrt(10), t(4) = 2.776
    assert m == pytest.approx(14.0) and h == pytest.approx(2.776 * 10**0.5 / 5**0.5)
    m, h = mean_ci([1.0, 3.0])  # s = sqrt(2), t(1) = 12.706
    assert h == pytest.approx(12.706 * 2**0.5 / 2**0.5)
    with pytest.raises(ValueError):
        mean_ci([1.0])


def test_seeds_report_takes_each_seeds_largest_gain(cli):
    """Per seed the largest IOPS gain is that seed's best scene; the last row their mean."""
    from dcsim.tuning.pipeline import seeds_report

    def row(scene, d, a):
        m = lambda v: {"iops": v, "latency_mean_us": 1000 / v, "latency_p99_us": 2000 / v}  # noqa: E731
        return {"profile": scene, "load_kib": 512, "ios": 1000, "default": m(d), "adaptive": m(a), "true_class_settings": m(a)}

    evs = {101: {"scenes": [row("a", 100, 150), row("b", 100, 110)]}, 102: {"scenes": [row("a", 100, 120), row("b", 100, 130)]}}
    text = seeds_report(evs, "cmd")
    assert "| 101 | 1000 |" in text and "+50.0 % (a 512 KiB)" in text and "+30.0 % (b 512 KiB)" in text
    # largest gains 50 and 30: mean 40, half-width 12.706 * sqrt(200) / sqrt(2) = 127.06
    assert "+40.0 ± 127.1 %" in text
    p = cli("tune", "evaluate", "--eval-seeds", "101")
    assert p.returncode != 0 and "at least two different seeds" in p.stderr
