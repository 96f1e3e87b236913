"""Defects a new user hit (the "Solid at every joint" issue), one test each.

Plots, adapters, packaging and the command line's messages have theirs in test_plot,
test_adapters, test_packaging, test_cli and test_io.
"""

from __future__ import annotations

import datetime as dt
import gc
import weakref
from collections.abc import Callable
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.dataset as ds
import pytest
from polars.testing import assert_frame_equal
from sklearn.metrics import label_ranking_average_precision_score

import pl_metrics
from pl_metrics import _state
from pl_metrics.cli import main

DATA = Path(__file__).parent.parent / "data" / "digits_oof.parquet"
DIGITS = pl.read_parquet(DATA)
KNN = DIGITS.filter(pl.col("model") == "knn")


@pytest.mark.parametrize(
    "class_type", [pl.String, pl.Categorical, pl.Enum([str(k) for k in range(10)])]
)
@pytest.mark.parametrize("loss", ["log_loss", "weighted_log_loss"])
def test_log_losses_and_top_k_in_one_report(class_type: pl.DataType, loss: str) -> None:
    df = DIGITS.with_columns(pl.col("class").cast(class_type))
    metrics = [loss, "top_k_accuracy"]
    eager = pl_metrics.report(df, metrics, by="model")
    lazy = pl_metrics.report(df.lazy(), metrics, by="model").collect()
    assert_frame_equal(eager, lazy, rel_tol=1e-12)
    for metric in metrics:
        alone = pl_metrics.report(df, metric, by="model")
        assert_frame_equal(eager.select("model", metric), alone, rel_tol=1e-12)
    compared = pl_metrics.compare(df, metrics)
    assert compared.height == 4


def test_log_loss_and_top_k_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(DATA), "-m", "log_loss,top_k_accuracy", "--by", "model"]) == 0
    assert "top_k_accuracy" in capsys.readouterr().out


def test_two_families_defining_one_column_differently_is_an_internal_error() -> None:
    same = [pl.col("a").sum().alias("x"), pl.col("a").sum().alias("x")]
    assert len(_state._same_by_name(same)) == 1
    with pytest.raises(RuntimeError, match=r"internal error.*'x'"):
        _state._same_by_name([pl.col("a").sum().alias("x"), pl.col("b").sum().alias("x")])


@pytest.mark.parametrize(
    "metrics", [["roc_auc"], ["average_precision"], ["roc_auc", "lwlrap"], ["padded_cmap"]]
)
@pytest.mark.parametrize("n_chunks", [1, 3])
def test_score_per_class_with_metrics_ranking_within_a_class(
    metrics: list[str], n_chunks: int
) -> None:
    want = pl_metrics.report(DIGITS, metrics, by="model", per_class=True)
    got = pl_metrics.score(DATA, metrics, by="model", per_class=True, n_chunks=n_chunks)
    assert_frame_equal(got, want, rel_tol=1e-12)


def test_cli_per_class_roc_auc(tmp_path: Path) -> None:
    out = tmp_path / "out.csv"
    argv = ["score", str(DATA), "-m", "roc_auc", "--per-class", "--by", "model", "-o", str(out)]
    assert main(argv) == 0
    assert pl.read_csv(out).columns == ["model", "class", "roc_auc"]


@pytest.mark.parametrize("options", [{"average": None}, {"per_class": True}])
def test_bootstrap_and_paired_per_class(options: dict[str, object]) -> None:
    small = DIGITS.filter(pl.col("id") < 300)
    ci = pl_metrics.bootstrap(small, "f1", by="model", n_resamples=20, **options)
    assert ci.columns[:3] == ["model", "class", "metric"]
    assert ci.height == 4 * 10
    per_class = pl_metrics.f1(small, by="model", average=None)
    joined = per_class.join(ci, on=["model", "class"])
    np.testing.assert_allclose(joined["f1"], joined["estimate"], rtol=1e-12)
    assert joined["lower"].n_unique() > 1  # one interval per class, not one copied
    diff = pl_metrics.paired(small, "f1", "knn", "logreg", n_resamples=20, **options)
    assert diff.columns[0] == "class"
    assert diff.height == 10
    want = (
        per_class.filter(pl.col("model") == "logreg")["f1"]
        - per_class.filter(pl.col("model") == "knn")["f1"]
    )
    np.testing.assert_allclose(diff["difference"], want, rtol=1e-12)


def test_states_from_dataframes_and_lazyframes_merge() -> None:
    a = pl_metrics.state(KNN.filter(pl.col("id") % 2 == 0), "lrap").collect()
    b = pl_metrics.state(KNN.filter(pl.col("id") % 2 == 1).lazy(), "lrap").collect()
    merged = pl_metrics.merge_states([a, b]).finalize().collect()
    assert merged["lrap"].item() == pytest.approx(pl_metrics.lrap(KNN).item(), rel=1e-12)
    c = pl_metrics.state(KNN, "lrap", weight_col=None, validate=False)
    with pytest.raises(pl_metrics.MetricsInputError, match="options: validate True vs False"):
        pl_metrics.merge_states([a, c])


