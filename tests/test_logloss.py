"""Log losses against scikit-learn and seed 002's own implementation."""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn import metrics as skm
from sklearn.metrics import log_loss

import pl_metrics
from tests.conftest import certain_frame, long_table, run

SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def multiclass_problem(rng: np.random.Generator, n_ids: int, n_classes: int, normalize: bool):
    y = rng.integers(0, n_classes, n_ids)
    p = rng.random((n_ids, n_classes)) + 0.01
    p[rng.random((n_ids, n_classes)) < 0.1] = 0.0  # some exact zeros: clipped
    p[np.arange(n_ids), rng.integers(0, n_classes, n_ids)] += 0.5  # no all-zero rows
    if normalize:
        p = p / p.sum(axis=1, keepdims=True)
    return y, p, np.eye(n_classes, dtype=bool)[y]


@given(seed=st.integers(0, 2**32 - 1), weights=st.booleans())
@SETTINGS
def test_log_loss_matches_sklearn_by_group(kind: str, seed: int, weights: bool) -> None:
    rng = np.random.default_rng(seed)
    frames, want = [], []
    for g in range(int(rng.integers(1, 4))):
        n_ids, n_classes = int(rng.integers(1, 12)), int(rng.integers(2, 6))
        y, p, onehot = multiclass_problem(rng, n_ids, n_classes, normalize=True)
        w = rng.choice([0.5, 1.0, 3.0], n_ids) if weights else None
        frames.append(long_table(onehot, p, weight=w, group=g, rng=rng))
        want.append(log_loss(y, p, labels=range(n_classes), sample_weight=w))
    df = pl.concat(frames)
    out = run(
        df,
        kind,
        pl_metrics.log_loss,
        by="g",
        weight_col="w" if weights else None,
        eps=np.finfo(float).eps,
    )
    np.testing.assert_allclose(out["log_loss"].to_numpy(), want, rtol=1e-12)


def seed_002_loss(y_true: np.ndarray, p: np.ndarray, w: np.ndarray) -> float:
    """Seed 002's formula, written out per class as its notebook does."""
    p = p / p.sum(axis=1, keepdims=True)
    p = np.clip(p, 1e-15, 1 - 1e-15)
    total = 0.0
    for k in range(p.shape[1]):
        members = y_true == k
        if members.any():
            total += w[k] * np.log(p[members, k]).sum() / members.sum()
    present = [k for k in range(p.shape[1]) if (y_true == k).any()]
    return -total / w[present].sum()


@given(seed=st.integers(0, 2**32 - 1))
@SETTINGS
def test_weighted_log_loss_matches_seed_formula(kind: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n_ids, n_classes = int(rng.integers(1, 15)), int(rng.integers(2, 5))
    y, p, onehot = multiclass_problem(rng, n_ids, n_classes, normalize=False)
    names = [f"c{k}" for k in range(n_classes)]
    w = rng.integers(1, 5, n_classes).astype(float)
    df = long_table(onehot, p, class_names=names, rng=rng)
    mapping = dict(zip(names, w, strict=True))
    got = run(df, kind, pl_metrics.weighted_log_loss, class_weights=mapping).item()
    assert got == pytest.approx(seed_002_loss(y, p, w), rel=1e-12)
    equal = run(df, kind, pl_metrics.weighted_log_loss).item()
    assert equal == pytest.approx(seed_002_loss(y, p, np.ones(n_classes)), rel=1e-12)


def seed_002_frame() -> pl.DataFrame:
    p_a = [0.90, 0.11, 0.21, 0.48, 0.18]
    p_b = [0.20, 0.80, 0.23, 0.42, 0.10]
    truth = ["A", "A", "B", "B", "B"]
    return pl.DataFrame(
        {
            "id": np.repeat(np.arange(5), 2),
            "class": ["A", "B"] * 5,
            "score": [v for pair in zip(p_a, p_b, strict=True) for v in pair],
            "truth": [c == t for t in truth for c in ("A", "B")],
        }
    )


def test_seed_002_worked_example() -> None:
    df = seed_002_frame()
    assert pl_metrics.weighted_log_loss(df).item() == pytest.approx(0.98515, abs=5e-6)
    # (The notebook's one-image figure, 0.05016, is one term of it, -0.5 * ln(0.9/1.1) / 2,
    # not a value of the metric.)
    weighted = pl_metrics.weighted_log_loss(df, class_weights={"A": 1, "B": 3}).item()
    assert weighted == pytest.approx(
        seed_002_loss(
            np.array([0, 0, 1, 1, 1]), df["score"].to_numpy().reshape(5, 2), np.array([1.0, 3.0])
        )
    )


def test_a_report_names_the_metrics_that_check_a_problem() -> None:
    """In a report of several metrics, a problem that some of them check names those (and
    their advice): which metric to drop, or which to use instead."""
    df = seed_002_frame()
    two_true = df.with_columns(truth=pl.when(pl.col("id") == 0).then(True).otherwise("truth"))
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"one true class; checked for log_loss, top_k_accuracy; for several true classes"
        r" per id \(multi-label\), binary_log_loss scores each class on its own; lrap and ndcg"
        r" rank ids with several true classes; e\.g\. id=0: 2 true classes$",
    ):
        pl_metrics.report(two_true, ["lrap", "log_loss", "f1", "top_k_accuracy"])
    above = df.with_columns(score=pl.col("score") * 2)
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"outside \[0, 1\]; checked for padded_cmap, brier_score, binary_log_loss; give "
        "probabilities",
    ):
        pl_metrics.report(above, ["lrap", "padded_cmap", "brier_score", "binary_log_loss"])


