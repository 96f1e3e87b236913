"""ROC AUC, average precision, padded cmAP and top-k accuracy against scikit-learn."""

from __future__ import annotations

import itertools
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn.metrics import average_precision_score, roc_auc_score, top_k_accuracy_score

import pl_metrics
from pl_metrics._frame import sorted_within
from pl_metrics._kernel import falling_in_key_order
from tests.conftest import dense_problems, grouped_table, long_table, on_the_plan, run

SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
SKLEARN = {"roc_auc": roc_auc_score, "average_precision": average_precision_score}


def defined(truth: np.ndarray) -> np.ndarray:
    return (truth.sum(axis=0) > 0) & (truth.sum(axis=0) < truth.shape[0])


@pytest.mark.parametrize("metric", ["roc_auc", "average_precision"])
@given(data=st.data())
@SETTINGS
def test_matches_sklearn(kind: str, metric: str, data: st.DataObject) -> None:
    problems = data.draw(dense_problems(min_classes=2, weights=data.draw(st.booleans())))
    average = data.draw(st.sampled_from([None, "macro", "micro", "weighted"]))
    for p in problems:
        if "weight" in p:
            p["weight"] = np.abs(p["weight"])
    df = grouped_table(problems)
    weight_col = "w" if "weight" in problems[0] else None
    out = (
        run(
            df,
            kind,
            getattr(pl_metrics, metric),
            by="g",
            average=average,
            weight_col=weight_col,
            undefined="skip",
        )
        if metric == "roc_auc"
        else run(
            df, kind, getattr(pl_metrics, metric), by="g", average=average, weight_col=weight_col
        )
    )
    for g, p in enumerate(problems):
        truth, score, w = p["truth"], p["score"], p.get("weight")
        rows = out.filter(pl.col("g") == g)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if metric == "roc_auc" and average in ("macro", "weighted"):
                keep = defined(truth)  # the BirdCLEF 2024 rule: undefined classes left out
                if not keep.any():
                    assert np.isnan(rows[metric].item())
                    continue
                want = (
                    roc_auc_score(truth[:, keep], score[:, keep], average=average, sample_weight=w)
                    if keep.sum() > 1
                    else roc_auc_score(truth[:, keep][:, 0], score[:, keep][:, 0], sample_weight=w)
                )
            elif metric == "roc_auc" and average == "micro":
                flat_w = None if w is None else np.repeat(w, truth.shape[1])
                if truth.all() or not truth.any():
                    assert np.isnan(rows[metric].item())
                    continue
                want = roc_auc_score(truth.ravel(), score.ravel(), sample_weight=flat_w)
            else:
                want = SKLEARN[metric](truth, score, average=average, sample_weight=w)
        got = rows[metric].fill_null(np.nan).to_numpy()
        np.testing.assert_allclose(got, np.atleast_1d(want), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("average", [None, "macro", "micro", "weighted"])
def test_average_precision_with_negative_weights_matches_sklearn(average: str | None) -> None:
    """A negative id weight can take recall back at a score: scikit-learn counts that step
    (and a precision over no weight as 0); so does the curves table. (Class 4's positives
    weigh less than zero in all; its area here is 0: see the test of such positives below.)"""
    rng = np.random.default_rng(3)
    n_ids, n_classes = 200, 5
    truth = rng.random((n_ids, n_classes)) < 0.3
    truth[5] = True  # the negative weights are positives' too
    truth[:, 4] = False
    truth[[5, 11, 20], 4] = True  # class 4's positives weigh less than zero
    score = np.round(rng.random((n_ids, n_classes)), 3)
    w = rng.random(n_ids) + 0.5
    w[[5, 7, 11]] = [-1.0, -0.3, -2.0]
    df = pl.DataFrame(
        {
            "id": np.repeat(np.arange(n_ids), n_classes),
            "class": np.tile(np.arange(n_classes), n_ids),
            "score": score.ravel(),
            "truth": truth.ravel(),
            "w": np.repeat(w, n_classes),
        }
    )
    got = pl_metrics.average_precision(df, weight_col="w", average=average)
    want = average_precision_score(truth, score, average=average, sample_weight=w)
    values = got.sort("class")["average_precision"] if average is None else got["average_precision"]
    np.testing.assert_allclose(values.to_numpy(), np.atleast_1d(want), rtol=1e-12, atol=1e-12)


def test_undefined_roc_auc_is_an_error_naming_the_class() -> None:
    truth = np.array([[1, 0], [0, 0], [1, 0]], dtype=bool)
    score = np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.4]])
    df = long_table(truth, score, class_names=["bird", "frog"])
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"1 class has no positives or no negatives.*class='frog'",
    ):
        pl_metrics.roc_auc(df)
    numbered = long_table(truth, score)  # an integer class is shown as its number
    with pytest.raises(pl_metrics.MetricsInputError, match=r"there \(class=1\);"):
        pl_metrics.roc_auc(numbered)
    per_class = pl_metrics.roc_auc(df, average=None, undefined="skip")
    assert per_class["roc_auc"].to_list() == [0.5, None]
    assert pl_metrics.roc_auc(df, undefined="skip").item() == 0.5
    # Per class there is no average to leave the class out of: skip gives it a null.
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"undefined='skip' to give it null values$"
    ):
        pl_metrics.roc_auc(df, average=None)
    with pytest.raises(pl_metrics.MetricsInputError, match=r"out of the average \(BirdCLEF"):
        pl_metrics.roc_auc(df, average="weighted")


