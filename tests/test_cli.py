"""The pl-metrics command: output formats, examples in --help, one-line errors."""

from __future__ import annotations

import ast
import contextlib
import errno
import gzip
import io
import json
import os
import shlex
import subprocess
import sys
import threading
from datetime import datetime, time
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import pl_metrics
from pl_metrics import _kernel, cli
from pl_metrics._registry import metric_names
from pl_metrics.cli import main
from tests.conftest import write_corrupt_page

DATA = Path(__file__).parent.parent / "data" / "digits_oof.parquet"


def test_table_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "score",
                str(DATA),
                "--metric",
                "lrap",
                "-m",
                "f1,log_loss",
                "--by",
                "model,fold",
                "--quiet",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "model" in out
    assert "naive_bayes" in out
    assert out.count("\n") > 20  # one line per (model, fold) and the frame


def test_csv_writes_nested_group_keys_as_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Polars' CSV writer refuses lists and structs: it did so after the scoring.
    path = tmp_path / "nested.parquet"
    df = pl.read_parquet(DATA).with_columns(
        tags=pl.concat_list("model", pl.col("fold").cast(pl.String)),
        key=pl.struct("model", "fold"),
    )
    df.write_parquet(path)
    for column in ("tags", "key"):
        assert main(["score", str(path), "-m", "lrap", "--by", column, "--format", "csv"]) == 0
        got = pl.read_csv(capsys.readouterr().out.encode())
        want = pl_metrics.lrap(df, by=column)
        texts = [json.dumps(v, separators=(",", ":")) for v in want[column].to_list()]
        assert got[column].to_list() == texts
        assert got["lrap"].to_list() == pytest.approx(want["lrap"].to_list(), rel=1e-12)


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
def test_file_formats_equal_the_api(tmp_path: Path, fmt: str) -> None:
    target = tmp_path / f"out.{fmt}"
    assert (
        main(
            [
                "score",
                str(DATA),
                "-m",
                "lwlrap,lrap",
                "--by",
                "model",
                "-o",
                str(target),
                "--format",
                fmt,
            ]
        )
        == 0
    )
    if fmt == "csv":
        got = pl.read_csv(target)
    elif fmt == "json":
        got = pl.DataFrame(json.loads(target.read_text()))
    else:
        got = pl.read_parquet(target)
    want = pl_metrics.report(pl.scan_parquet(DATA), ["lwlrap", "lrap"], by="model").collect()
    assert got["lrap"].to_list() == pytest.approx(want["lrap"].to_list(), rel=1e-12)


def test_user_errors_are_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    cases = [
        (["score", str(tmp_path / "missing.parquet")], "file not found"),
        (["score", str(DATA), "--by", "modl"], "did you mean 'model'"),
        (["score", str(DATA), "-m", "auc"], "unknown metric 'auc'"),
        (["score", str(DATA), "--format", "parquet"], "needs --output"),
        (["score", str(DATA), "-o", str(tmp_path / "out.xlsx")], "cannot tell the format"),
        (["score", str(DATA), "-o", str(tmp_path / "o.csv"), "--format", "json"], "named as csv"),
        (["score", str(DATA)], "53,910 rows repeat a (id, class)"),  # forgot --by model,fold
        (["score", str(DATA), "-m", "f1", "--threshold-table", str(tmp_path)], "is a folder;"),
    ]
    bad = tmp_path / "bad.parquet"
    pl.read_parquet(DATA).with_columns(score=pl.lit(float("nan"))).write_parquet(bad)
    cases.append((["score", str(bad)], "rows are NaN or infinite"))
    # The library's hints come as the command line's flags.
    no_positives = tmp_path / "no_positives.parquet"
    pl.read_parquet(DATA).with_columns(truth=pl.lit(False)).write_parquet(no_positives)
    argv = ["score", str(no_positives), "-m", "roc_auc", "--by", "model,fold"]
    cases.append((argv, "pass --skip-undefined to leave them out"))
    ragged = tmp_path / "ragged.parquet"
    pl.read_parquet(DATA).slice(1).write_parquet(ragged)
    cases.append(
        (
            ["score", str(ragged), "--by", "model,fold"],
            "pass --allow-ragged to use the rows present",
        )
    )
    # A file per model and fold (oof_<model>_<fold>.csv), no model column: told of folders.
    (tmp_path / "oof").mkdir()
    for model in ("knn", "logreg"):
        one = pl.read_parquet(DATA).filter(pl.col("model") == model).drop("model")
        one.write_csv(tmp_path / "oof" / f"oof_{model}.csv")
    folders = "put each in a folder named model=<value>: read as a column named model"
    cases.append((["compare", str(tmp_path / "oof"), "-m", "lrap"], folders))
    cases.append((["score", str(tmp_path / "oof"), "--by", "model"], folders))
    for argv, message in cases:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("pl-metrics: error: ")
        assert message in err
        assert err.count("\n") == 1
        assert "Traceback" not in err
    # (a typo of a column the files hold: its close name, not folders)
    assert main(["score", str(tmp_path / "oof"), "--by", "fld"]) == 2
    err = capsys.readouterr().err
    assert "did you mean 'fold'" in err
    assert folders not in err
    # (one file: nothing to fold)
    assert main(["score", str(tmp_path / "oof" / "oof_knn.csv"), "--by", "model"]) == 2
    assert folders not in capsys.readouterr().err


def test_curve_metric_options(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "score",
        str(DATA),
        "-m",
        "roc_auc,padded_cmap,top_k_accuracy",
        "--by",
        "model",
        "--k",
        "2",
        "--padding",
        "3",
        "--skip-undefined",
        "--format",
        "csv",
    ]
    assert main(argv) == 0
    got = pl.read_csv(capsys.readouterr().out.encode())
    want = pl_metrics.report(
        pl.read_parquet(DATA),
        ["roc_auc", "padded_cmap", "top_k_accuracy"],
        by="model",
        k=2,
        padding=3,
        undefined="skip",
    )
    for metric in ("roc_auc", "padded_cmap", "top_k_accuracy"):
        assert got[metric].to_list() == pytest.approx(want[metric].to_list(), rel=1e-9)


