"""The pl.Expr builders equal scikit-learn on binary problems, inside group_by."""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Callable
from datetime import date
from typing import Any

import numpy as np
import polars as pl
import polars.selectors as cs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn.metrics import (
    average_precision_score,
    brier_score_loss,
    f1_score,
    fbeta_score,
    log_loss,
    matthews_corrcoef,
    precision_score,
    recall_score,
    roc_auc_score,
)

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


def _sklearn(fn: Callable[..., float], *args: Any, **kwargs: Any) -> float | None:
    """scikit-learn's value; None where it is undefined (NaN, or refused for the weights)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            value = float(fn(*args, **kwargs))
        except (ValueError, ZeroDivisionError):
            return None
    return None if math.isnan(value) else value


def _tied_table(rng: np.random.Generator, n_groups: int) -> pl.DataFrame:
    """Several groups of various sizes and prevalences; scores rounded to 1 decimal (ties)."""
    parts = []
    for g in range(n_groups):
        n = int(rng.integers(1, 30))
        parts.append(
            pl.DataFrame(
                {
                    "g": [g] * n,
                    "score": rng.random(n).round(1),
                    "truth": rng.random(n) < rng.random(),
                    # Some zero weights; in some groups all of one class weighs nothing.
                    "w": rng.choice([0.0, 0.5, 1.0, 2.5], n) * (rng.random() < 0.9),
                }
            )
        )
    return pl.concat(parts).sample(fraction=1.0, shuffle=True, seed=int(rng.integers(2**31)))


def _assert_close(got: float | None, expected: float | None, what: str) -> None:
    if expected is None:
        assert got is None, what
    else:
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-12), what


@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=40, deadline=None)
def test_score_exprs_match_sklearn_per_group(seed: int) -> None:
    rng = np.random.default_rng(seed)
    df = _tied_table(rng, int(rng.integers(1, 6)))
    prob = pl.col("score").clip(0.1, 0.9)
    out = df.group_by("g").agg(
        expr.roc_auc("score", "truth"),
        expr.roc_auc(pl.col("score"), pl.col("truth"), weight="w").alias("roc_auc_w"),
        expr.average_precision("score", "truth"),
        expr.average_precision("score", "truth", weight=pl.col("w")).alias("ap_w"),
        expr.brier_score("score", "truth"),
        expr.brier_score("score", "truth", weight="w").alias("brier_w"),
        expr.binary_log_loss(prob, "truth"),
        expr.binary_log_loss(prob, "truth", weight="w").alias("log_loss_w"),
    )
    assert out.height == df["g"].n_unique()
    for (g,), rows in df.group_by("g"):
        got = out.filter(pl.col("g") == g).row(0, named=True)
        y, s, w = rows["truth"].to_numpy(), rows["score"].to_numpy(), rows["w"].to_numpy()
        p = np.clip(s, 0.1, 0.9)
        for name, fn, args, kwargs in (
            ("roc_auc", roc_auc_score, (y, s), {}),
            ("roc_auc_w", roc_auc_score, (y, s), {"sample_weight": w}),
            ("average_precision", average_precision_score, (y, s), {}),
            ("ap_w", average_precision_score, (y, s), {"sample_weight": w}),
            ("brier_score", brier_score_loss, (y, s), {}),
            ("brier_w", brier_score_loss, (y, s), {"sample_weight": w}),
            ("binary_log_loss", log_loss, (y, p), {"labels": [False, True]}),
            ("log_loss_w", log_loss, (y, p), {"labels": [False, True], "sample_weight": w}),
        ):
            expected = _sklearn(fn, *args, **kwargs)
            if name == "ap_w" and expected is None:
                # Every weight 0: scikit-learn refuses; no positives' weight scores 0.
                assert not w.any()
                expected = 0.0
            _assert_close(got[name], expected, f"{name} of group {g}")


@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=20, deadline=None)
def test_weighted_ranking_equals_repeated_rows(seed: int) -> None:
    """Integer weights count as repeated rows; unit weights as none (no scikit-learn)."""
    rng = np.random.default_rng(seed)
    df = _tied_table(rng, 3)
    df = df.with_columns(k=pl.Series(rng.integers(0, 4, df.height)), one=pl.lit(1.0))
    repeated = df.select(pl.all().repeat_by("k").explode()).drop_nulls()
    cols = ("score", "truth")
    for metric in (expr.roc_auc, expr.average_precision):
        weighted = df.group_by("g").agg(metric(*cols, weight="k")).sort("g")
        unit = df.group_by("g").agg(metric(*cols, weight="one")).sort("g")
        plain = df.group_by("g").agg(metric(*cols)).sort("g")
        again = (
            repeated.group_by("g")
            .agg(metric(*cols))
            .sort("g")
            # A group whose rows all weigh 0 is gone from the repeated table.
            .join(df.select("g").unique(), on="g", how="right")
            .select(weighted.columns)
            .sort("g")
        )
        for left, right in ((weighted, again), (unit, plain)):
            a, b = left.to_series(1).to_list(), right.to_series(1).to_list()
            if metric is expr.average_precision:
                # An empty group (all weights 0) scores 0 where it has rows, null where not.
                b = [0.0 if v is None else v for v in b]
            assert [x is None for x in a] == [x is None for x in b]
            assert [x for x in a if x is not None] == pytest.approx(
                [x for x in b if x is not None], rel=1e-12, abs=1e-12
            )


@given(
    seed=st.integers(0, 2**32 - 1),
    beta=st.sampled_from([0.5, 1.0, 2.0, 3]),
    zd=st.sampled_from([0.0, 1.0, float("nan")]),
)
@settings(max_examples=30, deadline=None)
def test_fbeta_and_matthews_match_sklearn_per_group(seed: int, beta: float, zd: float) -> None:
    rng = np.random.default_rng(seed)
    df = _tied_table(rng, int(rng.integers(1, 5)))
    out = df.group_by("g").agg(
        expr.fbeta("score", "truth", beta=beta, threshold=0.4, zero_division=zd),
        expr.fbeta(None, "truth", beta=beta, pred=pl.col("score") >= 0.4, zero_division=zd).alias(
            "fbeta_pred"
        ),
        expr.matthews_corrcoef("score", "truth", threshold=0.4),
        expr.matthews_corrcoef(None, "truth", pred=(pl.col("score") >= 0.4).cast(pl.Int8)).alias(
            "mcc_pred"
        ),
    )
    for (g,), rows in df.group_by("g"):
        got = out.filter(pl.col("g") == g).row(0, named=True)
        y, p = rows["truth"].to_numpy(), rows["score"].to_numpy() >= 0.4
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fb = fbeta_score(y, p, beta=beta, zero_division=zd)
            mcc = matthews_corrcoef(y, p)
        assert np.isclose(got["fbeta"], fb, rtol=1e-12, atol=1e-12, equal_nan=True)
        assert np.isclose(got["fbeta_pred"], fb, rtol=1e-12, atol=1e-12, equal_nan=True)
        assert got["matthews_corrcoef"] == pytest.approx(mcc, rel=1e-12, abs=1e-12)
        assert got["mcc_pred"] == pytest.approx(mcc, rel=1e-12, abs=1e-12)


def test_one_class_and_tied_groups() -> None:
    df = pl.DataFrame(
        {
            "g": ["pos"] * 3 + ["neg"] * 3 + ["tied"] * 4 + ["nulls"] * 2,
            "score": [0.2, 0.9, 0.5, 0.2, 0.9, 0.5, 0.3, 0.3, 0.3, 0.3, None, 0.4],
            "truth": [1, 1, 1, 0, 0, 0, 1, 0, 0, 1, 1, None],
            "w": [1.0, 2.0, 1.0, 1.0, 2.0, 1.0, 1.0, 1.0, 2.0, 0.5, 1.0, 1.0],
        }
    )
    out = (
        df.group_by("g", maintain_order=True)
        .agg(
            expr.roc_auc("score", "truth"),
            expr.roc_auc("score", "truth", weight="w").alias("roc_auc_w"),
            expr.average_precision("score", "truth"),
            expr.average_precision("score", "truth", weight="w").alias("ap_w"),
            expr.brier_score("score", "truth"),
        )
        .rows_by_key("g", named=True, unique=True)
    )
    # One class only: the ROC AUC is undefined (scikit-learn warns and gives NaN).
    for g in ("pos", "neg", "nulls"):
        assert out[g]["roc_auc"] is None
        assert out[g]["roc_auc_w"] is None
    # Average precision: 1 with only positives, 0 without any (as scikit-learn).
    assert out["pos"]["average_precision"] == out["pos"]["ap_w"] == 1.0
    assert out["neg"]["average_precision"] == out["neg"]["ap_w"] == 0.0
    # All scores tied: one threshold; AUC 1/2, AP the (weighted) share of positives.
    assert out["tied"]["roc_auc"] == out["tied"]["roc_auc_w"] == 0.5
    assert out["tied"]["average_precision"] == 0.5
    assert out["tied"]["ap_w"] == pytest.approx(1.5 / 4.5, rel=1e-15)
    y, s, w = np.array([1, 0, 0, 1]), np.full(4, 0.3), np.array([1.0, 1.0, 2.0, 0.5])
    assert out["tied"]["ap_w"] == pytest.approx(
        average_precision_score(y, s, sample_weight=w), rel=1e-12
    )
    # Rows with a null left out: nothing is left (AP 0, the mean null).
    assert out["nulls"]["average_precision"] == 0.0
    assert out["nulls"]["brier_score"] is None


def test_zero_weights() -> None:
    df = pl.DataFrame(
        {"score": [0.9, 0.2, 0.6], "truth": [1, 0, 1], "w": [0.0, 1.0, 0.0], "z": [0.0] * 3}
    )
    got = df.select(
        expr.roc_auc("score", "truth", weight="w"),
        expr.average_precision("score", "truth", weight="w"),
        expr.brier_score("score", "truth", weight="z"),
        expr.binary_log_loss("score", "truth", weight="z"),
    ).row(0)
    assert got == (None, 0.0, None, None)


def test_exprs_in_over_select_and_lazy() -> None:
    rng = np.random.default_rng(7)
    df = _tied_table(rng, 4).with_columns(w=pl.col("w") + 1)
    exprs = [
        expr.roc_auc("score", "truth", weight="w"),
        expr.average_precision("score", "truth", weight="w"),
        expr.roc_auc("score", "truth").alias("auc"),
        expr.average_precision("score", "truth").alias("ap"),
    ]
    eager = df.group_by("g").agg(exprs).sort("g")
    lazy = df.lazy().group_by("g").agg(exprs).sort("g").collect(engine="streaming")
    over = df.select("g", *(e.over("g") for e in exprs)).unique().sort("g")
    assert eager.equals(lazy)
    assert eager.equals(over)
    whole = df.select(exprs).row(0)
    y, s, w = (df[c].to_numpy() for c in ("truth", "score", "w"))
    assert whole == pytest.approx(
        (
            roc_auc_score(y, s, sample_weight=w),
            average_precision_score(y, s, sample_weight=w),
            roc_auc_score(y, s),
            average_precision_score(y, s),
        ),
        rel=1e-12,
    )


@pytest.mark.parametrize("beta", [-1.0, float("nan"), float("inf"), True, "2"])
def test_fbeta_refuses_bad_beta(beta: Any) -> None:
    with pytest.raises(pl_metrics.MetricsInputError, match="beta"):
        expr.fbeta("score", "truth", beta=beta)


@pytest.mark.parametrize("threshold", ["0.5", None, float("nan"), float("inf")])
def test_expr_threshold_must_be_a_finite_number(threshold: object) -> None:
    with pytest.raises(pl_metrics.MetricsInputError, match="option 'threshold'"):
        expr.f1("score", "truth", threshold=threshold)  # type: ignore[arg-type]


def test_expr_threshold_may_be_an_expression() -> None:
    df = pl.DataFrame({"score": [0.9, 0.4, 0.6, 0.2], "truth": [1, 1, 0, 0], "t": [0.5] * 4})
    want = df.select(expr.f1("score", "truth", threshold=0.5)).item()
    assert df.select(expr.f1("score", "truth", threshold=pl.col("t"))).item() == want
    assert df.select(expr.f1("score", "truth", threshold=pl.lit(0.5))).item() == want
    assert df.select(expr.fbeta("score", "truth", beta=np.float32(2.0))).item() == pytest.approx(
        df.select(expr.fbeta("score", "truth", beta=2.0)).item()
    )


@pytest.mark.parametrize("name", expr.__all__)
@pytest.mark.parametrize("column", ["s", "t", "w"])
def test_rows_with_a_null_are_left_out(name: str, column: str) -> None:
    """As documented for every builder: a null truth once counted as a negative."""
    rng = np.random.default_rng(3)
    df = pl.DataFrame(
        {"s": rng.random(40).round(1), "t": rng.random(40) < 0.4, "w": rng.random(40) + 0.5}
    )
    nulls = df.with_columns(
        pl.when(pl.int_range(pl.len()) % 5 == 0).then(None).otherwise(pl.col(column)).alias(column)
    )
    function = getattr(expr, name)
    takes_weight = "weight" in inspect.signature(function).parameters
    if column == "w" and not takes_weight:
        return
    weight = {"weight": "w"} if takes_weight else {}
    got = nulls.select(function("s", "t", **weight)).unnest(cs.struct())
    want = nulls.drop_nulls().select(function("s", "t", **weight)).unnest(cs.struct())
    assert_frame_equal(got, want, rel_tol=1e-12)


def test_expr_options_are_checked_as_the_tables_are() -> None:
    with pytest.raises(pl_metrics.MetricsInputError, match=r"option 'eps': expected a number in"):
        expr.binary_log_loss("score", "truth", eps=0.7)
    with pytest.raises(pl_metrics.MetricsInputError, match=r"the predictions are pred"):
        expr.f1(None, "truth", pred=pl.col("score") > 0.5, threshold=0.1)
    # Named as the expression names its inputs, not as the table functions name theirs.
    cases: list[tuple[Callable[[], object], str]] = [
        (
            lambda: expr.roc_auc("s", "t", weight_col="w"),
            r"^expr.roc_auc: unknown option "
            r"'weight_col'; did you mean 'weight'\?$",
        ),
        (lambda: expr.f1(None, "t", pred_col="p"), r"did you mean 'pred'\?$"),
        (lambda: expr.roc_auc("s", "t", max_fpr=0.5), r"'max_fpr'; pl_metrics.roc_auc takes it"),
        # (the thresholded expressions take no weights: said, where it said nothing more)
        (
            lambda: expr.f1("s", "t", weight="w"),
            r"^expr.f1: unknown option 'weight'; pl_metrics.f1 takes weight_col=, on a whole "
            r"table$",
        ),
    ]
    for call, message in cases:
        with pytest.raises(pl_metrics.UnknownOptionError, match=message):
            call()


@pytest.mark.parametrize("name", expr.__all__)
def test_python_literals_are_values_for_every_row(name: str) -> None:
    """As polars takes them: ``f1("score", True)`` once raised AttributeError from inside."""
    rng = np.random.default_rng(5)
    df = pl.DataFrame(
        {"g": rng.integers(0, 3, 30), "s": rng.random(30), "t": rng.integers(0, 2, 30)}
    ).with_columns(yes=pl.lit(True), no=pl.lit(0), half=pl.lit(0.7), w=pl.lit(1.5))
    function = getattr(expr, name)
    takes_weight = "weight" in inspect.signature(function).parameters
    pairs: list[tuple[tuple[Any, ...], dict[str, Any], tuple[Any, ...], dict[str, Any]]] = [
        (("s", True), {}, ("s", "yes"), {}),
        (("s", 0), {}, ("s", "no"), {}),
        ((0.7, "t"), {}, ("half", "t"), {}),
    ]
    if takes_weight:
        pairs.append((("s", "t"), {"weight": 1.5}, ("s", "t"), {"weight": "w"}))
    else:
        pairs.append(((None, "t"), {"pred": True}, (None, "t"), {"pred": "yes"}))
    for args, options, columns, column_options in pairs:
        for frame in (
            lambda e: df.select(e),
            lambda e: df.group_by("g").agg(e).sort("g"),
            lambda e: df.select(e.over("g")),
        ):
            got = frame(function(*args, **options))
            assert_frame_equal(got, frame(function(*columns, **column_options)))


@pytest.mark.parametrize("name", expr.__all__)
def test_arguments_that_are_no_expression_are_named(name: str) -> None:
    function = getattr(expr, name)
    error = pl_metrics.MetricsInputError
    with pytest.raises(error, match=r"option 'truth': expected a column name, an expression"):
        function("s", None)
    with pytest.raises(error, match=r"option 'truth': .* got \['t'\]"):
        function("s", ["t"])
    if "weight" in inspect.signature(function).parameters:
        with pytest.raises(error, match=r"option 'score': expected a column name, .* got None"):
            function(None, "t")
        with pytest.raises(error, match=r"option 'weight': .* got b'w'"):
            function("s", "t", weight=b"w")
    else:
        with pytest.raises(error, match=r"option 'score': None takes 0/1 predictions as pred"):
            function(None, "t")
        with pytest.raises(error, match=r"option 'pred': .* got \{1\}"):
            function(None, "t", pred={1})


def test_negative_weights_as_scikit_learn() -> None:
    """ROC AUC without positive (or negative) weight is undefined (null: scikit-learn's
    NaN), and average precision is clipped at 0, as scikit-learn clips it."""
    from sklearn.metrics import average_precision_score

    df = pl.DataFrame(
        {
            "group": ["a"] * 3 + ["b"] * 3,
            "score": [0.74, 0.58, 0.31, 0.49, 0.09, 0.18],
            "truth": [1, 0, 1, 0, 1, 0],
            "w": [-1.0, 0.5, 0.5, -1.0, 0.5, 0.5],  # a: positives weigh -0.5, b: negatives
        }
    )
    auc = df.group_by("group").agg(pl_metrics.expr.roc_auc("score", "truth", weight="w"))
    assert auc["roc_auc"].to_list() == [None, None]
    y = np.array([1, 0, 1, 1, 1, 0, 0, 0])
    s = np.array([0.1, 0.9, 0.8, 0.1, 0.5, 0.3, 0.5, 0.6])
    w = np.array([-1.0, 0.0, -1.0, 0.5, 2.0, 1.0, 0.5, 3.0])
    want = average_precision_score(y, s, sample_weight=w)
    ap = pl.DataFrame({"s": s, "y": y, "w": w}).select(
        pl_metrics.expr.average_precision("s", "y", weight="w")
    )
    assert want == ap.item() == 0.0


def test_weighted_losses_of_rows_of_weight_0_with_eps_0() -> None:
    # A row of weight 0 whose loss is infinite (eps=0) made the weighted mean NaN, where
    # the table's binary_log_loss and scikit-learn leave it out.
    df = pl.DataFrame(
        {
            "id": [0, 0, 1, 1],
            "class": [0, 1, 0, 1],
            "score": [0.0, 1.0, 0.3, 0.7],
            "truth": [True, False, False, True],
            "w": [0.0, 0.0, 1.0, 1.0],
        }
    )
    got = df.group_by("class").agg(expr.binary_log_loss("score", "truth", eps=0.0, weight="w"))
    table = pl_metrics.binary_log_loss(df, eps=0.0, average=None, weight_col="w")
    assert got.sort("class")["binary_log_loss"].to_list() == pytest.approx(
        table.sort("class")["binary_log_loss"].to_list(), rel=1e-12
    )
    assert got["binary_log_loss"].to_list() == pytest.approx([-np.log(0.7)] * 2, rel=1e-12)


def test_ranking_expressions_keep_integer_scores_exact() -> None:
    """Integer scores were ranked as Float64: 2**53 and 2**53 + 1 tied. Text scores, which
    the cast parsed, are refused (the table functions refuse them too), not sorted as text."""
    score = np.array([2**53 + 1, 2**53, 5, 2**53 + 1, 2**53], dtype=np.int64)
    truth = np.array([1, 0, 0, 0, 1])
    weight = np.array([1.0, 2.0, 1.0, 1.0, 0.5])
    df = pl.DataFrame({"score": score, "truth": truth, "w": weight})
    for options, sample_weight in (({}, None), ({"weight": "w"}, weight)):
        got = df.select(
            expr.roc_auc("score", "truth", **options),
            expr.average_precision("score", "truth", **options),
        ).row(0)
        want = (
            roc_auc_score(truth, score, sample_weight=sample_weight),
            average_precision_score(truth, score, sample_weight=sample_weight),
        )
        assert got == pytest.approx(want, rel=1e-12)
    text = pl.DataFrame({"score": ["0.9", "0.1"], "truth": [1, 0]})
    # (brier_score and binary_log_loss parsed the text, where the others refuse it)
    for metric in (expr.roc_auc, expr.average_precision, expr.brier_score, expr.binary_log_loss):
        with pytest.raises(pl.exceptions.InvalidOperationError, match="arithmetic on dtypes str"):
            text.select(metric("score", "truth"))


@pytest.mark.parametrize("name", expr.__all__)
def test_a_nan_truth_or_prediction_is_left_out(name: str) -> None:
    """NaN is a float column's missing value: cast to a boolean, it was a positive."""
    rng = np.random.default_rng(4)
    df = pl.DataFrame({"s": rng.random(40).round(1), "t": (rng.random(40) < 0.4) * 1.0})
    nans = df.with_columns(
        pl.when(pl.int_range(pl.len()) % 5 == 0).then(float("nan")).otherwise("t").alias("t")
    )
    function = getattr(expr, name)
    got = nans.select(function("s", "t")).unnest(cs.struct())
    want = nans.filter(pl.col("t").is_not_nan()).select(function("s", "t"))
    assert_frame_equal(got, want.unnest(cs.struct()), rel_tol=1e-12)
    if "pred" in inspect.signature(function).parameters:
        pred = pl.col("t").shuffle(seed=1)
        got = nans.select(function(None, "t", pred=pred)).unnest(cs.struct())
        kept = nans.with_columns(p=pred).filter(pl.col("t").is_not_nan(), pl.col("p").is_not_nan())
        assert_frame_equal(got, kept.select(function(None, "t", pred="p")).unnest(cs.struct()))