def test_log_loss_errors() -> None:
    df = seed_002_frame()
    two_true = df.with_columns(truth=pl.when(pl.col("id") == 0).then(True).otherwise("truth"))
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match="column 'truth': 1 id has more than one true class; checked for log_loss; for "
        "several true classes per id",
    ):
        pl_metrics.log_loss(two_true)
    no_true = df.with_columns(truth=pl.when(pl.col("id") < 2).then(False).otherwise("truth"))
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match="column 'truth': 2 ids have no true class; checked for weighted_log_loss; each id "
        "needs exactly one",
    ):
        pl_metrics.weighted_log_loss(no_true.lazy()).collect()
    # One class per id, true or false: binary scores, told so (a reshaped (n, 1) array).
    binary = pl.DataFrame(
        {"id": [0, 1, 2], "class": 0, "score": [0.2, 0.7, 0.4], "truth": [False, True, False]}
    )
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"2 ids have no true class; .*; for binary scores \(a row per id of one class, "
        r"true or false\), binary_log_loss; e\.g\. id=0; id=2$",
    ):
        pl_metrics.log_loss(binary)
    negative = df.with_columns(score=pl.when(pl.col("id") == 1).then(-0.1).otherwise("score"))
    with pytest.raises(pl_metrics.MetricsInputError, match="2 rows have a negative probability"):
        pl_metrics.weighted_log_loss(negative)
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"rows have a score outside \[0, 1\]; checked for log_loss; give probabilities",
    ):
        pl_metrics.log_loss(df.with_columns(score=pl.col("score") * 2))
    # Negative rows and rows above 1 in one count: the negative ones alone were counted.
    both = negative.with_columns(score=pl.when(pl.col("id") == 2).then(1.5).otherwise("score"))
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"'score': 4 rows have a score outside \[0, 1\]"
    ):
        pl_metrics.log_loss(both)
    # One check with the Brier score's: named for both, in either order.
    for metrics in (["log_loss", "brier_score"], ["brier_score", "log_loss"]):
        with pytest.raises(
            pl_metrics.MetricsInputError,
            match=r"4 rows have a score outside \[0, 1\]; checked for (log_loss, brier_score|"
            r"brier_score, log_loss)",
        ):
            pl_metrics.report(both, metrics)
    zero = df.with_columns(score=pl.when(pl.col("id") == 3).then(0.0).otherwise("score"))
    with pytest.raises(pl_metrics.MetricsInputError, match="1 id has probabilities summing"):
        pl_metrics.weighted_log_loss(zero)
    with pytest.raises(pl_metrics.MetricsInputError, match="NaN or infinite"):
        pl_metrics.log_loss(df.with_columns(score=pl.lit(float("inf"))))


