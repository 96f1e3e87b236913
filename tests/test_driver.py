"""Chunked scoring of files equals in-memory scoring; layouts, chunk plans, progress."""

from __future__ import annotations

import functools
import gc
import gzip
import io
import itertools
import math
import re
import warnings
import weakref
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import pl_metrics
from pl_metrics import _driver
from pl_metrics._chunks import REFERENCE_ROW, budget_bytes, class_chunks, plan_chunks, row_bytes
from pl_metrics._driver import local_runner, whole
from pl_metrics._registry import info
from pl_metrics._spec import resolve
from tests.conftest import long_table

DATA = Path(__file__).parent.parent / "data"
METRICS = ["lwlrap", "lrap", "coverage_error", "label_ranking_loss", "f1", "log_loss"]


def close(a: pl.DataFrame, b: pl.DataFrame) -> None:
    assert a.columns == b.columns
    for column in a.columns:
        if a.schema[column].is_float():
            np.testing.assert_allclose(a[column].to_numpy(), b[column].to_numpy(), rtol=1e-12)
        else:
            assert a[column].cast(pl.String).to_list() == b[column].cast(pl.String).to_list()


@pytest.fixture(scope="module")
def digits() -> pl.DataFrame:
    return pl.read_parquet(DATA / "digits_oof.parquet")


@pytest.fixture(scope="module")
def hive_dump(tmp_path_factory: pytest.TempPathFactory, digits: pl.DataFrame) -> Path:
    root = tmp_path_factory.mktemp("oof")
    for (model, fold), part in digits.group_by("model", "fold"):
        folder = root / f"model={model}" / f"fold={fold}"
        folder.mkdir(parents=True)
        part.drop("model", "fold").sort("id").write_parquet(
            folder / "part.parquet", row_group_size=1000
        )
    return root


@pytest.mark.parametrize("n_chunks", [1, 2, 5, 13])
def test_chunked_equals_in_memory(hive_dump: Path, digits: pl.DataFrame, n_chunks: int) -> None:
    whole = pl_metrics.report(digits, METRICS, by=["model", "fold"])
    out = pl_metrics.score(hive_dump, METRICS, by=["model", "fold"], n_chunks=n_chunks)
    close(out, whole)


def test_no_more_chunks_than_ids() -> None:
    # n_chunks=10,000 on 2,000 ids made 10,000 chunks of a read each (53 s; 1,000,000 hung).
    df = pl.DataFrame({"id": np.repeat(np.arange(30), 2), "class": [0, 1] * 30})
    plan = plan_chunks(df.lazy(), n_chunks=1_000, budget=budget_bytes(None))
    assert len(plan.filters) == 30
    single = pl.DataFrame({"id": [7, 7], "class": [0, 1]}).lazy()
    assert plan_chunks(single, n_chunks=5, budget=budget_bytes(None)).strategy == "single"
    assert len(plan_chunks(df.lazy(), n_chunks=4, budget=budget_bytes(None)).filters) == 4


def test_chunk_strategies(hive_dump: Path, tmp_path: Path, digits: pl.DataFrame) -> None:
    files = sorted(hive_dump.rglob("*.parquet"))
    lf = pl_metrics.scan(hive_dump)
    assert plan_chunks(lf, files=files, n_chunks=4, budget=budget_bytes(None)).strategy.startswith(
        "id ranges"
    )
    # A LazyFrame's integer ids: ranges of their histogram; other ids: hash buckets.
    planned = plan_chunks(lf, n_chunks=4, budget=budget_bytes(None))
    assert planned.strategy == "id ranges (of the ids' histogram)"
    text_ids = lf.with_columns(pl.col("id").cast(pl.String))
    assert plan_chunks(text_ids, n_chunks=4, budget=budget_bytes(None)).strategy == "hash buckets"
    assert plan_chunks(lf, files=files, budget=budget_bytes("1TB")).strategy == "single"
    # String ids have statistics too; CSV has none: hash buckets, same answer.
    csv = tmp_path / "dump.csv"
    digits.with_columns(pl.col("id").cast(pl.String)).write_csv(csv)
    whole = pl_metrics.report(
        digits.with_columns(pl.col("id").cast(pl.String)), METRICS, by=["model", "fold"]
    )
    close(pl_metrics.score(csv, METRICS, by=["model", "fold"], n_chunks=3), whole)


