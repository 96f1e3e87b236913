"""Reading dumps: empty CSVs, shards with different types, unreadable files, hive folders."""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import pl_metrics
from pl_metrics._frame import MetricsInputError
from pl_metrics._io import files, mixed_tasks, printable, scan
from pl_metrics._spec import resolve

DATA = Path(__file__).parent.parent / "data" / "digits_oof.parquet"


@pytest.fixture(scope="module")
def dump() -> pl.DataFrame:
    """One model's predictions of one fold: 360 ids x 10 classes."""
    return (
        pl.read_parquet(DATA)
        .filter(pl.col("model") == "knn", pl.col("fold") == 0)
        .drop("model", "fold")
    )


def test_row_less_shards_are_left_out_and_null_columns_widen(
    tmp_path: Path, dump: pl.DataFrame
) -> None:
    """A shard of no rows typed its columns Null (polars) or Float64 (pandas), and one
    column of nulls was typed Null: the folder was refused for their types."""
    pd = pytest.importorskip("pandas")
    folder = tmp_path / "shards"
    folder.mkdir()
    dump.write_parquet(folder / "part-0.parquet")
    pl.DataFrame({c: [] for c in dump.columns}).write_parquet(folder / "part-1.parquet")
    pd.DataFrame({c: [] for c in dump.columns}).to_parquet(folder / "part-2.parquet")
    dump.head(0).write_ipc(tmp_path / "empty.arrow")
    want = pl_metrics.lrap(dump)
    assert_frame_equal(pl_metrics.score(folder, "lrap"), want)
    assert_frame_equal(scan(folder).metrics.lrap().collect(), want)
    for path in (folder / "part-1.parquet", tmp_path / "empty.arrow"):
        with pytest.raises(MetricsInputError, match=r"^the table is empty: file '.*' has no rows"):
            pl_metrics.score(path, "lrap")
    nulls = dump.head(20).with_columns(pl.lit(None).alias("score"))
    assert nulls.schema["score"] == pl.Null
    nulls.write_parquet(folder / "part-3.parquet")
    with pytest.raises(MetricsInputError, match=r"^column 'score': 20 rows are null"):
        pl_metrics.score(folder, "lrap")


def test_row_less_csv_is_an_empty_table(tmp_path: Path, dump: pl.DataFrame) -> None:
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    header = tmp_path / "header.csv"
    dump.head(0).write_csv(header)  # its columns would be inferred as String
    for path in (empty, header):
        with pytest.raises(MetricsInputError, match=f"the table is empty: file '.*{path.name}'"):
            scan(path)
        with pytest.raises(MetricsInputError, match="has no rows"):
            pl_metrics.score(path, "lrap")
    with pytest.raises(
        MetricsInputError, match="the table is empty: none of its 2 CSV files has a row"
    ):
        scan([empty, header])


def test_a_csv_header_naming_a_column_twice_is_refused(tmp_path: Path) -> None:
    # polars reads the second as 'score_duplicated_0': a metric read the first alone.
    path = tmp_path / "twice.csv"
    path.write_text("id,class,score,truth,score\n1,a,0.5,1,0.25\n1,b,0.25,0,0.5\n")
    message = r"file '.*twice\.csv': its header names 'score' twice \(polars reads the second"
    with pytest.raises(MetricsInputError, match=message):
        pl_metrics.score(path, "lrap")
    with pytest.warns(UserWarning, match=message):  # (scan reads it: warned of)
        scan(path)
    # A column no metric reads, named twice (a join's export), is scored.
    path.write_text("id,class,score,truth,note,note\n1,a,0.5,1,x,y\n1,b,0.25,0,x,y\n")
    assert pl_metrics.score(path, "lrap").item() == 1.0
    # A header's own 'x_duplicated_0', and a spreadsheet's empty trailing columns, are read.
    rows = "1,a,0.5,1,,\n1,b,0.25,0,,\n"
    for header in ("id,class,score,truth,score_duplicated_0,", "id,class,score,truth,,"):
        path.write_text(f"{header}\n{rows}")
        assert pl_metrics.score(path, "lrap").item() == 1.0


def test_row_less_csv_shards_are_left_out(tmp_path: Path, dump: pl.DataFrame) -> None:
    dump.head(1800).write_csv(tmp_path / "a.csv")
    dump.head(0).write_csv(tmp_path / "b.csv")
    (tmp_path / "c.csv").write_bytes(b"")
    dump.slice(1800).write_csv(tmp_path / "d.csv")
    got = pl_metrics.score(tmp_path, ["lrap", "f1"])
    want = pl_metrics.score(dump, ["lrap", "f1"])
    assert_frame_equal(got, want)


def test_a_csv_column_empty_in_one_file_takes_the_other_files_type(
    tmp_path: Path, dump: pl.DataFrame
) -> None:
    """polars reads a column of empty fields as text: stacked with files of numbers, the
    whole column was text, told as "numbers held as text" where its nulls are the problem
    (a parquet file's column of nulls is told as such)."""
    dump = dump.with_columns(w=pl.lit(1.0))
    dump.slice(1800).write_csv(tmp_path / "b.csv")
    for column in ("w", "score", "truth"):
        emptied = dump.head(1800).with_columns(pl.lit(None).alias(column))
        emptied.head(900).write_csv(tmp_path / "a.csv")  # (two files of it: each typed)
        emptied.slice(900).write_csv(tmp_path / "a2.csv")
        with pytest.raises(MetricsInputError, match=rf"^column '{column}': 1,800 rows are null"):
            pl_metrics.score(tmp_path, "lrap", weight_col="w")
    (tmp_path / "a2.csv").unlink()
    # Two files alone, and the others' types Int64 and Float64: the empty one takes Float64.
    emptied.write_csv(tmp_path / "a.csv")  # (its truth empty)
    with pytest.raises(MetricsInputError, match=r"^column 'truth': 1,800 rows are null"):
        pl_metrics.score(tmp_path, "lrap", weight_col="w")
    dump.head(900).with_columns(w=pl.lit(None)).write_csv(tmp_path / "a.csv")
    dump.slice(900, 900).with_columns(w=pl.lit(2)).write_csv(tmp_path / "a2.csv")
    with pytest.raises(MetricsInputError, match=r"^column 'w': 900 rows are null"):
        pl_metrics.score(tmp_path, "lrap", weight_col="w")
    (tmp_path / "a2.csv").unlink()
    # A value that is no number is told as before, and a file of values read as they are.
    dump.head(1800).with_columns(
        w=pl.when(pl.int_range(pl.len()) == 0).then(pl.lit("x"))
    ).write_csv(tmp_path / "a.csv")
    with pytest.raises(MetricsInputError, match=r"1 row holds a value that is not a number: 'x'"):
        pl_metrics.score(tmp_path, "lrap", weight_col="w")
    dump.head(1800).write_csv(tmp_path / "a.csv")
    got = pl_metrics.score(tmp_path, "lrap", weight_col="w")
    assert_frame_equal(got, pl_metrics.score(dump, "lrap", weight_col="w"))


@pytest.mark.parametrize("fmt", ["parquet", "ipc"])
def test_shards_with_wider_numeric_types_are_read_as_one(
    tmp_path: Path, dump: pl.DataFrame, fmt: str
) -> None:
    narrow = dump.head(1800).with_columns(
        pl.col("score").cast(pl.Float32), pl.col("id").cast(pl.Int16)
    )
    wide = dump.slice(1800).with_columns(pl.col("id").cast(pl.Int64))
    for name, part in (("a", narrow), ("b", wide)):
        folder = tmp_path / f"model={name}"
        folder.mkdir()
        getattr(part, f"write_{fmt}")(folder / f"part.{fmt}")
    lf = scan(tmp_path)
    schema = lf.collect_schema()
    assert (schema["id"], schema["score"], schema["model"]) == (pl.Int64, pl.Float64, pl.String)
    assert lf.select(pl.len()).collect().item() == dump.height
    got = pl_metrics.score(tmp_path, "lrap")
    want = pl_metrics.report(pl.concat([narrow, wide], how="vertical_relaxed"), "lrap")
    assert got["lrap"].item() == pytest.approx(want["lrap"].item(), rel=1e-6)


@pytest.mark.parametrize("fmt", ["parquet", "ipc"])
def test_text_and_categorical_shards_are_read_as_text(
    tmp_path: Path, dump: pl.DataFrame, fmt: str
) -> None:
    """A key column written as text by one job and as a categorical by another: read as
    text, as merging the files' states reads it."""
    df = dump.with_columns(
        model=pl.when(pl.col("id") % 2 == 0).then(pl.lit("a")).otherwise(pl.lit("b")),
        **{"class": pl.format("c{}", pl.col("class"))},
    )
    parts = [df.filter(pl.col("id") < 50), df.filter(pl.col("id") >= 50)]
    categorical = pl.col("model", "class").cast(pl.Categorical)
    for name, part in (("a", parts[0]), ("b", parts[1].with_columns(categorical))):
        getattr(part, f"write_{fmt}")(tmp_path / f"{name}.{fmt}")
    schema = scan(tmp_path).collect_schema()
    assert (schema["model"], schema["class"]) == (pl.String, pl.String)
    metrics = ["lrap", "f1", "roc_auc"]
    want = pl_metrics.report(df, metrics, by="model")
    assert_frame_equal(pl_metrics.score(tmp_path, metrics, by="model"), want)
    assert_frame_equal(
        pl_metrics.scan(tmp_path).metrics.report(metrics, by="model").collect(), want
    )


def test_incompatible_types_name_the_column_and_files(tmp_path: Path, dump: pl.DataFrame) -> None:
    dump.head(100).write_parquet(tmp_path / "a.parquet")
    dump.head(100).write_parquet(tmp_path / "b.parquet")
    dump.head(100).with_columns(pl.col("score").cast(pl.String)).write_parquet(
        tmp_path / "c.parquet"
    )
    message = r"column 'score' is Float64 in '.*a\.parquet' but String in '.*c\.parquet'"
    with pytest.raises(MetricsInputError, match=message):
        pl_metrics.score(tmp_path, "lrap")
    # A column of types that do not agree is left out of the table, where no metric reads
    # it; scan() warns why, since a metric reading it would only say that it is not there.
    with pytest.warns(UserWarning, match=r"^column 'score' is Float64 .*; it is left out"):
        lf = pl_metrics.scan(tmp_path)
    assert "score" not in lf.collect_schema()
    noted = [dump.with_columns(note=pl.lit(v)) for v in ("x", 1)]
    noted[0].filter(pl.col("id") < 50).write_parquet(tmp_path / "a.parquet")
    noted[1].filter(pl.col("id") >= 50).write_parquet(tmp_path / "b.parquet")
    (tmp_path / "c.parquet").unlink()
    assert_frame_equal(pl_metrics.score(tmp_path, "lrap"), pl_metrics.lrap(dump))
    with pytest.raises(MetricsInputError, match=r"^column 'note' is String in '.*a\.parquet'"):
        pl_metrics.score(tmp_path, "lrap", by="note")


