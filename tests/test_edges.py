"""Edges a mutation review found untested, of one session's changes.

Chunk plans of the bootstrap, fold numbering, pattern names, threshold repeats, sets of
metrics, a lazy ``by=`` Series, frames' order warnings, hints, and ``pl-metrics long``.
"""

from __future__ import annotations

import datetime as dt
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from polars.testing import assert_frame_equal
from sklearn.metrics import f1_score

import pl_metrics
from pl_metrics import _compare
from pl_metrics._frame import to_polars
from pl_metrics._spec import metric_list
from pl_metrics.cli import main
from tests.test_bootstrap import multilabel, resampled
from tests.test_cli import _long_argv
from tests.test_compare import DATA
from tests.test_errors import long_table


def _plans_taken(monkeypatch: pytest.MonkeyPatch, block: int) -> set[str]:
    taken: set[str] = set()
    plan = _compare._Resampler._plan

    def spy(self: Any, lo: int, hi: int, kind: str) -> Any:
        got = plan(self, lo, hi, kind)
        if got is not None:
            taken.add(type(got).__name__)
        return got

    monkeypatch.setattr(_compare._Resampler, "_plan", spy)
    monkeypatch.setattr(_compare, "_BLOCK", block)
    resampled(multilabel(seed=6), ["lrap", "f1", "roc_auc", "accuracy"], ["g"], weight_col="w")
    return taken


def test_many_groups_chunks_add_sparsely_few_groups_densely(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # (64: a chunk of the groups' dense blocks would hold under _FEW_IDS ids, so chunks are of
    # one group's block, added sparsely; 1024: chunks of a few groups' ids, added densely.)
    assert "_SparsePlan" in _plans_taken(monkeypatch, 64)
    assert _plans_taken(monkeypatch, 1024) == {"_DensePlan"}


def test_folds_numbered_two_ways_by_as_many_models_are_no_majority() -> None:
    # Two models number folds 0-4, two 1-5: neither numbering is most models', so each
    # model lacks a fold (not "2 models number their folds otherwise than the 2 others").
    df = pl.read_parquet(DATA)
    odd = pl.col("model").is_in(["knn", "logreg"])
    renumbered = df.with_columns(pl.when(odd).then(pl.col("fold") + 1).otherwise("fold"))
    with pytest.warns(UserWarning, match=r"4 models lack folds") as told:
        pl_metrics.compare(renumbered, "lrap")
    assert not any("otherwise than" in str(w.message) for w in told)


@pytest.mark.parametrize("name", ["^g", "g$", "g*"])
def test_names_half_a_pattern_are_plain_columns(name: str) -> None:
    # Only '^...$' and '*' are polars' patterns: '^g', 'g$' and 'g*' name themselves.
    rng = np.random.default_rng(0)
    good = long_table(rng.random((6, 4)) < 0.5, rng.random((6, 4))).with_columns(g=pl.lit("a"))
    want = pl_metrics.lrap(good, by="g")
    got = pl_metrics.lrap(good.rename({"g": name}), by=name)
    assert_frame_equal(got.rename({name: "g"}), want)
    scored = pl_metrics.lrap(good.rename({"score": name}).drop("g"), score_col=name)
    assert scored.item() == pl_metrics.lrap(good.drop("g")).item()


def test_a_text_column_named_like_the_score_is_offered_not_a_wide_table() -> None:
    # 'sort' (text) is near 'score' (0.67): not every column named like the score is a
    # float, so the table is not told as wide; the near name is offered.
    df = pl.DataFrame(
        {"id": [1, 2], "sort": ["x", "y"], "a": [0.1, 0.2], "b": [0.3, 0.4], "c": [0.6, 0.4]}
    )
    with pytest.raises(pl_metrics.MetricsInputError) as told:
        pl_metrics.report(df, "lrap")
    assert "'score': did you mean 'sort'?" in str(told.value)
    assert "looks wide" not in str(told.value)


def test_a_threshold_table_repeating_one_key_once_is_refused_naming_that_key() -> None:
    # One repeat (two rows of class 1) is refused too; the example is the repeated key, not
    # the first key (0).
    rng = np.random.default_rng(0)
    good = long_table(rng.random((6, 4)) < 0.5, rng.random((6, 4)))
    once = pl.DataFrame({"class": [0, 1, 1, 2, 3], "threshold": [0.5] * 5})
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"1 row of the table repeats a \(class\) key, e\.g\. \(1\)",
    ):
        pl_metrics.f1(good, threshold=once)


