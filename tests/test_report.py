"""report() equals the single-metric functions; states merge exactly."""

from __future__ import annotations

import math
import pickle
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import pl_metrics
from tests.conftest import dense_problems, grouped_table, long_table, run
from tests.test_conformance import make_table

SETTINGS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
RANKING = ["lwlrap", "lrap", "coverage_error", "label_ranking_loss"]
THRESHOLDED = ["f1", "precision", "recall", "balanced_accuracy", "balanced_f1", "mfif"]


def multiclass_table(seed: int, n_ids: int = 40, n_classes: int = 4) -> pl.DataFrame:
    """Probabilities with one true class per id, for reports that include the log losses."""
    rng = np.random.default_rng(seed)
    frames = []
    for model in ("a", "b"):
        y = rng.integers(0, n_classes, n_ids)
        p = rng.dirichlet(np.ones(n_classes), n_ids).round(2) + 0.01
        p = p / p.sum(axis=1, keepdims=True)
        frames.append(
            long_table(np.eye(n_classes, dtype=bool)[y], p, rng=rng).with_columns(
                model=pl.lit(model), fold=(pl.col("id") % 3)
            )
        )
    return pl.concat(frames)


@pytest.mark.parametrize("average", ["macro", "micro", "weighted"])
def test_report_equals_each_metric(kind: str, average: str) -> None:
    df = multiclass_table(0)
    metrics = [*RANKING, *THRESHOLDED, "log_loss", "weighted_log_loss"]
    out = run(
        df,
        kind,
        pl_metrics.report,
        metrics=metrics,
        by=["model", "fold"],
        average=average,
        threshold=0.3,
    )
    assert out.columns == ["model", "fold", *metrics]
    for metric in metrics:
        options = {"average": average, "threshold": 0.3} if metric in THRESHOLDED else {}
        alone = getattr(pl_metrics, metric)(df, by=["model", "fold"], **options)
        np.testing.assert_allclose(
            out[metric].to_numpy(), alone[metric].to_numpy(), rtol=1e-12, atol=1e-15
        )


def test_report_samples_and_weights() -> None:
    rng = np.random.default_rng(1)
    df = long_table(
        rng.random((30, 5)) < 0.4, rng.random((30, 5)).round(1), weight=rng.choice([1.0, 2.0], 30)
    )
    out = pl_metrics.report(df, ["f1", "recall", "lrap"], average="samples", weight_col="w")
    f1 = pl_metrics.f1(df, average="samples", weight_col="w").item()
    assert out["f1"].item() == pytest.approx(f1, rel=1e-12)
    assert out["lrap"].item() == pytest.approx(pl_metrics.lrap(df, weight_col="w").item())


def test_per_class_report(kind: str) -> None:
    df = multiclass_table(2)
    out = run(
        df,
        kind,
        pl_metrics.report,
        metrics=["lwlrap", "f1", "confusion"],
        by="model",
        per_class=True,
    )
    assert out.columns == ["model", "class", "lwlrap", "weight", "f1", "tp", "fp", "fn", "tn"]
    lw = pl_metrics.lwlrap(df, by="model", per_class=True)
    f1 = pl_metrics.f1(df, by="model", average=None)
    assert_frame_equal(out.select(lw.columns), lw, rel_tol=1e-12, abs_tol=1e-15)
    assert_frame_equal(out.select(f1.columns), f1, rel_tol=1e-12, abs_tol=1e-15)
    with pytest.raises(pl_metrics.MetricsInputError, match="per-class report cannot include"):
        pl_metrics.report(df, ["lwlrap", "lrap"], per_class=True)
    # (of confusion, never asked per_class=True: "a per-class report" puzzled)
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"^a report of confusion \(a row per class\) cannot include lrap",
    ):
        pl_metrics.report(df, ["confusion", "lrap"])
    # The message says which metric is per class, and how to have the others so too.
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"cannot include f1: confusion gives one row per class .*'per_class' to have f1 ",
    ):
        pl_metrics.report(df, ["confusion", "f1"])
    with pytest.raises(pl_metrics.MetricsInputError, match=r"compute lrap in a report"):
        pl_metrics.report(df, ["confusion", "lrap"])


def test_report_options_are_checked() -> None:
    df = multiclass_table(3)
    with pytest.raises(pl_metrics.MetricsInputError, match="unknown metric 'auc'"):
        pl_metrics.report(df, ["lrap", "auc"])
    with pytest.raises(pl_metrics.MetricsInputError, match="'samples' is defined for"):
        pl_metrics.report(df, ["mfif"], average="samples")
    with pytest.raises(pl_metrics.MetricsInputError, match="at least one metric"):
        pl_metrics.report(df, [])
    # Names as by= takes them (an array, a pandas Index, a set: sorted); not a mapping.
    pd = pytest.importorskip("pandas")
    want = pl_metrics.report(df, ["f1", "lrap"], by=["model", "fold"])
    for names in (np.array(["f1", "lrap"]), pd.Index(["f1", "lrap"]), {"lrap", "f1"}):
        assert_frame_equal(pl_metrics.report(df, names, by=["model", "fold"]), want)
    with pytest.raises(pl_metrics.MetricsInputError, match="expected a metric name or a list"):
        pl_metrics.report(df, {"f1": 1})
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"option .weight_col. is not used by weighted_log_loss"
    ):
        pl_metrics.report(df.with_columns(w=pl.lit(1.0)), ["weighted_log_loss"], weight_col="w")


def test_four_ranking_metrics_share_one_per_id_pass() -> None:
    """The plan of a four-metric report has as many row aggregations as one metric's."""
    lf = multiclass_table(4).lazy()

    def aggregations(q: pl.LazyFrame) -> int:
        return q.explain().count("AGGREGATE")

    one = aggregations(pl_metrics.lrap(lf, by="model"))
    four = aggregations(pl_metrics.report(lf, RANKING, by="model"))
    assert four == one


STATE_CASES = [
    (RANKING, {}),
    (["lwlrap"], {"per_class": True}),
    (THRESHOLDED, {"average": "macro"}),
    (THRESHOLDED, {"average": "weighted", "zero_division": float("nan")}),
    (["f1", "precision", "recall"], {"average": "samples"}),
    (["f1", "confusion"], {"per_class": True}),
]


