"""Model comparison: per-fold tables, bootstrap interval coverage, paired test under a null."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import pl_metrics
from pl_metrics.cli import main
from tests.conftest import run

DATA = Path(__file__).parent.parent / "data" / "digits_oof.parquet"


def test_a_long_integer_model_typed_as_text_is_exact() -> None:
    # (read as a float first, 2**53 + 1 named the model 2**53)
    from pl_metrics._compare import model_value

    big = 2**53 + 1
    assert model_value(pl.Int64, "model", "model_a", str(big)) == big


def test_one_models_dump_is_told_how_to_compare_its_folds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A cross-validation dump of one model: "column 'model' is not in the table", alone."""
    one = pl.read_parquet(DATA).filter(pl.col("model") == "knn").drop("model")
    with pytest.raises(pl_metrics.MetricsInputError, match=r"a dump of one model has none: add"):
        pl_metrics.compare(one, "lrap")
    one.write_parquet(tmp_path / "one.parquet")
    assert main(["compare", str(tmp_path / "one.parquet"), "-m", "lrap"]) == 2
    told = "a dump of one model has none: score its folds with pl-metrics score --by (its fold"
    assert told in capsys.readouterr().err


def test_compare_table(kind: str) -> None:
    df = pl.read_parquet(DATA)
    out = run(df, kind, pl_metrics.compare, metrics=["log_loss", "lrap"])
    assert out.columns == [
        "model",
        "log_loss",
        "log_loss_mean",
        "log_loss_std",
        "lrap",
        "lrap_mean",
        "lrap_std",
    ]
    assert out["log_loss"].is_sorted()  # a loss: lowest (best) first
    per_fold = pl_metrics.report(df, ["lrap"], by=["model", "fold"])
    for model, mean, std in out.select("model", "lrap_mean", "lrap_std").rows():
        folds = per_fold.filter(pl.col("model") == model)["lrap"]
        assert mean == pytest.approx(folds.mean(), rel=1e-12)
        assert std == pytest.approx(folds.std(), rel=1e-12)
    pooled = pl_metrics.lrap(df, by="model")
    assert dict(out.select("model", "lrap").rows()) == pytest.approx(dict(pooled.rows()))


