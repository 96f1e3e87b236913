"""Every registered metric, with every option it takes, agrees with itself on every path.

Like scikit-learn's ``test_common.py``: the cases come from the registry, so a new metric is
tested here without a line written for it. Each case is computed eagerly (the reference),
then lazily with both engines, through `report`, through merged states of id-disjoint parts
(built from DataFrames, LazyFrames and both), through `score` on parquet (one chunk and
several), CSV, IPC and a hive-partitioned folder, through the command line's CSV output, and
on Dask; all must agree to 1e-12. Then the invariances (row order, class names, id and class
types, unit weights) and the bad inputs, on every path.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import pl_metrics
import pl_metrics.dask
from pl_metrics._registry import METRICS, MetricInfo
from pl_metrics.cli import main

CLASSES = ["a", "b", "c", "d"]
TOL = {"rel_tol": 1e-12, "abs_tol": 1e-12}


def make_table(seed: int = 0, n_ids: int = 16) -> pl.DataFrame:
    """Two models of the same ids, labels and per-id weights; one true class per id (each
    class true for some ids, false for others), scores on five levels (ties), and a 0/1
    prediction column."""
    rng = np.random.default_rng(seed)
    frames = []
    true = np.arange(n_ids) % len(CLASSES)
    rng.shuffle(true)
    weights = np.repeat(rng.choice([0.5, 1.0, 2.0, 3.0], n_ids), len(CLASSES))
    for model in ("m1", "m2"):
        score = (np.round(rng.random((n_ids, len(CLASSES))) * 4) + 1) / 5
        frames.append(
            pl.DataFrame(
                {
                    "model": model,
                    "id": np.repeat(np.arange(n_ids), len(CLASSES)),
                    "class": CLASSES * n_ids,
                    "score": score.reshape(-1),
                    "truth": (np.arange(len(CLASSES))[None, :] == true[:, None]).reshape(-1),
                    "w": weights,
                }
            )
        )
    df = pl.concat(frames).with_columns(pred=pl.col("score") >= 0.6, fold=pl.col("id") % 2)
    return df.sample(fraction=1.0, shuffle=True, seed=seed)


TABLE = make_table()


def option_sets(entry: MetricInfo) -> list[dict[str, Any]]:
    """The default options, then each option the metric takes changed on its own."""
    sets: list[dict[str, Any]] = [{}, {"validate": False}]
    if entry.weights:
        sets.append({"weight_col": "w"})
    for average in entry.averages:
        if average != "macro":
            sets.append({"average": average})
            if entry.weights:
                sets.append({"average": average, "weight_col": "w"})
    extra = {
        "threshold": {"threshold": 0.3},
        "pred_col": {"pred_col": "pred"},
        "zero_division": {"zero_division": math.nan}
        | ({"average": None} if "average" in entry.options else {}),
        "per_class": {"per_class": True},
        "beta": {"beta": 2.0} | ({"metric": "fbeta"} if "metric" in entry.options else {}),
        "eps": {"eps": 1e-3},
        "class_weights": {"class_weights": {"a": 1.0, "b": 2.0, "c": 1.0, "d": 0.5}},
        "k": {"k": 2},
        "padding": {"padding": 0},
        "undefined": {"undefined": "skip", "average": None},
        "n_bins": {"n_bins": 4},
        "strategy": {"strategy": "quantile"},
        "max_points": {"max_points": 5},
        "metric": {"metric": "precision"},
        "thresholds": {"thresholds": [0.2, 0.6]},
        "fold_col": {"fold_col": "fold"},
        "max_fpr": {"max_fpr": 0.4},
        "per_id": {"per_id": True} | ({"average": "samples"} if "average" in entry.options else {}),
    }
    sets += [options for name, options in extra.items() if name in entry.options]
    if "max_fpr" in entry.options and "samples" in entry.averages:
        sets.append({"max_fpr": 0.4, "average": "samples"})  # each id's own partial curve
    return sets


CASES = [
    pytest.param(name, options, id=f"{name}-{'-'.join(f'{k}={v}' for k, v in options.items())}")
    for name, entry in METRICS.items()
    for options in option_sets(entry)
]


def by_model(metric: str) -> Any:
    return pl_metrics._registry.function(metric)


def sort(df: pl.DataFrame) -> pl.DataFrame:
    keys = [c for c in ("model", "class") if c in df.columns]
    return df.sort(keys, maintain_order=True) if keys else df


def in_key_order(got: pl.DataFrame) -> None:
    """Rows come sorted by their keys, on every path (README)."""
    keys = [c for c in ("model", "class", "id") if c in got.columns]
    assert_frame_equal(got, got.sort(keys, nulls_last=True, maintain_order=True))


def same(got: pl.DataFrame, want: pl.DataFrame, *, ordered: bool = True) -> None:
    assert got.columns == want.columns
    if ordered:
        in_key_order(got)
    got = got.with_columns(pl.col(c).cast(pl.String) for c in ("class",) if c in got.columns)
    want = want.with_columns(pl.col(c).cast(pl.String) for c in ("class",) if c in want.columns)
    assert_frame_equal(sort(got), sort(want), check_dtypes=False, **TOL)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("conformance")
    ordered = TABLE.sort("id", "model")
    paths = {
        "parquet": root / "dump.parquet",
        "csv": root / "dump.csv",
        "ipc": root / "dump.arrow",
        "hive": root / "hive",
    }
    ordered.write_parquet(paths["parquet"], row_group_size=24)
    ordered.write_csv(paths["csv"])
    ordered.write_ipc(paths["ipc"])
    for (model,), part in ordered.group_by("model"):
        folder = paths["hive"] / f"model={model}"
        folder.mkdir(parents=True)
        part.drop("model").write_parquet(folder / "part.parquet")
    return paths


def cli_flags(options: dict[str, Any]) -> list[str] | None:
    """The command line's spelling of ``options`` (None: not on the command line)."""
    flags: list[str] = []
    for name, value in options.items():
        if name in ("class_weights", "metric", "thresholds", "fold_col"):
            return None
        if (name == "average" and value is None) or name == "per_class":
            flags.append("--per-class")
        elif name == "per_id":
            flags.append("--per-id")
        elif name == "undefined":
            flags.append("--skip-undefined")
        elif name == "validate":
            flags.append("--no-validate")
        else:
            flags += [f"--{name.replace('_', '-')}", str(value)]
    return list(dict.fromkeys(flags))