@pytest.mark.parametrize(("metrics", "options"), STATE_CASES)
@given(
    problems=dense_problems(min_classes=2, weights=True),
    parts=st.integers(1, 4),
    seed=st.integers(0, 1000),
)
@SETTINGS
def test_states_of_id_disjoint_parts_merge_exactly(metrics, options, problems, parts, seed):  # type: ignore[no-untyped-def]
    for p in problems:
        p["weight"] = np.abs(p["weight"]) + 0.5
    df = grouped_table(problems, seed=seed)
    whole = pl_metrics.report(df, metrics, by="g", weight_col="w", **options)
    part_of_id = np.random.default_rng(seed).integers(0, parts, df["id"].max() + 1)
    df = df.with_columns(part=pl.Series(part_of_id[df["id"].to_numpy()]))
    states = [
        pl_metrics.state(
            df.filter(pl.col("part") == k), metrics, by="g", weight_col="w", **options
        ).collect()
        for k in range(parts)
        if df.filter(pl.col("part") == k).height
    ]
    merged = pl_metrics.merge_states(states).finalize().collect()
    assert merged.columns == whole.columns
    for column in whole.columns:
        if whole.schema[column].is_float():
            np.testing.assert_allclose(
                merged[column].fill_null(-1.0).to_numpy(),
                whole[column].fill_null(-1.0).to_numpy(),
                rtol=1e-12,
                atol=1e-12,
            )
        else:
            assert merged[column].to_list() == whole[column].to_list()


def _shifting_source(df: pl.DataFrame) -> pl.LazyFrame:
    """``df`` as a LazyFrame whose every read shifts the scores by another small amount, as
    an upstream float sum in another order would change their last bits: each read ranks
    alike, but a plan that mixed two reads would compare rows of both."""
    from polars.io.plugins import register_io_source

    reads = iter(range(1, 1_000))

    def source(with_columns, predicate, n_rows, batch_size):  # type: ignore[no-untyped-def]
        read = df.with_columns(pl.col("score") + next(reads) / 64)
        read = read if predicate is None else read.filter(predicate)
        yield read if with_columns is None else read.select(with_columns)

    return register_io_source(source, schema=df.schema)


def test_a_lazy_state_reads_its_frame_once() -> None:
    """A LazyFrame's state (and a merge of such states) reads each row once: its tables
    are counted from one read, as `score` counts them."""
    df = make_table(5, n_ids=60).drop("pred")
    metrics = ["lrap", "coverage_error", "roc_auc", "ndcg", "f1"]
    want = pl_metrics.report(df, metrics, by="model")
    lazy = pl_metrics.state(_shifting_source(df), metrics, by="model")
    assert_frame_equal(lazy.finalize().collect(), want, rel_tol=1e-12)
    assert_frame_equal(lazy.collect().finalize().collect(), want, rel_tol=1e-12)
    parts = [df.filter(pl.col("id") % 2 == k) for k in range(2)]
    states = [pl_metrics.state(_shifting_source(p), metrics, by="model") for p in parts]
    merged = pl_metrics.merge_states(states).finalize().collect()
    assert_frame_equal(merged, want, rel_tol=1e-12)


def test_lazy_states_merged_one_at_a_time_stay_one_level() -> None:
    """Merged one at a time, lazy states give a state of every part at one level (each
    merge was slower than the last: 400 took 210 s), with the values of one merge, and a
    part given again inside a merged state is refused."""
    df = make_table(7, n_ids=60).drop("pred")
    metrics = ["lrap", "f1", "roc_auc"]
    parts = [df.filter(pl.col("id") % 6 == k).lazy() for k in range(6)]
    states = [pl_metrics.state(p, metrics, by="model") for p in parts]
    merged = states[0]
    for state in states[1:]:
        merged = pl_metrics.merge_states([merged, state])
    assert len(merged.parts) == len(states)
    assert all(a is b for a, b in zip(merged.parts, states, strict=True))
    at_once = pl_metrics.merge_states(states).finalize().collect()
    assert_frame_equal(merged.finalize().collect(), at_once, check_exact=True)
    want = pl_metrics.report(df, metrics, by="model")
    assert_frame_equal(at_once, want, rel_tol=1e-12)
    with pytest.raises(pl_metrics.MetricsInputError, match="given again, inside a merged one"):
        pl_metrics.merge_states([merged, states[2]])


def test_collected_and_pickled_states_given_again_are_refused() -> None:
    """A collected merge kept no parts: a part merged into it again counted twice, silently
    (the incremental total = total.merge(new) of a job that reran a shard)."""
    df = make_table(3, n_ids=60).drop("pred")
    parts = [df.filter(pl.col("id") % 3 == k) for k in range(3)]
    states = [pl_metrics.state(p, ["lrap", "f1"], by="model").collect() for p in parts]
    total = states[0].merge(states[1])
    refused = r"^merge_states: a state is given again, inside a merged one \(or as a copy"
    for again in (states[0], pickle.loads(pickle.dumps(states[1]))):
        with pytest.raises(pl_metrics.MetricsInputError, match=refused):
            total.merge(again)
    copy = pickle.loads(pickle.dumps(states[2]))
    with pytest.raises(pl_metrics.MetricsInputError, match=refused):
        pl_metrics.merge_states([states[2], copy])
    got = total.merge(pickle.loads(pickle.dumps(states[2]))).finalize().collect()
    assert_frame_equal(got, pl_metrics.report(df, ["lrap", "f1"], by="model"), rel_tol=1e-12)
    # A LazyFrame's state, collected: its chunks' states are new, its tokens are not.
    lazy = [pl_metrics.state(p.lazy(), ["lrap", "f1"], by="model") for p in parts[:2]]
    for merged in (lazy[0].merge(lazy[1]).collect(), lazy[0].collect().merge(lazy[1])):
        with pytest.raises(pl_metrics.MetricsInputError, match=refused):
            merged.merge(lazy[0])
    with pytest.raises(pl_metrics.MetricsInputError, match=refused):
        pl_metrics.merge_states([lazy[0], lazy[0].collect()])