def test_compare_ranks_an_undefined_model_last(kind: str) -> None:
    """A model whose metric is NaN (every class undefined) is not ranked the best one."""
    rng = np.random.default_rng(0)
    n = 2 * 3 * 40 * 2
    fold, i = np.repeat([0, 1], n // 2), np.tile(np.repeat(np.arange(40), 2), 6)
    model, klass = np.tile(np.repeat(["a", "b", "c"], 80), 2), np.tile([0, 1], n // 2)
    df = pl.DataFrame(
        {
            "model": model,
            "fold": fold,
            "id": [f"{f}-{k}" for f, k in zip(fold, i, strict=True)],
            "class": klass,
            "score": rng.random(n),
            # Model "a" has no positive: ROC AUC is undefined for each of its classes.
            "truth": (model != "a") & (i % 2 == klass),
        }
    )
    with pytest.warns(UserWarning, match=r"model 'a'\): its values are of other truth than theirs"):
        out = run(df, kind, pl_metrics.compare, metrics=["roc_auc"], undefined="skip")
    assert out["model"][2] == "a"
    assert out["roc_auc"][0] > out["roc_auc"][1]
    assert np.isnan(out["roc_auc"][2])


def single_label(
    n_datasets: int,
    n_ids: int,
    p_correct: float | dict[str, float],
    seed: int,
    models: tuple[str, ...] = ("m",),
) -> pl.DataFrame:
    """Three classes, the same labels for every model; each model predicts the true class
    with probability ``p_correct`` (or its own, by model)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, (n_datasets, n_ids))
    frames = []
    for model in models:
        p = p_correct[model] if isinstance(p_correct, dict) else p_correct
        right = rng.random((n_datasets, n_ids)) < p
        wrong = (y + rng.integers(1, 3, (n_datasets, n_ids))) % 3
        pred = np.where(right, y, wrong)
        for c in range(3):
            frames.append(
                pl.DataFrame(
                    {
                        "dataset": np.repeat(np.arange(n_datasets), n_ids),
                        "id": np.tile(np.arange(n_ids), n_datasets),
                        "model": model,
                        "class": c,
                        "score": (pred == c).astype(float).reshape(-1),
                        "truth": (y == c).reshape(-1),
                    }
                )
            )
    return pl.concat(frames)


def test_bootstrap_interval_coverage() -> None:
    """90% intervals of accuracy cover the true 0.7 in about 90% of 100 datasets.

    With one-hot predictions, micro recall is the accuracy (right ids / ids).
    """
    df = single_label(n_datasets=100, n_ids=100, p_correct=0.7, seed=1)
    ci = pl_metrics.bootstrap(
        df.lazy(),
        "recall",
        by="dataset",
        n_resamples=150,
        confidence=0.9,
        seed=3,
        average="micro",
        validate=False,
    ).collect()
    assert ci.height == 100
    covered = ((ci["lower"] <= 0.7) & (ci["upper"] >= 0.7)).mean()
    assert 0.82 <= covered <= 0.98, covered  # binomial spread of 100 trials around 0.9
    # The bootstrap standard deviation estimates the true one: sqrt(0.7 * 0.3 / 100).
    assert ci["std"].mean() == pytest.approx(np.sqrt(0.21 / 100), rel=0.1)


def test_bootstrap_is_reproducible_and_checked() -> None:
    df = pl.read_parquet(DATA).filter(pl.col("fold") == 0)
    a = pl_metrics.bootstrap(df, ["lrap", "f1"], by="model", n_resamples=50, seed=7)
    b = pl_metrics.bootstrap(df, ["lrap", "f1"], by="model", n_resamples=50, seed=7)
    c = pl_metrics.bootstrap(df, ["lrap", "f1"], by="model", n_resamples=50, seed=8)
    assert_frame_equal(a, b, rel_tol=1e-9)
    assert not a.equals(c)
    assert a.columns == ["model", "metric", "estimate", "lower", "upper", "std"]
    # Each group's metrics come in the order asked for, not sorted by name.
    assert a["metric"].to_list() == ["lrap", "f1"] * a["model"].n_unique()
    # (Named as the metric's limit, not as an option the caller did not give.)
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"it takes no per-id weights; leave it out \(and score it with report\)",
    ) as info:
        pl_metrics.bootstrap(df, "padded_cmap")
    assert str(info.value).startswith("padded_cmap cannot be bootstrapped")
    assert "weight_col" not in str(info.value)
    with pytest.raises(pl_metrics.MetricsInputError, match="confidence"):
        pl_metrics.bootstrap(df, "lrap", confidence=1.5)


def test_paired_false_positive_rate_under_a_null() -> None:
    """Two equally good models: p < 0.05 in about 5% of 100 datasets."""
    df = single_label(n_datasets=100, n_ids=80, p_correct=0.7, seed=5, models=("a", "b"))
    out = pl_metrics.paired(
        df,
        "recall",
        "a",
        "b",
        by="dataset",
        n_resamples=150,
        seed=11,
        average="micro",
        validate=False,
    )
    rate = (out["p_value"] < 0.05).mean()
    assert rate <= 0.12, rate
    # And a real difference is found: b right 85% of the time instead of 70%.
    both = single_label(1, 400, {"a": 0.7, "b": 0.85}, seed=6, models=("a", "b"))
    strong = pl_metrics.paired(both, "top_k_accuracy", "a", "b", n_resamples=200)
    assert strong["difference"][0] > 0
    assert strong["p_value"][0] < 0.01
    assert strong["lower"][0] > 0


def test_paired_needs_the_same_ids() -> None:
    df = pl.read_parquet(DATA)
    missing = df.filter(~((pl.col("model") == "knn") & (pl.col("id") < 5)))
    with pytest.raises(pl_metrics.MetricsInputError, match="5 ids are scored by only one"):
        pl_metrics.paired(missing, "lrap", "logreg", "knn", n_resamples=10)
    with pytest.raises(pl_metrics.MetricsInputError, match="both 'knn'"):
        pl_metrics.paired(df, "lrap", "knn", "knn", n_resamples=10)
    # By fold, ids of other folds in each model: counted per (fold, id), in both models (it
    # said "3,594 ids", of 1,797, and "the same ids", which both models have).
    two = df.filter(pl.col("model").is_in(["knn", "logreg"]))
    shifted = two.with_columns(
        fold=pl.when(pl.col("model") == "knn").then((pl.col("fold") + 1) % 5).otherwise("fold")
    )
    unmatched = 2 * shifted.filter(pl.col("model") == "knn").select("fold", "id").unique().height
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=rf"^column 'id': {unmatched:,} \(fold, id\) keys are scored by only one of "
        r"'logreg' and 'knn'; a paired comparison needs the same ids in each group of 'fold'$",
    ):
        pl_metrics.paired(shifted, "lrap", "logreg", "knn", by="fold", n_resamples=10)


def test_paired_refuses_models_it_cannot_compare() -> None:
    df = pl.read_parquet(DATA).filter(pl.col("id") < 50)
    listed = df.with_columns(pl.concat_list("model").alias("grp"))
    with pytest.raises(pl_metrics.MetricsInputError, match=r"^column 'grp' .*values are lists"):
        pl_metrics.paired(listed, "lrap", ["logreg"], ["knn"], model_col="grp", n_resamples=10)
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"^option 'model_a': a Series of shape \(1,\) is not a value of column 'model'",
    ):
        pl_metrics.paired(df, "lrap", pl.Series(["logreg"]), "knn", n_resamples=10)  # type: ignore[arg-type]


@pytest.mark.parametrize("lazy", [False, True])
def test_paired_needs_the_same_classes_truth_and_weights(lazy: bool) -> None:
    # Same ids, but one model's dump lacks a class, or was relabelled: the difference was
    # a confident wrong number (logreg's ids of class 9 then score LRAP 1).
    df = pl.read_parquet(DATA).filter(pl.col("fold") == 0).with_columns(w=pl.lit(1.0))
    logreg = pl.col("model") == "logreg"
    first_ids = logreg & pl.col("id").is_in(df["id"].unique().sort().head(3).implode())
    n_first = df.filter(first_ids).height  # their (id, class) rows of logreg's
    spoiled = {
        rf"column 'class': {df.filter(logreg & (pl.col('class') == '9')).height} \(id, class\) "
        r"rows are scored by only one of 'logreg' and 'knn'; .* same classes of each id": df.filter(
            ~(logreg & (pl.col("class") == "9"))
        ),
        rf"column 'truth': {n_first} \(id, class\) rows have a different truth in 'logreg' "
        r"and 'knn'": df.with_columns(
            truth=pl.when(first_ids).then(~pl.col("truth")).otherwise("truth")
        ),
        rf"column 'w': {n_first} \(id, class\) rows have a different weight": df.with_columns(
            w=pl.when(first_ids).then(2.0).otherwise(1.0)
        ),
    }

    def paired(frame: pl.DataFrame) -> object:
        out = pl_metrics.paired(
            frame.lazy() if lazy else frame, "lrap", "logreg", "knn", weight_col="w"
        )
        return out.collect() if isinstance(out, pl.LazyFrame) else out

    for message, frame in spoiled.items():
        with pytest.raises(pl_metrics.MetricsInputError, match=message):
            paired(frame)
    # A NaN or infinite weight in one model is told as such, not as a different weight.
    for bad in (float("nan"), float("inf")):
        odd = df.with_columns(w=pl.when(first_ids).then(bad).otherwise(1.0))
        with pytest.raises(pl_metrics.MetricsInputError, match=rf"^column 'w': {n_first} rows are"):
            paired(odd)


def test_model_and_fold_columns_named_like_a_result_are_named_by_their_options() -> None:
    # The message said "(option 'by')", which the caller never passed.
    df = pl.read_parquet(DATA).filter(pl.col("fold") < 2)
    error = pl_metrics.MetricsInputError
    for name in ("lrap", "lrap_mean", "lrap_std"):
        with pytest.raises(error, match=rf"^column '{name}' \(option 'model_col'\): compare"):
            pl_metrics.compare(df.rename({"model": name}), "lrap", model_col=name)
        with pytest.raises(error, match=rf"^column '{name}' \(option 'fold_col'\): compare"):
            pl_metrics.compare(df.rename({"fold": name}), "lrap", fold_col=name)
    with pytest.raises(error, match=r"^column 'lrap' \(option 'model_col'\): lrap makes"):
        pl_metrics.paired(df.rename({"model": "lrap"}), "lrap", "knn", "logreg", model_col="lrap")


def test_compare_takes_a_float_fold_column(kind: str) -> None:
    """A CSV writes folds as 0.0: lazily, the pooled values' NaN check read the fold column
    that their plan no longer has (polars' ColumnNotFoundError)."""
    df = pl.read_parquet(DATA).filter(pl.col("fold") < 3)
    want = pl_metrics.compare(df, "lrap")
    got = run(
        df.with_columns(pl.col("fold").cast(pl.Float64)), kind, pl_metrics.compare, metrics="lrap"
    )
    assert_frame_equal(got, want)
    nan = df.with_columns(fold=pl.when(pl.col("id") == 3).then(float("nan")).otherwise("fold"))
    with pytest.raises(pl_metrics.MetricsInputError, match=r"^column 'fold': 40 rows are NaN"):
        run(nan, kind, pl_metrics.compare, metrics="lrap")


def test_compare_bootstrap_refuses_a_model_column_named_like_its_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Named like an interval's column, the model column stopped the pivot (internal error);
    named like bootstrap's, the message named option 'by', which the command lacks."""
    df = pl.read_parquet(DATA).filter(pl.col("fold") < 2)
    for name in ("lrap_lower", "upper_lrap", "estimate"):
        path = tmp_path / f"{name}.parquet"
        df.rename({"model": name}).write_parquet(path)
        args = ["compare", str(path), "-m", "lrap", "--model-col", name, "--bootstrap", "5"]
        assert main(args) == 2
        err = capsys.readouterr().err
        assert f"column {name!r} (--model-col): compare --bootstrap makes a column of" in err


def test_paired_lazy_equals_eager() -> None:
    df = pl.read_parquet(DATA).filter(pl.col("fold") < 2)
    eager = pl_metrics.paired(df, "lrap", "logreg", "knn", by="fold", n_resamples=40, seed=2)
    lazy = pl_metrics.paired(df.lazy(), "lrap", "logreg", "knn", by="fold", n_resamples=40, seed=2)
    assert isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(lazy.collect(), eager, rel_tol=1e-9)
    missing = df.lazy().filter(~((pl.col("model") == "knn") & (pl.col("id") < 5)))
    query = pl_metrics.paired(missing, "lrap", "logreg", "knn", n_resamples=10)
    with pytest.raises(pl_metrics.MetricsInputError, match="only one of"):
        query.collect()


def test_bootstrap_per_class_rows(kind: str) -> None:
    df = pl.read_parquet(DATA).filter(pl.col("fold") == 0)
    options = {"metrics": ["f1", "roc_auc"], "by": "model", "average": None, "n_resamples": 20}
    ci = run(df, kind, pl_metrics.bootstrap, **options)
    assert ci.columns == ["model", "class", "metric", "estimate", "lower", "upper", "std"]
    assert ci.height == 4 * 10 * 2
    assert ci.equals(ci.sort("model", "class", "metric"))
    per_class = pl_metrics.report(df, ["f1", "roc_auc"], by="model", average=None)
    point = per_class.unpivot(index=["model", "class"], variable_name="metric")
    joined = ci.join(point, on=["model", "class", "metric"])
    assert joined.height == ci.height
    assert (joined["estimate"] - joined["value"]).abs().max() == 0
    assert ((ci["lower"] <= ci["estimate"]) & (ci["estimate"] <= ci["upper"])).mean() > 0.9


def test_tied_models_come_in_one_order_on_every_path(tmp_path: Path) -> None:
    """Model B scores as A does, scaled: every ranking metric ties; B then A by name."""
    df = pl.read_parquet(DATA).filter(pl.col("model") == "knn").drop("model")
    tied = pl.concat(
        [
            df.with_columns(model=pl.lit("B"), score=pl.col("score") * 0.9),
            df.with_columns(model=pl.lit("A")),
        ]
    )
    path = tmp_path / "tied.parquet"
    tied.write_parquet(path)
    orders = {
        "eager": pl_metrics.compare(tied, "lrap")["model"].to_list(),
        "lazy": pl_metrics.compare(pl.scan_parquet(path), "lrap").collect()["model"].to_list(),
    }
    for extra in ([], ["--bootstrap", "20"]):
        out = tmp_path / "compare.csv"
        argv = ["compare", str(path), "--metric", "lrap", "--output", str(out), "--quiet"]
        assert main([*argv, *extra]) == 0
        orders[f"cli {extra}"] = pl.read_csv(out)["model"].to_list()
    assert all(order == ["A", "B"] for order in orders.values()), orders


def test_option_mistakes_are_named_before_anything_is_read() -> None:
    """Each mistake names its own option (compare takes no ``by``), never a polars error."""
    df = pl.read_parquet(DATA).filter(pl.col("fold") == 0)
    error = pl_metrics.MetricsInputError
    for call in (
        lambda: pl_metrics.bootstrap(df, None),  # type: ignore[arg-type]
        lambda: pl_metrics.paired(df, None, "knn", "forest"),  # type: ignore[arg-type]
        lambda: pl_metrics.compare(df, None),  # type: ignore[arg-type]
    ):
        with pytest.raises(error, match=r"^option 'metrics': expected a metric name or a list"):
            call()
    roles = r"^options '{}' and '{}' both name column '{}'; give each its own column$"
    with pytest.raises(error, match=roles.format("model_col", "fold_col", "model")):
        pl_metrics.compare(df, "lrap", fold_col="model")
    with pytest.raises(error, match=roles.format("fold_col", "id_col", "id")):
        pl_metrics.compare(df, "lrap", fold_col="id")
    with pytest.raises(error, match=roles.format("model_col", "by", "model")):
        pl_metrics.paired(df, "lrap", "knn", "forest", by="model")
    with pytest.raises(error, match=r"^option 'by': 'class' is the class_col, which the metrics"):
        pl_metrics.paired(df, "lrap", "knn", "forest", by="class")
    # (A model column that the metrics read was told as option 'by', which was not given.)
    for option, column in (("class_col", "class"), ("truth_col", "truth"), ("score_col", "score")):
        with pytest.raises(error, match=roles.format("model_col", option, column)):
            pl_metrics.paired(df, "lrap", "0", "1", model_col=column)
    table = r"^option '{}': 'roc_curve' is a table \(of counts, curves or thresholds\), not a "
    with pytest.raises(error, match=table.format("metric")):
        pl_metrics.paired(df, "roc_curve", "knn", "forest")
    with pytest.raises(error, match=table.format("metrics").replace("roc_curve", "best_threshold")):
        pl_metrics.bootstrap(df, "best_threshold", by="model")
    renamed = df.rename({"fold": "metric"})  # a column of their tables
    with pytest.raises(error, match=r"^column 'metric' \(option 'by'\): paired makes"):
        pl_metrics.paired(renamed, "lrap", "knn", "forest", by="metric", n_resamples=10)
    renamed = df.rename({"model": "metric"})
    with pytest.raises(error, match=r"^column 'metric' \(option 'model_col'\): paired"):
        pl_metrics.paired(renamed, "lrap", "knn", "forest", model_col="metric", n_resamples=10)
    # The names of working columns, which are no columns of theirs, are keys as any other.
    paired = pl_metrics.paired(df, "lrap", "knn", "forest", by="fold", n_resamples=10)
    boot = pl_metrics.bootstrap(df, "lrap", by=["model", "fold"], n_resamples=10)
    for name in ("value", "a", "b"):
        renamed = df.rename({"fold": name, "model": f"{name}_model"})
        got = pl_metrics.paired(
            renamed, "lrap", "knn", "forest", by=name, model_col=f"{name}_model", n_resamples=10
        )
        assert_frame_equal(got.rename({name: "fold"}), paired)
        got = pl_metrics.bootstrap(renamed, "lrap", by=[f"{name}_model", name], n_resamples=10)
        assert_frame_equal(got.rename({f"{name}_model": "model", name: "fold"}), boot)
    with pytest.raises(error, match=r"^option 'n_resamples': expected an integer in \[2, 1,000"):
        pl_metrics.bootstrap(df, "lrap", n_resamples=10**12)
    with pytest.raises(error, match=r"^the table is empty"):
        pl_metrics.paired(df.clear(), "lrap", "knn", "forest", n_resamples=10)
    with pytest.raises(TypeError, match=r"^bootstrap: unknown option 'n_resample'; did you mean "):
        pl_metrics.bootstrap(df, "lrap", n_resample=10)


def test_compare_of_repeated_folds_says_it_pools_them() -> None:
    # Repeated cross-validation (each id in a fold of each repeat) was refused as repeated
    # rows with no word of why: compare pools a model's folds.
    df = pl.read_parquet(DATA)
    repeated = pl.concat([df, df.with_columns(pl.col("fold") + 5)])
    with pytest.raises(pl_metrics.MetricsInputError, match=r"compare pools each model's 'fold'"):
        pl_metrics.compare(repeated, "lrap")
    # The repeats in a column of their own: compare takes no by, which the hint named.
    repeats = pl.concat([df.with_columns(rep=pl.lit(r)) for r in range(2)])
    hint = (
        r"the table also has column rep: compare takes one prediction per \(model, fold, id, "
        r"class\): compare each rep's rows alone, or score them by=\['model', 'fold', 'rep'\] "
        r"with report;"
    )
    with pytest.raises(pl_metrics.MetricsInputError, match=hint):
        pl_metrics.compare(repeats, "lrap")


def test_compare_names_a_bad_fold_on_every_path() -> None:
    # The folds' checks ran beside the pooled ones: some lazy plans raised the pooled
    # message first, which names the model and not its fold.
    df = pl.read_parquet(DATA)
    ragged = df.filter(pl.int_range(pl.len()) != 4)
    row_index = df.lazy().filter(pl.int_range(pl.len()) != 4)
    messages = {
        _message(lambda: pl_metrics.compare(ragged, "f1")),
        _message(lambda: pl_metrics.compare(ragged.lazy(), "f1").collect()),
        _message(lambda: pl_metrics.compare(row_index, "f1").collect()),
    }
    (message,) = messages
    assert "(in 1 group: model='logreg', fold=0)" in message


def _message(call: Any) -> str:
    with pytest.raises(pl_metrics.MetricsInputError) as error:
        call()
    return str(error.value)


def test_compare_warns_of_a_model_that_lacks_a_fold(kind: str) -> None:
    # Its mean and pooled value are of other rows than the others': ranked all the same.
    df = pl.read_parquet(DATA)
    lacking = df.filter((pl.col("model") != "knn") | (pl.col("fold") != 1))
    with pytest.warns(UserWarning, match=r"1 model lacks folds .* \(model 'knn': fold 1\): its"):
        got = run(lacking, kind, pl_metrics.compare, metrics="lrap")
    assert got.height == 4
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pl_metrics.compare(df, "lrap")


def test_compare_mean_and_std_are_nan_where_a_fold_is_undefined() -> None:
    # As documented (pandas would skip the fold): a mean of the other folds would pass unseen.
    df = pl.read_parquet(DATA)
    df = df.with_columns(truth=pl.when(pl.col("fold") == 0).then(False).otherwise("truth"))
    got = pl_metrics.compare(df, "roc_auc", undefined="skip")
    assert got["roc_auc"].is_finite().all()
    assert got["roc_auc_mean"].is_nan().all()
    assert got["roc_auc_std"].is_nan().all()


def test_compare_warnings_point_at_the_callers_line() -> None:
    # Whichever way compare is called (the namespace adds a frame): not at pl_metrics' lines.
    df = pl.read_parquet(DATA)
    lacking = df.filter((pl.col("model") != "knn") | (pl.col("fold") != 1))
    other_rows = df.filter((pl.col("model") != "knn") | (pl.col("id") % 2 == 1))
    for source in (lacking, other_rows):
        for call in (pl_metrics.compare, source.metrics.compare):
            with pytest.warns(UserWarning, match="^compare: ") as told:
                call(source, "lrap") if call is pl_metrics.compare else call("lrap")
            assert [w.filename for w in told] == [__file__]


def test_compare_warns_of_a_model_scored_on_other_rows(kind: str) -> None:
    # Whole ids of some classes only, or some ids only: the checks pass, the ranking misleads.
    df = pl.read_parquet(DATA)
    bayes, knn = pl.col("model") == "naive_bayes", pl.col("model") == "knn"
    cases = {
        r"'naive_bayes': 14,376 rows against 17,970": ~(bayes & pl.col("class").is_in(["1", "2"])),
        r"'knn': 8,980 rows against 17,970": ~(knn & (pl.col("id") % 2 == 0)),
    }
    for message, kept in cases.items():
        with pytest.warns(
            UserWarning, match=rf"1 model scores other \(id, class\) rows .*{message}"
        ):
            run(df.filter(kept), kind, pl_metrics.compare, metrics="lrap")
    # As many rows, of other ids: said so.
    shifted = df.with_columns(pl.when(knn).then(pl.col("id") + 10_000).otherwise(pl.col("id")))
    with pytest.warns(UserWarning, match=r"'knn': 17,970 rows, as many as theirs but not the same"):
        run(shifted, kind, pl_metrics.compare, metrics="lrap")
    # Two models of other rows: neither is "the others"; each told of.
    two = shifted.filter(pl.col("model").is_in(["knn", "logreg"]))
    with pytest.warns(
        UserWarning,
        match=r"the models score different \(id, class\) rows \(rows "
        r"of each model: 'knn': 17,970, 'logreg': 17,970\)",
    ):
        run(two, kind, pl_metrics.compare, metrics="lrap")
    # Most models lacking a fold: told so, and the complete one is not the odd one out.
    lacking = df.filter(
        ~(pl.col("model").is_in(["knn", "logreg", "forest"]) & (pl.col("fold") == 0))
    )
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        run(lacking, kind, pl_metrics.compare, metrics="lrap")
    assert [str(w.message)[:45] for w in said] == ["compare: 3 models lack folds that others have"]
    assert "their pooled values and means are of other rows" in str(said[0].message)
    # Each model's folds split apart, the same rows pooled: no warning.
    resplit = df.with_columns(pl.when(knn).then((pl.col("fold") + 1) % 5).otherwise(pl.col("fold")))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run(resplit, kind, pl_metrics.compare, metrics="lrap")


def test_the_command_line_warns_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "lacking.parquet"
    df = pl.read_parquet(DATA)
    df.filter((pl.col("model") != "knn") | (pl.col("fold") != 1)).write_parquet(path)
    assert main(["compare", str(path), "-m", "lrap"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("pl-metrics: warning: compare: 1 model lacks folds")
    assert err.count("\n") == 1


def test_compare_with_a_threshold_per_fold(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # The pooled values read no fold column, so a table keyed by fold failed lazily (a
    # KeyError, "internal error" on the command line).
    from sklearn.metrics import f1_score

    digits = pl.read_parquet(DATA)
    table = pl_metrics.best_threshold(digits, by=["model", "fold"])
    eager = pl_metrics.compare(digits, "f1", threshold=table)
    assert_frame_equal(pl_metrics.compare(digits.lazy(), "f1", threshold=table).collect(), eager)
    rows = digits.join(table, on=["model", "fold", "class"])
    for model, part in rows.group_by("model"):
        want = np.mean(
            [f1_score(c["truth"], c["score"] >= c["threshold"]) for _, c in part.group_by("class")]
        )
        assert eager.filter(pl.col("model") == model[0])["f1"].item() == pytest.approx(
            want, abs=1e-12
        )
    path = tmp_path / "t.csv"
    table.write_csv(path)
    argv = ["compare", str(DATA), "-m", "f1", "--threshold-table", str(path), "--format", "csv"]
    assert main(argv) == 0
    got = pl.read_csv(capsys.readouterr().out.encode())
    np.testing.assert_allclose(got["f1"], eager["f1"], rtol=1e-12)


def _two_models(*, same: bool) -> pl.DataFrame:
    a = pl.DataFrame(
        {
            "id": [0, 0, 1, 1, 2, 2, 3, 3],
            "class": ["x", "y"] * 4,
            "score": [0.3, 0.6, 0.8, 0.1, 0.5, 0.4, 0.7, 0.2],
            "truth": [True, False, True, False, False, True, True, False],
        }
    )
    b = a if same else a.with_columns(score=1 - pl.col("score"))
    return pl.concat([a.with_columns(model=pl.lit("a")), b.with_columns(model=pl.lit("b"))])


def test_one_resample_short_of_the_confidence_is_warned_of() -> None:
    """40 resamples are enough at 95% (tested elsewhere); 39 are not: the boundary."""
    df = _two_models(same=True)
    with pytest.warns(
        UserWarning, match=r"^a 95% interval of 39 resamples is rough: .* 40 or more"
    ):
        pl_metrics.bootstrap(df, "lrap", by="model", n_resamples=39)
    with pytest.warns(
        UserWarning, match=r"^a 90% interval of 19 resamples is rough: .* 20 or more"
    ):
        pl_metrics.paired(df, "lrap", "a", "b", n_resamples=19, confidence=0.9)


def test_paired_p_value_of_identical_models_is_one() -> None:
    """Every resampled difference is 0: both one-sided shares are 1, and twice the smaller
    is 2, clipped to 1 (a mutation review found no test of it)."""
    out = pl_metrics.paired(_two_models(same=True), "lrap", "a", "b", n_resamples=50)
    assert out["difference"].item() == 0.0
    assert out["p_value"].item() == 1.0


def test_paired_counts_one_unpaired_cell_in_the_singular() -> None:
    df = _two_models(same=False)
    lone = (pl.col("model") == "b") & (pl.col("id") == 3) & (pl.col("class") == "y")
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"^column 'class': 1 \(id, class\) row is scored by only one of 'a' and 'b'",
    ):
        pl_metrics.paired(df.filter(~lone), "lrap", "a", "b", n_resamples=50)


def test_compare_warns_of_a_model_scored_against_other_truth_or_weights(kind: str) -> None:
    """Only the (id, class) pairs were hashed: a model whose dump holds other labels or
    weights was ranked without a word (paired refuses the same rows)."""
    df = pl.read_parquet(DATA).with_columns(w=pl.lit(1.0))
    knn = (pl.col("model") == "knn") & (pl.col("id") < 100)
    relabelled = df.with_columns(pl.when(knn).then(~pl.col("truth")).otherwise("truth"))
    reweighted = df.with_columns(w=pl.when(knn).then(2.0).otherwise("w"))
    both = relabelled.with_columns(reweighted["w"])
    for frame, other in (
        (relabelled, "truth"),
        (reweighted, "weights"),
        (both, "truth and weights"),
    ):
        with pytest.warns(
            UserWarning,
            match=rf"^compare: 1 model scores the others' \(id, class\) rows with other {other} "
            rf"\(model 'knn'\): its values are of other {other} than theirs$",
        ):
            run(frame, kind, pl_metrics.compare, metrics="lrap", weight_col="w")
    # The same weights, one model's stored as Float32 (widened beside the others'): alike.
    rng = np.random.default_rng(0)
    weights = df.select("id").unique().with_columns(w=pl.Series(rng.random(1797) + 0.5))
    weighted = df.drop("w").join(weights, on="id")
    mixed = weighted.with_columns(
        w=pl.when(pl.col("model") == "knn").then(pl.col("w").cast(pl.Float32)).otherwise("w")
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run(mixed, kind, pl_metrics.compare, metrics="lrap", weight_col="w")
    # The same weights on other rows (two ids' swapped): other weights.
    swapped = weighted.with_columns(
        w=pl.when((pl.col("model") == "knn") & (pl.col("id") == 0))
        .then(weights.filter(pl.col("id") == 1)["w"].item())
        .when((pl.col("model") == "knn") & (pl.col("id") == 1))
        .then(weights.filter(pl.col("id") == 0)["w"].item())
        .otherwise("w")
    )
    with pytest.warns(UserWarning, match=r"with other weights \(model 'knn'\)"):
        run(swapped, kind, pl_metrics.compare, metrics="lrap", weight_col="w")
    two = relabelled.filter(pl.col("model").is_in(["knn", "logreg"]))
    with pytest.warns(
        UserWarning, match=r"the models score the same \(id, class\) rows with differ"
    ):
        run(two, kind, pl_metrics.compare, metrics="lrap")


def test_compare_tells_folds_numbered_otherwise_from_folds_lacking(kind: str) -> None:
    """One model's folds numbered from 1: every model lacks a fold, and the warning said
    their pooled values were of other rows (they are the same), and no row check ran."""
    df = pl.read_parquet(DATA)
    knn = pl.col("model") == "knn"
    renumbered = df.with_columns(pl.when(knn).then(pl.col("fold") + 1).otherwise("fold"))
    with pytest.warns(
        UserWarning,
        match=r"1 model numbers its folds otherwise than the 3 others \(model 'knn': fold 1, 2, "
        r"3, 4, 5; theirs 0, 1, 2, 3, 4\): its mean and standard deviation are over other "
        r"folds \(the pooled values are of the same rows\)$",
    ):
        got = run(renumbered, kind, pl_metrics.compare, metrics="lrap")
    assert_frame_equal(
        got.select("model", "lrap"), pl_metrics.compare(df, "lrap")[["model", "lrap"]]
    )
    # Two models, neither the usual numbering: both lack a fold the other has.
    two = renumbered.filter(pl.col("model").is_in(["knn", "logreg"]))
    with pytest.warns(UserWarning, match=r"2 models lack folds .* \(model 'knn': fold 0\)"):
        run(two, kind, pl_metrics.compare, metrics="lrap")
    # Renumbered, and another truth of as many rows: not "the same rows".
    relabelled = renumbered.with_columns(
        pl.when((pl.col("model") == "logreg") & (pl.col("id") < 100))
        .then(~pl.col("truth"))
        .otherwise("truth")
    )
    with pytest.warns(UserWarning, match=r"their pooled values and means are of other rows"):
        run(relabelled, kind, pl_metrics.compare, metrics="lrap")
    fewer = renumbered.filter(~((pl.col("model") == "logreg") & (pl.col("id") < 50)))
    with pytest.warns(UserWarning, match=r"their pooled values and means are of other rows"):
        run(fewer, kind, pl_metrics.compare, metrics="lrap")


def test_paired_takes_a_python_float_of_a_float32_model() -> None:
    """0.3 was "not a value of column 'model' (Float32)": Float32's 0.3 is not Python's,
    where the command line's --against 0.3 and a polars filter take it."""
    df = pl.read_parquet(DATA)
    codes = {"knn": 0.3, "forest": 1.0, "logreg": 2.5, "naive_bayes": 7.0}
    floats = df.with_columns(pl.col("model").replace_strict(codes, return_dtype=pl.Float32))
    got = pl_metrics.paired(floats, "lrap", 0.3, 1.0, n_resamples=20)
    want = pl_metrics.paired(df, "lrap", "knn", "forest", n_resamples=20)
    assert_frame_equal(got.drop("model_a", "model_b"), want.drop("model_a", "model_b"))
    with pytest.raises(pl_metrics.MetricsInputError, match=r"no rows of model 0\.5"):
        pl_metrics.paired(floats, "lrap", 0.5, 1.0, n_resamples=20)
    # An integer that a float column cannot hold is no model (2**53 + 1 is not 2**53).
    from pl_metrics._compare import _as_model

    assert _as_model(2**53 + 1, pl.Float64()) is None


def test_compare_std_of_a_single_fold_is_null(kind: str) -> None:
    """The sample standard deviation of one fold is undefined: null, as documented (pandas'
    ``std`` gives its missing value), not NaN, which reads as an undefined fold."""
    df = pl.read_parquet(DATA).filter(pl.col("fold") == 2)
    out = run(df, kind, pl_metrics.compare, metrics=["lrap", "log_loss"])
    assert out["lrap_std"].null_count() == out["log_loss_std"].null_count() == out.height
    pooled = pl_metrics.report(df, ["lrap", "log_loss"], by="model")
    for model, lrap, mean in out.select("model", "lrap", "lrap_mean").rows():
        want = pooled.filter(pl.col("model") == model)["lrap"].item()
        assert lrap == pytest.approx(want, rel=1e-12)
        assert mean == pytest.approx(want, rel=1e-12)


def test_a_long_integer_model_typed_with_spaces_or_a_sign_is_exact() -> None:
    # polars casts no text with spaces to an integer: such text goes through the number
    # as typed; read as a float, 2**53 + 1 named the model 2**53 (another model, silently).
    from pl_metrics._compare import model_value

    big = 2**53 + 1
    for text in (f" {big} ", f" +{big}", f"-{big} "):
        want = -big if text.strip().startswith("-") else big
        assert model_value(pl.Int64(), "model", "model_a", text) == want


def test_compare_refuses_per_class_output() -> None:
    """Documented: per-class output is refused (one value per model and metric is ranked);
    the message says how to get per-class values."""
    df = pl.read_parquet(DATA).filter(pl.col("fold") < 2)
    told = (
        r"^compare ranks models by one value per metric; for per-class values use "
        r"report\(\.\.\., by=\['model', 'fold'\], average=None\)$"
    )
    for metric, options in (("f1", {"average": None}), ("lwlrap", {"per_class": True})):
        with pytest.raises(pl_metrics.MetricsInputError, match=told):
            pl_metrics.compare(df, metric, **options)
        with pytest.raises(pl_metrics.MetricsInputError, match=told):
            pl_metrics.compare(df.lazy(), metric, **options)


def test_paired_mismatch_names_the_id_and_class_columns() -> None:
    # The other data checks name the table's own key columns ('(sample id, label)');
    # paired's check of differing truth said '(id, class)' whatever their names.
    rows = [
        {
            "model": m,
            "sample id": i,
            "label": c,
            "prob": 0.1 * (i + c),
            "y": (i + c + (m == "b")) % 2 == 0,
        }
        for m in ("a", "b")
        for i in range(6)
        for c in range(3)
    ]
    df = pl.DataFrame(rows).with_columns(fold=pl.col("sample id") % 2)
    cols = {"id_col": "sample id", "class_col": "label", "score_col": "prob", "truth_col": "y"}
    told = r"^column 'y': 18 \({}sample id, label\) rows have a different truth in 'a' and 'b'"
    with pytest.raises(pl_metrics.MetricsInputError, match=told.format("")):
        pl_metrics.paired(df, "lrap", "a", "b", n_resamples=50, **cols)
    # Counted per group (by=), as the unpaired ids: the cells are of (fold, id, class).
    with pytest.raises(pl_metrics.MetricsInputError, match=told.format("fold, ")):
        pl_metrics.paired(df, "lrap", "a", "b", n_resamples=50, by="fold", **cols)
    # The check of rows one model lacks names them alike.
    lone = (pl.col("model") == "b") & (pl.col("sample id") == 3) & (pl.col("label") == 1)
    paired_truth = df.with_columns(y=(pl.col("sample id") + pl.col("label")) % 2 == 0)
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"^column 'label': 1 \(sample id, label\) row is scored by only one of 'a' and 'b'",
    ):
        pl_metrics.paired(paired_truth.filter(~lone), "lrap", "a", "b", n_resamples=50, **cols)