@pytest.mark.parametrize("name", expr.__all__)
def test_list_scores_and_text_weights_are_refused(name: str) -> None:
    """A list of each class's probabilities once ranked as sequences, text weights parsed."""
    df = pl.DataFrame({"s": [[0.1, 0.9], [0.9, 0.1], [0.4, 0.6]], "t": [0, 1, 1], "w": "1"})
    function = getattr(expr, name)
    for scores in ("s", pl.struct(pl.col("s").list.first())):
        with pytest.raises(pl.exceptions.PolarsError):
            df.select(function(scores, "t"))
    if "weight" in inspect.signature(function).parameters:
        with pytest.raises(pl.exceptions.PolarsError, match="str"):
            df.select(function(pl.col("s").list.first(), "t", weight="w"))
    # Truth of text that is no number ("true"): refused, not read as all-null (a review
    # found it given None, and F1 0.0, once the rows of a null float skipped the cast).
    text = df.with_columns(t=pl.Series(["true", "false", "true"]))
    with pytest.raises(pl.exceptions.PolarsError):
        text.select(function(pl.col("s").list.first(), "t"))
    # Dates and durations compared as their integers (days since 1970): every row positive.
    days = [date(2020, 1, 9), date(2020, 1, 2), date(2020, 1, 6)]
    for dates in (pl.lit(pl.Series(days)), pl.lit(pl.Series(days)).cast(pl.Datetime)):
        for scores in (dates, dates - pl.lit(date(2020, 1, 1))):
            with pytest.raises(pl.exceptions.PolarsError):
                df.select(function(scores, "t"))