def parts_of(df: pl.DataFrame) -> Iterator[pl.DataFrame]:
    """Three id-disjoint parts (every id whole in one part)."""
    for r in range(3):
        yield df.filter(pl.col("id") % 3 == r)


@pytest.mark.parametrize(("metric", "options"), CASES)
def test_every_path_agrees(
    metric: str, options: dict[str, Any], files: dict[str, Path], tmp_path: Path
) -> None:
    function = by_model(metric)
    want = function(TABLE, by="model", **options)
    assert isinstance(want, pl.DataFrame)

    lazy = function(TABLE.lazy(), by="model", **options)
    assert isinstance(lazy, pl.LazyFrame)
    same(lazy.collect(), want)
    same(lazy.collect(engine="streaming"), want)
    same(getattr(TABLE.metrics, metric)(by="model", **options), want)
    same(pl_metrics.report(TABLE, [metric], by="model", **options), want)

    builders = {
        "eager": lambda part: pl_metrics.state(part, metric, by="model", **options).collect(),
        "lazy": lambda part: pl_metrics.state(part.lazy(), metric, by="model", **options),
    }
    for kinds in (["eager"] * 3, ["lazy"] * 3, ["eager", "lazy", "eager"]):
        states = [builders[k](p) for k, p in zip(kinds, parts_of(TABLE), strict=True)]
        same(pl_metrics.merge_states(states).finalize().collect(), want)

    for kind, n_chunks in (("parquet", 1), ("parquet", 3), ("csv", 2), ("ipc", 1), ("hive", 2)):
        got = pl_metrics.score(files[kind], metric, by="model", n_chunks=n_chunks, **options)
        same(got, want)

    flags = cli_flags(options)
    if flags is not None:
        out = tmp_path / "out.csv"
        argv = ["score", str(files["parquet"]), "-m", metric, "--by", "model", "--chunks", "2"]
        assert main([*argv, *flags, "--quiet", "-o", str(out)]) == 0
        same(pl.read_csv(out), want)