def test_a_set_of_metrics_is_taken_in_sorted_order() -> None:
    # A set's own order varies with the process' string hashing: its names are sorted.
    names = ["roc_auc", "f1", "lrap", "accuracy", "precision", "recall"]
    for given in (set(names), frozenset(names)):
        assert metric_list(given) == tuple(sorted(names))


def test_a_lazy_report_by_a_series_of_values_names_its_column() -> None:
    # report of a LazyFrame and a lazy threshold table reads its options as given (lists):
    # a Series of the model column's values is told before it is a list, with its name.
    rng = np.random.default_rng(0)
    good = long_table(rng.random((6, 4)) < 0.5, rng.random((6, 4)))
    good = good.with_columns(model=pl.lit("m"))
    table = pl.LazyFrame({"class": [0, 1, 2, 3], "threshold": [0.5] * 4})
    for by in (good["model"], good["model"].to_pandas()):
        with pytest.raises(pl_metrics.MetricsInputError, match=r"not names\? pass by='model'"):
            pl_metrics.report(good.lazy(), "f1", by=by, threshold=table).collect()


def test_frames_columns_0_to_n_in_another_order_are_warned_of() -> None:
    # A default index names no rows, but columns 0, 1, 2 beside 2, 0, 1 are classes (of
    # pd.DataFrame(proba), say) in another order: warned of, as labels of other names are.
    truth = pd.DataFrame(np.eye(3, dtype=int)[[0, 1, 2, 0]])
    scores = pd.DataFrame(np.eye(3)[[0, 1, 2, 0]] * 0.8 + 0.1)[[2, 0, 1]]
    with pytest.warns(UserWarning, match=r"y_true\[y_score\.columns\]"):
        pl_metrics.from_numpy(truth, scores)


def test_weights_are_checked_against_y_scores_rows_and_a_default_index_names_none() -> None:
    y_true = pd.DataFrame({"a": [1, 0], "b": [0, 1]}, index=[7, 3])
    y_score = pd.DataFrame({"a": [0.9, 0.2], "b": [0.1, 0.8]}, index=[3, 7])
    # Weights in y_true's order are in another order than y_score's rows: told.
    weights = pd.Series([1.0, 2.0], index=[7, 3])
    with pytest.warns(UserWarning, match=r"^sample_weight holds y_score's row"):
        pl_metrics.from_numpy(y_true.to_numpy(), y_score, sample_weight=weights)
    # Beside scores of a shuffled split (index 1, 0), weights of a default index name no rows.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pl_metrics.from_numpy(
            y_true.to_numpy(), y_score.set_axis([1, 0]), sample_weight=pd.Series([1.0, 2.0])
        )


def test_scores_without_ids_beside_another_column_get_no_from_numpy_hint() -> None:
    # The from_numpy hint is for a frame of scores alone (predict_proba's); a text column
    # beside them is no such frame.
    scores = pl.DataFrame({"a": [0.1, 0.8], "b": [0.9, 0.2], "Usage": ["Public", "Private"]})
    truth = pl.DataFrame({"a": [0, 1], "b": [1, 0]})
    with pytest.raises(pl_metrics.MetricsInputError) as told:
        pl_metrics.from_wide(scores, truth, classes=["a", "b"])
    assert "is not in the scores" in str(told.value)
    assert "from_numpy" not in str(told.value)


def test_joined_labels_offer_the_separator_only_of_known_classes_and_after_other_hints() -> None:
    scores = pl.DataFrame({"id": [1, 2, 3], "bird": [0.9, 0.1, 0.4], "frog": [0.2, 0.3, 0.5]})
    # 'frog,zebra': zebra is no class, so no separator is offered.
    labels = pl.DataFrame({"id": [1, 2, 3], "labels": ["bird", "frog,zebra", "bird"]})
    with pytest.raises(pl_metrics.MetricsInputError) as told:
        pl_metrics.from_wide(scores, labels, labels_col="labels")
    assert "separator" not in str(told.value)
    # A label naming an integer score column keeps its own hint (cast it), told first.
    owl = scores.with_columns(owl=pl.Series([0, 0, 0]))
    labels = pl.DataFrame({"id": [1, 2, 3], "labels": ["owl", "bird;frog", "bird"]})
    with pytest.raises(pl_metrics.MetricsInputError, match=r"cast it to float$"):
        pl_metrics.from_wide(owl, labels, labels_col="labels")