@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_integer_keys_beside_float_keys_are_refused(
    tmp_path: Path, dump: pl.DataFrame, kind: str
) -> None:
    """Read as floats, two files' ids past 2**53 were one id: repeated rows, or with
    validate=False a wrong number. Integers a float holds exactly widen (folds of Int64 in
    one file, of Float64 in another); scores too.
    """

    def write(parts: list[pl.DataFrame]) -> None:
        for name, part in zip(("a", "b"), parts, strict=True):
            path = tmp_path / f"{name}.{kind}"
            part.write_parquet(path) if kind == "parquet" else part.write_csv(path)

    big = dump.with_columns(pl.col("id").cast(pl.Int64) + 2**53)  # (past it from id 1 on)
    odd = big.filter(pl.col("id") % 2 == 1).with_columns(pl.col("id").cast(pl.Float64) + 0.5)
    write([big.filter(pl.col("id") % 2 == 0), odd])
    message = (
        rf"^column 'id' is Int64 in '.*a\.{kind}', with integers past 2\*\*53, but Float64 in "
        rf"'.*b\.{kind}': read as floats"
    )
    for kwargs in ({}, {"validate": False}):
        with pytest.raises(MetricsInputError, match=message):
            pl_metrics.score(tmp_path, "lrap", **kwargs)
    models = dump.with_columns(model=(pl.col("id") % 2).cast(pl.Int64) - 2**53 - 1)
    floats = models.filter(pl.col("id") >= 50).with_columns(pl.col("model").cast(pl.Float64))
    write([models.filter(pl.col("id") < 50), floats])
    with pytest.raises(MetricsInputError, match=r"^column 'model' is Int64 in .* past 2\*\*53"):
        pl_metrics.score(tmp_path, "lrap", by="model")
    folds = dump.with_columns(fold=(pl.col("id") % 3).cast(pl.Int64))
    parts = [
        folds.filter(pl.col("id") < 50),
        folds.filter(pl.col("id") >= 50).with_columns(
            pl.col("id").cast(pl.Float64),
            pl.col("fold").cast(pl.Float64),
            (pl.col("score") > 0.5).cast(pl.Int64),
        ),
    ]
    write(parts)
    want = pl_metrics.lrap(pl.concat(parts, how="vertical_relaxed"), by="fold")
    assert_frame_equal(pl_metrics.score(tmp_path, "lrap", by="fold"), want, check_dtypes=False)
    if kind == "parquet":  # (a CSV's floats are all Float64)
        # A Float32 0.1, widened, is 0.10000000149011612: one group was two rows.
        tenths = dump.with_columns(lr=pl.lit(0.1))
        narrow = tenths.filter(pl.col("id") < 50).with_columns(pl.col("lr").cast(pl.Float32))
        write([narrow, tenths.filter(pl.col("id") >= 50)])
        with pytest.raises(
            MetricsInputError, match=r"^column 'lr' is Float32 in '.*a\.parquet' but Float64"
        ):
            pl_metrics.score(tmp_path, "lrap", by="lr")
        assert pl_metrics.score(tmp_path, "lrap").height == 1  # (a column no key reads)
        # Keys a Float32 holds exactly (0.0 and 1.0 folds) widen to themselves: taken.
        halves = dump.with_columns(lr=(pl.col("id") % 2).cast(pl.Float64) / 2)
        narrow = halves.filter(pl.col("id") < 50).with_columns(pl.col("lr").cast(pl.Float32))
        write([narrow, halves.filter(pl.col("id") >= 50)])
        assert_frame_equal(
            pl_metrics.score(tmp_path, "lrap", by="lr"), pl_metrics.lrap(halves, by="lr")
        )


@pytest.mark.parametrize("kind", ["parquet", "ipc", "csv"])
def test_files_of_other_columns_are_one_table_unless_a_metric_reads_a_missing_one(
    tmp_path: Path, dump: pl.DataFrame, kind: str
) -> None:
    # A shard that gained a column of notes was refused for it, though no metric reads it.
    first, rest = dump.filter(pl.col("id") < 50), dump.filter(pl.col("id") >= 50)
    write = {"parquet": pl.DataFrame.write_parquet, "ipc": pl.DataFrame.write_ipc}
    write.get(kind, pl.DataFrame.write_csv)(first, tmp_path / f"a.{kind}")
    write.get(kind, pl.DataFrame.write_csv)(
        rest.with_columns(note=pl.lit("x"), w=pl.lit(1.0)), tmp_path / f"b.{kind}"
    )
    with pytest.warns(UserWarning, match="is not in 1 of the 2 files") as warned:
        table = scan(tmp_path).collect()
    assert [str(w.message) for w in warned] == [
        f"column {c!r} is not in 1 of the 2 files ({str(tmp_path / f'a.{kind}')!r}): it is "
        "null in their rows"
        for c in ("note", "w")
    ]
    assert table.height == dump.height
    assert table.filter(pl.col("id") < 50)["note"].null_count() == first.height
    assert_frame_equal(pl_metrics.score(tmp_path, "lrap"), pl_metrics.lrap(dump))
    with pytest.raises(
        MetricsInputError,
        match=rf"^column 'w' is in some files of the table but not in '.*a\.{kind}'",
    ):
        pl_metrics.score(tmp_path, "lrap", weight_col="w")
    # Predictions made already: the scores are not read, and need not be in every file.
    for path in tmp_path.iterdir():
        path.unlink()
    predicted = dump.with_columns(pred=pl.col("score") > 0.5)
    write.get(kind, pl.DataFrame.write_csv)(
        predicted.filter(pl.col("id") < 50), tmp_path / f"a.{kind}"
    )
    write.get(kind, pl.DataFrame.write_csv)(
        predicted.filter(pl.col("id") >= 50).drop("score"), tmp_path / f"b.{kind}"
    )
    got = pl_metrics.score(tmp_path, "f1", pred_col="pred")
    assert got.item() == pytest.approx(pl_metrics.f1(predicted, pred_col="pred").item(), rel=1e-12)


@pytest.mark.parametrize("suffix", ["parquet", "arrow"])
def test_unreadable_file_is_named_in_one_printable_line(
    tmp_path: Path, dump: pl.DataFrame, suffix: str
) -> None:
    good = tmp_path / f"a.{suffix}"
    dump.write_parquet(good) if suffix == "parquet" else dump.write_ipc(good)
    bad = tmp_path / f"b.{suffix}"
    bad.write_bytes(b"\x00\x01garbage\xff\xfe\x1b[31m\nPAR" * 20)
    with pytest.raises(MetricsInputError, match=r"cannot read file '.*b\.") as caught:
        scan(tmp_path)
    assert str(caught.value).isprintable()


def test_printable_escapes_control_characters() -> None:
    assert printable(' got "\x1b[31mred\n\x00"\n') == 'got "\\x1b[31mred\\n\\x00"'


@pytest.mark.parametrize(
    "values",
    [
        ["0", "1", "12"],  # Int64
        ["0", "x"],  # String
        ["0", "0.5"],  # Float64
        ["2024-01-01", "2024-01-02"],  # Date
        ["true", "false"],  # Boolean
        ["__HIVE_DEFAULT_PARTITION__", "3"],  # null and Int64
        ["a%20b", "c"],  # percent-decoded
        ["007", "-3"],
        ["+4", "5"],
        ["12:00:00", "13:30:00.5"],  # Time, which polars reads from no parquet folder name
    ],
)
def test_hive_csv_folders_type_their_columns_as_parquet(
    tmp_path: Path, dump: pl.DataFrame, values: list[str]
) -> None:
    rows = dump.head(20).with_columns(
        pl.col("id").cast(pl.Int64), ("c" + pl.col("class")).alias("class")
    )
    for fmt in ("parquet", "csv", "ipc"):
        for model in ("a", "b"):
            for value in values:
                folder = tmp_path / fmt / f"model={model}" / f"fold={value}"
                folder.mkdir(parents=True)
                getattr(rows, f"write_{fmt}")(folder / f"part.{fmt}")
    order = ["model", "fold", "id", "class"]
    from_parquet = scan(tmp_path / "parquet").collect().sort(order, nulls_last=True)
    from_csv = scan(tmp_path / "csv").collect().sort(order, nulls_last=True)
    assert from_csv.columns == ["id", "class", "score", "truth", "model", "fold"]
    assert_frame_equal(from_csv, from_parquet)
    assert_frame_equal(scan(tmp_path / "ipc").collect().sort(order, nulls_last=True), from_csv)


def test_time_folders_over_ipc_files_of_other_types_and_their_own_key_column(
    tmp_path: Path, dump: pl.DataFrame
) -> None:
    """Files of other score types (stacked through a common schema) holding the key's own
    Time column: the folder's text was cast to Time by polars, which cannot."""
    rows = dump.head(20)
    for value, dtype in (("12:00:00", pl.Float32), ("13:00:00", pl.Float64)):
        folder = tmp_path / f"run={value}"
        folder.mkdir()
        time = pl.lit(value).str.to_time()
        rows.with_columns(pl.col("score").cast(dtype), run=time).write_ipc(folder / "p.arrow")
    got = scan(tmp_path).collect()
    assert got.schema["run"] == pl.Time
    assert got["run"].unique().sort().cast(pl.String).to_list() == ["12:00:00", "13:00:00"]


def test_globs_expand_folders_and_literal_names_win(tmp_path: Path, dump: pl.DataFrame) -> None:
    for model in ("a", "b"):
        (tmp_path / f"model={model}").mkdir()
        dump.head(10).write_parquet(tmp_path / f"model={model}" / "part.parquet")
    assert len(files(str(tmp_path / "*"))) == 2  # the glob matches two folders
    odd = tmp_path / "oof[1].parquet"  # a name that is also a glob pattern
    dump.head(10).write_parquet(odd)
    assert files(str(odd)) == [odd]


def test_hidden_and_underscore_entries_of_a_folder_are_no_data(
    tmp_path: Path, dump: pl.DataFrame
) -> None:
    """A notebook's checkpoint copy, macOS's "._x" file or Spark's _temporary below a folder
    were read as data: the copy's rows refused as repeats, the "._x" as a corrupt parquet."""
    folder = tmp_path / "oof"
    (folder / "model=a").mkdir(parents=True)
    dump.write_csv(folder / "model=a" / "part.csv")
    for hidden in (".ipynb_checkpoints/part-checkpoint.csv", "_temporary/0/part.csv"):
        (folder / "model=a" / hidden).parent.mkdir(parents=True)
        dump.write_csv(folder / "model=a" / hidden)
    (folder / "model=a" / "._part.csv").write_bytes(b"\x00\x05junk")
    assert files(folder) == [folder / "model=a" / "part.csv"]
    want = pl_metrics.lrap(dump.with_columns(model=pl.lit("a")), by="model")
    assert_frame_equal(pl_metrics.score(folder, "lrap", by="model"), want)
    (folder / "model=a" / "part.csv").unlink()
    with pytest.raises(pl_metrics.MetricsInputError, match=r'but in entries named "\.x" or "_x"'):
        files(folder)


def test_data_a_folders_names_would_leave_out_is_refused(
    tmp_path: Path, dump: pl.DataFrame
) -> None:
    """A parquet file named part.parq, a part file without an extension or a .csv.bz2 beside
    the folder's .parquet files: its rows were left out silently (a glob naming it is
    refused). Other files (a README, sidecars such as a.parquet.dvc) are no data."""
    folder = tmp_path / "oof"
    folder.mkdir()
    dump.write_parquet(folder / "a.parquet")
    for sidecar in ("README.md", "a.parquet.dvc", "a.csv.md5", "a.pq.json", "a.arrow.yaml"):
        (folder / sidecar).write_text("not data\n")
    assert files(folder) == [folder / "a.parquet"]
    for name, how in (
        ("b.parq", "parquet, by its bytes"),
        ("part-00001", "parquet, by its bytes"),
        ("c.feath", "Arrow IPC, by its bytes"),
        ("d.csv.bz2", "by its name"),
        ("e.tsv", "by its name"),
    ):
        stray = folder / name
        if name.endswith(".feath"):
            dump.write_ipc(stray)
        elif name.endswith((".bz2", ".tsv")):
            stray.write_bytes(b"BZh91AY&SY")
        else:
            dump.write_parquet(stray)
        with pytest.raises(
            pl_metrics.MetricsInputError,
            match=rf"^folder '.*oof' holds 1 data file whose rows would be left out: "
            rf"'.*{name}' \({how}\); (name|decompress|convert) .*, or move it out of the "
            "folder$",
        ):
            pl_metrics.score(folder, "lrap")
        stray.unlink()


def test_stacked_dumps_are_told_apart_in_the_error(tmp_path: Path) -> None:
    """Two tasks' dumps in one folder, or one file per model without a model column."""
    digits = pl.read_parquet("data/digits_oof.parquet")
    (tmp_path / "tasks").mkdir()
    digits.write_parquet(tmp_path / "tasks" / "digits.parquet")
    pl.read_parquet("data/digits_properties_oof.parquet").write_parquet(
        tmp_path / "tasks" / "properties.parquet"
    )
    with pytest.raises(pl_metrics.MetricsInputError, match="ragged") as error:
        pl_metrics.score(tmp_path / "tasks", "lrap", by=["model", "fold"])
    assert "but the 2 files hold different classes ('0', '1', '2', '3', ... only in" in str(
        error.value
    )
    (tmp_path / "models").mkdir()
    for model in ("knn", "logreg"):
        one = digits.filter(pl.col("model") == model).drop("model")
        one.write_parquet(tmp_path / "models" / f"{model}.parquet")
    with pytest.raises(pl_metrics.MetricsInputError, match="repeat a") as error:
        pl_metrics.score(tmp_path / "models", "lrap", by="fold")
    assert "hold the same ids: if each file is the dump of one model" in str(error.value)
    # Foldered as model=<name>, they score as one dump per model.
    for model in ("knn", "logreg"):
        (tmp_path / f"hive/model={model}").mkdir(parents=True)
        (tmp_path / "models" / f"{model}.parquet").rename(
            tmp_path / f"hive/model={model}/part.parquet"
        )
    got = pl_metrics.score(tmp_path / "hive", "lrap", by=["model", "fold"])
    want = pl_metrics.lrap(
        digits.filter(pl.col("model").is_in(["knn", "logreg"])), by=["model", "fold"]
    )
    assert_frame_equal(got, want, check_dtypes=False, rel_tol=1e-12)