def test_every_metric_on_dask(files: dict[str, Path]) -> None:
    """Dask runs the same chunks as score(): id-disjoint, and class-disjoint where needed."""
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        for metric, entry in METRICS.items():
            options: dict[str, Any] = {"weight_col": "w"} if entry.weights else {}
            want = by_model(metric)(TABLE, by="model", **options)
            got = pl_metrics.dask.score(
                files["parquet"], metric, by="model", client=client, n_chunks=3, **options
            )
            same(got, want)
        bad = files["parquet"].parent / "bad.parquet"
        for spoil, message in BAD_INPUTS.values():
            spoil(TABLE).write_parquet(bad)
            with pytest.raises(pl_metrics.MetricsInputError, match=message):
                pl_metrics.dask.score(bad, "lrap", by="model", client=client, n_chunks=2)


def test_reports_of_all_metrics_and_every_pair_equal_each_alone() -> None:
    for per_class in (False, True):
        never = "never" if per_class else "always"
        names = [m for m, e in METRICS.items() if e.per_class != never and e.kind == "metric"]
        options: dict[str, Any] = {"per_class": True} if per_class else {}
        alone = {m: pl_metrics.report(TABLE, m, by="model", **options) for m in names}
        everything = pl_metrics.report(TABLE, names, by="model", **options)
        for want in alone.values():
            same(everything.select(want.columns), want)
        for first, second in itertools.combinations(names, 2):
            pair = pl_metrics.report(TABLE, [first, second], by="model", **options)
            for metric in (first, second):
                same(pair.select(alone[metric].columns), alone[metric])


RENAMED = {"a": "zz", "b": "a", "c": "q", "d": "b"}
NUMBERED = dict(zip(CLASSES, [7, 3, 5, 1], strict=True))
#: Classes of types polars casts to no text (the ROC AUC's and log losses' keys raised),
#: in the names' order (top-k breaks ties by it).
OF_OTHER_TYPES = {
    "duration classes": {c: timedelta(days=k + 1) for k, c in enumerate(CLASSES)},
    "byte classes": {c: bytes([0xFF, k]) for k, c in enumerate(CLASSES)},  # (no UTF-8)
}


def relabelled(df: pl.DataFrame, how: str) -> pl.DataFrame:
    if how == "shuffled":
        return df.sample(fraction=1.0, shuffle=True, seed=99)
    if how == "class by class":  # as an unpivot of a wide table writes them
        return df.sort("class", "model", "id")
    if how == "each model class by class":  # the ids in the same order in each class
        return df.sort("model", "class", pl.col("id").hash(seed=1))
    if how == "renamed":
        return df.with_columns(pl.col("class").replace(RENAMED))
    if how == "integer ids and classes":
        return df.with_columns(pl.col("class").replace_strict(NUMBERED))
    if how == "string ids":
        return df.with_columns(pl.format("clip-{}", pl.col("id")).alias("id"))
    if how == "categorical":
        return df.with_columns(
            pl.col("class").cast(pl.Categorical), pl.col("id").cast(pl.String).cast(pl.Categorical)
        )
    if how == "enum":
        return df.with_columns(pl.col("class").cast(pl.Enum(["d", "c", "b", "a"])))
    if how in OF_OTHER_TYPES:
        return df.with_columns(pl.col("class").replace_strict(OF_OTHER_TYPES[how]))
    raise AssertionError(how)


INVARIANCES = [
    "shuffled",
    "class by class",
    "each model class by class",
    "renamed",
    "integer ids and classes",
    "string ids",
    "categorical",
    "enum",
    *OF_OTHER_TYPES,
]


@pytest.mark.parametrize("how", INVARIANCES)
@pytest.mark.parametrize("metric", list(METRICS))
def test_invariances(metric: str, how: str) -> None:
    """Values do not depend on row order (rows class by class among them), class names or
    the types of ids and classes."""
    entry = METRICS[metric]
    if metric == "top_k_accuracy" and how in ("renamed", "integer ids and classes", "enum"):
        # (An enum declares its labels' order: here d, c, b, a.)
        pytest.skip("ties are broken by label order, as scikit-learn: names matter")
    options: dict[str, Any] = {"average": None} if "average" in entry.options else {}
    function = by_model(metric)
    want = function(TABLE, by="model", **options)
    changed = relabelled(TABLE, how)
    for frame in (changed, changed.lazy()):
        got = function(frame, by="model", **options)
        got = got.collect() if isinstance(got, pl.LazyFrame) else got
        in_key_order(got)
        if "class" in want.columns:  # per class: compare class by class, whatever the names
            if how in OF_OTHER_TYPES:
                back = {new: old for old, new in OF_OTHER_TYPES[how].items()}
                got = got.with_columns(pl.col("class").replace_strict(back))
            names = {"renamed": RENAMED, "integer ids and classes": NUMBERED}.get(how, {})
            back = {str(new): old for old, new in names.items()}
            got = got.with_columns(pl.col("class").cast(pl.String).replace(back))
        same(got, want, ordered=False)