def test_undefined_roc_auc_names_three_classes_and_says_there_are_more() -> None:
    truth = np.zeros((10, 5), dtype=bool)
    truth[:5, 4] = True
    df = long_table(truth, np.random.default_rng(0).random((10, 5)))
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"^column 'class': 4 classes .* undefined there \(class=0, class=1, class=2, "
        r"\.\.\.\); pass",
    ):
        pl_metrics.roc_auc(df)


@pytest.mark.parametrize("by", [None, "g"])
def test_undefined_roc_auc_message_is_one_on_every_path(by: str | None, tmp_path: Path) -> None:
    """Classes k3-k5 have no positives in either group: every path names the same count and
    the same first classes, in order, however the classes are chunked, on every run."""
    rng = np.random.default_rng(4)
    names = [f"k{i}" for i in range(6)]
    frames = []
    for g in ("g0", "g1"):
        truth = rng.random((12, 6)) < 0.4
        truth[:, 3:] = False
        truth[:3, :3] = True  # every other class has positives and negatives
        truth[3:6, :3] = False
        table = long_table(truth, rng.random((12, 6)), class_names=names)
        frames.append(table.with_columns(g=pl.lit(g)))
    df = pl.concat(frames)
    if by is None:
        df = df.filter(pl.col("g") == "g0")
    path = tmp_path / "undefined.parquet"
    df.write_parquet(path)
    count = "3 classes" if by is None else r"6 \(g, class\) combinations"
    where = "class='k3', class='k4', class='k5'"
    if by is not None:
        where = f"in 2 groups: g='g0': {where}; g='g1': {where}"
    want = (
        rf"^column 'class': {count} have no positives or no negatives: ROC AUC is"
        rf" undefined there \({where}\); pass undefined='skip'"
    )
    for average in (None, "macro"):
        options = {"by": by, "average": average}
        paths = [
            lambda o=options: pl_metrics.roc_auc(df, **o),
            lambda o=options: pl_metrics.roc_auc(df.lazy(), **o).collect(),
            *(
                lambda o=options, n=n: pl_metrics.score(path, "roc_auc", n_chunks=n, **o)
                for n in (1, 2, 4)
            ),
        ]
        for scored in paths * 2:
            with pytest.raises(pl_metrics.MetricsInputError, match=want):
                scored()


def padded_cmap_reference(
    solution: np.ndarray, submission: np.ndarray, padding_factor: int = 5
) -> float:
    """BirdCLEF 2023's metric (published with pandas: the same rows appended)."""
    new_rows = np.ones((padding_factor, solution.shape[1]))
    padded_solution = np.vstack([solution, new_rows])
    padded_submission = np.vstack([submission, new_rows])
    return float(average_precision_score(padded_solution, padded_submission, average="macro"))


@given(problems=dense_problems(min_classes=1, max_groups=1), padding=st.integers(0, 6))
@SETTINGS
def test_padded_cmap_matches_birdclef_2023(problems, padding) -> None:  # type: ignore[no-untyped-def]
    truth, score = problems[0]["truth"], problems[0]["score"]
    df = long_table(truth, score)
    got = pl_metrics.padded_cmap(df, padding=padding).item()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = padded_cmap_reference(truth.astype(int), score, padding)
    assert got == pytest.approx(want, rel=1e-12, abs=1e-12)


