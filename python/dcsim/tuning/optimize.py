"""Tuning the settings of one's own scenario: ``dcsim tune SCENARIO --param KEY=LOW:HIGH
... --objective ...`` (docs/howto/tune_your_fabric.md).

Optuna's TPE sampler (seeded) proposes settings; each trial is a point of the sweep
machinery (``sweeps.run_points``: one process per run, ``jobs`` at a time, on the process
pool or Ray) over ``seeds`` seeds, written to a results store as it finishes. The
scenario as written is run first (trial ``default``), and a mix of metrics is scored
relative to it. Running the same command again replays the trials the store holds into
the study and only runs the rest, so a study is resumable and can be extended with a
larger ``--trials``.

Objectives name a column of ``sweeps.metrics`` (``slowdown_p99_incast``,
``goodput_total_gbps``, ...) or an alias (``ALIASES``), minimised unless prefixed with
``max:``; ``0.7*small_p99+0.3*pause`` is a weighted mix, each term relative to the
defaults (``m / m_default`` for a metric minimised, ``m_default / m`` for one maximised),
minimised: the defaults score the sum of the weights. Several ``--objective`` make a
multi-objective study whose best trials are its Pareto front."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ..errors import ArgumentError

#: Objective names that stand for a metric column, with the direction that is better.
ALIASES: Dict[str, Tuple[str, str]] = {
    "small_p99": ("small_flow_slowdown_p99", "min"),
    "goodput": ("goodput_total_gbps", "max"),
    "pause": ("pause_fraction_mean", "min"),
    "drops": ("drops", "min"),
}

#: The value of a setting in the ``default`` trial: the scenario's own.
DEFAULT = "default"


@dataclass(frozen=True)
class Param:
    """One setting searched: ``key`` between ``low`` and ``high`` (in SI units for a
    size, a duration or a rate: bytes, picoseconds, bit/s), on a log scale when it spans
    more than a decade (or ``:log``), as an integer for integer bounds."""

    key: str
    low: float
    high: float
    kind: str  # "float", "int", "size", "time", "rate"
    log: bool

    def suggest(self, trial: Any) -> float:
        if self.kind in ("int", "size", "time", "rate"):
            return float(trial.suggest_int(self.key, int(self.low), int(self.high), log=self.log))
        # Four significant digits: what the scenario is given is what the study is told.
        return float(f"{trial.suggest_float(self.key, self.low, self.high, log=self.log):.4g}")

    def distribution(self) -> Any:
        import optuna

        if self.kind == "float":
            return optuna.distributions.FloatDistribution(self.low, self.high, log=self.log)
        return optuna.distributions.IntDistribution(int(self.low), int(self.high), log=self.log)

    def text(self, v: float) -> str:
        """The value as a scenario writes it."""
        unit = {"size": "B", "time": "ps", "rate": "bps"}.get(self.kind)
        if unit:
            return f"{int(v)}{unit}"
        return str(int(v)) if self.kind == "int" else f"{float(v):.4g}"

    def value(self, text: str) -> float:
        """``text`` (as ``text`` writes it) back to the number."""
        if self.kind in ("size", "time", "rate"):
            m = re.match(r"[\d.eE+-]+", str(text))
            return float(m.group(0)) if m else math.nan
        return float(text)

    def override(self, text: str) -> str:
        return f'{self.key}="{text}"' if self.kind in ("size", "time", "rate") else f"{self.key}={text}"


def parse_param(spec: str) -> Param:
    """``KEY=LOW:HIGH[:log|:linear]``; ``LOW`` and ``HIGH`` are numbers or values with
    one unit (``5KB:400KB``, ``10us:1ms``)."""
    from .. import _native

    key, sep, rng = spec.partition("=")
    parts = rng.split(":")
    if not sep or not key.strip() or len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] not in ("log", "linear")):
        raise ArgumentError(f"--param {spec!r}: expected KEY=LOW:HIGH or KEY=LOW:HIGH:log")
    key, lo_s, hi_s = key.strip(), parts[0].strip(), parts[1].strip()
    kind = ""
    try:
        lo, hi = float(lo_s), float(hi_s)
        kind = "int" if re.fullmatch(r"-?\d+", lo_s) and re.fullmatch(r"-?\d+", hi_s) else "float"
    except ValueError:
        for k, parse in (("size", _native.parse_size_bytes), ("time", _native.parse_time_ps), ("rate", _native.parse_rate_bps)):
            try:
                lo, hi = float(parse(lo_s)), float(parse(hi_s))
                kind = k
                break
            except ValueError:
                continue
        if not kind:
            raise ArgumentError(
                f"--param {key}: {lo_s!r} and {hi_s!r} are not numbers, nor sizes, durations or rates of one kind"
            ) from None
    if not lo < hi:
        raise ArgumentError(f"--param {key}: LOW must be below HIGH ({lo_s} : {hi_s})")
    log = parts[2] == "log" if len(parts) == 3 else (lo > 0 and hi / lo >= 10)
    if log and lo <= 0:
        raise ArgumentError(f"--param {key}: a log scale needs LOW > 0")
    return Param(key, lo, hi, kind, log)


@dataclass(frozen=True)
class Objective:
    """A metric (``terms`` of one, weight 1) or a weighted mix of metrics."""

    text: str
    terms: Tuple[Tuple[str, str, float], ...]  # (column, "min"|"max", weight)

    @property
    def direction(self) -> str:
        """What the study does with the score: a lone metric keeps its direction, a mix
        (relative to the defaults) is minimised."""
        return self.terms[0][1] if self.single else "min"

    @property
    def single(self) -> bool:
        return len(self.terms) == 1 and self.terms[0][2] == 1.0

    def score(self, row: Dict[str, float], base: Dict[str, float]) -> float:
        if self.single:
            return row[self.terms[0][0]]
        total = 0.0
        for col, d, w in self.terms:
            m, b = row[col], base[col]
            if d == "min":
                total += w * (m / b if b else (1.0 if m == 0 else math.inf))
            else:
                total += w * (b / m if m else math.inf)
        return total


def parse_objective(spec: str) -> Objective:
    """``METRIC``, ``max:METRIC``, an alias (``small_p99``, ``goodput``, ``pause``,
    ``drops``) or a weighted sum ``W*NAME+W*NAME``."""
    terms = []
    for part in spec.replace(" ", "").split("+"):
        w_s, star, name = part.rpartition("*")
        try:
            w = float(w_s) if star else 1.0
        except ValueError:
            raise ArgumentError(f"--objective {spec!r}: {w_s!r} is not a weight") from None
        d = ""
        if name.startswith(("min:", "max:")):
            d, name = name[:3], name[4:]
        col, default_d = ALIASES.get(name, (name, "max" if re.search(r"goodput|util|jain|iops", name) else "min"))
        if not re.fullmatch(r"[\w.>-]+", col) or w <= 0:
            raise ArgumentError(f"--objective {spec!r}: expected METRIC, max:METRIC or W*METRIC+W*METRIC with weights > 0")
        terms.append((col, d or default_d, w))
    return Objective(spec, tuple(terms))


@dataclass
class Tuned:
    """The outcome: every trial's settings, metrics and scores; the defaults' row."""

    params: List[Param]
    objectives: List[Objective]
    default: Dict[str, Any]
    trials: List[Dict[str, Any]] = field(default_factory=list)
    metrics: List[str] = field(default_factory=list)

    def best(self) -> List[Dict[str, Any]]:
        """The best trial (one objective) or the Pareto front of the objectives."""
        ok = [t for t in self.trials if all(not math.isnan(t[f"objective_{i}"]) for i in range(len(self.objectives)))]
        keys = [self._key(i) for i in range(len(self.objectives))]
        if len(self.objectives) == 1:
            return sorted(ok, key=lambda t: keys[0](t))[:1]
        return pareto(ok, keys)

    def front(self) -> List[Dict[str, Any]]:
        """The trade-off front over the metrics the objectives name (the trials no other
        trial beats on every metric), best first on the first metric."""
        ok = [t for t in self.trials if all(not _nan(t.get(m)) for m in self.metrics)]
        dirs = {c: d for o in self.objectives for c, d, _ in o.terms}
        keys = [(lambda t, m=m: t[m] if dirs[m] == "min" else -t[m]) for m in self.metrics]
        return pareto(ok, keys)

    def _key(self, i: int) -> Callable[[Dict[str, Any]], float]:
        sign = 1.0 if self.objectives[i].direction == "min" else -1.0
        return lambda t: sign * t[f"objective_{i}"]


def _nan(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def pareto(rows: List[Dict[str, Any]], keys: Sequence[Callable[[Dict[str, Any]], float]]) -> List[Dict[str, Any]]:
    """The rows no other row beats (lower or equal on every key, lower on one)."""
    out = []
    for r in rows:
        a = [k(r) for k in keys]
        if not any(all(x <= y for x, y in zip(b, a)) and any(x < y for x, y in zip(b, a)) for b in ([k(s) for k in keys] for s in rows)):
            out.append(r)
    return sorted(out, key=lambda r: keys[0](r))


def _study_key(text: str, overrides: Sequence[str], params: Sequence[Param]) -> str:
    import hashlib

    h = hashlib.sha256("\0".join([text, *overrides, *(f"{p.key}={p.low}:{p.high}:{p.kind}:{p.log}" for p in params)]).encode())
    return h.hexdigest()[:12]


def _mean_rows(rows: List[Dict[str, Any]], metrics: Sequence[str]) -> Optional[Dict[str, float]]:
    """The mean of ``metrics`` over a trial's rows (its seeds); None if one failed."""
    if not rows or any(r.get("error") for r in rows):
        return None
    out: Dict[str, float] = {}
    for m in metrics:
        xs = []
        for r in rows:
            try:
                xs.append(float(r.get(m)))  # type: ignore[arg-type]
            except (TypeError, ValueError):
                xs.append(math.nan)
        out[m] = sum(xs) / len(xs)
    return out