def test_class_weights_must_match_classes() -> None:
    df = seed_002_frame()
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"^column 'class': 1 class has no weight .* \(B\)$"
    ):
        pl_metrics.weighted_log_loss(df, class_weights={"A": 1.0})
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"1 class of option 'class_weights' is not.*\(C\)$"
    ):
        pl_metrics.weighted_log_loss(df, class_weights={"A": 1.0, "B": 1.0, "C": 2.0})
    # The first three named, and a sign that the count has more.
    extra = {"A": 1.0, "B": 1.0, **{k: 2.0 for k in "CDEF"}}
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"4 classes of option 'class_weights' are not in the "
        r"table \(C, D, E, \.\.\.\)$",
    ):
        pl_metrics.weighted_log_loss(df, class_weights=extra)
    # Both: the weight of no class first (a misspelt class leaves its own without one).
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"1 class of option 'class_weights' is not.*\(b\)$"
    ):
        pl_metrics.weighted_log_loss(df, class_weights={"A": 1.0, "b": 1.0})
    # Counted once for the whole table, not once per group: two groups lack the same class.
    twice = pl.concat([df.with_columns(model=pl.lit(m)) for m in ("m1", "m2")])
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"^column 'class': 1 class has no weight"
    ):
        pl_metrics.weighted_log_loss(twice, by="model", class_weights={"A": 1.0})
    with pytest.raises(pl_metrics.MetricsInputError, match="finite and non-negative"):
        pl_metrics.weighted_log_loss(df, class_weights={"A": -1.0, "B": 1.0})
    # A weight of text was told "finite and non-negative": its type is the problem.
    for wrong in ("1", True):
        with pytest.raises(pl_metrics.MetricsInputError, match=r"weights must be numbers, got"):
            pl_metrics.weighted_log_loss(df, class_weights={"A": wrong, "B": 1.0})
    # Weights whose sum overflows gave NaN; the bound is the sample weights'.
    with pytest.raises(pl_metrics.MetricsInputError, match=r"must lie in \[1e-290, 1e\+290\]"):
        pl_metrics.weighted_log_loss(df, class_weights={"A": 1e308, "B": 1e308})
    numbered = df.with_columns(pl.col("class").replace_strict({"A": 0, "B": 1}))
    # Classes are matched as text: 0 and "0" would both weigh class 0, their weights added.
    with pytest.raises(pl_metrics.MetricsInputError, match=r"\[0, '0'\] name the same class"):
        pl_metrics.weighted_log_loss(numbered, class_weights={0: 1.0, "0": 5.0, 1: 2.0})
    with pytest.raises(pl_metrics.MetricsInputError, match="option 'eps'"):
        pl_metrics.log_loss(df, eps=0.7)


@pytest.mark.parametrize(
    ("classes", "dtype"),
    [
        ([True, False], None),
        ([1e-7, 2e-7], None),
        ([0, 1], None),
        ([dt.datetime(2020, 1, 1), dt.datetime(2020, 1, 2)], None),
        ([dt.datetime(2020, 1, 1), dt.datetime(2020, 1, 2)], pl.Datetime("ns")),  # pandas'
        ([Decimal("1.5"), Decimal("2.5")], pl.Decimal(10, 2)),  # written 1.50
        ([1, 2], pl.Float64),  # written 1.0
        ([1.0, 2.0], pl.Int64),  # written 1
    ],
)
def test_class_weights_keyed_by_the_class_columns_own_values(
    classes: list[Any], dtype: pl.DataType | None
) -> None:
    """Keys are compared as polars writes the classes: True as "true", 1e-07 as "1e-7"."""
    df = seed_002_frame()
    values = {"A": classes[0], "B": classes[1]}
    typed = df.with_columns(pl.col("class").replace_strict(values, return_dtype=dtype))
    want = pl_metrics.weighted_log_loss(df, class_weights={"A": 0.8, "B": 0.2})
    got = pl_metrics.weighted_log_loss(typed, class_weights={classes[0]: 0.8, classes[1]: 0.2})
    assert got.item() == pytest.approx(want.item(), rel=1e-12)


def test_weighted_log_loss_by_group_and_categorical_class() -> None:
    df = pl.concat([seed_002_frame().with_columns(fold=pl.lit(f)) for f in (0, 1)])
    df = df.with_columns(pl.col("class").cast(pl.Categorical))
    out = pl_metrics.weighted_log_loss(df, by="fold", class_weights={"A": 0.5, "B": 0.5})
    assert out["weighted_log_loss"].to_list() == pytest.approx([0.985151] * 2, abs=1e-6)