def test_many_positives_per_id_lazily_equal_sklearn() -> None:
    """The LazyFrame plan counts ids with many positives by cumulative sums, not pairs."""
    rng = np.random.default_rng(3)
    truth = rng.random((40, 300)) < 0.25
    score = np.round(rng.random((40, 300)), 2)
    df = pl_metrics.from_numpy(truth, score)
    want = label_ranking_average_precision_score(truth, score)
    for frame in (df, df.lazy()):
        got = pl_metrics.report(frame, ["lrap", "lwlrap"])
        got = got.collect() if isinstance(got, pl.LazyFrame) else got
        assert got["lrap"].item() == pytest.approx(want, rel=1e-12)
    plan = pl_metrics.state(df.lazy(), "lrap").groups.lazy().explain()
    assert "cum_sum" in plan  # the cumulative branch is in the plan


def test_score_time_zone_aware_ids_in_chunks(tmp_path: Path) -> None:
    start = dt.datetime(2024, 3, 30, tzinfo=dt.timezone.utc)
    df = KNN.with_columns(
        id=pl.lit(start).dt.convert_time_zone("Europe/Paris")
        + pl.duration(hours=pl.col("id").cast(pl.Int64))
    ).sort("id")
    path = tmp_path / "tz.parquet"
    df.write_parquet(path, row_group_size=2000)
    got = pl_metrics.score(path, ["lrap", "f1"], n_chunks=4)
    assert_frame_equal(got, pl_metrics.report(KNN, ["lrap", "f1"]), rel_tol=1e-12)


def test_bootstrap_seed_is_checked() -> None:
    for seed in (-1, 2**63, 1.5, True):
        with pytest.raises(pl_metrics.MetricsInputError, match="option 'seed'"):
            pl_metrics.bootstrap(KNN, "lrap", n_resamples=5, seed=seed)  # type: ignore[arg-type]


def test_roc_auc_on_a_null_class_names_the_null_rows() -> None:
    df = KNN.with_columns(
        pl.when(pl.col("class") == "3").then(None).otherwise("class").alias("class")
    )
    with pytest.raises(pl_metrics.MetricsInputError, match=r"column .class.: .* rows are null"):
        pl_metrics.roc_auc(df)