@pytest.mark.parametrize("name", sorted(set(expr.__all__) - {"confusion"}))  # (a struct)
def test_several_score_columns_keep_their_names(name: str) -> None:
    """``name.keep()`` of a weighted area named both after the weight: a DuplicateError."""
    rng = np.random.default_rng(6)
    df = pl.DataFrame({"a": rng.random(20), "b": rng.random(20), "t": rng.random(20) < 0.5})
    df = df.with_columns(w=rng.random(20))
    function = getattr(expr, name)
    takes_weight = "weight" in inspect.signature(function).parameters
    weight = {"weight": "w"} if takes_weight else {}
    got = df.select(function(pl.col("a", "b"), "t", **weight).name.keep())
    want = [df.select(function(c, "t", **weight).alias(c)) for c in ("a", "b")]
    assert_frame_equal(got, pl.concat(want, how="horizontal"))


def test_a_metric_of_the_tables_is_told_where_it_is() -> None:
    with pytest.raises(
        AttributeError, match=r"lwlrap is computed on a long table, .* by=\.\.\.\)$"
    ):
        expr.lwlrap  # type: ignore[attr-defined]  # noqa: B018
    with pytest.raises(AttributeError, match=r"by=\.\.\.\); expr\.binary_log_loss is one class's$"):
        expr.log_loss  # type: ignore[attr-defined]  # noqa: B018
    with pytest.raises(AttributeError, match=r"has no attribute 'nothing'$"):
        expr.nothing  # type: ignore[attr-defined]  # noqa: B018


