"""Phase 2 of seed 004's scheme: a run in which, every snapshot interval, the scene
classifier names the scene from the last interval's KPIs and the switches get that
scene's ECN settings (``Stepper.set_ecn``; unchanged while the class stays the same)."""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

from ..results import Results
from ..scenario import Scenario
from ..stepper import Stepper
from .features import features
from .scenes import DEFAULT_ECN, Scene

Ecn = Tuple[int, int, float]


def adaptive_run(
    scene: Scene,
    classifier: Any,
    settings: Dict[str, Ecn],
    duration_us: int,
    interval_us: int,
    snapshot_us: int,
    ios: int = 150,
    most_us: int = 20_000,
) -> Tuple[Results, List[str]]:
    """Runs ``scene`` (for ``scene.duration_us(duration_us, ios, most_us)``) from the
    default settings, reconfiguring every ``snapshot_us``;
    returns the results and the class named at each snapshot."""
    return adaptive(scene.scenario(DEFAULT_ECN, duration_us, interval_us, ios, most_us), classifier, settings, snapshot_us)


def adaptive(scenario: Scenario, classifier: Any, settings: Dict[str, Ecn], snapshot_us: int) -> Tuple[Results, List[str]]:
    """Runs ``scenario`` (its switches' ECN settings at the start), naming the scene
    every ``snapshot_us`` and giving the switches that class's settings when the name
    changes; returns the results and the class named at each snapshot."""
    st = Stepper(scenario)
    named: List[str] = []
    current = None
    t = snapshot_us * 1_000_000
    end = st.end_ps
    while t < end:
        st.run_until(t)
        k = st.kpi()
        if k is not None:
            cls = str(classifier.predict([features(k)])[0])
            named.append(cls)
            if cls != current:
                st.set_ecn(*settings[cls])
                current = cls
        t += snapshot_us * 1_000_000
    return st.finish(), named
