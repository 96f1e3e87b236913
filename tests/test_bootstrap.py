"""The bootstrap's resamples against `report` of the rows weighted by the same weights.

Every path of `pl_metrics._compare` (per-id sums, per-row confusion cells, sorted curves, and
`report` per block of resamples) must give, resample by resample, what `report` gives on the
rows weighted by the resample's Poisson weights times the user's weights, ids drawn zero
times left out: the definition of a resample.
"""

from __future__ import annotations

import functools
import math
import warnings
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from sklearn.metrics import f1_score

import pl_metrics
from pl_metrics import _compare
from pl_metrics._registry import info
from pl_metrics._spec import resolve
from tests.conftest import run

N_RESAMPLES = 25
SEED = 3


def multilabel(seed: int = 0, weights: bool = True) -> pl.DataFrame:
    """Groups of multilabel problems with ties, degenerate ids and sparse classes.

    Group "a" and "b" score the same ids (with the same labels and weights: two models), "c"
    other ids; "d" has two ids, so that some resamples draw none of them. Class 3 is rarely
    positive: some resamples draw no positive of it.
    """
    rng = np.random.default_rng(seed)
    frames = []
    labels: dict[int, tuple[np.ndarray, float]] = {}
    for group, ids in (("a", range(14)), ("b", range(14)), ("c", range(20, 31)), ("d", (40, 41))):
        for i in ids:
            if i not in labels:
                truth = rng.random(4) < [0.5, 0.3, 0.6, 0.08]
                if i % 7 == 0:
                    truth[:] = True  # an id with every label
                if i % 5 == 1:
                    truth[:] = False  # an id with none
                labels[i] = truth, float(rng.choice([0.5, 1.0, 2.0, 3.0]))
            truth, weight = labels[i]
            frames.append(
                pl.DataFrame(
                    {
                        "g": group,
                        "id": i,
                        "class": ["w", "x", "y", "z"],
                        "score": np.round(rng.random(4) * 4) / 4,  # ties
                        "truth": truth,
                        "w": weight,
                    }
                )
            )
    df = pl.concat(frames).sample(fraction=1.0, shuffle=True, seed=seed)
    return df if weights else df.drop("w")


def single_label(seed: int = 0) -> pl.DataFrame:
    """Probabilities over 3 classes with one true class per id, two groups sharing ids."""
    rng = np.random.default_rng(seed)
    frames = []
    for group in ("a", "b"):
        p = rng.dirichlet([1.0, 1.0, 1.0], size=15)
        p = np.round(p * 8) / 8  # ties
        p[:, 0] = 1 - p[:, 1:].sum(axis=1)
        p = np.clip(p, 0, 1)
        true = rng.integers(0, 3, 15)
        frames.append(
            pl.DataFrame(
                {
                    "g": group,
                    "id": np.repeat(np.arange(15), 3),
                    "class": np.tile([0, 1, 2], 15),
                    "score": p.reshape(-1),
                    "truth": (true[:, None] == np.arange(3)).reshape(-1),
                    "w": np.repeat(rng.choice([0.5, 1.0, 2.0], size=15), 3),
                }
            )
        )
    return pl.concat(frames).sample(fraction=1.0, shuffle=True, seed=seed)


def _draws(ids: list[int], *, seed: int, n_resamples: int) -> dict[int, np.ndarray]:
    """Each (Int64) id's Poisson weights in the resamples, as bootstrap draws them."""
    hashes = pl.Series(ids, dtype=pl.Int64).hash(seed).to_numpy()
    return dict(zip(ids, _compare.poisson_weights(hashes, 0, n_resamples), strict=True))


def reference(df: pl.DataFrame, metrics: list[str], by: list[str], **options: Any) -> pl.DataFrame:
    """Each resample by `report` on the rows joined to the resample's weights."""
    ids = df.select("id").unique()
    weights = _compare.poisson_weights(ids["id"].hash(SEED).to_numpy(), 0, N_RESAMPLES)
    drawn = pl.DataFrame(
        {
            "id": np.repeat(ids["id"].to_numpy(), N_RESAMPLES),
            "r": np.tile(np.arange(N_RESAMPLES), ids.height),
            "bw": weights.reshape(-1),
        }
    ).filter(pl.col("bw") > 0)
    rows = df.join(drawn, on="id")
    user = options.pop("weight_col", None)
    if user is not None:
        rows = rows.with_columns(pl.col("bw") * pl.col(user))
        # A resample whose drawn ids all weigh 0 is undefined (as report refuses such a group).
        rows = rows.filter((pl.col("bw") != 0).any().over([*by, "r"]))
    if "roc_auc" in metrics:
        options["undefined"] = "skip"
    out = pl_metrics.report(rows, metrics, by=[*by, "r"], weight_col="bw", **options)
    keys = [c for c in out.columns if c not in metrics and c != "weight"]
    return out.unpivot(on=metrics, index=keys, variable_name="metric", value_name="value")


def resampled(
    df: pl.DataFrame | pl.LazyFrame, metrics: list[str], by: list[str], **options: Any
) -> pl.DataFrame:
    spec = resolve(df, metrics, by=by or None, **options)
    rows = df.lazy().collect() if isinstance(df, pl.LazyFrame) else df
    out = _compare._resampled(rows, spec, N_RESAMPLES, SEED)
    out = out.rename({_compare._R: "r", _compare._VALUE: "value"})
    return out.with_columns(pl.col("r").cast(pl.Int64))


def assert_same(df: pl.DataFrame, metrics: list[str], by: list[str], **options: Any) -> None:
    if not by and "g" in df.columns:  # one group: each id once
        df = df.filter(pl.col("g") != "b")
    expected = reference(df, metrics, by, **dict(options))
    got = resampled(df, metrics, by, **options)
    keys = [c for c in expected.columns if c != "value"]
    expected = expected.with_columns(pl.col("r").cast(pl.Int64)).sort(keys, nulls_last=True)
    got = got.select(expected.columns).sort(keys, nulls_last=True)
    assert got.height == expected.height
    assert_frame_equal(got, expected, check_dtypes=False, rel_tol=1e-9, abs_tol=1e-12)


RANKING = ["lwlrap", "lrap", "coverage_error", "label_ranking_loss", "ndcg"]
THRESHOLDED = [
    "f1",
    "precision",
    "recall",
    "jaccard",
    "specificity",
    "balanced_accuracy",
    "balanced_f1",
    "mfif",
    "matthews_corrcoef",
]


