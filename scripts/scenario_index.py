"""Writes docs/scenario_index.md: for each shipped scenario (scenarios/*.toml), the study
it reproduces and what it shows, from the file's header comment.

    python scripts/scenario_index.py          # rewrite the page
    python scripts/scenario_index.py --check  # exit 1 if the page is stale

tests/python/test_scenario_index.py fails when the committed page differs from what this
prints, so a new or changed scenario cannot be left out."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Dict, List, Tuple

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "scenario_index.md"

#: The published study each family of files reproduces, by file-name prefix (first match).
STUDIES: List[Tuple[str, str]] = [
    ("seed000_", "Liu, Russell et al., *Implementation of PFC and RCM for RoCEv2 Simulation in OMNeT++* (2015)"),
    ("seed001_", "Lv, Yan and Tao (Huawei), *Source (Remote) PFC Test*, IEEE 802.1 Nendica (2021)"),
    (
        "seed002_",
        "So-In, Jain and Jiang, *Enhanced Forward Explicit Congestion Notification (E-FECN) Scheme for "
        "Datacenter Ethernet Networks*, SPECTS 2008",
    ),
    ("seed003_", "Yasuda and Kabbani (NEC, Stanford), *Data Center QCN: Implementation and Evaluation on NetFPGA* (2010)"),
    ("seed004_", "Congdon, *Data Center Congestion Control: Where's the best fit in IETF/IRTF?*, IETF 106 (2019), and its case studies"),
    ("hpcc_", "Li et al., *HPCC: High Precision Congestion Control*, SIGCOMM 2019"),
    ("dcqcn_", "Zhu et al., *Congestion Control for Large-Scale RDMA Deployments* (DCQCN), SIGCOMM 2015"),
    ("dctcp_", "Alizadeh et al., *Data Center TCP (DCTCP)*, SIGCOMM 2010"),
    ("swift_", "Kumar et al., *Swift: Delay is Simple and Effective for Congestion Control in the Datacenter*, SIGCOMM 2020"),
    (
        "ai_astra_sim_",
        "ASTRA-sim's ns-3 backend (Won et al., *ASTRA-sim2.0*, ISPASS 2023): ring all-reduce times published in kredd2506/Astro (2026)",
    ),
    ("uet_", "Ultra Ethernet Consortium, *Ultra Ethernet Specification 1.0* (2025), NSCC, against the UEC htsim model"),
    ("tcp_", "TCP's analytic behaviour: Reno's sawtooth, CUBIC's window curve (RFC 9438)"),
    (
        "trimming_",
        "Handley et al., *Re-architecting datacenter networks and stacks for low latency and high performance* "
        "(NDP, packet trimming), SIGCOMM 2017",
    ),
]
OTHER = "Demonstrations (no published number to match)"


def header(path: Path) -> str:
    """The file's leading comment as one paragraph."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("#").strip())
    return " ".join(x for x in lines if x)


def first_sentence(text: str, limit: int = 400) -> str:
    m = re.search(r"(?<!\bal)(?<!\be\.g)(?<!\bi\.e)\.(\s+(?=[A-Z(\"`])|$)", text)
    s = text[: m.start() + 1] if m else text
    if len(s) > limit:
        s = s[:limit].rsplit(" ", 1)[0] + " ..."
    return s.replace("|", "\\|")


def study(name: str) -> str:
    for prefix, title in STUDIES:
        if name.startswith(prefix):
            return title
    return OTHER


def render() -> str:
    files = sorted((ROOT / "scenarios").glob("*.toml"))
    by: Dict[str, List[Path]] = {}
    for f in files:
        by.setdefault(study(f.name), []).append(f)
    order = [t for _, t in STUDIES if t in by] + ([OTHER] if OTHER in by else [])
    out = [
        "# Shipped scenarios",
        "",
        "Every file under `scenarios/`, by the published study it reproduces, with what it",
        "shows (the first sentence of its header comment; the file says more). Run one with",
        "`dcsim run scenarios/FILE.toml`. The validation gallery gives the published numbers",
        "beside dcsim's. This page is written by `python scripts/scenario_index.py`; a test",
        "fails when it is stale.",
        "",
    ]
    for title in order:
        out += [f"## {title}", "", "| scenario | what it shows |", "|---|---|"]
        for f in by[title]:
            out.append(f"| `{f.name}` | {first_sentence(header(f)) or '(no header comment)'} |")
        out.append("")
    return "\n".join(out)


def main(argv: List[str]) -> int:
    from dcsim.docgen.common import write_page

    return write_page(PAGE, render(), argv, "scripts/scenario_index.py")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