@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 4), weights=st.booleans())
@SETTINGS
def test_top_k_matches_sklearn_ties_included(kind: str, seed: int, k: int, weights: bool) -> None:
    rng = np.random.default_rng(seed)
    n_ids, n_classes = int(rng.integers(1, 30)), int(rng.integers(3, 7))
    y = rng.integers(0, n_classes, n_ids)
    score = rng.integers(0, 3, (n_ids, n_classes)) / 2  # many ties
    w = rng.choice([0.5, 1.0, 2.0], n_ids) if weights else None
    df = long_table(np.eye(n_classes, dtype=bool)[y], score, weight=w)
    out = run(df, kind, pl_metrics.top_k_accuracy, k=k, weight_col="w" if weights else None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = top_k_accuracy_score(y, score, k=k, labels=range(n_classes), sample_weight=w)
    assert out.item() == pytest.approx(want, rel=1e-12)


def test_top_k_string_classes_follow_label_order() -> None:
    # Tied scores: scikit-learn ranks the later label first ('b' before 'a').
    df = pl.DataFrame(
        {
            "id": [0, 0, 0],
            "class": ["a", "b", "c"],
            "score": [0.5, 0.5, 0.1],
            "truth": [True, False, False],
        }
    )
    assert pl_metrics.top_k_accuracy(df).item() == 0.0
    assert (
        pl_metrics.top_k_accuracy(df.with_columns(pl.col("class").cast(pl.Categorical))).item()
        == 0.0
    )
    assert top_k_accuracy_score(["a"], [[0.5, 0.5, 0.1]], k=1, labels=["a", "b", "c"]) == 0.0
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"1 id has more than one true class; .*lrap and ndcg rank ids",
    ):
        pl_metrics.top_k_accuracy(df.with_columns(truth=pl.lit(True)))
    with pytest.raises(pl_metrics.MetricsInputError, match="1 id has no true class"):
        pl_metrics.top_k_accuracy(df.with_columns(truth=pl.lit(False)))
    # Multi-label data, which has ids of no true class too, is told as multi-label (it was
    # told of its ids of none: "drop those ids").
    both = pl.concat(
        [
            df.with_columns(truth=pl.lit(True)),
            df.with_columns(id=pl.lit(2, df["id"].dtype), truth=False),
        ]
    )
    for metric, hint in (("top_k_accuracy", "lrap and ndcg"), ("log_loss", "binary_log_loss")):
        with pytest.raises(
            pl_metrics.MetricsInputError, match=rf"1 id has more than one true class; .*{hint}"
        ):
            pl_metrics.report(both, metric)


def test_top_k_enum_classes_follow_their_declared_order() -> None:
    # An enum declares its labels' order: ties break as scikit-learn's do on the columns in
    # that order, not as on the labels sorted as strings (c10 before c2).
    rng = np.random.default_rng(0)
    y, score = rng.integers(0, 12, 200), np.round(rng.random((200, 12)), 1)
    names = [f"c{i}" for i in range(12)]
    df = pl_metrics.from_numpy(y, score, class_names=names)
    enum = df.with_columns(pl.col("class").cast(pl.Enum(names)))
    by_name = np.argsort(names)
    for k in (1, 3):
        want = top_k_accuracy_score(y, score, k=k, labels=range(12))
        assert pl_metrics.top_k_accuracy(enum, k=k).item() == pytest.approx(want, rel=1e-12)
        want = top_k_accuracy_score(
            np.array(names)[y], score[:, by_name], k=k, labels=sorted(names)
        )
        assert pl_metrics.top_k_accuracy(df, k=k).item() == pytest.approx(want, rel=1e-12)
    assert pl_metrics.top_k_accuracy(enum).item() != pl_metrics.top_k_accuracy(df).item()


def test_curve_states_merge_and_report() -> None:
    rng = np.random.default_rng(3)
    df = long_table(rng.random((60, 4)) < 0.3, rng.integers(0, 10, (60, 4)) / 10)
    metrics = ["roc_auc", "average_precision", "padded_cmap", "lrap"]
    whole = pl_metrics.report(df, metrics, undefined="skip")
    parts = [
        pl_metrics.state(df.filter(pl.col("id") % 3 == r), metrics, undefined="skip").collect()
        for r in range(3)
    ]
    merged = pl_metrics.merge_states(parts).finalize().collect()
    for metric in metrics:
        assert merged[metric].item() == pytest.approx(whole[metric].item(), rel=1e-12)
        alone = getattr(pl_metrics, metric)
        options = {"undefined": "skip"} if metric == "roc_auc" else {}
        assert whole[metric].item() == pytest.approx(alone(df, **options).item(), rel=1e-12)
    assert pl_metrics.chunk_key("roc_auc") == "class"
    with pytest.raises(pl_metrics.MetricsInputError, match="ROC AUC over classes is undefined"):
        pl_metrics.report(df, ["roc_auc"], average="samples")  # ids with one kind of class
    # The error counts the ids; the hint's per-id values name them (nulls).
    per_id = pl_metrics.roc_auc(df, average="samples", undefined="skip", per_id=True)
    one_kind = df.group_by("id").agg(pl.col("truth").n_unique() == 1).filter("truth")["id"]
    assert one_kind.len() > 0
    assert per_id.filter(pl.col("roc_auc").is_null())["id"].sort().equals(one_kind.sort())


