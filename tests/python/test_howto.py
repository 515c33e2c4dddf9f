"""The how-to guides (and the first-scenario tutorial) run as written: every ```bash
block of docs/howto/*.md runs, in
order, in a scratch directory that sees the repository's scenarios/ and data/, with
`dcsim` and `python` the package and interpreter under test; a ```text block right after
a command's block is its expected standard output. A block whose first line is
`# needs: ray` or `# needs: tshark` runs only where that is available; the guide's other
blocks still run, and the test then reports the block it left out as a skip."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HOWTO = sorted((REPO / "docs" / "howto").glob("*.md"))
GUIDES = HOWTO + [REPO / "docs" / "getting_started" / "first_scenario.md"]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)
NEEDS = re.compile(r"\A# needs: (\w+)\n")


def missing(cmd: str):
    """Why a block cannot run here (its `# needs:` is absent), or None."""
    m = NEEDS.match(cmd)
    if m is None:
        return None
    need = m.group(1)
    if need == "ray":
        return None if importlib.util.find_spec("ray") else "ray is not importable (pip install 'dcsim[ray]')"
    if need == "tshark":
        return None if shutil.which("tshark") else "tshark is not on PATH (apt-get install tshark)"
    raise AssertionError(f"unknown '# needs: {need}'")


def blocks(text: str):
    """(bash block, expected stdout or None) in page order."""
    found = [(m.group(1), m.group(2)) for m in FENCE.finditer(text)]
    out = []
    for i, (lang, body) in enumerate(found):
        if lang == "bash":
            nxt = found[i + 1] if i + 1 < len(found) else None
            out.append((body, nxt[1] if nxt is not None and nxt[0] == "text" else None))
    return out


def test_the_guides_have_commands():
    assert HOWTO
    for g in GUIDES:
        assert blocks(g.read_text()), f"{g.name}: no ```bash block"


@pytest.mark.parametrize("guide", GUIDES, ids=[g.stem for g in GUIDES])
def test_a_guide_runs_as_written(guide, tmp_path):
    for d in ("scenarios", "data"):
        (tmp_path / d).symlink_to(REPO / d)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, run in (("dcsim", "-m dcsim "), ("python", "")):
        shim = bin_dir / name
        shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" {run}"$@"\n')
        shim.chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    left_out = []
    for cmd, expected in blocks(guide.read_text()):
        why = missing(cmd)
        if why is not None:
            left_out.append(why)
            continue
        p = subprocess.run(["bash", "-euo", "pipefail", "-c", cmd], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert p.returncode == 0, f"{guide.name}: {cmd}\n{p.stderr[-2000:]}"
        if expected is not None:
            assert p.stdout == expected, f"{guide.name}: the output of\n{cmd}\ndiffers from the page:\n{p.stdout}"
    # What the pages show exists after the commands ran.
    for ref in re.findall(r"--out (out/[\w./-]+)", guide.read_text()):
        if not left_out:
            assert (tmp_path / ref).exists(), f"{guide.name}: {ref} was not written"
    if left_out:
        pytest.skip(f"{guide.name}: every other block ran; left out: {'; '.join(left_out)}")