def test_a_pyarrow_dataset_is_cut_in_id_ranges(
    tmp_path: Path, digits: pl.DataFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pyarrow filters a dataset by an id range as it reads; a hash bucket only once polars
    has it all in memory: hash-bucket chunks each held the whole dataset (500 MB at a 200 MB
    budget). The ranges come from the batches' ids, as from a parquet file's statistics."""
    import pyarrow.dataset as ds

    def dataset_of(frame: pl.DataFrame, name: str) -> Any:
        frame.write_parquet(tmp_path / name / "part.parquet", row_group_size=1_000, mkdir=True)
        return ds.dataset(tmp_path / name, format="parquet")

    planned: list[str] = []  # score()'s plans

    def noting(*args: Any, **kwargs: Any) -> Any:
        plan = plan_chunks(*args, **kwargs)
        planned.append(plan.strategy.removesuffix(" (scattered row groups)"))
        return plan

    monkeypatch.setattr(_driver, "plan_chunks", noting)
    texts = digits.with_columns(pl.format("clip{}", pl.col("id").cast(pl.String).str.zfill(5)))
    days = digits.with_columns(pl.date(2020, 1, 1) + pl.duration(days=pl.col("id")))
    for name, frame in (("ints", digits), ("texts", texts), ("days", days)):
        dataset = dataset_of(frame.sample(fraction=1, shuffle=True, seed=1), name)
        lf = pl.scan_pyarrow_dataset(dataset)
        plan = plan_chunks(lf, dataset=dataset, n_chunks=4, budget=budget_bytes(None))
        assert len(plan) == 4
        # (Shuffled text ids have no cuts of row-group bounds to take: hash buckets, as a
        # scattered parquet file's.)
        assert plan.strategy == (
            "hash buckets" if name == "texts" else "id ranges (scattered row groups)"
        )
        sorted_ids = dataset_of(frame.sort("id"), f"sorted_{name}")
        plan = plan_chunks(
            pl.scan_pyarrow_dataset(sorted_ids),
            dataset=sorted_ids,
            n_chunks=4,
            budget=budget_bytes(None),
        )
        assert plan.strategy == "id ranges"
        for source in (dataset, sorted_ids):
            planned.clear()
            got = pl_metrics.score(source, METRICS, by=["model", "fold"], n_chunks=4)
            close(got, pl_metrics.report(frame, METRICS, by=["model", "fold"]))
            assert planned == [
                "hash buckets" if name == "texts" and source is dataset else "id ranges"
            ]
    # Ranges of decimal ids polars does not hand to pyarrow: hash buckets, as before.
    decimal_ids = digits.sort("id").with_columns(pl.col("id").cast(pl.Decimal(10, 0)))
    decimals = dataset_of(decimal_ids, "decimal")
    lf = pl.scan_pyarrow_dataset(decimals)
    assert plan_chunks(lf, dataset=decimals, n_chunks=4, budget=budget_bytes(None)).strategy == (
        "hash buckets"
    )
    # Null ids only: no ranges (the planner raised ValueError), the checks' error.
    nulls = dataset_of(digits.with_columns(id=pl.lit(None, pl.Int64)), "nulls")
    with pytest.raises(pl_metrics.MetricsInputError, match=r"column 'id': .* null"):
        pl_metrics.score(nulls, ["lrap"], n_chunks=2)


def test_cluster_by_id_sizes_its_parts_by_the_rows_width(tmp_path: Path) -> None:
    # Its parts were sized at 24 bytes a row whatever the columns: a dump of wide rows (a
    # text model, Int64 keys, Float64 scores and weights) peaked at 4.5x its budget.
    n = 240_000
    narrow = pl.DataFrame(
        {
            "id": pl.Series(np.arange(n) // 4, dtype=pl.Int32),
            "class": pl.Series(np.arange(n) % 4, dtype=pl.Int16),
            "score": pl.Series(np.linspace(0, 1, n), dtype=pl.Float32),
            "truth": np.arange(n) % 3 == 0,
        }
    )
    wide = narrow.with_columns(
        pl.col("id", "class").cast(pl.Int64),
        pl.col("score").cast(pl.Float64),
        model=pl.format("model_{}", pl.col("id") % 4),
        fold=pl.col("id") % 5,
        w=pl.lit(1.0),
    )
    budget = n * 24 // 2  # two parts of the narrow rows
    counts = {}
    for name, frame in (("narrow", narrow), ("wide", wide)):
        frame.write_parquet(tmp_path / f"{name}.parquet")
        out = tmp_path / f"{name}_parts"
        counts[name] = len(
            pl_metrics.cluster_by_id(tmp_path / f"{name}.parquet", out, memory_budget=budget)
        )
    assert counts["narrow"] == 2
    assert counts["wide"] == math.ceil(2 * 65 / 11)  # rows 65 bytes wide, against 11


def test_sorted_text_ids_sharing_row_group_bounds_are_clustered(tmp_path: Path) -> None:
    """Row groups of 7 rows over ids of 10 classes share their boundary ids: sorted text ids
    were taken as scattered, and each chunk read the whole dump (integer ids were not)."""
    digits = pl.read_parquet(DATA / "digits_oof.parquet").filter(pl.col("model") == "knn")
    text = digits.with_columns(pl.format("clip{}", pl.col("id").cast(pl.String).str.zfill(5)))
    path = tmp_path / "sorted.parquet"
    text.sort("id", "class").write_parquet(path, row_group_size=7)
    plan = plan_chunks(pl_metrics.scan(path), files=[path], n_chunks=4, budget=budget_bytes(None))
    assert plan.strategy == "id ranges"
    got = pl_metrics.score(path, METRICS, by="fold", n_chunks=4)
    close(got, pl_metrics.report(text, METRICS, by="fold"))


def test_enum_ids_are_not_cut_by_their_text_statistics(tmp_path: Path) -> None:
    """Parquet's statistics of an Enum id are its text, which polars does not compare by (it
    compares categories in their order): a dump in text order was cut at text bounds, and
    chunks compared in category order missed some ids and read others twice (LRAP 0.7526
    against 0.7525), in silence."""
    digits = pl.read_parquet(DATA / "digits_oof.parquet").filter(pl.col("model") == "knn")
    text = digits.with_columns(pl.format("clip{}", pl.col("id").cast(pl.String).str.zfill(5)))
    shuffled = text["id"].unique().shuffle(seed=3).to_list()
    enum = text.sort("id", "class").with_columns(pl.col("id").cast(pl.Enum(shuffled)))
    path = tmp_path / "text_order.parquet"
    enum.write_parquet(path, row_group_size=70)
    plan = plan_chunks(pl_metrics.scan(path), files=[path], n_chunks=7, budget=budget_bytes(None))
    assert plan.strategy == "hash buckets"
    got = pl_metrics.score(path, METRICS, by="fold", n_chunks=7)
    close(got, pl_metrics.report(enum, METRICS, by="fold"))


def test_ids_whose_statistics_are_not_their_values_are_cut_by_hash(tmp_path: Path) -> None:
    """Parquet statistics of a date past 9999 have no Python value (OverflowError), a half
    float's are raw bytes (polars' SchemaError comparing them with the ids), a duration's
    are integers in the file's unit (seconds, for polars' milliseconds: one chunk of all)."""
    import datetime as dt

    import pyarrow as pa
    import pyarrow.parquet as pq

    n = 100
    rows = pl.DataFrame(
        {
            "class": ["a", "b"] * n,
            "score": [((i * 37) % 101) / 101 for i in range(2 * n)],
            "truth": [i % 4 in (0, 3) for i in range(2 * n)],
        }
    )
    hours = [dt.datetime(2024, 1, 1) + dt.timedelta(hours=k) for k in range(n - 1)]
    end_of_time = pl.Series([*hours, dt.datetime(9999, 12, 31, 23)])
    ids = {
        "zoned": end_of_time.dt.replace_time_zone("America/New_York").to_arrow(),
        "half": pa.array((np.arange(n) / 4).astype(np.float16), pa.float16()),
        "seconds": pa.array(np.arange(n) * 1000, pa.duration("s")),
    }
    for name, values in ids.items():
        table = rows.to_arrow().append_column("id", values.take(np.arange(2 * n) // 2))
        path = tmp_path / f"{name}.parquet"
        pq.write_table(table, path, row_group_size=6)
        lf = pl_metrics.scan(path)
        plan = plan_chunks(lf, files=[path], n_chunks=4, budget=budget_bytes(None))
        assert plan.strategy == "hash buckets", name
        got = pl_metrics.score(path, ["lrap", "f1"], n_chunks=4)
        close(got, pl_metrics.report(pl.read_parquet(path), ["lrap", "f1"]))


def test_ids_whose_statistics_are_their_values_are_cut_by_them(tmp_path: Path) -> None:
    # Times, booleans and durations (in polars' units) keep id ranges of their row groups.
    n = 100
    base = pl.DataFrame(
        {
            "i": np.repeat(np.arange(n), 2),
            "class": ["a", "b"] * n,
            "score": (np.arange(2 * n) * 37 % 101) / 101,
            "truth": np.arange(2 * n) % 4 < 2,
        }
    )
    ids = {
        "time": (pl.col("i") * 1_000_000_000).cast(pl.Time),
        "duration": pl.duration(microseconds=pl.col("i"), time_unit="us"),
        "flag": pl.col("i") >= n // 2,
    }
    for name, expr in ids.items():
        df = base.with_columns(id=expr).drop("i")
        if name == "flag":
            df = df.unique(["id", "class"], keep="first", maintain_order=True)
        path = tmp_path / f"{name}.parquet"
        df.write_parquet(path, row_group_size=2)
        plan = plan_chunks(
            pl_metrics.scan(path), files=[path], n_chunks=2, budget=budget_bytes(None)
        )
        assert plan.strategy == "id ranges", name
        close(
            pl_metrics.score(path, ["lrap", "f1"], n_chunks=2),
            pl_metrics.report(df, ["lrap", "f1"]),
        )


def _two_classes_of(ids: np.ndarray) -> pl.DataFrame:
    """Two classes of each id, with scores and truth that pass the checks."""
    n = len(ids)
    return pl.DataFrame(
        {
            "id": np.repeat(ids, 2),
            "class": ["a", "b"] * n,
            "score": (np.arange(2 * n) * 37 % 101) / 101,
            "truth": np.arange(2 * n) % 4 < 2,
        }
    )


def test_infinite_float_ids_still_make_the_chunks_asked(tmp_path: Path) -> None:
    # A row group from -inf spread its rows over an infinite range: NaN cuts, two chunks
    # where three were asked (the memory budget not kept).
    ids = np.array([-np.inf, *np.linspace(-1, 0, 200), 5.0, 6.0, np.inf])
    df = _two_classes_of(ids)
    path = tmp_path / "inf.parquet"
    for rows in (100, 200, df.height):  # (row groups of 100 ids: two chunks of 272 and 136 rows)
        df.write_parquet(path, row_group_size=rows)
        lf = pl_metrics.scan(path)
        plan = plan_chunks(lf, files=[path], n_chunks=3, budget=budget_bytes(None))
        sizes = [df.filter(f).height for f in plan.filters]
        assert len(sizes) == 3
        assert sum(sizes) == df.height
        assert max(sizes) < df.height / 2
    close(pl_metrics.score(path, METRICS[:4], n_chunks=3), pl_metrics.report(df, METRICS[:4]))


def test_clustered_rewrite(tmp_path: Path, digits: pl.DataFrame) -> None:
    shuffled = tmp_path / "shuffled.parquet"
    digits.sample(fraction=1.0, shuffle=True, seed=1).write_parquet(shuffled, row_group_size=5000)
    parts = pl_metrics.cluster_by_id(
        shuffled, tmp_path / "clustered", n_parts=4, row_group_size=5000
    )
    assert len(parts) == 4
    ranges = [
        pl.read_parquet(p).select(lo=pl.col("id").min(), hi=pl.col("id").max()).row(0)
        for p in parts
    ]
    assert all(ranges[k][1] < ranges[k + 1][0] for k in range(3))  # disjoint, in order
    for part in parts:
        ids = pl.read_parquet(part)["id"]
        assert ids.is_sorted()
    whole = pl_metrics.report(digits, METRICS, by="model")
    close(pl_metrics.score(tmp_path / "clustered", METRICS, by="model", n_chunks=4), whole)
    clustered = plan_chunks(
        pl_metrics.scan(parts), files=parts, n_chunks=4, budget=budget_bytes(None)
    )
    assert clustered.strategy == "id ranges"
    scattered = plan_chunks(
        pl_metrics.scan(shuffled), files=[shuffled], n_chunks=4, budget=budget_bytes(None)
    )
    assert scattered.strategy == "id ranges (scattered row groups)"
    # Scattered row groups need more memory per row: more chunks for the same budget.
    budget = digits.height * 40 // 2
    assert len(plan_chunks(pl_metrics.scan(parts), files=parts, budget=budget_bytes(budget))) == 2
    assert (
        len(plan_chunks(pl_metrics.scan(shuffled), files=[shuffled], budget=budget_bytes(budget)))
        == 5
    )


def test_wider_rows_make_more_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bytes a row takes scale with its columns' widths: Int64 ids, Float64 scores and
    text keys peaked at 6.4 times the budget sized for 40 bytes a row of an Int32 id, an
    Int16 class and a Float32 score."""
    narrow = pl.Schema(
        {"id": pl.Int32, "class": pl.Int16, "score": pl.Float32, "truth": pl.Boolean}
    )
    assert row_bytes(narrow, list(narrow)) == REFERENCE_ROW
    wide = pl.Schema(
        {
            "model": pl.String,
            "fold": pl.Int64,
            "id": pl.Int64,
            "class": pl.Int64,
            "score": pl.Float64,
            "truth": pl.Boolean,
        }
    )
    assert row_bytes(wide, list(wide)) == 24 + 8 * 4 + 1
    lf = pl.LazyFrame({"id": range(10_000)})
    budget = 10_000 * 40 // 2
    narrow_chunks = len(plan_chunks(lf, budget=budget))  # hash buckets: 100 bytes a row
    assert narrow_chunks == 5
    assert len(plan_chunks(lf, budget=budget, width=4 * REFERENCE_ROW)) == 4 * narrow_chunks
    classes = lf.with_columns(**{"class": pl.col("id") % 50})
    narrow_sets = class_chunks(classes, 10_000, "class", categorical=False, budget=budget)
    wide_sets = class_chunks(
        classes, 10_000, "class", categorical=False, budget=budget, width=4 * REFERENCE_ROW
    )
    # Class chunks rank their rows within each class: 250 bytes a row (13 sets hold 4
    # classes of 200 rows, 800 rows, at most: the budget), not the 100 of id chunks (5 sets
    # of 10 classes: roc_auc peaked at 2.5x the budget).
    assert len(narrow_sets) == 13
    # 4x wider rows, 400 bytes a row: 20 sets would hold 3 classes in some (600 rows, 1.2x
    # the budget); the fewest whose largest fits hold 2 each.
    assert len(wide_sets) == 25
    # score() sizes its chunks by the columns its metrics read.
    widths: list[int] = []
    planned = _driver.plan_chunks

    def noting(*args: object, width: int, **kwargs: object) -> object:
        widths.append(width)
        return planned(*args, width=width, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_driver, "plan_chunks", noting)
    digits = pl.read_parquet(DATA / "digits_oof.parquet")
    pl_metrics.score(digits.lazy(), "lrap", by=["model", "fold"])
    assert widths == [row_bytes(digits.schema, ["model", "fold", "id", "class", "score", "truth"])]