@given(data=st.data())
@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_samples_average_and_partial_auc_match_sklearn(kind: str, data: st.DataObject) -> None:
    problems = data.draw(dense_problems(min_classes=2, weights=data.draw(st.booleans())))
    for p in problems:
        if "weight" in p:
            p["weight"] = np.abs(p["weight"]) + 0.5
    df = grouped_table(problems)
    weight_col = "w" if "weight" in problems[0] else None
    max_fpr = data.draw(st.sampled_from([0.1, 0.3, 0.75]))
    options = {"by": "g", "weight_col": weight_col}
    ap = run(df, kind, pl_metrics.average_precision, average="samples", **options)
    auc = run(df, kind, pl_metrics.roc_auc, average="samples", undefined="skip", **options)
    partial = run(
        df, kind, pl_metrics.roc_auc, average=None, max_fpr=max_fpr, undefined="skip", **options
    )
    samples_partial = run(
        df,
        kind,
        pl_metrics.roc_auc,
        average="samples",
        max_fpr=max_fpr,
        undefined="skip",
        **options,
    )
    for g, p in enumerate(problems):
        t, s, w = p["truth"], p["score"], p.get("weight")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want_ap = average_precision_score(t, s, average="samples", sample_weight=w)
        got = ap.filter(pl.col("g") == g)["average_precision"].item()
        assert got == pytest.approx(want_ap, rel=1e-12, abs=1e-15)
        rows = [i for i in range(len(t)) if 0 < t[i].sum() < t.shape[1]]  # AUC defined
        got = auc.filter(pl.col("g") == g)["roc_auc"].item()
        got_partial = samples_partial.filter(pl.col("g") == g)["roc_auc"].item()
        if rows:
            for value, fpr in ((got, None), (got_partial, max_fpr)):
                want = roc_auc_score(
                    t[rows],
                    s[rows],
                    average="samples",
                    sample_weight=None if w is None else w[rows],
                    max_fpr=fpr,
                )
                assert value == pytest.approx(want, rel=1e-12, abs=1e-15)
        else:
            assert np.isnan(got)
            assert np.isnan(got_partial)
        for k in range(t.shape[1]):
            got = partial.filter((pl.col("g") == g) & (pl.col("class") == k))["roc_auc"].item()
            if t[:, k].all() or not t[:, k].any():
                assert got is None
                continue
            want = roc_auc_score(t[:, k], s[:, k], max_fpr=max_fpr, sample_weight=w)
            assert got == pytest.approx(want, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("average", ["micro", "macro"])
def test_partial_auc_without_groups_is_the_same_every_run(kind: str, average: str) -> None:
    # Ungrouped, the pooled curve was cumulated in a select that polars 2.1 evaluated in
    # different row orders at random: micro ROC AUC with max_fpr came out wrong 2/3 of runs.
    rng = np.random.default_rng(0)
    truth, score = rng.random((40, 4)) < 0.3, np.round(rng.random((40, 4)), 1)
    df = long_table(truth, score)
    flat = average == "micro"
    want = (
        roc_auc_score(truth.ravel(), score.ravel(), max_fpr=0.3)
        if flat
        else roc_auc_score(truth, score, average=average, max_fpr=0.3)
    )
    for _ in range(10):
        got = run(df, kind, pl_metrics.roc_auc, average=average, max_fpr=0.3)["roc_auc"].item()
        assert got == pytest.approx(want, rel=1e-12)


def test_samples_auc_of_an_id_with_one_kind_of_class_is_refused() -> None:
    df = pl_metrics.from_numpy(np.array([[1, 0], [1, 1]]), np.array([[0.8, 0.1], [0.3, 0.9]]))
    with pytest.raises(pl_metrics.MetricsInputError, match="1 id has no positive or no negative"):
        pl_metrics.roc_auc(df, average="samples")
    assert pl_metrics.roc_auc(df, average="samples", undefined="skip").item() == 1.0


@pytest.mark.parametrize("average", ["macro", "weighted", "micro", "samples"])
def test_roc_auc_with_every_class_skipped_is_nan_with_or_without_groups(average: str) -> None:
    # No negatives at all: every class's ROC AUC is undefined and left out ("skip"). The
    # weighted mean of no class used to be 0.0 without `by` (an empty sum) and NaN with it.
    df = pl.DataFrame(
        {"g": 0, "id": [0, 0, 1, 1], "class": ["a", "b"] * 2, "score": [0.9, 0.2, 0.1, 0.8]}
    ).with_columns(truth=pl.lit(True))
    options: dict[str, Any] = {"undefined": "skip", "average": average}
    values = [
        pl_metrics.roc_auc(df, **options).item(),
        pl_metrics.roc_auc(df, by="g", **options)["roc_auc"].item(),
        pl_metrics.roc_auc(df.lazy(), **options).collect().item(),
        pl_metrics.score(df, "roc_auc", n_chunks=2, **options)["roc_auc"].item(),
    ]
    assert all(math.isnan(v) for v in values), values


def test_padded_cmap_per_class_and_its_probability_range() -> None:
    rng = np.random.default_rng(2)
    truth, score = rng.random((40, 5)) < 0.3, rng.random((40, 5)).round(2)
    df = long_table(truth, score).with_columns(model=pl.lit("m"))
    per_class = pl_metrics.padded_cmap(df, by="model", per_class=True, padding=2)
    assert per_class.columns == ["model", "class", "padded_cmap"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        padded = np.vstack([truth, np.ones((2, 5))]), np.vstack([score, np.ones((2, 5))])
        want = average_precision_score(padded[0].astype(int), padded[1], average=None)
    np.testing.assert_allclose(per_class["padded_cmap"], want, rtol=1e-12)
    macro = pl_metrics.padded_cmap(df, by="model", padding=2)["padded_cmap"].item()
    assert per_class["padded_cmap"].mean() == pytest.approx(macro, rel=1e-12)
    # Its padding scores 1, the top of a probability: logits (say) are refused.
    logits = df.with_columns(pl.col("score") * 4 - 2)
    outside = int(((score * 4 - 2) < 0).sum() + ((score * 4 - 2) > 1).sum())
    pattern = rf"{outside:,} rows have a score outside \[0, 1\]"
    with pytest.raises(pl_metrics.MetricsInputError, match=pattern):
        pl_metrics.padded_cmap(logits)
    with pytest.raises(pl_metrics.MetricsInputError, match=pattern):
        pl_metrics.padded_cmap(logits.lazy()).collect()


@given(
    seed=st.integers(0, 2**32 - 1),
    descending=st.booleans(),
    nulls_last=st.booleans(),
    n_keys=st.integers(0, 2),
)
@SETTINGS
def test_sorted_within_sorts_as_polars(
    seed: int, descending: bool, nulls_last: bool, n_keys: int
) -> None:
    # The curves' sort (`_frame.sorted_within`) gives the order of polars' stable sort, with
    # null keys and scores, tied scores, and the table's columns in their place.
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 40))
    df = pl.DataFrame(
        {
            "score": rng.integers(0, 5, n) / 4,
            "model": pl.Series(
                [["a", "b", None][k] for k in rng.integers(0, 3, n)], dtype=pl.String
            ),
            "row": np.arange(n),
            "fold": rng.integers(0, 3, n),
        }
    ).with_columns(pl.when(pl.col("row") % 7 == 3).then(None).otherwise("score").alias("score"))
    keys = ["model", "fold"][:n_keys]
    want = df.sort(
        [*keys, "score"],
        descending=[False] * n_keys + [descending],
        nulls_last=nulls_last,
        maintain_order=True,
    )
    got = sorted_within(df.lazy(), keys, "score", descending=descending, nulls_last=nulls_last)
    assert_frame_equal(got.collect(), want)