def tune(
    scenario: Any,
    params: Sequence[Param],
    objectives: Sequence[Objective],
    *,
    trials: int = 20,
    seeds: int = 1,
    store: Any,
    opts: Any = None,
    sampler_seed: int = 0,
    log: Optional[Callable[[str], None]] = None,
) -> Tuned:
    """Runs the study (see the module) and returns every trial. ``scenario`` is a
    ``Scenario`` (or a file); ``store`` the results store directory; ``opts`` a
    ``sweeps.Options`` (jobs, backend, overrides ...)."""
    from .. import Scenario
    from ..store import Store
    from ..sweeps import Options, _ray, run_points
    from . import _require

    optuna = _require("optuna")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    opts = opts or Options()
    if not params:
        raise ArgumentError("give at least one --param KEY=LOW:HIGH")
    if not objectives:
        raise ArgumentError("give at least one --objective")
    if len({p.key for p in params}) != len(params):
        raise ArgumentError("--param: a setting is given twice")
    sc = scenario if isinstance(scenario, Scenario) else Scenario.from_file(scenario)
    sc = sc.with_overrides(list(opts.overrides))
    for p in params:  # each bound must be a value the scenario takes
        for v in (p.low, p.high):
            sc.with_overrides([p.override(p.text(v))]).validate()
    key = _study_key(sc.text, sc.overrides, params)
    seed_list = list(range(1, seeds + 1))
    opts = Options(**{**opts.__dict__, "overrides": (), "mode": "zip"})
    metrics = list(dict.fromkeys(c for o in objectives for c, _, _ in o.terms))
    by_key = {p.key: p for p in params}

    def build(point: Dict[str, Any]) -> Any:
        sets = [f"simulation.seed={int(point['simulation.seed'])}"]
        sets += [by_key[k].override(str(point[k])) for k in by_key if str(point[k]) != DEFAULT]
        return sc.with_overrides(sets)

    st = Store(store, create=True, name="--store")
    st.discard_temporaries()

    def run(batch: List[Tuple[str, Dict[str, str]]]) -> Dict[str, List[Dict[str, Any]]]:
        grid: Dict[str, List[Any]] = {"tune_study": [], "trial": [], **{k: [] for k in by_key}, "simulation.seed": []}
        for tid, values in batch:
            for s in seed_list:
                grid["tune_study"].append(key)
                grid["trial"].append(tid)
                for k in by_key:
                    grid[k].append(values[k])
                grid["simulation.seed"].append(s)
        with _ray(opts):
            rows = run_points(build, grid, opts, store=st)
        out: Dict[str, List[Dict[str, Any]]] = {}
        for r in rows:
            out.setdefault(str(r["trial"]), []).append(r)
        return out

    say = log or (lambda m: None)
    default_rows = run([(DEFAULT, {k: DEFAULT for k in by_key})])[DEFAULT]
    base = _mean_rows(default_rows, metrics)
    if base is None:
        raise ArgumentError(f"the scenario as written failed: {next(r['error'] for r in default_rows if r.get('error'))}")
    missing = [m for m in metrics if m not in default_rows[0]]
    if missing:
        have = sorted(k for k in default_rows[0] if not k.startswith(("size_hi_", "finished_")) and "_b" not in k)
        raise ArgumentError(f"--objective: no metric {missing[0]!r} (the runs have: {', '.join(have)})")
    say("defaults: " + ", ".join(f"{m} = {base[m]:.4g}" for m in metrics))

    study = optuna.create_study(
        directions=["minimize" if o.direction == "min" else "maximize" for o in objectives],
        sampler=optuna.samplers.TPESampler(seed=sampler_seed),
    )
    dists = {p.key: p.distribution() for p in params}
    result = Tuned(list(params), list(objectives), {**base, "trial": DEFAULT}, metrics=metrics)

    def record(tid: str, values: Dict[str, float], rows: List[Dict[str, Any]]) -> Optional[List[float]]:
        mean = _mean_rows(rows, metrics)
        t: Dict[str, Any] = {"trial": tid, **{k: by_key[k].text(v) for k, v in values.items()}}
        if mean is None:
            t["error"] = next(str(r["error"]) for r in rows if r.get("error"))
            for i in range(len(objectives)):
                t[f"objective_{i}"] = math.nan
            result.trials.append(t)
            return None
        t.update(mean)
        scores = [o.score(mean, base) for o in objectives]
        for i, s in enumerate(scores):
            t[f"objective_{i}"] = s
        result.trials.append(t)
        return scores

    # Trials the store holds (an earlier run of this study): replayed, not run again.
    held: Dict[Tuple[str, ...], List[Dict[str, Any]]] = {}
    for r in st.rows().values():
        if str(r.get("tune_study")) == key and str(r.get("trial")) != DEFAULT and not r.get("error"):
            held.setdefault((str(r["trial"]), *(str(r[k]) for k in by_key)), []).append(r)
    for (tid, *texts), rows in sorted(held.items(), key=lambda kv: int(kv[0][0]) if kv[0][0].isdigit() else -1):
        if len(study.trials) >= trials or sorted(int(r["simulation.seed"]) for r in rows) != seed_list:
            continue
        values = {k: by_key[k].value(x) for k, x in zip(by_key, texts)}
        scores = record(tid, values, rows)
        if scores is not None and all(math.isfinite(s) for s in scores):
            study.add_trial(optuna.trial.create_trial(params=values, distributions=dists, values=scores))
        else:
            result.trials.pop()
    if study.trials:
        say(f"{len(study.trials)} trials taken from the store")
        # Reseeded by the trials held: the same seed would draw the held trials' random
        # start-up points again.
        study.sampler = optuna.samplers.TPESampler(seed=sampler_seed + len(study.trials))
    # Settings already run (a trial repeating an earlier one gets its rows: same
    # settings, same run, and the store keeps one row per run).
    seen: Dict[Tuple[str, ...], List[Dict[str, Any]]] = {tuple(str(t[k]) for k in by_key): rows for t, rows in _held_rows(result, held)}
    while len(study.trials) < trials:
        batch = [study.ask() for _ in range(min(opts.jobs, trials - len(study.trials)))]
        asked = [(t, {p.key: p.suggest(t) for p in params}) for t in batch]
        fresh: Dict[Tuple[str, ...], Tuple[str, Dict[str, str]]] = {}
        for t, vals in asked:
            shown = {k: by_key[k].text(v) for k, v in vals.items()}
            if tuple(shown.values()) not in seen:
                fresh.setdefault(tuple(shown.values()), (str(t.number), shown))
        got = run(list(fresh.values())) if fresh else {}
        for texts_key, (tid, _) in fresh.items():
            seen[texts_key] = got[tid]
        for t, vals in asked:
            scores = record(str(t.number), vals, seen[tuple(by_key[k].text(v) for k, v in vals.items())])
            ok = scores is not None and all(math.isfinite(s) for s in scores)
            study.tell(t, scores if ok else None, state=None if ok else optuna.trial.TrialState.FAIL)
            say(
                f"trial {t.number}: "
                + ", ".join(f"{k}={by_key[k].text(v)}" for k, v in vals.items())
                + (f" -> {scores}" if ok else " failed")
            )
    return result