@pytest.mark.parametrize("by", [["g"], []])
@pytest.mark.parametrize("weights", [True, False])
def test_ranking_family(by: list[str], weights: bool) -> None:
    df = multilabel(weights=weights)
    options = {"weight_col": "w"} if weights else {}
    assert_same(df, RANKING, by, **options)


def test_lwlrap_per_class() -> None:
    assert_same(multilabel(), ["lwlrap"], ["g"], weight_col="w", per_class=True)


@pytest.mark.parametrize("average", ["macro", "micro", "weighted", None])
@pytest.mark.parametrize("zero_division", [0.0, 1.0, float("nan")])
def test_thresholded_family(average: str | None, zero_division: float) -> None:
    df = multilabel(seed=1)
    flat = [] if average is None else ["hamming_loss", "accuracy"]  # no per-class values
    metrics = [m for m in [*THRESHOLDED, "fbeta"] if average in info(m).averages]
    assert_same(
        df, [*metrics, *flat], ["g"], weight_col="w", average=average, zero_division=zero_division
    )


@pytest.mark.parametrize("zero_division", [0.0, float("nan")])
def test_samples_average(zero_division: float) -> None:
    df = multilabel(seed=2)
    metrics = ["f1", "precision", "recall", "jaccard"]
    assert_same(df, metrics, ["g"], weight_col="w", average="samples", zero_division=zero_division)
    assert_same(df, ["fbeta"], [], average="samples", beta=0.5)
    # Weights summing to zero among a resample's ids: the plain mean of the ids drawn.
    sign = pl.when(pl.col("id") % 2 == 0).then(1.0).otherwise(-1.0)
    zero = df.with_columns(pl.when(pl.col("g") == "c").then(sign).otherwise("w").alias("w"))
    assert_same(
        zero, metrics, ["g"], weight_col="w", average="samples", zero_division=zero_division
    )


def test_threshold_options() -> None:
    df = multilabel(seed=3).with_columns((pl.col("score") > 0.4).alias("pred"))
    table = pl.DataFrame({"class": ["w", "x", "y", "z"], "threshold": [0.3, 0.5, 0.6, 0.2]})
    assert_same(df, ["f1", "accuracy"], ["g"], threshold=table, weight_col="w")
    assert_same(df, ["recall", "hamming_loss"], ["g"], pred_col="pred")
    assert_same(df, ["fbeta"], ["g"], beta=2.0, threshold=0.75, average="weighted")


@pytest.mark.parametrize("average", ["macro", "micro", "weighted", None, "samples"])
@pytest.mark.parametrize("by", [["g"], []])
def test_curve_family(average: str | None, by: list[str]) -> None:
    df = multilabel(seed=4)
    assert_same(df, ["roc_auc", "average_precision"], by, weight_col="w", average=average)


def test_curve_family_without_weights_and_mostly_positive() -> None:
    # Classes where positives outnumber negatives: the other side is cumulated.
    df = multilabel(seed=5, weights=False).with_columns(pl.col("truth") | (pl.col("score") > 0.2))
    assert_same(df, ["roc_auc", "average_precision"], ["g"], average=None)


def test_single_label_metrics() -> None:
    df = single_label()
    assert_same(df, ["log_loss", "top_k_accuracy"], ["g"], weight_col="w")
    assert_same(df, ["top_k_accuracy"], [], k=2)


def test_metrics_of_the_generic_path() -> None:
    assert_same(single_label(seed=1), ["roc_auc"], ["g"], max_fpr=0.5)


@pytest.mark.parametrize("average", [None, "macro", "micro"])
@pytest.mark.parametrize("by", [["g"], []])
def test_probability_losses(average: str | None, by: list[str]) -> None:
    # From each cell's weighted loss (they ran report on the rows: 1,000 resamples of the
    # digits took about 500 evaluations' time).
    df = multilabel(seed=12)
    metrics = ["binary_log_loss"] if average == "micro" else ["brier_score", "binary_log_loss"]
    assert_same(df, metrics, by, weight_col="w", average=average)
    assert_same(df, metrics, by, average=average, eps=0.0)


@pytest.mark.parametrize("block", [64, 1024])
def test_paths_together_and_blocks(monkeypatch: pytest.MonkeyPatch, block: int) -> None:
    """Several paths in one call; small blocks split ids into chunks and resamples into blocks.

    (1024: chunks of a few groups' ids, added densely; 64: too few ids a chunk for the
    groups' dense blocks, chunks of more ids added sparsely, as many groups make them.)
    """
    df = multilabel(seed=6)
    metrics = ["lrap", "f1", "roc_auc", "accuracy"]
    whole = resampled(df, metrics, ["g"], weight_col="w")
    monkeypatch.setattr(_compare, "_BLOCK", block)
    blocks = resampled(df, metrics, ["g"], weight_col="w")
    keys = ["g", "r", "metric"]
    assert_frame_equal(blocks.sort(keys), whole.sort(keys), rel_tol=1e-12)
    assert_same(df, metrics, ["g"], weight_col="w")
    assert_same(df, ["lwlrap"], ["g"], per_class=True)
    assert_same(df, ["average_precision"], ["g"], average=None)


def test_weights_are_poisson_and_depend_on_the_id_only() -> None:
    hashes = pl.Series(np.arange(20_000)).hash(7).to_numpy()
    weights = _compare.poisson_weights(hashes, 0, 50)
    counts = np.bincount(weights.astype(np.int64).reshape(-1)) / weights.size
    poisson = np.exp(-1) / np.array([1, 1, 2, 6, 24])
    assert counts[:5] == pytest.approx(poisson, abs=0.003)
    assert weights.mean() == pytest.approx(1.0, abs=0.01)
    # A resample's weights are those of its column, whichever resamples are drawn with it,
    # and an id's are its own, whichever ids are drawn with it.
    assert np.array_equal(_compare.poisson_weights(hashes[5:9], 30, 7), weights[5:9, 30:37])


