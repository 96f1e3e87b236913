"""What a typed user writes, checked by mypy (`[tool.mypy] files`), never run.

Each function returns the frame it is given: a DataFrame, a LazyFrame, or either.
"""

from __future__ import annotations

from typing import Literal

import polars as pl
from typing_extensions import assert_type

import pl_metrics


def _either(frame: pl.DataFrame | pl.LazyFrame) -> None:
    # A helper that takes either frame gets either back (a TypeVar of two types refused it).
    assert_type(pl_metrics.lrap(frame, by="model"), pl.DataFrame | pl.LazyFrame)
    assert_type(pl_metrics.report(frame, ["f1", "roc_auc"]), pl.DataFrame | pl.LazyFrame)
    assert_type(pl_metrics.best_threshold(frame, "f1"), pl.DataFrame | pl.LazyFrame)


def _eager(df: pl.DataFrame) -> None:
    assert_type(pl_metrics.lwlrap(df, by=["model", "fold"]), pl.DataFrame)
    assert_type(pl_metrics.compare(df, "lrap", fold_col="fold"), pl.DataFrame)


def _lazy(lf: pl.LazyFrame) -> None:
    assert_type(pl_metrics.f1(lf, threshold=0.3), pl.LazyFrame)
    assert_type(pl_metrics.roc_curve(lf), pl.LazyFrame)


def _options(df: pl.DataFrame) -> None:
    # compare's, bootstrap's and paired's options, typed by the name the docs give them.
    options: pl_metrics.MetricOptions = {"average": "micro", "threshold": 0.3}
    assert_type(pl_metrics.compare(df, "f1", **options), pl.DataFrame)
    assert_type(pl_metrics.bootstrap(df, "f1", n_resamples=10, **options), pl.DataFrame)


def _integer_models(df: pl.DataFrame) -> None:
    # Models are values of model_col, of its type: integers too.
    assert_type(pl_metrics.paired(df, "lrap", 1, 2, n_resamples=10), pl.DataFrame)


def _arrays() -> None:
    # scikit-learn's inputs: nested lists and pandas objects, as the docstring says.
    assert_type(pl_metrics.from_numpy([[1, 0], [0, 1]], [[0.1, 0.9], [0.8, 0.2]]), pl.DataFrame)
    assert_type(pl_metrics.chunk_key("lrap"), Literal["id", "class"])
    # ids and weights as polars Series (or any array-like), as scikit-learn's sample_weight.
    ids, weights = pl.Series([5, 6]), pl.Series([1.0, 2.0])
    y, p = [[1, 0], [0, 1]], [[0.1, 0.9], [0.8, 0.2]]
    assert_type(pl_metrics.from_numpy(y, p, ids=ids, sample_weight=weights), pl.DataFrame)


def _wide(scores: pl.DataFrame, truth: pl.DataFrame) -> None:
    # A pandas frame's integer column names: classes=[0, 1], or one, as documented.
    assert_type(pl_metrics.from_wide(scores, truth, classes=[0, 1]), pl.DataFrame)
    assert_type(pl_metrics.from_wide(scores, truth, classes=0), pl.DataFrame)