@pytest.mark.parametrize("metric", list(METRICS))
def test_integer_scores_of_any_width_agree(metric: str) -> None:
    """Integer scores (hard 0/1 predictions) score alike in every integer type: 128-bit
    ones, which numpy lacks, were given to it by some metrics' kernels (a raw polars error).
    """
    entry = METRICS[metric]
    options: dict[str, Any] = {"average": None} if "average" in entry.options else {}
    function = by_model(metric)
    hard = TABLE.with_columns(pl.col("score") >= 0.6)

    def outcome(dtype: pl.DataType, lazy: bool) -> pl.DataFrame | str:
        frame = hard.with_columns(pl.col("score").cast(dtype))
        try:
            got = function(frame.lazy() if lazy else frame, by="model", **options)
            return got.collect() if isinstance(got, pl.LazyFrame) else got
        except pl_metrics.MetricsInputError as error:  # (log losses: rows summing to 0)
            return re.sub(r"Int\d+|UInt\d+", "<int>", str(error))

    want = outcome(pl.Int64(), lazy=False)
    for dtype in (pl.Int128(), pl.UInt128(), pl.UInt8()):
        for lazy in (False, True):
            got = outcome(dtype, lazy)
            if isinstance(want, str):
                assert got == want, (dtype, lazy)
            else:
                assert isinstance(got, pl.DataFrame), (dtype, lazy, got)
                same(got, want)


#: Names a user's key column may have that the library also uses: its working columns and
#: the columns of results.
KEY_NAMES = [
    *("area", "ahead", "count", "bin", "prob_pred", "prob_true", "start", "end", "start_d"),
    *("end_d", "ideal", "ideal_at", "n", "q", "lo", "hi", "total", "segment", "value"),
    *("threshold", "tp", "fpr", "precision", "weight", "lower"),
]


@pytest.mark.parametrize("metric", list(METRICS))
def test_key_columns_of_any_name(metric: str) -> None:
    """A by, id or class column named like a working column gives the same values; named
    like a column the metric makes, it is refused by name (never a polars error, nor a
    different number)."""
    entry = METRICS[metric]
    options: dict[str, Any] = {"average": None} if "average" in entry.options else {}
    function = by_model(metric)
    want = function(TABLE, by="model", **options)
    for name, (column, option) in itertools.product(
        [*KEY_NAMES, metric], [("model", "by"), ("id", "id_col"), ("class", "class_col")]
    ):
        chosen = {"by": "model", "id_col": "id", "class_col": "class"} | {option: name}
        frame = TABLE.rename({column: name})
        if name in (entry.columns or (metric,)) + entry.class_columns:
            with pytest.raises(
                pl_metrics.MetricsInputError, match=rf"column '{name}' \(option '{option}'\)"
            ):
                function(frame, **options, **chosen)
            continue
        got = function(frame, **options, **chosen)
        back = name in got.columns and column in want.columns  # a key of the result
        same(got.rename({name: column}) if back else got, want)


@pytest.mark.parametrize("metric", [m for m, e in METRICS.items() if e.weights])
def test_unit_weights_equal_no_weights(metric: str) -> None:
    function = by_model(metric)
    want = function(TABLE, by="model")
    same(function(TABLE.with_columns(w=pl.lit(1.0)), by="model", weight_col="w"), want)