def test_merged_states_see_ragged_input_across_parts() -> None:
    rng = np.random.default_rng(5)
    a = long_table(rng.random((4, 2)) < 0.5, rng.random((4, 2)))
    b = long_table(rng.random((4, 3)) < 0.5, rng.random((4, 3))).with_columns(pl.col("id") + 100)
    states = [pl_metrics.state(part, "lrap").collect() for part in (a, b)]
    with pytest.raises(pl_metrics.MetricsInputError, match=r"4 \(id, class\) rows are missing"):
        pl_metrics.merge_states(states).finalize().collect()


def test_a_clean_part_merges_with_a_part_that_has_problems() -> None:
    """A DataFrame's passing row checks are constant zeros: the states still line up."""
    rng = np.random.default_rng(6)
    clean = long_table(rng.random((4, 3)) < 0.5, rng.random((4, 3)))
    bad = clean.with_columns(pl.col("id") + 100, pl.col("score").shift(1))  # one null
    bad = bad.with_columns(pl.col("score").fill_null(float("nan")))
    states = [pl_metrics.state(part, ["lrap", "f1"]).collect() for part in (clean, bad)]
    with pytest.raises(pl_metrics.MetricsInputError, match="score': 1 row is NaN"):
        pl_metrics.merge_states(states).finalize().collect()


def test_merge_refuses_different_states() -> None:
    df = multiclass_table(6)
    with pytest.raises(pl_metrics.MetricsInputError, match="differ"):
        pl_metrics.merge_states([pl_metrics.state(df, "lrap"), pl_metrics.state(df, "f1")])
    with pytest.raises(pl_metrics.MetricsInputError, match="no states"):
        pl_metrics.merge_states([])
    # Not "average None vs 'macro'" too: lwlrap takes no average (its per_class sets it).
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"differ in options: per_class True vs False$"
    ):
        pl_metrics.merge_states(
            [pl_metrics.state(df, "lwlrap", per_class=True), pl_metrics.state(df, "lwlrap")]
        )
    # Metrics in another order merge, so an option is the difference; and options of every
    # metric (ragged) are named beside a metric's own.
    head, tail = df.filter(pl.col("id") < 20), df.filter(pl.col("id") >= 20)
    for first, second, told in (
        (
            pl_metrics.state(head, ["f1", "lrap"], threshold=0.3),
            pl_metrics.state(tail, ["lrap", "f1"], threshold=0.4),
            r"differ in options: threshold 0\.3 vs 0\.4$",
        ),
        (
            pl_metrics.state(head, "f1", threshold=0.3, ragged="allow"),
            pl_metrics.state(tail, "f1"),
            r"differ in options: threshold 0\.3 vs 0\.5, ragged 'allow' vs 'error'$",
        ),
    ):
        with pytest.raises(pl_metrics.MetricsInputError, match=told):
            pl_metrics.merge_states([first, second])
    # Threshold tables: their first difference, which their cut-short reprs did not show.
    table = pl.DataFrame({"class": [0, 1, 2, 3], "threshold": [0.5, 0.5, 0.5, 0.5]})
    other = table.with_columns(threshold=pl.when(pl.col("class") == 3).then(0.3).otherwise(0.5))
    first, rest = df.filter(pl.col("id") < 20), df.filter(pl.col("id") >= 20)
    for rest_table, difference in ((other, "0.5 vs 0.3$"), (table.head(3), "0.5 vs None")):
        states = [
            pl_metrics.state(part, "f1", by="model", threshold=t)
            for part, t in ((first, table), (rest, rest_table))
        ]
        with pytest.raises(
            pl_metrics.MetricsInputError,
            match=rf"differ in options: threshold: at class=3, {difference}",
        ):
            pl_metrics.merge_states(states)
    # A table beside a number, columns named apart: told as a user gave them (the table's
    # repr, and Columns' own fields, score_is_float, were shown).
    scalar = pl_metrics.state(rest, "f1", by="model", threshold=0.3)
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"differ in options: threshold: a table vs 0\.3$"
    ):
        pl_metrics.merge_states(
            [pl_metrics.state(first, "f1", by="model", threshold=table), scalar]
        )
    preds = first.with_columns(pred=pl.col("score") > 0.5)
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"differ in columns: score_col None vs 'score', pred_col 'pred' vs None$",
    ):
        pl_metrics.merge_states(
            [pl_metrics.state(preds, "f1", by="model", pred_col="pred", score_col=None), scalar]
        )


@pytest.mark.parametrize("lazy", [False, True])
def test_states_of_the_same_metrics_in_another_order_merge(lazy: bool) -> None:
    # They were refused: "states differ in metrics: ['f1', 'lrap'] vs ['lrap', 'f1']".
    df = multiclass_table(6)
    first, rest = df.filter(pl.col("id") < 20), df.filter(pl.col("id") >= 20)
    orders = (["f1", "lrap", "log_loss"], ["lrap", "log_loss", "f1"])
    for options in ({}, {"per_id": True, "average": "samples"}):
        states = [
            pl_metrics.state(part.lazy() if lazy else part, metrics, by="model", **options)
            for part, metrics in zip((first, rest), orders, strict=True)
        ]
        merged = pl_metrics.merge_states(states).finalize().collect()
        whole = pl_metrics.report(df, orders[0], by="model", **options)
        assert_frame_equal(merged, whole, check_row_order=False)
    with pytest.raises(pl_metrics.MetricsInputError, match=r"differ in metrics"):
        pl_metrics.merge_states(
            [pl_metrics.state(first, ["f1", "lrap"]), pl_metrics.state(rest, ["lrap"])]
        )