def test_help_shows_examples(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--help"], ["score", "--help"]):
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        assert exit_info.value.code == 0
        assert "examples:" in capsys.readouterr().out


def test_module_and_console_script() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pl_metrics",
            "score",
            str(DATA),
            "-m",
            "lrap",
            "--by",
            "model,fold",
            "--format",
            "csv",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("model,fold,lrap")
    assert result.stderr == ""  # not a terminal: no progress bar


def test_compare_intervals_plot_names_its_level(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from pl_metrics import plot

    drawn: dict[str, Any] = {}
    real = plot.intervals

    def spy(table: pl.DataFrame, **options: Any) -> Any:
        drawn.update(options)
        return real(table, **options)

    monkeypatch.setattr(plot, "intervals", spy)
    argv = [
        "compare",
        str(DATA),
        "-m",
        "lrap",
        "--bootstrap",
        "20",
        "--plot",
        str(tmp_path / "i.png"),
    ]
    assert main(argv) == 0
    assert drawn == {"by": None, "confidence": 0.95, "n_resamples": 20}
    # Against one model: its name on each row squeezed the panel; the title names it.
    drawn.clear()
    assert main([*argv, "--against", "logreg"]) == 0
    assert drawn["by"] == "model_b"


def test_compare_command(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    plot_file = tmp_path / "intervals.png"
    argv = [
        "compare",
        str(DATA),
        "-m",
        "lrap,log_loss",
        "--bootstrap",
        "50",
        "--plot",
        str(plot_file),
        "--format",
        "csv",
    ]
    assert main(argv) == 0
    got = pl.read_csv(capsys.readouterr().out.encode())
    assert got["model"].to_list() == ["knn", "forest", "logreg", "naive_bayes"]  # best first
    assert (got["lrap_lower"] <= got["lrap"]).all()
    assert (got["lrap"] <= got["lrap_upper"]).all()
    assert plot_file.stat().st_size > 1000
    assert main(["compare", str(DATA), "-m", "lrap", "--plot", str(tmp_path / "h.svg")]) == 0
    assert (tmp_path / "h.svg").exists()
    assert main(["compare", str(DATA), "--model-col", "modle"]) == 2
    assert "did you mean 'model'" in capsys.readouterr().err


def _one_line_error(err: str) -> None:
    assert err.startswith("pl-metrics: error: ")
    assert err.count("\n") == 1
    assert err.rstrip("\n").isprintable()
    assert "Traceback" not in err


def _bad_inputs(folder: Path) -> dict[str, tuple[Path, str]]:
    """Bad input files, each with words its error must hold."""
    one = pl.read_parquet(DATA).filter(pl.col("model") == "knn", pl.col("fold") == 0)
    empty = folder / "empty.csv"
    empty.write_bytes(b"")
    header = folder / "header.csv"
    one.head(0).write_csv(header)
    mixed = folder / "mixed"
    mixed.mkdir()
    one.head(100).write_parquet(mixed / "a.parquet")
    one.head(100).with_columns(pl.col("score").cast(pl.String)).write_parquet(mixed / "b.parquet")
    corrupt = folder / "corrupt"
    corrupt.mkdir()
    one.write_parquet(corrupt / "a.parquet")
    (corrupt / "b.parquet").write_bytes(b"\x00\xff\x1b[31m garbage\n" * 20)
    page = folder / "page"  # a corrupt data page behind an intact footer: read at collect
    page.mkdir()
    one.write_parquet(page / "a.parquet")
    write_corrupt_page(one, page / "b.parquet")
    with pytest.raises(pl.exceptions.ComputeError):  # the file's metadata reads, its rows don't
        pl.read_parquet(page / "b.parquet")
    zero = folder / "zero"  # a parquet file of no bytes (a write cut short)
    zero.mkdir()
    one.write_parquet(zero / "a.parquet")
    (zero / "b.parquet").write_bytes(b"")
    field = folder / "field"  # a CSV field that does not parse, past type inference
    field.mkdir()
    one.write_csv(field / "a.csv")
    more = pl.read_parquet(DATA).filter(pl.col("model") == "knn")  # past its 10,000 rows
    assert more.height > 10_000
    rows = more.with_columns(pl.col("score").cast(pl.String), pl.col("id") + one["id"].max() + 1)
    last = pl.int_range(pl.len()) == pl.len() - 1
    rows = rows.with_columns(pl.when(last).then(pl.lit("abc")).otherwise("score").alias("score"))
    rows.write_csv(field / "b.csv")
    return {
        "empty": (empty, "the table is empty: file '"),
        "header": (header, "header.csv' has no rows"),
        "mixed": (mixed, "column 'score' is Float64 in '"),
        "corrupt": (corrupt, "cannot read file '"),
        "zero": (zero, "b.parquet': it is empty (0 bytes"),
        "page": (page, "cannot read file '"),
        "field": (field, "cannot read file '"),
    }


@pytest.mark.parametrize("command", ["score", "compare"])
@pytest.mark.parametrize("case", ["empty", "header", "mixed", "corrupt", "zero", "page", "field"])
def test_bad_files_are_one_named_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, case: str, command: str
) -> None:
    """(compare passed polars' errors of a corrupt page or a CSV field on unnamed.)"""
    path, message = _bad_inputs(tmp_path)[case]
    assert main([*command.split(), str(path), "-m", "lrap"]) == 2
    err = capsys.readouterr().err
    _one_line_error(err)
    assert message in err
    if case in ("mixed", "corrupt", "page"):
        assert "b.parquet" in err
    if case == "field":
        assert "b.csv" in err
        assert "abc" in err


def test_shards_with_float32_and_float64_scores(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    one = pl.read_parquet(DATA).filter(pl.col("model") == "knn").drop("model")
    for fold, part in one.group_by("fold"):
        cast = pl.Float32 if fold[0] == 0 else pl.Float64
        part.with_columns(pl.col("score").cast(cast)).write_parquet(tmp_path / f"{fold[0]}.parquet")
    assert main(["score", str(tmp_path), "-m", "lrap", "--by", "fold", "--format", "csv"]) == 0
    got = pl.read_csv(capsys.readouterr().out.encode())
    want = pl_metrics.report(one, "lrap", by="fold").sort("fold")
    assert got["lrap"].to_list() == pytest.approx(want["lrap"].to_list(), rel=1e-6)


def test_unknown_metric_suggests_a_close_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(DATA), "-m", "lwrap"]) == 2
    err = capsys.readouterr().err
    _one_line_error(err)
    assert "did you mean 'lwlrap'" in err


def test_repeated_rows_suggest_by_columns(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["score", str(DATA), "-m", "lrap"]) == 2  # forgot --by model,fold
    err = capsys.readouterr().err
    _one_line_error(err)
    assert "rows repeat a (id, class)" in err
    assert "the table has columns model, fold: pass --by model,fold if each (model, fold)" in err
    assert ", or --by model if each model does (pooling its fold values);" in err
    repeats = tmp_path / "repeats.parquet"
    digits = pl.read_parquet(DATA)
    pl.concat([digits.with_columns(rep=pl.lit(r)) for r in range(2)]).write_parquet(repeats)
    assert main(["compare", str(repeats), "-m", "lrap"]) == 2  # compare has no --by
    err = capsys.readouterr().err
    assert "or score them with pl-metrics score --by model,fold,rep;" in err
    # Quoted for the shell where a name holds a space (typed as shown, a second PATH).
    spaced = tmp_path / "spaced.parquet"
    digits.rename({"model": "mod el"}).write_parquet(spaced)
    assert main(["score", str(spaced), "-m", "lrap"]) == 2
    assert "pass --by 'mod el,fold' if each (mod el, fold)" in capsys.readouterr().err
    seeds = tmp_path / "seeds.parquet"
    pl.concat([pl.read_parquet(DATA).with_columns(seed=pl.lit(s)) for s in (1, 2)]).write_parquet(
        seeds
    )
    assert main(["score", str(seeds), "-m", "lrap", "--by", "model"]) == 2
    err = capsys.readouterr().err
    _one_line_error(err)
    assert "the table also has columns fold, seed: pass --by model,fold,seed" in err
    # Rows repeated whole: told in the command line's words, not Python's.
    assert "(a file read twice, or copied into two files) must be removed" in err
    assert ".unique()" not in err
    # A pandas CSV's row index (unnamed, or "Unnamed: 0" once read back by pandas) is no key.
    for index in ("", "Unnamed: 0"):
        indexed = tmp_path / "indexed.csv"
        digits.with_row_index(index).with_columns(pl.col(index).cast(pl.Int64)).write_csv(indexed)
        assert main(["score", str(indexed), "-m", "lrap"]) == 2
        err = capsys.readouterr().err
        assert "the table has columns model, fold: pass --by model,fold if each" in err


def test_pred_col_gives_the_thresholded_metrics(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with_pred = tmp_path / "pred.parquet"
    pl.read_parquet(DATA).with_columns(made=pl.col("score") >= 0.3).write_parquet(with_pred)
    argv = ["score", str(with_pred), "-m", "f1", "--by", "model,fold", "--format", "csv"]
    assert main([*argv, "--pred-col", "made"]) == 0
    from_pred = pl.read_csv(capsys.readouterr().out.encode())
    assert main([*argv, "--threshold", "0.3"]) == 0
    from_threshold = pl.read_csv(capsys.readouterr().out.encode())
    assert from_pred["f1"].to_list() == pytest.approx(from_threshold["f1"].to_list(), rel=1e-12)


def test_version(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_kernel, "_kernels", _kernel._kernels or object())  # (built or not)
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    # (with whether the C kernel was built: nothing else tells a no-compiler install)
    assert capsys.readouterr().out == f"pl-metrics {pl_metrics.__version__} (C kernel)\n"
    monkeypatch.setattr(_kernel, "_kernels", None)
    with pytest.raises(SystemExit):
        main(["--version"])
    assert "(no C kernel: the polars plans run, slower)" in capsys.readouterr().out


def test_the_polars_plans_run_where_the_environment_asks() -> None:
    """PL_METRICS_NO_KERNEL=1 runs the plans of an install without a compiler, the same
    numbers (to check one against the other, or to step around a kernel's fault)."""
    script = (
        "import polars as pl, pl_metrics; from pl_metrics import _kernel; "
        f"df = pl.read_parquet({str(DATA)!r}); "
        "print(_kernel.available(), pl_metrics.lrap(df, by='model')['lrap'].to_list())"
    )
    runs = {}
    for value in ("1", "0", "false", "Off"):  # (any value but "" and "0" turned it off)
        env = {**os.environ, "PL_METRICS_NO_KERNEL": value}
        out = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        ).stdout
        available, values = out.split(" ", 1)
        runs[value] = (available, ast.literal_eval(values))
    assert runs["1"][0] == "False"
    assert runs["0"][0] == str(_kernel.available())
    assert runs["1"][1] == pytest.approx(runs["0"][1], rel=1e-12)
    assert runs["false"] == runs["Off"] == runs["0"]
    env = {**os.environ, "PL_METRICS_NO_KERNEL": "1"}
    version = [sys.executable, "-m", "pl_metrics", "--version"]
    out = subprocess.run(version, env=env, capture_output=True, text=True, check=True).stdout
    assert "(C kernel turned off by PL_METRICS_NO_KERNEL: the polars plans run" in out


def test_score_help_lists_the_registry(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    out = capsys.readouterr().out
    for name in metric_names():
        assert name in out
    assert "higher is better: lwlrap, lrap," in out
    assert "lower is better:  coverage_error, label_ranking_loss," in out
    assert "--pred-col COL" in out
    assert "--pred " not in out
    assert "--plot draws" not in out  # (score draws nothing: its --max-points told of curves.)


@pytest.mark.parametrize(
    ("error", "status", "words"),
    [
        (RuntimeError("boom"), 1, "internal error: RuntimeError: boom (a bug in pl-metrics"),
        (AssertionError(), 1, "internal error: AssertionError (a bug in pl-metrics"),
        (KeyError("id"), 1, "internal error: KeyError: 'id'"),
        (
            pl.exceptions.ColumnNotFoundError('"x"\n\nplan'),
            1,
            'internal error: ColumnNotFoundError: "x" (',
        ),
        (pl.exceptions.ComputeError("could not parse\nmore"), 2, "error: could not parse"),
        (pl.exceptions.NoDataError("empty CSV"), 2, "error: empty CSV"),
        (PermissionError(13, "Permission denied"), 2, "error: [Errno 13] Permission denied"),
        (pl.exceptions.PanicException("polars panicked"), 1, "internal error: PanicException"),
    ],
)
def test_internal_errors_exit_1_and_user_errors_2(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    error: BaseException,
    status: int,
    words: str,
) -> None:
    def fail(*args: object, **kwargs: object) -> None:
        raise error

    monkeypatch.setattr(cli, "score", fail)
    assert main(["score", str(DATA), "--by", "model,fold"]) == status
    err = capsys.readouterr().err
    assert err.startswith(f"pl-metrics: {words}")
    assert err.count("\n") == 1
    if status == 1:
        assert "--traceback" in err
    assert main(["score", str(DATA), "--by", "model,fold", "--traceback"]) == status
    shown = capsys.readouterr().err
    assert shown.startswith("Traceback (most recent call last):")
    assert type(error).__name__ in shown


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "pl_metrics", "score", str(DATA), *args]


def test_closed_stdout_is_quiet() -> None:
    argv = _command("-m", "lrap", "--by", "model,fold", "--format", "csv")
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None
        assert process.stderr is not None
        process.stdout.close()  # no reader: the first write fails with EPIPE
        err = process.stderr.read().decode()
    assert err == ""
    assert process.returncode == 141  # as a process that SIGPIPE ended


def test_compare_tells_its_options_and_the_command_to_pool_folds(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """compare groups by model and fold internally: a clash is told by the flags given, and
    a table without folds gets the command that pools each model's rows."""
    assert main(["compare", str(DATA), "-m", "lrap", "--weight-col", "fold"]) == 2
    err = capsys.readouterr().err
    assert "--fold-col and --weight-col both name column 'fold'" in err
    assert main(["compare", str(DATA), "-m", "lrap", "--model-col", "class"]) == 2
    assert "--model-col and --class-col both name column 'class'" in capsys.readouterr().err
    no_folds = tmp_path / "no_folds.parquet"
    pl.read_parquet(DATA).drop("fold").write_parquet(no_folds)
    assert main(["compare", str(no_folds), "-m", "lrap"]) == 2
    err = capsys.readouterr().err
    assert "for values pooled per model, use pl-metrics score --by model" in err


def test_an_arrow_stream_is_told_how_to_convert(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    stream = tmp_path / "bob's $HOME.arrow"  # quoted for the shell as a whole
    pl.read_parquet(DATA).write_ipc_stream(stream)
    assert main(["score", str(stream), "--by", "model"]) == 2
    err = capsys.readouterr().err
    assert "it is an Arrow IPC stream" in err
    command = err.split("convert it to parquet first: ")[1].strip()
    subprocess.run(shlex.split(command.replace("python", sys.executable, 1)), check=True)
    assert main(["score", str(stream.with_suffix(".parquet")), "--by", "model,fold"]) == 0


def test_tuned_thresholds_are_shown_in_full(capsys: pytest.CaptureFixture[str]) -> None:
    """A tuned threshold is copied from the table: 0.9999999999 must not show as 1.000000.

    The metric's values beside it are read, not copied: 6 decimals."""
    want = pl_metrics.best_threshold(pl.read_parquet(DATA), by="model")
    for argv in (
        ["score", str(DATA), "-m", "best_threshold", "--by", "model"],
        ["thresholds", str(DATA), "--by", "model"],
    ):
        assert main(argv) == 0
        shown = capsys.readouterr().out
        rows = [line.strip("│ ").split("┆") for line in shown.splitlines() if "┆" in line][1:]
        assert [float(row[2]) for row in rows] == want["threshold"].to_list()
        assert [row[3].strip() for row in rows] == [f"{v:.6f}" for v in want["value"]]


def test_ctrl_c_is_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Interrupted, the command says so in a line (not Python's traceback), status 130."""

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "score", interrupted)
    assert main(["score", str(DATA), "--by", "model"]) == 130
    assert capsys.readouterr().err == "pl-metrics: interrupted\n"


def test_pipe_into_head_is_quiet() -> None:
    argv = _command("-m", "confusion", "--by", "model,fold", "--format", "csv")
    command = f"{shlex.join(argv)} | head -1"
    result = subprocess.run(["bash", "-c", command], capture_output=True, text=True, check=False)
    assert result.stdout == "model,fold,class,tp,fp,fn,tn\n"
    assert result.stderr == ""


CURVES = {
    "roc": (pl_metrics.roc_curve, []),
    "pr": (pl_metrics.precision_recall_curve, ["--max-points", "50"]),
    "calibration": (pl_metrics.calibration_curve, ["--n-bins", "8", "--strategy", "quantile"]),
}


@pytest.mark.parametrize("kind", list(CURVES))
def test_curves_command_writes_the_table_and_its_plot(tmp_path: Path, kind: str) -> None:
    pytest.importorskip("matplotlib")
    function, flags = CURVES[kind]
    table, figure = tmp_path / "curves.parquet", tmp_path / "curves.png"
    argv = ["curves", str(DATA), "--kind", kind, "--by", "model", *flags]
    assert main([*argv, "-o", str(table), "--plot", str(figure), "--quiet"]) == 0
    options = {"max_points": 50} if kind == "pr" else {}
    if kind == "calibration":
        options = {"n_bins": 8, "strategy": "quantile"}
    want = function(pl.read_parquet(DATA), by="model", **options)
    assert_frame_equal(pl.read_parquet(table), want, rel_tol=1e-12)
    assert figure.stat().st_size > 10_000
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_renamed_column_is_suggested_by_its_flag(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "label.parquet"
    pl.read_parquet(DATA).rename({"truth": "label"}).write_parquet(path)
    assert main(["score", str(path), "-m", "lrap", "--by", "model,fold"]) == 2
    assert capsys.readouterr().err.endswith("; pass --truth-col label if that column holds it\n")


def test_compare_tells_of_two_tasks_dumps_as_score_does(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # The shipped folder's two dumps: a ragged error with the files' hint (none before).
    assert main(["compare", str(DATA.parent), "-m", "lrap"]) == 2
    assert "; but the 2 files hold different classes (" in capsys.readouterr().err
    # Dumps of the same ids and folds, each id with both tasks' classes: scored, warned of.
    digits = pl.read_parquet(DATA)
    digits.write_parquet(tmp_path / "a.parquet")
    renamed = pl.concat_str(pl.lit("other_"), "class").alias("class")
    digits.with_columns(renamed).write_parquet(tmp_path / "b.parquet")
    assert main(["compare", str(tmp_path), "-m", "lrap"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("pl-metrics: warning: files scored together hold different classes")
    # Unchecked classes (shards of ids with some classes each may differ): not warned of.
    for unchecked in ("--no-validate", "--allow-ragged"):
        assert main(["compare", str(tmp_path), "-m", "lrap", unchecked]) == 0
        assert "warning" not in capsys.readouterr().err


def test_a_curves_plot_without_output_prints_no_table(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Tens of thousands of points on the terminal buried the plot's name.
    pytest.importorskip("matplotlib")
    figure = tmp_path / "roc.png"
    assert main(["curves", str(DATA), "--kind", "roc", "--by", "model", "--plot", str(figure)]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert (
        err == f"pl-metrics: saved the plot to {figure}; -o FILE writes the table of points too\n"
    )
    assert figure.stat().st_size > 10_000
    # A --format asked for prints the table in it, beside the plot.
    argv = ["curves", str(DATA), "--kind", "roc", "--by", "model", "--plot", str(figure)]
    assert main([*argv, "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    assert_frame_equal(pl.read_csv(io.StringIO(out)), pl.read_csv(io.StringIO(_csv_of(argv))))
    assert err == ""
    # -o - asks for the table on the terminal too (it printed nothing, and said -o FILE).
    assert main([*argv, "-o", "-", "--max-points", "3"]) == 0
    out, err = capsys.readouterr()
    assert "┆ fpr" in out
    assert err == ""
    # A plot named as the output would replace the table.
    same = ["-o", str(figure), "--format", "csv"]
    assert main([*argv, *same]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pl-metrics: error: --output and --plot both name ")


def _csv_of(argv: list[str]) -> str:
    """The CSV table of a curves command without its plot."""
    plot = argv.index("--plot")
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main([*argv[:plot], *argv[plot + 2 :], "--format", "csv"]) == 0
    return buffer.getvalue()


def test_a_curves_plot_is_drawn_from_the_whole_curve(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # --max-points thins the table written, not the curve whose AP the legend gives.
    pytest.importorskip("matplotlib")
    from pl_metrics import plot

    drawn = []
    draw = plot.pr_curves
    monkeypatch.setattr(
        plot, "pr_curves", lambda table, **kw: drawn.append(table) or draw(table, **kw)
    )
    table = tmp_path / "pr.parquet"
    argv = ["curves", str(DATA), "--kind", "pr", "--by", "model", "--max-points", "20"]
    assert main([*argv, "-o", str(table), "--plot", str(tmp_path / "pr.png"), "-q"]) == 0
    df = pl.read_parquet(DATA)
    assert_frame_equal(drawn[0], pl_metrics.precision_recall_curve(df, by="model"))
    want = pl_metrics.precision_recall_curve(df, by="model", max_points=20)
    assert_frame_equal(pl.read_parquet(table), want)


def test_curves_plot_shows_as_many_class_panels_as_asked(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The plot's title says to raise max_classes for more panels: the command has the flag.
    pytest.importorskip("matplotlib")
    from pl_metrics import plot

    titles = []
    draw = plot.roc_curves

    def drawn(table: pl.DataFrame, **options: Any) -> Any:
        figure = draw(table, **options)
        figure.savefig(io.BytesIO())  # laid out: the title's place is known
        title = figure._suptitle
        extent = title.get_window_extent()
        assert extent.x0 >= 0  # wrapped, not clipped
        assert extent.x1 <= figure.bbox.x1
        titles.append(" ".join(figure.get_suptitle().split()))
        return figure

    monkeypatch.setattr(plot, "roc_curves", drawn)
    argv = ["curves", str(DATA), "--kind", "roc", "--by", "model", "-o", str(tmp_path / "t.csv")]
    assert main([*argv, "--plot", str(tmp_path / "a.png"), "-q"]) == 0
    assert "the first 12 of" not in titles[0]  # the shipped data's 10 classes: all shown
    capsys.readouterr()
    assert main([*argv, "--plot", str(tmp_path / "b.png"), "--max-classes", "3", "-q"]) == 0
    assert "(the first 3 of 10: filter the table on 'class' or raise max_classes" in titles[1]
    # said on the terminal too (with --quiet), not only in the picture's title
    assert capsys.readouterr().err == (
        "pl-metrics: warning: the plot shows 3 of the 10 classes (--max-classes N)\n"
    )
    with pytest.raises(SystemExit) as exited:  # argparse's, as --chunks 0
        main([*argv, "--plot", str(tmp_path / "c.png"), "--max-classes", "0", "-q"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "argument --max-classes: expected a positive integer, got '0'" in err
    assert main([*argv, "--max-classes", "3", "-q"]) == 2  # no plot to draw them
    assert "--max-classes: the panels of a --plot; give --plot FILE too" in capsys.readouterr().err
    assert len(titles) == 2  # both refused before scoring or drawing


def test_curves_command_tells_of_max_points_for_many_points(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Unrounded scores give a point per row; the table is written whole, with a note.
    rng = np.random.default_rng(0)
    n_ids, n_classes = 30_000, 4
    path = tmp_path / "distinct.parquet"
    pl.DataFrame(
        {
            "id": np.repeat(np.arange(n_ids), n_classes),
            "class": np.tile(np.arange(n_classes), n_ids),
            "score": rng.random(n_ids * n_classes),
            "truth": rng.random(n_ids * n_classes) < 0.3,
        }
    ).write_parquet(path)
    out = tmp_path / "roc.parquet"
    assert main(["curves", str(path), "--kind", "roc", "-o", str(out)]) == 0
    assert pl.read_parquet(out).height == n_ids * n_classes + n_classes
    err = capsys.readouterr().err
    assert f"note: the table has {n_ids * n_classes + n_classes:,} points" in err
    assert "--max-points N" in err
    for quiet in (["--max-points", "50"], ["--quiet"]):
        assert main(["curves", str(path), "--kind", "roc", "-o", str(out), *quiet]) == 0
        assert "note:" not in capsys.readouterr().err


def test_curves_command_formats_and_columns(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    renamed = tmp_path / "renamed.parquet"
    knn = pl.read_parquet(DATA).filter(pl.col("model") == "knn")
    knn.rename({"id": "clip", "class": "digit", "score": "p", "truth": "y"}).write_parquet(renamed)
    columns = ["--id-col", "clip", "--class-col", "digit", "--score-col", "p", "--truth-col", "y"]
    argv = ["curves", str(renamed), "--kind", "roc", *columns, "--max-points", "20"]
    assert main([*argv, "--format", "csv"]) == 0
    got = pl.read_csv(capsys.readouterr().out.encode(), schema_overrides={"digit": pl.String})
    want = pl_metrics.roc_curve(knn, max_points=20).rename({"class": "digit"})
    assert_frame_equal(got, want, rel_tol=1e-12)
    target = tmp_path / "roc.json"
    assert main([*argv, "-o", str(target), "--plot", str(tmp_path / "roc.svg")]) == 0
    got = pl.DataFrame(json.loads(target.read_text()))
    no_inf = pl.when(pl.col("threshold").is_finite()).then(pl.col("threshold"))
    assert_frame_equal(got, want.with_columns(no_inf), rel_tol=1e-12)  # JSON has no infinity
    assert (tmp_path / "roc.svg").stat().st_size > 10_000
    weighted = knn.with_columns(w=(pl.col("id") % 3 + 1).cast(pl.Float64))
    weighted.write_parquet(renamed)
    argv = ["curves", str(renamed), "--kind", "pr", "--weight-col", "w", "--format", "csv"]
    assert main(argv) == 0
    got = pl.read_csv(capsys.readouterr().out.encode(), schema_overrides={"class": pl.String})
    want = pl_metrics.precision_recall_curve(weighted, weight_col="w")
    assert_frame_equal(got, want, rel_tol=1e-12)


def test_curves_command_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["curves", str(DATA), "--kind", "lift", "--by", "model"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'lift'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["curves", str(DATA), "--by", "model"])  # --kind is required
    assert exit_info.value.code == 2
    capsys.readouterr()
    cases = [
        (["--kind", "roc"], "pass --by model,fold if each (model, fold)"),
        (
            ["--kind", "roc", "--by", "model", "--n-bins", "5"],
            "--n-bins is not used by --kind roc; it is for --kind calibration",
        ),
        (
            ["--kind", "calibration", "--by", "model", "--max-points", "5"],
            "--max-points is not used by --kind calibration; it is for --kind roc and --kind pr",
        ),
        (
            ["--kind", "calibration", "--by", "model", "--weight-col", "fold"],
            "--weight-col is not used",
        ),
        (["--kind", "roc", "--by", "model", "--plot", str(tmp_path / "x.bmp")], ".png"),
        (["--kind", "roc", "--by", "model,fold", "--plot", str(tmp_path / "x.png")], "too many"),
        (["--kind", "pr", "--by", "modl"], "did you mean 'model'"),
    ]
    for flags, message in cases:
        assert main(["curves", str(DATA), *flags]) == 2, flags
        err = capsys.readouterr().err
        _one_line_error(err)
        assert message in err
    assert not (tmp_path / "x.png").exists()


def test_curves_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["curves", "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "examples:" in out
    assert "--kind {roc,pr,calibration}" in out
    assert "--plot FILE" in out
    assert "--metric" not in out
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "pl-metrics curves" in capsys.readouterr().out


def test_thresholds_command_and_threshold_table(tmp_path: Path) -> None:
    table = tmp_path / "t.csv"
    argv = ["thresholds", str(DATA), "--metric", "f1", "--by", "model", "--fold-col", "fold"]
    assert main([*argv, "--quiet", "-o", str(table)]) == 0
    digits = pl.read_parquet(DATA)
    want = pl_metrics.best_threshold(digits, "f1", by="model", fold_col="fold")
    got = pl.read_csv(table).with_columns(pl.col("class").cast(pl.String))
    assert_frame_equal(got, want, rel_tol=1e-12)
    out = tmp_path / "scores.csv"
    argv = ["score", str(DATA), "-m", "f1,precision", "--by", "model", "--threshold-table"]
    assert main([*argv, str(table), "--quiet", "-o", str(out)]) == 0
    applied = pl_metrics.report(digits, ["f1", "precision"], by="model", threshold=want)
    assert_frame_equal(pl.read_csv(out), applied, rel_tol=1e-12)
    assert main(["score", str(DATA), "--threshold-table", str(tmp_path / "none.csv")]) == 2


def test_the_options_of_sweeps_class_weights_and_zero_division(tmp_path: Path) -> None:
    """Each is the library's option of the same call (the command line could not set them).

    Class 9 has no positives, so that zero_division decides its recall and precision.
    """
    digits = pl.read_parquet(DATA).with_columns(pl.col("truth") & (pl.col("class") != "9"))
    data = tmp_path / "digits.parquet"
    digits.write_parquet(data)
    out = tmp_path / "out.csv"
    calls: list[tuple[list[str], list[str], pl.DataFrame]] = [
        (
            ["score", "-m", "threshold_sweep"],
            ["--sweep-metric", "precision", "--thresholds", "0.2,0.5,0.9"],
            pl_metrics.threshold_sweep(digits, "precision", thresholds=[0.2, 0.5, 0.9], by="model"),
        ),
        (
            ["score", "-m", "best_threshold", "--sweep-metric", "recall"],
            ["--zero-division", "1"],
            pl_metrics.best_threshold(digits, "recall", by="model", zero_division=1),
        ),
        (
            ["thresholds", "-m", "balanced_accuracy"],
            ["--zero-division", "1"],
            pl_metrics.best_threshold(digits, "balanced_accuracy", by="model", zero_division=1),
        ),
        (
            ["score", "-m", "weighted_log_loss"],  # (one true class per id: the shipped data)
            ["--class-weights", ",".join(f"{c}={c + 1}" for c in range(10))],
            pl_metrics.weighted_log_loss(
                pl.read_parquet(DATA), class_weights={c: c + 1.0 for c in range(10)}, by="model"
            ),
        ),
    ]
    strings: dict[str, type[pl.DataType]] = {"class": pl.String}
    for command, options, want in calls:
        source = DATA if command[-1] == "weighted_log_loss" else data
        argv = [command[0], str(source), *command[1:], "--by", "model", "-q", "-o", str(out)]
        assert main([*argv, *options]) == 0, argv
        got = pl.read_csv(out, schema_overrides=strings)
        if "class" in want.columns:
            want = want.cast(strings)
        assert_frame_equal(got, want, rel_tol=1e-12)
        assert main(argv) == 0  # without the options: another table
        assert not pl.read_csv(out, schema_overrides=strings).equals(got), options


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["-m", "weighted_log_loss", "--class-weights", "0"], "expected CLASS=WEIGHT pairs"),
        (["-m", "weighted_log_loss", "--class-weights", "0=1"], "no weight in --class-weights"),
        (["-m", "weighted_log_loss", "--class-weights", "0=1,1=2,0=5"], "class '0' is given twice"),
        (["-m", "threshold_sweep", "--thresholds", "0.5,x"], "expected numbers separated by"),
        (["-m", "threshold_sweep", "--thresholds", ","], "expected numbers separated by"),
        (["-m", "threshold_sweep", "--thresholds", "0.1,,0.2"], "expected numbers separated by"),
        (["-m", "lrap", "--sweep-metric", "recall"], "--sweep-metric is not used by lrap"),
        (["-m", "lrap", "--thresholds", "0.5"], "--thresholds is not used by lrap"),
        # A flag given twice: argparse kept the last, silently (0.9 was dropped).
        (
            ["-m", "f1", "--threshold", "0.9", "--threshold=0.3"],
            "argument --threshold: given twice (0.9, then 0.3); give it once",
        ),
        (["-m", "f1", "--average", "micro", "--average", "micro"], "--average: given twice"),
        (["-m", "f1", "-o", "a.csv", "--output", "b.csv"], "argument --output/-o: given twice"),
    ],
)
def test_bad_sweep_and_class_weight_flags(
    capsys: pytest.CaptureFixture[str], flags: list[str], message: str
) -> None:
    try:
        status = main(["score", str(DATA), *flags, "--by", "model", "-q"])
    except SystemExit as exited:  # argparse's own refusal
        status = exited.code
    assert status == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert message in err


@pytest.mark.parametrize(("name", "content"), [("t.csv", b""), ("t.parquet", b"not parquet")])
def test_an_unreadable_threshold_table_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, content: bytes
) -> None:
    table = tmp_path / name
    table.write_bytes(content)
    assert main(["score", str(DATA), "-m", "f1", "--threshold-table", str(table)]) == 2
    err = capsys.readouterr().err
    assert f"--threshold-table: cannot read {str(table)!r} as a table: " in err


def test_chunks_or_a_memory_budget(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["score", str(DATA), "--by", "model", "--quiet"]
    assert main([*argv, "--chunks", "2", "--memory-budget", "1GB"]) == 2
    assert "error: --memory-budget and --chunks: give one of them" in capsys.readouterr().err
    assert main([*argv, "--chunks", "2"]) == 0
    capsys.readouterr()
    # compare takes a budget for its table of models (it had none to take)
    compare = ["compare", str(DATA), "-m", "lrap", "--format", "csv"]
    assert main([*compare, "--memory-budget", "1MB"]) == 0
    assert_frame_equal(
        pl.read_csv(io.StringIO(capsys.readouterr().out)),
        pl.read_csv(io.StringIO(_stdout_of(compare))),
    )
    assert main([*compare, "--memory-budget", "1MB", "--against", "knn"]) == 2
    assert "error: --memory-budget: --against reads the columns" in capsys.readouterr().err


def _stdout_of(argv: list[str]) -> str:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(argv) == 0
    return buffer.getvalue()


@pytest.mark.parametrize("bad", ["0", "-3", "x"])
def test_chunks_must_be_positive(capsys: pytest.CaptureFixture[str], bad: str) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["score", str(DATA), "--by", "model,fold", "--chunks", bad])
    assert exit_.value.code == 2
    assert "--chunks: expected a positive integer" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--pred-col", "p", "--threshold", "0.3"], "--pred-col p holds the predictions"),
        (["--pred-col", "p", "--threshold-table", "t.csv"], "--threshold-table would apply"),
        (["--threshold", "0.3", "--threshold-table", "t.csv"], "give one of them"),
    ],
)
def test_contradicting_threshold_options_are_refused(
    capsys: pytest.CaptureFixture[str], options: list[str], message: str
) -> None:
    assert main(["score", str(DATA), "-m", "f1", *options]) == 2
    assert message in capsys.readouterr().err


def test_compare_messages_name_its_flags(capsys: pytest.CaptureFixture[str]) -> None:
    for argv, message in [
        (["--bootstrap", "100000000"], "--bootstrap: expected an integer"),
        (["--fold-col", "id"], "--fold-col and --id-col both name column 'id'"),
    ]:
        assert main(["compare", str(DATA), "-m", "lrap", *argv]) == 2
        assert message.strip() in capsys.readouterr().err


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--average", "micro", "--per-class"], "--per-class and --average micro: per-class"),
        (["--per-id"], "per-id values are those of --average samples: pass it"),
        (["--score-col", "sc"], "column 'sc' (--score-col) is not in the table"),
        (["--skip-undefined"], "--skip-undefined is not used by f1"),
        (["--class-col", "model"], "'model' is the --class-col, which the metrics read"),
        (["--average", "samples", "-m", "brier_score"], "(it takes 'macro' or --per-class)"),
    ],
)
def test_messages_name_the_flags_not_the_library_options(
    capsys: pytest.CaptureFixture[str], options: list[str], message: str
) -> None:
    assert main(["score", str(DATA), "-m", "f1", "--by", "model", *options]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "option '" not in err
    assert "average=" not in err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("class,threshold\n", "--threshold-table: the threshold table is empty"),
        (
            "class,threshold\n0,0.5\n1,half\n",
            "--threshold-table: the threshold table's 'threshold' column holds String values "
            "such as 'half', not numbers",
        ),
    ],
)
def test_a_threshold_csv_of_no_rows_or_no_numbers_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, message: str
) -> None:
    # A CSV of a header only reads as text: not "needs a numeric 'threshold' column".
    table = tmp_path / "t.csv"
    table.write_text(content)
    assert main(["score", str(DATA), "-m", "f1", "--threshold-table", str(table)]) == 2
    assert message in capsys.readouterr().err


def test_a_threshold_table_of_models_without_by_meets_the_duplicate_check(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Keyed by model, applied without --by: each model's rows their own thresholds, but
    # the models' ids repeat, as the duplicate check says.
    table = tmp_path / "t.csv"
    assert main(["thresholds", str(DATA), "-m", "f1", "--by", "model", "-o", str(table)]) == 0
    capsys.readouterr()
    assert main(["score", str(DATA), "-m", "f1", "--threshold-table", str(table)]) == 2
    assert "rows repeat a (id, class)" in capsys.readouterr().err


def test_thresholds_per_fold_apply_to_their_folds_pooled(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    table = tmp_path / "t.csv"
    by = ["--by", "model,fold"]
    assert main(["thresholds", str(DATA), "-m", "f1", *by, "-o", str(table)]) == 0
    pooled = ["-m", "f1", "--threshold-table", str(table), "--format", "csv"]
    assert main(["score", str(DATA), *pooled, "--by", "model"]) == 0
    scored = pl.read_csv(io.StringIO(capsys.readouterr().out))
    f1 = dict(scored.iter_rows())
    assert main(["compare", str(DATA), *pooled, "--bootstrap", "20"]) == 0
    compared = pl.read_csv(io.StringIO(capsys.readouterr().out))
    assert dict(compared.select("model", "f1").iter_rows()) == pytest.approx(f1, abs=1e-15)
    assert main(["compare", str(DATA), *pooled, "--against", "logreg", "--bootstrap", "20"]) == 0
    against = pl.read_csv(io.StringIO(capsys.readouterr().out))
    for other, difference in against.select("model_b", "difference").iter_rows():
        assert difference == pytest.approx(f1[other] - f1["logreg"], abs=1e-12)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-m", "lrap", "--threshold", "0.5"], "--threshold is not used by lrap; the metrics"),
        (["-m", "lrap", "--average", "macro"], "--average is not used by lrap"),
        (["-m", "lrap", "--eps", "1e-15"], "--eps is not used by lrap"),
        (["-m", "log_loss", "--padding", "5"], "--padding is not used by log_loss"),
        (["-m", "lrap", "--sweep-metric", "f1"], "--sweep-metric is not used by lrap"),
        (["-m", "lrap", "--n-bins", "10"], "--n-bins is not used by lrap"),
    ],
)
def test_a_flag_typed_with_its_default_value_is_refused_where_unused(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    # The library cannot tell a default given from one not given; the command line can.
    assert main(["score", str(DATA), "--by", "model,fold", *argv]) == 2
    assert message in capsys.readouterr().err
    if "--sweep-metric" not in argv:  # (compare takes no tables)
        assert main(["compare", str(DATA), *argv]) == 2
        assert message in capsys.readouterr().err
    curves = ["curves", str(DATA), "--kind", "roc", "--strategy", "uniform"]
    assert main(curves) == 2
    assert "--strategy is not used by --kind roc; it is for --kind calibration" in (
        capsys.readouterr().err
    )
    # The options tuning passes on to its metric, in both commands that tune
    tuned = ["--by", "model", "--beta", "1"]
    assert main(["thresholds", str(DATA), "-m", "f1", *tuned]) == 2
    assert "--beta is not used by f1 (--metric of best_threshold)" in capsys.readouterr().err
    assert main(["score", str(DATA), "-m", "best_threshold", "--sweep-metric", "f1", *tuned]) == 2
    assert "--beta is not used by f1 (--sweep-metric of" in capsys.readouterr().err
    # Where a metric uses it, the default value is as good as any.
    used = ["score", str(DATA), "-m", "lrap,f1", "--by", "model,fold", "--threshold", "0.5"]
    assert main([*used, "--average", "macro", "--format", "csv"]) == 0


def test_a_threshold_table_is_named_by_its_flag(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    table = tmp_path / "t.csv"
    pl.DataFrame({"class": [0], "threshold": [0.3]}).write_csv(table)
    assert main(["score", str(DATA), "-m", "lrap", "--threshold-table", str(table)]) == 2
    err = capsys.readouterr().err
    assert "error: --threshold-table is not used by lrap" in err


@pytest.mark.parametrize("suffix", ["csv", "parquet", "json"])
def test_thresholds_round_trip_through_every_format(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, suffix: str
) -> None:
    # Zero-padded class and group names: a CSV reader would make "00" the integer 0.
    digits = pl.read_parquet(DATA).filter(pl.col("fold") < 2)
    padded = digits.with_columns(
        pl.col("class").cast(pl.String).str.zfill(2), pl.format("00{}", pl.col("fold")).alias("g")
    )
    path = tmp_path / "padded.parquet"
    padded.write_parquet(path)
    table = tmp_path / f"t.{suffix}"
    by = ["--by", "model,g"]
    assert main(["thresholds", str(path), *by, "-o", str(table), "-q"]) == 0
    assert main(["score", str(path), "-m", "f1", *by, "--threshold-table", str(table)]) == 0
    capsys.readouterr()
    assert (
        main(
            [
                "score",
                str(path),
                "-m",
                "f1",
                *by,
                "--threshold-table",
                str(table),
                "-o",
                str(tmp_path / "got.csv"),
                "-q",
            ]
        )
        == 0
    )
    got = pl.read_csv(tmp_path / "got.csv").sort("model", "g")
    best = pl_metrics.best_threshold(padded, by=["model", "g"])
    want = pl_metrics.f1(padded, by=["model", "g"], threshold=best).sort("model", "g")
    np.testing.assert_allclose(got["f1"], want["f1"], rtol=1e-12)


def test_thresholds_of_number_and_flag_like_text_round_trip_through_csv(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Text classes "0.50" and "1e3" were read back as floats, "TRUE" and "true" as one
    boolean: rows without a threshold, or keys repeated."""
    digits = pl.read_parquet(DATA).filter(pl.col("fold") < 2, pl.col("class").is_in(["0", "1"]))
    for names in ({"0": "0.50", "1": "1e3"}, {"0": "TRUE", "1": "true"}):
        texts = digits.with_columns(pl.col("class").replace(names))
        path = tmp_path / "texts.parquet"
        texts.write_parquet(path)
        table = tmp_path / "t.csv"
        assert main(["thresholds", str(path), "--by", "model", "-o", str(table), "-q"]) == 0
        argv = ["score", str(path), "-m", "f1", "--by", "model", "--threshold-table", str(table)]
        assert main([*argv, "--format", "csv", "-q"]) == 0, names
        got = pl.read_csv(capsys.readouterr().out.encode())
        best = pl_metrics.best_threshold(texts, by="model")
        want = pl_metrics.f1(texts, by="model", threshold=best)
        np.testing.assert_allclose(got["f1"], want["f1"], rtol=1e-12)


def test_a_threshold_table_written_by_pandas_meets_boolean_and_float_keys(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Keys of other writers' spelling ("True", "1e-05", "0.50") are read as the rows'
    types: kept as text, they met no row."""
    pytest.importorskip("pandas")
    digits = pl.read_parquet(DATA).filter(pl.col("model") == "knn")
    even = pl.col("id") % 2 == 0
    keyed = digits.with_columns(flag=even, lr=pl.when(even).then(1e-05).otherwise(0.5))
    path = tmp_path / "keyed.parquet"
    keyed.write_parquet(path)
    for key, values in (("flag", [True, False]), ("lr", [1e-05, 0.5])):
        table = tmp_path / f"{key}.csv"
        typed = pl.DataFrame({key: values, "threshold": [0.3, 0.6]}).join(
            digits.select(pl.col("class").unique()), how="cross"
        )
        text = typed.to_pandas().to_csv(index=False).replace("0.5,", "0.50,")
        table.write_text(text)
        argv = ["score", str(path), "-m", "f1", "--by", key, "--threshold-table", str(table)]
        assert main([*argv, "--format", "csv", "-q"]) == 0, (key, capsys.readouterr().err)
        got = pl.read_csv(io.StringIO(capsys.readouterr().out))
        want = pl_metrics.f1(keyed, by=key, threshold=typed)
        np.testing.assert_allclose(got["f1"], want["f1"], rtol=1e-12)


@pytest.mark.parametrize("suffix", ["csv", "json"])
def test_thresholds_of_time_and_decimal_groups_round_trip_through_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, suffix: str
) -> None:
    """Keys a CSV or JSON file writes otherwise than polars' text of them (an offset as
    +0100, a "T", nanoseconds, a Decimal's 0.00 read back as the float 0.0) still apply."""
    digits = pl.read_parquet(DATA).filter(pl.col("model") == "knn")
    even = pl.col("id") % 2 == 0
    zoned = pl.Series([datetime(2024, 3, 31, 1), datetime(2024, 3, 31, 4)])
    zoned = zoned.dt.replace_time_zone("Europe/Paris")  # on both sides of a DST change
    groups = {
        "zoned": pl.when(even).then(pl.lit(zoned[0])).otherwise(pl.lit(zoned[1])),
        "naive": pl.when(even)
        .then(pl.lit(datetime(2024, 1, 1, 0, 0, 0, 123)))
        .otherwise(pl.lit(datetime(2024, 1, 2))),
        "ms": pl.when(even)
        .then(pl.lit(datetime(2024, 1, 1)))
        .otherwise(pl.lit(datetime(2024, 1, 1, 0, 0, 1)))
        .cast(pl.Datetime("ms")),
        "clock": pl.when(even).then(pl.lit(time(1))).otherwise(pl.lit(time(13, 30, 0, 5))),
        "lag": pl.when(even).then(pl.duration(seconds=0)).otherwise(pl.duration(seconds=3)),
        "cents": pl.when(even)
        .then(pl.lit(Decimal("0.00")))
        .otherwise(pl.lit(Decimal("1.50")))
        .cast(pl.Decimal(10, 2)),
    }
    typed = digits.with_columns(**groups)
    path = tmp_path / "typed.parquet"
    typed.write_parquet(path)
    for group in groups:
        table = tmp_path / f"{group}.{suffix}"
        assert main(["thresholds", str(path), "--by", group, "-o", str(table), "-q"]) == 0
        argv = ["score", str(path), "-m", "f1", "--by", group, "--threshold-table", str(table)]
        assert main([*argv, "--format", "csv", "-q"]) == 0, group
        got = pl.read_csv(capsys.readouterr().out.encode())
        best = pl_metrics.best_threshold(typed, by=group)
        want = pl_metrics.f1(typed, by=group, threshold=best)
        np.testing.assert_allclose(got["f1"], want["f1"], rtol=1e-12)


def test_a_threshold_table_of_another_suffix_is_read_as_csv(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    table = tmp_path / "t.txt"
    table.write_text("class,threshold\n" + "".join(f"{c},0.3\n" for c in range(10)))
    argv = ["score", str(DATA), "-m", "f1", "--by", "model", "--format", "csv", "-q"]
    assert main([*argv, "--threshold-table", str(table)]) == 0
    got = pl.read_csv(capsys.readouterr().out.encode())
    assert main([*argv, "--threshold", "0.3"]) == 0
    assert_frame_equal(got, pl.read_csv(capsys.readouterr().out.encode()))


def test_a_refused_curve_plot_still_writes_the_table(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pytest.importorskip("matplotlib")
    table, picture = tmp_path / "roc.csv", tmp_path / "roc.png"
    argv = ["curves", str(DATA), "--kind", "roc", "--by", "model,fold", "-o", str(table)]
    assert main([*argv, "--plot", str(picture), "-q"]) == 2
    err = capsys.readouterr().err
    assert "plot fewer values of fold (filter the input first), or pass fewer --by" in err
    assert "table.filter" not in err
    assert err.rstrip().endswith(f"(the table of points is written to {table})")  # it says so
    assert pl.read_csv(table).height > 0
    assert not picture.exists()
    # On the terminal, no table under the failing status: the plot is refused first.
    assert main([*argv[:-2], "--plot", str(picture), "--format", "csv"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "too many" in err


@pytest.mark.parametrize("option", ["-o", "--plot"])
def test_a_file_in_a_missing_folder_is_refused_before_scoring(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, option: str
) -> None:
    pytest.importorskip("matplotlib")

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("scored before the folder was checked")

    monkeypatch.setattr(cli, "score", never)
    target = tmp_path / "missing" / ("roc.png" if option == "--plot" else "roc.csv")
    argv = ["curves", str(DATA), "--kind", "roc", "--by", "model", option, str(target)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"folder {str(target.parent)!r} does not exist" in err
    target.mkdir(parents=True)
    assert main([*argv[:-1], str(target)]) == 2
    assert "is a folder: name a file in it" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["score", "curves", "thresholds"])
def test_an_output_that_is_read_is_refused_before_scoring(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str
) -> None:
    """-o naming an input replaced the predictions with their scores; -o into a scored
    folder (or glob) made the next run read the results as predictions."""
    shards = tmp_path / "shards"
    shards.mkdir()
    dump = shards / "oof.parquet"
    dump.write_bytes(DATA.read_bytes())
    options = {"curves": ["--kind", "roc"], "thresholds": [], "score": []}[command]
    (tmp_path / "link").symlink_to(shards)
    cases = {
        "is an input of this command": [str(dump), "-o", str(dump)],
        "in the folder": [str(shards), "-o", str(shards / "scores.csv")],
        "matches": [str(shards / "*.parquet"), "-o", str(shards / "scores.parquet")],
        "matches ": [str(tmp_path / "**" / "*.parquet"), "-o", str(shards / "s.parquet")],
        " matches": [str(tmp_path / "link" / "*.parquet"), "-o", str(shards / "s.parquet")],
    }
    for message, argv in cases.items():
        assert main([command, *argv, "--by", "model", *options]) == 2
        assert message.strip() in capsys.readouterr().err
        assert dump.read_bytes() == DATA.read_bytes()
        assert sorted(p.name for p in shards.iterdir()) == ["oof.parquet"]
    # Beside the folder is fine.
    assert (
        main([command, str(shards), "--by", "model", *options, "-o", str(tmp_path / "s.csv")]) == 0
    )


def test_an_output_that_is_the_input_by_a_hard_link_or_a_quoted_home_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The paths were compared resolved: a hard link of the input, or the input given as
    '~/oof.parquet' (expanded as the scans read it), was written over. And ~ of --output,
    --threshold-table and --plot was a folder named '~'."""
    monkeypatch.setenv("HOME", str(tmp_path))
    dump = tmp_path / "oof.parquet"
    dump.write_bytes(DATA.read_bytes())
    os.link(dump, tmp_path / "linked.parquet")
    for argv in (
        [str(dump), "-o", str(tmp_path / "linked.parquet")],
        ["~/oof.parquet", "-o", str(dump)],
        [str(dump), "-o", "~/oof.parquet"],
    ):
        assert main(["score", *argv, "-m", "lrap", "--by", "model,fold"]) == 2
        assert "is an input of this command" in capsys.readouterr().err
        assert dump.read_bytes() == DATA.read_bytes()
    assert main(["thresholds", "~/oof.parquet", "--by", "model", "-o", "~/t.csv"]) == 0
    assert (tmp_path / "t.csv").exists()
    argv = ["score", "~/oof.parquet", "-m", "f1", "--by", "model", "--threshold-table", "~/t.csv"]
    assert main([*argv, "--format", "csv"]) == 0, capsys.readouterr().err
    pytest.importorskip("matplotlib")
    argv = ["compare", "~/oof.parquet", "-m", "lrap", "--plot", "~/h.svg", "--quiet"]
    assert main(argv) == 0, capsys.readouterr().err
    assert (tmp_path / "h.svg").exists()
    capsys.readouterr()
    # A file named with "[" is read as itself: no pattern that -o's name would match.
    odd = tmp_path / "a[1].parquet"
    odd.write_bytes(DATA.read_bytes())
    argv = ["score", str(odd), "-m", "lrap", "--by", "model,fold"]
    assert main([*argv, "-o", str(tmp_path / "a1.parquet")]) == 0, capsys.readouterr().err


def test_text_truth_and_scores_get_hints_for_the_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The library's hints show Python; the command line's say what to fix in the file."""
    path = tmp_path / "dump.csv"
    path.write_text("id,class,score,truth\n0,a,0.9,yes\n0,b,0.1,no\n1,a,0.2,no\n1,b,0.8,yes\n")
    assert main(["score", str(path), "-m", "lrap"]) == 2
    err = capsys.readouterr().err
    assert (
        "its values are 'yes', 'no', none of them 0/1 nor true/false: write them as true/false "
        "or 1/0 in the file" in err
    )
    assert "pl.col" not in err
    path.write_text("id,class,score,truth\n0,a,0.9,1\n0,b,0.1,0\n1,a,NA,0\n1,b,0.8,1\n")
    assert main(["score", str(path), "-m", "lrap"]) == 2
    err = capsys.readouterr().err
    assert (
        "1 row holds a value that is not a number: 'NA' (first at id=1, class='a'; fix or drop "
        "those rows)" in err
    )
    assert "pl.col" not in err
    # A CSV of ';' and decimal commas: no flag reads it, as pl.scan_csv(...) would.
    path.write_text("id;class;score;truth\n1;a;0,5;true\n1;b;0,25;false\n")
    assert main(["score", str(path), "-m", "lrap"]) == 2
    err = capsys.readouterr().err
    assert err.endswith("save it with ',' between fields and '.' in numbers\n"), err


def test_a_failed_dask_chunk_is_bad_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from pl_metrics.dask import ChunkError

    def fail(args: object) -> None:
        raise ChunkError("chunk 1 of 2 (hash buckets) over a.parquet failed after 3 tries")

    monkeypatch.setattr(cli, "_run_score", fail)
    assert main(["score", str(DATA), "-m", "lrap", "--dask", "local"]) == 2
    assert capsys.readouterr().err.startswith("pl-metrics: error: chunk 1 of 2")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["score", str(DATA), "--average", "macor"], "argument --average: invalid choice"),
        (["score", str(DATA), "--averge", "macro"], "did you mean '--average'?"),
        (["score", str(DATA), "--average", "None"], "a value per class (Python's average=None),"),
        # (compare has no --per-class: score's is named)
        (["compare", str(DATA), "--average", "none"], "pass --per-class to pl-metrics score"),
        (["score", str(DATA), "--chunks", "0"], "argument --chunks: expected a positive"),
        (["score"], "the following arguments are required: PATH"),
        # A typo in an option is told before the file it left out (argparse's order).
        (["score", "--hlep"], "unrecognized arguments: --hlep; did you mean '--help'"),
        (["score", "-m", "f1", "--averge=macro"], "did you mean '--average'?"),
        (["score", "--seed", "3"], "--seed; it is an option of pl-metrics compare"),
        (
            ["compare", str(DATA), "--bootstrap", "0"],
            "expected a whole number of resamples, at least 2",
        ),
        # Another command's flag names that command, not this one's close flags (--per-class
        # to compare suggested --pred-col).
        (["compare", str(DATA), "-m", "f1", "--per-class"], "it is an option of pl-metrics score"),
        (["score", str(DATA), "-m", "f1", "--seed", "1"], "it is an option of pl-metrics compare"),
        (
            ["score", str(DATA), "-m", "f1", "--fold-col", "fold"],
            "it is an option of pl-metrics compare and pl-metrics thresholds",
        ),
    ],
)
def test_option_errors_are_one_line_too(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"pl-metrics {argv[0]}: error: ")
    assert err.count("\n") == 1
    assert message in err
    assert ("did you mean" in err) == ("did you mean" in message)


def test_an_unknown_option_before_the_command_is_the_programs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--bogus", "score", str(DATA), "-m", "lrap"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err == "pl-metrics: error: unrecognized arguments: --bogus (see pl-metrics --help)\n"


def test_a_seed_without_bootstrap_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", str(DATA), "-m", "f1", "--seed", "3"]) == 2
    assert "--seed seeds --bootstrap or --against: give one of them too" in capsys.readouterr().err


def test_compare_against_a_model_is_paired_with_each_other(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    argv = ["compare", str(DATA), "-m", "lrap,f1", "--against", "logreg", "--format", "csv"]
    assert main([*argv, "--bootstrap", "30", "--seed", "4"]) == 0
    got = pl.read_csv(capsys.readouterr().out.encode())
    others = ["knn", "forest", "naive_bayes"]  # compare's order: best LRAP first
    digits = pl.read_parquet(DATA)
    want = pl.concat(
        pl_metrics.paired(digits, metric, "logreg", other, n_resamples=30, seed=4)
        for metric in ("lrap", "f1")
        for other in others
    )
    assert_frame_equal(got, want, check_exact=False, rel_tol=1e-12, abs_tol=1e-15)
    # An option of one metric of several: each metric is given its own (lrap's --eps was
    # refused as unused).
    for option, value, metric in (("--eps", "0", "log_loss"), ("--threshold", "0.3", "f1")):
        metrics = f"lrap,{metric}"
        assert main([*argv[:2], "-m", metrics, *argv[4:], "--bootstrap", "30", option, value]) == 0
        got = pl.read_csv(capsys.readouterr().out.encode())
        options = {option[2:]: float(value)}
        want = pl.concat(
            pl_metrics.paired(digits, m, "logreg", other, n_resamples=30, **options)
            if m == metric
            else pl_metrics.paired(digits, m, "logreg", other, n_resamples=30)
            for m in ("lrap", metric)
            for other in got.filter(pl.col("metric") == "lrap")["model_b"]
        )
        assert_frame_equal(got, want, check_exact=False, rel_tol=1e-12, abs_tol=1e-15)
    # 1,000 resamples unless --bootstrap says; the plot labels each pair's row.
    plot_file = tmp_path / "against.png"
    assert (
        main(["compare", str(DATA), "-m", "lrap", "--against", "knn", "--plot", str(plot_file)])
        == 0
    )
    table = capsys.readouterr().out
    assert "forest" in table
    assert "p_value" in table
    assert plot_file.stat().st_size > 1000
    one = pl_metrics.paired(digits, "lrap", "knn", "forest")
    assert f"{one['difference'][0]:.6f}" in table


def test_compare_against_refuses_what_it_cannot_pair(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["compare", str(DATA), "-m", "lrap", "--against", "lgreg"]) == 2
    err = capsys.readouterr().err
    _one_line_error(err)
    assert (
        "no rows of model 'lgreg' (--against); did you mean 'logreg'? its models: 'forest', "
        "'knn', 'logreg'" in err
    )
    alone = tmp_path / "alone.parquet"
    pl.read_parquet(DATA).filter(pl.col("model") == "knn").write_parquet(alone)
    assert main(["compare", str(alone), "-m", "lrap", "--against", "knn"]) == 2
    assert "'knn' (--against) is its only model" in capsys.readouterr().err
    # Every model that does not pair is named at once, not only the first met
    model, ids = pl.col("model"), pl.col("id")
    some = ((model == "knn") & (ids < 5)) | ((model == "forest") & (ids < 3))
    unpaired = tmp_path / "unpaired.parquet"
    pl.read_parquet(DATA).filter(~some).write_parquet(unpaired)
    assert main(["compare", str(unpaired), "-m", "lrap,f1", "--against", "logreg"]) == 2
    err = capsys.readouterr().err
    assert "only one of 'logreg' and 'forest'; column 'id': " in err
    assert "only one of 'logreg' and 'knn'; a paired comparison needs the same ids" in err
    # --fold-col has no use there: refused, not ignored (even a column that exists)
    for fold in ("fold", "nope"):
        argv = ["compare", str(DATA), "-m", "lrap", "--against", "knn", "--fold-col", fold]
        assert main(argv) == 2
        assert f"--fold-col {fold}: --against pools the folds" in capsys.readouterr().err
    two = pl.read_parquet(DATA).filter(pl.col("model").is_in(["logreg", "knn"]))
    repeated = tmp_path / "repeated.parquet"  # each id in two folds of each model
    pl.concat([two, two.with_columns(pl.col("fold") + 5)]).write_parquet(repeated)
    assert main(["compare", str(repeated), "-m", "lrap", "--against", "logreg"]) == 2
    err = capsys.readouterr().err
    assert "--against pools the folds, so each id must be in one fold of each model" in err
    assert "pass --by" not in err  # (compare has no --by)
    unnamed = tmp_path / "unnamed.parquet"
    nulls = pl.when(pl.col("id") == 3).then(None).otherwise(pl.col("model"))
    two.with_columns(nulls.alias("model")).write_parquet(unnamed)
    assert main(["compare", str(unnamed), "-m", "lrap", "--against", "logreg"]) == 2
    assert "column 'model': 20 rows are null" in capsys.readouterr().err
    numbered = tmp_path / "numbered.parquet"
    codes = {"knn": 1, "forest": 2, "logreg": 3, "naive_bayes": 4}
    pl.read_parquet(DATA).with_columns(pl.col("model").replace_strict(codes)).write_parquet(
        numbered
    )
    no_folds = tmp_path / "no_folds.parquet"  # a test set's dump: nothing to pool
    pl.read_parquet(DATA).drop("fold").write_parquet(no_folds)
    argv = ["compare", str(no_folds), "-m", "log_loss", "--against", "knn", "--format", "csv"]
    assert main([*argv, "--bootstrap", "20"]) == 0
    got = pl.read_csv(capsys.readouterr().out.encode())
    assert got["model_b"].to_list() == ["logreg", "forest", "naive_bayes"]  # lowest loss first
    assert got["difference"].is_sorted()
    assert main(["compare", str(numbered), "-m", "lrap", "--against", "1.5"]) == 2
    assert "--against: '1.5' is not a value of column 'model' (Int64)" in capsys.readouterr().err
    assert main(["compare", str(numbered), "-m", "lrap", "--against", "3", "--format", "csv"]) == 0
    got = pl.read_csv(capsys.readouterr().out.encode())
    assert got["model_a"].to_list() == [3, 3, 3]
    assert sorted(got["model_b"].to_list()) == [1, 2, 4]
    # A number as typed names the model whatever the column's numeric type: "3.0" of these
    # integers, "3" and "3e0" of floats (their text was compared: "3" is not "3.0").
    floats = tmp_path / "floats.parquet"
    pl.read_parquet(numbered).with_columns(pl.col("model").cast(pl.Float64)).write_parquet(floats)
    for path, typed in [(numbered, "3.0"), (floats, "3"), (floats, "3e0")]:
        argv = ["compare", str(path), "-m", "lrap", "--against", typed, "--format", "csv"]
        assert main(argv) == 0, capsys.readouterr().err
        assert pl.read_csv(capsys.readouterr().out.encode())["model_a"].to_list() == [3] * 3
    # Float32 models as typed (0.3 is no float64 of theirs), and long decimals, exactly.
    for dtype, typed, want in [
        (pl.Float32, "0.3", 0.3),
        (pl.Decimal(38, 2), "12345678901234567.89", 12345678901234567.89),
    ]:
        scaled = (pl.col("model") / 10).cast(dtype)
        if dtype == pl.Decimal(38, 2):
            scaled = pl.col("model").cast(dtype) + pl.lit(typed).cast(dtype) - 3
        path = tmp_path / "typed.parquet"
        pl.read_parquet(numbered).with_columns(model=scaled).write_parquet(path)
        argv = ["compare", str(path), "-m", "lrap", "--against", typed, "--format", "json"]
        assert main(argv) == 0, capsys.readouterr().err
        got = json.loads(capsys.readouterr().out)
        assert [float(row["model_a"]) for row in got] == pytest.approx([want] * 3, rel=1e-7)
    # The text table shows the models as typed, not to 6 decimals (0.300000).
    pl.read_parquet(numbered).with_columns(
        model=(pl.col("model") / 10).cast(pl.Float32)
    ).write_parquet(path)
    assert main(["compare", str(path), "-m", "lrap", "--against", "0.3"]) == 0
    table = capsys.readouterr().out
    assert "┆ 0.3 " in table
    assert "┆ 0.1 " in table
    assert "0.300000" not in table


def test_by_may_be_given_more_than_once(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["score", str(DATA), "-m", "lrap", "--format", "csv"]
    assert main([*argv, "--by", "model", "--by", "fold"]) == 0
    repeated = capsys.readouterr().out
    assert main([*argv, "--by", "model,fold"]) == 0
    assert repeated == capsys.readouterr().out
    assert main([*argv, "--by", "model, fold"]) == 0  # names in a list are stripped
    assert repeated == capsys.readouterr().out
    # `--by "$COLUMNS"` of an empty variable scored the whole table, pooled.
    for empty in ("", " ", ","):
        assert main([*argv, "--by", "model", "--by", empty]) == 2
        err = capsys.readouterr().err
        assert f"--by: {empty!r} names no column; leave --by out to score the whole" in err


def test_by_names_a_column_with_spaces_alone(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # " fold" alone is that column, not "fold" (whose error suggested " fold", unreachable)
    path = tmp_path / "spaced.parquet"
    pl.read_parquet(DATA).rename({"fold": " fold"}).write_parquet(path)
    argv = ["-m", "lrap", "--format", "csv", "--by", "model", "--by", " fold"]
    assert main(["score", str(path), *argv]) == 0
    assert capsys.readouterr().out.startswith("model, fold,lrap\nforest,0,")
    assert main(["score", str(DATA), *argv]) == 2
    assert "column ' fold' (--by) is not in the table" in capsys.readouterr().err


def test_the_thresholds_table_prints_every_digit(capsys: pytest.CaptureFixture[str]) -> None:
    """A threshold copied from the printed table is the one tuned (0.000000 was 1.1e-8)."""
    assert main(["thresholds", str(DATA), "--by", "model", "-q"]) == 0
    printed = capsys.readouterr().out
    best = pl_metrics.best_threshold(pl.read_parquet(DATA), "f1", by="model")
    cells = [c.strip() for line in printed.splitlines() for c in line.split("┆")]
    shown = {float(c) for c in cells if c.replace(".", "", 1).replace("e-", "", 1).isdigit()}
    assert set(best["threshold"]) <= shown


def test_mistakes_of_command_line_users(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `thresholds > t.csv` writes the terminal's table, which then failed as a table
    # without a 'threshold' column whose column was named by its box drawing.
    printed = tmp_path / "t.csv"
    assert main(["thresholds", str(DATA), "--by", "model", "-o", str(tmp_path / "t.txt")]) == 0
    printed.write_bytes((tmp_path / "t.txt").read_bytes())
    assert (
        main(["score", str(DATA), "-m", "f1", "--by", "model", "--threshold-table", str(printed)])
        == 2
    )
    assert "holds a table printed for the terminal" in capsys.readouterr().err
    # polars' own print of a frame (its shape first) too: 4 bytes were read of "shape".
    printed.write_text(f"shape: (4, 3)\n{(tmp_path / 't.txt').read_text()}")
    assert (
        main(["score", str(DATA), "-m", "f1", "--by", "model", "--threshold-table", str(printed)])
        == 2
    )
    assert "holds a table printed for the terminal" in capsys.readouterr().err
    # A table whose first column is named "shape" is no printed frame.
    shaped = tmp_path / "shaped.parquet"
    pl.read_parquet(DATA).rename({"model": "shape"}).write_parquet(shaped)
    table = tmp_path / "shape.csv"
    assert main(["thresholds", str(shaped), "--by", "shape", "-o", str(table)]) == 0
    argv = ["score", str(shaped), "-m", "f1", "--by", "shape", "--threshold-table", str(table)]
    assert main(argv) == 0
    capsys.readouterr()
    # A pipe (`--threshold-table <(...)`) is read as its file is; as data, it is refused.
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    thresholds = tmp_path / "thresholds.csv"
    assert main(["thresholds", str(DATA), "--by", "model", "-o", str(thresholds)]) == 0
    writer = threading.Thread(  # (a daemon: a run that never opens the pipe hangs nothing)
        target=lambda: pipe.write_bytes(thresholds.read_bytes()), daemon=True
    )
    writer.start()
    argv = ["score", str(DATA), "-m", "f1", "--by", "model", "--format", "csv"]
    assert main([*argv, "--threshold-table", str(pipe)]) == 0
    writer.join(timeout=30)
    piped = capsys.readouterr().out
    assert main([*argv, "--threshold-table", str(thresholds)]) == 0
    assert capsys.readouterr().out == piped
    # "-": the thresholds from standard input, as CSV (`thresholds -o - --format csv |`).
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(thresholds.read_bytes())))
    assert main([*argv, "--threshold-table", "-"]) == 0
    assert capsys.readouterr().out == piped
    # ... and as parquet or JSON (indented too), gzipped or not, by their bytes (parquet was
    # "invalid utf-8 sequence"; JSON, gzipped or indented, was read as CSV).
    for name in ("t.parquet", "t.json", "t.json.gz", "t.csv.gz"):
        written = tmp_path / name
        assert main(["thresholds", str(DATA), "--by", "model", "-o", str(written)]) == 0
        for given in (written, "-"):
            monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(written.read_bytes())))
            assert main([*argv, "--threshold-table", str(given)]) == 0
            assert capsys.readouterr().out == piped
    indented = json.dumps(json.loads((tmp_path / "t.json").read_text()), indent=2)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(indented.encode())))
    assert main([*argv, "--threshold-table", "-"]) == 0
    assert capsys.readouterr().out == piped
    for source in (str(pipe), "-"):
        assert main(["score", source, "-m", "lrap"]) == 2
        assert f"{source!r} is no regular file (a pipe or standard input, say): save the" in (
            capsys.readouterr().err
        )
    with pytest.raises(SystemExit):  # (argparse's own error)
        main(["compare", str(DATA), "-m", "lrap", "--bootstrap", "1e3"])
    assert "expected a whole number of resamples, at least 2, got '1e3'" in capsys.readouterr().err
    # --dask without the extra was reported as a bug in pl-metrics (status 1).
    monkeypatch.setitem(sys.modules, "dask.distributed", None)
    assert main(["score", str(DATA), "-m", "lrap", "--by", "model", "--dask", "local"]) == 2
    assert 'pip install "pl_metrics[dask]"' in capsys.readouterr().err


def test_a_wide_table_prints_whole_names(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Past 200 characters polars cut the headers over two lines ("log_loss_low" / "er"),
    and text past 32 characters to an ellipsis."""
    long_name = "resnet50_" + "x" * 60
    named = tmp_path / "named.parquet"
    pl.read_parquet(DATA).filter(model="knn").with_columns(model=pl.lit(long_name)).write_parquet(
        named
    )
    assert main(["score", str(named), "-m", "lrap", "--by", "model", "-q"]) == 0
    assert long_name in capsys.readouterr().out
    argv = ["compare", str(DATA), "-m", "lrap,log_loss,f1", "--bootstrap", "5", "-q"]
    assert main(argv) == 0
    header = capsys.readouterr().out.splitlines()[1]
    names = [cell.strip() for cell in header.strip("│").split("┆")]
    lrap = [f"lrap{side}" for side in ("", "_lower", "_upper", "_mean", "_std")]
    assert names[:8] == ["model", *lrap, "log_loss", "log_loss_lower"]


def test_the_printed_table_keeps_its_layout_whatever_the_display_settings(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # POLARS_FMT_TABLE_HIDE_COLUMN_NAMES hid the header (which number is which?), and a
    # caller's decimal comma printed 0,41 in the table read as the others.
    assert main(["score", str(DATA), "-m", "lrap,f1", "--by", "model", "-q"]) == 0
    plain = capsys.readouterr().out
    monkeypatch.setenv("POLARS_FMT_TABLE_HIDE_COLUMN_NAMES", "1")
    monkeypatch.setenv("POLARS_FMT_TABLE_CELL_ALIGNMENT", "RIGHT")
    with pl.Config(decimal_separator=",", thousands_separator=True, fmt_float="full"):
        assert main(["score", str(DATA), "-m", "lrap,f1", "--by", "model", "-q"]) == 0
        assert capsys.readouterr().out == plain
        assert main(["score", str(DATA), "-m", "confusion", "--by", "model", "-q"]) == 0
        counts = capsys.readouterr().out
    assert "lrap" in plain
    assert main(["score", str(DATA), "-m", "confusion", "--by", "model", "-q"]) == 0
    assert capsys.readouterr().out == counts  # (1,619 for 1619 was printed)


@pytest.mark.parametrize(
    ("env", "config"),
    [
        ({}, {"decimal_separator": ","}),
        ({}, {"thousands_separator": True}),
        ({"POLARS_FMT_TABLE_CELL_NUMERIC_ALIGNMENT": "RIGHT"}, {}),
    ],
)
def test_each_display_setting_alone_leaves_the_table(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    env: dict[str, str],
    config: dict[str, Any],
) -> None:
    # (together, polars printed "." for a decimal comma beside a thousands separator)
    argvs = [["score", str(DATA), "-m", m, "--by", "model", "-q"] for m in ("lrap,f1", "confusion")]
    plain = []
    for argv in argvs:
        assert main(argv) == 0
        plain.append(capsys.readouterr().out)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pl.Config(**config):
        for argv, want in zip(argvs, plain, strict=True):
            assert main(argv) == 0
            assert capsys.readouterr().out == want


def test_curves_help_says_the_plot_is_whole(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["curves", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "(--plot draws the whole curve, so its AUC and AP are exact)" in out


@pytest.mark.parametrize("value", ["no", " 0 ", "NO"])
def test_more_spellings_leave_the_kernel_on(value: str) -> None:
    script = "from pl_metrics import _kernel; print(_kernel.TURNED_OFF)"
    env = {**os.environ, "PL_METRICS_NO_KERNEL": value}
    run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert run.stdout.strip() == "False", run.stderr


def test_an_output_of_a_dash_is_stdout(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert (
        main(["score", str(DATA), "-m", "lrap", "--by", "model", "-o", "-", "--format", "csv"]) == 0
    )
    assert capsys.readouterr().out.startswith("model,lrap\nforest,")
    assert not (tmp_path / "-").exists()
    assert main(["score", str(DATA), "-m", "lrap", "-o", "-", "--format", "parquet"]) == 2
    assert "--format parquet is written to a file: -o FILE, not -o -" in capsys.readouterr().err


def test_a_threshold_past_every_score_is_warned_of(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """--threshold 50 (meant 0.5) scores a constant prediction: F1 of 0 is the threshold's."""
    for threshold, said in (("50", "above every score"), ("0", "at or below every score")):
        assert (
            main(["score", str(DATA), "-m", "f1", "--by", "model", "--threshold", threshold]) == 0
        )
        err = capsys.readouterr().err
        assert err.startswith(f"pl-metrics: warning: --threshold {threshold} is {said}"), err
        assert "(scores from 0.0 to 1.0)" in err
    assert main(["compare", str(DATA), "-m", "f1,lrap", "--threshold", "2"]) == 0
    assert "--threshold 2 is above every score" in capsys.readouterr().err
    for argv in (["--threshold", "0.3"], []):
        assert main(["score", str(DATA), "-m", "f1", "--by", "model", *argv]) == 0
        assert capsys.readouterr().err == ""
    # --quiet drops notes, not a warning that the numbers are of a threshold's making
    assert main(["score", str(DATA), "-m", "f1", "--by", "model", "--threshold", "50", "-q"]) == 0
    assert "--threshold 50 is above every score" in capsys.readouterr().err
    # A threshold table: warned of where every threshold is past the scores.
    table, path = pl.DataFrame({"class": [str(c) for c in range(10)]}), tmp_path / "t.csv"
    table_argv = ["score", str(DATA), "-m", "f1", "--by", "model", "--threshold-table", str(path)]
    for thresholds, warned in (([50.0] * 10, True), ([0.5, 50.0] * 5, False)):
        table.with_columns(threshold=pl.Series(thresholds)).write_csv(path)
        assert main(table_argv) == 0
        said = "every threshold of --threshold-table is above every score"
        assert (said in capsys.readouterr().err) == warned
    # An integer threshold is shown as typed: 9007199254740997, not 9.0072e+15.
    assert (
        main(["score", str(DATA), "-m", "f1", "--by", "model", "--threshold", "9007199254740997"])
        == 0
    )
    assert "--threshold 9007199254740997 is above" in capsys.readouterr().err
    # threshold_sweep's --thresholds too: a sweep of 50 and 60 (meant percent) is all zeros.
    sweep_argv = ["score", str(DATA), "-m", "threshold_sweep", "--by", "model", "-o", "-"]
    for thresholds, warned in (("50,60", True), ("0.5,60", False)):
        assert main([*sweep_argv, "--thresholds", thresholds, "--format", "csv"]) == 0
        said = "every threshold of --thresholds is above every score"
        assert (said in capsys.readouterr().err) == warned


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_bytes_and_durations_as_groups_are_written_as_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fmt: str
) -> None:
    # JSON's writer panicked on bytes (a Rust backtrace, then "internal error"); CSV's
    # refused bytes and durations.
    digits = pl.read_parquet(DATA).with_columns(
        pl.col("model").cast(pl.Binary).alias("raw"),
        pl.duration(seconds=pl.col("fold")).alias("lag"),
    )
    path = tmp_path / "typed.parquet"
    digits.write_parquet(path)
    assert main(["score", str(path), "-m", "f1", "--by", "raw,lag", "--format", fmt, "-q"]) == 0
    out = capsys.readouterr().out.encode()
    got = pl.read_csv(out) if fmt == "csv" else pl.read_json(out)
    assert got.height == 20
    assert got["raw"][0] == b"forest".hex()
    assert got["lag"][1] == "PT1S"
    want = pl_metrics.f1(digits, by=["raw", "lag"])
    np.testing.assert_allclose(got["f1"], want["f1"], rtol=1e-12)
    # Bytes in a struct: refused by name (polars' JSON writer panics on them).
    digits.with_columns(pl.struct("raw").alias("packed")).write_parquet(path)
    assert main(["score", str(path), "-m", "f1", "--by", "packed", "--format", fmt]) == 2
    err = capsys.readouterr().err
    assert f"column 'packed' holds bytes in a Struct({{'raw': Binary}}), which {fmt}" in err


def test_score_scans_the_files_again_only_for_a_threshold_warning(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every score command read every file's schema a second time, for a warning of
    # thresholds that only --threshold or --threshold-table can give.
    scans: list[object] = []
    real = cli.scan_files
    monkeypatch.setattr(cli, "scan_files", lambda *a, **k: scans.append(a) or real(*a, **k))
    argv = ["score", str(DATA), "-m", "f1", "--by", "model,fold"]
    assert main(argv) == 0
    assert scans == []
    assert main([*argv, "--threshold", "0.3"]) == 0
    assert len(scans) == 1
    capsys.readouterr()


def test_odd_but_plain_command_lines_get_plain_answers(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """An empty path scanned the working folder, an empty output file was 'a folder', an
    empty table had 'no rows of model', a boolean model could not be named, and Python's
    code was the advice for a Decimal column and for a 'nan' threshold read as text."""
    digits = pl.read_parquet(DATA).filter(pl.col("fold") == 0)
    cases = [
        (["score", "", "-m", "lrap"], "an empty path: give a file, folder or glob"),
        (["score", str(DATA), "-m", "lrap", "-o", ""], "--output '': name a file"),
    ]
    empty = tmp_path / "empty.parquet"
    digits.clear().write_parquet(empty)
    cases.append((["compare", str(empty), "-m", "lrap", "--against", "a"], "the table is empty"))
    decimal = tmp_path / "decimal.parquet"
    digits.with_columns(w=pl.lit(1).cast(pl.Decimal(5, 2))).write_parquet(decimal)
    cases.append(
        (
            ["score", str(decimal), "-m", "lrap", "--by", "model", "--weight-col", "w"],
            "not Decimal(precision=5, scale=2); write them as floats (Float64) first",
        )
    )
    table = tmp_path / "t.csv"
    table.write_text(
        "class,threshold\n" + "".join(f"{c},{0.4 if c else 'nan'}\n" for c in range(10))
    )
    argv = ["score", str(DATA), "-m", "f1", "--by", "model,fold", "--threshold-table", str(table)]
    cases.append((argv, "--threshold-table: 1 threshold of the table is null, NaN or infinite"))
    for argv, said in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("pl-metrics: error: "), err
        assert said in err, (argv, err)
        assert "pl.col" not in err
    flags = tmp_path / "flags.parquet"
    two = digits.filter(pl.col("model").is_in(["knn", "logreg"]))
    two.with_columns(model=pl.col("model") == "knn").write_parquet(flags)
    argv = ["compare", str(flags), "-m", "lrap", "--against", "TRUE", "--bootstrap", "5"]
    assert main([*argv, "--format", "csv"]) == 0
    got = pl.read_csv(io.StringIO(capsys.readouterr().out))
    assert got.select("model_a", "model_b").row(0) == (True, False)


def test_compare_bootstrap_takes_a_model_column_named_value(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # bootstrap's working column of that name is internal: the command refused it still.
    renamed = tmp_path / "value.parquet"
    pl.read_parquet(DATA).rename({"model": "value"}).write_parquet(renamed)
    argv = ["compare", str(renamed), "-m", "lrap", "--model-col", "value", "--bootstrap", "20"]
    assert main([*argv, "--format", "csv"]) == 0
    got = pl.read_csv(capsys.readouterr().out.encode())
    assert got.columns[:2] == ["value", "lrap"]
    assert "lrap_lower" in got.columns


def test_per_class_beside_tables_of_rows_per_class_only_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A flag typed and used by no metric: README says it is refused (it was ignored).
    assert main(["score", str(DATA), "-m", "roc_curve", "--by", "model", "--per-class"]) == 2
    err = capsys.readouterr().err
    assert "--per-class is not used by roc_curve: it gives a row per class already" in err
    argv = ["score", str(DATA), "-m", "f1,confusion", "--by", "model", "--per-class"]
    assert main([*argv, "--format", "csv"]) == 0
    assert "class" in pl.read_csv(capsys.readouterr().out.encode()).columns


def test_messages_on_the_command_line_show_no_python(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    digits = pl.read_parquet(DATA)
    (tmp_path / "model=a").mkdir()
    digits.filter(model="knn").write_parquet(tmp_path / "model=a" / "part.parquet")
    table = tmp_path / "t.parquet"
    pl.DataFrame({"class": [str(c) for c in range(10)], "threshold": ["0.5"] * 10}).write_parquet(
        table
    )
    runs = {
        "to score a file without them, copy it out of those folders": [
            "score", str(tmp_path / "model=a"), "-m", "lrap"
        ],
        "(numbers as text: write them as numbers)": [
            "score", str(DATA), "-m", "f1", "--by", "model,fold", "--threshold-table", str(table)
        ],
        "a per-class report cannot include lrap: it has no per-class values": [
            "score", str(DATA), "-m", "lrap,f1", "--by", "model", "--per-class"
        ],
    }  # fmt: skip
    for told, argv in runs.items():
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert told in err, err
        assert "pl.col" not in err
        assert "LazyFrame" not in err
        assert "['" not in err


def test_column_hints_quote_names_for_the_shell(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """pass --score-col my score split in two in a shell; a quote in the name showed Python."""
    for name, quoted in (("my score", "'my score'"), ("it's score", "'it'\"'\"'s score'")):
        path = tmp_path / "renamed.parquet"
        pl.read_parquet(DATA).rename({"score": name}).write_parquet(path)
        assert main(["score", str(path), "-m", "lrap", "--by", "model,fold"]) == 2
        assert capsys.readouterr().err.endswith(f"? pass --score-col {quoted}\n")


def test_per_id_refusals_name_the_flag(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(DATA), "-m", "lrap,brier_score", "--by", "model", "--per-id"]) == 2
    assert capsys.readouterr().err == (
        "pl-metrics: error: --per-id: brier_score has no per-id values; "
        "score it apart, without --per-id\n"
    )


def test_float32_scores_reached_by_the_threshold_are_not_warned_of(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """0.7 reaches a Float32 0.7 (the metrics compare in the scores' type): the warning
    that every prediction was negative was false, and showed 0.699999988079071."""
    path = tmp_path / "f32.parquet"
    pl.DataFrame(
        {"id": [1, 1, 2, 2], "class": ["a", "b"] * 2, "score": [0.7, 0.2, 0.1, 0.7]},
        schema_overrides={"score": pl.Float32},
    ).with_columns(truth=pl.Series([True, False, False, True])).write_parquet(path)
    for argv in (
        ["-m", "f1", "--threshold", "0.7"],
        ["-m", "threshold_sweep", "--thresholds", "0.7"],
    ):
        assert main(["score", str(path), *argv]) == 0
        assert capsys.readouterr().err == ""
    assert main(["score", str(path), "-m", "f1", "--threshold", "1e39"]) == 0  # inf in Float32
    assert capsys.readouterr().err.startswith("pl-metrics: warning: --threshold 1e+39 is above")
    assert main(["score", str(path), "-m", "f1", "--threshold", "0.70001"]) == 0
    assert capsys.readouterr().err == (
        "pl-metrics: warning: --threshold 0.70001 is above every score: every prediction is "
        "negative (scores from 0.1 to 0.7)\n"
    )


def test_negative_thresholds_are_values_not_options(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Logit scores: argparse took "-1e-3" and "-2,-1,0" for options ("expected one
    argument"), and only "-0.5" (one plain number) for a value."""
    logits = pl.read_parquet(DATA).with_columns(score=(pl.col("score") + 1e-9).log() - 0.01)
    path = tmp_path / "logits.parquet"
    logits.write_parquet(path)
    argv = ["score", str(path), "-m", "f1", "--by", "model", "--format", "csv"]
    for given, value in (("-1e-3", -1e-3), ("-.5", -0.5), ("-3", -3.0)):
        assert main([*argv, "--threshold", given]) == 0
        want = pl_metrics.f1(logits, by="model", threshold=value)
        assert_frame_equal(pl.read_csv(io.StringIO(capsys.readouterr().out)), want)
    sweep = [*argv[:3], "threshold_sweep", "--by", "model", "--format", "csv"]
    assert main([*sweep, "--thresholds", "-2,-1,0"]) == 0
    got = pl.read_csv(io.StringIO(capsys.readouterr().out))
    assert got["threshold"].unique().sort().to_list() == [-2.0, -1.0, 0.0]
    with pytest.raises(SystemExit):  # an option is still no value
        main([*sweep, "--thresholds", "--", "x"])
    assert "--thresholds: expected one argument" in capsys.readouterr().err
    # Class weights of labels -1 and 1 start with a negative number too.
    signed = pl.read_parquet(DATA).with_columns(pl.col("class").cast(pl.Int64) - 1)
    signed.write_parquet(path)
    argv = ["score", str(path), "-m", "weighted_log_loss", "--by", "model", "--format", "csv"]
    weights = {c: 1.0 + (c == -1) for c in range(-1, 9)}
    given = ",".join(f"{c}={w}" for c, w in weights.items())
    want = pl_metrics.weighted_log_loss(signed, by="model", class_weights=weights)
    for option in ("--class-weights", "--class-weig"):  # (argparse takes an abbreviation)
        assert main([*argv, option, given]) == 0
        assert_frame_equal(pl.read_csv(io.StringIO(capsys.readouterr().out)), want)
    with pytest.raises(SystemExit):  # (one of three options: argparse tells so)
        main([*sweep, "--thresh", "-1"])
    assert "ambiguous option: --thresh=-1 could match" in capsys.readouterr().err


def test_groups_whose_every_class_is_skipped_are_warned_of(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """--skip-undefined that leaves out every class of a group printed NaN, unexplained."""
    path = tmp_path / "one_kind.parquet"
    pl.DataFrame(
        {
            "model": ["a"] * 4 + ["b"] * 4,
            "id": [1, 1, 2, 2] * 2,
            "class": ["x", "y"] * 4,
            "score": [0.1, 0.2, 0.3, 0.4] * 2,
            "truth": [
                True,
                False,
                True,
                False,
                True,
                False,
                False,
                True,
            ],  # (a's: one kind a class)
        }
    ).write_parquet(path)
    argv = ["score", str(path), "-m", "roc_auc,lrap", "--skip-undefined", "--by", "model"]
    assert main([*argv, "--format", "csv"]) == 0
    captured = capsys.readouterr()
    got = pl.read_csv(captured.out.encode())
    assert got["roc_auc"].is_nan().to_list() == [True, False]
    assert captured.err == (
        "pl-metrics: warning: roc_auc is NaN in 1 of 2 rows: --skip-undefined left out every "
        "class there (each lacks a positive or a negative)\n"
    )
    argv[3] = "roc_auc"  # (left-out classes are null, each on its row:)
    assert main([*argv, "--per-class"]) == 0
    assert capsys.readouterr().err == ""
    # compare's table too: a model's pooled value is NaN where every class is left out of
    # it, its mean over folds where they are in one fold.
    pl.read_parquet(path).with_columns(fold=pl.col("id")).write_parquet(path)
    argv = ["compare", str(path), "-m", "roc_auc", "--skip-undefined", "--format", "csv"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert pl.read_csv(captured.out.encode())["roc_auc"].is_nan().to_list() == [False, True]
    assert "warning: roc_auc is NaN in 1 of 2 rows: --skip-undefined left out" in captured.err
    one_fold_of_a_kind = pl.DataFrame(
        {
            "model": "a",
            "fold": [0, 0, 0, 0, 1, 1, 1, 1],
            "id": [1, 1, 2, 2, 3, 3, 4, 4],
            "class": ["x", "y"] * 4,
            "score": [0.1, 0.2, 0.3, 0.4] * 2,
            "truth": [True, False, False, True, True, False, True, False],
        }
    )
    one_fold_of_a_kind.write_parquet(path)
    assert main(argv) == 0
    captured = capsys.readouterr()
    got = pl.read_csv(captured.out.encode())
    assert not got["roc_auc"].is_nan().any()
    assert got["roc_auc_mean"].is_nan().all()
    assert "warning: roc_auc_mean is NaN in 1 of 1 rows: --skip-undefined left out every " in (
        captured.err
    )


def test_an_output_named_gz_is_written_gzipped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """-o out.csv.gz (with --format csv, as the refusal of '.gz' alone advised) wrote plain
    CSV under a .gz name."""
    argv = ["score", str(DATA), "-m", "f1", "--by", "model"]
    want = pl_metrics.f1(pl.read_parquet(DATA), by="model")
    for name, extra in (("out.csv.gz", []), ("out.CSV.GZ", []), ("out.gz", ["--format", "csv"])):
        assert main([*argv, "-o", str(tmp_path / name), *extra]) == 0
        with gzip.open(tmp_path / name) as file:
            assert_frame_equal(pl.read_csv(file.read()), want)
    assert main([*argv, "-o", str(tmp_path / "out.json.gz")]) == 0
    with gzip.open(tmp_path / "out.json.gz") as file:
        assert_frame_equal(pl.read_json(file.read()), want)
    assert main([*argv, "-o", str(tmp_path / "out.parquet.gz")]) == 2
    assert "parquet compresses itself; name the file .parquet" in capsys.readouterr().err
    assert not (tmp_path / "out.parquet.gz").exists()


def test_a_command_left_out_or_put_after_options_is_told_where_it_goes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`pl-metrics oof.parquet -m lrap` was only "invalid choice: 'oof.parquet'"."""
    cases = [
        ([str(DATA), "-m", "lrap"], f"the command comes first: pl-metrics score {DATA} ..."),
        (["--by", "model", "score", str(DATA)], "then its files and options: pl-metrics score"),
        (["scroe", str(DATA)], "did you mean 'score'?"),
    ]
    for argv, hint in cases:
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        assert exit_info.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith("pl-metrics: error: argument COMMAND: invalid choice")
        assert hint in err


def test_float_keys_are_shown_in_full_in_the_text_table(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The text table rounds floats to 6 decimals: groups of --by 1e-7 and 2e-7 were two
    rows of 0.000000, and 1.0000001 showed as 1.000000."""
    rates = {0: 1e-7, 1: 2e-7, 2: 3e-7, 3: 1e-3, 4: 1.0000001}
    tuned = pl.read_parquet(DATA).with_columns(
        lr=pl.col("fold").replace_strict(rates, return_dtype=pl.Float64)
    )
    path = tmp_path / "lr.parquet"
    tuned.write_parquet(path)
    assert main(["score", str(path), "-m", "lrap", "--by", "model,lr", "-q"]) == 0
    out = capsys.readouterr().out
    for shown in ("1e-7", "2e-7", "3e-7", "0.001", "1.0000001"):
        assert f"┆ {shown} " in out
    assert "0.000000" not in out


def test_a_plot_file_matplotlib_writes_only_with_latex_or_a_folder_is_refused_first(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--plot x.pgf passed the check, then failed after the scoring as "internal error"
    (xelatex not found); --plot of a folder was told to end in an image's extension."""
    monkeypatch.setattr("shutil.which", lambda name: None)  # (a machine without LaTeX)
    argv = ["curves", str(DATA), "--kind", "roc", "-q", "--plot"]
    assert main([*argv, str(tmp_path / "x.pgf")]) == 2
    err = capsys.readouterr().err
    assert "name a file ending in one of" in err
    assert ".pgf," not in err
    assert ".png" in err
    assert main([*argv, str(tmp_path)]) == 2
    assert "is a folder: name a file in it" in capsys.readouterr().err


def test_cut_gzip_files_are_named_and_a_metric_given_as_a_file_is_told(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A .csv.gz cut short was "unexpected end of file", naming no file (a shard of many);
    a cut threshold table an internal error (EOFError); `score oof.parquet lwlrap` was
    "file not found: 'lwlrap'"."""
    whole = gzip.compress(pl.read_parquet(DATA).write_csv().encode())
    (tmp_path / "cut.csv.gz").write_bytes(whole[:200])
    assert main(["score", str(tmp_path / "cut.csv.gz"), "-m", "lrap"]) == 2
    assert f"cannot read file {str(tmp_path / 'cut.csv.gz')!r}" in capsys.readouterr().err
    table = tmp_path / "t.csv.gz"
    assert main(["thresholds", str(DATA), "--by", "model", "-o", str(table), "-q"]) == 0
    table.write_bytes(table.read_bytes()[:300])
    argv = ["score", str(DATA), "-m", "f1", "--by", "model", "--threshold-table", str(table)]
    assert main(argv) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["score", str(DATA), "lwlrap"]) == 2
    assert "'lwlrap', which is a metric: name metrics with --metric" in capsys.readouterr().err


@pytest.mark.parametrize("encoding", ["ascii", "cp1252", "cp437"])
def test_output_in_any_encoding(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, encoding: str
) -> None:
    """A standard output in ASCII (LC_ALL=C without UTF-8 mode) or Windows' cp1252 (one
    redirected there) has no box-drawing characters: printing the table was an "internal
    error". CSV and JSON go as UTF-8, which is how they are read back."""
    digits = pl.read_parquet(DATA).with_columns(
        pl.format("Grünspecht_{}", pl.col("class")).alias("class")
    )
    digits.write_parquet(tmp_path / "birds.parquet")
    argv = ["score", str(tmp_path / "birds.parquet"), "--by", "model"]

    def run(*more: str, metric: str = "lrap") -> bytes:
        out = io.BytesIO()
        monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out, encoding=encoding))
        assert main([*argv, "-m", metric, *more]) == 0
        sys.stdout.flush()
        return out.getvalue()

    table = run().decode(encoding)
    assert table.startswith("+-")  # (cp437 has some of the boxes, not polars' ┆)
    assert "logreg" in table
    # A class its encoding has no character of is shown, replaced (Gr?nspecht in ASCII).
    shown = run("--per-class", metric="lwlrap").decode(encoding)
    assert ("Grünspecht_3" in shown) == (encoding != "ascii")
    assert "Gr?nspecht_3" in shown or encoding != "ascii"
    want = pl_metrics.lrap(digits, by="model")
    assert_frame_equal(pl.read_csv(run("--format", "csv")), want, rel_tol=1e-12)
    per_class = pl.read_csv(run("--format", "csv", "--per-class", metric="lwlrap"))
    assert "Grünspecht_3" in per_class["class"].to_list()
    # A table in a file is UTF-8, its borders boxes, whatever the locale's encoding.
    assert main([*argv, "-m", "lrap", "-o", str(tmp_path / "t.txt")]) == 0
    assert (tmp_path / "t.txt").read_text(encoding="utf-8").startswith("┌")
    # A printed table given as a threshold table is told as such, in ASCII too.
    (tmp_path / "ascii.txt").write_text(table)
    assert (
        main(["score", str(DATA), "-m", "f1", "--threshold-table", str(tmp_path / "ascii.txt")])
        == 2
    )


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs Linux's /dev/full")
def test_a_write_that_fails_names_its_output(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk printed Python's "[Errno 28] No space left on device" alone."""
    argv = ["score", str(DATA), "-m", "lrap", "--by", "model"]
    for fmt in ("csv", "table", "parquet"):
        assert main([*argv, "-o", "/dev/full", "--format", fmt]) == 2
        err = capsys.readouterr().err
        assert err.endswith("error: cannot write --output '/dev/full': No space left on device\n")

    class Full(io.StringIO):  # a standard output on a full disk
        def write(self, text: str) -> int:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(sys, "stdout", Full())
    assert main(argv) == 2
    monkeypatch.undo()
    assert "error: cannot write standard output: No space left on device" in capsys.readouterr().err

    # polars' error of a parquet file it cannot create ends with the path: cut as the rest.
    def refused(*args: object, **kwargs: object) -> None:
        raise pl.exceptions.ComputeError("IO error: Read-only file system (os error 30): o.pq")

    monkeypatch.setattr(pl.DataFrame, "write_parquet", refused)
    assert main([*argv, "-o", "o.parquet"]) == 2
    monkeypatch.undo()
    err = capsys.readouterr().err
    assert err.endswith("error: cannot write --output 'o.parquet': Read-only file system\n")


@pytest.mark.filterwarnings("default:a .*% interval of .* resamples is rough")
def test_a_warning_is_printed_once(capsys: pytest.CaptureFixture[str]) -> None:
    """--against warned of few resamples once for each other model and metric (6 lines)."""
    argv = ["compare", str(DATA), "-m", "roc_auc,lrap", "--against", "knn", "--bootstrap", "10"]
    assert main(argv) == 0
    assert capsys.readouterr().err.count("resamples is rough") == 1


def test_long_makes_the_long_table_of_wide_and_binary_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A submission (a score column per class) and a binary table (id, target, prediction)
    could not be scored without Python: pl-metrics long makes their long table."""
    from sklearn.metrics import label_ranking_average_precision_score, roc_auc_score

    rng = np.random.default_rng(3)
    names = ["aaa", "bbb", "ccc"]
    scores, truth = rng.random((30, 3)).round(1), rng.random((30, 3)) < 0.4
    truth[:, 0] |= ~truth.any(axis=1)
    ids = [f"s_{i}" for i in range(30)]
    submission, solution = tmp_path / "submission.csv", tmp_path / "solution.csv"
    pl.DataFrame({"row_id": ids, **dict(zip(names, scores.T, strict=True))}).write_csv(submission)
    wide_truth = dict(zip(names, truth.T.astype(int), strict=True))
    pl.DataFrame({"row_id": ids, **wide_truth}).write_csv(solution)
    long = tmp_path / "long.parquet"
    argv = [str(submission), "--truth", str(solution), "--id-col", "row_id", "-o", str(long)]
    assert main(["long", *argv]) == 0
    assert main(["score", str(long), "--id-col", "row_id", "-m", "lrap", "--format", "csv"]) == 0
    got = float(capsys.readouterr().out.split()[1])
    assert got == pytest.approx(label_ranking_average_precision_score(truth, scores), abs=1e-6)
    # Labels as text in a column of the scores' file ("aaa ccc").
    labels = [" ".join(n for n, t in zip(names, row, strict=True) if t) for row in truth]
    labelled = tmp_path / "labelled.csv"
    pl.read_csv(submission).with_columns(labels=pl.Series(labels)).write_csv(labelled)
    again = tmp_path / "again.parquet"
    argv = [str(labelled), "--labels-col", "labels", "--id-col", "row_id", "-o", str(again)]
    assert main(["long", *argv]) == 0
    assert_frame_equal(pl.read_parquet(again), pl.read_parquet(long), check_row_order=False)
    # A binary table: its 0/1 column is the truth of its one score column.
    binary = tmp_path / "binary.csv"
    pl.DataFrame(
        {"id": range(30), "target": truth[:, 1].astype(int), "prediction": scores[:, 1]}
    ).write_csv(binary)
    assert main(["score", str(binary), "-m", "roc_auc"]) == 2
    assert "pl-metrics long FILE --truth-col COL makes one" in capsys.readouterr().err
    out = tmp_path / "binary.parquet"
    assert main(["long", str(binary), "--truth-col", "target", "-o", str(out)]) == 0
    table = pl.read_parquet(out)
    assert table.columns == ["id", "class", "score", "truth"]
    assert pl_metrics.roc_auc(table).item() == pytest.approx(
        roc_auc_score(truth[:, 1], scores[:, 1])
    )
    # Several models' rows repeat an id's truth: taken once (refused where they disagree).
    models = pl.read_csv(binary)
    two = pl.concat([models.with_columns(model=pl.lit(m)) for m in ("a", "b")])
    two.write_csv(tmp_path / "models.csv")
    out = tmp_path / "models.parquet"
    assert (
        main(["long", str(tmp_path / "models.csv"), "--truth-col", "target", "-o", str(out)]) == 0
    )
    assert_frame_equal(
        pl_metrics.roc_auc(pl.read_parquet(out), by="model"),
        pl_metrics.roc_auc(
            two.rename({"target": "truth", "prediction": "score"}).with_columns(
                **{"class": pl.lit("prediction")}
            ),
            by="model",
        ),
    )
    flipped = two.with_columns(
        target=pl.when((pl.col("id") == 3) & (pl.col("model") == "b"))
        .then(1 - pl.col("target"))
        .otherwise("target")
    )
    flipped.write_csv(tmp_path / "flipped.csv")
    assert main(["long", str(tmp_path / "flipped.csv"), "--truth-col", "target"]) == 2
    told = "--truth-col target: 1 id has a 0 on some rows and a 1 on others, such as id=3"
    assert told in capsys.readouterr().err
    # Told: no truth, or a binary truth beside several score columns.
    assert main(["long", str(submission), "--id-col", "row_id"]) == 2
    assert "the truth: give --truth FILE" in capsys.readouterr().err
    assert main(["long", str(submission), "--id-col", "row_id", "--truth-col", "aaa"]) == 2
    assert "but it has 2 ('bbb', 'ccc'); name it with --classes" in capsys.readouterr().err
    # A wide table given to score is told of long.
    assert main(["score", str(submission), "--id-col", "row_id"]) == 2
    assert "the table looks wide" in capsys.readouterr().err


def test_long_options_are_checked_and_classes_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--classes picks a binary table's score column, spaces after its commas too; a
    --truth-col not in the table, or beside --labels-col, and an -o that is --truth's
    file, are told."""
    rng = np.random.default_rng(3)
    ids = [f"s_{i}" for i in range(10)]
    scores = {c: rng.random(10).round(2) for c in ("aaa", "bbb", "ccc")}
    submission = tmp_path / "submission.csv"
    pl.DataFrame({"row_id": ids, **scores}).write_csv(submission)
    truth = {c: (rng.random(10) < 0.5).astype(int) for c in scores}
    solution = tmp_path / "solution.csv"
    pl.DataFrame({"row_id": ids, **truth}).write_csv(solution)
    base = ["long", str(submission), "--id-col", "row_id"]
    # --classes names the one score column of a binary truth.
    binary = tmp_path / "binary.csv"
    target = truth["aaa"]
    pl.DataFrame({"row_id": ids, "target": target, **scores}).write_csv(binary)
    out = tmp_path / "one.parquet"
    binary_argv = ["long", str(binary), "--id-col", "row_id", "--truth-col", "target"]
    assert main([*binary_argv, "--classes", "bbb", "-o", str(out)]) == 0
    table = pl.read_parquet(out).sort("row_id")
    assert table["class"].unique().to_list() == ["bbb"]
    assert table["score"].to_list() == scores["bbb"].tolist()
    assert table["truth"].to_list() == target.astype(bool).tolist()
    # "bbb, ccc": the names stripped.
    both = tmp_path / "both.parquet"
    argv = [*base, "--truth", str(solution), "--classes", "bbb, ccc", "-o", str(both)]
    assert main(argv) == 0
    assert sorted(pl.read_parquet(both)["class"].unique().to_list()) == ["bbb", "ccc"]
    written = pl.read_parquet(both)
    # --separator reaches the labels' split.
    labelled = tmp_path / "labelled.csv"
    labels = [",".join(c for c in ("bbb", "ccc") if truth[c][i]) for i in range(10)]
    pl.read_csv(submission).with_columns(labels=pl.Series(labels)).write_csv(labelled)
    again = tmp_path / "again.parquet"
    argv = ["long", str(labelled), "--id-col", "row_id", "--labels-col", "labels"]
    assert main([*argv, "--separator", ",", "--classes", "bbb,ccc", "-o", str(again)]) == 0
    assert_frame_equal(pl.read_parquet(again), written, check_row_order=False)
    # A wide table given to score is told of long, not of Python's from_wide.
    assert main(["score", str(submission), "--id-col", "row_id"]) == 2
    assert "pl-metrics long makes the long table" in capsys.readouterr().err
    # Told, exit status 2.
    assert main(["long", str(binary), "--id-col", "row_id", "--truth-col", "nope"]) == 2
    err = capsys.readouterr().err
    assert "column 'nope'" in err
    assert "is not in the table" in err
    assert main([*binary_argv, "--labels-col", "bbb"]) == 2
    assert "--labels-col and --truth-col" in capsys.readouterr().err
    assert main([*base, "--truth", str(solution), "-o", str(solution)]) == 2
    assert "Traceback" not in capsys.readouterr().err
    assert pl.read_csv(solution)["aaa"].to_list() == truth["aaa"].tolist()  # (not overwritten)
    # A binary table whose scores are no floats: 0 score columns, told so.
    ints = tmp_path / "ints.csv"
    pl.DataFrame({"id": range(4), "target": [0, 1, 1, 0], "p": [1, 2, 3, 4]}).write_csv(ints)
    assert main(["long", str(ints), "--truth-col", "target"]) == 2
    assert "but it has 0 (); name it with --classes" in capsys.readouterr().err


# Tests from the mutation review of cli.py.


def test_score_passes_n_bins_to_the_calibration_metrics(tmp_path: Path) -> None:
    """score's ECE takes --n-bins (the conformance table gives one ECE for 4 and 10 bins)."""
    digits = pl.read_parquet(DATA)
    out = tmp_path / "ece.csv"
    argv = ["score", str(DATA), "-m", "expected_calibration_error", "--by", "model", "-q"]
    assert main([*argv, "--n-bins", "4", "-o", str(out)]) == 0
    want = pl_metrics.expected_calibration_error(digits, by="model", n_bins=4)
    assert_frame_equal(pl.read_csv(out), want, rel_tol=1e-12)
    default = pl_metrics.expected_calibration_error(digits, by="model")
    assert not want.equals(default)  # (the data tell 4 bins from 10)


def test_thresholds_passes_beta_to_fbeta(tmp_path: Path) -> None:
    """thresholds --metric fbeta --beta 2 tunes F2, as best_threshold(..., beta=2) does."""
    digits = pl.read_parquet(DATA)
    out = tmp_path / "t.csv"
    argv = ["thresholds", str(DATA), "--metric", "fbeta", "--beta", "2", "--by", "model"]
    assert main([*argv, "-q", "-o", str(out)]) == 0
    want = pl_metrics.best_threshold(digits, "fbeta", by="model", beta=2.0)
    got = pl.read_csv(out).with_columns(pl.col("class").cast(pl.String))
    assert_frame_equal(got, want, rel_tol=1e-12)
    assert not want.equals(pl_metrics.best_threshold(digits, "fbeta", by="model"))


def test_a_json_threshold_table_is_read_from_stdin_and_gzipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """JSON told by its first bytes on standard input (no suffix there), and a .json.gz
    file (as thresholds -o t.json.gz writes it) decompressed before it is read."""
    digits = pl.read_parquet(DATA)
    want = pl_metrics.best_threshold(digits, "f1", by="model")
    applied = pl_metrics.report(digits, ["f1"], by="model", threshold=want)
    tuned = ["thresholds", str(DATA), "--metric", "f1", "--by", "model", "-q", "-o"]
    assert main([*tuned, str(tmp_path / "t.json")]) == 0
    assert main([*tuned, str(tmp_path / "t.json.gz")]) == 0
    scored = ["score", str(DATA), "-m", "f1", "--by", "model", "-q", "-o", str(tmp_path / "s.csv")]
    data = (tmp_path / "t.json").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main([*scored, "--threshold-table", "-"]) == 0
    assert_frame_equal(pl.read_csv(tmp_path / "s.csv"), applied, rel_tol=1e-12)
    assert main([*scored, "--threshold-table", str(tmp_path / "t.json.gz")]) == 0
    assert_frame_equal(pl.read_csv(tmp_path / "s.csv"), applied, rel_tol=1e-12)


def test_compare_against_of_a_metric_named_twice_gives_its_rows_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """-m lrap,lrap is -m lrap (README: --metric adds up), not each difference twice."""
    argv = ["compare", str(DATA), "--against", "knn", "--bootstrap", "100", "--format", "csv"]
    once = pl.read_csv(io.StringIO(_stdout_of([*argv, "-m", "lrap"])))
    assert once.height == 3  # (each other model's difference from knn)
    twice = pl.read_csv(io.StringIO(_stdout_of([*argv, "-m", "lrap,lrap"])))
    assert_frame_equal(twice, once)


def test_thresholds_shows_float_classes_in_full(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The class column is a key of the thresholds' table: 1e-7 and 2e-7, not 0.000000."""
    values = [1e-7, 2e-7, *(1.0000001 + c for c in range(8))]
    names = {str(c): v for c, v in enumerate(values)}
    digits = pl.read_parquet(DATA).with_columns(
        pl.col("class").replace_strict(names, return_dtype=pl.Float64)
    )
    path = tmp_path / "float_classes.parquet"
    digits.write_parquet(path)
    assert main(["thresholds", str(path), "--metric", "f1", "--by", "model", "-q"]) == 0
    out = capsys.readouterr().out
    for shown in ("1e-7", "2e-7", "1.0000001"):
        assert f"┆ {shown} " in out or f"│ {shown} " in out
    assert "0.000000" not in out


@pytest.mark.parametrize(("value", "shown"), [(0.5, "0.5"), (None, "null")])
def test_long_names_the_truth_col_of_values_not_0_or_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, value: float | None, shown: str
) -> None:
    # (A CSV's empty cell, null, was counted and then not found: an internal error.)
    path = tmp_path / "binary.csv"
    pl.DataFrame(
        {"id": [1, 2, 3], "target": [0.0, value, 1.0], "prediction": [0.2, 0.7, 0.9]}
    ).write_csv(path)
    assert main(["long", str(path), "--truth-col", "target", "--format", "csv"]) == 2
    err = capsys.readouterr().err
    _one_line_error(err)
    assert f"--truth-col target: 1 value is neither 0 nor 1, such as {shown}\n" in err


def test_an_option_the_command_line_should_not_pass_is_an_internal_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unknown keyword from the command line is its bug (status 1), not bad input (2)."""

    def passes_an_unknown_option(*args: Any, **kwargs: Any) -> pl.DataFrame:
        return pl_metrics.report(pl.read_parquet(DATA), ["lrap"], no_such_option=1)

    monkeypatch.setattr(cli, "score", passes_an_unknown_option)
    assert main(["score", str(DATA), "-m", "lrap", "-q"]) == 1
    err = capsys.readouterr().err
    assert "internal error: UnknownOptionError" in err
    assert "a bug in pl-metrics" in err


# Tests from the second mutation review of cli.py: each flag reaches the library's call.


@pytest.mark.parametrize(
    ("metric", "flags", "options"),
    [
        ("log_loss", ["--weight-col", "w"], {"weight_col": "w"}),
        ("roc_auc", ["--max-fpr", "0.2"], {"max_fpr": 0.2}),
        ("log_loss", ["--eps", "0.05"], {"eps": 0.05}),
        ("fbeta", ["--beta", "3"], {"beta": 3.0}),
        ("expected_calibration_error", ["--strategy", "quantile"], {"strategy": "quantile"}),
        ("roc_curve", ["--max-points", "7"], {"max_points": 7}),
    ],
)
def test_score_passes_each_metric_option_to_the_library(
    tmp_path: Path, metric: str, flags: list[str], options: dict[str, Any]
) -> None:
    digits = pl.read_parquet(DATA).with_columns(w=(pl.col("id") % 3 + 1).cast(pl.Float64))
    data, out = tmp_path / "digits.parquet", tmp_path / "out.parquet"
    digits.write_parquet(data)
    argv = ["score", str(data), "-m", metric, "--by", "model", "-q", *flags, "-o", str(out)]
    assert main(argv) == 0
    want = pl_metrics.score(digits, metric, by="model", **options)
    assert_frame_equal(pl.read_parquet(out), want, rel_tol=1e-12)
    assert not want.equals(pl_metrics.score(digits, metric, by="model"))  # (the flag tells)


@pytest.mark.parametrize("command", ["curves", "thresholds"])
def test_chunks_reach_curves_and_thresholds(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    # The library refuses a budget beside a count of chunks: both must reach it.
    kind = ["--kind", "roc"] if command == "curves" else []
    argv = [command, str(DATA), *kind, "--by", "model", "--chunks", "2", "--memory-budget", "1GB"]
    assert main(argv) == 2
    assert "error: --memory-budget and --chunks: give one of them" in capsys.readouterr().err


def test_compare_passes_its_memory_budget(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", str(DATA), "-m", "lrap", "--memory-budget", "lots"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pl-metrics: error: --memory-budget")
    assert "'lots'" in err


def test_compare_bootstrap_passes_its_seed(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["compare", str(DATA), "-m", "lrap", "--bootstrap", "40", "--seed", "7"]
    assert main([*argv, "--format", "csv"]) == 0
    got = pl.read_csv(capsys.readouterr().out.encode()).sort("model")
    want = pl_metrics.bootstrap(
        pl.read_parquet(DATA), ["lrap"], by="model", n_resamples=40, confidence=0.95, seed=7
    ).sort("model")
    assert got["lrap_lower"].to_list() == pytest.approx(want["lower"].to_list(), rel=1e-12)
    assert got["lrap_upper"].to_list() == pytest.approx(want["upper"].to_list(), rel=1e-12)


def test_a_pq_output_is_parquet(tmp_path: Path) -> None:
    out = tmp_path / "out.pq"
    assert main(["score", str(DATA), "-m", "lrap", "--by", "model", "-q", "-o", str(out)]) == 0
    want = pl_metrics.score(pl.read_parquet(DATA), "lrap", by="model")
    assert_frame_equal(pl.read_parquet(out), want)


@pytest.mark.parametrize(("name", "fmt"), [("out.csv", "json"), ("out.json.gz", "csv")])
def test_a_format_that_contradicts_the_output_name_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, fmt: str
) -> None:
    out = tmp_path / name
    assert main(["score", str(DATA), "-m", "lrap", "--format", fmt, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"--format {fmt} but --output {out} is named as" in err
    assert not out.exists()


@pytest.mark.parametrize(
    ("given", "client"), [("local", None), ("tcp://sched:8786", "tcp://sched:8786")]
)
def test_dask_local_is_a_local_cluster(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    given: str,
    client: str | None,
) -> None:
    # --dask local is the library's client=None (its own local cluster), not an address.
    import pl_metrics.dask

    clients: list[object] = []

    def spy(paths: list[str], metrics: list[str], **options: Any) -> pl.DataFrame:
        clients.append(options.pop("client"))
        return pl_metrics.score(paths, metrics, **options)

    monkeypatch.setattr(pl_metrics.dask, "score", spy)
    argv = ["score", str(DATA), "-m", "lrap", "--by", "model", "--dask", given, "--format", "csv"]
    assert main(argv) == 0
    assert clients == [client]
    got = pl.read_csv(capsys.readouterr().out.encode())
    assert_frame_equal(got, pl_metrics.score(pl.read_parquet(DATA), "lrap", by="model"))


def test_thresholds_passes_its_weight_col(tmp_path: Path) -> None:
    digits = pl.read_parquet(DATA).with_columns(w=(pl.col("id") % 7 + 1).cast(pl.Float64))
    data, out = tmp_path / "digits.parquet", tmp_path / "t.parquet"
    digits.write_parquet(data)
    argv = ["thresholds", str(data), "--by", "model", "--weight-col", "w", "-q", "-o", str(out)]
    assert main(argv) == 0
    want = pl_metrics.best_threshold(digits, by="model", weight_col="w")
    assert_frame_equal(pl.read_parquet(out), want, rel_tol=1e-12)
    assert not want.equals(pl_metrics.best_threshold(digits, by="model"))


def test_by_leaves_out_empty_names_between_commas(capsys: pytest.CaptureFixture[str]) -> None:
    # A trailing comma, or two (a list joined in a script), as --metric takes them.
    assert main(["score", str(DATA), "-m", "lrap", "--by", "model,,fold,", "--format", "csv"]) == 0
    got = pl.read_csv(capsys.readouterr().out.encode())
    want = pl_metrics.score(pl.read_parquet(DATA), "lrap", by=["model", "fold"])
    assert_frame_equal(got, want, check_dtypes=False)


def test_format_parquet_on_standard_output_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(DATA), "-m", "lrap", "--format", "parquet"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "error: --format parquet needs --output FILE" in captured.err


@pytest.mark.parametrize("command", ["score", "compare"])
def test_an_empty_threshold_table_is_refused_not_the_default(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    # `--threshold-table "$T"` with T unset scored at 0.5, exit status 0.
    assert main([command, str(DATA), "-m", "f1", "--threshold-table", ""]) == 2
    assert "error: --threshold-table '': name a file" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("classes", "labels"),
    [(["bird", "frog"], ["bird", "frog bird"]), (["0", "1"], ["0", "1"])],
)
def test_long_reads_an_empty_labels_field_as_no_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], classes: list[str], labels: list[str]
) -> None:
    # pandas (and most CSV writers) write an id without labels as an empty field, which
    # polars reads as null: refused, with a remedy for Python (`fill_null('')`) that a
    # command line cannot apply. Read as no labels; also where whole-number labels (one per
    # labelled id) are read as integers (the review).
    scores = tmp_path / "sub.csv"
    scores.write_text(f"row id,{','.join(classes)}\n1,0.9,0.1\n2,0.2,0.8\n3,0.5,0.5\n")
    truth = tmp_path / "truth.csv"
    truth.write_text(f"row id,labels\n1,{labels[0]}\n2,{labels[1]}\n3,\n")  # as pandas writes ""
    out = tmp_path / "long.parquet"
    argv = [str(scores), "--truth", str(truth), "--labels-col", "labels", "--id-col", "row id"]
    code = main(["long", *argv, "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 0, err
    got = pl.read_parquet(out).sort("row id", "class")
    assert got.filter(pl.col("row id") == 3).height == 2
    want = [True, False] + [label in labels[1].split() for label in classes] + [False, False]
    assert got["truth"].to_list() == want


def _long_argv(tmp_path: Path, scores: str, truth: str, *flags: str) -> list[str]:
    """`pl-metrics long` of a submission and a solution (or labels) written as CSV files."""
    submission, solution = tmp_path / "sub.csv", tmp_path / "sol.csv"
    submission.write_text(scores)
    solution.write_text(truth)
    return ["long", str(submission), "--truth", str(solution), *flags]


def test_long_wide_truth_not_0_or_1_names_the_value_not_a_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A solution cell of 2 was reported as "(column 'b': 1)": the count reads as the
    # value 1, which is allowed; --truth-col's message names the value ("such as 2").
    scores = "id,a,b\n1,0.1,0.9\n2,0.8,0.3\n3,0.6,0.4\n"
    truth = "id,a,b\n1,0,2\n2,1,0\n3,1,1\n"
    assert main(_long_argv(tmp_path, scores, truth, "--format", "csv")) == 2
    err = capsys.readouterr().err
    _one_line_error(err)
    assert "truth: 1 value is neither 0 nor 1 (column 'b': 1, e.g. id=1: 2)\n" in err, err


def test_long_utf16_submission_is_told_to_be_saved_as_utf8(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Excel's "Unicode" CSV is UTF-16: the error suggested `--id-col '\ufffd\ufffdr o w _ i d '`.
    scores, truth = tmp_path / "sub.csv", tmp_path / "sol.csv"
    scores.write_bytes("row_id,a,b\nr1,0.1,0.9\nr2,0.8,0.3\n".encode("utf-16"))
    truth.write_text("row_id,a,b\nr1,0,1\nr2,1,0\n")
    argv = [str(scores), "--truth", str(truth), "--id-col", "row_id", "--format", "csv"]
    assert main(["long", *argv]) == 2
    err = capsys.readouterr().err
    _one_line_error(err)
    assert "UTF-8" in err, err
    assert "did you mean" not in err
    # Lines ending in a CR alone (an old Mac file) were one line: told as names given twice.
    scores.write_bytes(b"row_id,a,b\rr1,0.1,0.9\rr2,0.8,0.3\r")
    assert main(["long", *argv]) == 2
    assert "its lines end in a carriage return alone" in capsys.readouterr().err


def test_long_warning_names_the_command_line_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The command line's warning told of Python's `classes=[...]`, not `--classes`.
    scores = "row_id,a,b\nr1,0,0.5\nr2,0,0.25\nr3,0,0.75\n"
    labels = "row_id,labels\nr1,b\nr2,b\nr3,b\n"
    flags = ["--labels-col", "labels", "--id-col", "row_id", "--format", "csv"]
    assert main(_long_argv(tmp_path, scores, labels, *flags)) == 0
    err = capsys.readouterr().err
    assert "classes=[" not in err, err
    assert "--classes" in err, err
    assert err.startswith("pl-metrics: warning: long: integer columns"), err  # not from_wide


def test_long_keeps_the_solutions_usage_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Kaggle solutions hold a Usage column (Public/Private); `long --help` said other
    # columns are kept, but the truth table's were dropped silently: `--by Usage` failed.
    scores = "row_id,a,b\nr1,0.1,0.9\nr2,0.8,0.3\nr3,0.6,0.4\nr4,0.2,0.7\n"
    truth = "row_id,a,b,Usage\nr1,0,1,Public\nr2,1,0,Private\nr3,1,1,Public\nr4,0,1,Private\n"
    assert main(_long_argv(tmp_path, scores, truth, "--id-col", "row_id", "--format", "csv")) == 0
    got = pl.read_csv(io.StringIO(capsys.readouterr().out))
    assert got.columns == ["row_id", "class", "score", "truth", "Usage"]
    assert got.group_by("Usage").agg(pl.col("row_id").unique().sort()).sort("Usage").rows() == [
        ("Private", ["r2", "r4"]),
        ("Public", ["r1", "r3"]),
    ]
    # A column of both files is kept once where it agrees; one that disagrees, or is named
    # as a column the long table makes, was dropped in silence: refused.
    scores = "row_id,a,b,fold\nr1,0.1,0.9,1\nr2,0.8,0.3,2\nr3,0.5,0.5,2\n"
    for truth, status, said in (
        ("row_id,a,b,fold\nr1,0,1,1\nr2,1,0,2\nr3,1,1,2\n", 0, ""),
        ("row_id,a,b,fold\nr1,0,1,1.0\nr2,1,0,2.0\nr3,1,1,\n", 0, ""),  # (pandas' floats)
        ("row_id,a,b,fold\nr1,0,1,1\nr2,1,0,3\nr3,1,1,2\n", 2, "column 'fold' is in the sco"),
        ("row_id,a,b,score\nr1,0,1,x\nr2,1,0,y\nr3,1,1,z\n", 2, "its column 'score' is nam"),
    ):
        argv = _long_argv(tmp_path, scores, truth, "--id-col", "row_id", "--format", "csv")
        assert main(argv) == status
        out, err = capsys.readouterr()
        assert said in err
        if not status:
            columns = ["row_id", "fold", "class", "score", "truth"]
            assert pl.read_csv(io.StringIO(out)).columns == columns
    # A float column of both files beside --classes is still compared (only 0/1 truth is a
    # class left out); a null in the scores takes the truth file's value.
    scores = "row_id,a,b,c,fold\nr1,0.1,0.9,0.3,1.5\nr2,0.8,0.3,0.6,\n"
    truth = "row_id,a,b,c,fold\nr1,0,1,1,1.5\nr2,1,0,0,3.5\n"
    argv = _long_argv(tmp_path, scores, truth, "--id-col", "row_id", "--format", "csv")
    assert main([*argv, "--classes", "a,b"]) == 0
    got = pl.read_csv(io.StringIO(capsys.readouterr().out))
    assert got.columns == ["row_id", "c", "fold", "class", "score", "truth"]
    assert got["fold"].to_list() == [1.5, 1.5, 3.5, 3.5]
    # (An integer column's null takes the truth's 2.5 whole, in their common type.)
    ints, floats = scores.replace("1.5", "1"), truth.replace("1.5", "1").replace("3.5", "2.5")
    whole = _long_argv(tmp_path, ints, floats, *argv[4:])
    assert main(whole) == 0
    assert pl.read_csv(io.StringIO(capsys.readouterr().out))["fold"].to_list() == [
        1,
        1,
        1,
        2.5,
        2.5,
        2.5,
    ]
    other = truth.replace("1.5\n", "2.5\n")
    assert main([*_long_argv(tmp_path, scores, other, *argv[4:]), "--classes", "a,b"]) == 2
    assert "(row_id='r1': 1.5 and 2.5)" in capsys.readouterr().err


def test_long_tells_the_id_columns_apart_as_a_command_line_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A solution's id column named otherwise ("id" beside "row_id") was "columns ['row_id']
    # of the scores are not in the table"; ids 1 in one file and 1.0 in the other were told
    # to be cast, which a command line cannot do.
    scores, truth = "row_id,a,b\n1,0.1,0.9\n2,0.8,0.3\n", "id,a,b\n1,0,1\n2,1,0\n"
    argv = _long_argv(tmp_path, scores, truth, "--id-col", "row_id")
    assert main(argv) == 2
    assert (
        "error: truth: column 'row_id' (--id-col), the scores' ids, is not in the table (its one "
        "other column is 'id'): name the id column alike in both tables\n"
    ) in capsys.readouterr().err
    (tmp_path / "sol.csv").write_text("row_id,a,b\n1.0,0,1\n2.0,1,0\n")
    assert main(argv) == 2
    assert (
        "error: column 'row_id' (--id-col): the scores' ids are Int64 and the truth table's "
        "Float64; write the ids alike in both files\n"
    ) in capsys.readouterr().err
    # One id of no number types the column as text: that id is named.
    (tmp_path / "sol.csv").write_text("row_id,a,b\n1,0,1\nb2,1,0\n")
    assert main(argv) == 2
    assert "ids are Int64 and the truth table's String (the truth table's ids hold 'b2', no" in (
        capsys.readouterr().err
    )
    # Or a space around a number.
    (tmp_path / "sol.csv").write_text("row_id,a,b\n1,0,1\n 2,1,0\n")
    assert main(argv) == 2
    assert "(the truth table's ids hold spaces around them: ' 2')" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("truth_text", "flags", "told", "b_truth"),
    [
        ("row_id,a,b,c\n1,1,0,0\n2,0,1,1\n", [], "error: truth: columns of 0/1", True),
        ("row_id,labels\n1,a\n2,b c\n", ["--labels-col", "labels"], "error: column", True),
        ("row_id,labels\n1,a\n2,c\n", ["--labels-col", "labels"], "warning: ", False),
        # (two such columns: the library says "cast them", told alike; c scored 0 only)
        ("row_id,labels\n1,a\n2,b c\n", ["--labels-col", "labels"], "columns", True),
    ],
)
def test_long_integer_class_columns_are_told_to_name_the_classes_not_cast_them(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    truth_text: str,
    flags: list[str],
    told: str,
    b_truth: bool,
) -> None:
    # A CSV writes a class scored 0 and 1 only as integers: the library's hint, "cast their
    # scores to float", is Python; on the command line --classes takes them as classes.
    two = told == "columns"
    scores = f"row_id,a,b,c\n1,0.5,0,{0 if two else 0.2}\n2,0.1,1,{0 if two else 0.9}\n"
    argv = _long_argv(tmp_path, scores, truth_text, *flags, "--id-col", "row_id", "--format", "csv")
    main(argv)
    err = capsys.readouterr().err
    assert told in err, err
    assert "--classes A,B,..." in err, err
    assert "cast" not in err, err
    assert "classes=" not in err, err
    assert main([*argv, "--classes", "a,b,c"]) == 0
    got = pl.read_csv(capsys.readouterr().out.encode())
    assert got.filter(pl.col("class") == "b")["truth"].to_list() == [False, b_truth]


def test_compare_names_the_first_row_of_a_text_cell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # (kills: the CLI's compare counting text without the keys)
    path = tmp_path / "s.csv"
    path.write_text(
        "model,fold,id,class,score,truth\nm,0,0,a,0.9,1\nm,0,0,b,0.1,0\nm,0,1,a,NA,0\n"
        "m,0,1,b,0.8,1\nn,0,0,a,0.9,1\nn,0,0,b,0.1,0\nn,0,1,a,0.2,0\nn,0,1,b,0.8,1\n"
    )
    assert main(["compare", str(path), "-m", "lrap"]) == 2
    err = capsys.readouterr().err
    assert "'NA' (first at model='m', fold=0, id=1, class='a'; fix or drop those rows)" in err, err


def test_long_refuses_a_file_that_lacks_a_class_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # One model's file lacks a species: its rows were written with null scores, which the
    # metrics then told as null rows to drop or fill, not as the class the file lacks.
    for model, text in {
        "a": "row_id,grecor,tumer\nr1,0.9,0.1\n",
        "b": "row_id,tumer\nr1,0.3\n",
    }.items():
        (tmp_path / f"model={model}").mkdir()
        (tmp_path / f"model={model}" / "oof.csv").write_text(text)
    truth = tmp_path / "sol.csv"
    truth.write_text("row_id,grecor,tumer\nr1,1,0\n")
    argv = ["long", str(tmp_path / "model=*" / "oof.csv"), "--truth", str(truth)]
    assert main([*argv, "--id-col", "row_id", "-o", str(tmp_path / "long.parquet")]) == 2
    err = capsys.readouterr().err
    _one_line_error(err)
    assert "column 'grecor' is in some files of the table but not in" in err
    assert "model=b" in err
    assert "needs the id column and every class's column" in err


def test_compare_bootstrap_of_an_unweighted_metric_names_the_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The advice named report, Python's function, where the command line's is score.
    assert main(["compare", str(DATA), "-m", "lwlrap,padded_cmap", "--bootstrap", "5"]) == 2
    err = capsys.readouterr().err
    _one_line_error(err)
    assert "leave it out (and score it with pl-metrics score)" in err


def test_long_offers_the_separator_of_joined_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scores = "row_id,a_b,c-d,e\nr1,0.1,0.2,0.3\nr2,0.5,0.1,0.2\n"
    truth = 'row_id,labels\nr1,"c-d,a_b"\nr2,e\n'
    argv = _long_argv(tmp_path, scores, truth, "--labels-col", "labels", "--id-col", "row_id")
    assert main(argv) == 2
    assert "'c-d,a_b' holds class names separated by ',': pass --separator ','\n" in (
        capsys.readouterr().err
    )
    assert main([*argv, "--separator", ",", "--format", "csv"]) == 0
    assert "r1,c-d,0.2,true" in capsys.readouterr().out


def test_long_of_several_files_of_the_same_ids_offers_model_folders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = _long_argv(tmp_path, "id,a,b\n1,0.1,0.9\n", "id,a,b\n1,0,1\n")
    (tmp_path / "sub2.csv").write_text("id,a,b\n1,0.3,0.6\n")
    assert main([*argv[:2], str(tmp_path / "sub2.csv"), *argv[2:]]) == 2
    assert "if each of the 2 files is a model's, put each in a folder model=NAME/" in (
        capsys.readouterr().err
    )
    # Files in model= folders already, one repeating an id: not offered.
    for model, rows in {"x": "1,0.1,0.9\n1,0.2,0.8\n", "y": "1,0.3,0.6\n"}.items():
        (tmp_path / f"model={model}").mkdir()
        (tmp_path / f"model={model}" / "oof.csv").write_text(f"id,a,b\n{rows}")
    argv[1] = str(tmp_path / "model=*" / "oof.csv")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "needs one row per (model, id)" in err
    assert "model=NAME/" not in err


def test_long_names_the_file_whose_field_does_not_parse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A column of 0 and 1 for the rows that typed it, then 0.25: polars' message named no
    # file (the submission or the solution?) and gave no fix; score's does both.
    n = 10_100
    truth = "row_id,a,b\n" + "".join(f"{i},{i % 2},{(i // 2) % 2}\n" for i in range(n))
    scores = "row_id,a,b\n" + "".join(
        f"{i},{i % 2 if i < n - 1 else 0.25},0.{(i * 7) % 10}5\n" for i in range(n)
    )
    assert main(_long_argv(tmp_path, scores, truth, "--id-col", "row_id")) == 2
    err = capsys.readouterr().err
    _one_line_error(err)
    assert "cannot read file '" in err
    assert "sub.csv': could not parse" in err
    assert "0.25" in err
    assert "its type was guessed from the first 10,000 rows" in err


@pytest.mark.parametrize(
    ("scores", "told"),
    [
        # A text cell: the cell, not the truth file's column, is named.
        (
            "row_id,a,b\nr1,0.1,abc\nr2,0.4,0.5\n",
            "column 'b' of the scores holds text: 1 value is no number, such as 'abc' "
            "(row_id='r1'); write every score as a number",
        ),
        # Spaces after the last field: its name holds them.
        ("row_id,a,b  \nr1,0.1,0.2  \nr2,0.4,0.5  \n", "lacks: 'b' ('b': did you mean 'b  '?)"),
        # ', ' between values: every name and value holds a space.
        ("row_id, a, b\nr1, 0.1, 0.2\nr2, 0.4, 0.5\n", "columns ' a', ' b' have spaces around"),
        # Two files joined: the second header is a row, every column text.
        ("row_id,a,b\nr1,0.1,0.2\nrow_id,a,b\nr2,0.4,0.5\n", "columns 'a', 'b' hold text: a"),
        # Ids written with spaces around them.
        (
            "row_id,a,b\n r1 ,0.1,0.2\n r2 ,0.4,0.5\n",
            "(the scores' ids hold spaces around them: ' r1 ')",
        ),
        # A blank line at the end.
        (
            "row_id,a,b\nr1,0.1,0.2\nr2,0.4,0.5\n\n",
            "null in every column: read from a CSV file, a blank line",
        ),
    ],
)
def test_long_tells_what_is_wrong_with_a_submission(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], scores: str, told: str
) -> None:
    # Each was told as a class the submission lacks, a truth column to drop, or a null id,
    # with advice (--classes) that then failed.
    truth = "row_id,a,b\nr1,1,0\nr2,0,1\n"
    assert main(_long_argv(tmp_path, scores, truth, "--id-col", "row_id")) == 2
    err = capsys.readouterr().err
    _one_line_error(err)
    assert told in err


def test_memory_budget_warning_names_no_python_function(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # It said "chunk_key says which", a function of the library's Python API.
    args = ["score", str(DATA), "-m", "roc_auc", "--by", "model", "--memory-budget", "1MB"]
    assert main([*args, "-q"]) == 0
    err = capsys.readouterr().err
    assert "warning: memory budget of 1 MiB: the metrics computed per class" in err
    assert "chunk_key" not in err


@pytest.mark.parametrize("suffix", [".arrow", ".feather", ""])
def test_an_arrow_ipc_threshold_table_is_read(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, suffix: str
) -> None:
    # It was read as CSV, and refused with advice to save it as UTF-8.
    table = tmp_path / f"t{suffix}"
    pl.DataFrame({"class": range(10), "threshold": 0.3}).write_ipc(table)
    argv = ["score", str(DATA), "-m", "f1", "--by", "model", "--format", "csv", "-q"]
    assert main([*argv, "--threshold-table", str(table)]) == 0
    got = pl.read_csv(capsys.readouterr().out.encode())
    assert main([*argv, "--threshold", "0.3"]) == 0
    assert_frame_equal(got, pl.read_csv(capsys.readouterr().out.encode()))


@pytest.mark.parametrize("unit", ["ms", "us", "ns"])
def test_a_json_threshold_table_of_duration_classes_applies(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, unit: str
) -> None:
    # JSON writes a duration as seconds alone ("PT86400.005S"), where its keys were compared
    # with "P1DT0.005S": every class of a day or more lacked its threshold.
    from datetime import timedelta

    classes = [timedelta(days=1, milliseconds=5), timedelta(seconds=-1.5), timedelta(0)]
    rows = pl.DataFrame(
        {
            "id": np.repeat(np.arange(20), 3),
            "class": pl.Series(classes * 20, dtype=pl.Duration(unit)),
            "score": np.random.default_rng(0).random(60),
            "truth": np.random.default_rng(1).random(60) < 0.4,
        }
    )
    rows.write_parquet(tmp_path / "d.parquet")
    assert (
        main(["thresholds", str(tmp_path / "d.parquet"), "-q", "-o", str(tmp_path / "t.json")]) == 0
    )
    tuned = pl.read_json(tmp_path / "t.json")
    assert tuned["class"].dtype == pl.String  # (as JSON gives them back)
    argv = ["score", str(tmp_path / "d.parquet"), "-m", "f1", "-q", "--format", "csv"]
    assert main([*argv, "--per-class", "--threshold-table", str(tmp_path / "t.json")]) == 0
    got = pl.read_csv(capsys.readouterr().out.encode())
    best = pl_metrics.best_threshold(rows, "f1")
    assert sorted(got["f1"].to_list()) == sorted(best["value"].to_list())


def test_long_reads_labels_as_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Class columns '001', '002', '010', one label an id: the labels were read as integers
    # (1, 10, 2), "not class columns"; a row of two labels (read as text) passed.
    scores = "id,001,002,010\na1,0.7,0.2,0.1\na2,0.1,0.5,0.4\na3,0.3,0.3,0.4\n"
    argv = _long_argv(tmp_path, scores, "id,species\na1,001\na2,010\na3,002\n")
    assert main([*argv, "--labels-col", "species", "--format", "csv"]) == 0
    long = pl.read_csv(capsys.readouterr().out.encode(), schema_overrides={"class": pl.String})
    assert long.filter("truth").sort("id")["class"].to_list() == ["001", "010", "002"]
    # The labels in the scores' file alike.
    both = tmp_path / "oof.csv"
    both.write_text("id,species,001,002,010\na1,001,0.7,0.2,0.1\na2,010,0.1,0.5,0.4\n")
    assert main(["long", str(both), "--labels-col", "species", "--format", "csv"]) == 0
    long = pl.read_csv(capsys.readouterr().out.encode(), schema_overrides={"class": pl.String})
    assert long.filter("truth").sort("id")["class"].to_list() == ["001", "010"]


def test_long_compares_ids_as_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # '007' was read as 7 and paired with the solution's 7 (a grader comparing text refuses
    # such a submission), written back as 7; '1' and '01' were told as one id repeated.
    argv = _long_argv(
        tmp_path, "id,cat,dog\n007,0.7,0.3\n008,0.2,0.8\n", "id,cat,dog\n7,1,0\n8,0,1\n"
    )
    assert main(argv) == 2
    assert (
        "(the scores' ids are written with leading zeros, such as '007': ids are compared "
        "as written)" in capsys.readouterr().err
    )
    argv = _long_argv(
        tmp_path, "id,cat,dog\n1,0.7,0.3\n01,0.2,0.8\n", "id,cat,dog\n01,0,1\n1,1,0\n"
    )
    assert main([*argv, "--format", "csv"]) == 0
    long = pl.read_csv(capsys.readouterr().out.encode(), schema_overrides={"id": pl.String})
    assert sorted(long.filter("truth").select("id", "class").rows()) == [
        ("01", "dog"),
        ("1", "cat"),
    ]
    # Integers as a program writes them stay integers (the long table's ids as before).
    argv = _long_argv(
        tmp_path, "id,cat,dog\n7,0.7,0.3\n-8,0.2,0.8\n", "id,cat,dog\n-8,0,1\n7,1,0\n"
    )
    assert main([*argv, "--format", "json"]) == 0
    assert {row["id"] for row in json.loads(capsys.readouterr().out)} == {7, -8}


@pytest.mark.parametrize("name", ["oof.csv", "oof.csv.gz"])
def test_a_parquet_file_named_as_csv_is_told_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    # Its NUL bytes were told as UTF-16 text, to be saved as UTF-8.
    data = DATA.read_bytes()
    (tmp_path / name).write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    assert main(["score", str(tmp_path / name), "-m", "lrap", "--format", "csv"]) == 2
    err = capsys.readouterr().err
    fix = "decompress it as" if name.endswith(".gz") else "rename it"
    assert f"is parquet, not CSV, whatever its name says: {fix} oof.parquet" in err
    assert "UTF-16" not in err


@pytest.mark.parametrize("threads", ["0", "+0"])
def test_no_polars_threads_is_bad_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], threads: str
) -> None:
    # polars panicked at its first parallel step: told as a bug of pl-metrics, status 1.
    monkeypatch.setenv("POLARS_MAX_THREADS", threads)
    assert main(["score", str(DATA), "-m", "lrap"]) == 2
    assert f"error: POLARS_MAX_THREADS={threads}: polars needs at least one thread" in (
        capsys.readouterr().err
    )


def test_long_warns_of_csv_keys_read_back_as_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Classes '01', '02' written to CSV were scored back as 1 and 2, without a word.
    argv = _long_argv(
        tmp_path, "row_id,01,02\nr1,0.7,0.3\nr2,0.2,0.8\n", "row_id,01,02\nr1,1,0\nr2,0,1\n"
    )
    out = tmp_path / "long.csv"
    assert main([*argv, "--id-col", "row_id", "-o", str(out)]) == 0
    assert (
        "warning: column 'class': values such as '01' are text that a CSV reader types as "
        "numbers (1)" in capsys.readouterr().err
    )
    assert main([*argv, "--id-col", "row_id", "-o", str(tmp_path / "long.parquet")]) == 0
    assert capsys.readouterr().err == ""  # (parquet keeps them)
    assert (
        main([*argv[:3], str(tmp_path / "sol.csv"), "--id-col", "row_id", "--format", "csv"]) == 0
    )
    assert "warning" in capsys.readouterr().err
    plain = _long_argv(tmp_path, "row_id,a,1\nr1,0.7,0.3\n", "row_id,a,1\nr1,1,0\n")
    assert main([*plain, "--id-col", "row_id", "--format", "csv"]) == 0
    assert "warning" not in capsys.readouterr().err  # (class 'a' keeps the column text)


def test_a_reader_that_quits_ends_the_command_as_sigpipe(tmp_path: Path) -> None:
    # One write of a large output came back short, not failing: status 0 where the reader
    # (| head -1) had quit.
    env = dict(os.environ, PYTHONPATH=str(Path(pl_metrics.__file__).parent.parent))
    command = [sys.executable, "-m", "pl_metrics", "curves", str(DATA), "--kind", "roc"]
    process = subprocess.Popen(
        [*command, "--by", "model,fold", "-q", "--format", "csv"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    assert process.stderr is not None
    assert process.stdout.read(100).startswith(b"model,fold,class,threshold,fpr,tpr\n")
    process.stdout.close()  # the reader is gone, as `| head -1`
    assert process.stderr.read() == b""
    assert process.wait(timeout=120) == 128 + 13


def _long_of(tmp_path: Path, scores: Path, truth: Path) -> pl.DataFrame:
    out = tmp_path / "out.parquet"
    argv = ["long", str(scores), "--truth", str(truth), "--id-col", "row_id", "--labels-col"]
    assert main([*argv, "label", "-o", str(out)]) == 0
    return pl.read_parquet(out)


@pytest.mark.parametrize("parquet_side", ["scores", "truth"])
def test_long_takes_a_parquet_file_beside_a_csv_one(tmp_path: Path, parquet_side: str) -> None:
    # A CSV's ids read as text were typed only beside another CSV's: a parquet file's Int64
    # ids beside them were refused as of another type.
    sub = pl.DataFrame({"row_id": [1, 2, 3], "a": [0.1, 0.8, 0.3], "b": [0.9, 0.2, 0.7]})
    sol = pl.DataFrame({"row_id": [1, 2, 3], "label": ["a", "b", "b"]})
    paths = {}
    for name, frame in (("scores", sub), ("truth", sol)):
        paths[name] = tmp_path / f"{name}.{'parquet' if name == parquet_side else 'csv'}"
        frame.write_parquet(paths[name]) if name == parquet_side else frame.write_csv(paths[name])
    got = _long_of(tmp_path, paths["scores"], paths["truth"])
    assert got["row_id"].dtype == pl.Int64
    assert got.height == 6


def test_long_keeps_ids_past_int64_apart(tmp_path: Path) -> None:
    # Ids past 2**63 (64-bit hashes), typed Int128 as CSV reading types them, not floats
    # (three ids merged into one).
    big = [2**63 + 5, 2**63 + 6, 2**63 + 7]
    (tmp_path / "s.csv").write_text("row_id,a,b\n" + "".join(f"{i},0.1,0.9\n" for i in big))
    (tmp_path / "t.csv").write_text("row_id,label\n" + "".join(f"{i},a\n" for i in big))
    got = _long_of(tmp_path, tmp_path / "s.csv", tmp_path / "t.csv")
    assert got["row_id"].dtype == pl.Int128
    assert sorted(got["row_id"].unique().to_list()) == big


def test_long_types_csv_ids_as_csv_reading_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # (A review of the ids read as text.) Padded CSV ids beside a parquet file's integers
    # pair with them, as before; '+1' stays as written (a CSV reader keeps it text); ids
    # 1.0 beside a parquet file's integers are told as floats, not as text.
    pl.DataFrame({"id": [1, 2], "a": [0.2, 0.7], "b": [0.8, 0.3]}).write_parquet(
        tmp_path / "s.parquet"
    )
    (tmp_path / "t.csv").write_text("id,a,b\n01,0,1\n02,1,0\n")
    assert (
        main(
            [
                "long",
                str(tmp_path / "s.parquet"),
                "--truth",
                str(tmp_path / "t.csv"),
                "--format",
                "json",
            ]
        )
        == 0
    )
    assert {row["id"] for row in json.loads(capsys.readouterr().out)} == {1, 2}
    argv = _long_argv(tmp_path, "id,a,b\n+1,0.2,0.8\n2,0.7,0.3\n", "id,a,b\n+1,0,1\n2,1,0\n")
    assert main([*argv, "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    assert "+1,a" in out
    assert "types as numbers" not in err  # (read back as written)
    (tmp_path / "f.csv").write_text("id,a,b\n1.0,0.2,0.8\n2.0,0.7,0.3\n")
    pl.DataFrame({"id": [1, 2], "a": [0, 1], "b": [1, 0]}).write_parquet(tmp_path / "t.parquet")
    assert main(["long", str(tmp_path / "f.csv"), "--truth", str(tmp_path / "t.parquet")]) == 2
    assert "the scores' ids are Float64 and the truth table's Int64" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("ids", "classes"), [(["+01", "02"], "a,b"), ([" 01", "02"], "a,b"), (["x", "y"], "nan,1")]
)
def test_long_warns_of_no_text_a_csv_reader_keeps(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], ids: list[str], classes: str
) -> None:
    scores = f"id,{classes}\n" + "".join(f"{i},0.2,0.8\n" for i in ids)
    truth = f"id,{classes}\n" + "".join(f"{i},0,1\n" for i in ids)
    out = tmp_path / "o.csv"
    assert main([*_long_argv(tmp_path, scores, truth), "-o", str(out)]) == 0
    assert "types as numbers" not in capsys.readouterr().err
    assert pl.read_csv(out).schema["id"] == pl.String


def test_a_csv_of_a_column_named_par1_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "d.csv").write_text("PAR1,class,score,truth\n1,a,0.2,false\n2,a,0.7,true\n")
    assert main(["score", str(tmp_path / "d.csv"), "-m", "roc_auc", "--id-col", "PAR1"]) == 0
    (tmp_path / "pq.v1.csv").write_bytes(DATA.read_bytes())
    assert main(["score", str(tmp_path / "pq.v1.csv"), "-m", "lrap"]) == 2
    assert "rename it pq.v1.parquet" in capsys.readouterr().err


def test_a_negative_polars_max_threads_is_ignored_as_polars_ignores_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("POLARS_MAX_THREADS", "-1")
    assert main(["score", str(DATA), "-m", "lrap", "--by", "model,fold", "--format", "csv"]) == 0


def test_an_arrow_stream_named_as_csv_is_told_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # It was told as UTF-16 text (its marker's bytes), to be saved as UTF-8.
    stream = tmp_path / "d.csv"
    pl.read_parquet(DATA).head(100).write_ipc_stream(stream)
    assert main(["score", str(stream), "-m", "lrap"]) == 2
    err = capsys.readouterr().err
    assert "is an Arrow IPC stream, not CSV, whatever its name says; convert it to parquet" in err
    command = shlex.split(err.split("convert it to parquet first: ")[1])
    assert command[:2] == ["python", "-c"]
    exec(command[2])  # the advice works as given
    assert pl.read_parquet(tmp_path / "d.parquet").height == 100