def test_a_few_ids_in_two_shards_are_told_as_such(tmp_path: Path) -> None:
    """One id written into two shards (a task retried) was told as files holding the same
    ids, with the advice for one model per file; a dump split by class folders was warned
    of as files of different tasks."""
    digits = pl.read_parquet(DATA).filter(pl.col("model") == "knn", pl.col("fold") == 0)
    digits = digits.drop("model", "fold")
    ids = digits["id"].unique().sort()
    (tmp_path / "retried").mkdir()
    digits.filter(pl.col("id") <= ids[49]).write_parquet(tmp_path / "retried/part-0.parquet")
    digits.filter(pl.col("id") >= ids[49]).write_parquet(tmp_path / "retried/part-1.parquet")
    with pytest.raises(
        MetricsInputError,
        match=rf"files '.*part-0.parquet' and '.*part-1.parquet' share 1 of their ids \(such "
        rf"as {ids[49]}\): an id's rows belong in one file; e\.g\. id={ids[49]}, class='0': 2 "
        r"rows$",
    ):
        pl_metrics.score(tmp_path / "retried", "lrap")
    for label, part in digits.group_by("class"):
        (tmp_path / f"split/class={label[0]}").mkdir(parents=True)
        part.drop("class").write_parquet(tmp_path / f"split/class={label[0]}/part.parquet")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = pl_metrics.score(tmp_path / "split", "lrap")
    assert_frame_equal(got, pl_metrics.lrap(digits), rel_tol=1e-12)


def test_the_same_ids_hint_compares_every_two_files(tmp_path: Path) -> None:
    # Two models' dumps after a file of other ids: each file was compared with the first.
    digits = pl.read_parquet(DATA).filter(pl.col("fold") == 0).drop("fold")
    other = digits.filter(pl.col("model") == "knn").with_columns(pl.col("id") + 10_000)
    other.drop("model").write_parquet(tmp_path / "a_other.parquet")
    for model in ("knn", "logreg"):
        one = digits.filter(pl.col("model") == model).drop("model")
        one.write_parquet(tmp_path / f"b_{model}.parquet")
    with pytest.raises(
        MetricsInputError, match=r"files '.*b_knn.parquet' and '.*b_logreg.parquet' hold the same"
    ):
        pl_metrics.score(tmp_path, "lrap")
    # Integer ids above 2**53, one float apart: compared as integers (as floats, a file's
    # own ids were one, and the file was named as sharing ids with itself).
    (tmp_path / "big").mkdir()
    for n, model in enumerate(("knn", "logreg")):
        one = digits.filter(pl.col("model") == model).drop("model")
        one = one.with_columns(pl.col("id") + 1_500_000_000_000_000_000)
        one.write_parquet(tmp_path / "big" / f"{n}_{model}.parquet")
    with pytest.raises(
        MetricsInputError, match=r"files '.*0_knn.parquet' and '.*1_logreg.parquet' hold the same"
    ):
        pl_metrics.score(tmp_path / "big", "lrap")


def test_a_file_reached_twice_is_read_once(tmp_path: Path) -> None:
    digits = pl.read_parquet("data/digits_oof.parquet")
    digits.write_parquet(tmp_path / "a.parquet")
    given = [tmp_path / "a.parquet", tmp_path, str(tmp_path / "*.parquet")]
    assert files(given) == [tmp_path / "a.parquet"]
    got = pl_metrics.score(given, "lrap", by=["model", "fold"])
    assert_frame_equal(got, pl_metrics.lrap(digits, by=["model", "fold"]), rel_tol=1e-12)


def test_links_to_one_file_in_two_hive_folders_are_two_partitions(tmp_path: Path) -> None:
    digits = pl.read_parquet("data/digits_oof.parquet").filter(pl.col("model") == "knn")
    digits.drop("model").write_parquet(tmp_path / "knn.parquet")
    for model in ("a", "b"):
        (tmp_path / f"oof/model={model}").mkdir(parents=True)
        (tmp_path / f"oof/model={model}/part.parquet").symlink_to(tmp_path / "knn.parquet")
    got = pl_metrics.score(tmp_path / "oof", "lrap", by=["model", "fold"])
    assert got["model"].unique().sort().to_list() == ["a", "b"]


def test_a_linked_folder_inside_a_folder_is_read(tmp_path: Path) -> None:
    # Path.rglob went into no linked folder: model=knn's rows were left out, silently (a
    # glob of the folder, and polars' own scan, read them).
    digits = pl.read_parquet("data/digits_oof.parquet").filter(pl.col("fold") == 0)
    root, elsewhere = tmp_path / "oof", tmp_path / "elsewhere"
    for model, folder in (("logreg", root / "model=logreg"), ("knn", elsewhere)):
        folder.mkdir(parents=True)
        digits.filter(pl.col("model") == model).drop("model").write_parquet(folder / "p.parquet")
    (root / "model=knn").symlink_to(elsewhere)
    (root / "model=logreg" / "loop").symlink_to(root)  # (a link back up is not followed)
    got = pl_metrics.score(root, "lrap", by="model").sort("model")
    want = pl_metrics.lrap(digits.filter(pl.col("model").is_in(["knn", "logreg"])), by="model")
    assert_frame_equal(got, want.sort("model"), rel_tol=1e-12)


def test_a_folder_not_listed_or_a_dangling_link_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """os.walk leaves out a folder it cannot list, and a link to a file gone (a disk not
    mounted) was no file: half the dump scored, without a word (polars refuses both)."""
    digits = pl.read_parquet("data/digits_oof.parquet").filter(pl.col("fold") == 0)
    root = tmp_path / "oof"
    for part in ("a", "b"):
        (root / part).mkdir(parents=True)
        digits.filter(pl.col("model") == "knn").write_parquet(root / part / "p.parquet")
    listed = os.scandir

    def scandir(path: Any) -> Any:
        if Path(path) == root / "b":
            raise PermissionError(13, "Permission denied", str(path))
        return listed(path)

    with monkeypatch.context() as patched:  # (warned, not refused: a disk's lost+found)
        patched.setattr(os, "scandir", scandir)
        with pytest.warns(UserWarning, match=r"^cannot list folder '.*b': Permission denied; its"):
            assert files(root) == [root / "a" / "p.parquet"]
    (root / "_temporary").mkdir()  # (a folder of no data is not read, listed or not)

    def scandir_hidden(path: Any) -> Any:
        if Path(path) == root / "_temporary":
            raise PermissionError(13, "Permission denied", str(path))
        return listed(path)

    with monkeypatch.context() as patched, warnings.catch_warnings():
        warnings.simplefilter("error")
        patched.setattr(os, "scandir", scandir_hidden)
        assert len(files(root)) == 2
    (root / "c.parquet").symlink_to(tmp_path / "unmounted" / "c.parquet")
    with pytest.raises(MetricsInputError, match=r"^file '.*c\.parquet' is a link to '.*', wh"):
        pl_metrics.score(root, "lrap")
    (root / ".hidden.parquet").symlink_to(tmp_path / "gone.parquet")  # (no data: left out)
    (root / "c.parquet").unlink()
    assert len(files(root)) == 2


@pytest.mark.skipif(os.name != "posix", reason="file names of any bytes are POSIX's")
def test_a_file_name_that_is_not_utf8_is_told(tmp_path: Path) -> None:
    """polars takes no path of bytes that are not UTF-8 (a Latin-1 'é'): a raw TypeError,
    'Object does not have a .read() method', which the command line called its own bug."""
    folder = os.path.join(os.fsencode(tmp_path), b"r\xe9sultats")
    os.mkdir(folder)
    pl.read_parquet("data/digits_oof.parquet").head(10).write_parquet(tmp_path / "t.parquet")
    os.rename(tmp_path / "t.parquet", os.path.join(folder, b"oof.parquet"))
    with pytest.raises(MetricsInputError, match=r"r\\udce9sultats/oof\.parquet': its name is not"):
        pl_metrics.score(tmp_path, "lrap")


def test_a_file_that_makes_polars_panic_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """polars panics on some files (pyarrow's string_view IPC files, in polars 2.1): the
    error did not name the file, and the command line called it a bug of its own."""
    from pl_metrics import _driver, _io

    told = "cannot read file 'v.arrow': range end index 8 out of range"
    monkeypatch.setattr(_io, "unreadable_file", lambda found, columns: told)
    spec = resolve(
        pl.LazyFrame(
            schema={"id": pl.Int64, "class": pl.Int64, "score": pl.Float64, "truth": pl.Boolean}
        ),
        ["lrap"],
    )
    with (
        pytest.raises(MetricsInputError, match=f"^{re.escape(told)}$"),
        _driver.named_file([tmp_path / "v.arrow"], spec),
    ):
        raise pl.exceptions.PanicException("range end index 8 out of range")


def test_links_round_in_a_loop_are_walked_once(tmp_path: Path) -> None:
    # Two folders linking to each other twice each doubled the paths at every level, and a
    # link to / walked the whole file system: the scan never returned.
    row = pl.DataFrame({"id": [1, 1], "class": [0, 1], "score": [0.1, 0.2], "truth": [True, False]})
    for name in ("A", "B"):
        (tmp_path / name).mkdir()
        row.write_csv(tmp_path / name / f"{name}.csv")
    for link, target in (("A/x1", "B"), ("A/x2", "B"), ("B/y1", "A"), ("B/y2", "A")):
        (tmp_path / link).symlink_to(tmp_path / target)
    (tmp_path / "slash").symlink_to("/")
    found = files(tmp_path)
    assert sorted({p.name for p in found}) == ["A.csv", "B.csv"]


def test_the_same_ids_hint_within_hive_folders_and_across_id_types(tmp_path: Path) -> None:
    digits = pl.read_parquet("data/digits_oof.parquet").filter(pl.col("fold") < 2)
    # Models stacked per fold folder, without a model column: files of one folder compared.
    for (fold, model), part in digits.group_by("fold", "model"):
        (tmp_path / f"hive/fold={fold}").mkdir(parents=True, exist_ok=True)
        part.drop("model", "fold").write_parquet(tmp_path / f"hive/fold={fold}/{model}.parquet")
    with pytest.raises(MetricsInputError, match="hold the same ids: if each file"):
        pl_metrics.score(tmp_path / "hive", "lrap", by="fold")
    # CSV files whose ids were read as integers in one and floats in the other.
    (tmp_path / "csv").mkdir()
    knn = digits.filter(pl.col("model") == "knn").drop("model")
    knn.write_csv(tmp_path / "csv" / "knn.csv")
    forest = digits.filter(pl.col("model") == "forest").drop("model")
    forest.with_columns(pl.col("id").cast(pl.Float64)).write_csv(tmp_path / "csv" / "forest.csv")
    (tmp_path / "csv" / "a_empty.csv").write_text(",".join(knn.columns) + "\n")  # tells nothing
    with pytest.raises(MetricsInputError, match="hold the same ids"):
        pl_metrics.score(tmp_path / "csv", "lrap", by="fold")
    # Ids that cast to no string (lists) are compared by their hashes: an internal error was
    # raised instead of the duplicate rows' message.
    (tmp_path / "lists").mkdir()
    listed = knn.with_columns(pl.concat_list("id", "fold").alias("id"))
    listed.write_parquet(tmp_path / "lists" / "a.parquet")
    listed.head(1).write_parquet(tmp_path / "lists" / "b.parquet")
    with pytest.raises(MetricsInputError, match=r"repeats a \(id, class\) .* hold the same ids"):
        pl_metrics.score(tmp_path / "lists", "lrap")


def test_a_path_as_bytes_or_path_like_is_one_path_and_a_dict_none() -> None:
    """b"oof.parquet" was read byte by byte ("file not found: '100'"), an os.DirEntry
    refused, a dict's keys read as paths."""
    entry = next(e for e in os.scandir(DATA.parent) if e.name == DATA.name)
    whole = pl_metrics.score(DATA, "lrap", by="model")
    for source in (bytes(DATA), entry, [bytes(DATA)], [entry]):
        assert files(source) == [DATA]  # type: ignore[arg-type]
        # (score() took str and Path only: "expected files, folders or globs")
        assert_frame_equal(pl_metrics.score(source, "lrap", by="model"), whole)
    with pytest.raises(MetricsInputError, match=r"expected files, folders or globs \(a path"):
        files(bytearray(bytes(DATA)))  # type: ignore[arg-type]
    with pytest.raises(MetricsInputError, match=r"expected files, folders or globs \(a path"):
        files({str(DATA): 1})  # type: ignore[arg-type]


