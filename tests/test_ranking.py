"""The ranking family against scikit-learn and the DCASE reference code."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.stats import rankdata
from sklearn.metrics import (
    coverage_error,
    label_ranking_average_precision_score,
    label_ranking_loss,
    ndcg_score,
)

import pl_metrics
from tests.conftest import (
    dense_problems,
    grouped_table,
    long_table,
    on_the_plan,
    ragged_table,
    run,
)

SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def lwlrap_reference(
    truth: np.ndarray, score: np.ndarray, weight: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Seed 000's per-class lwlrap with ties at the worst rank and per-id weights."""
    n_ids, n_classes = truth.shape
    weight = np.ones(n_ids) if weight is None else weight
    precisions = np.zeros((n_ids, n_classes))
    for i in range(n_ids):
        ranks = rankdata(-score[i], method="max")
        for j in np.flatnonzero(truth[i]):
            hits = np.sum(truth[i] & (score[i] >= score[i, j]))
            precisions[i, j] = hits / ranks[j]
    labels = (truth * weight[:, None]).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_class = (precisions * weight[:, None]).sum(axis=0) / labels
        class_weight = labels / labels.sum()
    per_class[truth.sum(axis=0) == 0] = np.nan
    return per_class, class_weight


SKLEARN = {
    "lrap": label_ranking_average_precision_score,
    "coverage_error": coverage_error,
    "label_ranking_loss": label_ranking_loss,
}
FUNCTIONS = {
    "lrap": pl_metrics.lrap,
    "coverage_error": pl_metrics.coverage_error,
    "label_ranking_loss": pl_metrics.label_ranking_loss,
    "lwlrap": pl_metrics.lwlrap,
}


def expected(metric: str, p: dict[str, np.ndarray]) -> float:
    weight = p.get("weight")
    if metric == "lwlrap":  # LRAP with each id weighted by its (weighted) positive labels
        labels = p["truth"].sum(axis=1) * (1.0 if weight is None else weight)
        if labels.sum() == 0:  # no positive label, or weights that cancel: NaN, as for LRAP
            return float("nan")
        return float(
            label_ranking_average_precision_score(p["truth"], p["score"], sample_weight=labels)
        )
    return float(SKLEARN[metric](p["truth"], p["score"], sample_weight=weight))