@given(
    seed=st.integers(0, 2**32 - 1),
    n_keys=st.integers(1, 2),
    defect=st.sampled_from(["none", "apart", "tie", "rising"]),
)
@SETTINGS
def test_falling_in_key_order_sorts_as_polars(seed: int, n_keys: int, defect: str) -> None:
    # The curves table in blocks (each key's rows together, scores falling, as the kernel
    # gives it) is put in key order by moving its blocks: polars' sort by the keys (null
    # keys last), then the score highest first. Tables not in blocks are left to the sort.
    rng = np.random.default_rng(seed)
    keys = ["model", "fold"][:n_keys]
    schema = {"model": pl.String, "fold": pl.Int64, "score": pl.Float64}
    cells = list(itertools.product(["a", "b", None], [0, 1, 2]))
    cells = list(dict.fromkeys(cell[:n_keys] for cell in cells))  # each key once
    blocks = []
    for k in rng.permutation(len(cells))[: int(rng.integers(1, len(cells) + 1))]:
        scores = np.sort(rng.choice(50, int(rng.integers(2, 8)), replace=False))[::-1] / 8
        key = dict(zip(keys, cells[k], strict=True))
        columns = {**{c: [v] * len(scores) for c, v in key.items()}, "score": scores}
        blocks.append(pl.DataFrame(columns, schema={c: schema[c] for c in columns}))
    df = pl.concat(blocks)
    df = df.with_row_index("row")
    if defect == "apart" and len(blocks) > 1:  # the first block's key again, after another
        df = pl.concat([df, df.head(1)])
    elif defect == "tie":
        df = df.with_columns(pl.col("score").max().over(keys))
    elif defect == "rising":
        df = df.reverse()
    got = falling_in_key_order(df, keys, "score")
    if defect == "none" or (defect == "apart" and len(blocks) == 1):
        want = df.sort([*keys, "score"], descending=[False] * n_keys + [True], nulls_last=True)
        assert got is not None
        assert_frame_equal(got, want)
    else:  # a key's rows apart, or scores tied or rising within a block
        assert got is None


