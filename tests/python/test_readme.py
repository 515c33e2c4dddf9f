"""The README's seed-000 result table is what the shipped scenario prints now."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def readme_block() -> list:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"```\n( flow  src -> dst.*?)```\n", text, re.S)
    assert m, "README: the seed-000 result block is missing"
    return m.group(1).rstrip("\n").splitlines()


def test_readme_seed000_table_is_the_current_output(tmp_path):
    p = subprocess.run([sys.executable, "-m", "dcsim", "run", "scenarios/seed000_parking_lot_pfc.toml",
                        "--out", str(tmp_path / "run")], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.rstrip("\n").splitlines()
    # First line: wall time and event count (vary); last: where the files went.
    assert lines[0].startswith("seed000_parking_lot_pfc: simulated 20ms") and lines[-1].startswith("outputs:")
    assert readme_block() == lines[1:-1], (
        "README.md's seed-000 block differs from `dcsim run scenarios/seed000_parking_lot_pfc.toml`; "
        "paste the current output (without its first and last lines) into the README")
