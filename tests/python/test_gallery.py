"""The validation gallery (docs/validation.md): every figure is shown and committed,
holds to the figure style, and draws the published numbers beside dcsim's."""

from __future__ import annotations

from pathlib import Path

import pytest

from dcsim import style
from dcsim.docgen import gallery
from dcsim.docgen.common import run, steady

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("stem", [s for s, _ in gallery.GALLERY])
def test_every_gallery_figure_is_committed_and_shown(stem):
    assert (ROOT / "docs" / "figures" / f"{stem}.png").is_file(), f"docs/figures/{stem}.png: run python -m dcsim.docgen --figures"
    assert f"(figures/{stem}.png)" in (ROOT / "docs" / "validation.md").read_text(encoding="utf-8")


def test_the_parking_lot_figure_draws_the_published_and_the_simulated_shares():
    import matplotlib.pyplot as plt

    fig = gallery.parking_lot_figure()
    try:
        assert style.check(fig) == []
        panels = [
            (gallery.PFC_PUBLISHED, "seed000_parking_lot_pfc.toml"),
            *((pub, sc) for sc, pub in gallery.RCM_PUBLISHED.items()),
        ]
        assert len(fig.axes) == len(panels)
        for ax, (published, scenario) in zip(fig.axes, panels):
            ref, ours = ax.containers
            assert [b.get_height() for b in ref] == pytest.approx(published)
            assert [b.get_height() for b in ours] == pytest.approx(steady(run(scenario)))
            assert ax.get_ylabel() == "goodput (Gb/s)"
    finally:
        plt.close(fig)


def test_log_axes_are_labelled_with_plain_numbers():
    import matplotlib.pyplot as plt

    fig = gallery.astra_figure()
    try:
        assert style.check(fig) == []
        ax = fig.axes[0]
        fig.canvas.draw()
        labels = [t.get_text() for t in ax.get_yticklabels() if t.get_text()]
        assert labels and all("10^" not in t and "times" not in t for t in labels), labels
        assert "(us)" in ax.get_ylabel() and "(KiB)" in ax.get_xlabel()
    finally:
        plt.close(fig)