def test_binary_log_loss_clips_a_certain_wrong_probability() -> None:
    """p = 1 for a negative (and 0 for a positive) is clipped to 1 - eps (eps): finite, as
    scikit-learn's log_loss clips it; unclipped it is -log(0) = inf."""
    df = pl.DataFrame({"p": [1.0, 0.0], "truth": [0, 1]})
    for eps in (1e-15, 1e-7):
        value = df.select(expr.binary_log_loss("p", "truth", eps=eps)).item()
        assert value == pytest.approx((-math.log(1 - (1 - eps)) - math.log(eps)) / 2, rel=1e-12)


def test_a_threshold_expression_refuses_date_scores() -> None:
    """A threshold per row (an expression) compared dates as their integers too."""
    df = pl.DataFrame({"t": [0, 1, 1]})
    days = pl.lit(pl.Series([date(2020, 1, 9), date(2020, 1, 2), date(2020, 1, 6)]))
    with pytest.raises(pl.exceptions.PolarsError):
        df.select(expr.f1(days, "t", threshold=pl.lit(0.5)))


def test_numpy_booleans_are_values_for_every_row() -> None:
    """``np.True_`` (what ``array.any()`` gives) is a bool for every row, as ``True`` is."""
    df = pl.DataFrame({"s": [0.9, 0.2, 0.6, 0.4], "t": [1, 0, 0, 1]})
    y = np.ones(4, dtype=bool)
    got = df.select(expr.f1("s", np.True_)).item()
    assert got == f1_score(y, df["s"].to_numpy() >= 0.5)
    got = df.select(expr.recall(None, "t", pred=np.False_)).item()
    assert got == recall_score(df["t"].to_numpy(), np.zeros(4, dtype=bool), zero_division=0)