@pytest.mark.parametrize("kind", ["eager", "lazy", "streaming", "score", "cli"])
def test_same_input_same_bits(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    metrics = [
        "lwlrap",
        "lrap",
        "label_ranking_loss",
        "f1",
        "log_loss",
        "roc_auc",
        "top_k_accuracy",
    ]

    def run() -> pl.DataFrame:
        if kind == "eager":
            return pl_metrics.report(DIGITS, metrics, by="model")
        if kind == "lazy":
            return pl_metrics.report(DIGITS.lazy(), metrics, by="model").collect()
        if kind == "streaming":
            lazy = pl_metrics.report(DIGITS.lazy(), metrics, by="model")
            return lazy.collect(engine="streaming")
        if kind == "score":
            return pl_metrics.score(DATA, metrics, by="model", n_chunks=3)
        out = tmp_path / "out.csv"
        assert (
            main(["score", str(DATA), "-m", ",".join(metrics), "--by", "model", "-o", str(out)])
            == 0
        )
        return pl.DataFrame({"text": [out.read_text()]})

    first = run()
    for _ in range(4):
        assert run().equals(first)


ARROW_KINDS = {
    "pyarrow table": lambda df: df.to_arrow(),
    "record batch reader": lambda df: pa.RecordBatchReader.from_batches(
        df.to_arrow().schema, df.to_arrow().to_batches()
    ),
    "pandas": lambda df: df.to_pandas(),  # pandas >= 2.2 exports an Arrow C stream
}


@pytest.mark.parametrize("kind", list(ARROW_KINDS))
def test_arrow_tables_are_accepted_everywhere(kind: str) -> None:
    want = pl_metrics.report(DIGITS, ["lrap", "f1"], by="model")
    make = ARROW_KINDS[kind]
    got = pl_metrics.report(make(DIGITS), ["lrap", "f1"], by="model")
    assert isinstance(got, pl.DataFrame)
    assert_frame_equal(got, want)
    assert_frame_equal(pl_metrics.lrap(make(DIGITS), by="model"), want.select("model", "lrap"))
    assert_frame_equal(pl_metrics.score(make(DIGITS), ["lrap", "f1"], by="model"), want)
    assert pl_metrics.compare(make(DIGITS), "lrap").height == 4
    assert pl_metrics.state(make(DIGITS), "lrap").collect().groups.height == 1


def test_a_record_batch_reader_read_twice_says_it_is_read_once() -> None:
    """A reader scored a second time gives no rows: "the table is empty" alone sent a user
    looking for what emptied it."""
    reader = ARROW_KINDS["record batch reader"](DIGITS)
    pl_metrics.lrap(reader, by="model")
    with pytest.raises(pl_metrics.MetricsInputError, match="a reader gives its rows once"):
        pl_metrics.lrap(reader, by="model")
    sink = pa.BufferOutputStream()  # an IPC stream's reader, a subclass
    with pa.ipc.new_stream(sink, DIGITS.to_arrow().schema) as writer:
        writer.write_table(DIGITS.to_arrow())
    stream = pa.ipc.open_stream(sink.getvalue())
    pl_metrics.lrap(stream, by="model")
    with pytest.raises(pl_metrics.MetricsInputError, match="a reader gives its rows once"):
        pl_metrics.lrap(stream, by="model")


def test_pandas_index_and_mixed_columns() -> None:
    """A named index (the ids after set_index) is a column; a mixed column is named."""
    pd = pytest.importorskip("pandas")
    want = pl_metrics.report(DIGITS, ["lrap", "f1"], by="model")
    frame = DIGITS.to_pandas()
    indexed = frame.set_index(["model", "id"])
    assert_frame_equal(pl_metrics.report(indexed, ["lrap", "f1"], by="model"), want)
    assert_frame_equal(pl_metrics.score(indexed, ["lrap", "f1"], by="model"), want)
    # A level that is a column already, a named row number, a partly named index.
    for same in (
        frame.set_index("id", drop=False),
        frame.rename_axis("row"),
        frame.set_index("model", append=True).assign(level_0=0),
    ):
        assert_frame_equal(pl_metrics.report(same, ["lrap", "f1"], by="model"), want)
    # Ids 0, 1, ... in order, one class each: pandas may hold the index as a RangeIndex.
    one = pl.DataFrame({"id": range(5), "class": "a", "score": [0.1, 0.5, 0.3, 0.9, 0.7]})
    one = one.with_columns(truth=pl.Series([False, True, False, True, True]))
    ranged = one.to_pandas().set_index("id")
    ranged.index = pd.RangeIndex(5, name="id")
    assert_frame_equal(pl_metrics.report(ranged, "lrap"), pl_metrics.report(one, "lrap"))
    # An ordered categorical (a polars enum in pandas) keeps its order: top-k breaks ties by it.
    ties = pl.DataFrame(
        {
            "id": [1, 1, 1, 2, 2, 2],
            "class": ["b", "a", "c"] * 2,
            "score": [0.5, 0.5, 0.1, 0.2, 0.2, 0.6],
        }
    ).with_columns(truth=pl.Series([True, False, False, False, True, False]))
    enum = ties.with_columns(pl.col("class").cast(pl.Enum(["b", "a", "c"])))
    want_k = pl_metrics.top_k_accuracy(enum, k=1)
    assert want_k.item() != pl_metrics.top_k_accuracy(ties, k=1).item()  # the order matters
    assert_frame_equal(pl_metrics.top_k_accuracy(enum.to_pandas(), k=1), want_k)
    # Through Arrow too (an ordered dictionary), as pyarrow reads pandas: read as text order.
    table = pa.Table.from_pandas(enum.to_pandas())
    for arrow in (table, table.to_batches()[0], table.to_reader()):
        assert_frame_equal(pl_metrics.top_k_accuracy(arrow, k=1), want_k)
    # And pandas' Arrow-backed columns (dtype_backend="pyarrow"): read as text order before.
    backed = table.to_pandas(types_mapper=pd.ArrowDtype)
    assert_frame_equal(pl_metrics.top_k_accuracy(backed, k=1), want_k)
    # Unordered categories declare no order: their labels sort as text, as polars' do.
    plain = ties.to_pandas().astype({"class": pd.CategoricalDtype(["b", "a", "c"])})
    want_text = pl_metrics.top_k_accuracy(ties, k=1)
    assert_frame_equal(pl_metrics.top_k_accuracy(plain, k=1), want_text)
    assert_frame_equal(pl_metrics.top_k_accuracy(pa.Table.from_pandas(plain), k=1), want_text)
    mixed = pd.DataFrame({"id": [0, 0], "class": ["a", 1], "score": [0.9, 0.1], "truth": [1, 0]})
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"mixed or unknown types in column 'class'"
    ):
        pl_metrics.lrap(mixed)
    # A column of one type polars does not know (Python objects) is named too, as such.
    # (not a column of 1 beside 2.5, which reads as floats)
    floats = pd.Series([1, 2.5, 3, 4], dtype=object)
    objects = DIGITS.head(4).to_pandas().assign(x=floats, note=[object()] * 4)
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"Python objects of mixed or unknown types in column 'note': make each column "
        r"one type, or drop it",
    ):
        pl_metrics.lrap(objects)
    complex_ = DIGITS.head(4).to_pandas().assign(z=np.ones(4) * 1j)  # Arrow's raw error
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"polars cannot read the type of 'z' \(complex128\)"
    ):
        pl_metrics.lrap(complex_)
    # A sparse column ("Did not pass numpy.dtype object"), columns of one name (polars'
    # "non-unique ... column names"), a Series as the threshold table (AttributeError).
    frame = DIGITS.head(4).to_pandas()
    sparse = frame.assign(note=pd.arrays.SparseArray(np.zeros(4)))
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"cannot read the type of 'note' \(Sparse\[float64"
    ):
        pl_metrics.lrap(sparse)
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"it has several columns named 'score'; rename or"
    ):
        pl_metrics.lrap(pd.concat([frame, frame[["score"]]], axis=1))
    twice = frame.set_index(["id", "class"]).rename_axis(["k", "k"]).assign(**{"class": 0})
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"its index has several levels named 'k'; rename"
    ):
        pl_metrics.lrap(twice)
    # Names that differ only as Python values (1 and "1"; a named index "0" beside a column
    # 0) are one name in polars: told by it too.
    for clash in (
        frame.assign(**{"1": 0.0}).rename(columns={"1": 1}).assign(**{"1": 1.0}),
        frame.assign(**{"0": range(4)}).set_index("0").assign(**{"x": 0}).rename(columns={"x": 0}),
    ):
        with pytest.raises(
            pl_metrics.MetricsInputError, match=r"it has several columns named '[01]'; rename or"
        ):
            pl_metrics.lrap(clash)
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"^option 'threshold': expected a number or a table"
    ):
        pl_metrics.f1(DIGITS, threshold=pd.Series([0.3]))


