import math

import pytest
import tomllib

import dcsim
from dcsim import _native, _toml
from dcsim.scenario import Scenario

DOC = {
    "name": 'incast "4:1"',
    "seed": 7,
    "duration": "2ms",
    "ratio": 0.25,
    "big": 1e16,
    "tiny": 1e-07,
    "enabled": True,
    "ports": [1, 2, 3],
    "nested_list": [[1, 2], ["a", "b"]],
    "unicode": "µs \t tab\nline \u0001",
    "odd key": 1,
    "skipped": None,
    "host": {"mtu": 1024, "cc": {"type": "dcqcn", "params": {"g": 0.00390625}}},
    "switch": {"pfc": {"xoff": "100KiB", "lossless": [3]}, "buffer": {"type": "shared"}},
    "traffic": [
        {"src": "h0", "dst": "h4", "size": "1MB", "cc": {"type": "dcqcn"}},
        {"src": "h1", "dst": "h4", "tags": {"a": 1, "b": [1, 2]}},
    ],
    "empty": {},
    "inline": [{"a": 1}, 2],
}


def expected(d):
    if isinstance(d, dict):
        return {k: expected(v) for k, v in d.items() if v is not None}
    if isinstance(d, (list, tuple)):
        return [expected(x) for x in d]
    return d


def test_round_trip_tomllib():
    text = _toml.dumps(DOC)
    assert tomllib.loads(text) == expected(DOC)


def test_round_trip_is_stable():
    text = _toml.dumps(DOC)
    assert _toml.dumps(tomllib.loads(text)) == text


def test_special_floats():
    back = tomllib.loads(_toml.dumps({"a": float("nan"), "b": float("inf"), "c": -float("inf"), "d": 3.0}))
    assert math.isnan(back["a"]) and back["b"] == math.inf and back["c"] == -math.inf
    assert back["d"] == 3.0 and isinstance(back["d"], float)


def test_numpy_scalars():
    np = pytest.importorskip("numpy")
    back = tomllib.loads(_toml.dumps({"a": np.int64(5), "b": np.float64(0.5), "c": np.bool_(True)}))
    assert back == {"a": 5, "b": 0.5, "c": True}


def test_unwritable_values_are_named():
    with pytest.raises(TypeError, match=r"host\.x"):
        _toml.dumps({"host": {"x": object()}})
    with pytest.raises(ValueError, match=r"a\[1\]"):
        _toml.dumps({"a": [1, None]})
    with pytest.raises(TypeError):
        _toml.dumps([1, 2])


def test_tables_in_table_arrays_stay_with_their_element():
    doc = {"traffic": [{"src": "a", "cc": {"type": "x"}}, {"src": "b" * 200, "cc": {"type": "y"}}]}
    assert tomllib.loads(_toml.dumps(doc)) == doc


@pytest.mark.parametrize(
    "value,text",
    [
        (40, "40"),
        (True, "true"),
        (1.5, "1.5"),
        ("x y", '"x y"'),
        ([1, 2], "[1, 2]"),
        ('say "hi"', '"say \\"hi\\""'),
        ({"type": "dcqcn", "g": 0.5}, '{ type = "dcqcn", g = 0.5 }'),
        ({"odd key": [{"a": 1}]}, '{ "odd key" = [{ a = 1 }] }'),
        ({}, "{}"),
    ],
)
def test_format_value(value, text):
    assert _toml.format_value(value) == text
    assert tomllib.loads(f"v = {text}")["v"] == value


@pytest.mark.parametrize(
    "text,value",
    [
        ("40", 40),
        ("true", True),
        ("1.5", 1.5),
        ('"x y"', "x y"),
        ("[1, 2]", [1, 2]),
        ("40Gbps", "40Gbps"),
        ("100KiB", "100KiB"),
        ("dcqcn", "dcqcn"),
    ],
)
def test_override_values_are_read_by_the_engine(text, value):
    # TOML if it parses as a value, else the bare text as a string.
    merged = _native.apply_overrides("", [f"v={text}"])
    assert tomllib.loads(merged) == {"v": value}