def test_a_threshold_expression_takes_scores_equal_to_it_as_positive() -> None:
    """``score >= threshold`` per row too, as scikit-learn's predictions of the tables."""
    df = pl.DataFrame(
        {
            "score": [0.3, 0.5, 0.7, 0.2, 0.6],
            "truth": [1, 0, 1, 1, 0],
            "t": [0.3, 0.6, 0.7, 0.1, 0.6],
        }
    )
    y, p = df["truth"].to_numpy(), df["score"].to_numpy() >= df["t"].to_numpy()
    got = df.select(
        expr.f1("score", "truth", threshold=pl.col("t")),
        expr.confusion("score", "truth", threshold=pl.col("t")),
    ).row(0)
    assert got[0] == pytest.approx(f1_score(y, p), rel=1e-15)
    tn, fp, fn, tp = (int(v) for v in np.bincount(2 * y + p, minlength=4))
    assert got[1] == {"tp": tp, "fp": fp, "fn": fn, "tn": tn}


def test_pred_with_a_threshold_expression_is_refused_by_name() -> None:
    with pytest.raises(pl_metrics.MetricsInputError, match=r"option 'threshold': the predictions"):
        expr.f1(None, "truth", pred="pred", threshold=pl.col("t"))
    # A table (best_threshold's, as the tables take), an array or a Series: the same, not
    # "the truth value of a DataFrame is ambiguous" from comparing it with the default.
    best = pl.DataFrame({"class": [1], "threshold": [0.3]})
    for threshold in (best, best.lazy(), np.array([0.3, 0.4]), pl.Series([0.3])):
        with pytest.raises(pl_metrics.MetricsInputError, match=r"'threshold': the predictions"):
            expr.confusion(None, "truth", pred="pred", threshold=threshold)
    assert isinstance(expr.f1(None, "truth", pred="pred", threshold=np.float64(0.5)), pl.Expr)


