"""Congestion control written in Python: the docs' DCQCN example equals the built-in
DCQCN bit for bit, and bad classes or failing hooks give dcsim errors naming the field,
the flow and the hook."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import dcsim

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "models" / "python-cc.md"
SCENARIO = ROOT / "scenarios" / "dcqcn_2to1.toml"


def docs_example() -> type:
    """The class of the docs page's first Python block that defines one."""
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    code = next(b for b in blocks if "class PyDcqcn" in b)
    ns: dict = {}
    exec(compile(code, str(DOC), "exec"), ns)
    return ns["PyDcqcn"]


def python_scenario(cc_table: dict, duration: str | None = None) -> dict:
    sc = dcsim.load(SCENARIO).to_dict()
    sc["host"]["cc"] = cc_table
    if duration:
        sc["simulation"]["duration"] = duration
    return sc


def assert_same_tables(a: dcsim.Results, b: dcsim.Results) -> None:
    assert a.names == b.names
    for name in a.names:
        ta, tb = a.table(name), b.table(name)
        assert list(ta.columns) == list(tb.columns), name
        for col in ta.columns:
            if col == "run_id":  # the scenario text differs: [host.cc]
                continue
            x, y = ta[col].to_numpy(), tb[col].to_numpy()
            if x.dtype.kind == "f":
                assert np.array_equal(x, y, equal_nan=True), f"{name}.{col}"
            else:
                assert (x == y).all(), f"{name}.{col}"


def test_python_dcqcn_is_bit_identical_to_builtin():
    cls = docs_example()
    builtin = dcsim.run(SCENARIO)
    py = dcsim.run(python_scenario({"type": "python", "class": "PyDcqcn"}), cc=[cls])
    # The run must have reacted: CNPs arrived and the rates moved.
    assert builtin.flows["cnps_received"].sum() > 0
    assert builtin.flows["min_rate_gbps"].max() < 40
    assert_same_tables(builtin, py)


def test_python_dcqcn_differs_when_a_parameter_differs():
    # The comparison can fail: another g gives other rates.
    cls = docs_example()
    a = dcsim.run(SCENARIO, overrides=["simulation.duration=20ms"])
    b = dcsim.run(python_scenario({"type": "python", "class": "PyDcqcn", "g": 0.5}, "20ms"), cc=[cls])
    assert not a.table("flows").equals(b.table("flows"))


class NoStart(dcsim.CongestionControl):
    def on_cnp(self, ctx):
        pass


class NoReaction(dcsim.CongestionControl):
    def on_start(self, ctx):
        pass


class Raises(dcsim.CongestionControl):
    def on_start(self, ctx):
        ctx.restart_timer(0, 1_000_000)

    def on_timer(self, ctx, kind):
        raise ValueError("boom in the timer")


class BadRate(dcsim.CongestionControl):
    def on_start(self, ctx):
        self.rate = "fast"

    def on_cnp(self, ctx):
        pass


class NotACc:
    def on_start(self, ctx):
        pass


@pytest.mark.parametrize(
    "cls, msg",
    [
        (NoStart, "host.cc.class: class NoStart lacks the required hook on_start"),
        (NoReaction, "host.cc.class: class NoReaction defines none of the required reaction hooks"),
        (NotACc, "host.cc.class: NotACc is not a subclass of dcsim.CongestionControl"),
    ],
)
def test_bad_classes_name_the_field_and_hook(cls, msg):
    sc = python_scenario({"type": "python", "class": cls.__name__}, "11ms")
    with pytest.raises(dcsim.ScenarioError) as e:
        dcsim.run(sc, cc={cls.__name__: cls})
    assert msg in str(e.value)


def test_unknown_class_and_missing_classes():
    sc = python_scenario({"type": "python", "class": "Nope"}, "11ms")
    with pytest.raises(dcsim.ScenarioError, match=r"host.cc.class: no class \"Nope\" was given"):
        dcsim.run(sc, cc=[NoReaction])
    with pytest.raises(dcsim.ScenarioError, match=r"host.cc.class: no class \"Nope\" was given \(cc= names: none\)"):
        dcsim.run(sc)
    # Without the Python API's binding (as the CLI runs it), the engine refuses the plan.
    from dcsim import _native

    with pytest.raises(dcsim.ScenarioError, match=r"host.cc.type: \"python\" \(class \"Nope\"\) runs only from the Python API"):
        _native.run(dcsim.Scenario.from_dict(sc).validate())
    with pytest.raises(dcsim.ScenarioError, match=r"host.cc.class: missing"):
        dcsim.run(python_scenario({"type": "python"}, "11ms"))


def test_hook_exception_is_a_simulation_error_with_traceback():
    sc = python_scenario({"type": "python", "class": "Raises"}, "12ms")
    with pytest.raises(dcsim.SimulationError) as e:
        dcsim.run(sc, cc=[Raises])
    text = str(e.value)
    assert re.search(r"^congestion control: flow [01]: Raises.on_timer failed: Traceback", text)
    assert "Traceback" in text and "ValueError: boom in the timer" in text


def test_bad_rate_is_a_simulation_error():
    sc = python_scenario({"type": "python", "class": "BadRate"}, "11ms")
    with pytest.raises(dcsim.SimulationError, match="BadRate.on_start failed: rate must be a number"):
        dcsim.run(sc, cc=[BadRate])


def test_parameters_reach_the_class_and_runs_repeat():
    seen = []

    class Fixed(dcsim.CongestionControl):
        def __init__(self, nic, params):
            super().__init__(nic, params)
            seen.append((nic.line_rate, dict(params)))

        def on_start(self, ctx):
            self.rate = self.params["gbps"] * 1e9 * ctx.uniform

        def on_cnp(self, ctx):
            self.rate = self.rate / 2

    sc = python_scenario({"type": "python", "class": "Fixed", "gbps": 10}, "12ms")
    a = dcsim.run(sc, cc=[Fixed])
    b = dcsim.run(sc, cc=[Fixed])
    assert seen[0] == (40_000_000_000, {"gbps": 10})
    assert len(seen) == 4  # two flows, two runs
    assert_same_tables(a, b)


def test_parameters_with_units_are_parsed():
    from types import SimpleNamespace

    class Tuned(dcsim.CongestionControl):
        units = {"ai": "rate", "period": "time", "kmin": "size"}

        def on_start(self, ctx):
            pass

        def on_cnp(self, ctx):
            pass

    nic = SimpleNamespace(line_rate=40e9)
    cc = Tuned(nic, {"ai": "40Mbps", "period": "55us", "kmin": "100KB", "g": 0.5, "other": "text"})
    assert cc.params == {"ai": 40_000_000, "period": 55_000_000, "kmin": 100_000, "g": 0.5, "other": "text"}
    assert Tuned(nic, {"ai": 5e6}).params["ai"] == 5e6  # a number is kept
    with pytest.raises(ValueError, match="^period: "):
        Tuned(nic, {"period": "55 parsecs"})