def test_arrow_tables_read_without_string_views(monkeypatch: pytest.MonkeyPatch) -> None:
    # pyarrow before 16 has no pa.types.is_string_view: every Table raised AttributeError.
    monkeypatch.delattr(pa.types, "is_string_view")
    assert_frame_equal(
        pl_metrics.lrap(DIGITS.to_arrow(), by="model"), pl_metrics.lrap(DIGITS, by="model")
    )


def test_duckdb_relations_are_accepted() -> None:
    duckdb = pytest.importorskip("duckdb")
    relation = duckdb.sql("select * from DIGITS")  # duckdb finds the local polars frame
    got = pl_metrics.lrap(relation, by="model")
    assert_frame_equal(got, pl_metrics.lrap(DIGITS, by="model"))


def test_a_column_polars_cannot_read_is_named() -> None:
    """An Arrow interval column: polars raises for a table, panics for a stream (DuckDB's)."""
    duckdb = pytest.importorskip("duckdb")
    table = DIGITS.head(20).to_arrow()
    table = table.append_column(
        "wait", pa.array([pa.MonthDayNano([0, 1, 0])] * 20, pa.month_day_nano_interval())
    )
    stream = pa.RecordBatchReader.from_batches(table.schema, table.to_batches())
    relation = duckdb.sql("select *, interval 1 day as wait from DIGITS limit 20")
    for frame in (table, stream, relation):
        with pytest.raises(
            pl_metrics.MetricsInputError,
            match=r"polars cannot read the type of 'wait' \(month_day_nano_interval\); drop",
        ):
            pl_metrics.lrap(frame)
    # A union, of which pyarrow cannot make the empty array the check makes (its raw error).
    kinds = pa.array([0] * 20, pa.int8())
    union = pa.UnionArray.from_sparse(kinds, [pa.array([1] * 20), pa.array(["a"] * 20)])
    with pytest.raises(pl_metrics.MetricsInputError, match=r"cannot read the type of 'either'"):
        pl_metrics.lrap(DIGITS.head(20).to_arrow().append_column("either", union))


def test_a_pyarrow_dataset_is_a_score_source(tmp_path: Path) -> None:
    DIGITS.write_parquet(tmp_path / "part.parquet")
    dataset = ds.dataset(tmp_path, format="parquet")
    got = pl_metrics.score(dataset, "lrap", by="model", n_chunks=2)
    assert_frame_equal(got, pl_metrics.lrap(DIGITS, by="model"), rel_tol=1e-12)
    # The metrics take no Dataset (it streams no Arrow): how to score it is said.
    with pytest.raises(TypeError, match=r"Dataset; for a pyarrow Dataset, pass pl\.scan_pyarrow"):
        pl_metrics.lrap(dataset, by="model")  # type: ignore[type-var]
    lazy = pl_metrics.lrap(pl.scan_pyarrow_dataset(dataset), by="model").collect()
    assert_frame_equal(lazy, pl_metrics.lrap(DIGITS, by="model"))