def test_a_missing_truth_column_is_not_offered_the_id_column() -> None:
    # A class the truth lacks ('idx') is offered the truth's other columns, not its ids.
    scores = pl.DataFrame({"id": [1, 2], "idx": [0.1, 0.8], "b": [0.9, 0.2]})
    truth = pl.DataFrame({"id": [1, 2], "b": [1, 0], "c": [0, 1]})
    with pytest.raises(pl_metrics.MetricsInputError, match=r"columns \['idx'\]") as told:
        pl_metrics.from_wide(scores, truth, classes=["idx", "b"])
    assert "did you mean 'id'" not in str(told.value)


@pytest.mark.parametrize("name", ["*", "^u$"])
def test_a_truth_column_named_as_a_pattern_is_refused(name: str) -> None:
    # A column of the truth table alone (a solution's Usage, say) named as polars' patterns.
    scores = pl.DataFrame({"id": [1, 2], "a": [0.1, 0.8], "b": [0.9, 0.2]})
    truth = pl.DataFrame({"id": [1, 2], "a": [0, 1], "b": [1, 0], name: ["x", "y"]})
    with pytest.raises(pl_metrics.MetricsInputError, match=r"^column '.*': polars reads"):
        pl_metrics.from_wide(scores, truth)


def test_long_of_one_file_repeating_an_id_offers_no_model_folders(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = _long_argv(tmp_path, "id,a,b\n1,0.1,0.9\n1,0.3,0.6\n", "id,a,b\n1,0,1\n")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "repeat" in err
    assert "model=NAME/" not in err


def test_long_refuses_a_truth_file_that_lacks_a_class_column(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "sub.csv").write_text("id,a,b\n1,0.1,0.9\n2,0.8,0.2\n")
    (tmp_path / "sol1.csv").write_text("id,a,b\n1,0,1\n")
    (tmp_path / "sol2.csv").write_text("id,a\n2,1\n")
    argv = ["long", str(tmp_path / "sub.csv"), "--truth", str(tmp_path / "sol*.csv")]
    assert main([*argv, "-o", str(tmp_path / "long.parquet")]) == 2
    err = capsys.readouterr().err
    assert "column 'b' is in some files of the table but not in" in err
    assert "needs the id column and every class's column" in err


def test_compare_without_folds_quotes_a_model_column_of_spaces(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # The advice to pool per model is a command line a shell takes whole: 'my model' quoted.
    path = tmp_path / "pooled.parquet"
    pl.read_parquet(DATA).drop("fold").rename({"model": "my model"}).write_parquet(path)
    assert main(["compare", str(path), "-m", "lrap", "--model-col", "my model"]) == 2
    assert "pl-metrics score --by 'my model'" in capsys.readouterr().err


def test_an_ordered_arrow_dictionary_holding_a_null_keeps_its_order() -> None:
    # A null in an ordered dictionary is a null row, not a category (polars' Enum refuses one).
    labels = pa.DictionaryArray.from_arrays(
        pa.array([0, 2, 1], pa.int32()), pa.array(["b", None, "a"]), ordered=True
    )
    df = to_polars(pa.table({"class": labels, "x": [1, 2, 3]}))
    assert df["class"].dtype == pl.Enum(["b", "a"])
    assert df["class"].to_list() == ["b", "a", None]


@pytest.mark.parametrize("name", ["*", "^m$"])
def test_a_model_column_named_as_a_pattern_is_refused_by_its_option(name: str) -> None:
    # compare's and paired's model column is checked by its own option (paired's crashed
    # with polars' "expanded to multiple expressions" without it).
    df = pl.read_parquet(DATA).rename({"model": name})
    message = r"\(option 'model_col'\): polars reads a name"
    with pytest.raises(pl_metrics.MetricsInputError, match=message):
        pl_metrics.compare(df, "lrap", model_col=name)
    with pytest.raises(pl_metrics.MetricsInputError, match=message):
        pl_metrics.paired(df, "lrap", "knn", "forest", model_col=name, n_resamples=50)


# Mutants of the thirty-sixth session's changes that its tests left alive.


def _four_rows() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "id": [0, 1, 2, 3],
            "class": "x",
            "score": [0.1, 0.4, 0.6, 0.9],
            "truth": [0, 0, 1, 1],
        }
    )