def test_states_of_equal_options_merge_however_the_options_were_made() -> None:
    """zero_division=NaN from two calls (two NaN objects, as states pickled back from Dask
    workers), a threshold table's rows or class weights' keys in another order, an option
    given its default value: equal."""
    import pickle

    df = multiclass_table(3).filter(model="a")
    a, b = df.filter(pl.col("id") < 20), df.filter(pl.col("id") >= 20)
    table = pl.DataFrame({"class": [0, 1, 2, 3], "threshold": [0.1, 0.2, 0.3, 0.25]})
    weights = {0: 1.0, 1: 2.0, 2: 0.5, 3: 1.0}
    cases = [
        ("recall", {"zero_division": float("nan")}, {"zero_division": float("nan")}),
        ("f1", {"threshold": table}, {"threshold": table.reverse()}),
        (
            "weighted_log_loss",
            {"class_weights": weights},
            {"class_weights": dict(reversed(weights.items()))},
        ),
        ("top_k_accuracy", {"k": 1}, {}),  # (its default: refused as "k 1 vs None")
    ]
    for metric, first, second in cases:
        states = [pl_metrics.state(a, metric, **first), pl_metrics.state(b, metric, **second)]
        states = [pickle.loads(pickle.dumps(s)) for s in states]
        merged = pl_metrics.merge_states(states).finalize().collect()
        assert_frame_equal(merged, pl_metrics.report(df, metric, **first), rel_tol=1e-12)


def test_per_id_states_refuse_an_id_of_several_parts() -> None:
    """A per-id state keeps its ids: an id in two parts was a repeated row of the result."""
    rng = np.random.default_rng(9)
    df = long_table(rng.random((20, 3)) < 0.4, rng.random((20, 3))).with_columns(
        fold=pl.col("id") % 2
    )
    parts = [df.filter(pl.col("id") < 12), df.filter(pl.col("id") >= 8).lazy()]
    for by in (None, "fold"):
        states = [pl_metrics.state(p, "lrap", per_id=True, by=by) for p in parts]
        where = r" \(in 2 groups: fold=0; fold=1\)" if by else ""
        with pytest.raises(
            pl_metrics.MetricsInputError,
            match=rf"^column 'id': 4 ids are in several of the merged parts{where}; the parts",
        ):
            pl_metrics.merge_states(states).finalize().collect()
    unchecked = [pl_metrics.state(p, "lrap", per_id=True, validate=False) for p in parts]
    assert pl_metrics.merge_states(unchecked).finalize().collect().height == 24  # (as told)
    disjoint = [df.filter(pl.col("id") < 8), parts[1]]
    merged = pl_metrics.merge_states([pl_metrics.state(p, "lrap", per_id=True) for p in disjoint])
    assert_frame_equal(merged.finalize().collect(), pl_metrics.lrap(df, per_id=True))


def test_per_id_states_merge_ids_of_one_kind_only() -> None:
    """Integer ids beside categorical ones raised polars' SchemaError; beside text ones they
    stacked as text, sorted "10" before "2". Text of three kinds still stacks."""
    rng = np.random.default_rng(9)
    df = long_table(rng.random((20, 3)) < 0.4, rng.random((20, 3)))
    a, b = df.filter(pl.col("id") < 10), df.filter(pl.col("id") >= 10)
    for other in (pl.Categorical, pl.String):
        typed = b.with_columns(pl.col("id").cast(pl.String).cast(other))
        states = [pl_metrics.state(part, "lrap", per_id=True) for part in (a, typed)]
        with pytest.raises(pl_metrics.MetricsInputError, match=r"type of column 'id': Int"):
            pl_metrics.merge_states(states)
    texts = [part.with_columns(pl.col("id").cast(pl.String)) for part in (a, b)]
    texts[1] = texts[1].with_columns(pl.col("id").cast(pl.Categorical))
    merged = pl_metrics.merge_states([pl_metrics.state(t, "lrap", per_id=True) for t in texts])
    as_strings = [t.with_columns(pl.col("id").cast(pl.String)) for t in texts]
    want = pl_metrics.lrap(pl.concat(as_strings), per_id=True)
    assert_frame_equal(merged.finalize().collect(), want, check_row_order=False)
    # Enums of each part's own ids (id-disjoint shards list their own): refused, in a
    # message that printed every category.
    enums = [
        s.with_columns(pl.col("id").cast(pl.Enum(s["id"].unique().sort()))) for s in as_strings
    ]
    merged = pl_metrics.merge_states([pl_metrics.state(e, "lrap", per_id=True) for e in enums])
    assert_frame_equal(merged.finalize().collect(), want, check_row_order=False)
    # Groups' enums of other categories are refused, named by their count.
    grouped = [
        e.with_columns(g=pl.col("id").cast(pl.String).cast(pl.Enum([f"{i}" for i in range(k)])))
        for e, k in zip(enums, (30, 40), strict=True)
    ]
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"type of column 'g': Enum of 30 categories vs Enum of 40 categories; cast",
    ):
        pl_metrics.merge_states([pl_metrics.state(e, "lrap", by="g") for e in grouped])


def test_states_compare_by_identity_and_sweeps_by_their_thresholds() -> None:
    """A state in a list or set raised polars' "truth value of a DataFrame is ambiguous";
    sweeps of the same thresholds given in another order were refused as other options."""
    rng = np.random.default_rng(10)
    df = long_table(rng.random((20, 3)) < 0.4, rng.random((20, 3)))
    a, b = df.filter(pl.col("id") < 10), df.filter(pl.col("id") >= 10)
    sa, sb = (pl_metrics.state(p, "lrap").collect() for p in (a, b))
    assert sa not in [sb]
    assert len({sa, sb, sa}) == 2
    sweeps = [
        pl_metrics.state(a, "threshold_sweep", thresholds=[0.3, 0.5]),
        pl_metrics.state(b, "threshold_sweep", thresholds=[0.5, 0.3, 0.5]),
    ]
    want = pl_metrics.threshold_sweep(df, "f1", [0.3, 0.5])
    assert_frame_equal(pl_metrics.merge_states(sweeps).finalize().collect(), want)