def test_other_objects_are_refused_naming_what_is_accepted() -> None:
    with pytest.raises(TypeError, match="Arrow C stream"):
        pl_metrics.lrap({"id": [1]})  # type: ignore[type-var]
    with pytest.raises(TypeError, match=r"pyarrow\.dataset\.Dataset"):
        pl_metrics.score(42, "lrap")
    with pytest.raises(TypeError, match="Arrow C stream"):
        pl_metrics.compare([1, 2, 3], "lrap")  # type: ignore[type-var]
    # A path (which score() takes): how to read it lazily.
    for path in ("oof/", Path("oof")):
        with pytest.raises(TypeError, match=r"got .*; for files, pass pl_metrics\.scan\('oof/?'\)"):
            pl_metrics.bootstrap(path, "lrap")  # type: ignore[type-var]
    # Columns stream through the Arrow interface too, but are no table.
    for column in (DIGITS["score"], DIGITS["score"].to_pandas(), DIGITS["score"].to_arrow()):
        with pytest.raises(
            TypeError, match=r"got (polars|pandas|pyarrow)\..*(Series|Array)($|; for a pandas)"
        ):
            pl_metrics.lrap(column)  # type: ignore[type-var]


def test_paired_names_a_model_that_is_not_there() -> None:
    with pytest.raises(pl_metrics.MetricsInputError, match=r"no rows of model 'nope'; its.*'knn'"):
        pl_metrics.paired(DIGITS, "lrap", "logreg", "nope", n_resamples=5)
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"no rows of model 'knm'; did you mean 'knn'\? its"
    ):
        pl_metrics.paired(DIGITS, "lrap", "logreg", "knm", n_resamples=5)


def test_unknown_options_of_compare_and_the_bootstrap_are_named() -> None:
    with pytest.raises(pl_metrics.MetricsInputError, match="did you mean 'weight_col'"):
        pl_metrics.compare(DIGITS, "lrap", weight_cl="w")
    with pytest.raises(pl_metrics.MetricsInputError, match="bootstrap: unknown option 'bogus'"):
        pl_metrics.bootstrap(KNN, "lrap", n_resamples=5, bogus=1)
    with pytest.raises(pl_metrics.MetricsInputError, match="option 'by' is set by compare"):
        pl_metrics.compare(DIGITS, "lrap", by="fold")


def test_internal_columns_stay_out_of_messages() -> None:
    with pytest.raises(pl_metrics.MetricsInputError) as error:
        pl_metrics.bootstrap(DIGITS, "lrap", n_resamples=5)  # forgot by="model"
    assert "__plm" not in str(error.value)


def test_a_state_prints_small() -> None:
    state = pl_metrics.state(DIGITS, ["lrap", "roc_auc"], by="model")
    want = "MetricState(metrics=['lrap', 'roc_auc'], by=['model'], groups=lazy, classes=lazy"
    assert repr(state) == f"{want}, curves=lazy)"
    assert "groups=4 rows" in repr(state.collect())


def test_quantile_edges_round_as_numpy_does() -> None:
    """numpy's 'linear' virtual index is ``(n - 1) * q``; ``n*q + (1 - q) - 1`` rounds
    differently, putting an edge at 0.25 where numpy's is 0.24999999999999978 (and so
    binning the tied 0.25 scores one bin lower than scikit-learn)."""
    from sklearn.calibration import calibration_curve

    score = [0.5, 0.25, 0.25, 0.0, 0.0, 0.0, 0.0]
    truth = [True, False, True, False, True, False, False]
    df = pl.DataFrame({"id": range(7), "class": [0] * 7, "score": score, "truth": truth})
    prob_true, prob_pred = calibration_curve(truth, score, n_bins=3, strategy="quantile")
    for frame in (df, df.lazy()):
        out = pl_metrics.calibration_curve(frame, n_bins=3, strategy="quantile")
        out = out.collect() if isinstance(out, pl.LazyFrame) else out
        np.testing.assert_allclose(out["prob_true"].to_numpy(), prob_true, rtol=1e-12)
        np.testing.assert_allclose(out["prob_pred"].to_numpy(), prob_pred, rtol=1e-12)


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
@pytest.mark.parametrize("metric", ["lrap", "f1", "report"])
def test_a_scored_frame_is_freed_when_dropped(lazy: bool, metric: str) -> None:
    """polars kept the ``.metrics`` namespace on the frame and the namespace the frame: a
    cycle, so each frame scored stayed in memory until the cycle collector ran (a loop over
    20M-row files grew by 0.35 GiB a file). Dropped, a scored frame is freed at once."""
    frame: pl.DataFrame | pl.LazyFrame = DIGITS.clone()
    if lazy:
        frame = frame.lazy()
    gone = weakref.ref(frame)
    enabled = gc.isenabled()
    gc.disable()  # only reference counts free it
    try:
        namespace = frame.metrics
        if metric == "report":
            result = namespace.report(["lrap", "f1"], by="model")
        else:
            result = getattr(namespace, metric)(by="model")
        if isinstance(result, pl.LazyFrame):
            result = result.collect()
        assert result.height == 4
        del frame, namespace
        assert gone() is None
    finally:
        if enabled:
            gc.enable()