def test_zero_division_of_a_series_is_told_on_one_line() -> None:
    with pytest.raises(pl_metrics.MetricsInputError) as error:
        expr.f1("score", "truth", zero_division=pl.Series([1.0]))
    assert str(error.value) == (
        "option 'zero_division': unknown value a Series of shape (1,); expected 0, 1 or NaN"
    )


def test_float32_weights_are_summed_as_float64() -> None:
    """scikit-learn averages with the weights as float64; summed in Float32 they drift 1e-8."""
    rng = np.random.default_rng(11)
    n = 300
    s, y = rng.random(n).round(2), rng.random(n) < 0.4
    w32 = pl.Series(rng.random(n) * 3, dtype=pl.Float32)
    w = w32.cast(pl.Float64).to_numpy()
    df = pl.DataFrame({"s": s, "y": y, "w": w32})
    got = df.select(
        expr.brier_score("s", "y", weight="w"),
        expr.roc_auc("s", "y", weight="w"),
        expr.average_precision("s", "y", weight="w"),
    ).row(0)
    want = (
        brier_score_loss(y, s, sample_weight=w),
        roc_auc_score(y, s, sample_weight=w),
        average_precision_score(y, s, sample_weight=w),
    )
    assert got == pytest.approx(want, rel=1e-12)


