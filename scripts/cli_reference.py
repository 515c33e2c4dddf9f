"""Writes docs/cli.md, the command-line reference, from the parser of `dcsim` itself
(python/dcsim/cli.py: each command's help and each option's help, choices and default).

    python scripts/cli_reference.py          # rewrite the page
    python scripts/cli_reference.py --check  # exit 1 if the page is stale

tests/python/test_generated_pages.py fails when the committed page is stale."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import List

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "cli.md"


def _cell(text: object) -> str:
    return str(text).replace("%%", "%").replace("|", "\\|").replace("\n", " ").replace("<", "&lt;").replace(">", "&gt;")


def render() -> str:
    from dcsim import cli

    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {c.dest: c.help for c in sub._choices_actions}
    out: List[str] = [
        "# Command line",
        "",
        "`dcsim COMMAND ...`; `dcsim COMMAND --help` prints the same. Errors are one line,",
        "`error: path: reason`, on standard error with exit status 1; usage errors exit with",
        "2, Ctrl-C with 130. This page is written from the command's parser by",
        "`python scripts/cli_reference.py`; a test fails when it is stale.",
        "",
    ]
    for name, sp in sub.choices.items():
        pos = [a for a in sp._actions if not a.option_strings]
        opts = [a for a in sp._actions if a.option_strings and a.dest != "help"]
        synopsis = " ".join(f"{a.metavar or a.dest.upper()}{'...' if a.nargs in ('+', '*') else ''}" for a in pos)
        out += [f"## dcsim {name}", "", f"`dcsim {name} {synopsis}`".replace(" `", "`"), ""]
        desc = sp.description or helps.get(name) or ""
        if desc:
            out += [_cell(desc), ""]
        out += ["| argument | value | default | meaning |", "|---|---|---|---|"]
        for a in pos + opts:
            names = ", ".join(f"`{s}`" for s in a.option_strings) or f"`{a.metavar or a.dest.upper()}`"
            if a.choices:
                value = " \\| ".join(f"`{c}`" for c in a.choices)
            elif a.nargs == 0:
                value = "flag"
            else:
                value = f"`{a.metavar}`" if a.metavar else ""
            if a.option_strings and isinstance(a, argparse._AppendAction):
                value += " (repeatable)"
            default = "" if a.default in (None, [], False, argparse.SUPPRESS) or not a.option_strings else f"`{a.default}`"
            if a.dest == "jobs":
                default = "all cores"
            out.append(f"| {names} | {value} | {_cell(default)} | {_cell(a.help or '')} |")
        out.append("")
    return "\n".join(out)


def main(argv: List[str]) -> int:
    from dcsim.docgen.common import write_page

    return write_page(PAGE, render(), argv, "scripts/cli_reference.py")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