def test_merge_names_columns_typed_differently_in_the_parts() -> None:
    """A CSV shard beside a parquet one: the same columns, other types, named as such."""
    rng = np.random.default_rng(8)
    df = long_table(rng.random((20, 3)) < 0.4, rng.random((20, 3))).with_columns(
        pl.col("class").cast(pl.String), fold=pl.col("id") % 2
    )
    a, b = df.filter(pl.col("id") < 10), df.filter(pl.col("id") >= 10)
    enum = pl.Enum(["0", "1", "2"])
    cases = {
        "class": (a.with_columns(pl.col("class").cast(pl.Int64)), "Int64 vs String"),
        "score": (a.with_columns(pl.col("score").cast(pl.Float32)), "Float32 vs Float64"),
        "truth": (a.with_columns(pl.col("truth").cast(pl.Int8)), "numbers 0/1 vs boolean"),
        # (a Float32 0.1, widened, is another group than the Float64 0.1)
        "fold": (
            a.with_columns(pl.col("fold").cast(pl.Float32) / 10),
            "Float32 vs Float64",
        ),
        # (by their types: an enum was "enum vs neither categorical nor enum")
        "class ": (
            a.with_columns(pl.col("class").cast(enum)),
            r"Enum\(categories=\['0', '1', '2'\]\) vs String",
        ),
        " class": (
            a.with_columns(pl.col("class").cast(pl.Categorical)),
            "Categorical vs String",
        ),
    }
    for column, (other, types) in cases.items():
        tenths = b.with_columns(pl.col("fold") / 10) if column == "fold" else b
        states = [pl_metrics.state(part, ["lrap", "f1"], by="fold") for part in (other, tenths)]
        with pytest.raises(
            pl_metrics.MetricsInputError,
            match=f"type of column '{column.strip()}': {types}; cast it",
        ):
            pl_metrics.merge_states(states)
    enums = [a.with_columns(pl.col("class").cast(enum)), b.with_columns(pl.col("class").cast(enum))]
    enums[1] = enums[1].with_columns(pl.col("class").cast(pl.String).cast(pl.Enum(["2", "1", "0"])))
    with pytest.raises(pl_metrics.MetricsInputError, match="type of column 'class': Enum"):
        pl_metrics.merge_states([pl_metrics.state(part, "lrap") for part in enums])
    # Keys of two integer widths, or text typed three ways, stack as one type; so do
    # Float32 keys beside Float64 ones that a Float32 holds exactly.
    want = pl_metrics.lrap(df, by="fold")
    enum = pl.Enum(["0", "1"])
    for widths in (
        [a.with_columns(pl.col("fold").cast(pl.Int8)), b],
        [
            a.with_columns(pl.col("fold").cast(pl.Float32)),
            b.with_columns(pl.col("fold").cast(pl.Float64)),
        ],
        [
            a.with_columns(pl.col("fold").cast(pl.String).cast(enum)),
            b.with_columns(pl.col("fold").cast(pl.String).cast(pl.Categorical)),
        ],
        [
            a.with_columns(pl.col("fold").cast(pl.String).cast(pl.Categorical)),
            b.with_columns(pl.col("fold").cast(pl.String)),
        ],
    ):
        merged = pl_metrics.merge_states([pl_metrics.state(p, "lrap", by="fold") for p in widths])
        got = merged.finalize().collect().sort(pl.col("fold").cast(pl.String))
        assert got["lrap"].to_list() == pytest.approx(want["lrap"].to_list())
    integer_classes = df.with_columns(pl.col("class").cast(pl.Int64))
    parts = [integer_classes.filter(pl.col("id") < 10), integer_classes.filter(pl.col("id") >= 10)]
    parts[0] = parts[0].with_columns(pl.col("class").cast(pl.Int32))
    merged = pl_metrics.merge_states([pl_metrics.state(p, "lrap") for p in parts])
    assert merged.finalize().collect().item() == pytest.approx(pl_metrics.lrap(df).item())


@pytest.mark.parametrize("column", ["fold", "id"])
def test_merge_refuses_integer_keys_past_2_53_beside_floats(column: str) -> None:
    """Two such integers, as floats, may be one: two groups were pooled in one value, and
    per-id ids came back rounded (score() refuses the same parts as files). Small
    integers beside floats merge."""
    rng = np.random.default_rng(9)
    df = long_table(rng.random((20, 3)) < 0.4, rng.random((20, 3))).with_columns(
        fold=pl.col("id") % 2
    )
    a, b = df.filter(pl.col("id") < 10), df.filter(pl.col("id") >= 10)
    per_id = column == "id"
    big = a.with_columns(pl.col(column) + 2**60)
    states = [
        pl_metrics.state(part, "lrap", by=None if per_id else "fold", per_id=per_id)
        for part in (big, b.with_columns(pl.col(column).cast(pl.Float64)))
    ]
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=rf"type of column '{column}': Int64 vs Float64, with integers past 2\*\*53 ",
    ):
        pl_metrics.merge_states(states)
    small = [
        pl_metrics.state(part, "lrap", by=None if per_id else "fold", per_id=per_id)
        for part in (a, b.with_columns(pl.col(column).cast(pl.Float64)))
    ]
    got = pl_metrics.merge_states(small).finalize().collect()
    want = pl_metrics.lrap(df, by=None if per_id else "fold", per_id=per_id)
    assert got.sort(column)["lrap"].to_list() == pytest.approx(want.sort(column)["lrap"].to_list())


@pytest.mark.parametrize("column", ["fold", "id"])
@pytest.mark.parametrize("float_first", [False, True])
def test_integer_and_float_keys_of_the_parts_merge(column: str, float_first: bool) -> None:
    """A float key's part counts NaN keys, a check its integer twin lacks (raised from
    polars' concat, "schema lengths differ"); NaN in the float part is still refused."""
    rng = np.random.default_rng(10)
    df = long_table(rng.random((20, 3)) < 0.4, rng.random((20, 3))).with_columns(
        fold=pl.col("id") % 2
    )
    a, b = df.filter(pl.col("id") < 10), df.filter(pl.col("id") >= 10)
    b = b.with_columns(pl.col(column).cast(pl.Float64))
    parts = [b, a] if float_first else [a, b]
    for lazy, per_id in ((False, False), (True, False), (False, True)):
        frames = [p.lazy() if lazy else p for p in parts]
        options: dict[str, Any] = {"by": "fold", "per_id": per_id}
        if per_id:
            options["average"] = "samples"
        states = [pl_metrics.state(p, ["lrap", "f1"], **options) for p in frames]
        got = pl_metrics.merge_states(states).finalize()
        got = got.collect() if isinstance(got, pl.LazyFrame) else got
        want = pl_metrics.report(df, ["lrap", "f1"], **options)
        order = ["fold", "id"] if per_id else ["fold"]
        for metric in ("lrap", "f1"):
            assert got.sort(order)[metric].to_list() == pytest.approx(
                want.sort(order)[metric].to_list()
            )
    nan = b.with_columns(pl.when(pl.col("id") == 10).then(math.nan).otherwise(pl.col(column)))
    nan = nan.with_columns(pl.col("literal").alias(column)).drop("literal")
    nan_parts = [nan, a] if float_first else [a, nan]
    merged = pl_metrics.merge_states([pl_metrics.state(p, "lrap", by="fold") for p in nan_parts])
    with pytest.raises(pl_metrics.MetricsInputError, match=f"column '{column}': .* NaN"):
        merged.finalize().collect()


