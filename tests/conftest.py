"""Shared helpers: long tables made from dense matrices, and eager/lazy parametrisation."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import polars as pl
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import pl_metrics  # registers .metrics
from pl_metrics import _kernel
from pl_metrics._registry import METRICS

# Every run, the README's test command as CI's, draws the same examples, so that a result
# does not turn on the draw (test_curve_tables' pooled average precision differed in its last
# bit in two drawn runs, which its examples rerun alone did not repeat: see the note on issue
# 13); PL_METRICS_EXPLORE=1 draws new ones.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI") or not os.environ.get("PL_METRICS_EXPLORE"):
    settings.load_profile("ci")

T = TypeVar("T")


@pytest.fixture(params=["eager", "lazy"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def run(df: pl.DataFrame, kind: str, metric: Callable[..., Any], **options: Any) -> pl.DataFrame:
    """Call ``metric`` on ``df`` eagerly or lazily; check the type in is the type out."""
    if kind == "eager":
        out = metric(df, **options)
        assert isinstance(out, pl.DataFrame)
        return out
    out = metric(df.lazy(), **options)
    assert isinstance(out, pl.LazyFrame)
    collected = out.collect()
    if getattr(metric, "__name__", None) in METRICS:
        # A collected lazy metric runs the driver (rows read into memory, the kernels); the
        # polars plans, what runs without the kernel (an install without a compiler), must
        # give the same numbers. (A lazy state runs the kernel too: it is left out here.)
        name = metric.__name__
        plan = on_the_plan(
            lambda: pl_metrics.state(df.lazy(), name, **options).finalize().collect()
        )
        assert_frame_equal(plan, collected, rel_tol=1e-12, abs_tol=1e-12)
    return collected


def on_the_plan(call: Callable[[], T]) -> T:
    """``call()`` with the kernel turned off: the polars plans, as an install without it.

    (Needed for a LazyFrame's state too: its collect runs the kernel on each chunk, as
    `score` does.)
    """
    kernels = _kernel._kernels
    _kernel._kernels = None
    try:
        return call()
    finally:
        _kernel._kernels = kernels


def long_table(
    truth: np.ndarray,
    score: np.ndarray,
    *,
    weight: np.ndarray | None = None,
    group: Any = None,
    rng: np.random.Generator | None = None,
    class_names: list[Any] | None = None,
) -> pl.DataFrame:
    """The long table of a dense ``(n_ids, n_classes)`` problem, rows shuffled."""
    n_ids, n_classes = truth.shape
    names = class_names if class_names is not None else list(range(n_classes))
    data: dict[str, Any] = {
        "id": np.repeat(np.arange(n_ids), n_classes),
        "class": np.tile(np.array(names, dtype=object), n_ids).tolist(),
        "score": score.reshape(-1).astype(float),
        "truth": truth.reshape(-1).astype(bool),
    }
    if weight is not None:
        data["w"] = np.repeat(weight, n_classes).astype(float)
    df = pl.DataFrame(data)
    if group is not None:
        df = df.with_columns(pl.lit(group).alias("g"))
    if rng is not None:
        df = df[rng.permutation(df.height)]
    return df


def ragged_table(*, seed: int, kept: float) -> pl.DataFrame:
    """30 ids of 6 classes (tied scores): classes 0 and 1 of every id, each other row kept
    with probability ``kept``, so that ids hold other class sets (``ragged="allow"``)."""
    rng = np.random.default_rng(seed)
    truth = rng.random((30, 6)) < 0.4
    score = rng.integers(0, 4, size=(30, 6)) / 3
    full = long_table(truth, score)
    keep = rng.random(full.height) < kept
    return full.filter(pl.Series(keep) | (pl.col("class") < 2))


@st.composite
def dense_problems(
    draw: st.DrawFn, *, min_classes: int = 1, weights: bool = False, max_groups: int = 3
) -> list[dict[str, np.ndarray]]:
    """Several groups of dense multilabel problems with many ties and degenerate rows."""
    n_groups = draw(st.integers(1, max_groups))
    problems = []
    for _ in range(n_groups):
        n_ids = draw(st.integers(1, 8))
        # Past 16 classes, ids of more than 16 positives (the kernel and the plans take
        # another way for them).
        n_classes = draw(st.integers(min_classes, 6) | st.just(max(min_classes, 20)))
        seed = draw(st.integers(0, 2**32 - 1))
        rng = np.random.default_rng(seed)
        # Few distinct scores: ties are common; or many (the kernel's sort of distinct
        # scores). Some rows all positive or all negative.
        levels = draw(st.sampled_from([1, 2, 3, 4, 5, 1000]))
        score = rng.integers(0, levels, size=(n_ids, n_classes)) / max(4, levels)
        truth = rng.random((n_ids, n_classes)) < draw(st.sampled_from([0.0, 0.2, 0.5, 1.0]))
        truth[rng.random(n_ids) < 0.2] = True
        problem = {"truth": truth, "score": score}
        if weights:
            problem["weight"] = rng.choice([0.5, 1.0, 2.0, 3.0, -1.0], size=n_ids)
        problems.append(problem)
    return problems


def grouped_table(problems: list[dict[str, np.ndarray]], seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    frames = [
        long_table(p["truth"], p["score"], weight=p.get("weight"), group=g, rng=rng)
        for g, p in enumerate(problems)
    ]
    return pl.concat(frames).sample(fraction=1.0, shuffle=True, seed=seed)


def write_corrupt_page(rows: pl.DataFrame, path: Path) -> None:
    """``rows`` as a parquet file whose footer reads but one data page does not decode."""
    rows.write_parquet(path, compression="zstd")
    data = bytearray(path.read_bytes())
    at = len(data) // 3  # in a data page, well before the footer
    data[at : at + 200] = bytes(b ^ 0xFF for b in data[at : at + 200])
    path.write_bytes(bytes(data))


def certain_frame() -> pl.DataFrame:
    """Two ids, two classes, each id's true class scored 1 (its other 0)."""
    return pl.DataFrame(
        {
            "id": [0, 0, 1, 1],
            "class": ["a", "b"] * 2,
            "score": [1.0, 0.0, 0.0, 1.0],
            "truth": [True, False, False, True],
        }
    )