def test_a_frame_is_no_list_of_files() -> None:
    frame = pl.DataFrame({"id": [0, 1]})
    for source in (frame, frame.lazy()):
        with pytest.raises(MetricsInputError, match=r"expected files, folders or globs, got a"):
            files(source)  # type: ignore[arg-type]

    class DaskLike(list[str]):  # a Dask frame iterates over its column names
        __dask_graph__ = None

    with pytest.raises(
        MetricsInputError, match=r"^a Dask DaskLike is not read as it is: write it to parquet"
    ):
        files(DaskLike(["id", "class"]))
    # A metric of it was told of Arrow streams and pandas only.
    with pytest.raises(
        TypeError, match=r"; for a Dask frame, \.compute\(\) it .*pl_metrics\.dask\.score$"
    ):
        pl_metrics.lrap(DaskLike(["id", "class"]))  # type: ignore[type-var]


def test_cluster_by_id_checks_its_column_and_destination(tmp_path: Path) -> None:
    path = tmp_path / "dump.parquet"
    pl.DataFrame(
        {"id": [0, 1], "class": [0, 0], "score": [0.1, 0.2], "truth": [0, 1]}
    ).write_parquet(path)
    with pytest.raises(MetricsInputError, match=r"'idd' \(option 'id_col'\).*did you mean 'id'"):
        pl_metrics.cluster_by_id(path, tmp_path / "out", id_col="idd")
    with pytest.raises(MetricsInputError, match=r"is a file, not a folder"):
        pl_metrics.cluster_by_id(path, path)
    # Parts written into the source were read with it from then on (refused as a file
    # outside the key folders); an earlier run's parts stayed beside the new ones.
    with pytest.raises(MetricsInputError, match=r"is inside the source folder"):
        pl_metrics.cluster_by_id(tmp_path, tmp_path / "out")
    with pytest.raises(MetricsInputError, match=r"is inside the source folder"):
        pl_metrics.cluster_by_id([str(tmp_path)], tmp_path)
    with pytest.raises(MetricsInputError, match=r"is inside the source folder"):
        pl_metrics.cluster_by_id(f"{tmp_path}/*.parquet", tmp_path / "out")
    # (a folder as bytes, or in a set or a generator, passed the check: parts written in it)
    for source in (bytes(tmp_path), {str(tmp_path)}, (p for p in [tmp_path])):
        with pytest.raises(MetricsInputError, match=r"is inside the source folder"):
            pl_metrics.cluster_by_id(source, tmp_path / "out")
    written = pl_metrics.cluster_by_id(path, tmp_path.parent / f"{tmp_path.name}_out", n_parts=2)
    with pytest.raises(MetricsInputError, match=r"holds 2 data files already \(e\.g\. 'part-0000"):
        pl_metrics.cluster_by_id(path, written[0].parent, n_parts=1)


def test_cluster_by_id_refuses_a_frame_as_a_frame(tmp_path: Path) -> None:
    # Iterating a frame gives its columns (a pandas frame's, their names): they were taken
    # for paths ("no file matches 'shape: (2,) Series...'", "file not found: 'id'").
    df = pl.DataFrame({"id": [0, 1], "class": [0, 0], "score": [0.1, 0.2], "truth": [0, 1]})
    for frame in (df, df.lazy(), df.to_pandas(), df.to_arrow()):
        with pytest.raises(MetricsInputError, match=r"^expected files, folders or globs, got a"):
            pl_metrics.cluster_by_id(frame, tmp_path / "out")


def test_ids_arrow_cannot_read_are_chunked_without_statistics(tmp_path: Path) -> None:
    path = tmp_path / "wide_ids.parquet"
    df = pl.DataFrame(
        {
            "id": pl.Series([0, 0, 1, 1, 2, 2], dtype=pl.Int128),
            "class": ["a", "b"] * 3,
            "score": [0.9, 0.1, 0.2, 0.8, 0.5, 0.4],
            "truth": [True, False, True, False, False, True],
        }
    )
    df.write_parquet(path)
    whole = pl_metrics.lrap(df)
    assert_frame_equal(pl_metrics.score(path, "lrap", n_chunks=2), whole)


def test_cluster_by_id_takes_a_generator_of_paths(tmp_path: Path) -> None:
    path = tmp_path / "dump.parquet"
    pl.DataFrame(
        {"id": [0, 1], "class": [0, 0], "score": [0.1, 0.2], "truth": [0, 1]}
    ).write_parquet(path)
    written = pl_metrics.cluster_by_id(tmp_path.glob("*.parquet"), tmp_path / "out")
    assert pl.read_parquet(written).sort("id")["id"].to_list() == [0, 1]


@pytest.mark.parametrize("kind", ["parquet", "csv", "ipc"])
def test_a_file_in_another_models_folder_is_refused(tmp_path: Path, kind: str) -> None:
    """Files keep their own model column: in its own folder it is scored (polars writes
    partitions so), in another model's folder the folder's value would replace it."""
    digits = pl.read_parquet(DATA).filter(pl.col("model").is_in(["knn", "logreg"]))
    want = pl_metrics.lrap(digits, by=["model", "fold"])
    layout = {"right": [("knn", "knn"), ("logreg", "logreg")], "swapped": [("knn", "logreg")]}
    layout["swapped"].append(("logreg", "knn"))  # (folder's model, the file's rows' model)
    for root, parts in layout.items():
        for folder, held in parts:
            (tmp_path / root / f"model={folder}").mkdir(parents=True)
            part = tmp_path / root / f"model={folder}" / f"part.{kind}"
            getattr(digits.filter(pl.col("model") == held), f"write_{kind}")(part)
    got = pl_metrics.score(tmp_path / "right", "lrap", by=["model", "fold"])
    assert_frame_equal(got, want, check_dtypes=False, rel_tol=1e-12)
    with pytest.raises(
        MetricsInputError,
        match=r"^column 'model': 2 files hold other values than their folder's model=\.\.\. "
        r"\(e\.g\. '.*model=knn.*' holds 'logreg' in its folder model='knn'\); the folder's",
    ):
        pl_metrics.score(tmp_path / "swapped", "lrap", by=["model", "fold"])
    # A file with its own column, in a key= folder of that name: the LazyFrame way out.
    with pytest.raises(MetricsInputError, match=r"score pl\.scan_parquet\(file\), a LazyFrame\)$"):
        pl_metrics.score(tmp_path / "swapped" / f"model=knn/part.{kind}", "lrap", by="model")


def test_a_folder_key_in_the_files_is_compared_as_polars_reads_it(tmp_path: Path) -> None:
    """In the file column's type (Float32 0.1 is folder x=0.1), categories through text, the
    column itself (not a struct's field of its name); empty CSV shards are left out."""
    base = pl.DataFrame(
        {"id": [0, 0, 1, 1], "class": ["a", "b"] * 2, "score": [0.1, 0.9, 0.8, 0.2]}
    ).with_columns(truth=pl.Series([False, True, True, False]))
    want = pl_metrics.lrap(base).item()
    layouts = {
        "f32/x=0.1/p.parquet": base.with_columns(x=pl.lit(0.1, pl.Float32)),
        "cat/fold=1/p.arrow": base.with_columns(fold=pl.lit("1").cast(pl.Categorical)),
        "enum/fold=1/p.parquet": base.with_columns(fold=pl.lit("1").cast(pl.Enum(["1"]))),
        "nested/model=a/p.parquet": base.select(
            pl.struct(model=pl.lit("zzz")).alias("meta"), pl.all(), model=pl.lit("a")
        ),
        "csv/model=a/p.csv": base.with_columns(model=pl.lit("a")),
    }
    for name, frame in layouts.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True)
        if path.suffix == ".arrow":
            frame.write_ipc(path)
        elif path.suffix == ".csv":
            frame.write_csv(path)
            (path.parent / "empty.csv").write_bytes(b"")
        else:
            frame.write_parquet(path, statistics=not name.startswith("enum"))
        root = tmp_path / name.split("/")[0]
        assert pl_metrics.score(root, "lrap").item() == pytest.approx(want), name
    # A file outside any folder of the key, beside files in such folders.
    base.with_columns(model=pl.lit("b")).write_parquet(tmp_path / "nested" / "loose.parquet")
    with pytest.raises(MetricsInputError, match=r"loose\.parquet' holds 'b' outside any model="):
        pl_metrics.score(tmp_path / "nested", "lrap")


@pytest.mark.parametrize("kind", ["parquet", "ipc", "csv"])
def test_a_folder_name_is_read_in_the_type_of_the_files_column(tmp_path: Path, kind: str) -> None:
    """k=007 holding the text "007" agrees (polars reads the folder as the column's type);
    a date folder beside a CSV's date column (text in the file) agrees too."""
    base = pl.DataFrame(
        {"id": [1, 1, 2, 2], "class": ["a", "b"] * 2, "score": [0.1, 0.7, 0.8, 0.3]}
    ).with_columns(truth=pl.Series([False, True, True, False]))
    for key, day in [("007", "2020-01-01"), ("2", "2020-01-02")]:
        folder = tmp_path / f"k={key}" / f"day={day}"
        folder.mkdir(parents=True)
        frame = base.with_columns(k=pl.lit(key), day=pl.lit(day).str.to_date())
        getattr(frame, f"write_{kind}")(folder / f"part.{kind}")
    got = pl_metrics.score(tmp_path, "lrap", by="k")
    assert got["lrap"].to_list() == [pl_metrics.lrap(base).item()] * 2


@pytest.mark.parametrize("kind", ["parquet", "ipc", "csv"])
def test_a_folder_key_some_files_hold_and_boolean_keys(tmp_path: Path, kind: str) -> None:
    """flag=true/false folders whose files hold their Boolean column read as polars reads
    them; a key that only some files hold is refused."""
    base = pl.DataFrame(
        {"id": [1, 1, 2, 2], "class": ["a", "b"] * 2, "score": [0.1, 0.7, 0.8, 0.3]}
    ).with_columns(truth=pl.Series([False, True, True, False]))
    want = pl_metrics.lrap(base).item()
    for flag, holds in [(True, True), (False, False)]:
        folder = tmp_path / f"flag={str(flag).lower()}"
        folder.mkdir()
        frame = base.with_columns(flag=pl.lit(flag)) if holds else base
        getattr(frame, f"write_{kind}")(folder / f"part.{kind}")
        (tmp_path / "bool" / folder.name).mkdir(parents=True)
        getattr(base.with_columns(flag=pl.lit(flag)), f"write_{kind}")(
            tmp_path / "bool" / folder.name / f"part.{kind}"
        )
    got = pl_metrics.score(tmp_path / "bool", "lrap", by="flag").sort("flag")
    assert got["flag"].to_list() == [False, True]
    assert got["lrap"].to_list() == pytest.approx([want, want])
    # A key that only some parquet or IPC files hold: refused by name (their column sets
    # differ), never read in another type than the files', which could merge groups. CSV
    # files are stacked with their folders' values, each read alike.
    partly = [tmp_path / "flag=true", tmp_path / "flag=false"]
    if kind == "csv":
        got = pl_metrics.score(partly, "lrap", by="flag").sort("flag")
        assert got["flag"].to_list() == [False, True]
    else:
        with pytest.raises(MetricsInputError, match=r"have different columns: only .*'flag'"):
            pl_metrics.score(partly, "lrap", by="flag")


def test_cluster_by_id_makes_a_part_per_row_at_most(tmp_path: Path) -> None:
    digits = pl.read_parquet(DATA).head(24)
    digits.write_parquet(tmp_path / "small.parquet")
    parts = pl_metrics.cluster_by_id(tmp_path / "small.parquet", tmp_path / "out", n_parts=10**12)
    assert 1 <= len(parts) <= 24
    assert pl.read_parquet(parts).height == 24