def test_a_class_of_weight_0_adds_nothing_where_its_loss_is_infinite() -> None:
    """eps=0 and a probability of 0 for a class weighted 0: its 0 * inf was NaN (an id of
    weight 0 adds nothing to log_loss, as here a class of weight 0)."""
    df = pl.DataFrame(
        {
            "id": [0, 0, 1, 1],
            "class": ["a", "b"] * 2,
            "score": [0.0, 1.0, 0.5, 0.5],
            "truth": [True, False, False, True],
        }
    )
    got = pl_metrics.weighted_log_loss(df, eps=0, class_weights={"a": 0, "b": 1}).item()
    assert got == pytest.approx(-math.log(0.5), rel=1e-12)  # class b's alone
    both = pl_metrics.weighted_log_loss(df, eps=0, class_weights={"a": 1, "b": 1}).item()
    assert both == math.inf


def test_weighted_log_loss_is_repeatable_on_unsorted_rows() -> None:
    # Each id's row sum is added sorted: an unsorted input's ids span the engine's
    # partitions, and a float sum in their order changed between calls.
    rng = np.random.default_rng(11)
    p = rng.random((3000, 9))
    df = pl_metrics.from_numpy(rng.integers(0, 9, 3000), p).sample(
        fraction=1.0, shuffle=True, seed=1
    )
    df = df.with_columns(model=pl.col("id") % 3)
    first = pl_metrics.weighted_log_loss(df, by="model")
    for frame in (df, df.lazy()) * 3:
        got = pl_metrics.weighted_log_loss(frame, by="model")
        got = got.collect() if isinstance(got, pl.LazyFrame) else got
        assert got.equals(first)


def test_weighted_log_loss_with_class_weights_is_the_same_in_any_row_order() -> None:
    # The class weights are joined onto the per-class table, and the join keeps no order:
    # summed in it, the loss changed in its last bit with the input's row order.
    rng = np.random.default_rng(0)
    df = pl_metrics.from_numpy(rng.integers(0, 4, 30), rng.integers(1, 9, (30, 4)) / 8)
    weights = {0: 1.0, 1: 2.0, 2: 2.0, 3: 0.5}
    values = {
        pl_metrics.weighted_log_loss(
            df.sample(fraction=1.0, shuffle=True, seed=seed), class_weights=weights
        ).item()
        for seed in range(20)
    }
    assert len(values) == 1


@pytest.mark.parametrize("eps", [0.0, 1e-17, 1e-15])
def test_binary_log_loss_of_certain_scores_with_eps_below_rounding(eps: float) -> None:
    # A score of 1 on a class whose rows are all positive added 0 * log(0) = NaN when
    # 1 - eps rounds to 1; the expression, which skips the empty side, gave the number.
    from pl_metrics import expr

    df = pl.DataFrame(
        {
            "id": [0, 0, 1, 1],
            "class": ["a", "b", "a", "b"],
            "score": [0.0, 1.0, 0.3, 0.7],
            "truth": [False, True, False, True],
        }
    )
    got = pl_metrics.binary_log_loss(df, eps=eps, average=None).sort("class")
    want = df.group_by("class").agg(expr.binary_log_loss("score", "truth", eps=eps))
    assert got["binary_log_loss"].to_list() == pytest.approx(
        want.sort("class")["binary_log_loss"].to_list(), rel=1e-12
    )
    assert got["binary_log_loss"].to_list() == pytest.approx([-np.log(0.7) / 2] * 2, rel=1e-9)
    micro = pl_metrics.binary_log_loss(df, eps=eps, average="micro").item()
    assert micro == pytest.approx(-np.log(0.7) / 2, rel=1e-9)


def test_byte_classes_are_weighed_and_named_by_their_text() -> None:
    """Classes of bytes took class_weights keyed by their hex ('636174' for b"cat")."""
    df = seed_002_frame()
    as_bytes = df.with_columns(pl.col("class").cast(pl.Binary))
    weights = {"A": 1, "B": 3}
    want = pl_metrics.weighted_log_loss(df, class_weights=weights)
    assert_frame_equal(pl_metrics.weighted_log_loss(as_bytes, class_weights=weights), want)
    one_kind = as_bytes.with_columns(truth=pl.col("class") == b"A")  # B: no positive
    with pytest.raises(pl_metrics.MetricsInputError, match=r"class=B\b"):
        pl_metrics.roc_auc(one_kind)