def test_merged_parts_cut_by_class_are_not_told_to_pass_ragged_allow() -> None:
    rng = np.random.default_rng(9)
    df = long_table(rng.random((20, 4)) < 0.4, rng.random((20, 4)))
    parts = [df.filter(pl.col("class") < 2), df.filter(pl.col("class") >= 2)]
    merged = pl_metrics.merge_states([pl_metrics.state(p, "lrap") for p in parts])
    with pytest.raises(pl_metrics.MetricsInputError, match="merged from parts") as error:
        merged.finalize().collect()
    assert "must be id-disjoint" in str(error.value)
    # Rows dealt into parts (every id in several): the count of missing rows passed the
    # table's rows (960 of 80), counting each part's ids in it; it says so.
    dealt = [df[i::4] for i in range(4)]
    merged = pl_metrics.merge_states([pl_metrics.state(p, "lrap") for p in dealt])
    with pytest.raises(pl_metrics.MetricsInputError) as error:
        merged.finalize().collect()
    assert "(id, class) rows are missing, each part's ids counted in that part" in str(error.value)
    # score() merges its own id chunks: its errors give the usual advice.
    with pytest.raises(pl_metrics.MetricsInputError, match="ragged") as error:
        pl_metrics.score(
            df.filter(~((pl.col("id") < 3) & (pl.col("class") == 0))), "lrap", n_chunks=3
        )
    assert "merged from parts" not in str(error.value)


def test_chunk_keys() -> None:
    assert {pl_metrics.chunk_key(m) for m in [*RANKING, *THRESHOLDED, "log_loss"]} == {"id"}
    assert pl_metrics.state(multiclass_table(7), ["lrap", "f1"]).chunk_keys == {
        "lrap": "id",
        "f1": "id",
    }
    with pytest.raises(pl_metrics.MetricsInputError, match="unknown metric"):
        pl_metrics.chunk_key("brier")
    # Micro averages pool the classes, samples averages rank each id's: not class chunks.
    for average, key in (("macro", "class"), ("micro", "id"), ("samples", "id")):
        assert pl_metrics.chunk_key("roc_auc", average=average) == key
        state = pl_metrics.state(multiclass_table(7), "average_precision", average=average)
        assert state.chunk_keys == {"average_precision": key}
    assert pl_metrics.state(multiclass_table(7), ["lrap", "f1"], average="micro").chunk_keys == {
        "lrap": "id",
        "f1": "id",
    }
    for metric, average, told in (
        ("roc_auc", "bogus", "unknown value 'bogus'"),
        # (as the metric tells it: None is taken too, and which metrics define micro)
        (
            "brier_score",
            "micro",
            r"'micro' is not defined for brier_score \(it takes 'macro' or None\); 'micro' is "
            "defined for f1, ",
        ),
        ("lrap", "macro", "lrap takes no average"),
    ):
        with pytest.raises(pl_metrics.MetricsInputError, match=told):
            pl_metrics.chunk_key(metric, average=average)


def test_merge_states_takes_any_iterable_of_states_and_only_states() -> None:
    rng = np.random.default_rng(4)
    df = long_table(rng.random((20, 3)) < 0.4, rng.random((20, 3)))
    parts = [pl_metrics.state(df.filter(pl.col("id") % 2 == r), ["lrap"]).collect() for r in (0, 1)]
    whole = pl_metrics.lrap(df)
    merged = pl_metrics.merge_states(p for p in parts).finalize().collect()
    assert merged["lrap"].item() == pytest.approx(whole.item(), rel=1e-12)
    with pytest.raises(TypeError, match=r"expected MetricState objects .* got DataFrame"):
        pl_metrics.merge_states([parts[0], df])  # type: ignore[list-item]


def test_numpy_flags_and_iterators_of_names_are_options_as_any() -> None:
    # per_class=np.True_ skipped the check of a contradicting average (dropped in silence);
    # an iterator of by names was read up by the check of fold_col, its groups pooled.
    df = pl.read_parquet("data/digits_oof.parquet").filter(pl.col("model") == "knn")
    with pytest.raises(pl_metrics.MetricsInputError, match="not average='micro'"):
        pl_metrics.report(df, ["f1"], per_class=np.True_, average="micro")
    assert_frame_equal(
        pl_metrics.report(df, ["f1"], per_class=np.True_),
        pl_metrics.report(df, ["f1"], per_class=True),
    )
    grouped = df.with_columns(grp=pl.col("id") % 2)
    want = pl_metrics.best_threshold(grouped, "f1", by=["grp"], fold_col="fold")
    got = pl_metrics.best_threshold(grouped, "f1", by=iter(["grp"]), fold_col="fold")
    assert_frame_equal(got, want)


