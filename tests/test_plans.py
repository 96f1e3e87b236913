"""Every metric's state plan runs in the streaming engine: no in-memory map over the rows.

The only Python step is the check on the final few aggregated rows (`finalize`), which is
not part of the state plan.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

import pl_metrics
from pl_metrics._registry import METRICS
from pl_metrics._spec import resolve
from pl_metrics._state import build_state

DATA = Path(__file__).parent.parent / "data" / "digits_oof.parquet"
FALLBACK = 'fillcolor="0.0 0.3 1.0"'  # the legend's colour of an in-memory engine fallback

# The registry's metrics with their default options, plus the options that add state.
CASES = [([name], {}) for name in METRICS] + [
    (["lwlrap", "lrap", "coverage_error", "label_ranking_loss"], {}),
    (["lwlrap"], {"per_class": True}),
    (["f1", "precision", "recall", "jaccard", "fbeta"], {"average": "samples"}),
    (["confusion"], {"average": None}),
    (["log_loss", "weighted_log_loss"], {}),
    (["weighted_log_loss"], {"class_weights": {str(k): 1.0 for k in range(10)}}),
    (["roc_auc", "average_precision", "padded_cmap"], {}),
    (["roc_auc", "average_precision"], {"average": "samples", "undefined": "skip"}),
    (["lrap", "ndcg", "accuracy", "top_k_accuracy"], {"per_id": True}),
    (["top_k_accuracy"], {"k": 3}),
]
#: In-memory steps that do not run over the input's rows: ndcg's table of discounts has one
#: row per position (the most classes of an id), made from a one-row frame.
ALLOWED = ("int_range",)


def physical_plan(lf: pl.LazyFrame) -> str:
    return str(lf.show_graph(engine="streaming", plan_stage="physical", raw_output=True))


@pytest.mark.parametrize(("metrics", "options"), CASES)
@pytest.mark.parametrize("validate", [True, False])
def test_state_plans_stream(metrics: list[str], options: dict, validate: bool) -> None:  # type: ignore[type-arg]
    lf = pl.scan_parquet(DATA)
    state = build_state(
        lf, resolve(lf, metrics, by=["model", "fold"], validate=validate, **options)
    )
    for table in (state.groups, state.classes, state.curves):
        if table is None:
            continue
        plan = physical_plan(table.lazy())
        assert "multi-scan" in plan  # the plan really reads the file
        fallbacks = [
            line
            for line in plan.splitlines()
            if FALLBACK in line and not any(f"= {name}(" in line for name in ALLOWED)
        ]
        assert fallbacks == [], fallbacks


def test_lazy_metric_reads_nothing_until_collected(tmp_path: Path) -> None:
    path = tmp_path / "dump.parquet"
    pl.read_parquet(DATA).write_parquet(path)
    lazy = pl.scan_parquet(path).metrics.lrap(by="model")
    path.unlink()  # the plan must not have read the rows: collecting now fails to find them
    with pytest.raises((FileNotFoundError, OSError, pl.exceptions.ComputeError)):
        lazy.collect()


def test_the_check_sees_a_fallback() -> None:
    """A per-id rank does fall back: the test above would catch it."""
    lf = pl.scan_parquet(DATA).group_by("id").agg(pl.col("score").rank().sum())
    assert FALLBACK in physical_plan(lf)


@pytest.mark.parametrize(
    ("call", "most"),
    [
        (lambda lf: pl_metrics.report(lf, ["lrap", "f1", "roc_auc", "log_loss"], by="model"), 2),
        # (by fold, pooled, and the models' (id, class) rows, each counting its rows too)
        (lambda lf: pl_metrics.compare(lf, ["lrap", "f1", "roc_auc", "log_loss"]), 5),
        (lambda lf: pl_metrics.paired(lf, "lrap", "knn", "logreg", n_resamples=20), 2),
        (lambda lf: pl_metrics.bootstrap(lf, "roc_auc", by="model", n_resamples=20), 2),
        # (A state's plan reads the input once per table and join: it is no driver.)
        (lambda lf: pl_metrics.state(lf, ["lrap", "roc_auc"], by="model").finalize(), 7),
        (lambda lf: pl_metrics.merge_states([_eager_part(), _lazy_part(lf)]).finalize(), 7),
    ],
)
def test_lazy_results_read_their_input_a_few_times(call: Any, most: int) -> None:
    """Counting the row count's read: `compare` read its input 48 times, `paired` 7, a
    lazy state's `finalize` 24."""
    from polars.io.plugins import register_io_source

    rows = pl.read_parquet(DATA)
    reads = 0

    def source(with_columns: Any, predicate: Any, n_rows: Any, batch_size: Any) -> Any:
        nonlocal reads
        reads += 1
        read = rows if predicate is None else rows.filter(predicate)  # (not applied after)
        yield read if with_columns is None else read.select(with_columns)

    lazy = call(register_io_source(source, schema=rows.schema))
    assert reads == 0  # nothing read at the call
    assert lazy.collect().height
    assert reads <= most


def _eager_part() -> pl_metrics.MetricState:
    rows = pl.read_parquet(DATA).filter(pl.col("model") == "knn", pl.col("fold") == 0)
    return pl_metrics.state(rows, ["lrap", "roc_auc"], by="model").collect()


def _lazy_part(lf: pl.LazyFrame) -> pl_metrics.MetricState:
    rows = lf.filter(pl.col("model") != "knn")  # (a merge of id-disjoint parts, as asked)
    return pl_metrics.state(rows, ["lrap", "roc_auc"], by="model")
