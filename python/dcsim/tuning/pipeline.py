"""``train``, ``evaluate`` and ``report``: the tuning study end to end (see the package
docstring). Every run is a dcsim simulation; the seeds fix every random choice (the
engine's, the forest's and the TPE sampler's), so a re-run gives the same tables."""

from __future__ import annotations

import json
import math
import pickle
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .. import run as run_scenario
from .adaptive import adaptive_run
from .features import NAMES, features
from .scenes import DEFAULT_ECN, PROFILES, Scene, scenes
from .search import Ecn, tune_class


@dataclass(frozen=True)
class Config:
    profiles: Tuple[str, ...]
    #: Loads (KiB outstanding per client) of the training scenes, and their seeds.
    train_loads: Tuple[int, ...]
    train_seeds: Tuple[int, ...]
    #: Held-out scenes: other loads and seeds.
    test_loads: Tuple[int, ...]
    test_seeds: Tuple[int, ...]
    trials: int
    #: Shortest run (``Scene.duration_us``: longer for heavy scenes); the first 10 % of
    #: every run is warm-up, left out of IOPS, latency and the classifier's snapshots.
    duration_us: int = 3000
    interval_us: int = 100
    #: Snapshot period of phase 2 (a multiple of interval_us).
    snapshot_us: int = 200
    seed: int = 1


QUICK = Config(
    profiles=("oltp_data", "backup", "web_server_log"),
    train_loads=(512,),
    train_seeds=(1, 2),
    test_loads=(768,),
    test_seeds=(101,),
    trials=8,
    duration_us=1500,
)
FULL = Config(profiles=PROFILES, train_loads=(256, 2048), train_seeds=(1, 2), test_loads=(512, 4096), test_seeds=(101,), trials=12)


def _storage(scene: Scene, ecn: Ecn, cfg: Config, ios: int = 150, most_us: int = 20_000) -> Tuple[Dict[str, Any], Any]:
    res = run_scenario(scene.scenario(ecn, cfg.duration_us, cfg.interval_us, ios, most_us))
    return res.summary["storage"], res.table("io")


def _rows(io: Any, cfg: Config) -> List[List[float]]:
    warmup = int(io["time_ps"].max()) // 10 if len(io) else 0
    rows = io[io["time_ps"] > warmup].to_dict("records")
    return [features(r) for r in rows]


@dataclass
class Model:
    config: Config
    classifier: Any
    settings: Dict[str, Ecn]
    #: Objective (IOPS relative to defaults on the class's tuning scenes) per class.
    objective: Dict[str, float]
    accuracy_train: float
    history: Dict[str, List[Dict[str, float]]] = field(default_factory=dict)


def train(cfg: Config, log: Any = None) -> Model:
    """Phase 1: the scene classifier and the ECN settings of every scene class."""
    from . import _require

    ensemble = _require("sklearn.ensemble")
    say = log or (lambda m: None)
    train_scenes = scenes(cfg.profiles, cfg.train_loads, cfg.train_seeds)
    x: List[List[float]] = []
    y: List[str] = []
    for s in train_scenes:
        _, io = _storage(s, DEFAULT_ECN, cfg)
        rows = _rows(io, cfg)
        x += rows
        y += [s.profile] * len(rows)
    clf = ensemble.RandomForestClassifier(n_estimators=100, random_state=cfg.seed)
    clf.fit(x, y)
    acc = float(clf.score(x, y))
    say(f"classifier: {len(x)} snapshots of {len(train_scenes)} scenes, training accuracy {acc:.3f}")
    cache: Dict[Tuple[Scene, Ecn], float] = {}

    def iops(s: Scene, ecn: Ecn) -> float:
        if (s, ecn) not in cache:
            cache[(s, ecn)] = float(_storage(s, ecn, cfg)[0]["iops"])
        return cache[(s, ecn)]

    settings: Dict[str, Ecn] = {}
    objective: Dict[str, float] = {}
    history: Dict[str, List[Dict[str, float]]] = {}
    for k, p in enumerate(cfg.profiles):
        tune_on = [s for s in train_scenes if s.profile == p and s.seed == cfg.train_seeds[0]]
        best, value, hist = tune_class(tune_on, iops, cfg.trials, cfg.seed + k)
        settings[p], objective[p], history[p] = best, value, hist
        say(f"{p}: Kmin {best[0]} B, Kmax {best[1]} B, Pmax {best[2]:.3f}: IOPS x{value:.3f} of the defaults")
    return Model(cfg, clf, settings, objective, acc, history)


def _metrics(st: Dict[str, Any]) -> Dict[str, float]:
    def us(v: Any) -> float:
        return float(v) / 1e6 if v is not None else float("nan")  # no I/O completed

    return {"iops": float(st["iops"]), "latency_mean_us": us(st["latency_mean_ps"]), "latency_p99_us": us(st["latency_p99_ps"])}