def test_null_ids_are_not_lost_in_chunks(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    df = long_table(rng.random((50, 3)) < 0.4, rng.random((50, 3))).sort("id")
    df = df.with_columns(pl.when(pl.col("id") == 7).then(None).otherwise("id").alias("id"))
    path = tmp_path / "nulls.parquet"
    df.write_parquet(path, row_group_size=20)
    with pytest.raises(pl_metrics.MetricsInputError, match="column 'id': 3 rows are null"):
        pl_metrics.score(path, "lrap", n_chunks=4)


def test_gzipped_csv_files_are_csv(tmp_path: Path) -> None:
    digits = pl.read_parquet(DATA / "digits_oof.parquet")
    want = pl_metrics.lrap(digits, by=["model", "fold"])
    for (model,), part in digits.group_by("model"):
        (tmp_path / f"model={model}").mkdir()
        with gzip.open(tmp_path / f"model={model}" / "part.CSV.gz", "wb") as out:
            part.drop("model").write_csv(out)
    one = tmp_path / f"model={model}" / "part.CSV.gz"
    assert_frame_equal(
        pl_metrics.score(one, "lrap", by="fold"),
        pl_metrics.lrap(digits.filter(model=model), by="fold"),
        check_dtypes=False,
        rel_tol=1e-12,
    )
    got = pl_metrics.score(tmp_path, "lrap", by=["model", "fold"], n_chunks=3)
    assert_frame_equal(got, want, check_dtypes=False, rel_tol=1e-12)
    assert_frame_equal(pl_metrics.scan(tmp_path).metrics.lrap(by=["model", "fold"]).collect(), got)


def test_input_errors(tmp_path: Path) -> None:
    with pytest.raises(pl_metrics.MetricsInputError, match="file not found"):
        pl_metrics.score(tmp_path / "missing.parquet", "lrap")
    with pytest.raises(pl_metrics.MetricsInputError, match="no file matches"):
        pl_metrics.score(str(tmp_path / "*.parquet"), "lrap")
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"^unsupported file type '.txt' \('.*notes.txt'\); expected .arrow, .csv, .feather, "
        r".ipc, .parquet, .pq or .csv.gz$",
    ):
        pl_metrics.score(tmp_path / "notes.txt", "lrap")
    with pytest.raises(pl_metrics.MetricsInputError, match="memory_budget"):
        pl_metrics.score(DATA / "digits_oof.parquet", "lrap", memory_budget="lots")


@pytest.mark.parametrize("budget", ["0", "0GB", 0.5, "1KB", 0, 1000, "1.2.3", "."])
def test_budgets_too_small_or_malformed_are_refused(budget: object) -> None:
    # "0" meant a 1-byte budget: millions of chunks, for hours.
    with pytest.raises(pl_metrics.MetricsInputError, match="option 'memory_budget'"):
        budget_bytes(budget)  # type: ignore[arg-type]


def test_the_default_budget_is_set_by_an_environment_variable_or_by_compare(
    monkeypatch: pytest.MonkeyPatch, digits: pl.DataFrame
) -> None:
    """The lazy idiom and compare took no budget: on a dump larger than memory, nothing
    changed their 2 GB chunks."""
    budgets: list[int] = []
    score_spec = _driver.score_spec

    def spy(lf: pl.LazyFrame, spec: Any, *, budget: int, **rest: Any) -> pl.DataFrame:
        budgets.append(budget)
        return score_spec(lf, spec, budget=budget, **rest)

    monkeypatch.setattr(_driver, "score_spec", spy)
    lf = digits.lazy()
    want = pl_metrics.lrap(digits, by="model")
    assert_frame_equal(lf.metrics.lrap(by="model").collect(), want)
    monkeypatch.setenv("PL_METRICS_MEMORY_BUDGET", "3MB")
    assert_frame_equal(lf.metrics.lrap(by="model").collect(), want)
    assert budgets == [2 * 1024**3, 3 * 1024**2]
    assert_frame_equal(pl_metrics.score(lf, "lrap", by="model"), want)
    assert budgets[-1] == 3 * 1024**2
    pl_metrics.compare(lf, "lrap", memory_budget="5MB").collect()
    assert budgets[-2:] == [5 * 1024**2] * 2  # by fold, then pooled
    monkeypatch.setenv("PL_METRICS_MEMORY_BUDGET", "lots")
    # Where no budget is used (a DataFrame to compare, a count of chunks), it is not read.
    pl_metrics.compare(digits, "lrap")
    assert_frame_equal(pl_metrics.score(lf, "lrap", by="model", n_chunks=2), want)
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"^environment variable PL_METRICS_MEMORY_BUDGET: expected bytes or a size",
    ):
        lf.metrics.lrap().collect()