def test_apply_overrides_uses_the_engine_paths():
    text = '[switch.pfc]\nxoff = "1KiB"\n\n[[traffic]]\nrate = "1Gbps"\n'
    merged = _native.apply_overrides(text, ['switch.pfc.xoff="100KiB"', "switch.ecn.kmin=10", 'traffic[0].rate="5Gbps"'])
    assert tomllib.loads(merged) == {"switch": {"pfc": {"xoff": "100KiB"}, "ecn": {"kmin": 10}}, "traffic": [{"rate": "5Gbps"}]}
    # The merged text is read back to the same document by the engine.
    assert tomllib.loads(_native.apply_overrides(merged, [])) == tomllib.loads(merged)
    with pytest.raises(dcsim.ScenarioError, match=r"^traffic\[3\]\.rate: index 3 is out of range") as ei:
        _native.apply_overrides(text, ["traffic[3].rate=1Gbps"])
    assert ei.value.path == "traffic[3].rate"
    # Python-style numeric segments are not paths.
    with pytest.raises(dcsim.ScenarioError, match=r"traffic\.0\.rate"):
        _native.apply_overrides(text, ["traffic.0.rate=1Gbps"])
    with pytest.raises(dcsim.ScenarioError, match=r"^scenario \(line 1, column \d+\): TOML syntax error"):
        _native.apply_overrides("a = ", [])


def test_check_override():
    _native.check_override("traffic[0].flows[1].size=1MB")
    with pytest.raises(dcsim.ScenarioError, match=r"^--set no-equals-sign: expected path=value"):
        _native.check_override("no-equals-sign")
    with pytest.raises(dcsim.ScenarioError, match=r"a\.\.b"):
        _native.check_override("a..b=1")


def test_indexed_set_is_saved_as_a_table_array(tmp_path):
    sc = Scenario("[[traffic]]\nsize = 1\n\n[[traffic]]\nsize = 2\n").set("traffic[1].size", "1MB")
    assert sc.overrides == ['traffic[1].size="1MB"']
    assert sc.to_dict() == {"traffic": [{"size": 1}, {"size": "1MB"}]}
    again = Scenario.from_file(sc.save(tmp_path / "s.toml"))
    assert again.to_dict() == sc.to_dict()
    assert "traffic[1]" not in again.text


def test_scenario_from_dict_set_save(tmp_path):
    sc = Scenario.from_dict({"name": "t", "switch": {"pfc": {"xoff": "1KiB"}}})
    assert tomllib.loads(sc.text) == {"name": "t", "switch": {"pfc": {"xoff": "1KiB"}}}
    assert sc.to_toml() == sc.text
    sc.set("switch.pfc.xoff", "100KiB").set("seed", 3).set("switch.pfc.on", True)
    assert sc.overrides == ['switch.pfc.xoff="100KiB"', "seed=3", "switch.pfc.on=true"]
    assert sc.to_dict() == {"name": "t", "seed": 3, "switch": {"pfc": {"xoff": "100KiB", "on": True}}}
    p = sc.save(tmp_path / "sub" / "saved.toml")
    again = Scenario.from_file(p)
    assert again.to_dict() == sc.to_dict()
    assert again.base_dir == p.parent and again.path == p
    # Bare override values (as typed on the command line) merge as strings.
    bare = Scenario("a = 1\n", overrides=["b.c=40Gbps", "a=2"])
    assert bare.to_dict() == {"a": 2, "b": {"c": "40Gbps"}}


def test_scenario_copy_is_independent():
    sc = Scenario("a = 1\n")
    other = sc.with_overrides(["a=2"])
    assert sc.overrides == [] and other.overrides == ["a=2"]
    with pytest.raises(dcsim.ScenarioError, match="oops"):
        sc.with_overrides(["oops"])
    with pytest.raises(dcsim.ScenarioError, match=r"a\[x\]"):
        sc.set("a[x]", 1)