def evaluate(model: Model, log: Any = None, seeds: Optional[Sequence[int]] = None, ios: int = 150, most_us: int = 20_000) -> Dict[str, Any]:
    """Phase 2 on the held-out scenes: static defaults, the adaptive run, and (for
    reference) the true class's settings applied from the start. ``seeds``: the held-out
    seeds (default the config's); ``ios``, ``most_us``: each scene runs for at least
    ``ios`` I/Os' worth of blocks through the bottleneck, at most ``most_us``."""
    cfg = model.config
    say = log or (lambda m: None)
    held_out = scenes(cfg.profiles, cfg.test_loads, tuple(seeds) if seeds else cfg.test_seeds)
    rows = []
    right = total = 0
    for s in held_out:
        st, io = _storage(s, DEFAULT_ECN, cfg, ios, most_us)
        xs = _rows(io, cfg)
        pred = list(model.classifier.predict(xs)) if xs else []
        right += sum(1 for p in pred if p == s.profile)
        total += len(pred)
        base = _metrics(st)
        res, named = adaptive_run(s, model.classifier, model.settings, cfg.duration_us, cfg.interval_us, cfg.snapshot_us, ios, most_us)
        adapt = _metrics(res.summary["storage"])
        oracle = _metrics(_storage(s, model.settings[s.profile], cfg, ios, most_us)[0])
        row = {
            "scene": s.name,
            "profile": s.profile,
            "load_kib": s.load_kib,
            "concurrency": s.concurrency,
            "seed": s.seed,
            "ios": int(st["ios"]),
            "default": base,
            "adaptive": adapt,
            "true_class_settings": oracle,
            "snapshots_named_right": sum(1 for n in named if n == s.profile) / max(len(named), 1),
        }
        rows.append(row)
        say(
            f"{s.name}: IOPS {base['iops']:.0f} -> {adapt['iops']:.0f} ({_pct(adapt['iops'], base['iops'])}), "
            f"mean latency {_pct(adapt['latency_mean_us'], base['latency_mean_us'])}, "
            f"p99 {_pct(adapt['latency_p99_us'], base['latency_p99_us'])}"
        )
    return {"accuracy_held_out": right / max(total, 1), "snapshots_held_out": total, "scenes": rows}


def _pct(new: float, old: float) -> str:
    return f"{(new / old - 1) * 100:+.1f} %" if old > 0 else "n/a"


def _gmean_ratio(rows: Sequence[Dict[str, Any]], which: str, key: str) -> float:
    logs = [math.log(r[which][key] / r["default"][key]) for r in rows if r["default"][key] > 0]
    return math.exp(sum(logs) / len(logs)) if logs else float("nan")