def test_fbeta_defaults_to_f1() -> None:
    df = pl.DataFrame({"score": [0.9, 0.4, 0.6, 0.2, 0.7, 0.3], "truth": [1, 1, 0, 0, 1, 1]})
    y, p = df["truth"].to_numpy(), df["score"].to_numpy() >= 0.5
    assert df.select(expr.fbeta("score", "truth")).item() == pytest.approx(
        f1_score(y, p), rel=1e-15
    )
    assert f1_score(y, p) != pytest.approx(fbeta_score(y, p, beta=2.0))  # (beta matters here)


@pytest.mark.parametrize("zd", [1.0, float("nan")])
def test_zero_division_reaches_every_thresholded_expression(zd: float) -> None:
    """A group of one class: each rate of the other class divides by zero."""
    from sklearn.metrics import balanced_accuracy_score

    none = pl.DataFrame({"score": [0.1, 0.2, 0.3], "truth": [0, 0, 0]})  # nothing positive
    y, p = np.zeros(3, dtype=bool), np.zeros(3, dtype=bool)
    got = none.select(expr.fbeta("score", "truth", beta=2.0, zero_division=zd)).item()
    assert np.isclose(got, fbeta_score(y, p, beta=2.0, zero_division=zd), equal_nan=True)
    ones = pl.DataFrame({"score": [0.9, 0.2, 0.7, 0.8], "truth": [1, 1, 1, 1]})
    y, p = np.ones(4, dtype=bool), ones["score"].to_numpy() >= 0.5
    tpr = p.mean()
    got = ones.select(
        expr.balanced_accuracy("score", "truth", zero_division=zd),
        expr.balanced_f1("score", "truth", zero_division=zd),
    ).row(0)
    if math.isnan(zd):
        # NaN: the undefined rate left out, as scikit-learn's balanced_accuracy_score does.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert got[0] == pytest.approx(balanced_accuracy_score(y, p), rel=1e-15)
    else:
        assert got[0] == pytest.approx((tpr + zd) / 2, rel=1e-15)
    # 2·TPR·TNR / (TPR + TNR), TNR being zero_division (NaN stays NaN)
    assert np.isclose(got[1], 2 * tpr * zd / (tpr + zd), rtol=1e-15, equal_nan=True)


def test_thresholded_expressions_default_to_zero_division_0() -> None:
    """As the table functions and scikit-learn (whose 'warn' gives 0)."""
    none = pl.DataFrame({"score": [0.1, 0.2, 0.3], "truth": [0, 0, 0]})
    y = p = np.zeros(3, dtype=bool)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, fn in (
            ("f1", f1_score),
            ("precision", precision_score),
            ("recall", recall_score),
            ("fbeta", fbeta_score),
        ):
            options = {"beta": 1.0} if name == "fbeta" else {}
            want = fn(y, p, **options)
            assert none.select(getattr(expr, name)("score", "truth")).item() == want == 0.0
    ones = pl.DataFrame({"score": [0.9, 0.2, 0.7, 0.8], "truth": [1, 1, 1, 1]})
    tpr = 0.75
    got = ones.select(
        expr.balanced_accuracy("score", "truth"), expr.balanced_f1("score", "truth")
    ).row(0)
    assert got == pytest.approx((tpr / 2, 0.0), rel=1e-15)  # (TNR falls back to 0)


def test_binary_log_loss_clips_at_1e_15_by_default() -> None:
    """Probabilities down to 1e-15 are kept as they are, as scikit-learn keeps them; one
    below (1e-17) is taken as 1e-15 (scikit-learn's clip is its float's eps, 2.2e-16)."""
    p = np.array([1e-12, 1 - 1e-12, 1e-9, 0.5, 1e-17])
    y = np.array([1, 0, 1, 0, 1])
    df = pl.DataFrame({"p": p, "y": y})
    want = log_loss(y, np.clip(p, 1e-15, 1 - 1e-15), labels=[0, 1])
    assert df.select(expr.binary_log_loss("p", "y")).item() == pytest.approx(want, rel=1e-12)