@pytest.mark.parametrize("average", ["micro", "macro"])
def test_merged_state_tables_are_the_parts_sums_in_order(average: str) -> None:
    """Each key's sum is its parts' values added in the states' order: a key in one part
    alone (most scores of a curves table) keeps its value, and a key of several parts (a
    group, a class, a score tied across parts) adds them, to the bit, with null and NaN
    keys, -0.0 weights and a score at either end of the table. (An equivalence: the merge
    gave these sums through a group_by alone before; now it skips the group_by for keys
    of one part.)"""
    rng = np.random.default_rng(4)
    n, c = 90, 3
    ids = np.repeat(np.arange(n), c)
    df = pl.DataFrame(
        {
            "id": ids,
            "class": np.tile(np.arange(c), n),
            "score": np.where(
                ids == 7,
                np.nan,
                np.where(ids % 5 == 0, rng.random(n * c), rng.random(n * c).round(1)),
            ),
            "truth": rng.random(n * c) < 0.4,
            "model": [None if i % 4 == 0 else "ab"[i % 2] for i in ids],
            "w": np.repeat(rng.choice([-0.0, 0.0, 0.3, 1.7, 2.0], n), c),
        }
    )
    metrics = ["roc_auc", "average_precision", "lrap", "f1", "log_loss"]
    options = dict(by="model", weight_col="w", average=average, validate=False)
    metrics = metrics if average == "macro" else metrics[:2]
    states = [
        pl_metrics.state(df.filter(pl.col("id") % 3 == k), metrics, **options).collect()
        for k in range(3)
    ]
    merged = pl_metrics.merge_states(states)
    for table in ("groups", "classes", "curves"):
        parts = [getattr(s, table) for s in states]
        if parts[0] is None:
            continue
        got = getattr(merged, table).lazy().collect()
        keys = [k for k in ("model", "class", "__plm_score") if k in got.columns]
        sums: dict[tuple[Any, ...], list[Any]] = {}
        for part in parts:
            for row in part.iter_rows(named=True):
                key = tuple(row[k] for k in keys)
                key = tuple("nan" if isinstance(v, float) and math.isnan(v) else v for v in key)
                kept = sums.setdefault(key, [None] * (len(row) - len(keys)))
                for i, (column, value) in enumerate(
                    (k, v) for k, v in row.items() if k not in keys
                ):
                    if column.startswith("__plm_max_"):
                        kept[i] = value if kept[i] is None else max(kept[i], value)
                    elif column.startswith("__plm_min_"):
                        kept[i] = value if kept[i] is None else min(kept[i], value)
                    else:
                        kept[i] = (0 if kept[i] is None else kept[i]) + (value or 0)
        values = [c for c in got.columns if c not in keys]
        want = pl.DataFrame(
            [(*key, *v) for key, v in sums.items()],
            schema=got.select(*keys, *values).schema,
            orient="row",
        )
        ordered = [
            pl.col(k).fill_nan(None) if got.schema[k].is_float() else pl.col(k) for k in keys
        ]
        got = got.select(*keys, *values).sort(ordered, nulls_last=True)
        want = want.with_columns(pl.col(k).cast(got.schema[k]) for k in keys).sort(
            ordered, nulls_last=True
        )
        assert_frame_equal(got, want, check_exact=True)
        for column in values:  # the same bits (assert_frame_equal takes -0.0 for 0.0)
            if got.schema[column] == pl.Float64:
                bits = [f[column].fill_null(0.0).to_numpy().view(np.uint64) for f in (got, want)]
                assert np.array_equal(*bits), (table, column)


def _layout_table(rows: list[tuple[int, str]]) -> pl.DataFrame:
    """A table of the given (id, class) rows, with scores and labels that pass every check."""
    rng = np.random.default_rng(len(rows))
    return pl.DataFrame(
        {
            "id": [i for i, _ in rows],
            "class": [c for _, c in rows],
            "score": rng.random(len(rows)),
            "truth": [k % 2 == 0 for k in range(len(rows))],
        }
    )


def _problem_of(make: Any) -> str | None:
    try:
        make()
    except pl_metrics.MetricsInputError as error:
        return error.problem
    return None


@pytest.mark.parametrize(
    "rows",
    [
        # An id of too many rows whose extra class other ids lack: its part's largest id.
        [(1, "a"), (1, "a"), (1, "b"), (2, "b"), (3, "b")],
        # An id of too few rows beside one that repeats a class: its part's smallest id.
        [(1, "a"), (2, "a"), (2, "b"), (2, "b"), (2, "b")],
        # Ids that repeat one class and lack the other, the rows per class as expected.
        *(
            [(1, a), (1, a), (2, b), (2, b), (3, a), (3, b), (4, a), (4, b)]
            for a, b in [(f"c{i}", f"c{j}") for i in range(4) for j in range(i + 1, 5)]
        ),
    ],
)
def test_merged_states_tell_a_table_s_class_sets_as_the_whole_table_does(
    rows: list[tuple[int, str]],
) -> None:
    """Each part's largest and smallest id (rows, class hashes) merge by their max and min:
    the ids that break the table's class sets sit in different parts."""
    df = _layout_table(rows)
    whole = _problem_of(lambda: pl_metrics.report(df, "lrap"))
    assert whole is not None
    for cut in (pl.col("id") == 1, pl.col("id") <= 2, pl.col("id") % 2 == 0):
        parts = [df.filter(cut), df.filter(~cut)]
        states = [pl_metrics.state(p, "lrap").collect() for p in parts]
        merged = _problem_of(lambda s=states: pl_metrics.merge_states(s).finalize().collect())
        assert merged == whole


def test_a_merge_keeps_the_most_rows_of_an_id_of_any_part() -> None:
    """ndcg refuses groups whose every id has one class: ragged parts, one of single-class
    ids, merge into the whole table's value."""
    rng = np.random.default_rng(3)
    two = long_table(rng.random((6, 2)) < 0.5, rng.random((6, 2)))
    one = long_table(rng.random((5, 1)) < 0.5, rng.random((5, 1))).with_columns(pl.col("id") + 100)
    df = pl.concat([two, one])
    whole = pl_metrics.report(df, "ndcg", ragged="allow")
    for parts in ([one, two], [two, one]):
        states = [pl_metrics.state(p, "ndcg", ragged="allow").collect() for p in parts]
        merged = pl_metrics.merge_states(states).finalize().collect()
        assert merged["ndcg"].item() == pytest.approx(whole["ndcg"].item(), rel=1e-12)