def test_undefined_roc_aucs_per_class_are_named_alike_on_every_path(tmp_path: Path) -> None:
    # Per class, each class's row named its own class (three, in text order, no "..."); class
    # chunks name a group's first three in the classes' order: now every path does.
    df = pl.DataFrame(
        {
            "id": [1] * 5 + [2] * 5,
            "class": list("abcde") * 2,
            "score": [0.1, 0.2, 0.3, 0.4, 0.5] * 2,
            "truth": [1] + [0] * 9,
        }
    ).with_columns(pl.col("class").cast(pl.Enum(list("edcba"))))
    df.write_parquet(tmp_path / "x.parquet")
    told = set()
    for call in (
        lambda: pl_metrics.roc_auc(df, average=None),
        lambda: pl_metrics.roc_auc(df.lazy(), average=None).collect(),
        lambda: pl_metrics.score(tmp_path / "x.parquet", "roc_auc", average=None, n_chunks=3),
    ):
        with pytest.raises(pl_metrics.MetricsInputError) as caught:
            call()
        told.add(str(caught.value))
    assert told == {
        "column 'class': 4 classes have no positives or no negatives: ROC AUC is undefined "
        "there (class='e', class='d', class='c', ...); pass undefined='skip' to give them null "
        "values"
    }


def test_average_precision_of_positives_weighing_less_than_zero_matches_sklearn(kind: str) -> None:
    """A class whose positives weigh less than zero in all: scikit-learn divides its area by
    that weight (here a value above 0, not the 0 of a class without positives)."""
    rng = np.random.default_rng(4)
    truth = np.zeros(20, bool)
    truth[rng.choice(20, 3, replace=False)] = True
    score = np.round(rng.random(20), 2)
    w = rng.random(20) + 0.5
    w[np.flatnonzero(truth)[:2]] = [-1.0, -2.0]
    assert w[truth].sum() < 0
    df = long_table(truth[:, None], score[:, None], weight=w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = average_precision_score(truth, score, sample_weight=w)
    assert want > 0
    got = run(df, kind, pl_metrics.average_precision, weight_col="w").item()
    assert got == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize(
    ("pos_factor", "neg_factor"), [(1e-170, 1e-170), (1e160, 1e160), (1e-170, 1e160)]
)
def test_roc_auc_plan_with_weights_far_from_one_matches_sklearn(
    pos_factor: float, neg_factor: float
) -> None:
    """Without the kernel, the plan scales positives and negatives by their own powers of two:
    their products neither under- nor overflow, however far apart the two sides' weights."""
    rng = np.random.default_rng(3)
    truth, score = rng.random((40, 3)) < 0.4, np.round(rng.random((40, 3)), 1)
    base = rng.integers(1, 5, 40).astype(float)
    for k in range(3):
        w = base * np.where(truth[:, k], pos_factor, neg_factor)
        df = long_table(truth[:, [k]], score[:, [k]], weight=w)
        want = roc_auc_score(truth[:, k], score[:, k], sample_weight=w)
        for got in (
            on_the_plan(lambda: pl_metrics.roc_auc(df, weight_col="w")),  # noqa: B023
            on_the_plan(lambda: pl_metrics.roc_auc(df.lazy(), weight_col="w").collect()),  # noqa: B023
        ):
            assert got.item() == pytest.approx(want, rel=1e-12)


def test_undefined_micro_roc_auc_is_told_of_the_pooled_group_on_every_path() -> None:
    """Micro ROC AUC pools the classes: a group without negatives is refused as one pooled
    group (no class named), its hint NaN with undefined='skip', on every path."""
    truth = np.array([[1, 1], [1, 1], [1, 0]], dtype=bool)
    score = np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.4]])
    df = pl.concat(
        [
            long_table(np.ones_like(truth), score, group=0),
            long_table(truth, score, group=1),
        ]
    )
    want = (
        r"^column 'class': 1 group \(all classes pooled\) has no positives or no negatives: "
        r"ROC AUC is undefined there \(g=0\); pass undefined='skip' to give it NaN$"
    )
    for call in (
        lambda: pl_metrics.roc_auc(df, by="g", average="micro"),
        lambda: pl_metrics.roc_auc(df.lazy(), by="g", average="micro").collect(),
        lambda: pl_metrics.score(df, "roc_auc", by="g", average="micro", n_chunks=2),
    ):
        with pytest.raises(pl_metrics.MetricsInputError, match=want):
            call()
    skipped = pl_metrics.roc_auc(df, by="g", average="micro", undefined="skip").sort("g")
    assert math.isnan(skipped["roc_auc"][0])
    want_auc = roc_auc_score(truth.ravel(), score.ravel())
    assert skipped["roc_auc"][1] == pytest.approx(want_auc, rel=1e-12)