@pytest.mark.parametrize("metric", [m for m, e in METRICS.items() if e.weights])
def test_the_scores_of_an_id_of_weight_zero_change_nothing(metric: str, tmp_path: Path) -> None:
    """An id of weight 0 adds nothing, whatever its scores: certain and wrong ones (an
    infinite loss with ``eps=0``, whose product with the weight was NaN in log_loss) too."""
    options = {"eps": 0.0} if "eps" in METRICS[metric].options else {}
    first = pl.col("id") == TABLE["id"].min()
    weightless = TABLE.with_columns(
        w=pl.when(first).then(0.0).otherwise("w"), score=pl.col("score") * 0.9
    )
    wrong = weightless.with_columns(score=pl.when(first).then(~pl.col("truth")).otherwise("score"))
    (tmp_path / "want").mkdir()
    (tmp_path / "wrong").mkdir()
    want = weighted_paths(weightless, metric, tmp_path / "want", **options)["eager"]()
    assert metric not in want.columns or want[metric].is_finite().all()
    for name, run in weighted_paths(wrong, metric, tmp_path / "wrong", **options).items():
        assert_frame_equal(run(), want, **TOL), name


def weighted_paths(df: pl.DataFrame, metric: str, tmp_path: Path, **options: Any) -> dict[str, Any]:
    """``metric`` by model with weights ``w``, eagerly, lazily and in chunks of a file."""
    function = by_model(metric)
    path = tmp_path / "weighted.parquet"
    df.write_parquet(path)
    options = {"by": "model", "weight_col": "w", **options}
    return {
        "eager": lambda: function(df, **options),
        "lazy": lambda: function(df.lazy(), **options).collect(),
        "score": lambda: pl_metrics.score(path, metric, n_chunks=2, **options),
    }


@pytest.mark.parametrize("metric", [m for m, e in METRICS.items() if e.weights])
def test_all_zero_weights_refused_or_nan_as_registered(metric: str, tmp_path: Path) -> None:
    """A group whose weights are all zero (model m2): scikit-learn refuses such weights,
    but for LRAP, which it divides by them (NaN); the registry says which, every path agrees.
    """
    df = TABLE.with_columns(w=pl.when(pl.col("model") == "m2").then(0.0).otherwise("w"))
    for name, run in weighted_paths(df, metric, tmp_path).items():
        if METRICS[metric].zero_weights != "nan":
            with pytest.raises(
                pl_metrics.MetricsInputError,
                match=rf"^column 'w': 1 group has weights that are all zero \(model='m2'\); "
                rf"{metric} is undefined there$",
            ):
                run()
        else:
            got = run().sort("model")
            assert math.isnan(got[metric][1]), name
            assert not math.isnan(got[metric][0]), name


@pytest.mark.parametrize("metric", [m for m, e in METRICS.items() if e.weights])
def test_weights_summing_to_zero_refused_as_registered(metric: str, tmp_path: Path) -> None:
    """Negative weights that sum to zero in a group (model m2): a mean weighted by them
    (scikit-learn's ``np.average``) is undefined, and every path refuses it; the other
    metrics take it (scikit-learn defines their counts' ratios there).
    """
    ids = pl.col("id").rank("dense") % 2
    df = TABLE.with_columns(w=pl.when(pl.col("model") == "m2").then(1.0 - 2.0 * ids).otherwise("w"))
    assert df.filter(model="m2").group_by("id").agg(pl.col("w").first())["w"].sum() == 0
    for name, run in weighted_paths(df, metric, tmp_path).items():
        if METRICS[metric].zero_weights == "sum":
            with pytest.raises(
                pl_metrics.MetricsInputError,
                match=rf"^column 'w': 1 group has weights that sum to zero \(model='m2'\); "
                rf"{metric} is undefined there$",
            ):
                run()
        else:  # a value, or a refusal of its own (ROC AUC of classes weighing 0 or less)
            try:
                run()
                problem = None
            except pl_metrics.MetricsInputError as error:
                problem = error.problem
            assert problem != "zero_weight_sum", name