@pytest.mark.parametrize("factor", [2.0**-600, 1e-170, 1e160, 2.0**600])
def test_metrics_of_weights_far_from_one_are_those_of_the_weights_scaled(factor: float) -> None:
    # ROC AUC's area, average precision's steps and MCC's spread multiply weights: 1e-170
    # underflowed (NaN, 0.0) and 1e160 overflowed (inf, above 1).
    from sklearn.metrics import average_precision_score, matthews_corrcoef, roc_auc_score

    from pl_metrics import expr

    rng = np.random.default_rng(3)
    truth, score = rng.random((40, 3)) < 0.4, np.round(rng.random((40, 3)), 1)
    weight = rng.integers(1, 5, 40).astype(float)  # powers of two apart from the scaled
    df = pl_metrics.from_numpy(truth, score).with_columns(
        w=pl.lit(pl.Series(weight)).gather(pl.col("id")) * factor
    )
    for metric, reference in [
        ("roc_auc", lambda t, s, w: roc_auc_score(t, s, sample_weight=w)),
        ("average_precision", lambda t, s, w: average_precision_score(t, s, sample_weight=w)),
        ("matthews_corrcoef", lambda t, s, w: matthews_corrcoef(t, s >= 0.5, sample_weight=w)),
    ]:
        expected = [reference(truth[:, k], score[:, k], weight) for k in range(3)]
        function = getattr(pl_metrics, metric)
        for ours in (
            function(df, weight_col="w", average=None),
            function(df.lazy(), weight_col="w", average=None).collect(),
        ):
            np.testing.assert_allclose(ours[metric].to_numpy(), expected, rtol=1e-12)
    one_class = df.filter(pl.col("class") == 0)
    auc = one_class.select(expr.roc_auc("score", "truth", weight="w")).item()
    assert auc == pytest.approx(roc_auc_score(truth[:, 0], score[:, 0], sample_weight=weight))


def test_weights_whose_sums_overflow_are_refused() -> None:
    # Weighted means of them overflowed; F1 was NaN, ROC AUC 0.0, the PR curve's precision 0.
    huge = KNN.with_columns(w=pl.when(pl.col("id") % 7 == 0).then(-1e298).otherwise(1.0))
    names = ["log_loss", "coverage_error", "brier_score", "accuracy", "f1", "roc_auc"]
    message = r"^column 'w': [\d,]+ rows have a magnitude outside \[1e-290, 1e\+290\]"
    for metric in [*names, "precision_recall_curve", "best_threshold"]:
        with pytest.raises(pl_metrics.MetricsInputError, match=message):
            pl_metrics.report(huge, metric, weight_col="w", by="fold")
    with pytest.raises(pl_metrics.MetricsInputError, match=message):
        pl_metrics.score(huge, names, weight_col="w", by="fold", n_chunks=2, progress=False)
    # Subnormal weights lost digits (MCC -0.444 for -0.5).
    tiny = KNN.with_columns(w=pl.lit(2e-323))
    with pytest.raises(pl_metrics.MetricsInputError, match=message):
        pl_metrics.matthews_corrcoef(tiny, weight_col="w", by="fold")
    # Within [1e-290, 1e290], the metrics of the weights divided by a common factor.
    want = pl_metrics.report(KNN, [*names, "matthews_corrcoef"], by="fold")
    for w in (1e290, 1e-290):
        weighted = KNN.with_columns(w=pl.lit(w))
        got = pl_metrics.report(weighted, [*names, "matthews_corrcoef"], weight_col="w", by="fold")
        assert_frame_equal(got, want, rel_tol=1e-12)


def test_weights_of_far_apart_magnitudes_in_one_table() -> None:
    # One power of two for every weight of a class made 1e-200 beside 1e200 underflow:
    # ROC AUC was refused (no positives), MCC 0; average precision was 0 before that too.
    from pl_metrics import expr

    df = pl.DataFrame(
        {
            "id": [0, 1, 2, 3],
            "class": [0] * 4,
            "score": [0.9, 0.3, 0.6, 0.2],
            "truth": [True, True, False, False],
            "w": [1e-200, 1e-200, 1e200, 1e200],
        }
    )
    assert pl_metrics.roc_auc(df, weight_col="w").item() == pytest.approx(0.75, rel=1e-12)
    assert pl_metrics.average_precision(df, weight_col="w").item() == pytest.approx(0.5)
    assert df.select(expr.roc_auc("score", "truth", weight="w")).item() == pytest.approx(0.75)
    ci = pl_metrics.bootstrap(df, "roc_auc", weight_col="w", n_resamples=50)
    assert ci["estimate"].item() == pytest.approx(0.75)
    assert np.isfinite(ci["std"].item())
    mcc = df.with_columns(score=pl.Series([0.0, 1, 1, 1]), truth=pl.Series([1, 0, 0, 1]) == 1)
    mcc = mcc.with_columns(w=pl.Series([1e-200, 1e200, 1e-200, 1e-200]))
    got = pl_metrics.matthews_corrcoef(mcc, weight_col="w").item()
    assert got == pytest.approx(-(0.5**0.5), rel=1e-12)