def test_bootstrap_and_paired_summarise_the_resamples() -> None:
    df = multilabel(seed=7)
    ci = pl_metrics.bootstrap(
        df, ["lrap", "f1"], by="g", n_resamples=N_RESAMPLES, seed=SEED, weight_col="w"
    )
    values = reference(df, ["lrap", "f1"], ["g"], weight_col="w")
    expected = values.group_by("g", "metric").agg(
        pl.col("value").quantile(0.025, "linear").alias("lower"),
        pl.col("value").quantile(0.975, "linear").alias("upper"),
        pl.col("value").std().alias("std"),
    )
    got = ci.select("g", "metric", "lower", "upper", "std")
    assert_frame_equal(got.sort("g", "metric"), expected.sort("g", "metric"), rel_tol=1e-9)
    # paired: the differences of the same resamples.
    two = df.filter(pl.col("g").is_in(["a", "b"])).rename({"g": "model"})
    out = pl_metrics.paired(
        two, "roc_auc", "a", "b", n_resamples=N_RESAMPLES, seed=SEED, average=None
    )
    per = reference(two, ["roc_auc"], ["model"], average=None).pivot(
        "model", index=["class", "r"], values="value"
    )
    diff = (
        per.select("class", (pl.col("b") - pl.col("a")).alias("d"))
        .group_by("class")
        .agg(
            pl.col("d").quantile(0.025, "linear").alias("lower"),
            pl.col("d").quantile(0.975, "linear").alias("upper"),
        )
    )
    assert_frame_equal(out.select("class", "lower", "upper"), diff.sort("class"), rel_tol=1e-9)


@pytest.mark.parametrize(
    ("metric", "options"),
    [("roc_auc", {"undefined": "skip"}), ("roc_auc", {"max_fpr": 0.5}), ("lrap", {})],
)
def test_undefined_resamples_are_left_out_of_every_statistic(
    metric: str, options: dict[str, Any]
) -> None:
    """Resamples of few ids often leave a metric undefined (NaN): out of the interval and std.

    (polars' quantile sorts NaN last: only ``upper`` and ``std`` used to turn NaN.)
    """
    rng = np.random.default_rng(3)
    df = pl.DataFrame(
        {
            "model": np.repeat(["a", "b"], 8),
            "id": np.tile(np.repeat(np.arange(4), 2), 2),
            "class": np.tile(["x", "y"], 8),
            "score": rng.random(16).round(1),
            "truth": np.tile([True, False, False, True, True, False, False, False], 2),
            "w": np.tile(np.repeat([1.0, 1.0, 0.0, 0.0], 2), 2),
        }
    )
    if metric == "lrap":
        options = {**options, "weight_col": "w"}  # resamples of weight-0 ids alone: NaN
    values = resampled(df, [metric], ["model"], **options)
    assert values["value"].is_nan().any(), "the data should leave some resamples undefined"
    defined = values.filter(pl.col("value").is_not_nan())
    expected = defined.group_by("model").agg(
        pl.col("value").quantile(0.025, "linear").alias("lower"),
        pl.col("value").quantile(0.975, "linear").alias("upper"),
        pl.col("value").std().alias("std"),
    )
    ci = pl_metrics.bootstrap(df, metric, by="model", n_resamples=N_RESAMPLES, seed=SEED, **options)
    got = ci.select("model", "lower", "upper", "std")
    assert_frame_equal(got, expected.sort("model"), rel_tol=1e-9)
    out = pl_metrics.paired(df, metric, "a", "b", n_resamples=N_RESAMPLES, seed=SEED, **options)
    d = (
        values.pivot("model", index="r", values="value")
        .select(pl.col("b") - pl.col("a"))
        .to_series()
        .drop_nans()
    )
    assert out["lower"].item() == pytest.approx(d.quantile(0.025, "linear"), rel=1e-9)
    assert out["upper"].item() == pytest.approx(d.quantile(0.975, "linear"), rel=1e-9)
    share = min((d <= 0).mean(), (d >= 0).mean())  # type: ignore[type-var]
    assert out["p_value"].item() == pytest.approx(min(1.0, 2 * share), rel=1e-9)


def test_lazy_in_lazy_out_reads_nothing_before_collect(tmp_path: Any) -> None:
    df = multilabel(seed=8)
    path = tmp_path / "t.parquet"
    df.write_parquet(path)
    lazy = pl_metrics.bootstrap(pl.scan_parquet(path), "f1", by="g", n_resamples=10)
    path.unlink()  # nothing was read: collecting now fails to find the file
    with pytest.raises(FileNotFoundError):
        lazy.collect()
    eager = pl_metrics.bootstrap(df, "f1", by="g", n_resamples=10)
    df.write_parquet(path)
    assert_frame_equal(lazy.collect(), eager)
    assert lazy.collect_schema() == eager.schema


def test_lazy_calls_score_their_arguments_as_given() -> None:
    """A threshold table changed in place after the call (``df[0, "threshold"] = 0.95``),
    or class weights, were read when collected: the F1 of bootstrap, the difference of
    paired, compare's weighted log loss were of the changed table and weights."""
    df = pl.DataFrame(
        {
            "id": [1, 1, 2, 2, 3, 3, 4, 4],
            "class": ["x", "y"] * 4,
            "score": [0.9, 0.2, 0.6, 0.7, 0.3, 0.8, 0.55, 0.4],
            "truth": [True, False, False, True, False, True, True, False],
        }
    )
    two = pl.concat([df.with_columns(model=pl.lit(m), fold=pl.col("id") % 2) for m in "ab"])
    two = two.with_columns(
        pl.when(pl.col("model") == "b").then(pl.col("score") ** 2).otherwise("score")
    )

    def table() -> pl.DataFrame:
        return pl.DataFrame({"class": ["x", "y"], "threshold": [0.5, 0.5]})

    given, weights = table(), {"x": 1.0, "y": 1.0}
    calls = {
        "bootstrap": lambda frame, t, w: pl_metrics.bootstrap(
            frame, "f1", threshold=t, n_resamples=40
        ),
        "paired": lambda frame, t, w: pl_metrics.paired(
            frame, "f1", "a", "b", threshold=t, n_resamples=40
        ),
        "compare": lambda frame, t, w: pl_metrics.compare(
            frame, ["f1", "weighted_log_loss"], class_weights=w, threshold=t
        ),
    }
    for name, call in calls.items():
        frame = df if name == "bootstrap" else two
        lazy = call(frame.lazy(), given, weights)
        lazy_table = call(frame.lazy(), table().lazy(), weights)
        given[0, "threshold"] = 0.95
        weights["y"] = 100.0
        want = call(frame, table(), {"x": 1.0, "y": 1.0})
        assert_frame_equal(lazy.collect(), want)
        if name == "bootstrap":  # (the F1 of thresholds 0.5, as scikit-learn's f1_score)
            truth = df["truth"].to_numpy().reshape(4, 2)
            predicted = df["score"].to_numpy().reshape(4, 2) >= 0.5
            sk = f1_score(truth, predicted, average="macro", zero_division=0)
            assert want["estimate"].item() == pytest.approx(sk, rel=1e-12)
        assert_frame_equal(lazy_table.collect(), want)
        given, weights = table(), {"x": 1.0, "y": 1.0}