@pytest.mark.parametrize("metric", [m for m, e in METRICS.items() if e.zero_weights == "nan"])
def test_weights_cancelling_up_to_rounding_give_nan_on_every_path(
    metric: str, tmp_path: Path
) -> None:
    """Per-id weights 0.1, 0.2, -0.1, -0.2 in model m2 sum to 2.8e-17 in one order and to 0
    in another (chunks): a mean divided by them is NaN on every path, as for exactly 0."""
    cancelling = (
        pl.col("id")
        .rank("dense")
        .cast(pl.Int64)
        .replace_strict({1: 0.1, 2: 0.2, 3: -0.1, 4: -0.2}, default=0.0)
    )
    df = TABLE.with_columns(w=pl.when(pl.col("model") == "m2").then(cancelling).otherwise("w"))
    paths = weighted_paths(df, metric, tmp_path)
    paths["score 4"] = lambda: pl_metrics.score(
        tmp_path / "weighted.parquet", metric, by="model", weight_col="w", n_chunks=4
    )
    for name, run in paths.items():
        got = run().sort("model")
        assert math.isnan(got[metric][1]), name
        assert not math.isnan(got[metric][0]), name
    if metric == "lwlrap":  # per class too: each class's weights, and the group's
        path = tmp_path / "weighted.parquet"
        want = pl_metrics.lwlrap(df, by="model", weight_col="w", per_class=True)
        for n_chunks in (2, 4):
            got = pl_metrics.score(
                path, "lwlrap", by="model", weight_col="w", per_class=True, n_chunks=n_chunks
            )
            same(got, want)


@pytest.mark.parametrize("metric", [m for m, e in METRICS.items() if e.weights])
def test_a_class_only_weight_zero_ids_have_agrees_on_every_path(
    metric: str, tmp_path: Path
) -> None:
    """Ragged input whose class 'a' only ids of weight 0 have: the groups weigh something,
    so no path refuses them for zero weights; a class chunk of `score` sees only those ids.
    """
    light = pl.col("id") < 4
    df = TABLE.with_columns(w=pl.when(light).then(0.0).otherwise("w")).filter(
        light | (pl.col("class") != "a")
    )
    path = tmp_path / "ragged.parquet"
    df.sort("class").write_parquet(path)
    function = by_model(metric)
    kw: dict[str, Any] = {"by": "model", "weight_col": "w", "ragged": "allow"}
    if metric == "roc_auc":  # class 'a' has no positive of weight: left out, not refused
        kw["undefined"] = "skip"
    runs = {
        "eager": lambda: function(df, **kw),
        "lazy": lambda: function(df.lazy(), **kw).collect(),
        **{
            f"score {n}": functools.partial(pl_metrics.score, path, metric, n_chunks=n, **kw)
            for n in (1, 2, 4)
        },
    }
    outcomes = {}
    for name, run in runs.items():
        try:
            outcomes[name] = run()
        except pl_metrics.MetricsInputError as error:
            outcomes[name] = error.problem
    want = outcomes.pop("eager")
    for name, got in outcomes.items():
        if isinstance(want, str):
            assert got == want, name
        else:
            assert not isinstance(got, str), (name, got)
            same(got, want)


def test_id_and_class_chunked_metrics_together_agree(tmp_path: Path) -> None:
    """The same ragged table, with metrics chunked by id and by class in one call."""
    light = pl.col("id") < 4
    df = TABLE.with_columns(w=pl.when(light).then(0.0).otherwise("w")).filter(
        light | (pl.col("class") != "a")
    )
    path = tmp_path / "ragged.parquet"
    df.sort("class").write_parquet(path)
    metrics = ["f1", "lrap", "roc_auc", "average_precision"]
    kw: dict[str, Any] = {"by": "model", "weight_col": "w", "ragged": "allow", "undefined": "skip"}
    want = pl_metrics.report(df, metrics, **kw)
    for n_chunks in (2, 4):
        same(pl_metrics.score(path, metrics, n_chunks=n_chunks, **kw), want)
    # Class 'a' is held by ids of weight 0 only: a weighted mean over its ids (the Brier
    # score) is undefined there, refused on both paths alike.
    weightless = r"^column 'w': 2 classes have weights that sum to zero .*model='m1': class='a'"
    for run in (
        lambda: pl_metrics.report(df, [*metrics, "brier_score"], **kw),
        lambda: pl_metrics.score(path, [*metrics, "brier_score"], n_chunks=4, **kw),
    ):
        with pytest.raises(pl_metrics.MetricsInputError, match=weightless):
            run()
    zero = df.with_columns(w=pl.when(pl.col("model") == "m2").then(0.0).otherwise("w"))
    zero.write_parquet(path)
    message = r"^column 'w': 1 group has weights that are all zero \(model='m2'\); f1, roc_auc"
    for run in (
        lambda: pl_metrics.report(zero, metrics, **kw),
        lambda: pl_metrics.score(path, metrics, n_chunks=4, **kw),
    ):
        with pytest.raises(pl_metrics.MetricsInputError, match=message):
            run()


