"""Pages written by scripts: docs/scenario_index.md lists every shipped scenario as
scripts/scenario_index.py writes it now, and docs/cli.md is what scripts/cli_reference.py
makes of the command's parser. A new or changed scenario file or option makes these fail
until the page is regenerated."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _gen(name="scenario_index"):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_index_is_current_and_lists_every_scenario():
    gen = _gen()
    page = (ROOT / "docs" / "scenario_index.md").read_text(encoding="utf-8")
    assert page == gen.render(), "docs/scenario_index.md is stale: run python scripts/scenario_index.py"
    for f in (ROOT / "scenarios").glob("*.toml"):
        assert f"`{f.name}`" in page


def test_seed_files_name_their_study_not_their_seed():
    gen = _gen()
    for f in (ROOT / "scenarios").glob("seed*.toml"):
        assert gen.study(f.name) != gen.OTHER and "seed" not in gen.study(f.name).lower()


def test_the_cli_reference_is_current_and_names_every_option():
    import argparse

    from dcsim import cli

    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert page == _gen("cli_reference").render(), "docs/cli.md is stale: run python scripts/cli_reference.py"
    sub = next(a for a in cli.build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for name, sp in sub.choices.items():
        assert f"## dcsim {name}" in page
        for a in sp._actions:
            for s in a.option_strings:
                if s not in ("-h", "--help"):
                    assert f"`{s}`" in page, f"dcsim {name} {s}"
