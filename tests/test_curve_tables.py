"""Curves, calibration, Brier score and binary log loss against scikit-learn, per class."""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn import metrics as skm
from sklearn.calibration import calibration_curve

import pl_metrics
from pl_metrics import _kernel
from tests.conftest import certain_frame, dense_problems, grouped_table, long_table, run

SETTINGS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
EPS = float(np.finfo(float).eps)  # scikit-learn's clipping of log losses


def positive_weights(problems: list[dict[str, np.ndarray]]) -> None:
    for p in problems:
        if "weight" in p:
            p["weight"] = np.abs(p["weight"])


def quietly(function: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def sk_bins(truth: np.ndarray, score: np.ndarray, n_bins: int, strategy: str) -> dict[str, Any]:
    """scikit-learn's calibration curve, with each bin's count (as it bins)."""
    prob_true, prob_pred = calibration_curve(truth, score, n_bins=n_bins, strategy=strategy)
    if strategy == "quantile":
        edges = np.percentile(score, np.linspace(0, 1, n_bins + 1) * 100)
    else:
        edges = np.linspace(0.0, 1.0, n_bins + 1)
    ids = np.searchsorted(edges[1:-1], score)
    counts = np.bincount(ids, minlength=n_bins)
    nonzero = counts != 0
    return {
        "bin": np.flatnonzero(nonzero),
        "prob_true": prob_true,
        "prob_pred": prob_pred,
        "count": counts[nonzero].astype(float),
    }


@given(data=st.data())
@SETTINGS
def test_roc_and_pr_curves_match_sklearn(kind: str, data: st.DataObject) -> None:
    problems = data.draw(dense_problems(min_classes=1, weights=data.draw(st.booleans())))
    positive_weights(problems)
    if data.draw(st.booleans()):  # ids of weight 0, whose scores scikit-learn's curves skip
        for p in problems:
            if "weight" in p:
                p["weight"][1::3] = 0.0
    df = grouped_table(problems)
    weight_col = "w" if "weight" in problems[0] else None
    roc = run(df, kind, pl_metrics.roc_curve, by="g", weight_col=weight_col)
    pr = run(df, kind, pl_metrics.precision_recall_curve, by="g", weight_col=weight_col)
    for g, p in enumerate(problems):
        w = p.get("weight")
        for k in range(p["truth"].shape[1]):
            t, s = p["truth"][:, k], p["score"][:, k]
            if w is not None and w[t].sum() == 0 and w[~t].sum() == 0:
                continue  # weights all zero: scikit-learn divides by zero too
            rows = roc.filter((pl.col("g") == g) & (pl.col("class") == k))
            fpr, tpr, thr = quietly(skm.roc_curve, t, s, sample_weight=w, drop_intermediate=False)
            np.testing.assert_array_equal(rows["threshold"].to_numpy(), thr)
            np.testing.assert_allclose(rows["fpr"].to_numpy(), fpr, rtol=1e-12)
            np.testing.assert_allclose(rows["tpr"].to_numpy(), tpr, rtol=1e-12)
            rows = pr.filter((pl.col("g") == g) & (pl.col("class") == k))
            precision, recall, thr = quietly(skm.precision_recall_curve, t, s, sample_weight=w)
            np.testing.assert_array_equal(rows["threshold"].to_numpy()[:-1], thr)
            assert rows["threshold"][-1] is None
            np.testing.assert_allclose(rows["precision"].to_numpy(), precision, rtol=1e-12)
            np.testing.assert_allclose(rows["recall"].to_numpy(), recall, rtol=1e-12)


@given(data=st.data())
@SETTINGS
def test_calibration_curve_and_ece_match_sklearn(kind: str, data: st.DataObject) -> None:
    problems = data.draw(dense_problems(min_classes=1))
    n_bins = data.draw(st.sampled_from([1, 2, 3, 4, 5, 10]))
    strategy = data.draw(st.sampled_from(["uniform", "quantile"]))
    df = grouped_table(problems)
    options = {"by": "g", "n_bins": n_bins, "strategy": strategy}
    curve = run(df, kind, pl_metrics.calibration_curve, **options)
    ece = run(df, kind, pl_metrics.expected_calibration_error, average=None, **options)
    macro = run(df, kind, pl_metrics.expected_calibration_error, **options)
    assert curve.schema["count"] == pl.Int64  # rows in the bin
    for g, p in enumerate(problems):
        per_class = []
        for k in range(p["truth"].shape[1]):
            want = sk_bins(p["truth"][:, k], p["score"][:, k], n_bins, strategy)
            rows = curve.filter((pl.col("g") == g) & (pl.col("class") == k))
            np.testing.assert_array_equal(rows["bin"].to_numpy(), want["bin"])
            for column in ("prob_true", "prob_pred", "count"):
                np.testing.assert_allclose(rows[column].to_numpy(), want[column], rtol=1e-12)
            gaps = np.abs(want["prob_true"] - want["prob_pred"])
            per_class.append(np.average(gaps, weights=want["count"]))
            got = ece.filter((pl.col("g") == g) & (pl.col("class") == k))[
                "expected_calibration_error"
            ]
            assert got.item() == pytest.approx(per_class[-1], rel=1e-12, abs=1e-15)
        got = macro.filter(pl.col("g") == g)["expected_calibration_error"].item()
        assert got == pytest.approx(np.mean(per_class), rel=1e-12, abs=1e-15)


@given(data=st.data())
@SETTINGS
def test_brier_score_and_binary_log_loss_match_sklearn(kind: str, data: st.DataObject) -> None:
    problems = data.draw(dense_problems(min_classes=1, weights=data.draw(st.booleans())))
    positive_weights(problems)
    df = grouped_table(problems)
    weight_col = "w" if "weight" in problems[0] else None
    average = data.draw(st.sampled_from([None, "macro", "micro"]))
    loss = run(
        df,
        kind,
        pl_metrics.binary_log_loss,
        by="g",
        weight_col=weight_col,
        eps=EPS,
        average=average,
    )
    brier_average = None if average is None else "macro"
    brier = run(
        df, kind, pl_metrics.brier_score, by="g", weight_col=weight_col, average=brier_average
    )
    for g, p in enumerate(problems):
        t, s, w = p["truth"], p["score"], p.get("weight")
        if w is not None and w.sum() == 0:
            continue
        columns = range(t.shape[1])
        logs = [skm.log_loss(t[:, k], s[:, k], labels=[0, 1], sample_weight=w) for k in columns]
        briers = [
            skm.brier_score_loss(t[:, k], s[:, k], labels=[0, 1], sample_weight=w) for k in columns
        ]
        if average == "micro":
            cell_w = None if w is None else np.repeat(w, t.shape[1])
            want_log: Any = skm.log_loss(t.ravel(), s.ravel(), labels=[0, 1], sample_weight=cell_w)
        else:
            want_log = logs if average is None else np.mean(logs)
        want_brier = briers if brier_average is None else np.mean(briers)
        rows = loss.filter(pl.col("g") == g)["binary_log_loss"].to_numpy()
        np.testing.assert_allclose(rows, np.atleast_1d(want_log), rtol=1e-12, atol=1e-15)
        rows = brier.filter(pl.col("g") == g)["brier_score"].to_numpy()
        np.testing.assert_allclose(rows, np.atleast_1d(want_brier), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("metric", ["brier_score", "binary_log_loss"])
def test_a_class_of_weightless_ids_is_refused(metric: str) -> None:
    """Class 2 only in an id of weight 0 (ragged): its weighted mean was NaN, and so was
    the macro value of the group, in silence; scikit-learn refuses such weights."""
    df = pl.DataFrame(
        {
            "id": [0, 0, 1, 1, 2, 2, 2],
            "class": [0, 1, 0, 1, 0, 1, 2],
            "score": [0.1, 0.9, 0.5, 0.4, 0.3, 0.3, 0.7],
            "truth": [0, 1, 1, 0, 0, 1, 1],
            "w": [1.0, 1.0, 2.0, 2.0, 0.0, 0.0, 0.0],
            "g": "a",
        }
    )
    told = r"^column 'w': 1 class has weights that sum to zero .* \(in 1 group: g='a': class=2\)"
    options: dict[str, Any] = {"weight_col": "w", "ragged": "allow", "by": "g"}
    for call in (
        lambda: getattr(pl_metrics, metric)(df, **options),
        lambda: getattr(pl_metrics, metric)(df, average=None, **options),
        lambda: getattr(pl_metrics, metric)(df.lazy(), **options).collect(),
        lambda: pl_metrics.score(df, metric, **options),
    ):
        with pytest.raises(pl_metrics.MetricsInputError, match=told):
            call()
    # Weights that cancel up to rounding (0.1 * 3 - 0.3) too, as a group's are refused.
    rounding = df.with_columns(
        pl.when(pl.col("id") == 2).then(0.1).otherwise(pl.col("w")).alias("w")
    ).vstack(
        pl.DataFrame(
            {
                "id": [3] * 3 + [4] * 3,
                "class": [0, 1, 2] * 2,
                "score": [0.2] * 6,
                "truth": [0, 1, 1] * 2,
                "w": [0.2] * 3 + [-0.3] * 3,
                "g": "a",
            }
        ).cast(df.schema)
    )
    with pytest.raises(pl_metrics.MetricsInputError, match=told):
        getattr(pl_metrics, metric)(rounding, **options)
    # The data's own problems are told first (the table is ragged, not weightless).
    with pytest.raises(pl_metrics.MetricsInputError, match=r"\(id, class\) rows? (is|are) missing"):
        getattr(pl_metrics, metric)(df, weight_col="w", by="g")
    # The other classes, and the classes pooled (whose weights do not sum to zero), score.
    kept = df.filter(pl.col("class") < 2)
    want = getattr(pl_metrics, metric)(kept, **options)
    assert_frame_equal(getattr(pl_metrics, metric)(kept.lazy(), **options).collect(), want)
    if metric == "binary_log_loss":
        assert getattr(pl_metrics, metric)(df, average="micro", **options)[metric].is_finite().all()


def test_curves_thinned_keep_their_ends() -> None:
    rng = np.random.default_rng(0)
    df = pl_metrics.from_numpy(rng.random((500, 2)) < 0.3, rng.random((500, 2)))
    exact = pl_metrics.roc_curve(df)
    thin = pl_metrics.roc_curve(df, max_points=20)
    for cls in (0, 1):
        whole = exact.filter(pl.col("class") == cls)
        part = thin.filter(pl.col("class") == cls)
        assert 2 <= part.height <= 20
        assert part.row(0) == whole.row(0)
        assert part.row(-1) == whole.row(-1)
        assert part["fpr"].is_sorted()
        assert part["tpr"].is_sorted()
    pr = pl_metrics.precision_recall_curve(df, max_points=5)
    assert pr.group_by("class").len()["len"].max() <= 5  # type: ignore[operator]
    assert pr.filter(pl.col("threshold").is_null()).height == 2  # the end points stay


@pytest.mark.parametrize("metric", ["roc_curve", "precision_recall_curve"])
def test_curves_thinned_along_their_length(metric: str) -> None:
    # 100 positives above 2,000 negatives: the rows crowd on the negatives' flat tail. Spread
    # by rows, 11 points left one on the curve's other leg; along its length, no two kept
    # points are further apart than a step of length and a segment.
    rng = np.random.default_rng(1)
    scores = np.concatenate([rng.uniform(0.9, 1.0, 100), rng.uniform(0.0, 0.5, 2000)])
    truth = np.arange(scores.size) < 100
    df = pl.DataFrame({"id": np.arange(scores.size), "class": "a", "score": scores, "truth": truth})
    df = pl.concat([df, df.with_columns(pl.lit("b").alias("class"), truth=pl.lit(True))])
    x, y = ("fpr", "tpr") if metric == "roc_curve" else ("recall", "precision")
    exact = getattr(pl_metrics, metric)(df)
    thin = getattr(pl_metrics, metric)(df.lazy(), max_points=11).collect()
    for cls in ("a", "b"):  # b has no negatives: NaN fpr, a curve of no length for ROC
        whole, part = (t.filter(pl.col("class") == cls) for t in (exact, thin))
        assert part.height <= 11
        ends = whole.with_row_index().filter(pl.col("index").is_in([0, whole.height - 1]))
        assert_frame_equal(pl.concat([part.head(1), part.tail(1)]), ends.drop("index"))
        assert part.join(whole, on=part.columns, nulls_equal=True).height == part.height
        if cls == "b":
            continue
        xs, ys = (np.nan_to_num(whole[c].to_numpy()) for c in (x, y))
        segments = np.hypot(np.diff(xs), np.diff(ys))
        step = segments.sum() / 10
        px, py = part[x].to_numpy(), part[y].to_numpy()
        assert np.hypot(np.diff(px), np.diff(py)).max() <= step + segments.max() + 1e-12
        assert part.height == 11


def test_probabilities_outside_0_1_are_refused() -> None:
    df = pl_metrics.from_numpy(np.array([[1, 0], [0, 1]]), np.array([[1.2, 0.1], [0.3, 0.9]]))
    for function in (
        pl_metrics.brier_score,
        pl_metrics.binary_log_loss,
        pl_metrics.expected_calibration_error,
        pl_metrics.calibration_curve,
    ):
        with pytest.raises(pl_metrics.MetricsInputError, match="1 row has a score outside"):
            function(df)
    assert pl_metrics.roc_curve(df).height > 0  # scores of any scale rank


def test_a_curve_is_computed_on_its_own() -> None:
    df = pl_metrics.from_numpy(np.array([[1, 0], [0, 1]]), np.array([[0.8, 0.1], [0.3, 0.9]]))
    with pytest.raises(pl_metrics.MetricsInputError, match="roc_curve is a table of points"):
        pl_metrics.report(df, ["roc_curve", "roc_auc"])


@given(
    seed=st.integers(0, 2**32 - 1),
    n_keys=st.integers(1, 3),
    weights=st.sampled_from(["counts", "floats", "zeros", "negative"]),
    layout=st.sampled_from(["blocks", "shuffled", "rising", "negative zero", "nan"]),
)
@SETTINGS
def test_curve_tables_in_blocks_equal_the_plans(
    seed: int, n_keys: int, weights: str, layout: str
) -> None:
    # The curves table in blocks (each key's scores together and falling, as the kernel and
    # a collected state give it) is cumulated, made into ROC and PR points, and put in key
    # order by moving its blocks; those give the polars plans' tables bit for bit, and
    # tables in any other layout take the plans. (A state's curves table has each score of
    # a key once: the plan's sums of tied weights would vary in their last bits.)
    from pl_metrics import _curve_tables as ct
    from pl_metrics import _curves
    from pl_metrics._kernel import key_sorted, sorted_rising
    from pl_metrics._state import CURVE_NEG, CURVE_POS, CURVE_SCORE

    rng = np.random.default_rng(seed)
    keys = ["model", "fold", "class"][-n_keys:]
    key_types = {"model": pl.String, "fold": pl.Int8, "class": pl.Int16}
    blocks = []
    cells = [(m, f, c) for m in ["a", None] for f in [0, 1, None] for c in [0, 1, 2]]
    chosen = rng.permutation(len(cells))[: int(rng.integers(1, len(cells) + 1))]
    for cell in dict.fromkeys(cells[k][-n_keys:] for k in chosen):
        n = int(rng.integers(1, 9))
        scores = np.sort(rng.choice(np.arange(-20, 40) / 8, n, replace=False))[::-1]
        if layout == "negative zero":  # each block's lowest score -0.0 (0.0 in the plan)
            scores = np.append(scores[:-1] + 6, -0.0)  # (scores from -2.5)
        pos = rng.integers(0, 3, n).astype(float)
        neg = rng.integers(0, 3, n).astype(float)
        if weights == "floats":
            pos, neg = (pos + 1) * rng.random(n), neg * rng.random(n)
        elif weights == "zeros":  # rows (and whole classes) of no weight
            pos, neg = pos * (rng.random(n) < 0.5), neg * (rng.random(n) < 0.5)
        elif weights == "negative":
            pos, neg = pos - 1.5, neg * rng.choice([-1.0, 1.0], n)
        columns = dict(zip(keys, cell, strict=True))
        blocks.append(
            pl.DataFrame(
                {
                    **{k: [v] * n for k, v in columns.items()},
                    CURVE_SCORE: scores,
                    CURVE_POS: pos,
                    CURVE_NEG: neg,
                },
                schema={k: key_types[k] for k in keys}
                | {CURVE_SCORE: pl.Float64, CURVE_POS: pl.Float64, CURVE_NEG: pl.Float64},
            )
        )
    df = pl.concat(blocks).select(*keys, CURVE_SCORE, CURVE_POS, CURVE_NEG)
    if layout == "shuffled":
        df = df.sample(fraction=1.0, shuffle=True, seed=seed)
    elif layout == "rising":
        df = df.reverse()
    elif layout == "nan":  # (with checks off) polars sorts NaN above every score
        first = pl.int_range(pl.len()) == 0
        df = df.with_columns(
            pl.when(first).then(float("nan")).otherwise(pl.col(CURVE_SCORE)).alias(CURVE_SCORE)
        )
    lf = df.lazy()
    # Which path each table takes: counts or weights in blocks are cumulated in place; a
    # cumulated table (in key order, each score once) always makes its points in place.
    counted = _curves._cumulated_blocks(df, keys)
    if layout in ("blocks", "negative zero"):
        assert counted is not None
    every = _curves.cumulated(lf, keys).collect()
    if layout != "nan":
        assert ct._points_in_blocks(every, keys, first=True) is not None
    assert_frame_equal(every, _curves._cumulated_plan(lf, keys, ()).collect(), check_exact=True)
    roc = ct._in_blocks(every.lazy(), keys, ct._roc_points, first=True).collect()
    assert_frame_equal(roc, ct._roc_points(every.lazy(), keys).collect(), check_exact=True)
    pr = ct._in_blocks(every.lazy(), keys, ct._pr_points, first=False).collect()
    assert_frame_equal(pr, ct._pr_points(every.lazy(), keys).collect(), check_exact=True)
    for nulls_last in (False, True):
        got = key_sorted(lf, keys, nulls_last=nulls_last).collect()
        assert_frame_equal(got, df.sort(keys, nulls_last=nulls_last, maintain_order=True))
    rising = sorted_rising(lf, keys, CURVE_SCORE).collect()
    assert_frame_equal(rising, df.sort([*keys, CURVE_SCORE]))
    # Padded cmAP's rows (score 1, some scores above it) go where they fall in each block,
    # added to a score of 1 there: the plan's padded table, pooled and sorted; and the areas.
    # (Float weights take the plan, whose pooled sums vary in their last bits run to run.)
    exact: dict[str, Any] = (
        {"check_exact": True} if weights in ("counts", "zeros") else {"rel_tol": 1e-12}
    )
    for padding in (1, 3):
        padded = _curves._padded_in_blocks(df, keys, padding)
        pooled = _curves._padded(lf, keys, padding).group_by([*keys, CURVE_SCORE])
        want = pooled.agg(pl.col(CURVE_POS).sum(), pl.col(CURVE_NEG).sum()).collect()
        if layout in ("blocks", "negative zero", "nan"):
            assert (padded is None) == (layout == "nan"), layout
        if padded is not None:
            falling = [False] * len(keys) + [True]
            in_order = want.sort([*keys, CURVE_SCORE], descending=falling, nulls_last=True)
            got = padded.sort(keys, nulls_last=True, maintain_order=True)
            assert_frame_equal(got, in_order, check_exact=True)
        for metric in ("average_precision", "roc_auc"):
            got = _curves._per_class_values(lf, keys, metric, padding=padding).collect()
            sums = pooled.agg(pl.col(CURVE_POS).sum(), pl.col(CURVE_NEG).sum())
            plan = _curves._area_sums(sums, keys, metric, None).collect()
            shared = [c for c in plan.columns if c in got.columns]
            assert_frame_equal(
                got.select(shared).sort(keys), plan.select(shared).sort(keys), **exact
            )
    # Pooled over classes (micro averages): each group's classes merged, weights summed as
    # the plan's group_by sums them in the in-memory engine (counts in any order; other
    # weights class by class in the classes' order, compensated, by the kernel).
    by = keys[:-1]
    # (Sorted as a table: polars may drop a sort that only feeds a group_by.)
    in_class_order = df.sort(keys, nulls_last=True, maintain_order=True).lazy()
    pooled_plan = in_class_order.group_by([*by, CURVE_SCORE]).agg(
        pl.col(CURVE_POS).sum(), pl.col(CURVE_NEG).sum()
    )
    merged = _curves._pooled_in_blocks(df, by)
    if layout in ("blocks", "negative zero", "nan"):
        summed = weights in ("counts", "zeros") or _kernel.available()
        assert (merged is not None) == (summed and layout != "nan"), (weights, layout)
    if merged is not None:
        falling = [False] * len(by) + [True]
        want = pooled_plan.collect(engine="in-memory").with_columns(pl.col(CURVE_SCORE) + 0.0)
        want = want.sort([*by, CURVE_SCORE], descending=falling, nulls_last=True)
        assert_frame_equal(merged, want, check_exact=True)
    for metric in ("average_precision", "roc_auc"):
        got = _curves._per_class_values(lf, by, metric, pooled=True).collect()
        plan = _curves._area_sums(pooled_plan, by, metric, None).collect()
        shared = [c for c in plan.columns if c in got.columns]
        order = by or [shared[0]]
        assert_frame_equal(got.select(shared).sort(order), plan.select(shared).sort(order), **exact)
    # The per-class losses and calibration bins, summed per block in the plans' order.
    for metric in ("brier_score", "binary_log_loss"):
        got = ct._cell_losses(lf, keys, "class", metric, 1e-15).collect().sort(keys)
        want = ct._cell_losses_plan(lf, keys, "class", metric, 1e-15).collect().sort(keys)
        assert_frame_equal(got, want, check_exact=True)
    # Some scores below 0 and above 1. (No null keys: the input refuses them, and the plan's
    # as-of join would not match them to their edges.)
    probabilities = lf.drop_nulls(keys).with_columns(pl.col(CURVE_SCORE) / 5 + 0.5)
    # Quantile edges in blocks need counts (their totals exact in any order), each row's
    # above 0.
    weighing = probabilities.filter(pl.col(CURVE_POS) + pl.col(CURVE_NEG) != 0)
    for table in (probabilities, weighing):
        rows = table.collect()
        counts = rows[CURVE_POS] + rows[CURVE_NEG]
        counted = weights in ("counts", "zeros") and bool(rows.height) and counts.min() > 0
        if layout == "blocks" and rows.height:
            for strategy in ("uniform", "quantile"):
                fast = ct._bins_in_blocks(rows, keys, 3, strategy)
                assert (fast is None) == (strategy == "quantile" and not counted), strategy
        for n_bins, strategy in itertools.product((1, 3, 10), ("uniform", "quantile")):
            got = ct._calibration_bins(table, keys, n_bins, strategy).collect()
            want = ct._calibration_plan(table, keys, n_bins, strategy).collect()
            assert_frame_equal(got, want, check_exact=True)


@given(
    seed=st.integers(0, 2**32 - 1),
    metric=st.sampled_from(["roc_curve", "precision_recall_curve"]),
    n_keys=st.integers(0, 2),
    max_points=st.sampled_from([1, 2, 3, 5, 40]),
)
@SETTINGS
def test_thinning_in_blocks_equals_the_plan(
    seed: int, metric: str, n_keys: int, max_points: int
) -> None:
    # Curves whose rows lie together are thinned in numpy, a curve at a time; the rows kept
    # are the plan's (polars windows over the keys), also for NaN coordinates (a class
    # without negatives), curves of one row or of one point repeated, and steps far apart.
    from pl_metrics import _curve_tables as ct

    rng = np.random.default_rng(seed)
    x, y = ct.CURVE_AXES[metric]
    keys = ["model", "class"][:n_keys]
    parts = []
    for k in range(int(rng.integers(1, 6)) if n_keys else 1):
        n = int(rng.integers(1, 60))
        kind = rng.choice(["walk", "still", "nan", "lumpy", "even"])
        xs, ys = np.cumsum(rng.random(n)) / n, np.cumsum(rng.random(n)) / n
        if kind == "even":  # evenly spaced: lengths on the steps' boundaries
            xs, ys = np.arange(n) / max(n - 1, 1), np.zeros(n)
        elif kind == "still":  # one point repeated: no length
            xs, ys = np.full(n, 0.5), np.full(n, 0.25)
        elif kind == "nan":
            xs = np.full(n, np.nan)
        elif kind == "lumpy":  # most of the length in one step
            xs[n // 2 :] += 1e6
        part = {x: xs, y: ys}
        if n_keys:
            part |= {"model": [f"m{k // 2}"] * n, "class": [k] * n}
        parts.append(pl.DataFrame(part).select(*keys, x, y))
    df = pl.concat(parts)
    kept = ct._kept_in_blocks(df, keys, max_points, metric)
    assert kept is not None
    want = ct._thinned_plan(df.lazy(), keys, max_points, metric).collect()
    assert_frame_equal(df.filter(pl.Series(kept)), want)
    assert_frame_equal(ct.thinned(df.lazy(), keys, max_points, metric).collect(), want)


@pytest.mark.parametrize("kernel", [True, False])
@pytest.mark.parametrize("lazy", [False, True])
def test_a_zero_threshold_has_no_sign_on_any_path(
    lazy: bool, kernel: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Scores -0.0 and 0.0 are one threshold (as numpy compares them), shown as 0.0 on every
    # path: the lazy plan's group_by kept whichever zero it met, the kernel counts 0.0; without
    # the kernel, its blocks kept -0.0 (polars drops a `+ 0.0`).
    if not kernel:
        monkeypatch.setattr(_kernel, "_kernels", None)
    df = pl.DataFrame(
        {"id": [0, 1, 2, 3], "class": "a", "score": [-0.0, 0.0, 0.5, 1.0], "truth": [0, 1, 0, 1]}
    )
    frame = df.lazy() if lazy else df
    roc = pl_metrics.roc_curve(frame)
    best = pl_metrics.best_threshold(frame, "recall")
    roc, best = (t.collect() if isinstance(t, pl.LazyFrame) else t for t in (roc, best))
    zeros = [t for t in [*roc["threshold"], *best["threshold"]] if t == 0]
    assert zeros
    assert not any(np.signbit(zeros))


def test_binary_log_loss_clips_scores_at_one_minus_eps() -> None:
    # Kills C14 (_curve_tables.py:207, clip(eps, 1.0)): a negative scored 1 costs
    # -ln(1 - (1 - eps)), finite; unclipped it was inf. (The scikit-learn comparisons draw no
    # score of 1.) Also a positive scored 1 costs -ln(1 - eps), not 0.
    df = certain_frame().with_columns(truth=~pl.col("truth"))  # each class: a 1 that is false
    eps = 1e-3
    per_class = -(np.log(eps) + np.log(1 - (1 - eps))) / 2
    got = pl_metrics.binary_log_loss(df, eps=eps, average=None).sort("class")
    assert got["binary_log_loss"].to_list() == pytest.approx([per_class] * 2, rel=1e-12)
    right = pl_metrics.binary_log_loss(certain_frame(), eps=eps, average="micro").item()
    assert right == pytest.approx(-np.log(1 - eps), rel=1e-12)


def test_binary_log_loss_default_eps_is_1e_15() -> None:
    # Kills C37 (_curve_tables.py:928, the default eps changed from 1e-15).
    df = certain_frame().with_columns(truth=~pl.col("truth"))
    want = -(np.log(1e-15) + np.log(1 - (1 - 1e-15))) / 2
    assert pl_metrics.binary_log_loss(df).item() == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("average", [None, "macro", "micro"])
def test_binary_log_loss_and_brier_score_with_negative_weights_match_sklearn(
    average: str | None,
) -> None:
    # Kills C15 (_curve_tables.py:211, `pos > 0` instead of `pos != 0`: a positive of
    # negative weight added nothing). scikit-learn takes negative sample weights as given;
    # the existing comparisons make every weight positive first.
    rng = np.random.default_rng(7)
    n_ids, n_classes = 12, 3
    truth = rng.random((n_ids, n_classes)) < 0.5
    truth[1] = True  # the ids of negative weight: positives and negatives
    truth[5] = False
    # Distinct scores in each class: a cell's weight is one id's, negative for ids 1 and 5.
    score = np.stack([rng.permutation(n_ids) + 1 for _ in range(n_classes)], axis=1) / 13
    w = np.array([2.0, -1.0, 1.0, 0.5, 3.0, -0.5, 1.0, 1.0, 2.0, 1.0, 1.0, 1.5])
    df = long_table(truth, score, weight=w)
    eps = float(np.finfo(float).eps)
    got = pl_metrics.binary_log_loss(df, weight_col="w", average=average, eps=eps)
    logs = [
        skm.log_loss(truth[:, k], score[:, k], labels=[0, 1], sample_weight=w)
        for k in range(n_classes)
    ]
    if average == "micro":
        want = [
            skm.log_loss(
                truth.ravel(), score.ravel(), labels=[0, 1], sample_weight=np.repeat(w, n_classes)
            )
        ]
    elif average == "macro":
        want = [np.mean(logs)]
    else:
        want = logs
        got = got.sort("class")
    np.testing.assert_allclose(got["binary_log_loss"].to_numpy(), want, rtol=1e-12)
    if average != "micro":
        briers = [
            skm.brier_score_loss(truth[:, k], score[:, k], sample_weight=w)
            for k in range(n_classes)
        ]
        brier = pl_metrics.brier_score(df, weight_col="w", average=average)
        brier = brier if average else brier.sort("class")
        np.testing.assert_allclose(
            brier["brier_score"].to_numpy(),
            briers if average is None else [np.mean(briers)],
            rtol=1e-12,
        )


def test_calibration_defaults_are_ten_uniform_bins() -> None:
    # Kills C35 (_curve_tables.py:982, ECE's default n_bins changed from 10) and C36
    # (:797, calibration_curve's default strategy changed from "uniform"): the documented
    # defaults, against scikit-learn's calibration_curve(n_bins=10, strategy="uniform").
    rng = np.random.default_rng(5)
    score = rng.random(200)
    truth = rng.random(200) < score
    df = pl.DataFrame({"id": np.arange(200), "class": "a", "score": score, "truth": truth})
    prob_true, prob_pred = calibration_curve(truth, score, n_bins=10, strategy="uniform")
    curve = pl_metrics.calibration_curve(df)
    np.testing.assert_allclose(curve["prob_true"].to_numpy(), prob_true, rtol=1e-12)
    np.testing.assert_allclose(curve["prob_pred"].to_numpy(), prob_pred, rtol=1e-12)
    bins = np.searchsorted(np.linspace(0, 1, 11)[1:-1], score)
    counts = np.bincount(bins, minlength=10)
    counts = counts[counts > 0]
    want = np.average(np.abs(prob_true - prob_pred), weights=counts)
    got = pl_metrics.expected_calibration_error(df).item()
    assert got == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("kind", ["eager", "lazy"])
@pytest.mark.parametrize(("n_bins", "n_ids"), [(3, 4), (3, 7), (6, 11), (10, 21)])
def test_quantile_bins_of_scores_on_their_edges_match_sklearn(
    n_bins: int, n_ids: int, kind: str
) -> None:
    # Kills C49 (_curve_tables.py:510, the in-block quantiles np.linspace(...)[1:-1] without
    # numpy's `* 100 / 100`): for n_bins=3 and 4 scores, (4 - 1) * (1/3) falls just below 1
    # without numpy's rounding, the edge just below the second score, which went to the
    # upper bin; numpy's percentile puts the edge on it, and scikit-learn the score in the
    # lower bin. Distinct scores, each on an edge where (n - 1) * k / n_bins is whole.
    score = np.arange(1, n_ids + 1) / (n_ids + 1)
    truth = np.arange(n_ids) % 2 == 0
    df = pl.DataFrame({"id": np.arange(n_ids), "class": "a", "score": score, "truth": truth})
    prob_true, prob_pred = calibration_curve(truth, score, n_bins=n_bins, strategy="quantile")
    got = run(df, kind, pl_metrics.calibration_curve, n_bins=n_bins, strategy="quantile")
    np.testing.assert_allclose(got["prob_true"].to_numpy(), prob_true, rtol=1e-12)
    np.testing.assert_allclose(got["prob_pred"].to_numpy(), prob_pred, rtol=1e-12)


@pytest.mark.parametrize("kind", ["eager", "lazy"])
@pytest.mark.parametrize("seed", range(4))
def test_roc_and_pr_curves_with_signed_weights_match_sklearn(kind: str, seed: int) -> None:
    # Weights of either sign, whole numbers (exact sums), distinct scores in each class (no
    # tied cells cancelling, where the curve keeps a point scikit-learn also keeps): totals
    # of positives or negatives at or below zero give NaN rates as scikit-learn gives them
    # (`fps[-1] <= 0`), precision follows a negative predicted weight, and recall divides by
    # a negative total of positives (scikit-learn's ones only where it is 0). The comparisons
    # above make every weight positive first.
    rng = np.random.default_rng(seed)
    n_ids, n_classes = 9, 6
    truth = rng.random((n_ids, n_classes)) < 0.5
    score = np.stack([rng.permutation(n_ids) + 1 for _ in range(n_classes)], axis=1) / 10
    w = rng.choice([-3.0, -2.0, -1.0, 1.0, 2.0], n_ids)
    if w.sum() == 0:
        w[0] = 4.0
    df = long_table(truth, score, weight=w)
    roc = run(df, kind, pl_metrics.roc_curve, weight_col="w")
    pr = run(df, kind, pl_metrics.precision_recall_curve, weight_col="w")
    for k in range(n_classes):
        t, s = truth[:, k], score[:, k]
        rows = roc.filter(pl.col("class") == k)
        fpr, tpr, thr = quietly(skm.roc_curve, t, s, sample_weight=w, drop_intermediate=False)
        np.testing.assert_array_equal(rows["threshold"].to_numpy(), thr)
        np.testing.assert_allclose(rows["fpr"].to_numpy(), fpr, rtol=1e-12)
        np.testing.assert_allclose(rows["tpr"].to_numpy(), tpr, rtol=1e-12)
        rows = pr.filter(pl.col("class") == k)
        precision, recall, thr = quietly(skm.precision_recall_curve, t, s, sample_weight=w)
        np.testing.assert_array_equal(rows["threshold"].to_numpy()[:-1], thr)
        np.testing.assert_allclose(rows["precision"].to_numpy(), precision, rtol=1e-12)
        np.testing.assert_allclose(rows["recall"].to_numpy(), recall, rtol=1e-12)


@pytest.mark.parametrize("kind", ["eager", "lazy"])
def test_losses_of_weights_summing_below_zero_match_sklearn(kind: str) -> None:
    # A class's weights summing below zero (not to zero, which is refused) make a weighted
    # mean as any other, as scikit-learn's np.average makes it: not NaN.
    rng = np.random.default_rng(3)
    n_ids, n_classes = 10, 3
    truth = rng.random((n_ids, n_classes)) < 0.5
    score = rng.random((n_ids, n_classes))
    w = np.array([-1.0, 2.0, -3.0, -2.0, 0.5, 1.0, -1.5, -0.5, 2.0, -1.0])  # sum -3.5
    df = long_table(truth, score, weight=w)
    eps = float(np.finfo(float).eps)
    for metric, reference, options in [
        ("brier_score", skm.brier_score_loss, {}),
        ("binary_log_loss", skm.log_loss, {"eps": eps}),
    ]:
        per_class = [
            reference(truth[:, k], score[:, k], labels=[0, 1], sample_weight=w)
            for k in range(n_classes)
        ]
        metric_fn = getattr(pl_metrics, metric)
        got = run(df, kind, metric_fn, weight_col="w", average=None, **options).sort("class")
        np.testing.assert_allclose(got[metric].to_numpy(), per_class, rtol=1e-12)
        macro = run(df, kind, metric_fn, weight_col="w", **options)[metric].item()
        assert macro == pytest.approx(np.mean(per_class), rel=1e-12)
    micro = run(df, kind, pl_metrics.binary_log_loss, weight_col="w", average="micro", eps=eps)
    want = skm.log_loss(
        truth.ravel(), score.ravel(), labels=[0, 1], sample_weight=np.repeat(w, n_classes)
    )
    assert micro["binary_log_loss"].item() == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize(("n_bins", "n_ids"), [(3, 4), (3, 7), (6, 11), (10, 21)])
def test_quantile_bins_of_the_plan_on_their_edges_match_sklearn(n_bins: int, n_ids: int) -> None:
    # The plan's quantile edges (`_quantile_edges`, for a curves table not in falling
    # blocks: scores rising here) round the quantiles as numpy does (`* 100 / 100`), as the
    # blocks' `_quantiles_of` do: distinct scores each on an edge, as in the test above,
    # whose curves tables (in blocks) do not take the plan. Class "b", of one row: each
    # edge is its score (the upper neighbour of position 0 is itself, not one past the end).
    from pl_metrics import _curve_tables as ct
    from pl_metrics._state import CURVE_NEG, CURVE_POS, CURVE_SCORE

    score = np.arange(1, n_ids + 1) / (n_ids + 1)
    truth = np.arange(n_ids) % 2 == 0
    problems = {"a": (truth, score), "b": (np.array([True]), np.array([0.4]))}
    curves = pl.concat(
        pl.DataFrame(
            {
                "class": name,
                CURVE_SCORE: s,
                CURVE_POS: t.astype(float),
                CURVE_NEG: (~t).astype(float),
            }
        )
        for name, (t, s) in problems.items()
    )
    assert ct._bins_in_blocks(curves, ["class"], n_bins, "quantile") is None  # the plan's
    got = ct._calibration_bins(curves.lazy(), ["class"], n_bins, "quantile").collect()
    for name, (t, s) in problems.items():
        want = sk_bins(t, s, n_bins, "quantile")
        rows = got.filter(pl.col("class") == name)
        np.testing.assert_array_equal(rows[ct._BIN].to_numpy(), want["bin"])
        np.testing.assert_allclose(rows[ct._PROB_TRUE].to_numpy(), want["prob_true"], rtol=1e-12)
        np.testing.assert_allclose(rows[ct._PROB_PRED].to_numpy(), want["prob_pred"], rtol=1e-12)
        np.testing.assert_array_equal(rows[ct._COUNT].to_numpy(), want["count"])


@pytest.mark.parametrize("kind", ["eager", "lazy"])
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_calibration_of_a_class_of_one_row_matches_sklearn(kind: str, strategy: str) -> None:
    # A class of one id, through the public function, eagerly and lazily (the test above
    # calls the plan's binning itself): as scikit-learn bins it.
    df = pl.DataFrame({"id": [0, 0], "class": ["a", "b"], "score": [0.3, 0.8], "truth": [1, 0]})
    for n_bins in (1, 2, 5):
        got = run(df, kind, pl_metrics.calibration_curve, n_bins=n_bins, strategy=strategy)
        for k, (t, s) in enumerate([(1, 0.3), (0, 0.8)]):
            want = sk_bins(np.array([t]), np.array([s]), n_bins, strategy)
            rows = got.filter(pl.col("class") == "ab"[k])
            np.testing.assert_array_equal(rows["bin"].to_numpy(), want["bin"])
            np.testing.assert_allclose(rows["prob_true"].to_numpy(), want["prob_true"])
            np.testing.assert_allclose(rows["prob_pred"].to_numpy(), want["prob_pred"])
            np.testing.assert_array_equal(rows["count"].to_numpy(), want["count"])


def _kept_by_the_rule(xs: np.ndarray, ys: np.ndarray, max_points: int) -> list[int]:
    """The rows `thinned` documents: all of at most ``max_points``; else the first, the
    first at or past each of ``max_points - 1`` equal steps of length, and the last."""
    n = len(xs)
    if n <= max_points:
        return list(range(n))
    length = np.concatenate([[0.0], np.cumsum(np.hypot(np.diff(xs), np.diff(ys)))])
    steps = max_points - 1
    kept = {0, n - 1}
    for k in range(1, steps):
        kept.add(int(np.flatnonzero(length * steps / length[-1] >= k)[0]))
    return sorted(kept)


@pytest.mark.parametrize(
    "xs",
    [
        [0.0, 0.1, 0.15, 0.9, 1.0],  # as many rows as max_points, uneven steps: all kept
        [0.0, 0.3, 0.61, 0.92, 0.97, 1.0, 1.0, 1.0],  # a flat tail at the curve's end
    ],
)
def test_thinning_keeps_the_rows_of_its_rule(xs: list[float]) -> None:
    # Both paths (the blocks' numpy and the plan's windows) against the documented rule:
    # a curve of exactly max_points rows is kept whole, and a row at the whole length
    # before the last counts in the last step, not a step of its own.
    from pl_metrics import _curve_tables as ct

    max_points = 5
    x = np.array(xs)
    df = pl.DataFrame({"fpr": x, "tpr": x * 0.5})
    want = df[_kept_by_the_rule(x, x * 0.5, max_points)]
    assert_frame_equal(ct.thinned(df, [], max_points, "roc_curve"), want)
    assert_frame_equal(ct._thinned_plan(df.lazy(), [], max_points, "roc_curve").collect(), want)