def test_cluster_by_id_cuts_ids_in_their_own_order(tmp_path: Path) -> None:
    """The cuts were sorted as Python sorts them, the parts cut as polars compares: Enum ids
    of categories not in text order made parts of 150, 0, 0 and 150 rows of 200 (50 ids
    twice); a cut at the smallest id made an empty part (boolean ids)."""
    ids = [str(i) for i in range(100)]
    df = pl.DataFrame(
        {"id": [i for i in ids for _ in range(2)], "class": [0, 1] * 100}
    ).with_columns(score=pl.int_range(pl.len()) % 7 / 7, truth=pl.col("class") == 1)
    enum = df.with_columns(pl.col("id").cast(pl.Enum(ids[::-1])))
    enum.write_parquet(tmp_path / "enum.parquet")
    parts = pl_metrics.cluster_by_id(tmp_path / "enum.parquet", tmp_path / "enum", n_parts=4)
    sizes = [pl.read_parquet(p).height for p in parts]
    assert sizes == [50, 50, 50, 50]
    got = pl_metrics.score(tmp_path / "enum", "lrap")
    assert got["lrap"][0] == pytest.approx(pl_metrics.lrap(enum)["lrap"][0])
    flags = df.with_columns(id=pl.col("id").cast(pl.Int32) % 2 == 0)
    flags.unique(["id", "class"]).write_parquet(tmp_path / "flags.parquet")
    parts = pl_metrics.cluster_by_id(tmp_path / "flags.parquet", tmp_path / "flags", n_parts=5)
    assert [pl.read_parquet(p)["id"].to_list() for p in parts] == [[False] * 2, [True] * 2]
    # Nanosecond ids cut as Python's datetimes (microseconds) made one part of all.
    stamps = df.with_columns(pl.col("id").cast(pl.Int64).cast(pl.Datetime("ns", "Asia/Tokyo")))
    stamps.write_parquet(tmp_path / "ns.parquet")
    parts = pl_metrics.cluster_by_id(tmp_path / "ns.parquet", tmp_path / "ns", n_parts=4)
    assert [pl.read_parquet(p).height for p in parts] == [50, 50, 50, 50]


def test_cluster_by_id_refuses_ids_that_do_not_sort(tmp_path: Path) -> None:
    df = pl.DataFrame({"id": [1, 1, 2, 2], "class": [0, 1] * 2, "score": [0.2, 0.8, 0.4, 0.6]})
    for nested in (pl.struct(a="id"), pl.concat_list("id")):
        df.with_columns(nested.alias("id")).write_parquet(tmp_path / "nested.parquet")
        with pytest.raises(MetricsInputError, match=r"column 'id'.* cut into ranges"):
            pl_metrics.cluster_by_id(tmp_path / "nested.parquet", tmp_path / "o", n_parts=2)


def test_decimal_shards_of_two_scales_and_half_float_folder_keys(tmp_path: Path) -> None:
    """Shards of Decimal ids of two scales were widened to a type polars' scan does not cast
    to (its SchemaError); a folder key held as a half float (raw bytes in the statistics)
    was told as "holds None in its folder"."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    base = pl.DataFrame({"class": ["a", "b"] * 2, "score": [0.1, 0.9, 0.8, 0.3]})
    base = base.with_columns(truth=pl.Series([False, True, True, False]))
    shards = tmp_path / "shards"
    shards.mkdir()
    for name, ids, dtype in (
        ("a", [1.25, 2.5], pl.Decimal(10, 2)),
        ("b", [3.75, 4.0], pl.Decimal(12, 4)),
    ):
        ids = pl.Series([i for i in ids for _ in (0, 1)]).cast(dtype)
        base.with_columns(id=ids).write_parquet(shards / f"{name}.parquet")
    with pytest.raises(MetricsInputError, match=r"^column 'id' is Decimal.* the files must agree"):
        pl_metrics.score(shards, "lrap")
    folder = tmp_path / "keys" / "f=1.5"
    folder.mkdir(parents=True)
    table = base.with_columns(id=pl.Series([0, 0, 1, 1])).to_arrow()
    half = pa.array(np.full(4, 1.5, np.float16))
    pq.write_table(table.append_column("f", half), folder / "p.parquet")
    got = pl_metrics.score(tmp_path / "keys", "lrap", by="f")
    assert got["lrap"].to_list() == [1.0]


def test_folders_of_one_number_in_two_spellings_stay_two_groups(tmp_path: Path) -> None:
    """k=007 and k=7 over files holding the text "007" and "7": two groups, as the files say."""
    base = pl.DataFrame(
        {"id": [1, 1, 2, 2], "class": ["a", "b"] * 2, "score": [0.1, 0.7, 0.8, 0.3]}
    ).with_columns(truth=pl.Series([False, True, True, False]))
    for key in ("007", "7"):
        (tmp_path / f"k={key}").mkdir()
        base.with_columns(k=pl.lit(key), id=pl.col("id") + len(key)).write_parquet(
            tmp_path / f"k={key}" / "p.parquet"
        )
    got = pl_metrics.score(tmp_path, "lrap", by="k").sort("k")
    assert got["k"].to_list() == ["007", "7"]


@pytest.mark.parametrize("kind", ["parquet", "ipc", "csv"])
def test_folders_read_as_one_value_are_refused(tmp_path: Path, kind: str) -> None:
    """fold=01 and fold=1 over files without the column: both the integer 1, which scored
    their rows as one group, silently."""
    base = pl.DataFrame(
        {"id": [1, 1, 2, 2], "class": ["a", "b"] * 2, "score": [0.1, 0.7, 0.8, 0.3]}
    ).with_columns(truth=pl.Series([True, False, True, False]))
    for key in ("01", "1"):
        folder = tmp_path / f"fold={key}"
        folder.mkdir()
        part = base.with_columns(id=pl.col("id") + 10 * len(key))
        getattr(part, f"write_{kind}")(folder / f"p.{kind}")
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"^folders fold=01 and fold=1 both read as fold 1 \(Int64\): their rows would be "
        "one group",
    ):
        pl_metrics.score(tmp_path, "lrap", by="fold")
    # Under two models' folders, the spellings are two groups by model: scored.
    nested = tmp_path / "nested"
    for model, keys in (("a", ("01", "02")), ("b", ("1", "2"))):
        for key in keys:
            folder = nested / f"model={model}" / f"fold={key}"
            folder.mkdir(parents=True)
            getattr(base, f"write_{kind}")(folder / f"p.{kind}")
    got = pl_metrics.score(nested, "lrap", by=["model", "fold"])
    assert got.sort("model", "fold")["fold"].to_list() == [1, 2, 1, 2]
    # Spelt apart in both keys, one partition all the same: model=1/fold=01, model=01/fold=1.
    crossed = tmp_path / "crossed"
    for model, fold in (("1", "01"), ("01", "1")):
        folder = crossed / f"model={model}" / f"fold={fold}"
        folder.mkdir(parents=True)
        part = base.with_columns(id=pl.col("id") + 10 * len(model))
        getattr(part, f"write_{kind}")(folder / f"p.{kind}")
    with pytest.raises(pl_metrics.MetricsInputError, match=r"both read as model 1 \(Int64\)"):
        pl_metrics.score(crossed, "lrap", by=["model", "fold"])


def test_folder_names_are_typed_as_the_files_columns_read_together(tmp_path: Path) -> None:
    """A CSV file's own key column is typed file by file ('007' an integer), and a parquet
    file's may be narrower than another's (Int8 beside Int16): the other folders' names,
    typed as that first file's column, read as nulls, refused as one group."""
    base = pl.DataFrame(
        {"id": [1, 1, 2, 2], "class": [0, 1, 0, 1], "score": [0.9, 0.1, 0.2, 0.8]}
    ).with_columns(truth=pl.Series([True, False, False, True]))
    for i, model in enumerate(["007", "x", "y"]):
        (tmp_path / "csv" / f"model={model}").mkdir(parents=True)
        part = base.with_columns(pl.col("id") + 10 * i, model=pl.lit(model))
        part.write_csv(tmp_path / "csv" / f"model={model}" / "p.csv")
    got = pl_metrics.score(tmp_path / "csv", "lrap", by="model").sort("model")
    assert got["model"].to_list() == ["007", "x", "y"]
    for i, (epoch, dtype) in enumerate([(100, pl.Int8), (200, pl.Int16), (300, pl.Int16)]):
        (tmp_path / "pq" / f"epoch={epoch}").mkdir(parents=True)
        part = base.with_columns(pl.col("id") + 10 * i, epoch=pl.lit(epoch, dtype))
        part.write_parquet(tmp_path / "pq" / f"epoch={epoch}" / "p.parquet")
    got = pl_metrics.score(tmp_path / "pq", "lrap", by="epoch").sort("epoch")
    assert got["epoch"].to_list() == [100, 200, 300]


@pytest.mark.parametrize("kind", ["parquet", "ipc", "csv"])
def test_files_under_different_folder_keys_are_refused(tmp_path: Path, kind: str) -> None:
    # model=a/fold=0/ beside model=b/: polars' ShapeError (parquet, IPC), or a null fold.
    base = pl.DataFrame(
        {"id": [1, 1, 2, 2], "class": ["a", "b"] * 2, "score": [0.1, 0.7, 0.8, 0.3]}
    ).with_columns(truth=pl.Series([False, True, True, False]))
    for folder in ("model=a/fold=0", "model=b"):
        (tmp_path / folder).mkdir(parents=True)
        path = tmp_path / folder / f"part.{kind}"
        {"parquet": base.write_parquet, "ipc": base.write_ipc, "csv": base.write_csv}[kind](path)
    with pytest.raises(MetricsInputError, match=r"lie in different key= folders \(model=/fold="):
        pl_metrics.score(tmp_path, "lrap", by="model")
    with pytest.raises(MetricsInputError, match=r"model=b/part\.\w+' lie in different key="):
        pl_metrics.scan(tmp_path)
    # A value holding '=' is no key= folder (it was told as "no key= folder" beside model=).
    (tmp_path / "model=a=0").mkdir()
    (tmp_path / "model=a" / "fold=0" / f"part.{kind}").rename(tmp_path / "model=a=0" / f"p.{kind}")
    (tmp_path / "model=a" / "fold=0").rmdir()
    with pytest.raises(MetricsInputError, match=r"folder 'model=a=0': its value holds '='.*a%3D0"):
        pl_metrics.score(tmp_path, "lrap", by="model")
    # Above every file, such a folder is not why the keys differ.
    shared = tmp_path / "run=a=b"
    (shared / "model=a" / "fold=0").mkdir(parents=True)
    (tmp_path / "model=b").rename(shared / "model=b")
    (tmp_path / "model=a=0" / f"p.{kind}").rename(shared / "model=a" / "fold=0" / f"p.{kind}")
    with pytest.raises(MetricsInputError, match=r"lie in different key= folders \(model=/fold="):
        pl_metrics.score(shared, "lrap", by="model")


def test_folder_keys_in_another_order_are_the_same_keys(tmp_path: Path, dump: pl.DataFrame) -> None:
    part = dump.filter(pl.col("id") < 20)
    for folder in ("model=a/fold=0", "fold=1/model=b"):
        (tmp_path / folder).mkdir(parents=True)
        part.write_parquet(tmp_path / folder / "part.parquet")
    got = pl_metrics.score(tmp_path, "lrap", by=["model", "fold"]).sort("model")
    assert got.select("model", "fold").rows() == [("a", 0), ("b", 1)]


