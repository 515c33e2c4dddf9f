"""Docs that cannot drift: the generated result blocks equal what the shipped scenarios
print now (short ones on every run), and the docs name only files the repository has."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dcsim.docgen import render as GEN

ROOT = Path(__file__).resolve().parents[2]
PAGES = {rel: (ROOT / rel).read_text(encoding="utf-8") for rel in GEN.DOCS}
SHORT = sorted(n for n, (_, short) in GEN.GENERATORS.items() if short)


def committed(name: str) -> list:
    return [(rel, body) for rel, text in PAGES.items() for n, body in GEN.blocks(text) if n == name]


def test_every_generator_has_a_block():
    for name in GEN.GENERATORS:
        assert committed(name), f"no block '{name}' in {', '.join(GEN.DOCS)}"


@pytest.mark.parametrize("name", SHORT)
def test_generated_block_is_current(name):
    want = GEN.GENERATORS[name][0]()
    for rel, body in committed(name):
        assert body == want, f"{rel}: block '{name}' is stale; run `python -m dcsim.docgen` (committed:\n{body}\nnow:\n{want})"


def test_readme_run_block_is_what_dcsim_run_prints(tmp_path):
    """The block is built with the CLI's own table; check it against the CLI's output."""
    import subprocess
    import sys

    p = subprocess.run(
        [sys.executable, "-m", "dcsim", "run", "scenarios/seed000_parking_lot_pfc.toml", "--out", str(tmp_path / "run")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    lines = p.stdout.rstrip("\n").splitlines()
    ((_, body),) = [(r, b) for r, b in committed("seed000_run") if r == "README.md"]
    assert body == "```\n" + "\n".join(lines[1:-1]) + "\n```\n"


# -- references ---------------------------------------------------------------------------

CRATE = (ROOT / "crates" / "dcsim", ROOT / "crates" / "dcsim" / "src")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
CODE_PATH = re.compile(r"`((?:\.\./|\./)?(?:[\w.-]+/)+[\w.-]+\.(?:md|toml|rs|py|txt|csv|png))`")


@pytest.mark.parametrize("rel", ["README.md", "ARCHITECTURE.md"] + GEN.DOCS[1:])
def test_docs_name_only_files_of_the_repository(rel):
    path = ROOT / rel
    text = path.read_text(encoding="utf-8")
    missing = []
    for m in LINK.finditer(text):
        target = m.group(1)
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        if not (path.parent / target).exists():
            missing.append(target)
    for m in CODE_PATH.finditer(text):
        target = m.group(1)
        # A path in backticks is relative to the page, the repository root, or (a source
        # file named as in ARCHITECTURE.md's module tree) the engine crate.
        if not any((base / target).exists() for base in (path.parent, ROOT, *CRATE)):
            missing.append(target)
    outside = [
        t for t in missing + re.findall(r"\.\./shared/[\w./-]+", text) if not (ROOT / t).resolve().is_relative_to(ROOT) or "shared/" in t
    ]
    assert not missing and not outside, f"{rel} names files a user of the repository does not have: {missing + outside}"