def _held_rows(result: Tuned, held: Dict[Tuple[str, ...], List[Dict[str, Any]]]) -> List[Tuple[Dict[str, Any], List[Dict[str, Any]]]]:
    """The replayed trials of ``result`` with their rows from the store."""
    by_tid = {k[0]: rows for k, rows in held.items()}
    return [(t, by_tid[str(t["trial"])]) for t in result.trials if str(t["trial"]) in by_tid]


def sensitivity(result: Tuned) -> List[Tuple[str, float]]:
    """Per setting, Spearman's rank correlation between its value and the first
    objective over the trials that ran (-1..1: how strongly, and which way, the
    objective follows the setting), strongest first."""
    import pandas as pd

    ok = [t for t in result.trials if not _nan(t.get("objective_0"))]
    if len(ok) < 3:
        return []
    df = pd.DataFrame({p.key: [p.value(t[p.key]) for t in ok] for p in result.params})
    y = pd.Series([t["objective_0"] for t in ok]).rank()
    out = []
    for p in result.params:
        x = df[p.key].rank()
        c = float(x.corr(y)) if x.nunique() > 1 else math.nan
        out.append((p.key, c))
    return sorted(out, key=lambda kv: -abs(kv[1]) if not math.isnan(kv[1]) else 0.0)


