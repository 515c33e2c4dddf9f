"""``import dcsim`` stays light: pandas and NumPy load with the first name that needs
them, so that a process that only runs a scenario (a benchmark's) does not hold them."""

import subprocess
import sys

import pytest


def test_import_loads_neither_pandas_nor_numpy():
    code = "import sys, dcsim; print('pandas' in sys.modules, 'numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60).stdout.split()
    assert out == ["False", "False"]


def test_lazy_names_resolve():
    import dcsim
    from dcsim.results import Results, load_run, run_id
    from dcsim.stepper import Stepper
    from dcsim.sweeps import compare, jain, sweep

    assert (dcsim.Results, dcsim.load_run, dcsim.run_id, dcsim.Stepper) == (Results, load_run, run_id, Stepper)
    assert (dcsim.compare, dcsim.jain, dcsim.sweep) == (compare, jain, sweep)
    assert set(dcsim.__all__) <= set(dir(dcsim))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        dcsim.nope  # noqa: B018