def report(model: Model, ev: Dict[str, Any], command: str) -> str:
    """The Markdown report: method in brief, settings per class, held-out gains."""
    cfg = model.config
    out = [
        f"Reproduce with `{command}`.",
        "",
        f"Scene classifier: random forest (100 trees) on {len(NAMES)} KPI features per "
        f"{cfg.interval_us} us snapshot; training accuracy {model.accuracy_train:.3f}, "
        f"held-out accuracy {ev['accuracy_held_out']:.3f} over {ev['snapshots_held_out']} snapshots.",
        "",
        "| scene class | Kmin (B) | Kmax (B) | Pmax | IOPS vs defaults (tuning scenes) |",
        "|---|---:|---:|---:|---:|",
    ]
    for p in cfg.profiles:
        k = model.settings[p]
        out.append(f"| {p} | {k[0]} | {k[1]} | {k[2]:.3f} | x{model.objective[p]:.3f} |")
    out += [
        "",
        "Held-out scenes (defaults: Kmin 5000 B, Kmax 200000 B, Pmax 0.010):",
        "",
        "| scene | IOPS default | IOPS adaptive | IOPS | mean latency | p99 latency | snapshots named right | IOPS, true class's settings |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in ev["scenes"]:
        d, a, o = r["default"], r["adaptive"], r["true_class_settings"]
        out.append(
            f"| {r['scene']} | {d['iops']:.0f} | {a['iops']:.0f} | {_pct(a['iops'], d['iops'])} | "
            f"{_pct(a['latency_mean_us'], d['latency_mean_us'])} | {_pct(a['latency_p99_us'], d['latency_p99_us'])} | "
            f"{r['snapshots_named_right']:.2f} | {_pct(o['iops'], d['iops'])} |"
        )
    rows = ev["scenes"]
    best = max(rows, key=lambda r: r["adaptive"]["iops"] / r["default"]["iops"])
    out += [
        "",
        f"Geometric mean over the held-out scenes, adaptive vs defaults: IOPS "
        f"{(_gmean_ratio(rows, 'adaptive', 'iops') - 1) * 100:+.1f} %, mean latency "
        f"{(_gmean_ratio(rows, 'adaptive', 'latency_mean_us') - 1) * 100:+.1f} %, p99 latency "
        f"{(_gmean_ratio(rows, 'adaptive', 'latency_p99_us') - 1) * 100:+.1f} %; largest IOPS gain "
        f"{_pct(best['adaptive']['iops'], best['default']['iops'])} ({best['scene']}).",
    ]
    return "\n".join(out) + "\n"


#: Student's t, two-sided 95 %, by degrees of freedom (1..29).
_T95: Tuple[float, ...] = (
    12.706,
    4.303,
    3.182,
    2.776,
    2.571,
    2.447,
    2.365,
    2.306,
    2.262,
    2.228,
    2.201,
    2.179,
    2.160,
    2.145,
    2.131,
    2.120,
    2.110,
    2.101,
    2.093,
    2.086,
    2.080,
    2.074,
    2.069,
    2.064,
    2.060,
    2.056,
    2.052,
    2.048,
    2.045,
)


def mean_ci(xs: Sequence[float]) -> Tuple[float, float]:
    """The mean of ``xs`` and the half-width of its 95 % confidence interval (Student's
    t with n - 1 degrees of freedom; the samples independent, e.g. one per seed)."""
    n = len(xs)
    if n < 2 or n > len(_T95) + 1:
        raise ValueError(f"need 2..{len(_T95) + 1} samples (got {n})")
    m = sum(xs) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    return m, _T95[n - 2] * sd / math.sqrt(n)


def seeds_report(evs: Dict[int, Dict[str, Any]], command: str) -> str:
    """Held-out gains over several seeds (one evaluation per seed): per seed the
    geometric means and the largest gains, then every figure and every scene's gain as a
    mean with its 95 % confidence interval over the seeds."""
    seeds = sorted(evs)

    def gain(r: Dict[str, Any], key: str) -> float:
        return (r["adaptive"][key] / r["default"][key] - 1) * 100

    per: Dict[str, List[float]] = {k: [] for k in ("iops", "lat", "p99", "best_iops", "best_lat")}
    out = [
        f"Reproduce with `{command}`.",
        "",
        "| seed | I/Os per scene (median) | IOPS (geo. mean) | mean latency | p99 latency | largest IOPS gain | largest mean-latency cut |",
        "|---|---:|---:|---:|---:|---|---|",
    ]
    for sd in seeds:
        rows = [r for r in evs[sd]["scenes"] if r["default"]["iops"] > 0]
        g = {
            k: (_gmean_ratio(rows, "adaptive", m) - 1) * 100
            for k, m in (("iops", "iops"), ("lat", "latency_mean_us"), ("p99", "latency_p99_us"))
        }
        bi = max(rows, key=lambda r: gain(r, "iops"))
        bl = min(rows, key=lambda r: gain(r, "latency_mean_us"))
        ios = sorted(r["ios"] for r in rows)
        for k in ("iops", "lat", "p99"):
            per[k].append(g[k])
        per["best_iops"].append(gain(bi, "iops"))
        per["best_lat"].append(gain(bl, "latency_mean_us"))
        out.append(
            f"| {sd} | {ios[len(ios) // 2]} | {g['iops']:+.1f} % | {g['lat']:+.1f} % | {g['p99']:+.1f} % | "
            f"{gain(bi, 'iops'):+.1f} % ({bi['profile']} {bi['load_kib']} KiB) | {gain(bl, 'latency_mean_us'):+.1f} % ({bl['profile']} {bl['load_kib']} KiB) |"
        )
    cells = {k: "{:+.1f} ± {:.1f} %".format(*mean_ci(v)) for k, v in per.items()}
    out.append(f"| mean ± 95 % CI | | {cells['iops']} | {cells['lat']} | {cells['p99']} | {cells['best_iops']} | {cells['best_lat']} |")
    out += ["", "Per held-out scene over the seeds (adaptive vs defaults, mean ± 95 % CI):", ""]
    out += ["| scene | IOPS | mean latency | p99 latency | IOPS, true class's settings |", "|---|---:|---:|---:|---:|"]
    names = [(r["profile"], r["load_kib"]) for r in evs[seeds[0]]["scenes"]]
    for prof, load in names:
        rs = [r for sd in seeds for r in evs[sd]["scenes"] if (r["profile"], r["load_kib"]) == (prof, load) and r["default"]["iops"] > 0]
        if len(rs) < 2:
            continue
        f = [mean_ci([gain(r, k) for r in rs]) for k in ("iops", "latency_mean_us", "latency_p99_us")]
        o = mean_ci([(r["true_class_settings"]["iops"] / r["default"]["iops"] - 1) * 100 for r in rs])
        out.append(f"| {prof} {load} KiB | " + " | ".join(f"{m:+.1f} ± {h:.1f} %" for m, h in [*f, o]) + " |")
    return "\n".join(out) + "\n"


def save(model: Model, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "model.pkl", "wb") as f:
        pickle.dump(model, f)
    (out / "settings.json").write_text(
        json.dumps(
            {
                "config": asdict(model.config),
                "settings": model.settings,
                "objective": model.objective,
                "accuracy_train": model.accuracy_train,
                "features": list(NAMES),
                "trials": model.history,
            },
            indent=1,
        )
    )


def load(out: Path) -> Model:
    with open(out / "model.pkl", "rb") as f:
        m: Model = pickle.load(f)
    return m


def write_evaluation(ev: Dict[str, Any], text: str, out: Path, name: Optional[str] = None) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "evaluation.json").write_text(json.dumps(ev, indent=1))
    (out / (name or "report.md")).write_text(text)