def test_files_of_two_tasks_name_the_same_group_on_every_call(tmp_path: Path) -> None:
    """Each model's classes differ between the files: the group told was whichever polars
    gave first (21 messages in 30 calls)."""
    rows = [
        (f"m{m:02d}", i, f"z{m:02d}" if f == 1 and c == 0 else f"c{c}", 0.5, c == 0)
        for f in (0, 1)
        for m in range(30)
        for i in range(f * 10, f * 10 + 3)
        for c in range(3)
    ]
    df = pl.DataFrame(rows, schema=["model", "id", "class", "score", "truth"], orient="row")
    for f in (0, 1):
        df.filter(pl.col("id") // 10 == f).write_parquet(tmp_path / f"{f}.parquet")
    told = {mixed_tasks(files(tmp_path), "class", ["model"]) for _ in range(15)}
    assert len(told) == 1
    assert "'c0' only in '" in str(next(iter(told)))


def test_files_of_two_tasks_scored_together_are_warned_of(tmp_path: Path) -> None:
    # The shipped folder holds two dumps of the same ids and models: each id had the
    # classes of both, every check passed, and the values were of neither task.
    digits = pl.read_parquet(DATA).filter(pl.col("fold") == 0)
    even = pl.col("class").cast(pl.Int64) % 2 == 0
    parity = (
        digits.with_columns(pl.when(even).then(pl.lit("even")).otherwise(pl.lit("odd")))
        .group_by("model", "fold", "id", "literal")
        .agg(pl.col("score").sum(), pl.col("truth").any())
        .rename({"literal": "class"})
        .select(digits.columns)
        .sort("model", "id", "class")
    )
    digits.write_parquet(tmp_path / "digits.parquet")
    parity.write_parquet(tmp_path / "parity.parquet")
    with pytest.warns(
        UserWarning,
        match=r"^files scored together hold different classes \('0', '1', '2', '3', \.\.\. only in "
        r"'.*digits\.parquet'; 'even', 'odd' only in '.*parity\.parquet'\): if they are dumps",
    ):
        pl_metrics.score(tmp_path, "lrap", by="model")
    # Apart under a folder key of 'by', or shards of one dump: no warning.
    for name, frame in (("digits", digits), ("parity", parity)):
        (tmp_path / f"task={name}").mkdir()
        frame.write_parquet(tmp_path / f"task={name}" / "part.parquet")
    (tmp_path / "shards").mkdir()
    for part in range(3):
        digits.filter(pl.col("id") % 3 == part).write_parquet(tmp_path / f"shards/{part}.parquet")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pl_metrics.score(list(tmp_path.glob("task=*/*.parquet")), "lrap", by=["task", "model"])
        pl_metrics.score(tmp_path / "shards", "lrap", by="model")
        both = [tmp_path / "digits.parquet", tmp_path / "parity.parquet"]
        pl_metrics.score(both, "lrap", by="model", validate=False)  # no checks asked for
        # Apart by a column of the files, a by column: their groups are scored apart.
        (tmp_path / "tasks").mkdir()
        digits.with_columns(task=pl.lit("d")).write_parquet(tmp_path / "tasks/d.parquet")
        parity.with_columns(task=pl.lit("p")).write_parquet(tmp_path / "tasks/p.parquet")
        pl_metrics.score(tmp_path / "tasks", "lrap", by=["task", "model"])
        # Ids of some classes each (ragged='allow'): shards of them hold different classes.
        sparse = digits.filter(pl.col("truth") | (pl.col("score") > 0.01))
        (tmp_path / "sparse").mkdir()
        for part in range(2):
            sparse.filter(pl.col("id") % 2 == part).head(40).write_parquet(
                tmp_path / f"sparse/{part}.parquet"
            )
        pl_metrics.score(tmp_path / "sparse", "lrap", by="model", ragged="allow")


@pytest.mark.parametrize("nested", [pl.concat_list, pl.struct])
def test_shards_with_a_nested_by_column_are_scored(tmp_path: Path, nested: Any) -> None:
    # The mixed-task check keyed its groups by the by values: a list or dict is no key.
    dump = pl.read_parquet(DATA).filter(pl.col("fold") == 0, pl.col("id") < 40)
    keyed = dump.with_columns(nested(pl.col("model")).alias("key"))
    for part in range(2):
        keyed.filter(pl.col("id") % 2 == part).write_parquet(tmp_path / f"{part}.parquet")
    got = pl_metrics.score(tmp_path, "lrap", by="key").sort(pl.col("key").hash(seed=0))
    expected = pl_metrics.lrap(keyed, by="key").sort(pl.col("key").hash(seed=0))
    assert_frame_equal(got, expected)


def test_csv_keys_that_read_as_one_number_are_named(tmp_path: Path) -> None:
    # "01" and "1" are two classes in the file and one integer once read: their rows look
    # repeated, with nothing saying why.
    digits = pl.read_parquet(DATA).filter(pl.col("model") == "knn")
    renamed = pl.when(pl.col("class") == "0").then(pl.lit("01")).otherwise(pl.col("class"))
    path = tmp_path / "classes.csv"
    digits.with_columns(renamed.alias("class")).write_csv(path)
    with pytest.raises(pl_metrics.MetricsInputError) as caught:
        pl_metrics.score(path, "f1")
    message = str(caught.value)
    assert message.startswith("column 'class': 1,797 rows repeat a (id, class)")
    assert message.endswith(
        f"but file {str(path)!r} writes '01' and '1' in column 'class', which a CSV reader "
        "types as one number: keep such keys as text (write them in parquet, or with a "
        "prefix: c01); e.g. id=1, class=1: 2 rows; id=3, class=1: 2 rows; id=7, class=1: 2 "
        "rows; ..."
    )


def test_a_csv_column_of_numbers_with_words_counts_them(tmp_path: Path) -> None:
    # One "NA" makes the reader type a column as text: the rows and values are named.
    digits = pl.read_parquet(DATA).filter(pl.col("model") == "knn")
    first = pl.int_range(pl.len())
    # (the first failing row is named: row 0 for the scores and weights, row 7 for the truth;
    # a CSV reads the digits' ids and classes as integers)
    row0, row7 = (f"first at id={digits['id'][i]}, class={digits['class'][i]}" for i in (0, 7))
    cases = {
        "score": (
            pl.when(first < 3)
            .then(pl.lit("NA"))
            .when(first < 5)
            .then(pl.lit(" - "))
            .when(first < 7)  # (numpy's savetxt writes these; polars reads them as text)
            .then(pl.lit("nan"))
            .when(first < 8)
            .then(pl.lit("Inf"))
            .otherwise(pl.col("score").cast(pl.String)),
            "column 'score': scores must be numeric (float or integer), not String; 8 rows "
            "hold values that are not a number: 'NA', ' - ', 'nan', 'Inf' "
            f"({row0}; fix or drop those rows)",
        ),
        "truth": (
            pl.when(first == 7)
            .then(pl.lit("yes"))
            .when(first < 3)
            .then(pl.lit(" TRUE "))
            .otherwise(pl.col("truth").cast(pl.Int8).cast(pl.String)),
            "column 'truth': must be boolean or numbers 0/1, not String; 1 row holds a value "
            f"that is not 0/1 nor true/false: 'yes' ({row7}; write them as true/false or 1/0 or "
            "drop those rows)",
        ),
        "w": (
            pl.when(first > 10).then(pl.lit("1.5")).otherwise(pl.format("x{}", first)),
            "column 'w': weights must be numeric (float or integer), not String; 11 rows hold "
            "values that are "
            f"not a number: 'x0', 'x1', 'x2', 'x3', ... ({row0}; fix or drop those rows)",
        ),
    }
    for column, (values, message) in cases.items():
        path = tmp_path / f"{column}.csv"
        digits.with_columns(w=pl.lit(1.0)).with_columns(values.alias(column)).write_csv(path)
        with pytest.raises(pl_metrics.MetricsInputError) as caught:
            pl_metrics.score(path, "f1", weight_col="w")
        assert str(caught.value) == message
        with pytest.raises(pl_metrics.MetricsInputError) as caught:  # lazily: nothing read
            pl_metrics.f1(pl.scan_csv(path), weight_col="w")
        assert "fix or drop" not in str(caught.value)
    # Among several files, those that hold the column as text are named (of hundreds of
    # shards, the one with the "NA").
    shards = tmp_path / "shards"
    shards.mkdir()
    for k in range(3):
        part = digits.filter(pl.col("id") % 3 == k)
        if k == 1:
            na = pl.when(pl.int_range(pl.len()) == 4).then(pl.lit("NA"))
            part = part.with_columns(na.otherwise(pl.col("score").cast(pl.String)).alias("score"))
        part.write_csv(shards / f"part{k}.csv")
    with pytest.raises(pl_metrics.MetricsInputError) as caught:
        pl_metrics.score(shards, "f1")
    assert str(caught.value).endswith(
        f"fix or drop those rows) (text in 1 of the 3 files: {str(shards / 'part1.csv')!r})"
    )
    # A typed file's text column whose values all read: told so, not to "fix" values.
    told = {
        "truth": "must be boolean or numbers 0/1, not String; its values are true/false (or "
        "0/1) held as text: store the column as boolean (or integers 0/1)",
        "score": "scores must be numeric (float or integer), not String; its values are "
        "numbers held as text: store the column as numbers (Float64)",
    }
    told["w"] = (
        "weights must be numeric (float or integer), not String; it holds no value (nulls only)"
    )
    digits = digits.with_columns(w=pl.lit(None, pl.String))
    for column, message in told.items():
        path = tmp_path / f"{column}.parquet"
        digits.with_columns(pl.col(column).cast(pl.String)).write_parquet(path)
        with pytest.raises(pl_metrics.MetricsInputError) as caught:
            pl_metrics.score(path, "f1", weight_col="w" if column == "w" else None)
        assert str(caught.value) == f"column {column!r}: {message}"


def test_big_csv_ids_apart_as_integers_get_no_one_number_hint(tmp_path: Path) -> None:
    # 2**53 and 2**53 + 1 are one float but two integers, as the reader types them.
    rows = [(i, c, 0.5, c == "a") for i in (5, 2**53, 2**53 + 1) for c in "ab"]
    path = tmp_path / "ids.csv"
    pl.DataFrame(
        [*rows, rows[0]], schema=["id", "class", "score", "truth"], orient="row"
    ).write_csv(path)
    with pytest.raises(pl_metrics.MetricsInputError, match="1 row repeats") as caught:
        pl_metrics.score(path, "lrap")
    assert "one number" not in str(caught.value)


def test_a_home_path_is_expanded_and_a_url_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "oof.parquet").write_bytes(DATA.read_bytes())
    assert files("~/oof.parquet") == [tmp_path / "oof.parquet"]  # as polars' scans read it
    # Path("s3://bucket/x") reads s3:/bucket/x: the error named a file not found there.
    with pytest.raises(MetricsInputError, match=r"^'s3://bucket/x.parquet' is a URL: .*"):
        files("s3://bucket/x.parquet")


def test_paths_come_in_any_iterable_and_a_stray_format_is_named(tmp_path: Path) -> None:
    """score() refused a set or generator of paths that scan() took; a stray CSV among
    parquet shards was told by the formats' names only."""
    digits = pl.read_parquet(DATA).filter(pl.col("fold") == 0)
    path = tmp_path / "oof.parquet"
    digits.write_parquet(path)
    want = pl_metrics.lrap(digits, by=["model", "fold"])
    for source in ({str(path)}, (p for p in [path]), {str(path): 1}.keys(), [path]):
        assert_frame_equal(pl_metrics.score(source, "lrap", by=["model", "fold"]), want)
    with pytest.raises(MetricsInputError, match=r"^no input: give at least one file"):
        pl_metrics.score(iter([]), "lrap")
    with pytest.raises(TypeError, match=r"\(paths, or a list of them\)"):
        pl_metrics.score([1, 2], "lrap")
    with pytest.raises(TypeError, match=r"\(paths, or a list of them\)"):
        pl_metrics.score({"id": [1]}, "lrap")  # type: ignore[arg-type]  # (not its keys)
    dd = pytest.importorskip("dask.dataframe")
    with pytest.raises(
        MetricsInputError, match=r"^a Dask DataFrame is not read as it is: write it to parquet"
    ):
        pl_metrics.score(dd.from_pandas(digits.to_pandas(), npartitions=1), "lrap")
    digits.head(10).write_csv(tmp_path / "summary.csv")
    with pytest.raises(
        MetricsInputError,
        match=r"^the input mixes file types: csv \('.*summary\.csv'\), parquet \('.*oof\.parquet'"
        r"\); score the files of one type$",
    ):
        pl_metrics.score(tmp_path, "lrap")


def test_a_csv_of_semicolons_and_decimal_commas_is_told_how_to_read(tmp_path: Path) -> None:
    """Its rows held more fields (split at the commas) than its one-field header: polars'
    "found more fields than defined in 'Schema'" alone."""
    path = tmp_path / "eu.csv"
    path.write_text("id;class;score;truth\n1;a;0,5;true\n1;b;0,25;false\n")
    with pytest.raises(
        MetricsInputError,
        match=r"its header is separated by ';' \(its commas decimal\?\): save it with ',' "
        r"between fields, or score pl.scan_csv\(.*, separator=';', decimal_comma=True, "
        r"infer_schema_length=10000\)$",
    ):
        pl_metrics.score(path, "lrap")
    got = pl_metrics.score(pl.scan_csv(path, separator=";", decimal_comma=True), "lrap")
    assert got.item() == 1.0


