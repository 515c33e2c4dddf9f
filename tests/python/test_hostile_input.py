"""Input from a hostile or careless caller: files a scenario may not read, scenario files
that are not text, and every public entry point called with arguments of every wrong
type. Whatever goes wrong is a ``DcsimError`` subclass with a message that names the
argument, field or file, never a built-in exception or an internal error."""

import itertools
import math
import os
from pathlib import Path

import pytest

import dcsim
from conftest import REPO, run_cli
from dcsim import _native

TINY = """
[simulation]
duration = "20us"
[topology]
type = "star"
hosts = 3
rate = "10Gbps"
delay = "1us"
[[traffic]]
type = "flows"
flows = [{ src = "h1", dst = "h0", size = "2KB" }]
"""

STAR = '[simulation]\nduration = "10us"\n[topology]\ntype = "star"\nhosts = 2\nrate = "1Gbps"\ndelay = "1us"\n'


def referencing(file: str):
    """A scenario naming ``file`` in each place a scenario can name one."""
    return [
        ("topology.file", f'[simulation]\nduration = "10us"\n[topology]\ntype = "hpcc"\nfile = "{file}"\n'),
        ("traffic[0].file", f'{STAR}[[traffic]]\ntype = "csv"\nfile = "{file}"\n'),
        ("traffic[0].file", f'{STAR}[[traffic]]\ntype = "cdf"\nload = 0.5\nstop = "5us"\nfile = "{file}"\n'),
    ]


@pytest.fixture
def scen_dir(tmp_path):
    d = tmp_path / "scen"
    d.mkdir()
    (tmp_path / "sizes.txt").write_text("1000 0\n3000 100\n")
    (d / "sizes.txt").write_text("1000 0\n3000 100\n")
    (d / "sub").mkdir()
    with open(d / "huge.txt", "wb") as f:  # 1 GiB, sparse: takes no disk space
        f.truncate(1 << 30)
    os.symlink("/etc/passwd", d / "passwd.txt")
    os.symlink(tmp_path / "sizes.txt", d / "up.txt")
    return d.resolve()


HOSTILE = [
    ("../../../../../../../etc/passwd", "'/etc/passwd' is outside the scenario's directory and the data roots"),
    ("/etc/passwd", "'/etc/passwd' is outside the scenario's directory and the data roots"),
    ("/dev/zero", "'/dev/zero' is outside the scenario's directory and the data roots"),
    ("/dev/urandom", "'/dev/urandom' is outside the scenario's directory and the data roots"),
    ("sub", "{d}/sub' is a directory, not a file"),
    ("huge.txt", "{d}/huge.txt' is larger than 256 MiB"),
    ("passwd.txt", "{d}/passwd.txt' leads (through a symbolic link) to '/etc/passwd', outside"),
    ("up.txt", "{d}/up.txt' leads (through a symbolic link) to '{t}/sizes.txt', outside"),
    ("../sizes.txt", "'{t}/sizes.txt' is outside the scenario's directory"),
]


