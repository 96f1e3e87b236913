"""The pl-metrics command: output formats, examples in --help, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

import pl_metrics
from pl_metrics.cli import main

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
        (["score", str(DATA)], "53,910 rows repeat a (id, class)"),  # forgot --by model,fold
    ]
    bad = tmp_path / "bad.parquet"
    pl.read_parquet(DATA).with_columns(score=pl.lit(float("nan"))).write_parquet(bad)
    cases.append((["score", str(bad)], "rows are NaN or infinite"))
    for argv, message in cases:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("pl-metrics: error: ")
        assert message in err
        assert err.count("\n") == 1
        assert "Traceback" not in err


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
