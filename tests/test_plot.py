"""The plots render to PNG and SVG without error."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import pl_metrics
from pl_metrics import plot

pytest.importorskip("matplotlib")
DATA = Path(__file__).parent.parent / "data"


@pytest.fixture(scope="module")
def dump() -> pl.DataFrame:
    return pl.read_parquet(DATA / "digits_properties_oof.parquet")


def save(fig, path: Path) -> None:  # type: ignore[no-untyped-def]
    for suffix in (".png", ".svg"):
        target = path.with_suffix(suffix)
        fig.savefig(target)
        assert target.stat().st_size > 1000


def test_plots(dump: pl.DataFrame, tmp_path: Path) -> None:
    per_class = pl_metrics.lwlrap(dump, by="model", per_class=True)
    save(plot.per_class_bars(per_class, "lwlrap", model="model"), tmp_path / "bars")
    per_fold = pl_metrics.report(dump, ["lrap", "f1"], by=["model", "fold"])
    save(plot.heatmap(per_fold, "lrap"), tmp_path / "heatmap")
    save(plot.distributions(per_fold, ["lrap", "f1"], bins=5), tmp_path / "hist")
    ci = pl_metrics.bootstrap(dump, ["lrap", "f1"], by="model", n_resamples=30)
    save(plot.intervals(ci), tmp_path / "intervals")
    with pytest.raises(pl_metrics.MetricsInputError, match="has no column"):
        plot.heatmap(per_fold, "auc")
