"""nDCG against scikit-learn on random tables with ties, weights, k and groups."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.metrics import ndcg_score

import pl_metrics
from tests.conftest import dense_problems, grouped_table, run

SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@given(data=st.data())
@SETTINGS
def test_matches_sklearn(kind: str, data: st.DataObject) -> None:
    problems = data.draw(dense_problems(min_classes=2, weights=data.draw(st.booleans())))
    for p in problems:
        if "weight" in p:
            p["weight"] = np.abs(p["weight"])
    k = data.draw(st.sampled_from([None, 1, 2, 3, 10]))
    df = grouped_table(problems)
    weight_col = "w" if "weight" in problems[0] else None
    if any("weight" in p and p["weight"].sum() == 0 for p in problems):
        with pytest.raises(pl_metrics.MetricsInputError, match="weights that are all zero"):
            run(df, kind, pl_metrics.ndcg, by="g", k=k, weight_col=weight_col)
        return
    out = run(df, kind, pl_metrics.ndcg, by="g", k=k, weight_col=weight_col)
    for g, p in enumerate(problems):
        want = ndcg_score(p["truth"].astype(int), p["score"], k=k, sample_weight=p.get("weight"))
        got = out.filter(pl.col("g") == g)["ndcg"].item()
        assert got == pytest.approx(want, rel=1e-12, abs=1e-15)


def test_a_single_class_is_refused_as_sklearn_does() -> None:
    df = pl_metrics.from_numpy(np.array([[1], [0]]), np.array([[0.4], [0.2]]))
    with pytest.raises(pl_metrics.MetricsInputError, match="single class"):
        pl_metrics.ndcg(df)