@pytest.mark.parametrize("file,want", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_file_references_are_refused(scen_dir, file, want):
    want = want.replace("{d}", str(scen_dir)).replace("{t}", str(scen_dir.parent))
    for field, text in referencing(file):
        with pytest.raises(dcsim.ScenarioError) as ei:
            dcsim.loads(text, base_dir=scen_dir)
        assert ei.value.path == field
        assert want in ei.value.reason, ei.value.reason
        assert "root:" not in str(ei.value)
        # The same through a scenario file, dcsim validate and dcsim run.
        f = scen_dir / "s.toml"
        f.write_text(text)
        with pytest.raises(dcsim.ScenarioError, match="^" + field.replace("[", r"\[").replace("]", r"\]")):
            dcsim.load(f)


def test_hostile_file_references_through_the_cli(scen_dir, tmp_path):
    f = scen_dir / "s.toml"
    f.write_text(referencing("../../../../../../etc/passwd")[1][1])
    for cmd in ("validate", "run"):
        extra = ["--out", str(tmp_path / "o")] if cmd == "run" else []
        p = run_cli(cmd, f, *extra)
        assert p.returncode == 1
        assert p.stderr.startswith("error: traffic[0].file: '/etc/passwd' is outside the scenario's directory"), p.stderr
        assert "root:" not in p.stderr and "Traceback" not in p.stderr
    assert not (tmp_path / "o").exists()


def test_data_roots_let_a_scenario_read_another_directory(scen_dir, tmp_path):
    text = referencing("../sizes.txt")[2][1]
    with pytest.raises(dcsim.ScenarioError, match="--data-root"):
        dcsim.loads(text, base_dir=scen_dir)
    assert dcsim.loads(text, base_dir=scen_dir, data_roots=[scen_dir.parent]).plan.num_nodes == 3
    f = scen_dir / "s.toml"
    f.write_text(text)
    assert dcsim.load(f, data_roots=[str(scen_dir.parent)]).plan.num_nodes == 3
    p = run_cli("validate", f, "--data-root", scen_dir.parent)
    assert p.returncode == 0, p.stderr
    # A data root must exist; the error names it.
    with pytest.raises(dcsim.ScenarioError) as ei:
        dcsim.load(f, data_roots=[tmp_path / "nope"])
    assert ei.value.path == "data_roots[0]" and "nope" in ei.value.reason
    # Once allowed, /etc/passwd is read as data: the error gives the line, not the text.
    with pytest.raises(dcsim.ScenarioError) as ei:
        dcsim.loads(referencing("/etc/passwd")[1][1], base_dir=scen_dir, data_roots=["/etc"])
    assert ei.value.reason.startswith("'/etc/passwd', line 1: ")
    assert "root" not in str(ei.value)


def test_shipped_scenarios_read_the_shipped_data():
    for name in ("leaf_spine_websearch.toml", "hpcc_fat_tree_hadoop.toml"):
        sc = dcsim.load(REPO / "scenarios" / name)
        assert sc.plan.num_flows > 0


def test_a_scenario_file_that_is_not_utf8_is_an_error_naming_it(tmp_path):
    f = tmp_path / "latin1.toml"
    f.write_bytes(STAR.encode() + b'name = "caf\xe9"\n')
    for call in (lambda: dcsim.load(f), lambda: dcsim.Scenario.from_file(f), lambda: dcsim.run(f)):
        with pytest.raises(dcsim.ScenarioError) as ei:
            call()
        assert ei.value.path == str(f)
        assert "is not UTF-8 text (invalid byte at offset" in ei.value.reason
    p = run_cli("validate", f)
    assert p.returncode == 1 and p.stderr.startswith(f"error: {f}: is not UTF-8 text"), p.stderr
    for bad, why in (
        (tmp_path, "is a directory, not a file"),
        ("/dev/zero", "is not a regular file"),
        (tmp_path / "missing.toml", "cannot be read: no such file or directory"),
    ):
        with pytest.raises(dcsim.ScenarioError) as ei:
            dcsim.load(bad)
        assert ei.value.path == str(bad) and why in ei.value.reason


def test_overrides_must_be_a_list_not_a_string():
    for call in (
        lambda ov: dcsim.loads(TINY, overrides=ov),
        lambda ov: dcsim.run(dcsim.loads(TINY), overrides=ov),
        lambda ov: dcsim.Scenario(TINY, overrides=ov),
        lambda ov: dcsim.loads(TINY).with_overrides(ov),
        lambda ov: dcsim.sweep(dcsim.loads(TINY), {"simulation.seed": [1]}, overrides=ov),
    ):
        with pytest.raises(dcsim.ArgumentError, match="overrides must be a list of strings"):
            call("abc")
    with pytest.raises(dcsim.ScenarioError):
        dcsim.loads(TINY, overrides=["abc"])


# -- every public entry point, every wrong type --------------------------------------------


def _recursive_list():
    x: list = []
    x.append(x)
    return x


def _recursive_dict():
    x: dict = {}
    x["simulation"] = x
    return x


WRONG = [
    None,
    0,
    -1,
    1.5,
    math.nan,
    math.inf,
    True,
    10**40,
    b"scenario",
    bytearray(b"x"),
    "",
    "\0",
    "abc",
    "a=1",
    [],
    [1],
    [None],
    ["a=1", 2],
    [b"x"],
    ("x",),
    {},
    {"a": object()},
    {1: 2},
    {"simulation": {"seed": [None]}},
    set(),
    frozenset({"a"}),
    object(),
    (lambda: 0),
    Path("/proc/dcsim-nowhere/x"),
    Path(""),
    _recursive_list(),
    _recursive_dict(),
    iter(["a=1"]),
    type,
    Exception("x"),
]


@pytest.fixture(scope="module")
def results():
    return dcsim.run(dcsim.loads(TINY))


def entry_points(results, tmp):
    """(name, callable, valid keyword arguments) of every public entry point."""
    sc = dcsim.loads(TINY)
    f = tmp / "tiny.toml"
    f.write_text(TINY)
    res = results
    return [
        ("load", dcsim.load, dict(path=f, overrides=None, data_roots=None)),
        ("loads", dcsim.loads, dict(text=TINY, base_dir=".", overrides=None, data_roots=None)),
        (
            "run",
            lambda scenario, overrides, progress, data_roots: dcsim.run(
                scenario, overrides=overrides, progress=progress, data_roots=data_roots
            ),
            dict(scenario=sc, overrides=None, progress=False, data_roots=None),
        ),
        (
            "sweep",
            lambda scenario, grid, overrides, per_flow, jobs, point_memory: dcsim.sweep(
                scenario, grid, overrides=overrides, per_flow=per_flow, jobs=jobs, point_memory=point_memory
            ),
            dict(scenario=sc, grid={"simulation.seed": [1]}, overrides=(), per_flow=False, jobs=1, point_memory=None),
        ),
        ("jain", dcsim.jain, dict(xs=[1.0, 2.0])),
        ("load_run", dcsim.load_run, dict(run_dir=tmp / "run")),
        (
            "Scenario",
            lambda text, base_dir, overrides, path, data_roots: dcsim.Scenario(
                text, base_dir=base_dir, overrides=overrides, path=path, data_roots=data_roots
            ).validate(),
            dict(text=TINY, base_dir=".", overrides=None, path=None, data_roots=None),
        ),
        ("Scenario.from_file", dcsim.Scenario.from_file, dict(path=f, overrides=None, data_roots=None)),
        (
            "Scenario.from_dict",
            lambda d, base_dir, data_roots: dcsim.Scenario.from_dict(d, base_dir=base_dir, data_roots=data_roots).validate(),
            dict(d=sc.to_dict(), base_dir=".", data_roots=None),
        ),
        ("Scenario.set", lambda path, value: sc.copy().set(path, value).validate(), dict(path="simulation.seed", value=3)),
        ("Scenario.with_overrides", lambda overrides: sc.with_overrides(overrides).validate(), dict(overrides=["simulation.seed=2"])),
        ("Scenario.with_data_roots", sc.with_data_roots, dict(data_roots=[tmp])),
        ("Scenario.save", sc.save, dict(path=tmp / "saved.toml")),
        ("Scenario.run", lambda progress: sc.run(progress=progress), dict(progress=False)),
        ("Results.table", res.table, dict(name="flows")),
        ("Results.__getitem__", lambda name: res[name], dict(name="flows")),
        (
            "Results.write",
            lambda out_dir, fmt, overwrite: res.write(out_dir, fmt, overwrite=overwrite),
            dict(out_dir=tmp / "w", fmt="csv", overwrite=True),
        ),
        ("Results.fct_by_group", res.fct_by_group, dict(percentiles=(50, 99))),
        (
            "Results.fct_by_size",
            lambda bins, share, edges, percentiles, by_group: res.fct_by_size(
                bins=bins, share=share, edges=edges, percentiles=percentiles, by_group=by_group
            ),
            dict(bins=None, share=0.05, edges=None, percentiles=(50,), by_group=True),
        ),
    ]


def test_every_entry_point_raises_only_dcsim_errors(results, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # wrong values that happen to be valid paths land here
    results.write(tmp_path / "run")
    calls = 0
    leaks = []
    for name, fn, good in entry_points(results, tmp_path):
        fn(**good)  # the valid call works
        for arg, bad in itertools.product(list(good), WRONG):
            kwargs = dict(good, **{arg: bad})
            calls += 1
            try:
                fn(**kwargs)
            except dcsim.DcsimError as e:
                msg = str(e)
                if "internal error" in msg or "\n" in msg or not msg:
                    leaks.append(f"{name}({arg}={bad!r}): {type(e).__name__}: {msg!r}")
            except BaseException as e:  # noqa: BLE001 - what this test looks for
                leaks.append(f"{name}({arg}={bad!r}): {type(e).__name__}: {e}")
    assert calls > 500
    assert not leaks, f"{len(leaks)} of {calls} calls raised something else:\n" + "\n".join(leaks)


def test_argument_errors_name_the_argument_and_stay_compatible():
    with pytest.raises(dcsim.ArgumentError, match="^overrides\\[1\\] must be a 'path=value' string, not int$"):
        dcsim.loads(TINY, overrides=["simulation.seed=1", 2])
    with pytest.raises(dcsim.ArgumentError, match="^data_roots must be a list of directories, not a single str$"):
        dcsim.loads(TINY, data_roots="/etc")
    # Also TypeError and ValueError, as the built-in errors they replace were.
    assert issubclass(dcsim.ArgumentError, (TypeError, ValueError))
    assert issubclass(dcsim.OutputError, OSError)
    with pytest.raises(TypeError):
        dcsim.run(42)
    with pytest.raises(KeyError):
        dcsim.loads(TINY).run()["no_such_table"]


def test_native_errors_are_dcsim_errors():
    with pytest.raises(dcsim.ScenarioError) as ei:
        _native.loads(TINY.replace('"20us"', '"20 parsecs"'), ".", [])
    assert ei.value.path == "simulation.duration"