def report(result: Tuned, command: str) -> str:
    """The study as Markdown: defaults, the best settings, the trade-off front and the
    sensitivity of the first objective to each setting."""

    def fmt(x: Any) -> str:
        return "-" if _nan(x) else f"{x:.4g}" if isinstance(x, float) else str(x)

    objs = [f"`{o.text}` ({'lower' if o.direction == 'min' else 'higher'} is better)" for o in result.objectives]
    ran = [t for t in result.trials if not t.get("error")]
    lines = [
        "# Tuning report",
        "",
        f"`{command}`",
        "",
        f"{len(result.trials)} trials ({len(result.trials) - len(ran)} failed) over "
        + ", ".join(f"`{p.key}` in [{p.text(p.low)}, {p.text(p.high)}]{' (log)' if p.log else ''}" for p in result.params)
        + "; objective "
        + " and ".join(objs)
        + ". A mix of metrics is scored relative to the defaults (the defaults score the sum of its weights).",
        "",
        "## Best settings against the defaults",
        "",
    ]
    keys = [p.key for p in result.params]
    ocols = [f"objective_{i}" for i in range(len(result.objectives))]
    head = ["trial", *keys, *ocols, *result.metrics]
    names = ["trial", *(f"`{k}`" for k in keys), *(f"objective `{o.text}`" for o in result.objectives), *result.metrics]
    lines += ["| " + " | ".join(names) + " |", "|" + "---|" * len(head)]
    base = dict(result.default)
    for i, o in enumerate(result.objectives):
        base[f"objective_{i}"] = o.score({m: base[m] for m in result.metrics}, {m: base[m] for m in result.metrics})
    for t in [{**base, **{k: "(scenario)" for k in keys}}] + result.best():
        lines.append("| " + " | ".join(fmt(t.get(c)) for c in head) + " |")
    front = result.front()
    lines += ["", "## Trade-off front", ""]
    if len(result.metrics) < 2:
        lines.append(f"One metric ({result.metrics[0]}): no trade-off to show; the best trial is above.")
    else:
        lines.append(f"The trials no other trial beats on every one of {', '.join(result.metrics)}:")
        lines += ["", "| " + " | ".join(["trial", *keys, *result.metrics]) + " |", "|" + "---|" * (1 + len(keys) + len(result.metrics))]
        for t in front:
            lines.append("| " + " | ".join(fmt(t.get(c)) for c in ["trial", *keys, *result.metrics]) + " |")
    sens = sensitivity(result)
    lines += ["", "## Sensitivity", ""]
    if not sens:
        lines.append("Too few trials to say (three or more are needed).")
    else:
        lines.append(
            f"Spearman's rank correlation of each setting with `{result.objectives[0].text}` over the trials: "
            "near +1 or -1, the objective follows the setting closely (up or down); near 0, it hardly depends on it "
            "within the range searched."
        )
        lines += ["", "| setting | rank correlation |", "|---|---|"]
        lines += [f"| `{k}` | {fmt(c)} |" for k, c in sens]
    return "\n".join(lines) + "\n"


def write(result: Tuned, text: str, out: Path) -> None:
    """``tune.md`` (the report) and ``trials.csv`` (one row per trial) in ``out``."""
    import pandas as pd

    from ..errors import output_error

    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / "tune.md").write_text(text, encoding="utf-8")
        pd.DataFrame([result.default] + result.trials).to_csv(out / "trials.csv", index=False)
    except OSError as e:
        raise output_error(e, out) from None
