"""The pl.Expr builders equal scikit-learn on binary problems, inside group_by."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import f1_score, log_loss, precision_score, recall_score

import pl_metrics
from pl_metrics import expr


@given(seed=st.integers(0, 2**32 - 1), zd=st.sampled_from([0.0, 1.0, float("nan")]))
@settings(max_examples=30, deadline=None)
def test_exprs_match_sklearn_per_group(seed: int, zd: float) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    df = pl.DataFrame(
        {
            "g": rng.integers(0, 3, n),
            "score": rng.integers(0, 5, n) / 4,
            "truth": rng.random(n) < rng.random(),
        }
    )
    out = (
        df.group_by("g")
        .agg(
            expr.f1("score", "truth", zero_division=zd),
            expr.precision("score", "truth", zero_division=zd),
            expr.recall(pl.col("score"), pl.col("truth"), zero_division=zd),
            expr.mfif(None, "truth", pred=pl.col("score") >= 0.5, zero_division=zd),
        )
        .sort("g")
    )
    for g, rows in df.group_by("g"):
        y, p = rows["truth"].to_numpy(), rows["score"].to_numpy() >= 0.5
        got = out.filter(pl.col("g") == g[0]).row(0, named=True)
        for name, fn in (
            ("f1", f1_score),
            ("precision", precision_score),
            ("recall", recall_score),
        ):
            assert np.isclose(got[name], fn(y, p, zero_division=zd), equal_nan=True)
        mfif = f1_score(y, p, average="macro", labels=[0, 1], zero_division=zd)
        assert np.isclose(got["mfif"], mfif, equal_nan=True)


def test_exprs_equal_table_functions() -> None:
    rng = np.random.default_rng(0)
    df = pl.DataFrame(
        {"id": range(200), "class": "x", "score": rng.random(200), "truth": rng.random(200) < 0.3}
    )
    for name in ("balanced_accuracy", "balanced_f1", "mfif", "f1"):
        table = getattr(pl_metrics, name)(df, threshold=0.4).item()
        assert df.select(getattr(expr, name)("score", "truth", threshold=0.4)).item() == table
    counts = df.select(expr.confusion("score", "truth", threshold=0.4)).unnest("confusion")
    assert counts.row(0) == pl_metrics.confusion(df, threshold=0.4).drop("class").row(0)


def test_log_loss_expr() -> None:
    rng = np.random.default_rng(1)
    p = rng.random(100)
    y = rng.random(100) < p
    df = pl.DataFrame({"p": p, "y": y})
    assert df.select(expr.binary_log_loss("p", "y")).item() == pytest.approx(
        log_loss(y, p), rel=1e-12
    )


def test_score_or_pred() -> None:
    with pytest.raises(pl_metrics.MetricsInputError, match="either a score"):
        expr.f1("score", "truth", pred="pred")
    with pytest.raises(pl_metrics.MetricsInputError, match="zero_division"):
        expr.f1("score", "truth", zero_division=2)