def test_class_weights_of_other_types_are_named() -> None:
    """The message names the weights that are no numbers."""
    df = pl.DataFrame(
        {
            "id": [0, 0, 1, 1],
            "class": ["A", "B"] * 2,
            "score": [0.6, 0.4, 0.3, 0.7],
            "truth": [1, 0, 0, 1],
        }
    )
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"^option 'class_weights': weights must be numbers, got True, None$",
    ):
        pl_metrics.weighted_log_loss(df, class_weights={"A": True, "B": None})


@pytest.mark.parametrize("kind", ["eager", "lazy"])
@pytest.mark.parametrize("metric", ["log_loss", "weighted_log_loss"])
def test_log_losses_clip_certain_probabilities_at_one_minus_eps(metric: str, kind: str) -> None:
    # Kills L08 (_logloss.py:102, log_loss's clip(eps, 1) instead of clip(eps, 1 - eps)),
    # L14 (_logloss.py:111, the same in weighted_log_loss) and L18 (_logloss.py:131, per_id).
    # A probability of 1 is clipped to 1 - eps: the loss is -ln(1 - eps), not 0 (the
    # documented [eps, 1 - eps]); with the default eps the two differ by 1e-15 only, which
    # the scikit-learn comparisons' rtol cannot see.
    function, eps = getattr(pl_metrics, metric), 1e-3
    want = -np.log(1 - eps)
    got = run(certain_frame(), kind, function, eps=eps).item()
    assert got == pytest.approx(want, rel=1e-12)
    per_id = run(certain_frame(), kind, function, eps=eps, per_id=True)
    assert per_id[metric].to_list() == pytest.approx([want, want], rel=1e-12)


@pytest.mark.parametrize("metric", ["log_loss", "weighted_log_loss"])
def test_log_losses_default_eps_is_1e_15(metric: str) -> None:
    # Kills L40 / L41 (_logloss.py:269 / :348, the default eps changed from 1e-15): a true
    # class scored 0 costs -ln(1e-15), as the docstrings say.
    wrong = certain_frame().with_columns(truth=~pl.col("truth"))
    got = getattr(pl_metrics, metric)(wrong).item()
    assert got == pytest.approx(-np.log(1e-15), rel=1e-12)


