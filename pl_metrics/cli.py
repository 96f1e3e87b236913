"""The ``pl-metrics`` command line: score prediction dumps without writing code."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from pl_metrics._driver import score
from pl_metrics._frame import MetricsInputError
from pl_metrics._state import metric_names

__all__ = ["main"]

_EXAMPLES = """\
examples:
  # lwlrap and LRAP of every model and fold of a dump
  pl-metrics score oof.parquet --metric lwlrap --metric lrap --by model,fold

  # a hive-partitioned folder (oof/model=a/fold=0/...), F1 at threshold 0.3, as CSV
  pl-metrics score oof/ --metric f1,precision,recall --threshold 0.3 --by model --format csv

  # BirdCLEF-style: macro ROC AUC over the classes that have positives, padded cmAP
  pl-metrics score oof.parquet -m roc_auc,padded_cmap --skip-undefined --by model

  # the same on a Dask cluster (or --dask local for two local workers)
  pl-metrics score '/shared/oof/*.parquet' -m lwlrap --by model --dask tcp://sched:8786

  # other column names, per-class lwlrap, into a parquet file
  pl-metrics score 'dumps/*.parquet' --metric lwlrap --per-class --id-col clip \\
      --class-col species --score-col prob --truth-col label --output per_class.parquet
"""

_SCORE_HELP = """\
Score long prediction dumps: one row per (id, class) with a score and a 0/1 truth.
Prints one row per group (--by) and one column per metric. Files larger than memory are
scored in id-disjoint chunks (--memory-budget).
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pl-metrics",
        description="Evaluation metrics of prediction dumps, computed with polars.",
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    sc = commands.add_parser(
        "score",
        help="score files, folders or globs",
        description=_SCORE_HELP,
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sc.add_argument("paths", nargs="+", metavar="PATH", help="parquet/IPC/CSV file, folder, glob")
    sc.add_argument(
        "--metric",
        "-m",
        action="append",
        metavar="NAME",
        help=f"metric to compute, repeatable or comma-separated (default lwlrap,lrap); "
        f"one of: {', '.join(metric_names())}",
    )
    sc.add_argument("--by", default="", metavar="COLS", help="group by these columns: model,fold")
    for name, default in (("id", "id"), ("class", "class"), ("score", "score"), ("truth", "truth")):
        sc.add_argument(f"--{name}-col", default=default, metavar="COL", help=f"default {default}")
    sc.add_argument("--weight-col", metavar="COL", help="per-id sample weight column")
    sc.add_argument("--threshold", type=float, default=0.5, help="pred = score >= threshold")
    sc.add_argument("--pred", metavar="COL", help="column of 0/1 predictions (no threshold)")
    sc.add_argument(
        "--average",
        default="macro",
        choices=["macro", "micro", "weighted", "samples"],
        help="average of the thresholded metrics (default macro)",
    )
    sc.add_argument("--zero-division", type=float, default=0.0, help="0, 1 or nan")
    sc.add_argument("--eps", type=float, default=1e-15, help="log-loss clipping")
    sc.add_argument("--per-class", action="store_true", help="one row per group and class")
    sc.add_argument("--k", type=int, default=1, help="top_k_accuracy: the k best scores")
    sc.add_argument("--padding", type=int, default=5, help="padded_cmap: padding rows (5)")
    sc.add_argument(
        "--skip-undefined",
        action="store_true",
        help="roc_auc: leave out classes without positives or negatives",
    )
    sc.add_argument("--allow-ragged", action="store_true", help="rank each id over the rows it has")
    sc.add_argument("--no-validate", action="store_true", help="skip the data checks")
    sc.add_argument("--memory-budget", default="2GB", help="memory for the states (2GB)")
    sc.add_argument("--chunks", type=int, metavar="N", help="force N id-disjoint chunks")
    sc.add_argument(
        "--format",
        choices=["table", "csv", "json", "parquet"],
        help="output format (default: table, or from --output's extension)",
    )
    sc.add_argument("--output", "-o", metavar="FILE", help="write here instead of stdout")
    sc.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    sc.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="score the chunks on a Dask cluster: a scheduler address, or 'local' for two "
        "local worker processes (needs pl_metrics[dask])",
    )
    cp = commands.add_parser(
        "compare",
        help="compare models: per-fold means, pooled values, bootstrap intervals",
        description="One row per model, best first: each metric pooled over folds, and its "
        "mean and standard deviation over folds; optional bootstrap intervals and a plot.",
        epilog="examples:\n"
        "  pl-metrics compare data/digits_oof.parquet --metric lrap,log_loss\n"
        "  pl-metrics compare oof/ -m lwlrap --model-col model --fold-col fold "
        "--bootstrap 1000 --plot intervals.png\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cp.add_argument("paths", nargs="+", metavar="PATH", help="parquet/IPC/CSV file, folder, glob")
    cp.add_argument("--metric", "-m", action="append", metavar="NAME", help="as for score")
    cp.add_argument("--model-col", default="model", metavar="COL", help="default model")
    cp.add_argument("--fold-col", default="fold", metavar="COL", help="default fold")
    for name, default in (("id", "id"), ("class", "class"), ("score", "score"), ("truth", "truth")):
        cp.add_argument(f"--{name}-col", default=default, metavar="COL", help=f"default {default}")
    cp.add_argument("--threshold", type=float, default=0.5, help="pred = score >= threshold")
    cp.add_argument("--bootstrap", type=int, metavar="N", help="add N-resample 95%% intervals")
    cp.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    cp.add_argument("--plot", metavar="FILE", help="save a plot (.png or .svg)")
    cp.add_argument("--format", choices=["table", "csv", "json", "parquet"], help="output format")
    cp.add_argument("--output", "-o", metavar="FILE", help="write here instead of stdout")
    return parser


def _compare(args: argparse.Namespace) -> None:
    from pl_metrics._compare import HIGHER_IS_BETTER, bootstrap, compare
    from pl_metrics._driver import scan

    metrics = _metrics(args.metric)
    options: dict[str, Any] = {
        "id_col": args.id_col,
        "class_col": args.class_col,
        "score_col": args.score_col,
        "truth_col": args.truth_col,
        "threshold": args.threshold,
    }
    lf = scan(args.paths)
    table = compare(lf, metrics, model=args.model_col, fold=args.fold_col, **options).collect()
    intervals = None
    if args.bootstrap:
        intervals = bootstrap(
            lf, metrics, by=args.model_col, n_resamples=args.bootstrap, seed=args.seed, **options
        ).collect()
        wide = intervals.pivot(on="metric", index=args.model_col, values=["lower", "upper"])
        renamed = {f"{side}_{m}": f"{m}_{side}" for side in ("lower", "upper") for m in metrics}
        table = table.join(wide.rename(renamed, strict=False), on=args.model_col)
        order = [
            c for m in metrics for c in (m, f"{m}_lower", f"{m}_upper", f"{m}_mean", f"{m}_std")
        ]
        table = table.select(args.model_col, *order).sort(
            metrics[0], descending=HIGHER_IS_BETTER[metrics[0]]
        )
    if args.plot:
        from pl_metrics import plot

        if intervals is not None:
            figure = plot.intervals(intervals)
        else:
            per_fold = pl_metrics_report(lf, metrics[0], args, options)
            figure = plot.heatmap(per_fold, metrics[0], model=args.model_col, fold=args.fold_col)
        figure.savefig(args.plot)
    _write(table, args.format, args.output)


def pl_metrics_report(
    lf: pl.LazyFrame, metric: str, args: argparse.Namespace, options: dict[str, Any]
) -> pl.DataFrame:
    from pl_metrics._report import report

    return report(lf, [metric], by=[args.model_col, args.fold_col], **options).collect()


def _metrics(values: Sequence[str] | None) -> list[str]:
    names = [n.strip() for v in (values or ["lwlrap,lrap"]) for n in v.split(",") if n.strip()]
    return list(dict.fromkeys(names))


def _write(df: pl.DataFrame, fmt: str | None, output: str | None) -> None:
    if fmt is None:
        suffix = Path(output).suffix.lower().lstrip(".") if output else ""
        fmt = suffix if suffix in ("csv", "json", "parquet") else "table"
    if fmt == "parquet" and output is not None:
        df.write_parquet(output)
        return
    if fmt == "csv":
        text = df.write_csv()
    elif fmt == "json":
        text = df.write_json() + "\n"
    else:
        with pl.Config(
            tbl_rows=-1,
            tbl_cols=-1,
            tbl_hide_dataframe_shape=True,
            tbl_hide_column_data_types=True,
            tbl_width_chars=200,
            float_precision=6,
        ):
            text = f"{df}\n"
    if output is None:
        sys.stdout.write(text)
    else:
        Path(output).write_text(text)


def _run(args: argparse.Namespace) -> None:
    options: dict[str, Any] = {
        "id_col": args.id_col,
        "class_col": args.class_col,
        "score_col": args.score_col,
        "truth_col": args.truth_col,
        "weight_col": args.weight_col,
        "by": [c.strip() for c in args.by.split(",") if c.strip()] or None,
        "threshold": args.threshold,
        "pred": args.pred,
        "average": args.average,
        "zero_division": args.zero_division,
        "eps": args.eps,
        "per_class": args.per_class,
        "k": args.k,
        "padding": args.padding,
        "undefined": "skip" if args.skip_undefined else "error",
        "ragged": "allow" if args.allow_ragged else "error",
        "validate": not args.no_validate,
    }
    if args.dask:
        from pl_metrics import dask as on_dask

        if args.per_class:
            raise MetricsInputError("--per-class is not available with --dask")
        for option in ("per_class", "padding", "undefined"):  # no class-keyed metrics there
            options.pop(option)
        result = on_dask.score(
            args.paths,
            _metrics(args.metric),
            client=None if args.dask == "local" else args.dask,
            memory_budget=args.memory_budget,
            n_chunks=args.chunks,
            **options,
        )
    else:
        result = score(
            args.paths,
            _metrics(args.metric),
            memory_budget=args.memory_budget,
            n_chunks=args.chunks,
            progress=False if args.quiet else None,
            **options,
        )
    _write(result, args.format, args.output)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; user errors print one line and return status 2."""
    args = _parser().parse_args(argv)
    try:
        if args.format == "parquet" and args.output is None:
            raise MetricsInputError("--format parquet needs --output FILE")
        if args.command == "compare":
            _compare(args)
        else:
            _run(args)
    except (MetricsInputError, OSError, pl.exceptions.ComputeError) as error:
        message = str(error).strip().splitlines()[0] if str(error).strip() else repr(error)
        print(f"pl-metrics: error: {message}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `pl-metrics ... | head`
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