@pytest.mark.parametrize("metric", ["lrap", "coverage_error", "label_ranking_loss", "lwlrap"])
@given(data=st.data())
@SETTINGS
def test_matches_reference_by_group(kind: str, metric: str, data: st.DataObject) -> None:
    min_classes = 2 if metric in ("coverage_error", "label_ranking_loss") else 1
    problems = data.draw(dense_problems(min_classes=min_classes))
    df = grouped_table(problems)
    out = run(df, kind, FUNCTIONS[metric], by="g")
    assert out.columns == ["g", metric]
    assert out.schema[metric] == pl.Float64
    assert out["g"].to_list() == list(range(len(problems)))
    want = [expected(metric, p) for p in problems]
    np.testing.assert_allclose(out[metric].to_numpy(), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("metric", ["lrap", "coverage_error", "label_ranking_loss", "lwlrap"])
@given(data=st.data())
@SETTINGS
def test_matches_reference_with_weights(kind: str, metric: str, data: st.DataObject) -> None:
    min_classes = 2 if metric in ("coverage_error", "label_ranking_loss") else 1
    problems = data.draw(dense_problems(min_classes=min_classes, weights=True, max_groups=2))
    for p in problems:  # sklearn's np.average refuses a zero sum: tested separately
        if p["weight"].sum() == 0:
            p["weight"][0] += 1.0
    df = grouped_table(problems)
    out = run(df, kind, FUNCTIONS[metric], by="g", weight_col="w")
    want = [expected(metric, p) for p in problems]
    np.testing.assert_allclose(out[metric].to_numpy(), want, rtol=1e-12, atol=1e-12)


def test_lwlrap_per_class_adds_up_with_negative_weights() -> None:
    # A class whose positives weigh less than zero was null, so the rows no longer added up.
    rng = np.random.default_rng(9)
    truth, score = rng.random((30, 5)) < 0.4, np.round(rng.random((30, 5)), 1)
    weight = rng.choice([-1.25, 0.5, 1.0, 2.0], 30)
    assert ((truth * weight[:, None]).sum(axis=0) < 0).any()  # a class of negative weight
    df = long_table(truth, score).with_columns(w=pl.lit(pl.Series(weight)).gather(pl.col("id")))
    out = pl_metrics.lwlrap(df, per_class=True, weight_col="w").sort("class")
    per_class, class_weight = lwlrap_reference(truth, score, weight)
    np.testing.assert_allclose(out["lwlrap"].fill_null(np.nan), per_class, rtol=1e-12)
    np.testing.assert_allclose(out["weight"], class_weight, rtol=1e-12)
    total = (out["lwlrap"] * out["weight"]).sum()
    assert total == pytest.approx(pl_metrics.lwlrap(df, weight_col="w").item(), rel=1e-12)


@given(problems=dense_problems(min_classes=1, weights=True))
@SETTINGS
def test_lwlrap_per_class_matches_reference(problems: list[dict[str, np.ndarray]]) -> None:
    for p in problems:  # class shares are meant for non-negative weights
        p["weight"] = np.abs(p["weight"])
    df = grouped_table(problems)
    out = pl_metrics.lwlrap(df, by="g", per_class=True, weight_col="w")
    overall = pl_metrics.lwlrap(df, by="g", weight_col="w")
    assert out.columns == ["g", "class", "lwlrap", "weight"]
    for g, p in enumerate(problems):
        rows = out.filter(pl.col("g") == g).sort("class")
        per_class, class_weight = lwlrap_reference(p["truth"], p["score"], p["weight"])
        assert rows["class"].to_list() == list(range(p["truth"].shape[1]))
        np.testing.assert_allclose(
            rows["lwlrap"].fill_null(np.nan).to_numpy(), per_class, rtol=1e-12, atol=1e-12
        )
        np.testing.assert_allclose(rows["weight"].to_numpy(), class_weight, rtol=1e-12)
        total = (rows["lwlrap"] * rows["weight"]).sum()
        if p["truth"].sum() and np.isfinite(overall.filter(pl.col("g") == g)["lwlrap"][0]):
            assert total == pytest.approx(
                overall.filter(pl.col("g") == g)["lwlrap"][0], rel=1e-9, abs=1e-12
            )


def test_lwlrap_equals_lrap_weighted_by_positives() -> None:
    rng = np.random.default_rng(1)
    truth = rng.random((50, 7)) < 0.3
    score = rng.integers(0, 4, size=(50, 7)) / 3
    df = long_table(truth, score).with_columns(
        npos=pl.col("truth").sum().over("id").cast(pl.Float64)
    )
    lw = pl_metrics.lwlrap(df).item()
    weighted = pl_metrics.lrap(df, weight_col="npos").item()
    assert lw == pytest.approx(weighted, rel=1e-12)


def test_lwlrap_matches_dcase_code_without_ties() -> None:
    """On tie-free scores our ranks equal the reference code's sort positions."""
    rng = np.random.default_rng(2)
    truth = rng.random((40, 9)) < 0.25
    score = rng.random((40, 9))
    per_class_dcase = _dcase_per_class(truth, score)
    out = pl_metrics.lwlrap(long_table(truth, score), per_class=True)
    has_pos = truth.sum(axis=0) > 0
    np.testing.assert_allclose(
        out["lwlrap"].to_numpy()[has_pos], per_class_dcase[has_pos], rtol=1e-12
    )


def _dcase_per_class(truth: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Seed 000's official code (np.int/np.float spelled for numpy 2)."""
    num_samples, num_classes = scores.shape
    precisions = np.zeros((num_samples, num_classes))
    for i in range(num_samples):
        pos = np.flatnonzero(truth[i] > 0)
        if not len(pos):
            continue
        retrieved = np.argsort(scores[i])[::-1]
        rankings = np.zeros(num_classes, dtype=int)
        rankings[retrieved] = range(num_classes)
        retrieved_true = np.zeros(num_classes, dtype=bool)
        retrieved_true[rankings[pos]] = True
        hits = np.cumsum(retrieved_true)
        precisions[i, pos] = hits[rankings[pos]] / (1 + rankings[pos].astype(float))
    labels = np.sum(truth > 0, axis=0)
    return np.sum(precisions, axis=0) / np.maximum(1, labels)


def test_ties_differ_from_dcase_code_as_documented() -> None:
    truth = np.array([[False, True]])
    score = np.array([[0.5, 0.5]])
    assert _dcase_per_class(truth, score)[1] == 1.0
    assert pl_metrics.lwlrap(long_table(truth, score)).item() == 0.5


def test_seed_000_worked_example(kind: str) -> None:
    df = long_table(
        np.array([[1, 0, 1], [0, 1, 1]]),
        np.array([[0.1, 0.7, 0.2]] * 2),
        class_names=["A", "B", "C"],
    )
    assert run(df, kind, pl_metrics.lwlrap).item() == pytest.approx(0.7916666666666666)
    per_class = run(df, kind, pl_metrics.lwlrap, per_class=True)
    assert per_class["class"].to_list() == ["A", "B", "C"]
    assert per_class["lwlrap"].to_list() == pytest.approx([2 / 3, 1.0, 0.75])
    assert per_class["weight"].to_list() == pytest.approx([0.25, 0.25, 0.5])


def test_lwlrap_per_class_of_positives_that_weigh_nothing_is_null(kind: str) -> None:
    # Class y's only positive is id 2's, of weight 0: no weighted precision to average.
    truth, score = np.array([[1, 0], [0, 1]]), np.array([[0.9, 0.1], [0.4, 0.6]])
    df = long_table(truth, score, weight=np.array([1.0, 0.0]), class_names=["x", "y"])
    per_class = run(df, kind, pl_metrics.lwlrap, per_class=True, weight_col="w")
    assert per_class["lwlrap"].to_list() == [1.0, None]
    assert per_class["weight"].to_list() == [1.0, 0.0]
    overall = run(df, kind, pl_metrics.lwlrap, weight_col="w").item()
    assert per_class.select(pl.col("lwlrap") * pl.col("weight")).sum().item() == overall


SEED_001 = (
    np.array([[1, 0, 0], [0, 0, 1]], dtype=bool),
    np.array([[0.75, 0.5, 1.0], [1.0, 0.2, 0.1]]),
)


def test_seed_001_worked_example(kind: str) -> None:
    df = long_table(*SEED_001)
    assert run(df, kind, pl_metrics.lrap).item() == pytest.approx(5 / 12)
    single = long_table(np.array([[True]]), np.array([[0.7]]))
    assert run(single, kind, pl_metrics.lrap).item() == 1.0


def test_seed_001_weights() -> None:
    df = long_table(*SEED_001, weight=np.array([-1.0, 2.0]))
    # Seed 001 prints -0.3333 here; the weighted mean (-1/2 + 2/3) / 1 is 1/6, as sklearn says.
    assert pl_metrics.lrap(df, weight_col="w").item() == pytest.approx(1 / 6, rel=1e-12)
    assert label_ranking_average_precision_score(
        *SEED_001, sample_weight=[-1.0, 2.0]
    ) == pytest.approx(1 / 6)
    zero = long_table(*SEED_001, weight=np.array([0.0, 0.0]))
    assert np.isnan(pl_metrics.lrap(zero, weight_col="w").item())


@pytest.mark.parametrize("metric", ["coverage_error", "label_ranking_loss"])
def test_zero_weight_sum_and_single_class_are_errors(metric: str) -> None:
    zero = long_table(*SEED_001, weight=np.array([1.0, -1.0]))
    with pytest.raises(pl_metrics.MetricsInputError, match="sum to zero"):
        FUNCTIONS[metric](zero, weight_col="w")
    single = long_table(np.array([[True], [False]]), np.array([[0.7], [0.1]]))
    with pytest.raises(pl_metrics.MetricsInputError, match="single class"):
        FUNCTIONS[metric](single)


def test_single_class_lwlrap_and_lrap_are_one() -> None:
    single = long_table(np.array([[True], [False]]), np.array([[0.7], [0.1]]))
    assert pl_metrics.lrap(single).item() == 1.0
    assert pl_metrics.lwlrap(single).item() == 1.0


def test_lwlrap_without_positives_is_nan() -> None:
    df = long_table(np.zeros((2, 3), dtype=bool), np.ones((2, 3)))
    assert np.isnan(pl_metrics.lwlrap(df).item())
    # Its per-class and per-id rows: no lwlrap, and NaN weights (the README says so).
    for rows in (pl_metrics.lwlrap(df, per_class=True), pl_metrics.lwlrap(df, per_id=True)):
        assert rows["lwlrap"].is_null().all()
        assert rows["weight"].is_nan().all()
    # Positives that all weigh 0 likewise (each id still shows its own value).
    weightless = long_table(np.eye(3, dtype=bool)[:2], np.ones((2, 3)), weight=np.zeros(2))
    assert np.isnan(pl_metrics.lwlrap(weightless, weight_col="w").item())
    for per in ("per_class", "per_id"):
        rows = pl_metrics.lwlrap(weightless, weight_col="w", **{per: True})
        assert rows["weight"].is_nan().all()


@pytest.mark.parametrize("metric", list(FUNCTIONS))
def test_dtypes_are_accepted(metric: str) -> None:
    """Ids as strings, classes as categorical/enum/int, integer scores, integer truth."""
    rng = np.random.default_rng(3)
    truth = rng.random((20, 4)) < 0.4
    score = rng.integers(0, 5, size=(20, 4))
    base = long_table(truth, score.astype(float))
    want = FUNCTIONS[metric](base).item()
    variants = [
        base.with_columns(pl.col("id").cast(pl.String)),
        base.with_columns(pl.col("class").cast(pl.String).cast(pl.Categorical)),
        base.with_columns(pl.col("class").cast(pl.String).cast(pl.Enum(["0", "1", "2", "3"]))),
        base.with_columns(pl.col("score").cast(pl.Int32), pl.col("truth").cast(pl.UInt8)),
        base.with_columns(pl.col("score").cast(pl.Float32), pl.col("truth").cast(pl.Int64)),
    ]
    for df in variants:
        assert FUNCTIONS[metric](df).item() == pytest.approx(want, rel=1e-12)


def test_column_names_and_multiple_by() -> None:
    rng = np.random.default_rng(4)
    parts = []
    for model in ["m1", "m2"]:
        for fold in range(3):
            truth = rng.random((10, 5)) < 0.3
            score = rng.random((10, 5)).round(1)
            part = long_table(truth, score).with_columns(model=pl.lit(model), fold=pl.lit(fold))
            parts.append((model, fold, truth, score, part))
    df = pl.concat([p[-1] for p in parts]).rename(
        {"id": "sample", "class": "label", "score": "p", "truth": "y"}
    )
    out = pl_metrics.lrap(
        df, id_col="sample", class_col="label", score_col="p", truth_col="y", by=["model", "fold"]
    )
    assert out.columns == ["model", "fold", "lrap"]
    assert out.select("model", "fold").rows() == [(m, f) for m, f, *_ in parts]
    want = [label_ranking_average_precision_score(t, s) for *_, t, s, _ in parts]
    np.testing.assert_allclose(out["lrap"].to_numpy(), want, rtol=1e-12)


@pytest.mark.parametrize("metric", ["lrap", "coverage_error", "label_ranking_loss", "lwlrap"])
def test_ragged_allow_ranks_each_id_over_its_rows(metric: str) -> None:
    ragged = ragged_table(seed=5, kept=0.8)
    with pytest.raises(pl_metrics.MetricsInputError, match="ragged"):
        FUNCTIONS[metric](ragged)
    got = FUNCTIONS[metric](ragged, ragged="allow").item()
    # Reference: score each id on its own rows, then average as the metric does.
    values, weights = [], []
    for _, rows in ragged.group_by("id"):
        t = rows["truth"].to_numpy()[None, :]
        s = rows["score"].to_numpy()[None, :]
        if metric == "lwlrap":
            if t.sum():
                values.append(label_ranking_average_precision_score(t, s))
                weights.append(t.sum())
        elif metric == "lrap":
            values.append(label_ranking_average_precision_score(t, s))
            weights.append(1)
        elif t.shape[1] < 2:
            values.append(float(t.sum()) if metric == "coverage_error" else 0.0)
            weights.append(1)
        else:
            values.append(SKLEARN[metric](t, s))
            weights.append(1)
    assert got == pytest.approx(np.average(values, weights=weights), rel=1e-12)


# Mutant: _ranking.py:238 `pl.col(SCORE).filter(_TRUTH).min().alias(_MIN_POS)` -> `.max()` in
# `_count_in_memory`'s fallback (Int64 scores, which the kernel leaves to polars even in
# memory; the lazy state of a DataFrame takes the same fallback, so test_kernel's
# both_paths cannot see it, and test_dtypes_are_accepted tries Int32 only).
@pytest.mark.parametrize("dtype", [pl.Int64, pl.UInt64])
def test_64_bit_integer_scores_match_sklearn(dtype: pl.DataType) -> None:
    rng = np.random.default_rng(11)
    truth = rng.random((25, 6)) < 0.5
    truth[0] = [True, True, False, True, False, False]  # positives at several scores
    score = rng.integers(0, 5, size=(25, 6))
    df = long_table(truth, score.astype(float)).with_columns(pl.col("score").cast(dtype))
    sklearn = {
        "lrap": label_ranking_average_precision_score,
        "coverage_error": coverage_error,
        "label_ranking_loss": label_ranking_loss,
    }
    for metric, reference in sklearn.items():
        got = getattr(pl_metrics, metric)(df).item()
        assert got == pytest.approx(reference(truth, score), rel=1e-12), metric
    per_class, class_weight = lwlrap_reference(truth, score.astype(float))
    out = pl_metrics.lwlrap(df, per_class=True).sort("class")
    np.testing.assert_allclose(out["lwlrap"].fill_null(np.nan), per_class, rtol=1e-12)
    np.testing.assert_allclose(out["weight"], class_weight, rtol=1e-12)


# Mutant: _ranking.py:462 dropping `.when(den == 0).then(0.0)` in `_lwlrap_per_class` (a class
# without weighted positives then weighs 0 / (negative group sum) = -0.0, which the code
# promises not to show).
def test_lwlrap_per_class_weight_of_an_unweighted_class_is_positive_zero(kind: str) -> None:
    # Class y is positive only in id 2, of weight 0; the group's positives weigh -1 in all.
    truth = np.array([[1, 0], [0, 1], [1, 0]])
    score = np.array([[0.9, 0.1], [0.4, 0.6], [0.3, 0.2]])
    df = long_table(truth, score, weight=np.array([-2.0, 0.0, 1.0]), class_names=["x", "y"])
    out = run(df, kind, pl_metrics.lwlrap, per_class=True, weight_col="w")
    assert out["lwlrap"].to_list() == [1.0, None]
    assert out["weight"].to_list() == [1.0, 0.0]
    assert not np.signbit(out["weight"][1])


# Mutant: _ranking.py:454 dropping the rounding-to-zero of a class's denominator
# (`den = pl.when(sums_to_zero(den, ...)).then(0.0).otherwise(den)` -> `pass`) and
# _ranking.py:327 `ordered_sum(w.abs())` -> `ordered_sum(w)` for its magnitude, should they
# survive: a class whose positives' weights cancel up to rounding is a class of no weight.
def test_lwlrap_per_class_of_weights_cancelling_up_to_rounding_is_null(kind: str) -> None:
    weight = np.array([0.1, 0.2, -0.3, 1.0])
    assert weight[:3].sum() != 0
    assert abs(weight[:3].sum()) < 1e-15
    truth = np.array([[1, 0], [1, 0], [1, 0], [0, 1]])
    score = np.array([[0.9, 0.1], [0.4, 0.6], [0.3, 0.2], [0.5, 0.7]])
    df = long_table(truth, score, weight=weight, class_names=["x", "y"])
    out = run(df, kind, pl_metrics.lwlrap, per_class=True, weight_col="w")
    assert out["lwlrap"].to_list() == [None, 1.0]
    assert out["weight"].to_list() == [0.0, 1.0]


# Mutant: _ranking.py:264 dropping `score.dtype in _kernel.KERNEL_SCORES and` from
# `kernel_reads` (64-bit integer scores then reach the kernel, which reads them as float64:
# scores 1 apart near 2**60 tie); likewise _ranking.py:283 and _ndcg.py:124, `over_runs`
# never returning None (the kernel counts scores it cannot read exactly). test_kernel's
# test_inputs_the_kernel_leaves_to_the_plan has such scores, but its both_paths compares
# the kernel with itself: the state of a DataFrame's lazy view runs the kernel too.
@pytest.mark.parametrize("dtype", [pl.Int64, pl.UInt64])
def test_64_bit_integer_scores_apart_by_one_rank_exactly(dtype: pl.DataType) -> None:
    rng = np.random.default_rng(12)
    truth = rng.random((30, 5)) < 0.4
    small = rng.integers(0, 4, size=(30, 5))
    df = long_table(truth, small.astype(float)).with_columns(
        (pl.col("score").cast(pl.Int64) + 2**60).cast(dtype)
    )
    assert df["score"].cast(pl.Float64).n_unique() == 1  # ties as float64, not as integers
    sklearn = {
        "lrap": label_ranking_average_precision_score,
        "coverage_error": coverage_error,
        "label_ranking_loss": label_ranking_loss,
        "ndcg": ndcg_score,
    }
    for metric, reference in sklearn.items():  # sklearn of the scores shifted by -2**60
        got = getattr(pl_metrics, metric)(df).item()
        assert got == pytest.approx(reference(truth.astype(int), small), rel=1e-12), metric
    per_class, _ = lwlrap_reference(truth, small.astype(float))
    out = pl_metrics.lwlrap(df, per_class=True).sort("class")
    np.testing.assert_allclose(out["lwlrap"].fill_null(np.nan), per_class, rtol=1e-12)


def plan_state(df: pl.DataFrame, metric: str, **options: Any) -> pl.DataFrame:
    """The metric by a LazyFrame's state with the kernel off: the polars plans only."""
    return on_the_plan(lambda: pl_metrics.state(df.lazy(), metric, **options).finalize().collect())


# Mutants: _ranking.py `nulls_equal=True` -> `nulls_equal=False` in the joins of
# `_per_positive` (the ids' table; a positive to its id's rows; a positive to its id's
# cumulated ranks, for ids of more than 16 positives), of `_with_rank_sums` and of
# `_by_positive_class`: with checks off, a null `by` key or a null id is a key like any
# other, on both paths.
def test_null_group_and_null_id_with_checks_off_match_sklearn() -> None:
    rng = np.random.default_rng(21)
    truth = rng.random((8, 20)) < 0.4
    truth[:4, :18] = True  # more than 16 positives: the cumulated ranks
    truth[:4, 18] = False
    truth[7] = False  # and an id without positives
    score = rng.integers(0, 4, size=(8, 20)) / 3
    in_null_group = np.arange(8) % 2 == 0
    df = long_table(truth, score).with_columns(
        g=pl.when(pl.col("id") % 2 == 0).then(pl.lit(None, pl.Int64)).otherwise(pl.lit(1)),
        id=pl.when(pl.col("id") == 2).then(None).otherwise(pl.col("id")),
    )
    for metric, function in FUNCTIONS.items():
        want = [
            expected(metric, {"truth": truth[rows], "score": score[rows]})
            for rows in (in_null_group, ~in_null_group)
        ]
        kernel = function(df, by="g", validate=False)
        plan = plan_state(df, metric, by="g", validate=False)
        for path, out in (("kernel", kernel), ("plan", plan)):
            out = out.sort("g", nulls_last=False)
            assert out["g"].to_list() == [None, 1], (metric, path)
            np.testing.assert_allclose(out[metric], want, rtol=1e-12, err_msg=f"{metric} {path}")
    kernel = pl_metrics.lwlrap(df, by="g", per_class=True, validate=False)
    plan = plan_state(df, "lwlrap", by="g", per_class=True, validate=False)
    for rows, g in ((in_null_group, None), (~in_null_group, 1)):
        per_class, class_weight = lwlrap_reference(truth[rows], score[rows])
        for out in (kernel, plan):
            mine = out.filter(pl.col("g").eq_missing(g)).sort("class")
            np.testing.assert_allclose(mine["lwlrap"].fill_null(np.nan), per_class, rtol=1e-12)
            np.testing.assert_allclose(mine["weight"], class_weight, rtol=1e-12)


# Mutants: _ranking.py `ranked_scores` sorting scores lowest first, or cumulating `P` from
# the bottom (`cum_sum(reverse=True)`): the plan's way for ids of more than 16 positives,
# which the drawn problems reach almost only with ids all positive (degenerate).
def test_ids_of_many_positives_and_some_negatives_match_sklearn_on_both_paths() -> None:
    rng = np.random.default_rng(22)
    truth = rng.random((12, 24)) < 0.8
    truth[:, :17] = True  # at least 17 positives
    truth[:, 23] = False  # and a negative
    score = rng.integers(0, 5, size=(12, 24)) / 4  # ties
    weight = rng.choice([0.5, 1.0, 3.0], size=12)
    df = long_table(truth, score, weight=weight, rng=rng)
    rows = list(zip(truth, score, strict=True))
    per_id_want = {m: [SKLEARN[m](t[None], s[None]) for t, s in rows] for m in SKLEARN}
    per_id_want["lwlrap"] = per_id_want["lrap"]
    for metric, function in FUNCTIONS.items():
        p = {"truth": truth, "score": score, "weight": weight}
        for out in (
            function(df, weight_col="w"),
            plan_state(df, metric, weight_col="w"),
        ):
            assert out[metric].item() == pytest.approx(expected(metric, p), rel=1e-12), metric
        for out in (
            function(df, per_id=True).sort("id"),
            plan_state(df, metric, per_id=True).sort("id"),
        ):
            np.testing.assert_allclose(out[metric], per_id_want[metric], rtol=1e-12, err_msg=metric)
    per_class, class_weight = lwlrap_reference(truth, score, weight)
    for out in (
        pl_metrics.lwlrap(df, per_class=True, weight_col="w"),
        plan_state(df, "lwlrap", per_class=True, weight_col="w"),
    ):
        out = out.sort("class")
        np.testing.assert_allclose(out["lwlrap"].fill_null(np.nan), per_class, rtol=1e-12)
        np.testing.assert_allclose(out["weight"], class_weight, rtol=1e-12)


# Mutants: _ranking.py `_group_exprs`, the magnitudes `ordered_sum(w.abs())` ->
# `ordered_sum(w)` and `ordered_sum((w * npos).abs())` -> `ordered_sum(w * npos)`; in
# `finalize`, lrap's magnitude `_ABS_W_SUM` -> `_ABS_LW_DEN`; in `_lwlrap_per_class`,
# `sums_to_zero(group_den, group_magnitude)` -> `group_den == 0`: weights that cancel up
# to rounding are weights summing to zero (NaN, and NaN class weights), for the ids'
# weights (lrap) and for their positive labels' (lwlrap), not a number divided by a
# rounding error.
def test_group_weights_cancelling_up_to_rounding_give_nan(kind: str) -> None:
    truth = np.array([[1, 0], [1, 0], [0, 1], [1, 1]])
    score = np.array([[0.9, 0.1], [0.4, 0.6], [0.3, 0.2], [0.5, 0.5]])
    ids_cancel = np.array([0.1, 0.2, -0.3, 0.0])
    labels_cancel = np.array([0.1, 0.2, 0.0, -0.15])  # id 3 has two positive labels
    assert ids_cancel.sum() != 0
    assert abs(ids_cancel.sum()) < 1e-15
    labels = truth.sum(axis=1) * labels_cancel
    assert labels.sum() != 0
    assert abs(labels.sum()) < 1e-15
    df = long_table(truth, score, weight=ids_cancel)
    assert np.isnan(run(df, kind, pl_metrics.lrap, weight_col="w")["lrap"].item())
    assert np.isnan(run(df, kind, pl_metrics.lwlrap, weight_col="w")["lwlrap"].item())
    df = long_table(truth, score, weight=labels_cancel)
    assert np.isnan(run(df, kind, pl_metrics.lwlrap, weight_col="w")["lwlrap"].item())
    want = label_ranking_average_precision_score(truth, score, sample_weight=labels_cancel)
    got = run(df, kind, pl_metrics.lrap, weight_col="w")["lrap"].item()
    assert got == pytest.approx(want, rel=1e-12)
    # Ids without positives only: lrap's magnitude is that of the ids' weights.
    df = long_table(np.zeros((4, 2), bool), score, weight=ids_cancel)
    assert np.isnan(run(df, kind, pl_metrics.lrap, weight_col="w")["lrap"].item())
    # Per class: each class's positives weigh far from zero, the group's cancel.
    truth = np.array([[1, 0], [1, 0], [0, 1], [0, 0]])
    df = long_table(truth, score, weight=ids_cancel, class_names=["x", "y"])
    out = run(df, kind, pl_metrics.lwlrap, per_class=True, weight_col="w")
    per_class, _ = lwlrap_reference(truth, score, ids_cancel)
    np.testing.assert_allclose(out["lwlrap"], per_class, rtol=1e-12)
    assert out["weight"].is_nan().all()  # as the group's lwlrap is NaN