@pytest.mark.parametrize("kernel", [True, False])
@pytest.mark.parametrize("zero_at", ["first", "last", "middle"])
def test_log_loss_refuses_an_id_of_all_zero_probabilities(
    zero_at: str, kernel: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Kills L32 (_logloss.py:215, `low >= 0`), L33 (:219, `values < 0`) and L35 (:223,
    # searchsorted side="left"): the kernel's per-run zero-row count of log_loss (eager and
    # lazy input take it where the kernel is built). The existing check of zero rows calls
    # weighted_log_loss only, which never takes that path. Zeros elsewhere (a single zero in
    # an id) are no zero row, as scikit-learn takes them (clipped to eps).
    if not kernel:
        monkeypatch.setattr(pl_metrics._kernel, "_kernels", None)
    rows = {"first": 0, "middle": 1, "last": 2}[zero_at]
    scores = [[0.2, 0.0, 0.8], [0.0, 0.5, 0.5], [0.7, 0.3, 0.0]]
    scores[rows] = [0.0, 0.0, 0.0]
    df = pl.DataFrame(
        {
            "id": np.repeat(np.arange(3), 3),
            "class": ["x", "y", "z"] * 3,
            "score": np.ravel(scores),
            "truth": [True, False, False] * 3,
        }
    )
    for kind in ("eager", "lazy"):
        with pytest.raises(pl_metrics.MetricsInputError, match="1 id has probabilities summing"):
            run(df, kind, pl_metrics.log_loss)
    # Without the zero row: single zeros are clipped, as scikit-learn clips them.
    fine = df.filter(pl.col("id") != rows)
    y = np.zeros(2, int)
    p = np.array([s for k, s in enumerate(scores) if k != rows])
    want = skm.log_loss(y, p, labels=[0, 1, 2])
    got = pl_metrics.log_loss(fine, eps=float(np.finfo(float).eps)).item()
    assert got == pytest.approx(want, rel=1e-12)


def weighted_reference(y: np.ndarray, p: np.ndarray, eps: float = 1e-15) -> float:
    q = np.clip(p / p.sum(axis=1, keepdims=True), eps, 1 - eps)
    means = [np.log(q[y == k, k]).mean() for k in range(p.shape[1]) if (y == k).any()]
    return float(-np.mean(means))


@pytest.mark.parametrize("scale", [1e-16, 1e-7, 1.0, 1e12, 1e14, 1e20])
def test_weighted_log_loss_rescales_rows_of_any_magnitude(scale: float) -> None:
    # Kills L37 (_logloss.py:248, every row sum taken as a Decimal(38, 24) sum) and L38
    # (the same for sums below 1e-6): weighted_log_loss rescales each id's row, so scores
    # times any factor give the same loss; Decimal(38, 24) keeps 24 decimals, 8 significant
    # digits of a score of 1e-16. Rows summing to 1e14 or more raised polars' decimal
    # overflow: the decimal sum was computed where the float one is kept.
    rng = np.random.default_rng(3)
    y = rng.integers(0, 4, 40)
    p = rng.random((40, 4)) + 0.05
    got = pl_metrics.weighted_log_loss(pl_metrics.from_numpy(y, p * scale)).item()
    assert got == pytest.approx(weighted_reference(y, p), rel=1e-12)


def test_class_weights_problems_name_their_first_classes_in_order() -> None:
    # Kills L23 (_logloss.py:147, the examples of unmatched classes not sorted): the three
    # classes named are the first in order, whichever order the weights (or the table's
    # classes, found by `.unique()`, which keeps none) come in.
    rng = np.random.default_rng(0)
    names = list("ABCDEFGH")
    y = rng.integers(0, len(names), 60)
    df = pl_metrics.from_numpy(y, rng.random((60, len(names))) + 0.1).with_columns(
        pl.col("class").replace_strict(dict(enumerate(names)))
    )
    extra = {k: 1.0 for k in reversed("ZYXWV")} | {k: 1.0 for k in names}
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"5 classes of option 'class_weights' are not in the table \(V, W, X, \.\.\.\)$",
    ):
        pl_metrics.weighted_log_loss(df, class_weights=extra)
    for seed in range(5):
        shuffled = df.sample(fraction=1.0, shuffle=True, seed=seed)
        with pytest.raises(
            pl_metrics.MetricsInputError,
            match=r"7 classes have no weight in option 'class_weights' \(B, C, D, \.\.\.\)$",
        ):
            pl_metrics.weighted_log_loss(shuffled, class_weights={"A": 1.0})
    with pytest.raises(  # three are all named: no dots
        pl_metrics.MetricsInputError, match=r"3 classes have no weight .* \(F, G, H\)$"
    ):
        pl_metrics.weighted_log_loss(df, class_weights=dict.fromkeys("ABCDE", 1.0))
    # Of the whole table, told once whatever the groups (not once per model).
    models = pl.concat([df.with_columns(model=pl.lit(m)) for m in ("m1", "m2", "m3")])
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"^column 'class': 7 classes have no weight in option 'class_weights' \(B, C, D, ",
    ):
        pl_metrics.weighted_log_loss(models, class_weights={"A": 1.0}, by="model")


def test_weighted_log_loss_per_id_rescales_each_row() -> None:
    # Kills L19 (_logloss.py:130, per_id of weighted_log_loss without the rescaling): each
    # id's value is -ln of its true probability over its row sum, clipped.
    rng = np.random.default_rng(2)
    y = rng.integers(0, 3, 10)
    p = rng.random((10, 3)) + 0.1
    got = pl_metrics.weighted_log_loss(pl_metrics.from_numpy(y, p), per_id=True).sort("id")
    q = np.clip(p / p.sum(axis=1, keepdims=True), 1e-15, 1 - 1e-15)
    want = -np.log(q[np.arange(10), y])
    np.testing.assert_allclose(got["weighted_log_loss"].to_numpy(), want, rtol=1e-12)


