"""The shipped dumps in data/ score as data/README.md says, and match scikit-learn."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from sklearn.metrics import label_ranking_average_precision_score, log_loss

import pl_metrics  # noqa: F401  (registers .metrics)

DATA = Path(__file__).parent.parent / "data"
EXPECTED_LRAP = {
    ("digits_oof", "forest"): 0.984994,
    ("digits_oof", "knn"): 0.988110,
    ("digits_oof", "logreg"): 0.981145,
    ("digits_oof", "naive_bayes"): 0.912151,
    ("digits_properties_oof", "forest"): 0.990713,
    ("digits_properties_oof", "logreg"): 0.963679,
}
EXPECTED_LOG_LOSS = {
    "forest": 0.307146,
    "knn": 0.116101,
    "logreg": 0.162747,
    "naive_bayes": 2.791046,
}


@pytest.mark.parametrize("name", ["digits_oof", "digits_properties_oof"])
def test_shipped_data_lrap(name: str) -> None:
    lf = pl.scan_parquet(DATA / f"{name}.parquet")
    out = lf.metrics.lrap(by="model").collect()
    for model, value in out.rows():
        assert value == pytest.approx(EXPECTED_LRAP[(name, model)], abs=5e-7)
    per_fold = lf.metrics.lrap(by=["model", "fold"]).collect()
    df = lf.collect()
    for model, fold, value in per_fold.rows():
        rows = df.filter(model=model, fold=fold).sort("id", "class")
        k = rows["class"].n_unique()
        want = label_ranking_average_precision_score(
            rows["truth"].to_numpy().reshape(-1, k), rows["score"].to_numpy().reshape(-1, k)
        )
        assert value == pytest.approx(want, rel=1e-12)


def test_shipped_data_log_loss() -> None:
    lf = pl.scan_parquet(DATA / "digits_oof.parquet")
    out = lf.metrics.log_loss(by="model", eps=np.finfo(float).eps).collect()
    assert dict(out.rows()) == pytest.approx(EXPECTED_LOG_LOSS, abs=5e-7)
    df = lf.collect()
    for model, value in out.rows():  # (the figures above are scikit-learn's, recomputed)
        rows = df.filter(model=model).sort("id", "class")
        k = rows["class"].n_unique()
        truth = rows["truth"].to_numpy().reshape(-1, k).argmax(axis=1)
        want = log_loss(truth, rows["score"].to_numpy().reshape(-1, k), labels=range(k))
        assert value == pytest.approx(want, rel=1e-12)