def _score_at_id_3(value: float | None) -> Any:
    return lambda df: df.with_columns(
        score=pl.when(pl.col("id") == 3).then(value).otherwise("score")
    )


BAD_INPUTS = {
    "null score": (_score_at_id_3(None), "null"),
    "nan score": (_score_at_id_3(float("nan")), "NaN"),
    "duplicate row": (lambda df: pl.concat([df, df.head(1)]), "repeat"),
    "truth 2": (
        lambda df: df.with_columns(truth=pl.col("truth").cast(pl.Int8) * 2),
        "neither 0 nor 1",
    ),
    "missing class": (
        lambda df: df.filter(~((pl.col("id") == 2) & (pl.col("class") == "b"))),
        "missing|lack",
    ),
    "empty": (lambda df: df.head(0), "empty"),
}


@pytest.mark.parametrize("bad", list(BAD_INPUTS))
@pytest.mark.parametrize("metric", list(METRICS))
def test_bad_input_is_refused_on_every_path(metric: str, bad: str, tmp_path: Path) -> None:
    spoil, message = BAD_INPUTS[bad]
    df = spoil(TABLE)
    function = by_model(metric)
    error = pl_metrics.MetricsInputError
    with pytest.raises(error, match=message):
        function(df, by="model")
    lazy = function(df.lazy(), by="model")  # nothing is read until collected
    with pytest.raises(error, match=message):
        lazy.collect()
    path = tmp_path / "bad.parquet"
    df.write_parquet(path)
    with pytest.raises(error, match=message):
        pl_metrics.score(path, metric, by="model", n_chunks=2)