def test_average_precision_at_a_threshold_of_no_weight_matches_sklearn(kind: str) -> None:
    """Negative weights can cancel the weight above a threshold (tp + fp = 0) at a score
    holding positives: scikit-learn takes that precision as 0 (no NaN)."""
    score = np.array([0.9, 0.8, 0.5, 0.3, 0.2])
    truth = np.array([True, True, True, False, True])
    w = np.array([1.0, -1.0, 2.0, 1.0, 0.5])
    df = long_table(truth[:, None], score[:, None], weight=w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = average_precision_score(truth, score, sample_weight=w)
    got = run(df, kind, pl_metrics.average_precision, weight_col="w").item()
    assert got == pytest.approx(want, rel=1e-12)


def test_padded_cmap_takes_scores_of_exactly_zero_and_one() -> None:
    """[0, 1] is closed: scores of exactly 0 and 1 are probabilities (the padding's 1 ties with
    them), refused only outside it, counted on both sides."""
    rng = np.random.default_rng(5)
    truth = rng.random((30, 3)) < 0.4
    score = rng.integers(0, 5, (30, 3)) / 4  # 0.0 and 1.0 among them
    assert (score == 0).any()
    assert (score == 1).any()
    df = long_table(truth, score, group=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = padded_cmap_reference(truth.astype(int), score, 2)

    def values() -> list[float]:
        return [
            pl_metrics.padded_cmap(df, padding=2).item(),
            pl_metrics.padded_cmap(df, padding=2, per_class=True)["padded_cmap"].mean(),
            pl_metrics.padded_cmap(df.lazy(), padding=2).collect().item(),
        ]

    for got in (values(), on_the_plan(values)):  # the kernel's blocks, then the polars plan
        assert got == pytest.approx([want] * 3, rel=1e-12)
    outside = df.with_columns(
        score=pl.when(pl.col("id") == 0)
        .then(-0.5)
        .when(pl.col("id") == 1)
        .then(1.5)
        .otherwise("score")
    )
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"^column 'score': 6 rows have a score outside \[0, 1\]"
    ):
        pl_metrics.padded_cmap(outside)


def test_padded_cmap_is_a_macro_mean_whatever_the_report_s_average() -> None:
    """padded cmAP (BirdCLEF 2023) is the mean over classes: a report's ``average``, given for
    its other metrics, does not change it."""
    rng = np.random.default_rng(2)
    truth, score = rng.random((40, 4)) < 0.3, rng.random((40, 4)).round(2)
    df = long_table(truth, score)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = padded_cmap_reference(truth.astype(int), score, 3)
    for average in ("weighted", "micro", "samples"):
        got = pl_metrics.report(
            df, ["padded_cmap", "average_precision"], average=average, padding=3
        )
        assert got["padded_cmap"].item() == pytest.approx(want, rel=1e-12)


def test_top_k_report_without_k_is_top_1_on_the_plan() -> None:
    """`report` and `score` leave ``k`` unset: it is 1, as `top_k_accuracy`'s default, with or
    without the kernel."""
    rng = np.random.default_rng(8)
    y, score = rng.integers(0, 4, 40), rng.integers(0, 4, (40, 4)) / 4
    df = long_table(np.eye(4, dtype=bool)[y], score)
    want = top_k_accuracy_score(y, score, k=1, labels=range(4))
    # (With ndcg in the report, whose k is unset for all classes, k stays unset.)
    for metrics in (["top_k_accuracy"], ["top_k_accuracy", "ndcg"]):
        calls = [
            lambda: pl_metrics.report(df, metrics)["top_k_accuracy"].item(),  # noqa: B023
            lambda: pl_metrics.score(df, metrics, n_chunks=2)["top_k_accuracy"].item(),  # noqa: B023
        ]
        for call in calls:
            assert call() == pytest.approx(want, rel=1e-12)
            assert on_the_plan(call) == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("k", [1, 2])
def test_top_k_of_groups_of_different_class_counts_matches_sklearn(kind: str, k: int) -> None:
    """Groups of 3 and 5 classes: the ids' runs differ in length (the kernel's ragged
    branch), ties broken as scikit-learn breaks them in each group."""
    rng = np.random.default_rng(1)
    frames, wants = [], []
    for g, n_classes in enumerate([3, 5]):
        y, score = rng.integers(0, n_classes, 30), rng.integers(0, 3, (30, n_classes)) / 2
        frames.append(long_table(np.eye(n_classes, dtype=bool)[y], score, group=g))
        wants.append(top_k_accuracy_score(y, score, k=k, labels=range(n_classes)))
    got = run(pl.concat(frames), kind, pl_metrics.top_k_accuracy, k=k, by="g").sort("g")
    np.testing.assert_allclose(got["top_k_accuracy"].to_numpy(), wants, rtol=1e-12)


def test_roc_curve_of_integer_scores_beyond_2_53_matches_sklearn() -> None:
    """Integer scores that are one Float64 (2**53 and 2**53 + 1) are one threshold, as
    scikit-learn's float comparison makes them."""
    from sklearn.metrics import roc_curve

    big = 2**53
    score = np.array([big, big + 1, big + 2, big + 3, 5, 3], dtype=np.int64)
    truth = np.array([1, 0, 1, 0, 1, 0], dtype=bool)
    df = pl.DataFrame({"id": range(6), "class": 0, "score": score, "truth": truth})
    fpr, tpr, _ = roc_curve(truth, score.astype(float), drop_intermediate=False)
    for got in (pl_metrics.roc_curve(df), pl_metrics.roc_curve(df.lazy()).collect()):
        np.testing.assert_allclose(got["fpr"].to_numpy(), fpr, rtol=1e-12)
        np.testing.assert_allclose(got["tpr"].to_numpy(), tpr, rtol=1e-12)


@pytest.mark.parametrize("dtype", [pl.Int64, pl.UInt64])
def test_micro_averages_keep_integer_scores_past_2_53_apart(dtype: pl.DataType) -> None:
    # The kernel pooled the classes' scores as floats: distinct integers past 2**53 tied
    # (UInt64 near 2**64 all tied, micro ROC AUC 0.5), where the plan, merged states and
    # scikit-learn keep them apart.
    from sklearn.metrics import average_precision_score, roc_auc_score

    rng = np.random.default_rng(5)
    low = 2**53 if dtype == pl.Int64 else 2**64 - 8
    scores = (np.uint64(low) + rng.integers(0, 4, (60, 4)).astype(np.uint64)).astype(
        np.int64 if dtype == pl.Int64 else np.uint64
    )
    truth = rng.random((60, 4)) < 0.4
    df = pl.DataFrame(
        {
            "id": np.repeat(np.arange(60), 4),
            "class": np.tile(np.arange(4), 60),
            "score": pl.Series(scores.ravel(), dtype=dtype),
            "truth": truth.ravel(),
        }
    )
    metrics = ["roc_auc", "average_precision"]
    want = [roc_auc_score(truth, scores, average="micro")]
    want.append(average_precision_score(truth, scores, average="micro"))
    halves = [df.filter(pl.col("id") < 30), df.filter(pl.col("id") >= 30)]
    merged = pl_metrics.merge_states(
        [pl_metrics.state(h, metrics, average="micro") for h in halves]
    )
    for got in (
        pl_metrics.report(df, metrics, average="micro"),
        pl_metrics.report(df.lazy(), metrics, average="micro").collect(),
        merged.finalize().collect(),
    ):
        assert got.row(0) == pytest.approx(want, rel=1e-12)