def test_other_column_types_and_ragged_ids() -> None:
    """String ids, a categorical class, ids missing classes (ragged="allow")."""
    df = multilabel(seed=9).with_columns(
        pl.format("id{}", pl.col("id")).alias("id"), pl.col("class").cast(pl.Categorical)
    )
    # Group "d" has two ids, one without class "z": some resamples draw no row of "z" there.
    ragged = df.filter(~((pl.col("class") == "z") & pl.col("id").is_in(["id3", "id40"])))
    for metrics in (["lrap", "lwlrap"], ["f1", "recall"], ["roc_auc", "average_precision"]):
        assert_same(ragged, metrics, ["g"], weight_col="w", ragged="allow")
    assert_same(ragged, ["f1"], ["g"], average=None, ragged="allow")
    assert_same(ragged, ["roc_auc"], ["g"], average=None, ragged="allow")


def test_the_resamples_of_text_ids_do_not_depend_on_their_type() -> None:
    """The same ids as strings, categoricals or an enum draw the same resamples.

    (A CSV gives strings where a pandas-written parquet gives categoricals.)
    """
    df = multilabel(seed=4).with_columns(pl.format("id{}", pl.col("id")).alias("id"))
    names = df["id"].unique().sort(descending=True)  # an enum's order is not the text's
    for kind in ("bootstrap", "paired"):
        results = []
        for dtype in (pl.String, pl.Categorical, pl.Enum(names)):
            typed = df.with_columns(pl.col("id").cast(dtype))
            if kind == "bootstrap":
                results.append(pl_metrics.bootstrap(typed, ["lrap", "f1"], by="g", seed=3))
            else:
                pair = typed.filter(pl.col("g").is_in(["a", "b"]))
                results.append(pl_metrics.paired(pair, "lrap", "a", "b", model_col="g", seed=3))
        for other in results[1:]:
            assert_frame_equal(other, results[0], rel_tol=1e-12)


def test_columns_named_by_the_empty_string() -> None:
    # A pandas CSV's unnamed index is a column named "": polars named it column_0 in the
    # resample tables, and bootstrap and paired raised ColumnNotFoundError.
    df = multilabel(seed=5)
    renamed = df.rename({"id": "", "g": " "})
    for metrics in (["lrap"], ["brier_score"], ["average_precision", "f1"]):
        want = pl_metrics.bootstrap(df, metrics, by="g", n_resamples=30)
        got = pl_metrics.bootstrap(renamed, metrics, by=" ", id_col="", n_resamples=30)
        assert_frame_equal(got.rename({" ": "g"}), want)
    pair = df.filter(pl.col("g").is_in(["a", "b"]))
    want = pl_metrics.paired(pair, "lrap", "a", "b", model_col="g", n_resamples=30)
    blank = pair.rename({"id": "", "g": " "}).with_columns(k=pl.lit(1))
    got = pl_metrics.paired(
        blank, "lrap", "a", "b", model_col=" ", by="k", id_col="", n_resamples=30
    )
    assert_frame_equal(got.drop("k"), want)


# (Its groups are not models of the same rows, which compare warns of; beside the point here.)
@pytest.mark.filterwarnings("ignore:compare.*other:UserWarning")
def test_repeated_calls_are_equal_to_the_bit() -> None:
    # The resamples' rows come in no fixed order; the statistics over them must not care.
    df = multilabel(seed=8).with_columns(fold=pl.col("id") % 3)
    calls = [
        lambda: pl_metrics.bootstrap(df, ["lrap", "f1"], by="g", n_resamples=60, seed=SEED),
        lambda: pl_metrics.bootstrap(
            df, "roc_auc", by="g", n_resamples=60, seed=SEED, undefined="skip"
        ),
        lambda: pl_metrics.compare(df, ["lrap", "f1"], model_col="g"),
    ]
    for call in calls:
        first = call()
        for _ in range(3):
            assert_frame_equal(call(), first, check_exact=True)