def test_a_held_out_value_column_is_no_key_of_the_thresholds() -> None:
    # best_threshold's held_out_value (a float) is a value, not a key: the thresholds apply.
    table = pl.DataFrame(
        {"class": ["x"], "threshold": [0.5], "value": [1.0], "held_out_value": [0.75]}
    )
    got = pl_metrics.f1(_four_rows(), threshold=table)
    assert got.item() == pytest.approx(f1_score([0, 0, 1, 1], [0, 0, 1, 1]))


def test_an_all_null_value_column_is_no_key_in_a_bad_rows_example() -> None:
    # A value column of nulls (pl.Null) is best_threshold's value, not shown as a key.
    table = pl.DataFrame({"class": ["x"], "threshold": [float("nan")], "value": [None]})
    assert table.schema["value"] == pl.Null
    with pytest.raises(pl_metrics.MetricsInputError) as error:
        pl_metrics.f1(_four_rows(), threshold=table)
    assert "e.g. class='x': nan" in str(error.value)


def test_a_text_value_column_not_grouped_by_leaves_the_thresholds_applying() -> None:
    # A 'value' column read as text (a CSV's empty column) keys nothing unless grouped by.
    table = pl.DataFrame(
        {"class": ["x"], "threshold": [0.5], "value": pl.Series([None], dtype=pl.String)}
    )
    got = pl_metrics.f1(_four_rows(), threshold=table)
    assert got.item() == pytest.approx(f1_score([0, 0, 1, 1], [0, 0, 1, 1]))


def test_a_json_duration_key_finer_than_the_unit_is_not_rounded_to_a_class() -> None:
    # "PT1.0005S" is no millisecond duration: it must not be read as the class 1s.
    classes = [dt.timedelta(seconds=1), dt.timedelta(seconds=2)]
    rows = pl.DataFrame(
        {
            "id": [i for i in range(4) for _ in classes],
            "class": pl.Series(classes * 4, dtype=pl.Duration("ms")),
            "score": [0.1, 0.2, 0.4, 0.3, 0.6, 0.7, 0.9, 0.8],
            "truth": [0, 0, 0, 1, 1, 0, 1, 1],
        }
    )
    exact = pl.DataFrame({"class": ["PT1S", "PT2S"], "threshold": [0.5, 0.5]})
    got = pl_metrics.f1(rows, threshold=exact, average=None).sort("class")
    assert got["f1"].to_list() == pytest.approx(
        [f1_score([0, 0, 1, 1], [0, 0, 1, 1]), f1_score([0, 1, 0, 1], [0, 0, 1, 1])]
    )
    finer = pl.DataFrame({"class": ["PT1.0005S", "PT2S"], "threshold": [0.5, 0.5]})
    with pytest.raises(pl_metrics.MetricsInputError):
        pl_metrics.f1(rows, threshold=finer, average=None)


def test_paired_tells_a_missing_model_before_the_other_models_bad_rows() -> None:
    # Model 'b' absent: that is told, not a bad truth in 'a' found by the rows' own check.
    df = pl.DataFrame(
        {
            "model": "a",
            "id": [0, 1, 2, 3],
            "class": "x",
            "score": [0.1, 0.4, 0.6, 0.9],
            "truth": [0.0, 2.0, 1.0, 1.0],
        }
    )
    with pytest.raises(pl_metrics.MetricsInputError) as error:
        pl_metrics.paired(df, "f1", "a", "b", n_resamples=20)
    assert "'b'" in str(error.value)
    assert "neither 0 nor 1" not in str(error.value)


def test_long_compares_negative_padded_ids_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # '-07' is padded as '007' is: not the solution's -7.
    from pl_metrics.cli import main

    submission, solution = tmp_path / "sub.csv", tmp_path / "sol.csv"
    submission.write_text("id,cat,dog\n-07,0.7,0.3\n8,0.2,0.8\n")
    solution.write_text("id,cat,dog\n-7,1,0\n8,0,1\n")
    assert main(["long", str(submission), "--truth", str(solution)]) == 2
    assert "such as '-07': ids are compared as written" in capsys.readouterr().err