@pytest.mark.parametrize("bad", list(BAD_INPUTS))
def test_cli_refuses_bad_input_in_one_line(
    bad: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spoil, _ = BAD_INPUTS[bad]
    path = tmp_path / "bad.parquet"
    spoil(TABLE).write_parquet(path)
    for metric in METRICS:
        assert main(["score", str(path), "-m", metric, "--by", "model", "--quiet"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1, err
        assert err.startswith("pl-metrics: error:"), err
        assert err.isprintable() or err[:-1].isprintable()


@pytest.mark.parametrize(
    "metric", [m for m, e in METRICS.items() if e.higher_is_better is not None]
)
def test_the_registered_direction_ranks_a_right_model_above_its_reverse(metric: str) -> None:
    # The direction from the data, not from the registry: a flipped `higher_is_better`
    # ranked the worst model first in compare and the plots, and no test saw it (its other
    # checks read the expected order from the same fact).
    right = TABLE.filter(model="m1").with_columns(
        score=pl.col("truth").cast(pl.Float64) * 0.8 + 0.1, model=pl.lit("right")
    )
    reverse = right.with_columns(score=1 - pl.col("score"), model=pl.lit("reverse"))
    assert pl_metrics.compare(pl.concat([reverse, right]), metric)["model"][0] == "right"


@pytest.mark.parametrize("metric", list(METRICS))
def test_compare_bootstrap_and_paired_take_it_or_refuse_clearly(metric: str) -> None:
    entry = METRICS[metric]
    small = TABLE.with_columns(fold=pl.col("id") % 2)
    if entry.higher_is_better is None:  # a table of counts: nothing to rank
        for function, call in (
            ("compare", lambda: pl_metrics.compare(small, metric)),
            ("bootstrap", lambda: pl_metrics.bootstrap(small, metric, n_resamples=5)),
            ("paired", lambda: pl_metrics.paired(small, metric, "m1", "m2", n_resamples=5)),
        ):
            with pytest.raises(
                pl_metrics.MetricsInputError,
                match=rf"'{metric}' is a table .*, not a score for {function}$",
            ):
                call()
        return
    table = pl_metrics.compare(small, metric)
    column = table[metric].to_list()
    assert column == sorted(column, reverse=bool(entry.higher_is_better))
    if not entry.weights:
        with pytest.raises(pl_metrics.MetricsInputError, match=r"takes? no per-id weights"):
            pl_metrics.bootstrap(small, metric, n_resamples=5)
        return
    for options in option_sets(entry):
        if "weight_col" in options or options.get("validate") is False:
            continue
        if options.get("per_id"):  # a table of ids has no interval
            with pytest.raises(
                pl_metrics.MetricsInputError,
                match=r"^bootstrap: option 'per_id' gives a table of ids, where bootstrap needs",
            ):
                pl_metrics.bootstrap(small, metric, by="model", n_resamples=5, **options)
            continue
        ci = pl_metrics.bootstrap(small, metric, by="model", n_resamples=5, **options)
        point = by_model(metric)(small, by="model", **options)
        keys = [c for c in point.columns if c in ("model", "class")]
        merged = point.join(ci, on=keys, nulls_equal=True)
        gap = (merged[metric] - merged["estimate"]).abs().fill_nan(0).fill_null(0).max()
        assert gap < 1e-12  # type: ignore[operator]
        diff = pl_metrics.paired(small, metric, "m1", "m2", n_resamples=5, **options)
        assert {"difference", "lower", "upper", "p_value"} <= set(diff.columns)
        assert ("class" in diff.columns) == ("class" in point.columns)


def _buffer_bytes(table: pl.DataFrame) -> int:
    """The bytes of the Arrow buffers that ``table``'s columns hold (slices: the whole)."""
    return sum(
        buffer.size
        for column in table.to_arrow().columns
        for chunk in column.chunks
        for buffer in chunk.buffers()
        if buffer is not None
    )


@pytest.mark.parametrize("metric", list(METRICS))
def test_a_collected_state_holds_no_buffer_of_the_rows(metric: str) -> None:
    # `score` keeps each chunk's collected state until the end: a state table that was a
    # slice of a per-id column held that column (6.7 MB a chunk of 100,000 ids).
    n_ids = 20_000
    rng = np.random.default_rng(1)
    frame = pl.DataFrame(
        {
            "id": np.repeat(np.arange(n_ids), 2),
            "class": ["a", "b"] * n_ids,
            "score": rng.random(2 * n_ids),
            "truth": np.tile([True, False], n_ids),
            "w": np.repeat(rng.random(n_ids) + 0.5, 2),
        }
    )
    weights = [{}, {"weight_col": "w"}] if METRICS[metric].weights else [{}]
    for options in weights:
        for source in (frame, frame.lazy()):
            state = pl_metrics.state(source, metric, **options).collect()
            for name in ("groups", "classes"):
                table = getattr(state, name)
                if isinstance(table, pl.DataFrame):
                    assert _buffer_bytes(table) < 4 * table.estimated_size() + 4096, name


@pytest.mark.parametrize("metric", list(METRICS))
def test_the_results_columns_are_the_registered_ones(metric: str) -> None:
    # The columns from the data, not from the registry: `columns` and `class_columns` say
    # which names a key column may not take; dropping "tn" from confusion's, or "tpr" from
    # roc_curve's, failed no test (KEY_NAMES lacks them).
    entry = METRICS[metric]
    made: set[str] = set()
    for options in option_sets(entry):
        got = by_model(metric)(TABLE, by="model", **options)
        made |= set(got.columns) - {"model", "class", "id"}
    assert made == {*(entry.columns or (metric,)), *entry.class_columns}


@pytest.mark.parametrize("metric", list(METRICS))
def test_only_metrics_registered_as_ordering_classes_depend_on_their_names(metric: str) -> None:
    # `orders_classes` from the data, not the registry: renaming the classes (in another
    # order) changes the value of a metric that breaks ties by the classes' order, and of no
    # other; such a metric refuses Struct classes, which polars does not compare. Setting it
    # for ndcg failed no test (the refusal was read from the same fact).
    function = by_model(metric)
    want = function(TABLE, by="model")
    got = function(TABLE.with_columns(pl.col("class").replace(RENAMED)), by="model")
    if "class" in got.columns:
        back = {new: old for old, new in RENAMED.items()}
        got = got.with_columns(pl.col("class").replace(back))
    try:
        same(got, want, ordered=False)
        depends = False
    except AssertionError:
        depends = True
    assert depends == METRICS[metric].orders_classes
    structs = TABLE.with_columns(pl.struct("class").alias("class"))
    if not depends:
        assert function(structs, by="model").height > 0
    else:
        with pytest.raises(pl_metrics.MetricsInputError):
            function(structs, by="model")
