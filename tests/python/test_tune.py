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
