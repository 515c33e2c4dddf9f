"""Per-scene ECN settings by Bayesian optimisation (Optuna's TPE sampler, seeded): the
trial's (Kmin, Kmax, Pmax) run on the class's training scenes, and the objective is the
geometric mean over them of IOPS relative to the static default settings (higher is
better). In a closed loop the outstanding I/Os are fixed, so the mean latency is their
number over the IOPS (Little's law): maximising IOPS minimises mean latency too; the
p99 latency is reported, not optimised."""

from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Sequence, Tuple

from .scenes import DEFAULT_ECN, Scene

Ecn = Tuple[int, int, float]

#: Search space: Kmin 1 KB-400 KB, Kmax = Kmin x 1.5-40 (at most 4 MB), Pmax 0.5 %-100 %.
KMIN = (1_000, 400_000)
KMAX_RATIO = (1.5, 40.0)
PMAX = (0.005, 1.0)


def tune_class(
    scenes: Sequence[Scene], iops: Callable[[Scene, Ecn], float], trials: int, seed: int
) -> Tuple[Ecn, float, List[Dict[str, float]]]:
    """The best (Kmin, Kmax, Pmax) for ``scenes``, its objective, and every trial.
    The first trial is the default setting, so the result is never worse than it on
    these scenes."""
    from . import _require

    optuna = _require("optuna")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    base = {s: iops(s, DEFAULT_ECN) for s in scenes}

    def objective(trial: Any) -> float:
        kmin = trial.suggest_float("kmin", *KMIN, log=True)
        ratio = trial.suggest_float("kmax_ratio", *KMAX_RATIO, log=True)
        pmax = trial.suggest_float("pmax", *PMAX, log=True)
        ecn = (int(kmin), int(min(kmin * ratio, 4_000_000)), pmax)
        logs = [math.log(max(iops(s, ecn), 1.0) / max(base[s], 1.0)) for s in scenes]
        return math.exp(sum(logs) / len(logs))

    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.TPESampler(seed=seed))
    kmin, kmax, pmax = DEFAULT_ECN
    study.enqueue_trial({"kmin": float(kmin), "kmax_ratio": kmax / kmin, "pmax": pmax})
    study.optimize(objective, n_trials=trials)
    p = study.best_params
    best = (int(p["kmin"]), int(min(p["kmin"] * p["kmax_ratio"], 4_000_000)), float(p["pmax"]))
    history = [
        {
            "kmin": t.params["kmin"],
            "kmax_ratio": t.params["kmax_ratio"],
            "pmax": t.params["pmax"],
            "objective": float(t.value if t.value is not None else float("nan")),
        }
        for t in study.trials
    ]
    return best, float(study.best_value), history
