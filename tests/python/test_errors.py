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
    assert e.path == str(missing) and e.reason == "no such file"
    assert str(e) == f"{missing}: no such file"


def test_python_load_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        dcsim.load(tmp_path / "nope.toml")


def test_overrides_must_be_a_list_of_str(tmp_path):
    with pytest.raises(TypeError):
        _native.load(str(tmp_path / "x.toml"), "a=1")


def test_format_error():
    assert format_error(dcsim.ScenarioError("switch.pfc.xoff: must be > xon")) == \
        "error: switch.pfc.xoff: must be > xon"
    e = FileNotFoundError(2, "No such file or directory", "missing.toml")
    assert format_error(e) == "error: missing.toml: no such file or directory"
    assert format_error(dcsim.SimulationError("internal error: x")) == "error: internal error: x"
    assert format_error(ValueError("")) == "error: ValueError"


def test_run_rejects_other_types():
    with pytest.raises(TypeError, match="Scenario"):
        dcsim.run(42)
