import pytest

import dcsim
from dcsim import _native
from dcsim.cli import format_error


def test_hierarchy():
    assert issubclass(dcsim.ScenarioError, dcsim.DcsimError)
    assert issubclass(dcsim.SimulationError, dcsim.DcsimError)
    assert issubclass(dcsim.DcsimError, Exception)
    assert dcsim.ScenarioError.__module__ == "dcsim._native"


def test_panic_becomes_simulation_error_quietly(capfd):
    with pytest.raises(dcsim.SimulationError, match=r"^internal error: boom") as ei:
        _native._panic("boom")
    assert "lib.rs" in str(ei.value)
    err = capfd.readouterr().err
    assert "panicked" not in err and "backtrace" not in err.lower()
    # The module keeps working after a caught panic.
    with pytest.raises(dcsim.SimulationError):
        _native._panic("again")


def test_missing_file_is_scenario_error_with_parts(tmp_path):
    missing = tmp_path / "nope.toml"
    with pytest.raises(dcsim.ScenarioError) as ei:
        _native.load(str(missing), [])
    e = ei.value
    assert e.path == str(missing) and e.reason == "cannot be read: no such file or directory"
    assert str(e) == f"{missing}: cannot be read: no such file or directory"


def test_python_load_missing_file(tmp_path):
    with pytest.raises(dcsim.ScenarioError, match="no such file"):
        dcsim.load(tmp_path / "nope.toml")


def test_overrides_must_be_a_list_of_str(tmp_path):
    with pytest.raises(TypeError):
        _native.load(str(tmp_path / "x.toml"), "a=1")


def test_format_error():
    assert format_error(dcsim.ScenarioError("switch.pfc.xoff: must be > xon")) == "error: switch.pfc.xoff: must be > xon"
    e = FileNotFoundError(2, "No such file or directory", "missing.toml")
    assert format_error(e) == "error: missing.toml: no such file or directory"
    assert format_error(dcsim.SimulationError("internal error: x")) == "error: internal error: x"
    assert format_error(ValueError("")) == "error: ValueError"


def test_run_rejects_other_types():
    with pytest.raises(TypeError, match="Scenario"):
        dcsim.run(42)


HUGE_INCAST = """
[simulation]
duration = "10us"
[topology]
type = "star"
hosts = 4
rate = "40Gbps"
delay = "1us"
[[traffic]]
type = "incast"
receiver = "h0"
sender_count = 3
flows_per_sender = 1000000000
"""


def test_huge_counts_are_refused_with_the_estimate():
    with pytest.raises(dcsim.ScenarioError) as ei:
        dcsim.loads(HUGE_INCAST)
    e = ei.value
    assert e.path == "traffic[0].flows_per_sender"
    assert e.reason.startswith("this scenario needs about ") and "3000000000 flows" in e.reason
    assert "the limit is 16.00 GiB" in e.reason and "simulation.memory_limit" in e.reason
    # The limit can be raised (or lowered) per scenario.
    small = HUGE_INCAST.replace("1000000000", "10")
    dcsim.loads(small)
    with pytest.raises(dcsim.ScenarioError, match="the limit is"):
        dcsim.loads(small.replace('duration = "10us"', 'duration = "10us"\nmemory_limit = "1KiB"'))


def test_errors_are_one_line():
    text = HUGE_INCAST.replace('receiver = "h0"', 'receiver = "h\\n0\\u2028"')
    with pytest.raises(dcsim.ScenarioError) as ei:
        dcsim.loads(text)
    msg = str(ei.value)
    assert "\n" not in msg and "\u2028" not in msg
    assert msg == "traffic[0].receiver: no host named 'h\\n0\\u{2028}'"


def test_a_rate_that_would_stop_the_clock_is_refused():
    with pytest.raises(dcsim.ScenarioError, match=r'^topology.rate: rate "1000Tbps" is above the largest supported rate, 8Tbps'):
        dcsim.loads(HUGE_INCAST.replace('"40Gbps"', '"1000Tbps"'))


def test_unknown_key_suggests_the_closest(tmp_path):
    text = '[simulation]\nduration = "10us"\nsed = 1\n[topology]\ntype = "star"\nhosts = 2\nrate = "1Gbps"\ndelay = "1us"\n'
    with pytest.raises(dcsim.ScenarioError, match=r"^simulation: unknown field 'sed' \(did you mean 'seed'\?\)"):
        dcsim.loads(text)
    base = text.replace("sed = 1\n", "")
    with pytest.raises(dcsim.ScenarioError, match=r"^host\.cc: unknown field 'gg' \(did you mean 'g'\?\)"):
        dcsim.loads(base, overrides=["host.cc.type=dcqcn", "host.cc.gg=2"])


def test_file_errors_name_the_resolved_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    with pytest.raises(dcsim.ScenarioError, match=f"^{tmp_path / 'nope.toml'}: cannot be read"):
        dcsim.load("sub/../nope.toml")
    # A file the scenario names: resolved against the scenario's directory.
    sc = tmp_path / "sub" / "s.toml"
    sc.write_text('[simulation]\nduration = "10us"\n[topology]\ntype = "hpcc"\nfile = "x/../topo.txt"\n')
    with pytest.raises(dcsim.ScenarioError, match=f"topology.file: '{tmp_path / 'sub' / 'topo.txt'}' cannot be read"):
        dcsim.load(sc)