def test_a_merge_of_an_eager_and_a_lazy_state_reads_the_lazy_part_once() -> None:
    """A merge with one lazy part is collected first, as a merge of lazy parts is: its
    finalizing plan would read that part once per join. (Each part read once shifts its
    scores alike: the class-ranked metrics' scores of the two parts line up.)"""
    df = make_table(5, n_ids=60).drop("pred")
    metrics = ["lrap", "coverage_error", "roc_auc", "ndcg", "f1"]
    want = pl_metrics.report(df, metrics, by="model")
    parts = [df.filter(pl.col("id") % 2 == k) for k in range(2)]
    for lazy_first in (True, False):
        states = [
            pl_metrics.state(_shifting_source(parts[0]), metrics, by="model").collect(),
            pl_metrics.state(_shifting_source(parts[1]), metrics, by="model"),
        ]
        merged = pl_metrics.merge_states(states[::-1] if lazy_first else states)
        assert_frame_equal(merged.finalize().collect(), want, rel_tol=1e-12)


def test_a_metric_asked_for_twice_is_one_column() -> None:
    """Metric names are taken once each, in order: a repeated name is no second column (nor
    one renamed by a join), and its state merges with that of the names once."""
    df = multiclass_table(8)
    once = pl_metrics.report(df, ["lrap", "f1"], by="model")
    assert_frame_equal(pl_metrics.report(df, ["lrap", "f1", "lrap"], by="model"), once)
    twice = pl_metrics.state(df, ["f1", "lrap", "f1"], by="model")
    assert twice.metrics == ("f1", "lrap")


def test_max_fpr_of_one_is_the_whole_curve() -> None:
    """max_fpr=1 is scikit-learn's plain ROC AUC, and the option left out: their states
    merge."""
    from sklearn.metrics import roc_auc_score

    df = multiclass_table(10).filter(pl.col("model") == "a")
    wide = df.pivot(on="class", index="id", values=["truth", "score"]).sort("id")
    truth = wide.select(f"truth_{c}" for c in range(4)).to_numpy()
    score = wide.select(f"score_{c}" for c in range(4)).to_numpy()
    got = pl_metrics.report(df, "roc_auc", max_fpr=1)["roc_auc"].item()
    assert got == pytest.approx(roc_auc_score(truth, score, max_fpr=1), rel=1e-12)
    parts = [df.filter(pl.col("id") % 2 == k) for k in range(2)]
    states = [
        pl_metrics.state(parts[0], "roc_auc", max_fpr=1).collect(),
        pl_metrics.state(parts[1], "roc_auc").collect(),
    ]
    merged = pl_metrics.merge_states(states).finalize().collect()
    assert merged["roc_auc"].item() == pytest.approx(got, rel=1e-12)


@pytest.mark.parametrize("lazy", [False, True])
def test_a_partial_roc_auc_is_scikit_learns_in_a_report_and_a_state(lazy: bool) -> None:
    """max_fpr below 1: scikit-learn's standardised partial area, as report and state give it."""
    from sklearn.metrics import roc_auc_score

    df = multiclass_table(11).filter(pl.col("model") == "a")
    wide = df.pivot(on="class", index="id", values=["truth", "score"]).sort("id")
    truth = wide.select(f"truth_{c}" for c in range(4)).to_numpy()
    score = wide.select(f"score_{c}" for c in range(4)).to_numpy()
    want = roc_auc_score(truth, score, max_fpr=0.3)
    assert want != pytest.approx(roc_auc_score(truth, score), rel=1e-3)  # (a test of the option)
    got = pl_metrics.report(df.lazy() if lazy else df, ["roc_auc", "lrap"], max_fpr=0.3)
    got = got.collect() if isinstance(got, pl.LazyFrame) else got
    assert got["roc_auc"].item() == pytest.approx(want, rel=1e-12)
    merged = pl_metrics.state(df, "roc_auc", max_fpr=0.3).collect().finalize().collect()
    assert merged["roc_auc"].item() == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("lazy", [False, True])
def test_a_group_of_negative_weights_only_is_weighted(lazy: bool) -> None:
    """Weights that are all negative are not all zero: scikit-learn's F1 of them."""
    from sklearn.metrics import f1_score

    rng = np.random.default_rng(5)
    truth, score = rng.random((20, 3)) < 0.5, rng.random((20, 3))
    weight = -(1.0 + rng.integers(0, 3, 20))
    df = long_table(truth, score, weight=weight, rng=rng)
    got = pl_metrics.report(df.lazy() if lazy else df, "f1", weight_col="w")
    got = got.collect() if isinstance(got, pl.LazyFrame) else got
    want = f1_score(truth, score >= 0.5, average="macro", sample_weight=weight, zero_division=0)
    assert got["f1"].item() == pytest.approx(want, rel=1e-12)


def test_a_confusion_table_joins_per_class_metrics_in_a_report() -> None:
    """The confusion counts are one row per class, as F1's per class: one report holds both
    (a table of points per class, as a curve's, would not)."""
    df = multiclass_table(5)
    got = pl_metrics.report(df, ["confusion", "f1"], by="model", average=None, threshold=0.4)
    confusion = pl_metrics.confusion(df, by="model", threshold=0.4)
    f1 = pl_metrics.f1(df, by="model", average=None, threshold=0.4)
    want = confusion.join(f1, on=["model", "class"])
    assert_frame_equal(got, want, check_row_order=False, check_column_order=False)
    with pytest.raises(pl_metrics.MetricsInputError, match="roc_curve is a table of points"):
        pl_metrics.report(df, ["roc_curve", "f1"], average=None)


def test_chunk_key_lists_none_among_the_averages() -> None:
    # (kills: check_option's choices without None in chunk_key; told as roc_auc tells it)
    told = r"unknown value 'bogus'; expected one of None, 'macro', 'micro', 'weighted', 'samples'$"
    with pytest.raises(pl_metrics.MetricsInputError, match=told):
        pl_metrics.chunk_key("roc_auc", average="bogus")
    with pytest.raises(pl_metrics.MetricsInputError, match=told):
        pl_metrics.roc_auc(
            pl.DataFrame({"id": [0], "class": [0], "score": [0.5], "truth": [1]}), average="bogus"
        )