def test_a_csv_columns_type_is_guessed_from_its_first_10_000_rows(tmp_path: Path) -> None:
    """Hard 0/1 scores written as "1" and "0" (by R, by a spreadsheet) in a CSV's first 100
    rows made polars guess integers, and a later "0.7" was unreadable: a valid file refused."""

    def hard_scores_first(rows: int) -> tuple[pl.DataFrame, Path]:
        table = pl.DataFrame(
            {
                "id": np.arange(rows + 2) // 2,
                "class": ["a", "b"] * (rows // 2 + 1),
                "score": [1.0, 0.0] * (rows // 2) + [0.7, 0.2],
                "truth": [True, False] * (rows // 2) + [False, True],
            }
        )
        path = tmp_path / f"hard_{rows}.csv"
        text = table.write_csv(float_precision=None)
        path.write_text(text.replace(",1.0,", ",1,").replace(",0.0,", ",0,"))
        assert path.read_text().splitlines()[1] == "0,a,1,true"
        return table, path

    metrics = ["lrap", "roc_auc", "f1"]
    table, path = hard_scores_first(8_000)
    assert_frame_equal(pl_metrics.score(path, metrics), pl_metrics.report(table, metrics))
    assert_frame_equal(pl_metrics.scan(path).metrics.lrap().collect(), pl_metrics.lrap(table))
    # Past them, the error says what to do (polars' own advice was cut off).
    _, path = hard_scores_first(10_000)
    with pytest.raises(MetricsInputError) as error:
        pl_metrics.score(path, metrics)
    assert str(error.value) == (
        f"cannot read file {str(path)!r}: could not parse `0.7` as dtype `i64` at column "
        "'score' (column number 3); its type was guessed from the first 10,000 rows: write "
        "the column's values alike (1.0, not 1, for a float), or the table as parquet"
    )
    # R's NA past those rows is a missing value, not a float written as an integer.
    rows = ["id,class,score,truth"] + [
        f"{i // 2},{'ab'[i % 2]},0.5,{i % 2 == 0}" for i in range(10_002)
    ]
    path.write_text("\n".join([*rows, "5001,a,NA,true", "5001,b,0.5,false"]) + "\n")
    with pytest.raises(MetricsInputError) as error:
        pl_metrics.score(path, metrics)
    assert str(error.value).endswith(
        "could not parse `NA` as dtype `f64` at column 'score' (column number 3); 'NA' marks a "
        "missing value? fill or drop those rows (its type was guessed from the first 10,000 "
        "rows, which hold none)"
    ), error.value
    # Not of a table the caller scanned (polars guessed from its own 100 rows).
    thresholds = tmp_path / "thresholds.csv"
    thresholds.write_text("class,threshold\n" + "a,1\n" * 200 + "b,0.5\n")
    with pytest.raises(MetricsInputError, match="cannot read the table") as error:
        pl_metrics.f1(table, threshold=pl.scan_csv(thresholds))
    assert "10,000" not in str(error.value)


def test_a_spreadsheets_csv_mistakes_are_told_what_to_do(tmp_path: Path) -> None:
    """Decimal commas in a comma-separated file, and Excel's default (cp1252) encoding, gave
    polars' bare errors: 'found more fields than defined in Schema', 'invalid utf-8'."""
    commas, latin = tmp_path / "commas.csv", tmp_path / "latin.csv"
    commas.write_text("id,class,score,truth\n0,a,0,5,false\n0,b,0.1,true\n")
    latin.write_bytes(b"id,class,score,truth\n0,r\xe9gion,0.5,false\n0,b,0.1,true\n")
    for path, hint in (
        (commas, "decimal commas (0,5) in a file separated by commas? write decimal points"),
        (latin, "save the file as UTF-8 (a spreadsheet's 'CSV UTF-8')"),
    ):
        with pytest.raises(MetricsInputError, match=re.escape(hint)):
            pl_metrics.score(path, ["lrap"])
    # A file separated by ';' gets its own hint, not also that of commas between commas.
    semicolons = tmp_path / "semicolons.csv"
    semicolons.write_text("id;class;score;truth\n1;a;0,5;true\n1;b;0,25;false\n")
    with pytest.raises(MetricsInputError) as error:
        pl_metrics.score(semicolons, ["lrap"])
    assert "its header is separated by ';'" in str(error.value)
    assert "separated by commas?" not in str(error.value)


@pytest.mark.parametrize("fmt", ["parquet", "ipc", "csv"])
def test_paths_with_glob_characters_are_read_as_named(tmp_path: Path, fmt: str) -> None:
    """``oof[1].parquet`` is that file: polars' scans would glob it again, as ``oof1``."""
    df = pl.read_parquet(DATA)
    write = {"parquet": "write_parquet", "ipc": "write_ipc", "csv": "write_csv"}[fmt]
    knn, logreg = (df.filter(pl.col("model") == m) for m in ("knn", "logreg"))
    getattr(knn, write)(tmp_path / f"oof[1].{fmt}")
    getattr(logreg, write)(tmp_path / f"oof1.{fmt}")
    expected = pl_metrics.lrap(knn, by="model")
    named = pl_metrics.score(tmp_path / f"oof[1].{fmt}", "lrap", by="model")
    assert_frame_equal(named, expected, check_dtypes=False)
    assert scan(tmp_path / f"oof[1].{fmt}").select("model").unique().collect().item() == "knn"
    # A folder of such names, with a hive key of them, in chunks (each file's schema read).
    folder = tmp_path / "runs[2024]" / "model=k[n]n"
    folder.mkdir(parents=True)
    getattr(knn.drop("model"), write)(folder / f"part*?.{fmt}")
    chunked = pl_metrics.score(tmp_path / "runs[2024]", "lrap", by="model", n_chunks=3)
    assert_frame_equal(chunked, expected.with_columns(model=pl.lit("k[n]n")), check_dtypes=False)


def test_blank_lines_of_a_csv_are_told_as_such(tmp_path: Path) -> None:
    """polars reads a blank line as a row of nulls: null ids the file does not show."""
    rows = "id,class,score,truth\n1,a,0.5,1\n1,b,0.2,0\n\n2,a,0.1,0\n2,b,0.3,1\n\n\n"
    (tmp_path / "t.csv").write_text(rows)
    told = r"3 rows are null.*; e\.g\. a row null in every column \(a CSV file's blank line"
    with pytest.raises(MetricsInputError, match=told):
        pl_metrics.score(tmp_path / "t.csv", ["lrap", "f1"])
    # In a key= folder, whose value fills the row: told so too.
    (tmp_path / "model=a").mkdir()
    (tmp_path / "model=a" / "t.csv").write_text(rows)
    with pytest.raises(MetricsInputError, match=told):
        pl_metrics.score(tmp_path / "model=a", ["lrap"], by="model")


def test_a_csv_rewritten_is_read_again(tmp_path: Path) -> None:
    """Its schema and whether it has rows are kept while its size and time stay."""
    digits = pl.read_parquet(DATA).filter(pl.col("model") == "knn")
    first, second = digits.filter(pl.col("id") < 900), digits.filter(pl.col("id") >= 900)
    first.write_csv(tmp_path / "a.csv")
    second.head(0).write_csv(tmp_path / "b.csv")  # (a header only: no rows)
    assert_frame_equal(pl_metrics.score(tmp_path, "lrap"), pl_metrics.lrap(first))
    second.with_columns(pl.col("score").cast(pl.Float32)).write_csv(tmp_path / "b.csv")
    os.utime(tmp_path / "b.csv", ns=(1, 1))  # (another time, whatever the clock's grain)
    assert_frame_equal(pl_metrics.score(tmp_path, "lrap"), pl_metrics.lrap(digits))


def test_a_fold_column_the_files_lack_is_told_of_folders(tmp_path: Path) -> None:
    """fold_col is a key the folders can name, as by is: a file per fold was told only
    "column 'fold' is not in the table"."""
    dump = pl.read_parquet(DATA).filter(pl.col("model") == "knn").drop("model")
    rng = np.random.default_rng(0)
    ids = dump["id"].unique().to_list()
    fold = dict(zip(ids, rng.integers(0, 2, len(ids)).tolist(), strict=True))
    folded = dump.with_columns(fold=pl.col("id").replace_strict(fold))
    for k in (0, 1):
        folded.filter(pl.col("fold") == k).drop("fold").write_parquet(tmp_path / f"oof_{k}.parquet")
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"put each in a folder named fold=<value>"
    ):
        pl_metrics.score(tmp_path, "best_threshold", fold_col="fold")


def test_a_missing_column_that_is_no_key_is_not_told_of_folders(tmp_path: Path) -> None:
    """Only a group key can be a folder's name: a score column missing from every file is
    no "rows of one score" per file."""
    dump = pl.read_parquet(DATA).rename({"score": "proba"})
    for model in ("knn", "logreg"):
        dump.filter(pl.col("model") == model).write_parquet(tmp_path / f"{model}.parquet")
    with pytest.raises(pl_metrics.MetricsInputError) as caught:
        pl_metrics.score(tmp_path, "lrap", by="model")
    assert "column 'score' (option 'score_col') is not in the table" in str(caught.value)
    assert "folder named" not in str(caught.value)


# The mutation review of _io: behaviours no test held (each test fails on a mutant of _io.py).
def test_an_empty_path_is_refused_not_read_as_the_working_folder(
    tmp_path: Path, dump: pl.DataFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Path("") is the working folder: scoring "" would score whatever lies there."""
    dump.write_parquet(tmp_path / "oof.parquet")
    monkeypatch.chdir(tmp_path)
    assert_frame_equal(pl_metrics.score(".", "lrap"), pl_metrics.lrap(dump))
    for source in ("", [""], ["oof.parquet", ""]):
        with pytest.raises(MetricsInputError, match=r"^an empty path: give a file, folder or glob"):
            pl_metrics.score(source, "lrap")


def test_a_double_star_glob_reaches_files_at_any_depth(tmp_path: Path, dump: pl.DataFrame) -> None:
    """`**` spans any number of folders (a recursive glob): a file two folders down is read,
    not left out."""
    half = dump["id"].unique().sort()[180]
    (tmp_path / "a").mkdir()
    (tmp_path / "b" / "c").mkdir(parents=True)
    dump.filter(pl.col("id") < half).write_parquet(tmp_path / "a" / "part.parquet")
    dump.filter(pl.col("id") >= half).write_parquet(tmp_path / "b" / "c" / "part.parquet")
    pattern = str(tmp_path / "**" / "*.parquet")
    assert len(files(pattern)) == 2
    assert_frame_equal(pl_metrics.score(pattern, "lrap"), pl_metrics.lrap(dump))


def test_a_glob_matching_folders_reads_their_files(tmp_path: Path, dump: pl.DataFrame) -> None:
    """A glob that matches folders (model=*) reads the data files below each, as the folder
    given itself does."""
    half = dump["id"].unique().sort()[180]
    for model, part in (("a", dump.filter(pl.col("id") < half)), ("b", dump)):
        (tmp_path / f"model={model}").mkdir()
        part.write_parquet(tmp_path / f"model={model}" / "part.parquet")
    pattern = str(tmp_path / "model=*")
    assert files(pattern) == files(tmp_path)
    assert all(path.is_file() for path in files(pattern))
    want = pl_metrics.score(tmp_path, "lrap", by="model")
    assert_frame_equal(pl_metrics.score(pattern, "lrap", by="model"), want)


@pytest.mark.skipif(os.name != "posix", reason="a socket file is POSIX's")
def test_a_folders_entry_that_is_no_regular_file_is_no_data(
    tmp_path: Path, dump: pl.DataFrame
) -> None:
    """A socket (or FIFO) named as data below a folder holds no rows: left out, not opened."""
    import socket

    folder = tmp_path / "oof"
    folder.mkdir()
    dump.write_parquet(folder / "a.parquet")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(folder / "b.csv"))
        assert files(folder) == [folder / "a.parquet"]
        assert_frame_equal(pl_metrics.score(folder, "lrap"), pl_metrics.lrap(dump))


@pytest.mark.skipif(os.name != "posix", reason="a named pipe is POSIX's")
def test_a_named_pipe_given_as_a_file_is_told_as_no_regular_file(tmp_path: Path) -> None:
    """A pipe (<(...), a FIFO) exists but cannot be planned: told so, not "file not found"."""
    pipe = tmp_path / "oof.csv"
    os.mkfifo(pipe)
    with pytest.raises(MetricsInputError, match=r"^'.*oof\.csv' is no regular file \(a pipe"):
        pl_metrics.score(pipe, "lrap")


def test_data_like_files_in_hidden_entries_are_not_refused(
    tmp_path: Path, dump: pl.DataFrame
) -> None:
    """Spark's _temporary part files (parquet without an extension) and a packed copy in a
    ".x" folder are left out with their entries, not refused as stray data."""
    folder = tmp_path / "oof"
    (folder / "_temporary" / "0").mkdir(parents=True)
    (folder / ".backup").mkdir()
    dump.write_parquet(folder / "a.parquet")
    dump.write_parquet(folder / "_temporary" / "0" / "part-00000")
    dump.write_parquet(folder / "._b.parq")
    (folder / ".backup" / "a.csv.bz2").write_bytes(b"BZh91AY&SY")
    assert files(folder) == [folder / "a.parquet"]
    assert_frame_equal(pl_metrics.score(folder, "lrap"), pl_metrics.lrap(dump))


def test_a_file_that_fails_to_read_is_named_past_an_empty_one(tmp_path: Path) -> None:
    """The files are read one by one to name the one that fails: a header-only CSV before
    it (empty alone) tells nothing, and the search goes on to the next file."""
    n = 3_400  # ids of 3 classes: past the 10,000 rows a CSV column is typed from
    rows = pl.DataFrame(
        {
            "id": np.repeat(np.arange(n), 3),
            "class": np.tile(np.arange(3), n),
            "score": np.linspace(0, 1, 3 * n),
            "truth": np.tile([True, False, False], n),
        }
    )
    rows.head(0).write_csv(tmp_path / "a.csv")
    rows.with_columns(pl.col("score").cast(pl.String)).with_columns(
        score=pl.when(pl.int_range(pl.len()) == 3 * n - 1).then(pl.lit("x")).otherwise("score")
    ).write_csv(tmp_path / "b.csv")
    with pytest.raises(
        MetricsInputError, match=r"^cannot read file '.*b\.csv': could not parse `x`"
    ):
        pl_metrics.score(tmp_path, "lrap")


def test_a_file_without_id_statistics_is_not_left_to_one_chunk(
    tmp_path: Path, dump: pl.DataFrame
) -> None:
    """Chunks cut by row groups' id ranges need every file's: a file written without
    statistics beside one with them (ids above its range) keeps all its rows."""
    half = dump["id"].unique().sort()[180]
    dump.filter(pl.col("id") < half).write_parquet(tmp_path / "a.parquet", row_group_size=300)
    dump.filter(pl.col("id") >= half).write_parquet(tmp_path / "b.parquet", statistics=False)
    want = pl_metrics.report(dump, ["lrap", "roc_auc"])
    for n_chunks in (2, 4):
        got = pl_metrics.score(tmp_path, ["lrap", "roc_auc"], n_chunks=n_chunks)
        assert_frame_equal(got, want, check_exact=False, rel_tol=1e-12)
    # Nor is the file's half of the rows left to one chunk: the chunks stay of a size.
    from pl_metrics._chunks import budget_bytes, plan_chunks

    found = files(tmp_path)
    lf = scan(tmp_path)
    plan = plan_chunks(lf, files=found, n_chunks=4, budget=budget_bytes(None))
    sizes = [lf.filter(f).select(pl.len()).collect().item() for f in plan.filters]
    assert sum(sizes) == dump.height
    assert max(sizes) < dump.height / 2


def test_two_tasks_in_key_folders_not_grouped_by_are_warned_of(tmp_path: Path) -> None:
    """Dumps of two tasks under task= folders are scored together when `by` leaves the
    folder key out: warned of, as two files in one folder are."""
    digits = pl.read_parquet(DATA).filter(pl.col("fold") == 0, pl.col("model") == "knn")
    parity = (
        digits.with_columns(
            pl.when(pl.col("class").cast(pl.Int64) % 2 == 0)
            .then(pl.lit("even"))
            .otherwise(pl.lit("odd"))
        )
        .group_by("model", "fold", "id", "literal")
        .agg(pl.col("score").sum(), pl.col("truth").any())
        .rename({"literal": "class"})
        .select(digits.columns)
    )
    for name, frame in (("digits", digits), ("parity", parity)):
        (tmp_path / f"task={name}").mkdir()
        frame.write_parquet(tmp_path / f"task={name}" / "part.parquet")
    with pytest.warns(UserWarning, match=r"^files scored together hold different classes"):
        pl_metrics.score(tmp_path, "lrap", by="model")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pl_metrics.score(tmp_path, "lrap", by=["task", "model"])


def test_the_shared_ids_hint_compares_integers_past_2_53_exactly(tmp_path: Path) -> None:
    """Ids past 2**53 that one float would hold are other ids: one id written in both files
    is told as such, not as two dumps of the same ids."""
    big = 2**53
    ids_a = [big + 1 + 2 * k for k in range(10)]  # as floats, each the even id beside it
    ids_b = [big + 2 * k for k in range(10)] + [big + 1]  # one id of a's
    rows = [
        pl.DataFrame(
            {
                "id": np.repeat(ids, 2),
                "class": [0, 1] * len(ids),
                "score": 0.5,
                "truth": [True, False] * len(ids),
            },
            schema_overrides={"id": pl.Int64},
        )
        for ids in (ids_a, ids_b)
    ]
    rows[0].write_parquet(tmp_path / "a.parquet")
    rows[1].write_parquet(tmp_path / "b.parquet")
    with pytest.raises(
        MetricsInputError,
        match=rf"files '.*a\.parquet' and '.*b\.parquet' share 1 of their ids "
        rf"\(such as {big + 1}\)",
    ):
        pl_metrics.score(tmp_path, "lrap")


def test_a_folder_key_the_files_hold_in_types_of_no_common_type_is_refused(
    tmp_path: Path, dump: pl.DataFrame
) -> None:
    """A key= folder's column held by the files as text in one and as numbers in another
    has no type to read it as: refused, naming both files."""
    (tmp_path / "model=a").mkdir()
    (tmp_path / "model=1").mkdir()
    dump.with_columns(model=pl.lit("a")).write_parquet(tmp_path / "model=a" / "part.parquet")
    dump.with_columns(model=pl.lit(1)).write_parquet(tmp_path / "model=1" / "part.parquet")
    with pytest.raises(
        MetricsInputError,
        match=r"^column 'model' is Int32 in '.*model=1.*' but String in '.*model=a.*': the files "
        "must agree on its type",
    ):
        pl_metrics.score(tmp_path, "lrap", by="model")


def test_a_csv_shard_of_a_single_row_is_read(tmp_path: Path) -> None:
    """A CSV file holding one row below its header has rows: it is read, not left out as
    a header-only file is."""
    rng = np.random.default_rng(7)
    one = pl.DataFrame(  # one class: the shards' class sets agree (no warning)
        {"id": range(40), "class": 0, "score": rng.random(40), "truth": rng.random(40) < 0.5}
    )
    one.head(39).write_csv(tmp_path / "a.csv")
    one.tail(1).write_csv(tmp_path / "b.csv")
    metrics = ["roc_auc", "average_precision", "brier_score"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = pl_metrics.score(tmp_path, metrics)
    want = pl_metrics.report(one, metrics)
    assert want.row(0) != pl_metrics.report(one.head(39), metrics).row(0)
    assert_frame_equal(got, want, check_exact=False, rel_tol=1e-12)
    assert scan(tmp_path).select(pl.len()).collect().item() == one.height


@pytest.mark.parametrize("other", [2, None])
def test_a_file_holding_its_folders_key_and_another_is_refused(
    tmp_path: Path, dump: pl.DataFrame, other: int | None
) -> None:
    """Parquet statistics answer only when they hold one value and no nulls: a file whose
    own fold column holds its folder's fold and another (min and max apart), or nulls
    (which the folder's value would replace), is read, and refused."""
    half = dump["id"].unique().sort()[180]
    for fold in (1, 2):
        (tmp_path / f"fold={fold}").mkdir()
    # Ids below half are fold 1's, the others fold 2's (or null), all in fold=1's file.
    mixed = dump.with_columns(fold=pl.when(pl.col("id") < half).then(1).otherwise(other))
    mixed.write_parquet(tmp_path / "fold=1" / "part.parquet")
    dump.with_columns(fold=pl.lit(2)).write_parquet(tmp_path / "fold=2" / "part.parquet")
    with pytest.raises(
        MetricsInputError,
        match=r"^column 'fold': 1 file holds other values than their folder's fold=\.\.\. "
        rf"\(e\.g\. '.*fold=1.*part\.parquet' holds {other} in its folder fold='?1'?\)",
    ):
        pl_metrics.score(tmp_path, "lrap", by="fold")


def test_a_key_folder_of_an_empty_value_is_a_null_key_as_polars_reads_it(
    tmp_path: Path, dump: pl.DataFrame
) -> None:
    """`fold=` (no value) is a key= folder, of a null fold, as polars' hive scan reads it:
    not a folder of no key beside `fold=1`."""
    for fold in ("", "1"):
        (tmp_path / f"fold={fold}").mkdir()
        dump.head(20).write_parquet(tmp_path / f"fold={fold}" / "part.parquet")
    got = scan(tmp_path).collect()
    want = pl.scan_parquet(tmp_path / "**" / "*.parquet", hive_partitioning=True).collect()
    assert_frame_equal(got.sort(pl.all()), want.sort(pl.all()))
    assert got["fold"].null_count() == 20
    with pytest.raises(MetricsInputError, match=r"^column 'fold': 20 rows are null"):
        pl_metrics.score(tmp_path, "lrap", by="fold")


def test_float32_keys_are_checked_against_every_float64_file(
    tmp_path: Path, dump: pl.DataFrame
) -> None:
    """A Float32 key beside several Float64 files: each Float64 file must hold only values a
    Float32 holds, not only the first (0.1 in the last one is another key than 0.1 widened)."""
    keyed = dump.with_columns(lr=(pl.col("id") % 2).cast(pl.Float64) / 2)
    keyed.filter(pl.col("id") < 50).with_columns(pl.col("lr").cast(pl.Float32)).write_parquet(
        tmp_path / "a.parquet"
    )
    keyed.filter(pl.col("id").is_between(50, 99)).write_parquet(tmp_path / "b.parquet")
    keyed.filter(pl.col("id") >= 100).with_columns(lr=pl.lit(0.1)).write_parquet(
        tmp_path / "c.parquet"
    )
    with pytest.raises(
        MetricsInputError, match=r"^column 'lr' is Float32 in '.*a\.parquet' but Float64"
    ):
        pl_metrics.score(tmp_path, "lrap", by="lr")


def test_a_row_group_of_null_ids_gives_no_id_ranges(tmp_path: Path, dump: pl.DataFrame) -> None:
    """A row group without id statistics (its ids all null) leaves the file without ranges:
    chunked, the null ids are told as such."""
    nulls = dump.head(30).with_columns(pl.lit(None, pl.Int32).alias("id"))
    pl.concat([dump, nulls]).write_parquet(tmp_path / "a.parquet", row_group_size=30)
    for n_chunks in (None, 3):
        with pytest.raises(MetricsInputError, match=r"^column 'id': 30 rows are null"):
            pl_metrics.score(tmp_path / "a.parquet", "lrap", n_chunks=n_chunks)


def test_a_file_reached_through_a_link_or_another_spelling_is_read_once(
    tmp_path: Path, dump: pl.DataFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A link beside its file (no key= folder apart) and a relative and an absolute path of
    one file are one file: its rows are not read twice."""
    folder = tmp_path / "oof"
    folder.mkdir()
    dump.write_parquet(folder / "a.parquet")
    (folder / "b.parquet").symlink_to(folder / "a.parquet")
    monkeypatch.chdir(tmp_path)
    spellings: list[str | Path] = ["oof/a.parquet", folder / "a.parquet"]
    for given in (folder, spellings):
        assert len(files(given)) == 1
        assert_frame_equal(pl_metrics.score(given, "lrap"), pl_metrics.lrap(dump))


@pytest.mark.parametrize("kind", ["parquet", "ipc", "csv"])
def test_a_file_holding_nan_beside_its_folders_float_key_is_refused(
    tmp_path: Path, kind: str
) -> None:
    """Parquet's statistics leave NaN out of a float column's min and max: a fold=1.0 file
    holding 1.0 and NaN read as one of 1.0 alone, its NaN rows scored as fold 1.0."""
    df = pl.DataFrame(
        {
            "id": [1, 1, 2, 2],
            "class": [0, 1, 0, 1],
            "score": [0.9, 0.1, 0.2, 0.8],
            "truth": [True, False, False, True],
            "fold": [1.0, 1.0, float("nan"), float("nan")],
        }
    )
    folder = tmp_path / "fold=1.0"
    folder.mkdir()
    getattr(df, f"write_{kind}")(folder / f"p.{'arrow' if kind == 'ipc' else kind}")
    with pytest.raises(
        pl_metrics.MetricsInputError,
        match=r"^column 'fold': 1 file holds other values than their folder's fold=",
    ):
        pl_metrics.score(tmp_path, "lrap", by="fold")


def test_tasks_dumps_sharing_a_class_name_are_told_as_tasks(tmp_path: Path) -> None:
    # Three tasks' dumps of the same ids, two sharing the class 'other': their repeated
    # rows were told as two files of the same ids (the wrong pair), to put in model= folders.
    specs = {"species": ["s0", "s1", "other"], "habitat": ["h0", "other"], "is_night": ["n"]}
    for task, classes in specs.items():
        pl.DataFrame(
            {
                "model": "m1",
                "id": [i for i in range(5) for _ in classes],
                "class": [c for _ in range(5) for c in classes],
                "score": [0.1 * ((i + k) % 5) for i in range(5) for k in range(len(classes))],
                "truth": [(i + k) % 2 == 0 for i in range(5) for k in range(len(classes))],
            }
        ).write_parquet(tmp_path / f"{task}.parquet")
    with pytest.raises(pl_metrics.MetricsInputError, match="rows repeat a") as error:
        pl_metrics.score(tmp_path, "lrap", by="model")
    assert "but the 3 files hold different classes" in str(error.value)
    assert "score each dump on its own" in str(error.value)
    assert "model=<name>" not in str(error.value)