def test_a_budget_of_bytes_is_any_finite_number() -> None:
    """1.5e9 was taken (its text reads as a size) and 1e16 refused (its text does not)."""
    assert budget_bytes(1.5e9) == 1_500_000_000
    assert budget_bytes(1e16) == 10**16
    assert budget_bytes(np.float32(2**30)) == 2**30
    for bad in (math.nan, math.inf, True):
        with pytest.raises(pl_metrics.MetricsInputError, match="expected bytes or a size"):
            budget_bytes(bad)  # type: ignore[arg-type]


def test_never_more_chunks_than_rows() -> None:
    df = long_table(np.eye(3, dtype=bool), np.eye(3) * 0.5)
    assert len(plan_chunks(df.lazy(), n_chunks=1000, budget=budget_bytes(None))) <= df.height
    got = pl_metrics.score(df.lazy(), "lrap", n_chunks=10**7)
    assert got.item() == pytest.approx(pl_metrics.lrap(df).item(), rel=1e-12)


def test_progress_bar_writes_to_its_stream(
    digits: pl.DataFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tqdm import tqdm

    from pl_metrics import _driver

    # Each chunk drawn (tqdm draws at most every 0.1 s: the chunks take less).
    monkeypatch.setattr(_driver, "tqdm", functools.partial(tqdm, mininterval=0))
    lf = digits.lazy()
    plan = plan_chunks(lf, n_chunks=4, budget=budget_bytes(None))
    spec = resolve(lf, "lrap", by="model")
    stream = io.StringIO()
    states = list(local_runner(lf, stream)(plan, spec, whole))
    assert len(states) == 4
    text = stream.getvalue()
    assert f"4 chunks: {plan.strategy}" in text
    assert f"/{digits.height / 1000:.1f}k [" in text  # rows to read
    assert "row/s" in text
    assert "chunk 4/4]" in text  # chunks done
    quiet = list(local_runner(lf, None)(plan, spec, whole))  # nothing to write to: no error
    assert len(quiet) == 4


@pytest.mark.parametrize("weights", [False, True])
def test_chunk_states_are_merged_as_they_come(
    digits: pl.DataFrame, weights: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A micro average's state holds each chunk's distinct scores: the chunks' states, all
    held to the end, made the memory grow as the budget shrank (QA: 0.54 GB at one chunk,
    0.81 GB at a 4 MB budget). Fewer than `_FAN_IN` of each level of merges are held."""
    frame = digits.with_columns(w=1.0 + pl.col("id") % 3) if weights else digits
    lf = frame.lazy()
    plan = plan_chunks(lf, n_chunks=70, budget=budget_bytes(None))
    options = {"weight_col": "w"} if weights else {}
    spec = resolve(lf, ["roc_auc", "f1", "lrap"], by="model", average="micro", **options)
    chunks: list[weakref.ref[pl_metrics.MetricState]] = []
    merges: list[weakref.ref[pl_metrics.MetricState]] = []
    whole_of = _driver._whole

    def merged(states: Any) -> pl_metrics.MetricState:
        out = whole_of(states)
        merges.append(weakref.ref(out))
        return out

    monkeypatch.setattr(_driver, "_whole", merged)
    held: list[tuple[int, int]] = []  # (chunks', merges') states alive as each chunk comes

    def states() -> Any:
        for state in local_runner(lf, None)(plan, spec, whole):
            chunks.append(weakref.ref(state))
            gc.collect()
            held.append(tuple(sum(r() is not None for r in refs) for refs in (chunks, merges)))
            yield state

    out = _driver._merging(states())
    assert len(chunks) == len(plan) == 70
    assert len(out) == 1 + 6  # 70 = 64 (one merge of 8 merges of 8) + 6
    assert max(c for c, _ in held) == _driver._FAN_IN  # (7 waiting, and the one just read)
    assert max(m for _, m in held) == _driver._FAN_IN - 1  # (the level above's)
    got = whole_of(out).finalize().collect()
    want = pl_metrics.report(
        frame, ["roc_auc", "f1", "lrap"], by="model", average="micro", **options
    )
    assert_frame_equal(got, want, rel_tol=1e-12)


def test_a_failed_merge_closes_the_runner(
    digits: pl.DataFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A merge runs while the runner waits at its chunk: one that fails closes it, so its
    progress bar is cleared before the error is told (and a cluster's tasks cancelled)."""
    lf = digits.lazy()
    plan = plan_chunks(lf, n_chunks=20, budget=budget_bytes(None))
    spec = resolve(lf, "lrap", by="model")

    def fails(states: Any) -> pl_metrics.MetricState:
        raise MemoryError("no room to merge")

    monkeypatch.setattr(_driver, "_whole", fails)
    stream = io.StringIO()
    chunks = local_runner(lf, stream)(plan, spec, whole)
    with pytest.raises(MemoryError):
        _driver._merging(chunks)
    assert chunks.gi_frame is None  # type: ignore[attr-defined]  # (closed)
    text = stream.getvalue()  # (tqdm clears a bar not left: blanks over it, then a return)
    assert "20 chunks" in text
    assert text.endswith("\r")
    assert not text.rsplit("\r", 2)[1].strip()


@pytest.mark.parametrize("average", ["macro", "weighted", None])
def test_class_chunks_for_metrics_that_rank_within_a_class(
    hive_dump: Path, digits: pl.DataFrame, average: str | None
) -> None:
    metrics = ["roc_auc", "average_precision", "padded_cmap"]
    options = {"per_class": True} if average is None else {"average": average}
    whole = pl_metrics.report(digits, metrics, by=["model", "fold"], **options)
    for n_chunks in (1, 3):
        out = pl_metrics.score(
            hive_dump, metrics, by=["model", "fold"], n_chunks=n_chunks, **options
        )
        close(out.sort(out.columns[: 3 if average is None else 2]), whole)


def test_class_and_id_metrics_together(hive_dump: Path, digits: pl.DataFrame) -> None:
    metrics = ["lrap", "roc_auc", "top_k_accuracy", "f1"]
    whole = pl_metrics.report(digits, metrics, by=["model", "fold"], k=2)
    close(pl_metrics.score(hive_dump, metrics, by=["model", "fold"], k=2, n_chunks=4), whole)
    micro = pl_metrics.report(digits, ["roc_auc"], by="model", average="micro")
    close(pl_metrics.score(hive_dump, ["roc_auc"], by="model", average="micro", n_chunks=3), micro)


def test_class_chunks_hold_whole_classes_in_rows_about_equal(digits: pl.DataFrame) -> None:
    lf, n_classes = digits.lazy(), digits["class"].n_unique()
    budget = budget_bytes(None)
    # No more chunks than classes: each one reads the whole dump.
    assert (
        len(class_chunks(lf, digits.height, "class", categorical=False, budget=budget, n_chunks=40))
        == n_classes
    )
    # Nor where a class alone is past the budget (an 11th chunk, of no row, read it again).
    # (Said, where memory silently followed the class, not the budget.)
    largest = digits["class"].value_counts()["count"].max()
    with pytest.warns(
        UserWarning,
        match=rf"^memory budget of 1 MiB: .* the largest of the 10 classes holds {largest:,} "
        r"rows \(about 2 MiB\): memory follows that class, beyond the budget$",
    ):
        tiny = class_chunks(lf, digits.height, "class", categorical=False, budget=2**20, width=40)
    assert len(tiny) == n_classes
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        class_chunks(lf, digits.height, "class", categorical=False, budget=budget, n_chunks=4)
    plan = class_chunks(lf, digits.height, "class", categorical=False, budget=budget, n_chunks=4)
    parts = [digits.filter(keep) for keep in plan.filters]
    assert sum(part.height for part in parts) == digits.height
    classes = [set(part["class"]) for part in parts]
    assert sum(map(len, classes)) == n_classes  # each class in one chunk
    heights = [part.height for part in parts]
    assert max(heights) - min(heights) <= digits["class"].value_counts()["count"].max()
    nulls = digits.with_columns(
        pl.when(pl.col("id") == 7).then(None).otherwise("class").alias("class")
    )
    with pytest.raises(pl_metrics.MetricsInputError, match=r"column 'class': \d+ rows are null"):
        pl_metrics.score(nulls, "roc_auc", by=["model", "fold"], n_chunks=3)


@pytest.mark.parametrize("average", ["macro", "weighted"])
def test_class_chunks_keep_groups_whose_classes_are_all_undefined(
    tmp_path: Path, average: str
) -> None:
    # Group b has no positives: every class's ROC AUC is undefined and left out ('skip').
    df = pl.DataFrame(
        {
            "g": ["a"] * 4 + ["b"] * 4,
            "id": [1, 1, 2, 2] * 2,
            "class": ["x", "y"] * 4,
            "score": [0.9, 0.1, 0.4, 0.6] * 2,
            "truth": [True, False, False, True] + [False] * 4,
        }
    )
    df.write_parquet(tmp_path / "dump.parquet")
    options = {"by": "g", "undefined": "skip", "average": average}
    for metrics in (["roc_auc"], ["roc_auc", "average_precision"], ["padded_cmap", "roc_auc"]):
        want = pl_metrics.report(df, metrics, **options)
        assert want["g"].to_list() == ["a", "b"]
        got = pl_metrics.score(tmp_path / "dump.parquet", metrics, n_chunks=2, **options)
        assert_frame_equal(got, want)


def test_class_chunks_see_ids_missing_whole_classes(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    df = long_table(rng.random((30, 6)) < 0.4, rng.random((30, 6)))
    ragged = df.filter(~((pl.col("id") < 3) & (pl.col("class") >= 2)))
    path = tmp_path / "ragged.parquet"
    ragged.write_parquet(path)
    with pytest.raises(pl_metrics.MetricsInputError, match="ragged"):
        pl_metrics.score(path, "roc_auc", n_chunks=6, undefined="skip")


def _class_chunked() -> list[str]:
    return [m for m in pl_metrics.metric_names() if pl_metrics.chunk_key(m) == "class"]


@pytest.mark.parametrize("per_class", [False, True])
def test_class_chunked_metrics_together_in_chunks_equal_one_pass(
    tmp_path: Path, per_class: bool
) -> None:
    # padded_cmap has no per-class average: mixed with a metric that has one, the chunks
    # once joined its group rows onto the others' class rows (wrong numbers, repeated rows).
    rng = np.random.default_rng(0)
    frames = [
        long_table(rng.random((12, 5)) < 0.4, np.round(rng.random((12, 5)), 1), group=g)
        for g in "ab"
    ]
    df = pl.concat(frames)
    path = tmp_path / "dump.parquet"
    df.write_parquet(path)
    metrics = _class_chunked()
    averaged = [m for m in metrics if info(m).per_class != "always"]
    options = {"by": "g", "per_class": per_class}
    for chosen in [*itertools.combinations(metrics, 2), *zip(metrics, strict=True), averaged]:
        try:
            want = pl_metrics.report(df, list(chosen), **options)
        except pl_metrics.MetricsInputError as refused:  # a mix report() refuses
            with pytest.raises(pl_metrics.MetricsInputError, match=re.escape(str(refused)[:40])):
                pl_metrics.score(path, list(chosen), n_chunks=2, **options)
            continue
        for n_chunks in (2, 3):
            got = pl_metrics.score(path, list(chosen), n_chunks=n_chunks, **options)
            close(got, want)


@pytest.mark.parametrize("metric", _class_chunked())
def test_class_chunks_check_each_ids_rows_together(tmp_path: Path, metric: str) -> None:
    # Each class chunk sees part of an id's rows: id 0 lacks class b and id 1 class a,
    # so every one-class chunk holds two ids; id 3's weight differs between its classes.
    ragged = pl.DataFrame(
        {
            "id": [0, 1, 2, 2],
            "class": ["a", "b", "a", "b"],
            "score": [0.9, 0.2, 0.4, 0.7],
            "truth": [True, False, False, True],
        }
    )
    with pytest.raises(pl_metrics.MetricsInputError, match="ragged input"):
        pl_metrics.score(ragged, metric, n_chunks=2)
    varying = pl.DataFrame(
        {
            "id": [0, 0, 1, 1, 2, 2],
            "class": ["a", "b"] * 3,
            "score": [0.9, 0.2, 0.4, 0.7, 0.3, 0.6],
            "truth": [True, False, False, True, True, True],
            "w": [1.0, 2.0, 1.0, 1.0, 1.0, 1.0],
        }
    )
    if info(metric).weights:
        with pytest.raises(pl_metrics.MetricsInputError, match="weights that vary"):
            pl_metrics.score(varying, metric, weight_col="w", n_chunks=2)


@pytest.mark.parametrize(
    ("metrics", "probabilities"),
    [(["roc_auc"], False), (["lrap"], False), (["padded_cmap", "brier_score"], True)],
)
def test_chunked_errors_count_the_bad_rows_of_every_chunk(
    digits: pl.DataFrame, metrics: list[str], probabilities: bool
) -> None:
    # Class chunks hold disjoint rows: each used to raise with its own share of them.
    bad = pl.col("id") % 7 == 0
    total = digits.filter(bad).height
    cases = {"are NaN or infinite": float("nan")}
    if probabilities:  # the metrics whose scores must be in [0, 1]
        cases["have a score outside"] = 2.0
    for problem, value in cases.items():
        frame = digits.with_columns(pl.when(bad).then(value).otherwise("score").alias("score"))
        for n_chunks in (1, 3):
            with pytest.raises(pl_metrics.MetricsInputError, match=f"{total:,} rows {problem}"):
                pl_metrics.score(frame, metrics, by=["model", "fold"], n_chunks=n_chunks)
    # Checks of each id's rows together, the usual mistake first: `by` forgotten.
    repeated = (
        digits.filter(pl.col("fold") == 0).height
        - digits.filter((pl.col("fold") == 0) & (pl.col("model") == "knn")).height
    )
    missing = digits.filter(bad & (pl.col("class") == "3")).height
    ragged = digits.filter(~(bad & (pl.col("class") == "3")))
    for n_chunks in (1, 3):
        with pytest.raises(pl_metrics.MetricsInputError, match=f"{repeated:,} rows repeat a"):
            pl_metrics.score(digits.filter(pl.col("fold") == 0), metrics, n_chunks=n_chunks)
        with pytest.raises(pl_metrics.MetricsInputError, match=rf"{missing:,} \(id, class\) rows"):
            pl_metrics.score(ragged, metrics, by=["model", "fold"], n_chunks=n_chunks)


@pytest.mark.parametrize("metric", _class_chunked())
def test_two_problems_raise_the_same_first_on_every_path(digits: pl.DataFrame, metric: str) -> None:
    """Class chunks check a group's weights over id chunks first: those once raised before
    the rows' own checks (a score outside [0, 1]), which `report` raises first."""
    knn = digits.filter(pl.col("model") == "knn")
    frame = knn.with_columns(
        w=pl.when(pl.col("fold") == 0).then(0.0).otherwise(1.0),  # fold 0 weighs nothing
        score=pl.when(pl.col("id") % 7 == 0).then(2.0).otherwise("score"),
    )
    options = {"by": "fold", "weight_col": "w" if info(metric).weights else None}
    with pytest.raises(pl_metrics.MetricsInputError) as error:
        pl_metrics.report(frame, metric, **options)
    for n_chunks in (2, 3):
        with pytest.raises(pl_metrics.MetricsInputError) as chunked:
            pl_metrics.score(frame, metric, n_chunks=n_chunks, **options)
        assert str(chunked.value) == str(error.value)


@pytest.mark.parametrize("metric", ["roc_auc", "average_precision", "padded_cmap", "brier_score"])
def test_class_chunks_keep_their_values_not_their_curves(digits: pl.DataFrame, metric: str) -> None:
    # The curves table holds a row per class and distinct score (here about one per row).
    # Kept for every chunk until the end, it made score()'s memory grow with the whole
    # dump's distinct scores, whatever the budget: a chunk keeps its per-class values.
    lf = digits.lazy()
    plan = class_chunks(lf, digits.height, "class", categorical=False, budget=1, n_chunks=4)
    spec = resolve(lf, metric, by="model").with_options(
        average=None, per_class=True, undefined="skip"
    )
    kept = list(local_runner(lf, None)(plan, spec, _driver.class_chunk))
    assert len(kept) == 4
    for chunk in kept:
        assert chunk.error is None
        assert chunk.values is not None
        groups_classes = chunk.values.select("model", "class").unique()
        assert chunk.values.height == groups_classes.height == chunk.positives.height
        assert chunk.groups.columns[:2] == ["model", _driver.N_IDS]
    values = pl.concat([c.values for c in kept if c.values is not None])
    want = pl_metrics.report(digits, metric, by="model", per_class=True)
    assert_frame_equal(values.sort("model", "class"), want.sort("model", "class"), rel_tol=1e-12)


def test_a_class_chunks_bad_input_is_kept_to_be_raised_by_the_caller(digits: pl.DataFrame) -> None:
    # On a cluster, a chunk's error is its task's failure: tried again, then reported as
    # the chunk's (ChunkError). Bad input is the caller's MetricsInputError, as in memory.
    import pickle

    no_positives = digits.with_columns(truth=pl.col("truth") & (pl.col("class") != "3"))
    by = ["model", "fold"]
    state = pl_metrics.state(no_positives, "roc_auc", by=by, per_class=True).collect()
    chunk = pickle.loads(pickle.dumps(_driver.class_chunk(state)))  # as a worker sends it
    assert chunk.values is None
    assert isinstance(chunk.error, pl_metrics.MetricsInputError)
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"20 \(model, fold, class\) combinations have no positives or no negatives",
    ):
        _driver._class_values([chunk], resolve(no_positives, "roc_auc", by=by, per_class=True))


@pytest.mark.parametrize("name", ["tp", "fn"])
def test_a_by_column_named_as_a_count_scores_in_class_chunks(tmp_path: Path, name: str) -> None:
    """The class-chunked metrics' data checks ran as a confusion state, whose counts are
    columns tp, fp, fn and tn: a `by` column of such a name was polars' DuplicateError in
    several chunks (one chunk, and eagerly, were fine)."""
    df = pl.read_parquet(DATA / "digits_oof.parquet").rename({"model": name, "fold": "f1"})
    path = tmp_path / "oof.parquet"
    df.write_parquet(path)
    for metric in ("roc_auc", "brier_score", "best_threshold"):
        want = pl_metrics.report(df, metric, by=[name, "f1"])
        assert_frame_equal(pl_metrics.score(path, metric, by=[name, "f1"], n_chunks=3), want)
    # ... and a class column so named (its id too).
    df = df.filter(pl.col(name) == "knn").drop(name).rename({"class": name, "id": "fp"})
    df.write_parquet(path)
    options = {"class_col": name, "id_col": "fp", "by": "f1"}
    want = pl_metrics.report(df, "roc_auc", **options)
    assert_frame_equal(pl_metrics.score(path, "roc_auc", n_chunks=3, **options), want)


@pytest.mark.parametrize(
    ("ids", "even"),
    [
        (pl.col("id"), True),
        (pl.col("id") * -7 + 3, True),  # (negative, falling)
        (pl.when(pl.col("id") > 1780).then(pl.col("id") * 10**12).otherwise(pl.col("id")), True),
        # Int64's extremes: their difference is past Int64's range (it wrapped).
        (pl.when(pl.col("id") == 0).then(-(2**63)).otherwise(pl.col("id") * 2**52), True),
        # Past Float64's digits, where the cuts (floats) are fewer: right, if not as even.
        (pl.col("id").cast(pl.UInt64) + pl.lit(2**64 - 2_000, pl.UInt64), False),
    ],
)
def test_a_lazyframes_integer_ids_are_cut_in_ranges_of_their_histogram(
    digits: pl.DataFrame, ids: pl.Expr, even: bool
) -> None:
    """No statistics to read: each chunk an id range, disjoint, every id in one, sizes
    about even however skewed the ids; a parquet scan below filters by its statistics."""
    frame = digits.with_columns(ids.alias("id"))
    lf = frame.lazy()
    plan = plan_chunks(lf, n_chunks=5, budget=budget_bytes(None))
    assert plan.strategy == "id ranges (of the ids' histogram)"
    rows = [lf.filter(f).select(pl.len()).collect().item() for f in plan.filters]
    assert sum(rows) == frame.height
    assert max(rows) < 2 * frame.height / len(plan) or not even
    ids_in = [set(lf.filter(f).select("id").unique().collect()["id"]) for f in plan.filters]
    assert all(not (a & b) for a, b in itertools.combinations(ids_in, 2))
    whole = pl_metrics.report(frame, METRICS, by=["model", "fold"])
    close(pl_metrics.score(lf, METRICS, by=["model", "fold"], n_chunks=5), whole)
    # Null ids (checks off) in the first range, once.
    nulls = frame.with_columns(
        pl.when(pl.col("class") == "3").then(None).otherwise("id").alias("id")
    )
    assert (
        sum(
            nulls.lazy().filter(f).select(pl.col("id").is_null().sum()).collect().item()
            for f in plan_chunks(nulls.lazy(), n_chunks=5, budget=budget_bytes(None)).filters
        )
        == nulls["id"].null_count()
    )


def test_a_class_just_past_the_memory_budget_is_warned_of() -> None:
    """The class's estimated bytes at the budget: no warning; one byte over: warned."""
    from pl_metrics._chunks import BYTES_PER_CLASS_ROW, BYTES_PER_ROW_SCATTERED, scaled

    lf = pl.DataFrame({"class": ["a"] * 3000 + ["b"] * 1000}).lazy()
    largest = math.ceil(3000 * max(BYTES_PER_CLASS_ROW, scaled(BYTES_PER_ROW_SCATTERED, 40)))
    with pytest.warns(UserWarning, match=r"the largest of the 2 classes holds 3,000 rows"):
        class_chunks(lf, 4000, "class", categorical=False, budget=largest - 1, width=40)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        class_chunks(lf, 4000, "class", categorical=False, budget=largest, width=40)


def test_uint64_ids_past_2_63_of_a_pyarrow_dataset_are_chunked(tmp_path: Path) -> None:
    """polars handed pyarrow the chunk's id range with an int64 literal: pyarrow cast the
    UInt64 ids to int64 and raised ArrowInvalid on one past 2**63 - 1."""
    import pyarrow.dataset as ds

    rng = np.random.default_rng(2)
    ids = [*range(30), *(2**64 - 1 - i for i in range(30))]
    df = pl.DataFrame(
        {
            "id": pl.Series([i for i in ids for _ in range(3)], dtype=pl.UInt64),
            "class": ["a", "b", "c"] * 60,
            "score": rng.random(180).round(2),
            "truth": rng.random(180) < 0.4,
        }
    )
    df.write_parquet(tmp_path / "u64.parquet", row_group_size=40)
    want = pl_metrics.report(df, ["lrap", "f1"])
    dataset = ds.dataset(tmp_path / "u64.parquet")
    for source in (dataset, pl.scan_pyarrow_dataset(dataset), tmp_path / "u64.parquet"):
        for n_chunks in (2, 3, 5):
            got = pl_metrics.score(source, ["lrap", "f1"], n_chunks=n_chunks)
            assert_frame_equal(got, want, rel_tol=1e-12)


def test_a_pyarrow_dataset_that_would_narrow_a_files_floats_is_refused(tmp_path: Path) -> None:
    """pyarrow reads every file of a dataset as its first file's schema: a later file's
    Float64 scores read as Float32 became ties (LRAP 0.5 where scikit-learn's is 0.75)."""
    import pyarrow.dataset as ds

    rows = {"id": [0, 0, 1, 1], "class": [0, 1, 0, 1], "truth": [True, False, False, True]}
    folder = tmp_path / "oof"
    folder.mkdir()
    pl.DataFrame({**rows, "model": "a", "score": [0.5, 0.25, 0.5, 0.25]}).with_columns(
        pl.col("score").cast(pl.Float32)
    ).write_parquet(folder / "a.parquet")
    b = pl.DataFrame({**rows, "model": "b", "score": [0.3, 0.3 + 1e-10, 0.6, 0.6 + 1e-10]})
    b.write_parquet(folder / "b.parquet")
    assert pl_metrics.score(folder, "lrap", by="model")["lrap"].to_list() == [0.75, 0.75]
    with pytest.raises(pl_metrics.MetricsInputError, match=r"column 'score': .*b\.parquet"):
        pl_metrics.score(ds.dataset(folder), "lrap", by="model")
    # The first column of the files is checked too.
    first = b.select("score", pl.exclude("score"))
    first.write_parquet(folder / "b.parquet")
    pl.read_parquet(folder / "a.parquet").select("score", pl.exclude("score")).write_parquet(
        folder / "a.parquet"
    )
    with pytest.raises(pl_metrics.MetricsInputError, match=r"column 'score': .*b\.parquet"):
        pl_metrics.score(ds.dataset(folder), "lrap", by="model")
    # A column no metric reads may differ (its digits cut are no matter).
    other = b.with_columns(pl.col("score").cast(pl.Float32), latency=pl.lit(0.1))
    other.write_parquet(folder / "b.parquet")
    pl.read_parquet(folder / "a.parquet").with_columns(
        latency=pl.lit(0.1, pl.Float32)
    ).write_parquet(folder / "a.parquet")
    pl_metrics.score(ds.dataset(folder), "lrap", by="model")
    # Files of the dataset's own widths are read as before.
    b.with_columns(pl.col("score").cast(pl.Float32)).write_parquet(folder / "b.parquet")
    got = pl_metrics.score(ds.dataset(folder), "lrap", by="model")
    assert_frame_equal(got, pl_metrics.score(folder, "lrap", by="model"))


def test_rows_below_each_point_are_the_naive_sums() -> None:
    """The planner's count of rows below each id point, in one pass, against the sum over
    every row group at each point (which made planning quadratic in row groups: 1.5 s at
    4,000 of them)."""
    from pl_metrics._chunks import _even_cuts as _driver_even_cuts
    from pl_metrics._chunks import _rows_below

    rng = np.random.default_rng(5)
    for _ in range(200):
        n = int(rng.integers(1, 40))
        lo = rng.integers(0, 1_000, n).astype(float) + (rng.random() < 0.3) * rng.random(n)
        width = rng.choice([0.0, 1.0, 7.5, 300.0], n)  # one-value row groups too
        counts = rng.integers(0, 500, n)
        ranges = [(a, a + w, int(c)) for a, w, c in zip(lo, width, counts, strict=True)]
        points = sorted({float(v) for r in ranges for v in r[:2]})

        def naive(x: float, ranges: list[tuple[float, float, int]] = ranges) -> float:
            return sum(
                c if x > hi else c * (x - lo) / (hi - lo) if x > lo else 0.0 for lo, hi, c in ranges
            )

        want = [naive(x) for x in points]
        np.testing.assert_allclose(_rows_below(points, ranges), want, rtol=1e-9, atol=1e-6)
    # A wide row group's tiny slope beside narrow ones' large ids: a float running sum of the
    # slopes lost it (a chunk of 1.9x its share; cumulative counts past the total).
    ranges = [
        (0, 10**15, 271_229),
        (848_343_877_971_238, 848_343_877_971_241, 4_774_814),
        (34_773_166_219_627, 34_773_166_219_631, 638_854),
        (51_019_310_150_092, 51_019_310_150_094, 617_376),
    ]
    points = sorted({float(v) for r in ranges for v in r[:2]})
    want = [sum(naive_below(x, r) for r in ranges) for x in points]
    np.testing.assert_allclose(_rows_below(points, ranges), want, rtol=1e-9)
    assert len(_driver_even_cuts(ranges, 4)) == 3


def naive_below(x: float, row_group: tuple[float, float, int]) -> float:
    lo, hi, count = row_group
    return count if x > hi else count * (x - lo) / (hi - lo) if x > lo else 0.0


def test_a_frame_missing_a_by_column_is_told_so() -> None:
    """A frame has no files (None): the folders' hint must not look at them (len(None))."""
    df = pl.read_parquet(DATA / "digits_oof.parquet")
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"^column 'nope' \(option 'by'\) is not in the table"
    ):
        pl_metrics.score(df, "lrap", by="nope")


def test_a_budget_makes_enough_chunks_for_each_to_fit(tmp_path: Path) -> None:
    """Rows worth 2.5 budgets (at 40 bytes a narrow row, clustered): three chunks, each
    within the budget; two would each hold 1.25 budgets."""
    n_ids, n_classes = 25_000, 4
    rng = np.random.default_rng(3)
    df = pl.DataFrame(
        {
            "id": pl.Series(np.repeat(np.arange(n_ids), n_classes), dtype=pl.Int32),
            "class": pl.Series(np.tile(np.arange(n_classes), n_ids), dtype=pl.Int16),
            "score": pl.Series(rng.random(n_ids * n_classes).round(3), dtype=pl.Float32),
            "truth": rng.random(n_ids * n_classes) < 0.3,
        }
    )
    path = tmp_path / "narrow.parquet"
    df.write_parquet(path, row_group_size=2_000)
    budget = int(df.height * 40 / 2.5)
    plan = plan_chunks(pl_metrics.scan(path), files=[path], budget=budget_bytes(budget))
    assert plan.strategy == "id ranges"
    sizes = [df.filter(f).height for f in plan.filters]
    assert len(sizes) == math.ceil(df.height * 40 / budget) == 3
    assert sum(sizes) == df.height
    assert max(sizes) * 40 <= budget * 1.05  # (the cuts estimate rows: about even)
    got = pl_metrics.score(path, ["lrap", "f1"], memory_budget=budget)
    assert_frame_equal(got, pl_metrics.report(df, ["lrap", "f1"]), rel_tol=1e-12)


def test_a_lazyframes_float_ids_are_cut_in_hash_buckets() -> None:
    """Only integer ids are cut in ranges of their histogram (cast to Int128, exactly):
    float ids, infinite ones too, are hash buckets."""
    ids = np.array([-np.inf, *np.linspace(-1, 0, 50), 0.5, np.inf])
    df = _two_classes_of(ids)
    assert plan_chunks(df.lazy(), n_chunks=3, budget=budget_bytes(None)).strategy == (
        "hash buckets"
    )
    for n_chunks in (2, 3):
        close(
            pl_metrics.score(df.lazy(), METRICS[:5], n_chunks=n_chunks),
            pl_metrics.report(df, METRICS[:5]),
        )


def test_ids_up_to_infinity_are_cut_without_a_numpy_warning(tmp_path: Path) -> None:
    """Ids up to +inf only (no -inf): spread over an infinite range, a row group's rows
    would make numpy's RuntimeWarning (inf times 0) reach the caller; three chunks, quietly."""
    ids = np.array([*np.linspace(-1, 0, 200), np.inf])
    df = _two_classes_of(ids)
    path = tmp_path / "inf.parquet"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for rows in (100, 150, df.height):
            df.write_parquet(path, row_group_size=rows)
            plan = plan_chunks(
                pl_metrics.scan(path), files=[path], n_chunks=3, budget=budget_bytes(None)
            )
            sizes = [df.filter(f).height for f in plan.filters]
            assert len(sizes) == 3
            assert sum(sizes) == df.height
            close(
                pl_metrics.score(path, METRICS[:4], n_chunks=3), pl_metrics.report(df, METRICS[:4])
            )


def test_text_ids_clustered_in_files_out_of_their_order_are_id_ranges(tmp_path: Path) -> None:
    """Files named out of their ids' order (b.parquet's ids first): their row groups,
    taken in order of their smallest id, are clustered, and cut at their boundaries."""
    digits = pl.read_parquet(DATA / "digits_oof.parquet").filter(pl.col("model") == "knn")
    text = digits.with_columns(pl.format("clip{}", pl.col("id").cast(pl.String).str.zfill(5)))
    text = text.sort("id", "class")
    half = text["id"].unique().sort()[text["id"].n_unique() // 2]
    text.filter(pl.col("id") >= half).write_parquet(tmp_path / "a.parquet", row_group_size=700)
    text.filter(pl.col("id") < half).write_parquet(tmp_path / "b.parquet", row_group_size=700)
    files = sorted(tmp_path.glob("*.parquet"))
    plan = plan_chunks(pl_metrics.scan(files), files=files, n_chunks=4, budget=budget_bytes(None))
    assert plan.strategy == "id ranges"
    assert len(plan) == 4
    close(
        pl_metrics.score(tmp_path, METRICS, by="fold", n_chunks=4),
        pl_metrics.report(text, METRICS, by="fold"),
    )


def test_n_chunks_is_the_count_whatever_the_budget(tmp_path: Path, digits: pl.DataFrame) -> None:
    """A count of chunks replaces the budget: scattered row groups, hash buckets and the
    ids' histogram make as many chunks as asked, not as many as the budget would."""
    shuffled = tmp_path / "shuffled.parquet"
    digits.sample(fraction=1.0, shuffle=True, seed=1).write_parquet(shuffled, row_group_size=5000)
    small = budget_bytes("1MB")  # (the rows at 100 bytes: 7 chunks)
    assert math.ceil(digits.height * 100 / small) > 4
    lf = pl_metrics.scan(shuffled)
    plans = {
        "scattered": plan_chunks(lf, files=[shuffled], n_chunks=4, budget=small),
        "hash": plan_chunks(
            lf.with_columns(pl.col("id").cast(pl.String)), n_chunks=4, budget=small
        ),
        "histogram": plan_chunks(lf, n_chunks=4, budget=small),
    }
    assert plans["scattered"].strategy == "id ranges (scattered row groups)"
    assert plans["hash"].strategy == "hash buckets"
    for name, plan in plans.items():
        assert len(plan) == 4, name


def test_budget_sizes_count_in_powers_of_1024_from_1mb_and_narrow_rows_are_not_cheaper() -> None:
    """README: sizes count in powers of 1024, at least 1MB; rows are sized at 40 bytes as
    measured, wider rows in proportion (narrower ones are not taken for less)."""
    assert budget_bytes("1MB") == budget_bytes(1024**2) == 1024**2
    assert budget_bytes("2048KB") == budget_bytes("2MiB") == 2 * 1024**2
    assert budget_bytes("1.5GB") == int(1.5 * 1024**3)
    assert budget_bytes("1TB") == 1024**4
    lf = pl.LazyFrame({"id": range(20_000)})
    budget = 20_000 * 40 // 2
    narrow = row_bytes(
        pl.Schema({"id": pl.Int8, "class": pl.Int8, "score": pl.Float32}), ["id", "class", "score"]
    )
    assert narrow < REFERENCE_ROW
    assert len(plan_chunks(lf, budget=budget, width=narrow)) == len(plan_chunks(lf, budget=budget))


@pytest.mark.parametrize("per_class", [False, True])
def test_class_chunks_keep_null_classes_unvalidated(per_class: bool) -> None:
    """Null classes go to the first class chunk: unchecked (validate=False), report scores
    them as a class of their own, and so must every chunk count."""
    rng = np.random.default_rng(2)
    df = long_table(rng.random((40, 4)) < 0.4, rng.random((40, 4)).round(2))
    df = df.with_columns(
        pl.when(pl.col("id") % 9 == 0).then(None).otherwise("class").alias("class")
    )
    for metric in ("roc_auc", "brier_score"):
        want = pl_metrics.report(df, metric, validate=False, per_class=per_class)
        for n_chunks in (2, 3):
            got = pl_metrics.score(
                df.lazy(), metric, n_chunks=n_chunks, validate=False, per_class=per_class
            )
            close(got, want)


def test_class_chunks_count_undefined_roc_aucs_of_every_chunk() -> None:
    """Each class chunk leaves its undefined ROC AUCs out; the driver counts them over all
    the chunks and raises report's error (a chunk raising its own named only its share)."""
    df = pl.DataFrame(
        {
            "id": np.repeat([0, 1, 2], 3),
            "class": ["a", "b", "c"] * 3,
            "score": [0.9, 0.2, 0.4, 0.7, 0.3, 0.6, 0.5, 0.1, 0.8],
            "truth": [True, False, False, False, False, False, True, False, False],
        }
    )  # classes b and c have no positives
    with pytest.raises(pl_metrics.MetricsInputError, match="2 classes") as whole:
        pl_metrics.report(df, "roc_auc")
    for n_chunks in (2, 3):
        with pytest.raises(pl_metrics.MetricsInputError) as chunked:
            pl_metrics.score(df.lazy(), "roc_auc", n_chunks=n_chunks)
        assert str(chunked.value) == str(whole.value)


def test_cluster_by_id_writes_no_empty_part_where_the_smallest_id_repeats(tmp_path: Path) -> None:
    # Most rows are id 0: the sampled quantiles that cut the parts are 0 too. A cut at the
    # smallest id would leave the first part (ids below it) without rows.
    ids = np.r_[np.zeros(90, dtype=np.int64), np.arange(1, 31)]
    df = pl.DataFrame({"id": ids, "class": np.arange(len(ids)), "score": 0.5, "truth": True})
    df.write_parquet(tmp_path / "dump.parquet")
    parts = pl_metrics.cluster_by_id(tmp_path / "dump.parquet", tmp_path / "by_id", n_parts=4)
    heights = [pl.read_parquet(part).height for part in parts]
    assert 1 < len(parts) < 4  # fewer: ids repeat in the sample that cuts them
    assert min(heights) > 0
    assert sum(heights) == df.height


def test_cluster_by_id_samples_enough_rows_of_a_class_major_dump(tmp_path: Path) -> None:
    # Rows in class order (every id's class 0, then every id's class 1, ...): a sample of
    # one row in rows / n_parts reads the first id of each class block only, one cut value.
    n_ids, n_classes = 100, 10
    df = pl.DataFrame(
        {
            "id": np.tile(np.arange(n_ids), n_classes),
            "class": np.repeat(np.arange(n_classes), n_ids),
            "score": 0.5,
            "truth": True,
        }
    )
    df.write_parquet(tmp_path / "dump.parquet")
    parts = pl_metrics.cluster_by_id(tmp_path / "dump.parquet", tmp_path / "by_id", n_parts=10)
    heights = [pl.read_parquet(part).height for part in parts]
    assert len(parts) == 10
    assert sum(heights) == df.height
    assert max(heights) - min(heights) <= 2 * n_classes  # about equal parts of whole ids


def test_class_chunks_count_fold_repeats_by_group_not_by_fold() -> None:
    # Rows of an (id, class) in another fold too, counted in each class chunk: summed over
    # the chunks by group, the folds together (those are tuned over, as report names them).
    rng = np.random.default_rng(3)
    df = long_table(rng.random((40, 3)) < 0.4, rng.random((40, 3)))
    df = df.with_columns(fold=pl.col("id") % 4)
    again = df.filter(pl.col("id") < 3).with_columns(fold=(pl.col("fold") + 1) % 4)
    two = pl.concat(
        [df.with_columns(model=pl.lit("a")), pl.concat([df, again]).with_columns(model=pl.lit("b"))]
    )
    options: dict[str, Any] = {"by": "model", "fold_col": "fold"}
    with pytest.raises(pl_metrics.MetricsInputError, match="another fold") as whole:
        pl_metrics.report(two, "best_threshold", **options)
    for n_chunks in (2, 3):
        with pytest.raises(pl_metrics.MetricsInputError) as chunked:
            pl_metrics.score(two.lazy(), "best_threshold", n_chunks=n_chunks, **options)
        assert str(chunked.value) == str(whole.value)


def test_the_state_of_an_empty_scan_collects_to_the_empty_tables_error(tmp_path: Path) -> None:
    # (kills: _merging returning [] where no chunk holds an id, not the empty chunk's state)
    path = tmp_path / "empty.parquet"
    pl.DataFrame({"id": [0], "class": ["a"], "score": [0.5], "truth": [True]}).head(
        0
    ).write_parquet(path)
    state = pl_metrics.state(pl.scan_parquet(path), ["lrap"]).collect()
    with pytest.raises(pl_metrics.MetricsInputError, match="the table is empty"):
        state.finalize().collect()