@pytest.mark.parametrize("factor", [1e-170, 1e160])
def test_bootstrap_of_roc_auc_with_weights_far_from_one(factor: float) -> None:
    rng = np.random.default_rng(0)
    df = pl_metrics.from_numpy(rng.random((30, 2)) < 0.5, np.round(rng.random((30, 2)), 2))
    df = df.with_columns(w=pl.lit(pl.Series(rng.uniform(0.5, 2, 30))).gather(pl.col("id")))
    for average in ("macro", "weighted"):
        want = pl_metrics.bootstrap(df, "roc_auc", weight_col="w", average=average)
        got = pl_metrics.bootstrap(
            df.with_columns(pl.col("w") * factor), "roc_auc", weight_col="w", average=average
        )
        assert_frame_equal(got, want, rel_tol=1e-12)


@pytest.mark.parametrize("kind", ["list", "array", "struct"])
def test_nested_group_and_class_columns_on_the_curve_and_threshold_tables(kind: str) -> None:
    # polars' as-of join panicked ordering lists and structs (calibration, ECE, sweeps,
    # held-out thresholds); a threshold table's nested keys could not be cast to text.
    df = KNN.filter(pl.col("id") < 400).drop("model")
    nest = {
        "list": lambda c: pl.concat_list(c),
        "array": lambda c: pl.concat_list(c).list.to_array(1),
        "struct": lambda c: pl.struct(c.alias("v")),
    }[kind]
    text = df.with_columns(g=(pl.col("id") % 3).cast(pl.String))
    nested = text.with_columns(g=nest(pl.col("g")))
    if kind == "struct":  # (list classes are refused: a list of labels is the wide form)
        nested = nested.with_columns(nest(pl.col("class")).alias("class"))

    def same(function: Callable[..., pl.DataFrame], *args: object, **options: object) -> None:
        got = function(nested, *args, by="g", **options)
        want = function(text, *args, by="g", **options)
        keys = [k for k in ("g", "class") if k in got.columns and got.schema[k].is_nested()]
        # The nested keys back as text, to line the rows up with the text keys' rows.
        first = {
            "list": lambda k: pl.col(k).list.first(),
            "array": lambda k: pl.col(k).arr.first(),
            "struct": lambda k: pl.col(k).struct.field("v"),
        }[kind]
        back = got.with_columns(first(k).alias(k) for k in keys)
        keys = [k for k in ("g", "class") if k in got.columns]
        assert_frame_equal(back.sort(keys), want.sort(keys), check_dtypes=False)

    same(pl_metrics.calibration_curve, n_bins=4)
    same(pl_metrics.calibration_curve, n_bins=4, strategy="quantile")
    same(pl_metrics.expected_calibration_error, n_bins=4)
    same(pl_metrics.threshold_sweep, "f1", thresholds=[0.2, 0.5])
    same(pl_metrics.best_threshold, "f1", fold_col="fold")
    tuned = pl_metrics.best_threshold(nested, "f1", by="g").drop("value")
    want = pl_metrics.best_threshold(text, "f1", by="g").drop("value")
    got = pl_metrics.f1(nested.lazy(), by="g", threshold=tuned.lazy()).collect()
    assert got["f1"].to_list() == pl_metrics.f1(text, by="g", threshold=want)["f1"].to_list()