@pytest.mark.parametrize(
    ("metric", "options"),
    [
        ("lrap", {}),  # resampled from per-id sums
        ("f1", {}),  # from confusion cells
        ("recall", {"average": "micro"}),
        ("f1", {"average": "samples"}),
        ("average_precision", {}),  # from curves
        ("brier_score", {}),  # from the cells' weighted losses
        ("roc_auc", {"max_fpr": 0.5}),  # by report on the weighted rows
    ],
)
@pytest.mark.parametrize("block", [None, 64])
def test_resamples_drawing_only_ids_of_weight_0_are_undefined(
    metric: str, options: dict[str, Any], block: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As report refuses a group whose weights are all zero: such a resample is left out.

    In small blocks of resamples too (64: a block's resamples were numbered as the
    first block's)."""
    if block is not None:
        monkeypatch.setattr(_compare, "_BLOCK", block)
    rng = np.random.default_rng(11)
    n = 5
    df = pl.DataFrame(
        {
            "g": np.repeat(["a", "b"], 2 * n),
            "id": np.tile(np.repeat(np.arange(n), 2), 2),
            "class": np.tile(["x", "y"], 2 * n),
            "score": rng.random(4 * n).round(2),
            "truth": np.tile([True, False, False, True], n),
            "w": np.tile(np.repeat([1.0, 0.0, 0.0, 2.0, 0.0], 2), 2),
        }
    )
    values = reference(df, [metric], ["g"], weight_col="w", **options)
    expected = (
        values.filter(pl.col("value").is_not_nan())
        .group_by("g")
        .agg(
            pl.col("value").quantile(0.025, "linear").alias("lower"),
            pl.col("value").quantile(0.975, "linear").alias("upper"),
            pl.col("value").std().alias("std"),
        )
    )
    ci = pl_metrics.bootstrap(
        df, metric, by="g", n_resamples=N_RESAMPLES, seed=SEED, weight_col="w", **options
    )
    assert_frame_equal(ci.select("g", "lower", "upper", "std"), expected.sort("g"), rel_tol=1e-9)


def test_a_group_no_resample_draws_keeps_its_row() -> None:
    """One id in group 'tiny', 2 resamples, seed 0: neither draws it; its estimate stays."""
    big = pl.DataFrame(
        {
            "id": np.repeat(np.arange(10), 2),
            "class": ["a", "b"] * 10,
            "score": [0.3, 0.6] * 10,
            "truth": [True, False, False, True] * 5,
            "g": "big",
        }
    )
    tiny = pl.DataFrame(
        {"id": [99, 99], "class": ["a", "b"], "score": [0.3, 0.6], "truth": [True, False]}
    ).with_columns(g=pl.lit("tiny"))
    both = pl.concat([big, tiny])
    out = pl_metrics.bootstrap(both, "lrap", by="g", n_resamples=2, seed=0)
    assert out["g"].to_list() == ["big", "tiny"]
    assert out["estimate"].to_list() == pl_metrics.lrap(both, by="g")["lrap"].to_list()
    assert np.isnan(out["lower"][1])
    assert not np.isnan(out["lower"][0])
    two = pl.concat([both.with_columns(model=pl.lit(m)) for m in ("a", "b")])
    paired = pl_metrics.paired(two, "lrap", "a", "b", by="g", n_resamples=2, seed=0)
    assert paired["g"].to_list() == ["big", "tiny"]
    assert np.isnan(paired.row(1, named=True)["p_value"])


@pytest.mark.parametrize("metric", ["brier_score", "binary_log_loss"])
def test_resamples_whose_negative_weights_sum_to_zero_are_left_out(metric: str) -> None:
    """The table's weights (1, -1, 2) are accepted; a resample drawing ids 1 and 2 once
    each sums to 0: undefined, left out, not the whole bootstrap refused."""
    df = pl.DataFrame(
        {
            "id": [1, 1, 2, 2, 3, 3],
            "class": ["a", "b"] * 3,
            "score": [0.8, 0.2, 0.3, 0.7, 0.6, 0.4],
            "truth": [True, False, False, True, True, False],
            "w": [1.0, 1.0, -1.0, -1.0, 2.0, 2.0],
        }
    )
    out = pl_metrics.bootstrap(df, metric, weight_col="w", n_resamples=200, seed=1)
    assert out["estimate"].item() == pl_metrics.report(df, metric, weight_col="w").item()
    assert np.isfinite(out["lower"].item())
    assert np.isfinite(out["upper"].item())


def test_a_class_left_out_is_null_in_every_column_and_int128_scores_resample() -> None:
    df = pl.DataFrame(
        {"id": [0, 0, 1, 1, 2, 2], "class": ["x", "y"] * 3, "score": [9, 1, 2, 8, 6, 4]}
    ).with_columns(truth=pl.Series([1, 0, 0, 0, 1, 0]) == 1)
    options: dict[str, Any] = {"average": None, "undefined": "skip", "n_resamples": 20}
    out = pl_metrics.bootstrap(df, "roc_auc", **options)
    assert out.filter(pl.col("class") == "y").select("estimate", "lower", "upper", "std").row(
        0
    ) == (None, None, None, None)
    both = pl.concat([df.with_columns(model=pl.lit(m)) for m in ("a", "b")])
    paired = pl_metrics.paired(
        both, "roc_auc", model_col="model", model_a="a", model_b="b", **options
    )
    stats = ["difference", "lower", "upper", "p_value"]
    assert paired.filter(pl.col("class") == "y").select(stats).row(0) == (None,) * 4
    assert paired.select("metric", "model_a", "model_b").unique().rows() == [("roc_auc", "a", "b")]
    # numpy has no 128-bit integers: such scores went through the other paths only.
    wide = df.with_columns(pl.col("score").cast(pl.Int128))
    assert_frame_equal(pl_metrics.bootstrap(wide, "roc_auc", **options), out)


def test_a_block_of_one_resample_drawing_no_id(monkeypatch: pytest.MonkeyPatch) -> None:
    # Large tables take one resample per report; one that drew no id raised "the table is
    # empty" (roc_auc with max_fpr, and an infinite loss, go that way).
    monkeypatch.setattr(_compare, "_BLOCK", 16)
    df = pl.DataFrame(
        {
            "id": [1, 1, 2, 2],
            "class": ["a", "b"] * 2,
            "score": [0.8, 0.3, 0.4, 0.6],
            "truth": [True, False, False, True],
        }
    )
    out = pl_metrics.bootstrap(df, "roc_auc", max_fpr=0.5, n_resamples=30, seed=2)
    assert out["estimate"].item() == pl_metrics.roc_auc(df, max_fpr=0.5).item()


def _by_rows(monkeypatch: pytest.MonkeyPatch, *args: Any, **options: Any) -> pl.DataFrame:
    """bootstrap by the generic path (report on each resample's weighted rows)."""
    with monkeypatch.context() as patched:
        patched.setattr(_compare, "_path", lambda metric, opts: "rows")
        return pl_metrics.bootstrap(*args, **options)


@pytest.mark.parametrize("metric", ["log_loss", "top_k_accuracy", "ndcg", "hamming_loss"])
def test_resamples_whose_weights_cancel_are_left_out_on_the_fast_paths(
    metric: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The matrix products divided by a drawn weight sum of 0: +-inf in the interval.
    df = pl.DataFrame(
        {
            "id": np.repeat([1, 2, 3], 3),
            "class": ["a", "b", "c"] * 3,
            "score": [0.2, 0.5, 0.3, 0.3, 0.6, 0.1, 0.1, 0.3, 0.6],
            "truth": [True, False, False, False, True, False, False, False, True],
            "w": np.repeat([1.0, -1.0, 2.0], 3),
        }
    )
    drawn = _draws([1, 2, 3], seed=1, n_resamples=200)  # ids 1 and 2 as often, id 3 not
    assert ((drawn[1] == drawn[2]) & (drawn[1] > 0) & (drawn[3] == 0)).any()
    got = pl_metrics.bootstrap(df, metric, weight_col="w", n_resamples=200, seed=1)
    assert np.isfinite(got.select("lower", "upper", "std").row(0)).all()
    want = _by_rows(monkeypatch, df, metric, weight_col="w", n_resamples=200, seed=1)
    assert_frame_equal(got, want, rel_tol=1e-9)


def test_infinite_per_id_losses_and_blocks_of_weightless_draws(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # log_loss with eps=0: an id's infinite loss times a weight of 0 was NaN in the products.
    df = pl.DataFrame(
        {
            "id": np.repeat([1, 2, 3, 4], 2),
            "class": ["a", "b"] * 4,
            "score": [0.0, 1.0, 0.7, 0.3, 0.4, 0.6, 0.9, 0.1],
            "truth": [True, False, True, False, False, True, True, False],
        }
    )
    got = pl_metrics.bootstrap(df, "log_loss", eps=0.0, n_resamples=200, seed=0)
    want = _by_rows(monkeypatch, df, "log_loss", eps=0.0, n_resamples=200, seed=0)
    assert_frame_equal(got, want)
    assert np.isfinite(got["lower"].item())
    # A block whose resamples draw only ids of weight 0 raised "the table is empty".
    weighted = df.with_columns(w=pl.when(pl.col("id") == 2).then(0.0).otherwise(1.0))
    for seed in range(20):
        out = pl_metrics.bootstrap(
            weighted, "roc_auc", weight_col="w", max_fpr=0.5, n_resamples=2, seed=seed
        )
        assert out.height == 1


def test_paired_tells_an_infinite_difference() -> None:
    # An infinite loss beside a finite one is no rounding tie: its difference was 0, p = 1.
    df = pl.DataFrame(
        {
            "model": ["a"] * 6 + ["b"] * 6,
            "id": [1, 1, 2, 2, 3, 3] * 2,
            "class": [0, 1] * 6,
            "score": [0.9, 0.1, 0.2, 0.8, 0.6, 0.4, 0.0, 1.0, 0.3, 0.7, 0.5, 0.5],
            "truth": [True, False, False, True, True, False] * 2,
        }
    )
    for metric in ("log_loss", "binary_log_loss"):
        got = pl_metrics.paired(df, metric, "a", "b", eps=0.0, n_resamples=200)
        difference, lower, upper, p_value = got.select(
            "difference", "lower", "upper", "p_value"
        ).row(0)
        assert (difference, upper, p_value) == (math.inf, math.inf, 0.0)
        assert 0 < lower < math.inf
        flipped = pl_metrics.paired(df, metric, "b", "a", eps=0.0, n_resamples=200)
        assert flipped["difference"].item() == -math.inf


def test_a_nan_estimate_has_no_interval() -> None:
    """A NaN estimate (or difference) comes with NaN bounds, deviation and p-value.

    The resamples defined there are those that break what made it NaN: weights cancelling
    (+1 and -1 ids), or, of two infinite losses on one id, those that leave the id out.
    Their interval, beside the NaN, read as a confident result of another quantity.
    """
    rng = np.random.default_rng(211)
    y = rng.random((100, 3)) < 0.35
    df = pl_metrics.from_numpy(y, y * 0.3 + rng.random((100, 3))).with_columns(
        w=pl.when(pl.col("id") % 2 == 0).then(1.0).otherwise(-1.0)
    )
    ci = pl_metrics.bootstrap(df, "lrap", weight_col="w", n_resamples=100, seed=1)
    assert all(math.isnan(v) for v in ci.select("estimate", "lower", "upper", "std").row(0))
    # Both models give id 0's true class a probability of 0: inf - inf in every resample
    # that draws it; the others (about 37%) gave an interval and p = 0.
    p = np.where(y, 0.3, 0.0) + rng.random((100, 3))
    p[0] = np.where(y[0], 0.0, 0.5)
    a = pl_metrics.from_numpy(y, p / p.sum(axis=1, keepdims=True), class_names=["x", "y", "z"])
    b = a.with_columns(pl.col("score").pow(0.5))
    two = pl.concat([a.with_columns(model=pl.lit("a")), b.with_columns(model=pl.lit("b"))])
    for pair in (two, pl.concat([two.filter(model="a"), a.with_columns(model=pl.lit("b"))])):
        got = pl_metrics.paired(pair, "binary_log_loss", "a", "b", eps=0.0, n_resamples=200)
        assert all(
            math.isnan(v) for v in got.select("difference", "lower", "upper", "p_value").row(0)
        )
    # Without the infinite id: an interval and a p-value, as before.
    finite = pl_metrics.paired(two.filter(pl.col("id") != 0), "binary_log_loss", "a", "b")
    assert not any(math.isnan(v) for v in finite.select("lower", "upper", "p_value").row(0))


def test_bootstrap_and_paired_tell_repeated_rows_which_columns_to_group_by(kind: str) -> None:
    """They read only the columns they use; the hint names the table's other key columns."""
    rng = np.random.default_rng(8)
    one = pl_metrics.from_numpy(rng.random((20, 3)) < 0.4, rng.random((20, 3)))
    two = pl.concat(
        [one.with_columns(model=pl.lit(m), run=pl.lit(r)) for m in "ab" for r in (1, 2)]
    )
    hint = r"; the table also has column run: pass by=\['model', 'run'\] if each \(model, run\)"
    with pytest.raises(pl_metrics.MetricsInputError, match=hint):
        pl_metrics.report(two, "lrap", by="model")  # report's words
    with pytest.raises(pl_metrics.MetricsInputError, match=hint):
        run(two, kind, pl_metrics.bootstrap, metrics="lrap", by="model", n_resamples=10)
    # paired's model column is its model_col, no `by`: the hint's by is the rest.
    paired = functools.partial(pl_metrics.paired, metric="lrap", model_a="a", model_b="b")
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"; the table has column run: pass by=\['run'\]"
    ):
        run(two, kind, paired, n_resamples=10)
    assert run(two.filter(pl.col("run") == 1), kind, paired, by=None, n_resamples=10).height == 1
    got = run(two, kind, paired, by="run", n_resamples=10)  # as the hint says
    assert got["run"].to_list() == [1, 2]
    # A threshold table keyed by model reads the model column: its own hint (model only)
    # was told beside the table's, as another.
    best = pl_metrics.best_threshold(two.filter(pl.col("run") == 1), "f1", by="model")
    with pytest.raises(pl_metrics.MetricsInputError) as caught:
        run(two, kind, pl_metrics.bootstrap, metrics="f1", threshold=best, n_resamples=10)
    assert str(caught.value).count("pass by=") == 1
    assert "the table has columns model, run: pass by=['model', 'run']" in str(caught.value)


def test_too_few_resamples_for_the_confidence_are_warned_of() -> None:
    """5 resamples gave a "95% interval" (little more than their range) without a word."""
    df = pl.DataFrame(
        {"id": [0, 0, 1, 1, 2, 2], "class": ["a", "b"] * 3, "score": [0.3, 0.6, 0.8, 0.1, 0.5, 0.4]}
    ).with_columns(truth=pl.Series([True, False] * 3))
    message = (
        r"^a 95% interval of 5 resamples is rough: .* 40 or more are needed \(1,000 is usual\)$"
    )
    with pytest.warns(UserWarning, match=message):
        pl_metrics.bootstrap(df, "lrap", n_resamples=5)
    with pytest.warns(UserWarning, match=r"^a 99\.9% interval of 1,000 resamples .* 2,000 or more"):
        pl_metrics.bootstrap(df, "lrap", confidence=0.999)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pl_metrics.bootstrap(df, "lrap", n_resamples=40)
        pl_metrics.bootstrap(df, "lrap", n_resamples=20, confidence=0.9)


def test_repeated_rows_without_other_keys_are_told_as_report_tells_them() -> None:
    """No other key column to name: bootstrap's message is report's, no empty hint."""
    rng = np.random.default_rng(8)
    one = pl_metrics.from_numpy(rng.random((20, 3)) < 0.4, rng.random((20, 3)))
    twice = pl.concat([one, one])
    with pytest.raises(pl_metrics.MetricsInputError) as reported:
        pl_metrics.report(twice, "lrap")
    with pytest.raises(pl_metrics.MetricsInputError) as bootstrapped:
        pl_metrics.bootstrap(twice, "lrap", n_resamples=10)
    assert str(bootstrapped.value) == str(reported.value)
    assert "; ;" not in str(bootstrapped.value)


def test_int128_scores_with_ties_resample_as_their_order() -> None:
    # numpy has no 128-bit integers: the curves rank them, and tied scores must stay tied
    # (an ordinal rank broke the ties, and moved ROC AUC and average precision).
    df = multilabel(seed=4).with_columns((pl.col("score") * 4).cast(pl.Int128))
    assert_same(df, ["roc_auc", "average_precision"], ["g"], weight_col="w", average=None)


def test_curves_of_weights_far_from_1() -> None:
    """ROC AUC multiplies the two sides' weights: 1e-170 squared underflows, 1e160 overflows
    (README: such weights give the metrics of the weights divided by a common factor)."""
    df = multilabel(seed=4)
    for scale in (1e-170, 1e160):
        scaled = df.with_columns(pl.col("w") * scale)
        assert_same(scaled, ["roc_auc", "average_precision"], ["g"], weight_col="w")


def test_average_precision_of_negative_weights_resamples_as_report() -> None:
    """Negative weights: resamples whose positives weigh below 0, or whose sum of weighted
    precisions does, are clipped at 0 as report (and scikit-learn) clips them."""
    rng = np.random.default_rng(0)
    n = 6
    df = pl.DataFrame(
        {
            "id": np.repeat(np.arange(n), 2),
            "class": ["x", "y"] * n,
            "score": rng.random(2 * n).round(1),
            "truth": rng.random(2 * n) < 0.5,
            "w": np.repeat(rng.choice([-2.0, -1.0, 1.0, 3.0], n), 2),
        }
    )
    assert_same(df, ["average_precision"], [], weight_col="w", average=None)
    assert_same(df, ["average_precision"], [], weight_col="w")


def test_a_class_of_weightless_ids_alone_keeps_its_row() -> None:
    """Class "z" is scored only on ids of weight 0 (ragged="allow"): a resample drawing
    some of them has rows of that class, whose average precision is report's 0 (no
    positive weight), in the macro average too, not a class left out."""
    rows = []
    rng = np.random.default_rng(1)
    for i in range(8):
        for c in ["x", "y", "z"] if i < 3 else ["x", "y"]:
            rows.append(
                {
                    "id": i,
                    "class": c,
                    "score": round(float(rng.random()), 1),
                    "truth": bool(rng.random() < 0.5),
                    "w": 0.0 if i < 3 else float(1 + i % 2),
                }
            )
    df = pl.DataFrame(rows)
    for average in (None, "macro"):
        for metric in ("average_precision", "roc_auc"):
            assert_same(df, [metric], [], weight_col="w", average=average, ragged="allow")


@pytest.mark.parametrize("metric", ["log_loss", "hamming_loss"])
def test_resamples_whose_weights_cancel_to_rounding_are_left_out(
    metric: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Weights 0.1, 0.2 and -0.3 (beside an id of weight 1) sum to 5.6e-17, not 0: within
    # 1e-12 of their magnitudes, a resample drawing each once (and not the fourth id) is
    # undefined, as report's check has it, not a mean over 5.6e-17.
    df = pl.DataFrame(
        {
            "id": np.repeat([1, 2, 3, 4], 3),
            "class": ["a", "b", "c"] * 4,
            "score": [0.2, 0.5, 0.3, 0.3, 0.6, 0.1, 0.1, 0.3, 0.6, 0.5, 0.4, 0.1],
            "truth": np.tile([True, False, False, False, True, False, False, False, True], 2)[:12],
            "w": np.repeat([0.1, 0.2, -0.3, 1.0], 3),
        }
    )
    drawn = _draws([1, 2, 3, 4], seed=1, n_resamples=200)
    assert ((drawn[1] == drawn[2]) & (drawn[2] == drawn[3]) & (drawn[4] == 0)).any()
    got = pl_metrics.bootstrap(df, metric, weight_col="w", n_resamples=200, seed=1)
    assert np.isfinite(got.select("lower", "upper", "std").row(0)).all()
    want = _by_rows(monkeypatch, df, metric, weight_col="w", n_resamples=200, seed=1)
    assert_frame_equal(got, want, rel_tol=1e-9)


def test_weights_cancelling_over_ids_of_other_row_counts_are_told_per_id() -> None:
    """log_loss with eps=0 and an infinite loss runs report on each resample's rows; ids
    1 and 2 (weights 1 and -1, with 2 and 3 rows: ragged) cancel, as ids, in a resample
    drawing them alone: left out, as on the other paths. Their rows' weights sum to -1:
    counted per row, the resample went on to report, which refused it."""
    df = pl.DataFrame(
        {
            "id": [1, 1, 2, 2, 2, 3, 3, 4, 4, 4],
            "class": ["a", "b", "a", "b", "c", "a", "b", "a", "b", "c"],
            "score": [0.0, 1.0, 0.3, 0.5, 0.2, 0.6, 0.4, 0.2, 0.3, 0.5],
            "truth": [True, False, False, True, False, True, False, False, False, True],
            "w": [1.0, 1.0, -1.0, -1.0, -1.0, 2.0, 2.0, 1.0, 1.0, 1.0],
        }
    )
    options: dict[str, Any] = {"weight_col": "w", "eps": 0.0, "ragged": "allow"}
    drawn = _draws([1, 2, 3, 4], seed=1, n_resamples=200)  # ids 1 and 2 alone, as often
    assert ((drawn[1] == drawn[2]) & (drawn[1] > 0) & (drawn[3] == 0) & (drawn[4] == 0)).any()
    out = pl_metrics.bootstrap(df, "log_loss", n_resamples=200, seed=1, **options)
    assert out["estimate"].item() == pl_metrics.report(df, "log_loss", **options).item()


def _ragged_cancelling() -> pl.DataFrame:
    """Ids 1, 2 and 4 alone hold class "c", weighing 0.3, -(0.1 + 0.2) and 2: a resample
    drawing ids 1 and 2 as often as each other, and not id 4, weighs "c" 5.6e-17 (the
    group, and the class over the whole table, weigh more). Id 1's positive "c" scores 0:
    an infinite loss with eps=0."""
    rng = np.random.default_rng(5)
    rows = []
    for i, w in enumerate([1.0, 0.3, -(0.1 + 0.2), 0.5, 2.0, 1.5]):
        for k, c in enumerate(["a", "b", "c"] if i in (1, 2, 4) else ["a", "b"]):
            score, truth = float(rng.choice([0.2, 0.4, 0.6, 0.8])), (i + k) % 2 == 0
            if (i, c) == (1, "c"):
                score, truth = 0.0, True
            rows.append({"id": i, "class": c, "score": score, "truth": truth, "w": w})
    return pl.DataFrame(rows)


@pytest.mark.parametrize("average", ["macro", None])
@pytest.mark.parametrize(
    ("metric", "eps"), [("brier_score", None), ("binary_log_loss", None), ("binary_log_loss", 0.0)]
)
def test_resamples_where_a_class_weights_cancel_are_left_out(
    metric: str, eps: float | None, average: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ragged table (`_ragged_cancelling`): report refuses a resample whose class "c"
    weighs 5.6e-17 ("classes have weights that sum to zero"). Such a class is left out of
    its resample (with an average, the resample), as a naive loop of report leaves out what
    it refuses: the matrix products divided by 5.6e-17, and eps=0's path (report on each
    resample's rows) raised."""
    df, n_resamples = _ragged_cancelling(), 200
    options: dict[str, Any] = {"weight_col": "w", "ragged": "allow", "average": average}
    if eps is not None:
        options["eps"] = eps
    rows_path = []
    by_query = _compare._by_query
    monkeypatch.setattr(_compare, "_by_query", lambda *args: rows_path.append(1) or by_query(*args))
    spec = resolve(df, [metric], **options)
    got = _compare._resampled(df, spec, n_resamples, SEED).rename(
        {_compare._R: "r", _compare._VALUE: "value"}
    )
    assert bool(rows_path) == (eps == 0.0)  # (an infinite loss: report on the rows)
    ids = df["id"].unique().to_list()
    weights = _draws(ids, seed=SEED, n_resamples=n_resamples)
    # (The case drawn: ids 1 and 2 as often as each other, and not id 4.)
    assert ((weights[1] == weights[2]) & (weights[1] > 0) & (weights[4] == 0)).sum() >= 5
    expected = []
    for r in range(n_resamples):
        draw = [float(weights[i][r]) for i in ids]
        drawn = pl.DataFrame({"id": ids, "bw": draw}).filter(pl.col("bw") > 0)
        rows = df.join(drawn, on="id").with_columns(pl.col("bw") * pl.col("w"))
        # Per class, each alone, without an average: one class undefined leaves the others.
        for part in rows.partition_by("class") if average is None else [rows]:
            try:
                out = pl_metrics.report(part, metric, **{**options, "weight_col": "bw"})
            except pl_metrics.MetricsInputError:  # weights that sum to zero: undefined
                continue
            expected += [(r, *row) for row in out.rows()]
    keys = ["r", "class"] if average is None else ["r"]
    defined = got.filter(pl.col("value").is_not_nan()).sort(keys)
    want = pl.DataFrame(expected, schema=[*keys, "value"], orient="row").sort(keys)
    assert_frame_equal(defined.select(*keys, "value"), want, check_dtypes=False, rel_tol=1e-9)
    # The whole table's class "c" weighs 2: bootstrap gives its interval of the resamples
    # left, as the generic path (report on each resample's rows) does.
    want = _by_rows(monkeypatch, df, metric, n_resamples=100, seed=1, **options)
    assert_frame_equal(pl_metrics.bootstrap(df, metric, n_resamples=100, seed=1, **options), want)


def test_lazy_calls_keep_the_list_of_groups_they_were_given() -> None:
    """A list of ``by`` columns changed in place after a lazy call is read as it was at the
    call, as a threshold table and class weights are."""
    two = multilabel(seed=4)
    by = ["g"]
    lazy = pl_metrics.bootstrap(two.lazy(), "f1", by=by, n_resamples=20, seed=1)
    table = pl.DataFrame({"class": ["w", "x", "y", "z"], "threshold": [0.3, 0.5, 0.6, 0.4]})
    lazy_table = pl_metrics.report(two.lazy(), "f1", by=by, threshold=table.lazy())
    by.append("id")
    want = pl_metrics.bootstrap(two, "f1", by="g", n_resamples=20, seed=1)
    assert_frame_equal(lazy.collect(), want)
    assert_frame_equal(lazy_table.collect(), pl_metrics.report(two, "f1", by="g", threshold=table))


def test_a_lazy_call_keeps_a_pandas_threshold_table_as_given() -> None:
    """A pandas table of thresholds, read by polars over its buffers, changed in place after
    a lazy call: the call's thresholds are those it was given (the F1 of an eager call)."""
    pd = pytest.importorskip("pandas")
    df = multilabel(seed=4).filter(pl.col("g") == "c")

    def table() -> Any:
        return pd.DataFrame({"class": ["w", "x", "y", "z"], "threshold": [0.3, 0.5, 0.6, 0.4]})

    given = table()
    lazy = pl_metrics.bootstrap(df.lazy(), "f1", threshold=given, n_resamples=40, seed=1)
    given.loc[0, "threshold"] = 0.99
    want = pl_metrics.bootstrap(df, "f1", threshold=table(), n_resamples=40, seed=1)
    assert_frame_equal(lazy.collect(), want)