def test_weights_summing_below_zero_average_as_scikit_learn() -> None:
    """Only weights that sum to zero give null: a negative total still divides."""
    df = pl.DataFrame({"p": [0.2, 0.3, 0.9, 0.6], "y": [1, 0, 1, 0], "w": [-1.0, -2.0, 0.5, 1.0]})
    y, p, w = (df[c].to_numpy() for c in ("y", "p", "w"))
    got = df.select(
        expr.brier_score("p", "y", weight="w"), expr.binary_log_loss("p", "y", weight="w")
    ).row(0)
    want = (brier_score_loss(y, p, sample_weight=w), log_loss(y, p, sample_weight=w))
    assert got == pytest.approx(want, rel=1e-12)


def test_average_precision_of_negative_weights_is_not_clipped_above() -> None:
    """scikit-learn clips the area at 0 only: negative weights can take it past 1, a
    threshold whose rows' weights cancel (precision 0/0) has precision 0 there, and
    positives whose weights sum below 0 (not to 0) still divide."""
    cases = [
        ([0.9, 0.9, 0.5, 0.1], [1, 0, 1, 0], [1.0, -1.0, 1.0, 1.0]),  # 0/0 at the top
        ([0.9, 0.8, 0.5, 0.1], [1, 0, 1, 0], [1.0, -0.5, 1.0, 1.0]),  # past 1
        ([0.9, 0.8, 0.5, 0.1], [1, 0, 1, 0], [1.0, -1.5, 2.0, 1.0]),
        ([0.9, 0.5, 0.3, 0.1], [1, 1, 0, 0], [-2.0, 1.0, 1.0, 1.0]),  # positives sum below 0
    ]
    for s, y, w in cases:
        df = pl.DataFrame({"s": s, "y": y, "w": w})
        got = df.select(expr.average_precision("s", "y", weight="w")).item()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (scikit-learn's 0/0)
            want = average_precision_score(y, s, sample_weight=w)
        assert got == pytest.approx(want, rel=1e-12), (s, y, w)


def test_roc_auc_of_more_than_65536_positives() -> None:
    """P(P + 1) past 2**32: counted in 32 bits (polars' count of the positives) it wraps."""
    n = 70_000
    rng = np.random.default_rng(12)
    y = np.r_[np.ones(n, dtype=bool), np.zeros(n // 7, dtype=bool)]
    s = rng.random(y.size).round(3) + 0.05 * y
    df = pl.DataFrame({"s": s, "y": y})
    got = df.select(expr.roc_auc("s", "y")).item()
    assert got == pytest.approx(roc_auc_score(y, s), rel=1e-12)


def test_numpy_numbers_are_values_for_every_row() -> None:
    df = pl.DataFrame({"s": [0.9, 0.2, 0.6, 0.4], "t": [1, 0, 0, 1]})
    y, s = df["t"].to_numpy(), df["s"].to_numpy()
    got = df.select(
        expr.f1("s", np.int64(1)).alias("f1"),
        expr.brier_score(np.float32(0.75), "t").alias("brier"),
        expr.brier_score("s", "t", weight=np.int64(3)).alias("brier_w"),
    ).row(0)
    ones = np.ones(4, dtype=bool)
    want = (
        f1_score(ones, s >= 0.5),
        brier_score_loss(y, np.full(4, float(np.float32(0.75)))),
        brier_score_loss(y, s, sample_weight=np.full(4, 3.0)),
    )
    assert got == pytest.approx(want, rel=1e-12)


def test_a_threshold_column_of_integers_compares_integer_scores_exactly() -> None:
    """Integer scores past 2**53 against a column of integer thresholds, as numpy compares."""
    big = 2**53
    score = np.array([big, big + 1, big + 2, 3], dtype=np.int64)
    thresholds = np.array([big + 1, big + 1, big + 3, 3], dtype=np.int64)
    truth = np.array([1, 1, 0, 0])
    df = pl.DataFrame({"score": score, "truth": truth, "t": thresholds})
    got = df.select(expr.confusion("score", "truth", threshold=pl.col("t"))).item()
    p = score >= thresholds
    want = {
        "tp": int((p & (truth == 1)).sum()),
        "fp": int((p & (truth == 0)).sum()),
        "fn": int((~p & (truth == 1)).sum()),
        "tn": int((~p & (truth == 0)).sum()),
    }
    assert got == want


def test_pred_with_a_number_other_than_the_default_threshold_is_refused() -> None:
    # (kills: _pred's check reduced to 'not a number')
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"'threshold': the predictions are pred"
    ):
        expr.f1(None, "truth", pred="pred", threshold=0.3)
    assert isinstance(expr.f1(None, "truth", pred="pred", threshold=0.5), pl.Expr)