def test_weighted_curves_of_tied_scores_are_the_same_bits_on_every_run() -> None:
    # The weights of tied scores were summed by polars' streaming group_by, which adds a
    # group's parts in whichever order its threads finish: the curves table, and so average
    # precision and ROC AUC, changed in their last bits from run to run (a review found 1-2
    # ulp differences in 26 of 721 results).
    rng = np.random.default_rng(6)
    n_ids, n_classes = 8_000, 10
    n = n_ids * n_classes
    df = pl.DataFrame(
        {
            "model": np.repeat(["a", "b"], n // 2),
            "id": np.repeat(np.arange(n_ids), n_classes),
            "class": np.tile(np.arange(n_classes, dtype=np.int16), n_ids),
            "score": np.round(rng.random(n), 2),
            "truth": rng.random(n) < 0.3,
            "w": np.repeat(rng.random(n_ids) * 3, n_classes),
        }
    )
    tables = [
        pl_metrics.state(df, "average_precision", by="model", weight_col="w").collect().curves
        for _ in range(4)
    ]
    for table in tables[1:]:
        assert_frame_equal(table, tables[0], check_exact=True)
    values = [
        pl_metrics.average_precision(df, by="model", weight_col="w", average=None) for _ in range(4)
    ]
    for value in values[1:]:
        assert_frame_equal(value, values[0], check_exact=True)


def test_calibration_of_a_null_group_bins_its_scores() -> None:
    # With checks off, a group whose `by` key is null was put whole in bin 0 by the as-of
    # join to the bins' edges (which matched no null key), on some paths and not others.
    rng = np.random.default_rng(0)
    n = 60
    df = pl.DataFrame(
        {
            "id": np.repeat(np.arange(n), 2),
            "class": np.tile([0, 1], n),
            "score": rng.random(2 * n),
            "truth": rng.random(2 * n) < 0.5,
            "model": np.repeat(np.array(["a", "c", None], dtype=object), 2 * n // 3),
        }
    )
    options = dict(n_bins=3, by="model", validate=False)
    for strategy in ("uniform", "quantile"):
        eager = pl_metrics.calibration_curve(df, strategy=strategy, **options)
        lazy = pl_metrics.calibration_curve(df.lazy(), strategy=strategy, **options).collect()
        assert_frame_equal(lazy, eager)
        for (model,), rows in eager.group_by("model"):
            part = df.filter(
                pl.col("model").is_null() if model is None else pl.col("model") == model
            )
            for k in (0, 1):
                cls = part.filter(pl.col("class") == k)
                want = pl_metrics.calibration_curve(cls.drop("model"), n_bins=3, strategy=strategy)
                got = rows.filter(pl.col("class") == k).drop("model")
                assert_frame_equal(got, want)


def test_merged_calibration_of_a_negative_zero_score_is_zero() -> None:
    # A bin of one score -0.0: polars' cumulative sums start from 0.0, numpy's from the
    # first value, so the block path's mean score was -0.0 where the plan's is 0.0 (when
    # an eager state, whose kernel counts 0.0, merged a lazy one that kept -0.0).
    df = pl.DataFrame(
        {"id": [0, 1, 2, 3], "class": "a", "score": [0.7, -0.0, 0.8, 0.9], "truth": [0, 1, 1, 0]}
    )
    even, odd = df.filter(pl.col("id") % 2 == 0), df.filter(pl.col("id") % 2 == 1)
    for a, b in [(even, odd.lazy()), (even.lazy(), odd), (even, odd)]:
        states = [pl_metrics.state(part, "calibration_curve", n_bins=2) for part in (a, b)]
        prob_pred = pl_metrics.merge_states(states).finalize().collect()["prob_pred"]
        assert not np.signbit(prob_pred[0])


@pytest.mark.parametrize("named", ["class", "by", "fold"])
def test_a_column_named_index_is_a_key_like_any_other(named: str) -> None:
    # The curves table's blocks were numbered with `with_row_index()`, whose column is
    # named "index": a class column of that name stopped roc_curve with a DuplicateError.
    df = DIGITS.filter(pl.col("model").is_in(["knn", "logreg"])).with_columns(
        (pl.col("id") % 3).alias("fold")
    )
    names = {"class": "class", "by": "model", "fold": "fold"}
    renamed = df.rename({names[named]: "index"})
    cls, by, fold = (("index" if k == named else names[k]) for k in ("class", "by", "fold"))
    calls: list[Callable[[pl.DataFrame, str, str, str], pl.DataFrame]] = [
        lambda d, c, b, f: pl_metrics.roc_curve(d, class_col=c, by=b, max_points=20),
        lambda d, c, b, f: pl_metrics.best_threshold(d, class_col=c, by=b, fold_col=f),
        lambda d, c, b, f: pl_metrics.best_threshold(d, class_col=c, by=[b, f]),
        lambda d, c, b, f: pl_metrics.roc_auc(d, class_col=c, by=b, average="micro"),
        lambda d, c, b, f: pl_metrics.padded_cmap(d, class_col=c, by=b),
        lambda d, c, b, f: pl_metrics.calibration_curve(d, class_col=c, by=b, strategy="quantile"),
    ]
    for call in calls:
        want = call(df, "class", "model", "fold")
        got = call(renamed, cls, by, fold)
        assert_frame_equal(got, want.rename({names[named]: "index"}, strict=False))


def test_a_by_column_named_empty_text(tmp_path: Path) -> None:
    # The kernel built its group keys with pl.DataFrame(list of series), which renames a
    # series named "" to column_0: a by column named "" stopped every metric.
    df = DIGITS.filter(pl.col("model").is_in(["knn", "logreg"]))
    metrics = ["lwlrap", "lrap", "f1", "log_loss", "roc_auc", "accuracy"]
    want = pl_metrics.report(df, metrics, by="model")
    renamed = df.rename({"model": ""})
    got = pl_metrics.report(renamed, metrics, by="")
    assert_frame_equal(got, want.rename({"model": ""}))
    renamed.write_parquet(tmp_path / "oof.parquet")
    from_file = pl_metrics.score(tmp_path / "oof.parquet", metrics, by="", n_chunks=3)
    assert_frame_equal(from_file, got, rel_tol=1e-12)
