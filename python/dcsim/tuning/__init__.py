"""Seed 004's AI-based ECN tuning (draft-zhuang-tsvwg-ai-ecn-for-dcn, IETF 106) over
simulated storage scenes: ``dcsim tune`` (docs/tuning.md).

Phase 1 (``train``): run the training scenes with the static default ECN settings and
train a scene classifier (scikit-learn random forest) on the KPIs of every snapshot
interval; for every scene class, search (Kmin, Kmax, Pmax) with Optuna (``search.py``).
Phase 2 (``evaluate``): on held-out scenes (other loads and seeds, never used to train
or tune), every snapshot interval the classifier names the scene from the last
interval's KPIs and the switches get that scene's settings (``adaptive.py``); IOPS and
mean and p99 latency are compared with the static defaults.

scikit-learn and optuna are the optional extra ``dcsim[tune]``; they are imported only
when tuning runs."""

from __future__ import annotations

import importlib
from types import ModuleType

from ..errors import DcsimError

__all__ = ["Config", "Model", "QUICK", "FULL", "train", "evaluate", "report", "seeds_report", "mean_ci", "save", "load", "write_evaluation"]


def _require(name: str) -> ModuleType:
    """Imports an optional dependency of tuning, or fails with how to install it."""
    try:
        return importlib.import_module(name)
    except ImportError as e:
        raise DcsimError(f"dcsim tune needs {name}: install the extra with pip install 'dcsim[tune]' ({e})") from None


from .pipeline import FULL, QUICK, Config, Model, evaluate, load, mean_ci, report, save, seeds_report, train, write_evaluation  # noqa: E402