def test_class_weights_that_are_one_class_once_read_as_its_type_are_refused() -> None:
    """1 and "1.0" differ as text but are one integer class: refused, not one weight kept
    (whichever sorts last) for the class."""
    df = seed_002_frame().with_columns(
        pl.col("class").replace_strict({"A": 1, "B": 2}, return_dtype=pl.Int64)
    )
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"\['1', '1.0'\] name the same class once read as the class column's type \(Int64\)",
    ):
        pl_metrics.weighted_log_loss(df, class_weights={1: 0.8, "1.0": 0.3, 2: 0.2})


def test_class_weights_of_no_class_or_summing_to_zero_are_refused() -> None:
    """A key 1.5 is no integer class (not class 1, cut to its integer); weights of zero
    only weigh nothing."""
    df = seed_002_frame().with_columns(
        pl.col("class").replace_strict({"A": 1, "B": 2}, return_dtype=pl.Int64)
    )
    want = pl_metrics.weighted_log_loss(df, class_weights={1: 0.8, 2: 0.2})
    with pytest.raises(pl_metrics.MetricsInputError, match=r"1\.5"):
        pl_metrics.weighted_log_loss(df, class_weights={1.5: 0.8, 2: 0.2})
    got = pl_metrics.weighted_log_loss(df, class_weights={1.0: 0.8, 2: 0.2})  # a whole float
    assert got.item() == pytest.approx(want.item(), rel=1e-12)
    with pytest.raises(pl_metrics.MetricsInputError, match=r"the weights sum to zero"):
        pl_metrics.weighted_log_loss(df, class_weights={1: 0.0, 2: 0})


def test_weighted_log_loss_refuses_rows_whose_sum_overflows(kind: str) -> None:
    # Each id's row is divided by its sum: finite scores whose float sum overflows divided
    # by inf, every probability 0, clipped to eps (34.5 per id, silently). Refused by id;
    # a scale below the overflow gives the rescaled rows' loss.
    def table(scale: float) -> pl.DataFrame:
        return pl.DataFrame(
            {
                "id": [1, 1, 2, 2],
                "class": ["A", "B"] * 2,
                "score": [scale, scale, 0.3, 0.7],
                "truth": [True, False, False, True],
            }
        )

    got = run(table(1e300), kind, pl_metrics.weighted_log_loss).item()
    assert got == pytest.approx((math.log(2) - math.log(0.7)) / 2, rel=1e-12)
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"column 'score': 1 id has scores summing past the largest float .*e\.g\. id=1$",
    ):
        run(table(1e308), kind, pl_metrics.weighted_log_loss)


@pytest.mark.parametrize(
    ("metric", "score"),
    [
        ("log_loss", 1.5),
        ("log_loss", -0.5),
        ("binary_log_loss", 1.5),
        ("brier_score", -0.5),
        ("expected_calibration_error", 1.5),
        ("weighted_log_loss", -0.5),
        ("padded_cmap", 1.5),
    ],
)
def test_probability_checks_name_their_first_rows(kind: str, metric: str, score: float) -> None:
    # A failed check names its first rows (the README), as the NaN, truth and duplicate
    # checks did: a score outside [0, 1], or a negative probability, was told by count and
    # group only, with no id to look up in a dump of millions of rows.
    df = pl.DataFrame(
        {
            "model": "a",
            "id": [1, 1, 2, 2, 3, 3],
            "class": ["A", "B"] * 3,
            "score": [0.2, 0.8, score, 0.5, 0.4, 0.6],
            "truth": [True, False, False, True, True, False],
        }
    )
    with pytest.raises(
        pl_metrics.MetricsInputError, match=rf"e\.g\. model='a', id=2, class='A': score={score}$"
    ):
        run(df, kind, getattr(pl_metrics, metric), by="model")


@pytest.mark.parametrize("metric", ["log_loss", "weighted_log_loss"])
def test_ids_of_probabilities_summing_to_zero_are_named(kind: str, metric: str) -> None:
    df = pl.DataFrame(
        {
            "id": [1, 1, 2, 2, 3, 3],
            "class": ["A", "B"] * 3,
            "score": [0.2, 0.8, 0.0, 0.0, 0.0, 0.0],
            "truth": [True, False, False, True, True, False],
        }
    )
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"2 ids have probabilities summing to zero; each id needs a probability above 0: "
        r".*; e\.g\. id=2; id=3$",
    ):
        run(df, kind, getattr(pl_metrics, metric))
