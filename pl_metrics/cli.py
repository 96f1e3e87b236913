"""The ``pl-metrics`` command line: score prediction dumps without writing code."""

from __future__ import annotations

import argparse
import ast
import codecs
import contextlib
import fnmatch
import gzip
import io
import math
import os
import re
import shlex
import shutil
import sys
import textwrap
import traceback
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import numpy as np
import polars as pl

from pl_metrics import __version__, _kernel
from pl_metrics._curve_tables import thinned
from pl_metrics._driver import hinted, score, warn_of_mixed_tasks
from pl_metrics._examples import with_hint
from pl_metrics._frame import (
    EMPTY_TABLE,
    INTERNAL,
    MetricsInputError,
    UnknownOptionError,
    did_you_mean,
    null_rows,
    require_column,
    shown,
)
from pl_metrics._io import (
    columns_named,
    counted_text,
    file_format,
    files,
    keys_from_folders,
    kind_of,
    printable,
    reader_error,
    refuse_named_twice,
    require_in_every_file,
    scan_files,
    unreadable_named,
)
from pl_metrics._registry import COMMON_OPTIONS, info, metric_names, sweepable
from pl_metrics._spec import (
    UNUSED_OPTION,
    Options,
    check_key_name,
    make_options,
    refuse_unused,
    refuse_unused_by_tuned,
)
from pl_metrics.dask import ChunkError
from pl_metrics.plot import MAX_CLASS_PANELS

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

  # ROC curves of each model and class: a table of points and a plot
  pl-metrics curves oof.parquet --kind roc --by model -o roc.parquet --plot roc.png

  # models compared over their folds, with bootstrap intervals and their plot
  pl-metrics compare oof.parquet -m lwlrap,f1 --bootstrap 1000 --plot intervals.png

  # per-class F1 thresholds; held_out_value: each class's F1 tuned out of fold (the
  # number to believe), then new predictions scored with them (scored on oof.parquet,
  # they give back the value column: tuned on those rows, optimistic)
  pl-metrics thresholds oof.parquet --metric f1 --by model --fold-col fold -o t.csv
  pl-metrics score test.parquet -m f1 --by model --threshold-table t.csv

  # a wide submission (a score column per class) and its solution, as the long table
  pl-metrics long submission.csv --truth solution.csv --id-col row_id -o long.parquet
"""

_SCORE_HELP = """\
Score long prediction dumps: one row per (id, class) with a score and a 0/1 truth.
Prints one row per group (--by) and one column per metric. Files larger than memory are
scored in chunks (--memory-budget): id-disjoint, or class-disjoint for the metrics
computed per class over all its ids (ROC AUC, average precision, padded cmAP, the Brier
score, binary log loss, calibration, the curves and the threshold tables).
"""


_CURVES_HELP = """\
Curves of each class, from the same long prediction dumps as score: one row per point
(--kind roc: threshold, fpr, tpr; pr: threshold, precision, recall) or per non-empty bin
(calibration: bin, prob_pred, prob_true, count), per group (--by) and class. --plot saves
the matching figure (needs pl_metrics[plot]): ROC or precision-recall curves with each
line's AUC or average precision, or a reliability diagram with each line's ECE; a panel
per class when there are several groups and classes. JSON has no infinity: the first ROC
threshold (inf) is written there as null, like the last precision-recall threshold.
"""

_CURVES_EXAMPLES = """\
examples:
  # ROC curves of every model and class, as parquet, and a plot (a panel per class)
  pl-metrics curves data/digits_oof.parquet --kind roc --by model -o roc.parquet \\
      --plot roc.png

  # precision-recall curves thinned to 200 points per class, as CSV on stdout
  pl-metrics curves oof.parquet --kind pr --by model --max-points 200 --format csv

  # a reliability diagram with 15 equal-count bins
  pl-metrics curves oof.parquet --kind calibration --n-bins 15 --strategy quantile \\
      --by model --plot reliability.png -o calibration.csv
"""

#: ``curves --kind``: the pl_metrics table each kind computes.
_CURVE_METRICS = {
    "roc": "roc_curve",
    "pr": "precision_recall_curve",
    "calibration": "calibration_curve",
}

_EXIT_STATUS = """\
exit status: 0 when done; 2 for bad input (a missing file, a wrong column, bad data), with
one line "pl-metrics: error: ..."; 1 for an internal error (a bug: please report it).
"""


def _metrics_help() -> str:
    """The registered metrics, grouped by direction, for ``--help``."""
    groups: dict[str, list[str]] = {"higher is better": [], "lower is better": [], "tables": []}
    for name in metric_names():
        better = info(name).higher_is_better
        label = "tables" if better is None else "higher is better" if better else "lower is better"
        groups[label].append(name)
    lines = ["metrics (--metric NAME):"]
    for label, names in groups.items():
        lines += textwrap.wrap(
            ", ".join(names),
            width=88,
            initial_indent=f"  {label + ':':<18}",
            subsequent_indent=" " * 20,
        )
    return "\n".join(lines) + "\n"


class _Store(argparse._StoreAction):
    """argparse's store, which notes each option given (``given_options``).

    An option typed with its default value (``--threshold 0.5`` with ``-m lrap``) is given
    all the same: refused where none of the metrics uses it, as any other value is. An
    option given twice is refused: argparse kept the last, silently.
    """

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        if option_string is not None and self.dest in getattr(namespace, "given_options", ()):
            raise argparse.ArgumentError(
                self, f"given twice ({getattr(namespace, self.dest)}, then {values}); give it once"
            )
        super().__call__(parser, namespace, values, option_string)
        namespace.given_options = {*getattr(namespace, "given_options", ()), self.dest}


#: Options whose values may start with a negative number, which argparse takes for options
#: unless they read as one plain number ("-0.5" is a value, "-1e-3", "-2,-1,0" and
#: "-1=2,1=1", class -1's weight, are not).
_NEGATIVE_VALUED = ("--threshold", "--thresholds", "--class-weights")


def _negative_values_glued(args: list[str]) -> list[str]:
    """``--threshold -1e-3`` as ``--threshold=-1e-3``, which argparse reads as a value.

    An abbreviation too (``--class-weig``), as argparse takes one: an ambiguous one is then
    told so by argparse, not as an option missing its value.
    """
    out: list[str] = []
    values = iter(args)
    for arg in values:
        if arg == "--":  # positional arguments only from here
            return [*out, arg, *values]
        if arg.startswith("--") and any(o.startswith(arg) for o in _NEGATIVE_VALUED):
            value = next(values, None)
            if value is not None and re.match(r"-(\d|\.\d|inf|nan)", value, re.IGNORECASE):
                arg = f"{arg}={value}"
            elif value is not None:
                out.append(arg)
                arg = value
        out.append(arg)
    return out


#: The program's parser and the arguments it parses, for a subcommand's error (argparse
#: gives it only its own arguments).
_parsing: dict[str, Any] = {}


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose errors are one line, as the library's are (not the usage).

    Its subcommands' parsers are of this class too (argparse makes them of the parent's).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.register("action", None, _Store)
        self.register("action", "store", _Store)

    def error(self, message: str) -> NoReturn:
        if message.startswith("the following arguments are required"):
            # argparse tells a missing file before an unknown option (score --hlep): a typo
            # in an option is the likelier cause, so it is told first.
            message = self._unknown_option() or message
        command = re.match(r"argument COMMAND: invalid choice: '(.*)' \(choose", message)
        if command is not None:  # (a file or an option's value before the command)
            message += self._command_hint(command[1])
        if re.match(r"argument --average: invalid choice: '(none|null)'", message, re.I):
            options = {o for action in self._actions for o in action.option_strings}
            where = "" if "--per-class" in options else " to pl-metrics score"
            message += f"; for a value per class (Python's average=None), pass --per-class{where}"
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def _unknown_option(self) -> str:
        """The first of this command's arguments that is no option of it, told as unknown."""
        options = [o for action in self._actions for o in action.option_strings]
        for arg in _parsing.get("args", []):
            flag = arg.split("=")[0]
            if flag.startswith("--") and not any(o.startswith(flag) for o in options):
                program: _Parser = _parsing["program"]
                return program.unrecognized([arg], self)
        return ""

    def _command_hint(self, given: str) -> str:
        """The command a user left out, or put after a file or an option."""
        close = did_you_mean(given, self.commands())
        if close:
            return f"; {close}"
        if kind_of(Path(given)) or Path(given).exists():
            return f"; the command comes first: {self.prog} score {shlex.quote(given)} ..."
        return f"; the command comes first, then its files and options: {self.prog} score FILE ..."

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        """Parse; an unknown option is told by its command, with the close ones."""
        given = _negative_values_glued(list(sys.argv[1:] if args is None else args))
        _parsing.update(program=self, args=given)
        parsed, extra = self.parse_known_args(given, namespace)
        if extra:
            before = extra[0] in given and given.index(extra[0]) < given.index(parsed.command)
            command = self if before else self._subcommand(parsed)
            command.error(self.unrecognized(extra, command))
        return parsed

    def unrecognized(self, extra: Sequence[str], command: argparse.ArgumentParser) -> str:
        """Arguments unknown to ``command``, told with the options close to the first."""
        options = [o for action in command._actions for o in action.option_strings]
        flag = extra[0].split("=")[0]
        close = self._elsewhere(flag, command) or did_you_mean(flag, options)
        return f"unrecognized arguments: {' '.join(extra)}{'; ' + close if close else ''}"

    def commands(self) -> dict[str, argparse.ArgumentParser]:
        """Each command's parser, by name."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                return dict(action.choices)
        return {}

    def _elsewhere(self, flag: str, command: argparse.ArgumentParser) -> str:
        """Where a flag unknown to ``command`` belongs: "it is an option of pl-metrics score"."""
        owners = [
            name
            for name, parser in self.commands().items()
            if parser is not command and any(flag in a.option_strings for a in parser._actions)
        ]
        if not owners or command is self:
            return ""
        return f"it is an option of {' and '.join(f'{self.prog} {o}' for o in owners)}"

    def _subcommand(self, parsed: argparse.Namespace) -> argparse.ArgumentParser:
        return self.commands().get(parsed.command, self)


def _parser() -> _Parser:
    parser = _Parser(
        prog="pl-metrics",
        description="Evaluation metrics of prediction dumps, computed with polars.",
        epilog=f"{_EXAMPLES}\n{_EXIT_STATUS}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    kernel = (
        "C kernel"
        if _kernel.available()
        else "C kernel turned off by PL_METRICS_NO_KERNEL: the polars plans run, slower"
        if _kernel.TURNED_OFF
        else "no C kernel: the polars plans run, slower"
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__} ({kernel})")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_score(commands)
    _add_compare(commands)
    _add_curves(commands)
    _add_thresholds(commands)
    _add_long(commands)
    return parser


def _add_score(commands: Any) -> None:
    sc = commands.add_parser(
        "score",
        help="score files, folders or globs",
        description=_SCORE_HELP,
        epilog=f"{_metrics_help()}\n{_EXAMPLES}\n{_EXIT_STATUS}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_input(sc, "see the list below")
    _add_by(sc)
    _add_columns(sc)
    _add_metric_options(sc, tables=True)
    sc.add_argument(
        "--sweep-metric",
        choices=sweepable(),
        metavar="NAME",
        help="threshold_sweep and best_threshold: the metric of each threshold (default f1); "
        "pl-metrics thresholds tunes them out of fold",
    )
    sc.add_argument(
        "--thresholds",
        type=_numbers,
        metavar="X,...",
        help="threshold_sweep: the thresholds (default 0, 0.01, ..., 1)",
    )
    sc.add_argument("--per-class", action="store_true", help="one row per group and class")
    sc.add_argument(
        "--per-id",
        action="store_true",
        help="one row per group and id: each id's value, for metrics that are means over ids",
    )
    _add_chunking(sc)
    _add_output(sc)
    _add_quiet(sc)
    sc.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="score the chunks on a Dask cluster: a scheduler address, or 'local' for two "
        "local worker processes (needs pl_metrics[dask])",
    )
    _add_traceback(sc)


def _add_metric_options(parser: argparse.ArgumentParser, *, tables: bool) -> None:
    """The options of the metrics themselves, for score and compare (without ``tables``).

    ``tables``: the options of the tables (curves, sweeps) too, which compare refuses.
    """
    _add_weight(parser)
    _add_threshold(parser)
    parser.add_argument(
        "--pred-col",
        metavar="COL",
        help="thresholded metrics: a column of 0/1 predictions to use instead of a threshold",
    )
    parser.add_argument(
        "--average",
        default="macro",
        choices=["macro", "micro", "weighted", "samples"],
        help="how the classes' values are averaged, for "
        + ", ".join(m for m in metric_names() if info(m).averages)
        + " (not each takes all four: one refused names those it takes; default macro; one "
        "value per class: `pl-metrics score --per-class`)",
    )
    _add_zero_division(parser)
    parser.add_argument(
        "--beta", type=float, default=1.0, metavar="B", help="fbeta: weight of recall (1)"
    )
    parser.add_argument(
        "--eps", type=float, default=1e-15, metavar="X", help="log-loss clipping (default 1e-15)"
    )
    parser.add_argument(
        "--class-weights",
        type=_class_weights,
        metavar="C=W,...",
        help="weighted_log_loss: every class's weight, e.g. 0=1,1=2.5 for two classes "
        "(default: equal)",
    )
    parser.add_argument(
        "--k",
        type=int,
        metavar="K",
        help="top_k_accuracy: the k best scores (1); ndcg: the first k positions (all)",
    )
    parser.add_argument(
        "--padding", type=int, default=5, metavar="N", help="padded_cmap: padding rows (5)"
    )
    _add_curve_options(parser, tables=tables)
    parser.add_argument(
        "--max-fpr",
        type=float,
        metavar="X",
        help="roc_auc: the standardised partial AUC up to this false positive rate",
    )
    parser.add_argument(
        "--skip-undefined",
        action="store_true",
        help="roc_auc: leave out classes without positives or negatives",
    )
    _add_checks(parser)


def _add_zero_division(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--zero-division",
        type=float,
        default=0.0,
        metavar="X",
        help="value of a ratio with a zero denominator: 0, 1 or nan (default 0)",
    )


def _class_weights(text: str) -> dict[str, float]:
    """``0=1,1=2.5`` as ``{"0": 1.0, "1": 2.5}`` (the library compares classes as text)."""
    weights: dict[str, float] = {}
    for item in filter(str.strip, text.split(",")):  # (a trailing comma, as --metric has)
        name, equals, weight = (part.strip() for part in item.rpartition("="))
        try:
            value = float(weight)
        except ValueError:
            equals = ""
        if not equals or not name:
            raise argparse.ArgumentTypeError(
                f"expected CLASS=WEIGHT pairs separated by commas, got {shown(item)}"
            )
        if name in weights:
            raise argparse.ArgumentTypeError(f"class {name!r} is given twice")
        weights[name] = value
    return weights


def _add_weight(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--weight-col", metavar="COL", help="per-id sample weight column")


def _add_curve_options(
    parser: argparse.ArgumentParser, *, tables: bool = True, plotted: bool = False
) -> None:
    """The options of the curve tables and calibration; calibration's only without ``tables``.

    ``plotted``: the command draws the curves (`curves --plot`), whole whatever the table's
    points.
    """
    parser.add_argument(
        "--n-bins", type=int, default=10, metavar="N", help="calibration bins (default 10)"
    )
    parser.add_argument(
        "--strategy",
        default="uniform",
        choices=["uniform", "quantile"],
        help="calibration bins: equal widths or equal counts (default uniform)",
    )
    if not tables:
        return
    parser.add_argument(
        "--max-points",
        type=int,
        metavar="N",
        help="curve tables: at most N points per class in the table"
        + (" (--plot draws the whole curve, so its AUC and AP are exact)" if plotted else ""),
    )


def _add_checks(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--allow-ragged",
        action="store_true",
        help="accept ids that lack some classes: use the rows present (the ranking metrics "
        "rank each id over the rows it has)",
    )
    parser.add_argument("--no-validate", action="store_true", help="skip the data checks")


def _add_by(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--by",
        action="append",
        default=[],
        metavar="COLS",
        help="group by these columns: model,fold (or --by model --by fold)",
    )


def _at_least(low: int, what: str) -> Callable[[str], int]:
    """An argument that must be an integer of at least ``low``, told as ``what``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if value < low:
            raise argparse.ArgumentTypeError(f"expected {what}, got {shown(text)}")
        return value

    return parse


def _numbers(text: str) -> list[float]:
    try:  # (an empty item, "0.1,,0.2", is a number left out: refused too)
        numbers = [float(x) for x in text.split(",")]
    except ValueError:
        numbers = []
    if not numbers:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas, got {shown(text)}")
    return numbers


_positive = _at_least(1, "a positive integer")
#: compare --bootstrap's intervals (its help says 95%).
_CONFIDENCE = 0.95
# --bootstrap 0 would mean no intervals, silently: 2 resamples are the fewest.
_resamples = _at_least(2, "a whole number of resamples, at least 2")
#: compare --against's resamples when --bootstrap does not say.
_PAIRED_RESAMPLES = 1000


def _add_chunking(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--memory-budget",
        metavar="SIZE",
        help="memory for the chunks' rows, e.g. 500MB (powers of 1024; default: "
        "$PL_METRICS_MEMORY_BUDGET, else 2GB); not with --chunks",
    )
    parser.add_argument(
        "--chunks",
        type=_positive,
        metavar="N",
        help="force N chunks: id-disjoint, or class-disjoint for the metrics computed per "
        "class (at most one chunk per id, or per class)",
    )


def _add_quiet(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--quiet",
        "-q",
        action="store_true",
        help="no progress bar, nor notes on stderr (warnings still show: of numbers to doubt, "
        "or of a memory budget that cannot be kept)",
    )


def _add_plot(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--plot",
        type=os.path.expanduser,  # (~ as the paths scored read it, when the shell left it)
        metavar="FILE",
        help=f"save {what} (.png, .svg, .pdf; needs pl_metrics[plot])",
    )


def _add_compare(commands: Any) -> None:
    cp = commands.add_parser(
        "compare",
        help="compare models: per-fold means, pooled values, bootstrap intervals",
        description="One row per model, best first: each metric pooled over folds, and its\n"
        "mean and standard deviation over folds; optional bootstrap intervals and a plot.\n"
        "With --against MODEL: each other model's difference from MODEL instead.",
        epilog="examples:\n"
        "  pl-metrics compare data/digits_oof.parquet --metric lrap,log_loss\n"
        "  pl-metrics compare oof/ -m lwlrap --model-col model --fold-col fold \\\n"
        "      --bootstrap 1000 --plot intervals.png\n"
        "  # is each model better than logreg? paired differences, intervals, p-values\n"
        "  pl-metrics compare data/digits_oof.parquet -m lrap,f1 --against logreg\n"
        f"\n{_EXIT_STATUS}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_input(cp, "the list is in pl-metrics score --help")
    cp.add_argument("--model-col", default="model", metavar="COL", help="default model")
    cp.add_argument(
        "--fold-col",
        metavar="COL",
        help="default fold, a column the table needs (for one fold, pl-metrics score --by "
        "model); not with --against (it pools the folds)",
    )
    _add_columns(cp)
    _add_metric_options(cp, tables=False)
    cp.add_argument(
        "--bootstrap",
        type=_resamples,
        metavar="N",
        help="add N-resample 95%% intervals of the pooled values (METRIC_lower, "
        "METRIC_upper; METRIC_std stays the standard deviation over folds)",
    )
    cp.add_argument(
        "--against",
        metavar="MODEL",
        help="instead of the table of models: each other model's value minus MODEL's, "
        "bootstrapped in pairs (both models on the same resampled ids, folds pooled), with "
        "a 95%% interval and the two-sided p-value of no difference (0: below 2 / N); "
        f"--bootstrap N resamples (default {_PAIRED_RESAMPLES})",
    )
    cp.add_argument("--seed", type=int, metavar="S", help="bootstrap seed (default 0)")
    cp.add_argument(
        "--memory-budget",
        metavar="SIZE",
        help="memory for the chunks' rows of the table of models, e.g. 500MB (powers of 1024; "
        "default: $PL_METRICS_MEMORY_BUDGET, else 2GB); --bootstrap and --against read the "
        "columns they use whole",
    )
    _add_plot(cp, "a plot")
    _add_output(cp)
    _add_quiet(cp)  # it shows no progress bar: accepted as by the other commands, for scripts
    _add_traceback(cp)


def _add_curves(commands: Any) -> None:
    cu = commands.add_parser(
        "curves",
        help="ROC, precision-recall or calibration curves of each class, and their plot",
        description=_CURVES_HELP,
        epilog=f"{_CURVES_EXAMPLES}\n{_EXIT_STATUS}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_input(cu, None)
    cu.add_argument(
        "--kind",
        required=True,
        choices=list(_CURVE_METRICS),
        help="roc (the metric roc_curve), pr (precision_recall_curve) or calibration "
        "(calibration_curve)",
    )
    _add_by(cu)
    _add_columns(cu)
    _add_weight(cu)
    _add_curve_options(cu, plotted=True)
    _add_checks(cu)
    _add_chunking(cu)
    _add_plot(cu, "the curves' plot")
    cu.add_argument(
        "--max-classes",
        type=_positive,
        metavar="N",
        help="--plot: a panel for each of the first N classes at most, when the classes "
        "have a panel each (several series, or more classes than one panel's lines) "
        f"(default {MAX_CLASS_PANELS})",
    )
    _add_output(cu)
    _add_quiet(cu)
    _add_traceback(cu)


def _add_thresholds(commands: Any) -> None:
    th = commands.add_parser(
        "thresholds",
        help="the best threshold of each class for a thresholded metric (out of fold too)",
        description="The threshold of each class (and group) that maximises a thresholded "
        "metric,\nover the class's distinct scores (pl_metrics.best_threshold). With "
        "--fold-col, each\nfold's thresholds are tuned on the other folds: held_out_value is "
        "the metric to\nbelieve. Apply the table with pl-metrics score --threshold-table.",
        epilog="examples:\n"
        "  pl-metrics thresholds oof.parquet --metric f1 --by model --fold-col fold -o t.csv\n"
        "  pl-metrics score test.parquet -m f1,precision --by model --threshold-table t.csv\n"
        f"\n{_EXIT_STATUS}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    th.add_argument("paths", nargs="+", metavar="PATH", help=_PATHS_HELP)
    th.add_argument(
        "--metric",
        "-m",
        default="f1",
        choices=sweepable(),
        metavar="NAME",
        help=f"the metric to maximise (default f1): one of {', '.join(sweepable())}",
    )
    th.add_argument("--fold-col", metavar="COL", help="tune each fold on the other folds")
    _add_by(th)
    _add_columns(th)
    _add_weight(th)
    th.add_argument("--beta", type=float, default=1.0, metavar="B", help="fbeta's beta (1)")
    _add_zero_division(th)
    _add_checks(th)
    _add_chunking(th)
    _add_output(th)
    _add_quiet(th)
    _add_traceback(th)


def _add_long(commands: Any) -> None:
    lo = commands.add_parser(
        "long",
        help="a wide table (a score column per class: a submission) as the long table",
        description="A wide table of scores (an id column, then one score column per class, "
        "as a\nKaggle submission) as the long table the other commands score, a row per id "
        "and\nclass (pl_metrics.from_wide). The truth comes from a wide table of the same "
        'id and\nclass columns (--truth), from a column of labels (--labels-col: "cat dog", '
        "or one\nlabel per id), or, for a binary table of one score column, from its 0/1 "
        "column\n(--truth-col). Columns that are neither (a model, a fold; of --truth's table, "
        "a\nUsage column) are kept.",
        epilog="examples:\n"
        "  # a submission and the competition's solution, both wide\n"
        "  pl-metrics long submission.csv --truth solution.csv --id-col row_id -o long.parquet\n"
        "  pl-metrics score long.parquet --id-col row_id -m lwlrap\n\n"
        '  # labels as text in one column of the scores\' file ("cat dog")\n'
        "  pl-metrics long oof.csv --labels-col labels -o long.parquet\n\n"
        "  # a binary table: id, target (0/1), prediction\n"
        "  pl-metrics long oof.csv --truth-col target -o long.parquet\n"
        "  pl-metrics score long.parquet -m roc_auc,f1\n"
        f"\n{_EXIT_STATUS}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    lo.add_argument("paths", nargs="+", metavar="PATH", help=_PATHS_HELP)
    truth = lo.add_mutually_exclusive_group()
    truth.add_argument(
        "--truth",
        type=os.path.expanduser,
        metavar="FILE",
        help="a wide table of 0/1 truth: the id column and the class columns (or the table "
        "holding --labels-col)",
    )
    truth.add_argument(
        "--truth-col",
        metavar="COL",
        help="a binary table's 0/1 column: the truth of its one class (its score column)",
    )
    lo.add_argument(
        "--labels-col",
        metavar="COL",
        help="the column of true labels (in --truth's table, else in PATH): text split on "
        "--separator, or one label per id; a CSV file's empty field: no labels",
    )
    lo.add_argument(
        "--separator", default=" ", metavar="SEP", help="of --labels-col's text (a space)"
    )
    lo.add_argument("--id-col", default="id", metavar="COL", help="default id")
    lo.add_argument(
        "--classes",
        metavar="A,B,...",
        help="the class columns (default: every float column of PATH)",
    )
    _add_output(lo)
    _add_traceback(lo)


#: The input paths' help (`pl_metrics._io.files` lists a file named twice once).
_PATHS_HELP = "parquet/IPC/CSV file, folder or glob (a file reached twice is read once)"


def _add_input(parser: argparse.ArgumentParser, metric_list: str | None) -> None:
    """The input paths, and ``--metric`` where the command takes metrics."""
    parser.add_argument("paths", nargs="+", metavar="PATH", help=_PATHS_HELP)
    if metric_list is None:
        return
    parser.add_argument(
        "--metric",
        "-m",
        action="append",
        metavar="NAME",
        help="metric to compute, repeatable or comma-separated (default lwlrap,lrap); "
        f"{metric_list}",
    )


def _add_columns(parser: argparse.ArgumentParser) -> None:
    for name in ("id", "class", "score", "truth"):
        parser.add_argument(f"--{name}-col", default=name, metavar="COL", help=f"default {name}")


def _number(text: str) -> float:
    """An integer stays one (integer scores past 2**53 compare exactly), else a float."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


def _add_threshold(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--threshold",
        type=_number,
        metavar="X",
        help="thresholded metrics: pred = score >= threshold (default 0.5)",
    )
    parser.add_argument(
        "--threshold-table",
        type=os.path.expanduser,
        metavar="FILE",
        help="thresholded metrics: a threshold per class (and group) from a CSV, parquet, "
        "Arrow IPC or JSON table (gzipped too) with a threshold column, such as pl-metrics "
        "thresholds writes (- reads it from standard input)",
    )


def _add_output(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        choices=["table", "csv", "json", "parquet"],
        help="output format (default: table, or from --output's extension: .csv, .json, "
        ".parquet or .pq, .txt)",
    )
    parser.add_argument(
        "--output",
        "-o",
        type=os.path.expanduser,
        metavar="FILE",
        help="write here instead of stdout (- is stdout, but for parquet; FILE.csv.gz: "
        "gzipped CSV)",
    )


def _add_traceback(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--traceback", action="store_true", help="on an error, show Python's traceback"
    )


def _run_compare(args: argparse.Namespace) -> None:
    from pl_metrics._compare import bootstrap, compare

    if args.seed is not None and args.bootstrap is None and args.against is None:
        # (a seed of nothing is a slip)
        raise MetricsInputError("--seed seeds --bootstrap or --against: give one of them too")
    if args.against is not None and args.memory_budget is not None:
        raise MetricsInputError(
            "--memory-budget: --against reads the columns it compares whole (the budget is "
            "that of the table of models); leave it out"
        )
    if args.against is not None and args.fold_col is not None:
        # (an option with no effect is refused, as the metrics' unused options are)
        raise MetricsInputError(
            f"--fold-col {args.fold_col}: --against pools the folds (each id must be in one "
            "fold of each model); leave --fold-col out, or compare without --against"
        )
    args.fold_col = "fold" if args.fold_col is None else args.fold_col
    metrics = _metrics(args.metric)
    _refuse_typed_unused(args, metrics, own=["fold_col"])
    options = _metric_options(args)
    if args.against is None and args.bootstrap is not None:
        # bootstrap's columns, and those of its intervals pivoted beside compare's table
        made = ["metric", "estimate", "lower", "upper", "std"]
        made += [
            f"{a}_{b}" for m in metrics for s in ("lower", "upper") for a, b in ((m, s), (s, m))
        ]
        check_key_name(args.model_col, "model_col", made, "compare --bootstrap")
    found = files(args.paths)
    lf = scan_files(found)
    # A column the options name, in every file (`score` checks the same for its metrics).
    scores = args.score_col if args.pred_col is None else args.pred_col
    folds = [] if args.against is not None else [args.fold_col]  # --against pools them
    keys = [args.model_col, *folds, args.id_col, args.class_col]
    named = columns_named(*keys, scores, args.truth_col, args.weight_col)
    require_in_every_file(found, named, keys=keys)
    resamples = args.bootstrap
    # Two tasks' dumps in one folder: said of, as score() says it.
    with (
        unreadable_named(found, named),
        hinted(found, args.id_col, args.class_col),
        counted_text(lf, found, keys),
        keys_from_folders(found, [args.model_col, *folds]),
    ):
        if args.against is None:
            table = compare(
                lf,
                metrics,
                model_col=args.model_col,
                fold_col=args.fold_col,
                memory_budget=args.memory_budget,
                **options,
            ).collect()
            _warn_of_groups_all_skipped(args, table)
        else:
            resamples = args.bootstrap or _PAIRED_RESAMPLES
            table = _differences(lf, metrics, resamples, args, options)
    checked = Options(ragged=options["ragged"], validate=options["validate"]).checks_classes
    warn_of_mixed_tasks(found, args.class_col, [args.model_col, *folds], checked=checked)
    intervals = table if args.against is not None else None
    if args.against is None and args.bootstrap is not None:
        intervals = bootstrap(
            lf,
            metrics,
            by=args.model_col,
            n_resamples=args.bootstrap,
            confidence=_CONFIDENCE,
            seed=args.seed or 0,
            **options,
        ).collect()
        wide = intervals.pivot(on="metric", index=args.model_col, values=["lower", "upper"])
        renamed = {f"{side}_{m}": f"{m}_{side}" for side in ("lower", "upper") for m in metrics}
        table = table.join(  # in compare's order: best first, ties in the models' order
            wide.rename(renamed, strict=False),
            on=args.model_col,
            how="left",
            nulls_equal=True,
            maintain_order="left",
        )
        order = [
            c for m in metrics for c in (m, f"{m}_lower", f"{m}_upper", f"{m}_mean", f"{m}_std")
        ]
        table = table.select(args.model_col, *order)
    if args.plot:
        from pl_metrics import plot

        if intervals is not None:
            # (against one model, which the title names: each row is its other model's)
            by = "model_b" if args.against is not None else None
            figure = plot.intervals(intervals, by=by, confidence=_CONFIDENCE, n_resamples=resamples)
        else:
            per_fold = _per_fold(lf, metrics[0], args, options)
            figure = plot.heatmap(
                per_fold, metrics[0], model_col=args.model_col, fold_col=args.fold_col
            )
        with _writing("--plot", args.plot):
            figure.savefig(args.plot)
    _write(table, args.format, args.output, [args.model_col, "model_a", "model_b"])
    _warn_of_a_threshold_past_the_scores(args, options["threshold"], lambda: lf)


def _differences(
    lf: pl.LazyFrame,
    metrics: Sequence[str],
    n_resamples: int,
    args: argparse.Namespace,
    options: dict[str, Any],
) -> pl.DataFrame:
    """The table of compare --against: each other model's paired difference from one.

    The folds are pooled, as `paired` pools them. Each metric's rows come in the same order
    of models: the best difference of the first metric first.
    """
    from pl_metrics._compare import model_value, no_rows_of_model, paired

    schema = lf.collect_schema()
    require_column(schema, "model_col", args.model_col)
    model, dtype = pl.col(args.model_col), schema[args.model_col]
    found = lf.select(
        model.drop_nulls().unique(maintain_order=True).implode().alias("models"),
        model.null_count().alias("nulls"),
    )
    listed, nulls = found.collect().row(0)
    if nulls:  # rows of no model: of the baseline, of another, or of neither?
        raise MetricsInputError(null_rows(args.model_col).message(nulls, ""))
    if not listed:
        raise MetricsInputError(EMPTY_TABLE)
    baseline = model_value(dtype, args.model_col, "model_a", args.against)
    if baseline not in listed:
        raise no_rows_of_model(args.model_col, args.against, listed, " (--against)")
    others = [m for m in listed if m != baseline]
    if not others:
        raise MetricsInputError(
            f"column {args.model_col!r}: {args.against!r} (--against) is its only model; "
            "there is no other to compare with it"
        )
    seed = args.seed or 0
    tables, unpaired = {}, []
    for other in others:  # each pair's rows read once, for all the metrics
        pair = lf.filter(model.is_in(pl.Series([baseline, other], dtype=dtype).implode()))
        rows = pair.collect()
        for metric in metrics:
            # Each metric its own options (one metric's --eps is another's unused option).
            taken = {*COMMON_OPTIONS, *info(metric).options}
            try:
                tables[metric, other] = paired(
                    rows,
                    metric,
                    baseline,
                    other,
                    model_col=args.model_col,
                    n_resamples=n_resamples,
                    confidence=_CONFIDENCE,
                    seed=seed,
                    **{option: value for option, value in options.items() if option in taken},
                )
            except MetricsInputError as error:
                if error.problem == "unpaired":  # said of every such model at once
                    unpaired.append(str(error))
                    break
                if error.problem != "duplicate":
                    raise
                # The hint to group by a fold (`by_hint`) is paired()'s: here folds are pooled.
                text = re.sub(r"; the table (also )?has columns?[^;]*", "", str(error))
                pooled = (
                    "--against pools the folds, so each id must be in one fold of each model "
                    "(repeated cross-validation: compare each repeat alone)"
                )
                raise with_hint(error, pooled, text) from None
    if unpaired:  # one line, as errors are: each pair's count, then what pairing needs
        why = "; a paired comparison needs"
        heads = [message.partition(why)[0] for message in unpaired]
        needs = dict.fromkeys(why + message.partition(why)[2] for message in unpaired)
        raise MetricsInputError("; ".join(heads) + "".join(needs), problem="unpaired")
    sign = -1.0 if info(metrics[0]).higher_is_better else 1.0

    def best_first(other: object) -> tuple[bool, float]:
        difference = tables[metrics[0], other]["difference"][0]
        undefined = difference is None or math.isnan(difference)
        return undefined, 0.0 if undefined else sign * difference

    others.sort(key=best_first)
    return pl.concat(tables[metric, other] for metric in metrics for other in others)


def _warn_of_a_threshold_past_the_scores(
    args: argparse.Namespace, given: float | pl.DataFrame, rows: Callable[[], pl.LazyFrame]
) -> None:
    """--threshold X that no score reaches, or that every score reaches: one prediction.

    Every thresholded metric is then of a constant prediction (F1 of 0, say), which reads
    as a model's failure where it is a threshold's (``--threshold 50`` meant 0.5, or
    logits against 0.5). The same of a --threshold-table all of whose thresholds lie past
    the scores. ``given``: the threshold or table the metrics were scored with. ``rows``:
    the input, scanned only with either option (then one read of its score column).
    """
    metrics = _metrics(args.metric)
    checked: list[tuple[str, Any, Any]] = []  # (what, its lowest, its highest threshold)
    typed = args.threshold is not None or args.threshold_table is not None
    if typed and any("threshold" in info(m).options for m in metrics):
        if isinstance(given, pl.DataFrame):
            thresholds = given["threshold"]
            checked.append(
                ("every threshold of --threshold-table", thresholds.min(), thresholds.max())
            )
        else:
            checked.append((f"--threshold {given!r}", given, given))
    sweep = getattr(args, "thresholds", None)  # (score's --thresholds, of threshold_sweep)
    if sweep is not None and "threshold_sweep" in metrics:
        checked.append(("every threshold of --thresholds", min(sweep), max(sweep)))
    if not checked:  # (--quiet too: a warning)
        return
    score_col = pl.col(args.score_col)
    range_ = rows().select(score_col.min().alias("low"), score_col.max().alias("high")).collect()
    low, high = range_.row(0)
    # Float32 scores are compared with thresholds in their type, as the metrics compare
    # them (0.7 reaches a Float32 0.7), and shown in it (0.7, not 0.699999988079071).
    narrow = {"Float32": np.float32, "Float16": np.float16}.get(str(range_.schema["low"]))
    if narrow is not None and None not in (low, high):
        low, high = narrow(low), narrow(high)
    for named, lowest, highest in checked:
        if None in (low, high, lowest, highest):
            continue
        if narrow is not None:
            with np.errstate(over="ignore"):  # (a threshold past Float32's range: inf there)
                lowest, highest = narrow(lowest), narrow(highest)
        side = (
            "above every score: every prediction is negative"
            if lowest > high
            else "at or below every score: every prediction is positive"
            if highest <= low
            else None
        )
        if side is not None:
            _say(f"warning: {named} is {side} (scores from {low!s} to {high!s})")


def _warn_of_groups_all_skipped(args: argparse.Namespace, result: pl.DataFrame) -> None:
    """--skip-undefined that left out every class of a group: its ROC AUC is NaN.

    The mean of no class, which would otherwise read as a failure of the model or the tool.
    """
    if not args.skip_undefined:
        return
    # (compare's mean over folds too, NaN where one fold's is)
    for column in ("roc_auc", "roc_auc_mean"):
        dtype = result.schema.get(column)
        if dtype is None or not dtype.is_float():
            continue
        skipped = result[column].is_nan().sum()
        if skipped:
            there = "there" if column == "roc_auc" else "in a fold there"
            _say(
                f"warning: {column} is NaN in {skipped:,} of {len(result):,} rows: "
                f"--skip-undefined left out every class {there} (each lacks a positive or a "
                "negative)"
            )


def _per_fold(
    lf: pl.LazyFrame, metric: str, args: argparse.Namespace, options: dict[str, Any]
) -> pl.DataFrame:
    from pl_metrics._report import report

    return report(lf, [metric], by=[args.model_col, args.fold_col], **options).collect()


def _metrics(values: Sequence[str] | None) -> list[str]:
    names = [n.strip() for v in (values or ["lwlrap,lrap"]) for n in v.split(",") if n.strip()]
    return list(dict.fromkeys(names))


#: The formats of --output's file names (no name: the terminal's table).
_SUFFIX_FORMATS = {
    "": "table",
    "txt": "table",
    "csv": "csv",
    "json": "json",
    "parquet": "parquet",
    "pq": "parquet",
}


def _output_format(fmt: str | None, output: str | None) -> str:
    """The format to write: --format's, or --output's extension's (checked before scoring)."""
    if fmt == "parquet" and output is None:
        raise MetricsInputError("--format parquet needs --output FILE")
    # A ".gz" name is written gzipped (out.csv.gz, as the inputs read it), in the format of
    # the extension before it.
    gzipped = _gzipped(output)
    plain = output[: -len(".gz")] if gzipped and output else output
    suffix = Path(plain).suffix.lower().lstrip(".") if plain else ""
    if gzipped and "parquet" in (fmt, _SUFFIX_FORMATS.get(suffix)):
        raise MetricsInputError(
            f"--output {output}: parquet compresses itself; name the file .parquet"
        )
    if fmt is not None:
        named = _SUFFIX_FORMATS.get(suffix) if suffix else None
        if named is not None and named != fmt:  # a .csv file holding JSON, say
            raise MetricsInputError(
                f"--format {fmt} but --output {output} is named as {named}: rename the file or "
                "drop --format"
            )
        return fmt
    if suffix not in _SUFFIX_FORMATS:  # not a table in some other format, silently
        raise MetricsInputError(
            f"--output {output}: cannot tell the format from {'.' + suffix!r}; name the file "
            ".csv, .json, .parquet (or .pq), .txt (or no extension, for the table), or pass "
            "--format"
        )
    return _SUFFIX_FORMATS[suffix]


def _write(df: pl.DataFrame, fmt: str, output: str | None, keys: Sequence[str] = ()) -> None:
    """Write ``df`` in ``fmt`` (resolved by `_output_format`) to ``output`` or stdout.

    The text table shows floats to 6 decimals, but a ``threshold`` column in full: a user
    copies it (0.9999999999 is not 1.000000). So are float ``keys`` (the ``--by`` and class
    columns): 1e-7 and 2e-7 are two groups, not two rows of 0.000000.
    """
    if fmt == "parquet" and output is not None:
        with _writing("--output", output):
            df.write_parquet(output)
        return
    if fmt in ("csv", "json"):  # neither writes bytes (a --by column of them): their hex
        binary = [c for c, dtype in df.schema.items() if dtype == pl.Binary]
        df = df.with_columns(pl.col(binary).bin.encode("hex"))
        nested = [c for c, dtype in df.schema.items() if "Binary" in str(dtype)]
        if nested:  # (in a list or struct: polars' JSON writer panics)
            raise MetricsInputError(
                f"column {nested[0]!r} holds bytes in a {df.schema[nested[0]]}, which {fmt} "
                "cannot hold: write parquet (-o FILE.parquet)"
            )
    if fmt == "csv":
        # Nor does CSV write durations: their ISO 8601 text ("PT3S"), as JSON writes them.
        df = df.with_columns(pl.col(pl.Duration).dt.to_string("iso"))
        # CSV holds no lists or structs (a --by column of them): their JSON text, from a
        # one-field object's JSON with '{"v":' and '}' cut off.
        nested = [c for c, dtype in df.schema.items() if dtype.is_nested()]
        json_text = (
            pl.struct(pl.col(c).alias("v")).struct.json_encode().str.slice(5).str.head(-1).alias(c)
            for c in nested
        )
        text = df.with_columns(json_text).write_csv()
    elif fmt == "json":
        text = df.write_json() + "\n"
    else:
        full = [
            c
            for c in dict.fromkeys(["threshold", *keys])
            if c in df.columns and df.schema[c].is_float()
        ]
        # their shortest exact form (polars cuts long cells)
        df = df.with_columns(pl.col(full).cast(pl.String))
        boxes = _can_print_boxes(output)
        with pl.Config(
            tbl_formatting="UTF8_FULL_CONDENSED" if boxes else "ASCII_FULL_CONDENSED",
            tbl_rows=-1,
            tbl_cols=-1,
            tbl_hide_dataframe_shape=True,
            tbl_hide_column_data_types=True,
            tbl_width_chars=65_535,  # (the most polars takes) no name or value cut
            fmt_str_lengths=65_535,
            float_precision=6,
            # (a user's display settings, POLARS_FMT_* or pl.Config, would hide the names or
            # write 0,41: a table on stdout is read, and parsed, as this one)
            tbl_hide_column_names=False,
            tbl_cell_alignment="LEFT",
            tbl_cell_numeric_alignment=None,
            tbl_dataframe_shape_below=False,
            tbl_column_data_type_inline=False,
            decimal_separator=".",
            thousands_separator=False,
            fmt_float="mixed",
            fmt_table_cell_list_len=-1,
        ):
            text = f"{df}\n"
    with _writing("--output", output):
        if output is None:
            _print(text, table=fmt == "table")
            sys.stdout.flush()
        elif _gzipped(output):
            with gzip.open(output, "wt", encoding="utf-8") as file:
                file.write(text)
        else:
            Path(output).write_text(text, encoding="utf-8")


@contextlib.contextmanager
def _writing(flag: str, output: str | None) -> Iterator[None]:
    """An OS error of writing a result (a full disk, say) told with its file's flag and name.

    It printed as Python's "[Errno 28] No space left on device" alone.
    """
    try:
        yield
    except BrokenPipeError:  # `| head`: the reader has what it wanted (`_run`)
        raise
    except (OSError, pl.exceptions.ComputeError) as error:
        if not isinstance(error, OSError) and "os error" not in str(error):
            raise  # (polars' error of a parquet file's write, but not of the disk)
        where = f"{flag} {output!r}" if output is not None else "standard output"
        why = getattr(error, "strerror", None) or re.sub(  # (polars': "..., os error 28")
            r" \(os error \d+\)(: .*)?$", "", _first_line(error).rpartition("IO error: ")[2]
        )
        raise MetricsInputError(f"cannot write {where}: {why}") from error


def _stdout_encoding() -> str:
    return codecs.lookup(getattr(sys.stdout, "encoding", None) or "utf-8").name


def _can_print_boxes(output: str | None) -> bool:
    """Whether a table's box-drawing borders can be written where it goes.

    Not to a standard output in ASCII, or in Windows' cp1252 (a redirected one there).
    """
    if output is not None:
        return True
    try:
        "─│┆┌┐└┘┬┴═╞╡╪".encode(_stdout_encoding())  # (polars' UTF8_FULL_CONDENSED)
    except UnicodeEncodeError:
        return False
    return True


def _print(text: str, *, table: bool) -> None:
    """Write ``text`` to standard output, whatever its encoding.

    CSV and JSON go as UTF-8 bytes, as written to a file (a table saved with ``> t.csv``
    is read back as UTF-8); a table for the eye in the terminal's encoding, its characters
    that have none replaced.
    """
    encoding = _stdout_encoding()
    if encoding != "utf-8" and not table and hasattr(sys.stdout, "buffer"):
        sys.stdout.flush()
        for raw in _pieces(text.encode("utf-8")):
            sys.stdout.buffer.write(raw)
            sys.stdout.buffer.flush()
        return
    if encoding != "utf-8":
        text = text.encode(encoding, "replace").decode(encoding)
    for piece in _pieces(text):
        sys.stdout.write(piece)
        sys.stdout.flush()


_T = TypeVar("_T", str, bytes)


def _pieces(text: _T) -> Iterator[_T]:
    """``text`` in pieces of a pipe's buffer: a reader that quits (``| head -1``) is seen.

    One write of it all, past the buffer, came back short where the reader had quit, not
    failing: the status was 0 where SIGPIPE's is due (`_stdout_closed`).
    """
    size = 1 << 16
    for start in range(0, len(text), size):
        yield text[start : start + size]


def _gzipped(output: str | None) -> bool:
    """Whether ``output`` is named to be written gzipped (``out.csv.gz``)."""
    return output is not None and output.lower().endswith(".gz")


def _by(args: argparse.Namespace) -> list[str]:
    """--by's columns: comma-separated names, stripped (one name alone is taken as given).

    A value naming none (``--by "$COLUMNS"`` of an empty variable) is refused: it scored the
    whole table, pooled, as if --by were left out.
    """
    names = []
    for given in args.by:
        named = [c.strip() for c in given.split(",")] if "," in given else [given]
        if not any(name.strip() for name in named):
            raise MetricsInputError(
                f"--by: {given!r} names no column; leave --by out to score the whole table"
            )
        names += [name for name in named if name.strip()]
    return names


def _metric_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword options of score() and compare() from the command line's."""
    return {
        "id_col": args.id_col,
        "class_col": args.class_col,
        "score_col": args.score_col,
        "truth_col": args.truth_col,
        "weight_col": args.weight_col,
        "threshold": _threshold(args),
        "pred_col": args.pred_col,
        "average": args.average,
        "zero_division": args.zero_division,
        "beta": args.beta,
        "eps": args.eps,
        "class_weights": args.class_weights,
        "k": args.k,
        "padding": args.padding,
        "n_bins": args.n_bins,
        "strategy": args.strategy,
        "max_points": getattr(args, "max_points", None),  # (compare takes no tables)
        "max_fpr": args.max_fpr,
        "undefined": "skip" if args.skip_undefined else "error",
        "ragged": "allow" if args.allow_ragged else "error",
        "validate": not args.no_validate,
    }


def _refuse_typed_unused(
    args: argparse.Namespace, metrics: Sequence[str], *, tuned: str = "f1", own: Sequence[str] = ()
) -> None:
    """Options given that none of ``metrics`` uses, whatever their values (`_Store`).

    ``tuned``: the metric that best_threshold and threshold_sweep tune (the library's
    default unless given). ``own``: the command's options named as the metrics' are
    (compare's --fold-col).
    """
    library = {flag: option for option, flag in _LIBRARY_OPTIONS.items()}
    library["threshold_table"] = "threshold"  # (the library's option, given as a file)
    typed = set(getattr(args, "given_options", ())) - set(own)
    given = {library.get(d, d): True for d in typed}
    entries = [info(m) for m in metrics]
    refuse_unused(entries, given)
    refuse_unused_by_tuned(entries, tuned, given)


def _threshold(args: argparse.Namespace) -> float | pl.DataFrame:
    """--threshold, or the table of --threshold-table (parquet, IPC, JSON, else CSV)."""
    given = [
        o
        for o, v in (("--threshold", args.threshold), ("--threshold-table", args.threshold_table))
        if v is not None
    ]
    if args.pred_col is not None and given:
        raise MetricsInputError(
            f"--pred-col {args.pred_col} holds the predictions, so {given[0]} would apply to "
            "nothing: give one of them"
        )
    if len(given) == 2:
        raise MetricsInputError("--threshold and --threshold-table: give one of them")
    if args.threshold_table is None:
        return 0.5 if args.threshold is None else args.threshold
    if not args.threshold_table:  # (an empty variable in a script: not the default 0.5)
        raise MetricsInputError("--threshold-table '': name a file")
    path = Path(args.threshold_table)
    if path.is_dir():
        raise MetricsInputError(
            f"--threshold-table: {str(path)!r} is a folder; give the table's file (such as "
            "pl-metrics thresholds --output writes)"
        )
    if not path.exists() and args.threshold_table != "-":  # (a pipe is read as a file is)
        raise MetricsInputError(f"--threshold-table: file not found: {str(path)!r}")
    try:
        return _read_threshold_table(path)
    except (pl.exceptions.PolarsError, OSError) as error:
        raise MetricsInputError(
            f"--threshold-table: cannot read {str(path)!r} as a table: {reader_error(error)}"
        ) from error


def _read_threshold_table(path: Path) -> pl.DataFrame:
    # Read once: a pipe cannot be read again. "-" is standard input (thresholds of
    # `pl-metrics thresholds ... -o - --format csv |`), told by its first bytes.
    data = sys.stdin.buffer.read() if str(path) == "-" else path.read_bytes()
    suffix = path.suffix.lower()
    if data.startswith(b"\x1f\x8b"):  # gzipped (t.csv.gz, t.json.gz, as -o writes them)
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as error:  # (a cut file: EOFError)
            raise MetricsInputError(
                f"--threshold-table: cannot read {str(path)!r}: not a whole gzip file ({error})"
            ) from None
        suffix = Path(path.stem).suffix.lower()
    start = data[:8].decode("utf-8", "replace")
    # `pl-metrics thresholds > t.csv`: the terminal's table (in ASCII on some terminals)
    if start.startswith(("┌", "+-", "shape: (")):
        raise MetricsInputError(
            f"--threshold-table: {str(path)!r} holds a table printed for the terminal; write "
            "the thresholds with pl-metrics thresholds ... --output t.csv (or .parquet, .json)"
        )
    # By their first bytes too: standard input (`cat t.parquet |`) has no suffix.
    if suffix in (".parquet", ".pq") or data.startswith(b"PAR1"):
        return pl.read_parquet(io.BytesIO(data))
    if data.startswith(b"ARROW1"):  # an Arrow IPC (Feather) file, as the PATHs read
        return pl.read_ipc(io.BytesIO(data))
    if suffix == ".json" or re.match(rb"\s*\[\s*\{", data):  # as `thresholds -o t.json`
        return pl.read_json(io.BytesIO(data))
    # Anything else is CSV (.csv, .txt, .csv.gz, no suffix). The keys are kept as written
    # (class "00", "0.50", "TRUE"): the library reads them as the rows' types.
    text = pl.read_csv(data, infer_schema=False)
    threshold = text.get_column("threshold", default=None)
    if threshold is not None:  # numbers ("nan" too), or kept as text: the bad value is named
        numbers = threshold.str.strip_chars().cast(pl.Float64, strict=False)
        if numbers.null_count() == threshold.null_count():
            return text.with_columns(numbers)
    return text


def _run_thresholds(args: argparse.Namespace) -> None:
    _refuse_typed_unused(args, ["best_threshold"], tuned=args.metric)
    by = _by(args)
    table = score(
        args.paths,
        "best_threshold",
        metric=args.metric,
        fold_col=args.fold_col,
        beta=args.beta,
        zero_division=args.zero_division,
        id_col=args.id_col,
        class_col=args.class_col,
        score_col=args.score_col,
        truth_col=args.truth_col,
        weight_col=args.weight_col,
        by=by or None,
        ragged="allow" if args.allow_ragged else "error",
        validate=not args.no_validate,
        memory_budget=args.memory_budget,
        n_chunks=args.chunks,
        progress=False if args.quiet else None,
    )
    _write(table, args.format, args.output, [*by, args.class_col])


def _run_long(args: argparse.Namespace) -> None:
    from pl_metrics._adapters import from_wide

    if args.truth_col is not None and args.labels_col is not None:
        raise MetricsInputError(
            "--labels-col and --truth-col: a binary table's truth is its 0/1 column, give one"
        )
    if args.truth is None and args.truth_col is None and args.labels_col is None:
        raise MetricsInputError(
            "the truth: give --truth FILE (a wide table of 0/1), --labels-col COL (a column "
            "of labels) or --truth-col COL (a binary table's 0/1 column)"
        )
    score_files = files(args.paths)
    # A CSV's ids and labels are read as written: "007" and "7" are other ids (as a
    # grader's text comparison has them), "001" a class column's name, not 1.
    text = [args.id_col, *([args.labels_col] if args.labels_col else [])]
    scores = scan_files(score_files, text=text)
    score_schema = scores.collect_schema()  # (the files' own columns, read once)
    refuse_named_twice(score_files, score_schema.names())  # (each is a class, or kept)
    file_columns = score_schema.names()
    classes = None if args.classes is None else [c.strip() for c in args.classes.split(",")]
    truth_files = score_files if args.truth is None else files([args.truth])
    truth: pl.LazyFrame | None = None  # (with --labels-col alone, a column of the scores)
    if args.truth is not None:
        truth = scan_files(truth_files, text=text)
        truth_names = truth.collect_schema().names()
        refuse_named_twice(truth_files, truth_names)
        file_columns += truth_names
    scores, truth = _integer_ids(scores, truth, args.id_col)
    if args.truth is None and args.labels_col is None:
        # a binary table: its one score column's truth is --truth-col
        require_column(score_schema, "truth_col", args.truth_col)
        kept = scores.drop(args.truth_col)
        floats = [c for c, t in kept.collect_schema().items() if t.is_float()]
        named = classes or floats
        if len(named) != 1:
            raise MetricsInputError(
                f"--truth-col {args.truth_col}: the truth of a binary table's one score "
                f"column, but it has {len(named)} ({', '.join(map(repr, named[:5]))}); name "
                "it with --classes, or give the truth of several classes with --truth"
            )
        truth = _binary_truth(scores, args.id_col, args.truth_col, named[0])
        scores, classes = kept, named
    if args.labels_col is not None and file_format(truth_files) == "csv":
        # A CSV file's empty field is an empty text, no labels (as pandas writes an id
        # without any), which polars reads as a null: from_wide refuses nulls, whose
        # fill_null a command line cannot apply.
        labelled = scores if truth is None else truth
        dtype = labelled.collect_schema().get(args.labels_col)
        if dtype is not None and (dtype == pl.String or dtype.is_integer()):
            # (Whole-number labels, one per id, are read as integers: as their text here.)
            filled = pl.col(args.labels_col).cast(pl.String).fill_null("")
            if truth is None:
                scores = scores.with_columns(filled)
            else:
                truth = truth.with_columns(filled)
    # (A field past the rows that typed its column fails to parse: the file is named.)
    every = list(dict.fromkeys([*score_files, *truth_files]))
    try:
        with unreadable_named(every, list(dict.fromkeys(file_columns))):
            table = from_wide(
                scores,
                truth,
                id_col=args.id_col,
                classes=classes,
                labels_col=args.labels_col,
                separator=args.separator,
            ).collect()
    except MetricsInputError as error:
        # (Ids repeated within a kept column's values, a model's, are that file's own.)
        alone = rf"repeats? in the scores, which needs one row per {re.escape(args.id_col)}:"
        if len(score_files) < 2 or not re.search(alone, str(error)):
            raise
        raise MetricsInputError(  # (two models' files of the same ids, say)
            f"{error}; if each of the {len(score_files):,} files is a model's, put each in a "
            "folder model=NAME/ (a column then)"
        ) from None
    # A class some files lack would be null scores (or truth) in their rows: refused, named.
    named = [args.id_col, *table["class"].unique().cast(pl.String).sort()]
    for found in {tuple(score_files), tuple(truth_files)}:
        require_in_every_file(found, named, needs="the id column and every class's column")
    if args.truth is not None and truth is not None:
        # The truth file's other columns (a Kaggle solution's Usage: Public or Private) are
        # kept too, as the scores' are: a grader scores --by them.
        classes = table["class"].unique().cast(pl.String)
        taken = {args.id_col, args.labels_col, *classes}
        extra = [c for c in truth.collect_schema() if c not in taken]
        made = [c for c in extra if c in ("class", "score", "truth")]
        if made:
            raise MetricsInputError(
                f"--truth {args.truth}: its column {made[0]!r} is named as a column the long "
                "table makes; rename it in the file"
            )
        if extra:
            per_id = truth.select(args.id_col, *extra).unique(maintain_order=True).collect()
            table = _with_truth_columns(table, per_id, args.id_col)
    if args.format == "csv":
        _warn_of_numbers_as_text(table, [args.id_col, "class"])
    _write(table, args.format, args.output, [args.id_col, "class"])


def _warn_of_numbers_as_text(table: pl.DataFrame, keys: Sequence[str]) -> None:
    """Warn of text keys that a CSV reader would read back as other numbers ("01" as 1).

    The long table's class names are the wide file's column names, its ids maybe padded:
    written to CSV and scored from it, they would be typed, and named otherwise.
    """
    for key in keys:
        if table.schema.get(key) != pl.String:
            continue
        text = table[key].drop_nulls().unique()
        if not text.len() or not text.str.contains(_CSV_NUMBER).all():  # (then all text)
            continue
        number = text.cast(pl.Float64, strict=False)
        integer = text.cast(pl.Int64, strict=False)
        typed = integer.cast(pl.String) if not integer.null_count() else number.cast(pl.String)
        changed = pl.DataFrame({"text": text, "typed": typed}).filter(
            pl.col("text") != pl.col("typed")
        )
        if changed.height:
            written, read = changed.sort("text").row(0)
            warnings.warn(
                f"column {key!r}: values such as {written!r} are text that a CSV reader "
                f"types as numbers ({read}), as score reads this file: write parquet "
                "(-o FILE.parquet) to keep them as written",
                UserWarning,
                stacklevel=2,
            )


#: Ids written with a leading zero ("007", "-01"): numbers would merge them with others.
_PADDED = r"^-?0[0-9]"
#: Text a CSV reader types as a number ("+1", " 1" and "nan" stay text).
_CSV_NUMBER = r"^-?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?$"


def _integer_ids(
    scores: pl.LazyFrame, truth: pl.LazyFrame | None, id_col: str
) -> tuple[pl.LazyFrame, pl.LazyFrame | None]:
    """CSV ids read as text (`_run_long`) typed as CSV reading types them, unless padded.

    Beside a parquet file's ids, a CSV's are typed as those where they fit (01 is its 1).
    Of two CSV files, ids written with leading zeros stay text on both, compared as
    written ("007" is no "7"); otherwise each file's ids are typed as the first of Int64,
    Int128 and Float64 that holds them all (1 and 1.0 are told as ids of two types), as
    CSV reading types them.
    """
    sides = [f for f in (scores, truth) if f is not None]
    schemas = [f.collect_schema() for f in sides]  # (once: a CSV's is inferred from its rows)
    if any(id_col not in schema for schema in schemas):
        return scores, truth  # (told later)
    text = [schema[id_col] == pl.String for schema in schemas]
    typed = [schema[id_col] for schema in schemas if schema[id_col] != pl.String]
    if not any(text):
        return scores, truth  # (parquet's own types)
    ids = pl.col(id_col)
    candidates: list[pl.DataType] = [*typed, pl.Int64(), pl.Int128(), pl.Float64()]
    number = ids.str.contains(_CSV_NUMBER) | ids.is_null()
    checks = [ids.str.contains(_PADDED).any().alias("padded")] + [
        (number.all() & (ids.cast(t, strict=False).null_count() == ids.null_count())).alias(
            f"fits{k}"
        )
        for k, t in enumerate(candidates)
    ]
    found = pl.collect_all([f.select(checks) for f, t in zip(sides, text, strict=True) if t])
    rows = iter([kind.row(0) for kind in found])
    fits = [next(rows) if t else None for t in text]
    if not typed and any(row is not None and row[0] for row in fits):  # compared as written
        return scores, truth
    out = [
        f
        if row is None or not any(row[1:])
        else f.with_columns(
            ids.cast(next(c for c, fit in zip(candidates, row[1:], strict=True) if fit))
        )
        for f, row in zip(sides, fits, strict=True)
    ]
    return out[0], out[1] if truth is not None else None


def _with_truth_columns(table: pl.DataFrame, truth: pl.DataFrame, id_col: str) -> pl.DataFrame:
    """The long table with the truth file's other columns (``truth``: one row per id).

    A column of both files (a fold) is kept once, the scores' value or, where that is null,
    the truth file's; one that differs is refused. The scores' float columns whose truth
    is 0/1 are classes that --classes left out: their truth goes with them.
    """
    shared = [c for c in truth.columns if c != id_col and c in table.columns]
    left_out = [
        c
        for c in shared
        if table.schema[c].is_float()
        and (truth.schema[c] == pl.Boolean or truth.schema[c].is_numeric())
        and truth[c].drop_nulls().cast(pl.Float64).is_in([0.0, 1.0]).all()
    ]
    shared = [c for c in shared if c not in left_out]
    for column in shared:
        _check_same_in_both(table, truth, id_col, column)
    theirs = f"{INTERNAL}truth_file"
    joined = table.join(
        truth.drop(left_out), on=id_col, how="left", maintain_order="left", suffix=theirs
    )
    # (In the two columns' common type: a truth of 2.5 beside integers is not cut to 2.)
    return joined.with_columns(pl.coalesce(c, f"{c}{theirs}").alias(c) for c in shared).drop(
        f"{c}{theirs}" for c in shared
    )


def _check_same_in_both(table: pl.DataFrame, truth: pl.DataFrame, id_col: str, column: str) -> None:
    """Refuse a column of the scores and the truth file that differs for some ids.

    Numbers are compared as numbers (a fold 1 and 1.0), other values as text; a null on
    either side differs from nothing (the other side's value is kept).
    """
    mine, theirs = (f"{INTERNAL}{side}" for side in ("scores", "truth_file"))
    both = [table.schema[column], truth.schema[column]]
    as_type = pl.Float64 if all(t.is_numeric() for t in both) else pl.String
    pairs = (
        table.select(id_col, column, pl.col(column).cast(as_type).alias(mine))
        .unique()
        .join(
            truth.select(
                id_col,
                pl.col(column).alias(f"{theirs}_value"),
                pl.col(column).cast(as_type).alias(theirs),
            ),
            on=id_col,
        )
        .filter(pl.col(mine) != pl.col(theirs))
        .sort(id_col)
    )
    if pairs.height:
        ids = pairs[id_col].n_unique()
        key, in_scores, _, in_truth, _ = pairs.row(0)
        raise MetricsInputError(
            f"column {column!r} is in the scores and in the truth file, other for "
            f"{ids:,} {'id' if ids == 1 else 'ids'} ({id_col}={key!r}: {in_scores!r} and "
            f"{in_truth!r}); rename one of them"
        )


def _binary_truth(scores: pl.LazyFrame, id_col: str, truth_col: str, name: str) -> pl.LazyFrame:
    """A binary table's truth, once per id (its models' rows repeat it), as a wide table."""
    require_column(scores.collect_schema(), "id_col", id_col)
    truth = scores.select(id_col, truth_col).unique().collect()
    dtype = truth.schema[truth_col]
    if not (dtype == pl.Boolean or dtype.is_integer() or dtype.is_float()):
        raise MetricsInputError(f"--truth-col {truth_col}: must hold 0/1 values, not {dtype}")
    wrong = (~truth[truth_col].cast(pl.Float64).is_in([0.0, 1.0])).fill_null(True)
    bad = int(wrong.sum())
    if bad:
        example = truth.filter(wrong)[truth_col][0]
        raise MetricsInputError(
            f"--truth-col {truth_col}: {bad:,} {'value is' if bad == 1 else 'values are'} "
            f"neither 0 nor 1, such as {'null' if example is None else repr(example)}"
        )
    repeated = truth.filter(pl.col(id_col).is_duplicated())[id_col].unique()
    if repeated.len():  # (two models' rows of an id disagreeing on its truth)
        raise MetricsInputError(
            f"--truth-col {truth_col}: {repeated.len():,} "
            f"{'id has' if repeated.len() == 1 else 'ids have'} a 0 on some rows and a 1 on "
            f"others, such as {id_col}={repeated.sort()[0]!r}; an id has one truth"
        )
    return truth.lazy().select(id_col, pl.col(truth_col).alias(name))


#: `pl-metrics curves` tells of --max-points when it writes more points than this.
_MANY_POINTS = 100_000


def _run_curves(args: argparse.Namespace) -> None:
    by = _by(args)
    if args.max_classes is not None and args.plot is None:  # (checked before scoring)
        raise MetricsInputError("--max-classes: the panels of a --plot; give --plot FILE too")
    # Plotted, ROC and PR curves are computed whole, so that each legend's AUC or AP is the
    # metric's; --max-points (checked first) thins the table written.
    whole = args.plot is not None and args.kind != "calibration"
    _refuse_typed_unused(args, [_CURVE_METRICS[args.kind]])
    if whole:
        make_options(max_points=args.max_points)
    exact = score(
        args.paths,
        _CURVE_METRICS[args.kind],
        id_col=args.id_col,
        class_col=args.class_col,
        score_col=args.score_col,
        truth_col=args.truth_col,
        weight_col=args.weight_col,
        by=by or None,
        n_bins=args.n_bins,
        strategy=args.strategy,
        max_points=None if whole else args.max_points,
        ragged="allow" if args.allow_ragged else "error",
        validate=not args.no_validate,
        memory_budget=args.memory_budget,
        n_chunks=args.chunks,
        progress=False if args.quiet else None,
    )
    keys, metric = [*by, args.class_col], _CURVE_METRICS[args.kind]
    table = thinned(exact, keys, args.max_points, metric) if whole else exact

    def write_table() -> None:
        _write(table, args.format, args.output, keys)
        # A curve has a point per distinct score: unrounded scores give a row per input row.
        many = table.height > _MANY_POINTS and args.kind != "calibration"
        if many and args.max_points is None and not args.quiet:
            _say(
                f"note: the table has {table.height:,} points, one per distinct score of "
                "each class; --max-points N keeps at most N a class"
            )

    # With --plot, the table goes only into -o's file or in an asked --format: tens of
    # thousands of points on the terminal bury the plot's name. A file is written first (a
    # plot refused still leaves it); the terminal's table only once the plot is drawn, so
    # that a refused plot prints no table under a failing exit status.
    if args.output is not None:
        write_table()
    if not args.plot:
        if args.output is None:
            write_table()
        return
    from pl_metrics import plot

    draw = {"roc": plot.roc_curves, "pr": plot.pr_curves, "calibration": plot.reliability}
    most = MAX_CLASS_PANELS if args.max_classes is None else args.max_classes
    try:
        figure = draw[args.kind](exact, class_col=args.class_col, by=by, max_classes=most)
    except MetricsInputError as error:
        if args.output is None:
            raise
        kept = f"{_first_line(error)} (the table of points is written to {args.output})"
        raise MetricsInputError(kept, problem=error.problem) from error
    if args.output is None and args.format_given:
        write_table()
    with _writing("--plot", args.plot):
        figure.savefig(args.plot)
    classes = exact[args.class_col].n_unique()
    series = exact.select(by).n_unique() if by else 1
    drawn = plot.drawn_classes(args.kind, classes, series, most)
    if drawn < classes:
        _say(f"warning: the plot shows {drawn} of the {classes} classes (--max-classes N)")
    if not args.output and not args.format_given and not args.quiet:
        _say(f"saved the plot to {args.plot}; -o FILE writes the table of points too")


def _run_score(args: argparse.Namespace) -> None:
    if args.per_class and args.average != "macro":  # (the library's words would be its own)
        raise MetricsInputError(
            f"--per-class and --average {args.average}: per-class values are not averaged; "
            "give one of them"
        )
    _refuse_typed_unused(args, _metrics(args.metric), tuned=args.sweep_metric or "f1")
    rowed = [m for m in _metrics(args.metric) if info(m).per_class == "always"]
    if args.per_class and len(rowed) == len(_metrics(args.metric)):  # (a typed flag: used)
        raise MetricsInputError(
            f"--per-class is not used by {', '.join(rowed)}: "
            f"{'it gives' if len(rowed) == 1 else 'they give'} a row per class already"
        )
    options = {
        **_metric_options(args),
        "by": _by(args) or None,
        "per_class": args.per_class,
        "per_id": args.per_id,
        "metric": args.sweep_metric or "f1",
        "thresholds": args.thresholds,
    }
    if args.dask:
        from pl_metrics import dask as on_dask

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
    _write(result, args.format, args.output, [*_by(args), args.class_col, args.id_col])
    _warn_of_groups_all_skipped(args, result)
    given = options["threshold"]  # (the files are scanned again only with thresholds given)
    _warn_of_a_threshold_past_the_scores(args, given, lambda: scan_files(files(args.paths)))


#: Errors of the input, told in one line with status 2. Any other exception is a bug.
_USER_ERRORS = (
    MetricsInputError,
    ChunkError,  # a chunk failed on every try on a Dask worker: a corrupt file, say
    OSError,  # a missing or unreadable file, an --output in a missing folder, a full disk
    pl.exceptions.ComputeError,  # a file that polars cannot read or parse
    pl.exceptions.NoDataError,  # an empty file
    pl.exceptions.SchemaError,  # files that disagree on a column's type
)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line: status 0 when done, 2 for bad input, 1 for an internal error.

    Bad input prints one line ``pl-metrics: error: ...``; an internal error (a bug) prints
    one line saying so; ``--traceback`` shows Python's traceback instead, with the same status.
    """
    args = _parser().parse_args(argv)
    told: set[str] = set()

    def show(message: Warning | str, *_: object, **__: object) -> None:
        # One line, as errors are: "pl-metrics: warning: ...", not a Python file and line;
        # once (compare --against warned of few resamples for each model and metric).
        text = _in_flags(str(message), args)  # (from_wide's classes=[...]: --classes)
        if text not in told:
            told.add(text)
            _say(f"warning: {text}")

    with warnings.catch_warnings():
        warnings.showwarning = show
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    try:
        _dispatch(args)
        sys.stdout.flush()  # a closed pipe shows here, not when Python exits
    except BrokenPipeError:  # `pl-metrics ... | head`: the reader has what it wanted
        return _stdout_closed()
    except KeyboardInterrupt:  # Ctrl-C: one line, and the shell's status for it
        if args.traceback:
            traceback.print_exc()
        _say("interrupted")
        return 130
    except UnknownOptionError as error:
        if error.problem != UNUSED_OPTION:  # the command line passed a keyword it should not
            return _internal_error(error, args)
        return _user_error(error, args)  # a flag that none of the metrics asked for takes
    except _USER_ERRORS as error:
        return _user_error(error, args)
    except (Exception, pl.exceptions.PanicException) as error:
        return _internal_error(error, args)
    return 0


def _user_error(error: Exception, args: argparse.Namespace) -> int:
    """Bad input: one line (status 2), or the traceback with --traceback."""
    if args.traceback:  # shown, with the status of bad input all the same
        traceback.print_exception(error)
        return 2
    _say(f"error: {_user_message(error, args) or type(error).__name__}")
    return 2


def _internal_error(error: BaseException, args: argparse.Namespace) -> int:
    """A bug: one line saying so (status 1), or the traceback with --traceback."""
    if args.traceback:
        traceback.print_exception(error)
        return 1
    detail = _first_line(error)
    _say(
        f"internal error: {type(error).__name__}{': ' if detail else ''}{detail} (a bug "
        f"in pl-metrics {__version__}; please report it with the output of this command "
        "run with --traceback)"
    )
    return 1


def _dispatch(args: argparse.Namespace) -> None:
    # polars panics at its first parallel step with no threads (a bug's status, 1): told.
    threads = os.environ.get("POLARS_MAX_THREADS", "").strip()
    if threads.lstrip("+-").isdigit() and int(threads) == 0:  # (a negative one is ignored)
        raise MetricsInputError(
            f"POLARS_MAX_THREADS={threads}: polars needs at least one thread; unset it, or "
            "give a positive number"
        )
    # A table asked for on the terminal (a --format, or -o -): a plot's table printed too.
    args.format_given = args.format is not None or getattr(args, "output", None) == "-"
    if getattr(args, "output", None) == "-":  # stdout, as Unix tools read it (no file "-")
        if args.format == "parquet":
            raise MetricsInputError("--format parquet is written to a file: -o FILE, not -o -")
        args.output = None
    args.format = _output_format(args.format, args.output)  # once, before any scoring
    for option in ("output", "plot"):
        _check_folder(option, getattr(args, option, None))
    if getattr(args, "plot", None):
        _check_plot_file(args.plot)
        if args.output and Path(args.output).resolve() == Path(args.plot).resolve():
            raise MetricsInputError(
                f"--output and --plot both name {args.output!r}: the plot would replace the "
                "table; name two files"
            )
    _check_not_read(args)
    if args.command == "compare":
        _run_compare(args)
    elif args.command == "curves":
        _run_curves(args)
    elif args.command == "thresholds":
        _run_thresholds(args)
    elif args.command == "long":
        _run_long(args)
    else:
        _run_score(args)


def _check_plot_file(path: str) -> None:
    """A --plot file of a kind matplotlib writes, told before any work is done."""
    try:
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError:
        raise MetricsInputError('--plot needs matplotlib: pip install "pl_metrics[plot]"') from None
    kinds = set(FigureCanvasBase.get_supported_filetypes())
    import matplotlib

    if shutil.which(matplotlib.rcParams["pgf.texsystem"]) is None:  # (else told after the work)
        kinds.discard("pgf")
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in kinds:
        raise MetricsInputError(
            f"--plot {path!r}: name a file ending in one of .{', .'.join(sorted(kinds))}"
        )


def _check_folder(option: str, path: str | None) -> None:
    """A file to write goes in a folder that exists: told before any work is done."""
    if path is None or "://" in path:  # a URL: its store tells
        return
    if not path:  # (Path("") is the working folder)
        raise MetricsInputError(f"--{option} '': name a file")
    if Path(path).is_dir():
        raise MetricsInputError(f"--{option} {path!r} is a folder: name a file in it")
    folder = Path(path).parent
    if not folder.is_dir():
        raise MetricsInputError(f"--{option} {path!r}: the folder {str(folder)!r} does not exist")


def _check_not_read(args: argparse.Namespace) -> None:
    """An --output that is not a file the command reads, nor one its next run would read.

    Written over an input, it replaced the predictions with their scores; written into a
    folder (or glob) that is scored, the next run read it as a shard of predictions.
    """
    if args.output is None or "://" in args.output:
        return
    target = Path(args.output).resolve()
    read = [getattr(args, "threshold_table", None), getattr(args, "truth", None)]
    inputs = [*args.paths, *(t for t in read if t)]
    for given in inputs:
        if "://" in str(given):
            continue
        item = os.path.expanduser(str(given))  # (as the scans read it)
        whole = Path(item).resolve()
        if target == whole or _same_file(target, whole):  # (a hard link too)
            raise MetricsInputError(
                f"--output {args.output!r} is an input of this command: writing it would "
                "replace the data read; name another file"
            )
        if whole.is_dir() and target.is_relative_to(whole) and kind_of(target):
            raise MetricsInputError(
                f"--output {args.output!r} is in the folder {str(item)!r} that is scored: the "
                "next run would read the results as predictions; write it outside the folder"
            )
        # (An existing name of "[" is read as itself, not as a pattern.)
        if any(c in item for c in "*?[") and not whole.exists() and _glob_matches(target, item):
            raise MetricsInputError(
                f"--output {args.output!r} matches {str(item)!r}, which is scored: the next run "
                "would read the results as predictions; name a file the pattern does not match"
            )


def _same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` are one file (hard links of it too); False if one is not."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _glob_matches(path: Path, pattern: str) -> bool:
    """Whether ``glob.glob(pattern, recursive=True)`` would find ``path`` (a resolved path).

    The pattern's folders before its first wildcard are resolved as ``path`` was (links);
    ``**`` spans any number of folders, as in `pl_metrics._io.files`.
    """
    parts = Path(os.path.abspath(pattern)).parts
    wild = next(i for i, part in enumerate(parts) if any(c in part for c in "*?["))
    base = Path(*parts[:wild]).resolve().parts

    def match(names: tuple[str, ...], patterns: tuple[str, ...]) -> bool:
        if not patterns:
            return not names
        head, rest = patterns[0], patterns[1:]
        if head == "**":
            return any(match(names[i:], rest) for i in range(len(names) + 1))
        return bool(names) and fnmatch.fnmatchcase(names[0], head) and match(names[1:], rest)

    return match(path.parts, (*base, *parts[wild:]))


def _say(line: str) -> None:
    print(f"pl-metrics: {line}", file=sys.stderr)


def _first_line(error: BaseException) -> str:
    """An exception's message as one printable line (raw bytes and newlines escaped)."""
    text = str(error).strip()
    if not text or isinstance(error, MetricsInputError):
        return printable(text)  # written as one line; a name in it may hold odd characters
    return printable(text.splitlines()[0])  # polars adds lines of context


#: The library's hints in its messages, as the command line's flags say them.
_FLAG_HINTS = {
    "pass undefined='skip'": "pass --skip-undefined",
    "pass ragged='allow'": "pass --allow-ragged",
    "per_id=True then": "--per-id then",
}


#: The library's names of options whose flags are named otherwise.
_LIBRARY_OPTIONS = {
    "n_chunks": "chunks",
    "metrics": "metric",
    "n_resamples": "bootstrap",
    "model_a": "against",
    "client": "dask",
    "undefined": "skip_undefined",
    "ragged": "allow_ragged",
    "validate": "no_validate",
    "metric": "sweep_metric",  # score's; thresholds' is --metric
}


def _flags(command: str) -> dict[str, str]:
    """The long flag of each option of ``command``, by its argparse destination."""
    actions = _parser().commands()[command]._actions
    return {a.dest: max(a.option_strings, key=len) for a in actions if a.option_strings}


def _user_message(error: BaseException, args: argparse.Namespace) -> str:
    return _in_flags(_first_line(error), args)


def _in_flags(message: str, args: argparse.Namespace) -> str:
    """A message of the library as the command line says it: its flags, not Python."""
    for hint, replacement in _FLAG_HINTS.items():
        message = message.replace(hint, replacement)
    message = re.sub(r"^from_wide: ", "long: ", message)  # (the command that called it)
    message = message.replace("; chunk_key says which)", ")")  # (a Python function's)
    # The data hints show Python; on the command line the fix is in the file.
    message = re.sub(
        r"map its values to booleans first, e\.g\. pl\.col\('[^']*'\) == 'true' "
        r"\(the text of a positive\)",
        "write its values as true/false or 1/0 in the file",
        message,
    )
    message = re.sub(
        r"map them to booleans first, e\.g\. pl\.col\('[^']*'\) == .* marks a positive$",
        "write them as true/false or 1/0 in the file",
        message,
    )
    message = re.sub(
        r"pl\.col\('[^']*'\)\.cast\(pl\.Float64\) names the values that are not",
        "find the values that are not (NA, say) and fix or drop those rows",
        message,
    )
    message = re.sub(
        r"numbers as text: cast them, pl\.col\('[^']*'\)\.cast\(pl\.Float64\)",
        "numbers as text: write them as numbers",
        message,
    )
    message = message.replace(
        "to read a file without them, score pl.scan_parquet(file), a LazyFrame",
        "to score a file without them, copy it out of those folders",
    )
    message = message.replace(
        "pl_metrics.from_wide makes the long table, a row per id and class",
        "pl-metrics long makes the long table, a row per id and class",
    ).replace(" (from_numpy(y_true, y_score) of scores without ids)", " (of a file with ids)")
    # (long: integer 0/1 score columns; a file cannot be cast, --classes takes them as classes)
    message = message.replace(
        "if they are classes, cast their scores to float; if not, drop them from the truth "
        "table (or name the class columns with classes=[...])",
        "if they are classes, name every class column with --classes A,B,...; if not, drop "
        "them from the truth file",
    )
    message = message.replace(
        "if they are classes (a CSV writes scores of 0 and 1 as integers), cast them to "
        "float; if not (a fold), name the classes with classes=[...]",
        "name every class column with --classes A,B,... (these too if they are classes: a "
        "CSV writes scores of 0 and 1 as integers)",
    )
    message = re.sub(
        r"\(a CSV writes a class scored 0 everywhere as integers\): cast (it|them) to float",
        r"(a CSV writes a class scored 0 everywhere as integers): name every class column "
        r"with --classes A,B,...",
        message,
    )
    message = message.replace("classes=[...]", "--classes A,B,...")  # (pl-metrics long's)
    message = re.sub(r"pass separator=('[^']+')", r"pass --separator \1", message)
    message = message.replace(  # (long: ids 1 in one file, 1.0 in the other)
        "cast one table's ids to the other's type", "write the ids alike in both files"
    )
    message = re.sub(  # (compare of one model's dump)
        r"add one of one value \(pl\.lit\('mine'\)\.alias\('[^']*'\)\), or score its folds "
        r"with report\(\.\.\., by=its fold column\)",
        "score its folds with pl-metrics score --by (its fold column)",
        message,
    )
    message = re.sub(  # (a binary table: id, target, prediction)
        r"add one \(class 1 on every row, say; in polars, pl\.lit\(1\)\.alias\('[^']*'\)\)",
        "pl-metrics long FILE --truth-col COL makes one",
        message,
    )
    message = re.sub(  # (a CSV of ';' and decimal commas: no flag reads it)
        r"save it with ',' between fields, or score pl\.scan_csv\(.*?infer_schema_length=\d+\)",
        "save it with ',' between fields and '.' in numbers",
        message,
    )
    message = re.sub(  # (a Decimal column's)
        r"cast them first: pl\.col\('[^']*'\)\.cast\(pl\.Float64\)",
        "write them as floats (Float64) first",
        message,
    )
    # The plots' advice on too many lines is Python's: on the command line, the input's.
    message = re.sub(
        r"filter the table first, e\.g\. table\.filter\(pl\.col\('([^']*)'\)[^;]*?\)"
        r"(, or group by fewer columns)?",
        r"plot fewer values of \1 (filter the input first), or pass fewer --by columns",
        message,
    )
    # The library's functions by the commands: compare's advice to pool the folds.
    message = re.sub(
        r"\breport\(\.\.\., by='([^']*)'\)",
        lambda m: f"pl-metrics score --by {shlex.quote(m[1])}",
        message,
    )
    # The library's options by the command's flags: "option 'per_class'" is --per-class.
    flags = _flags(args.command)
    if getattr(args, "threshold_table", None):  # the library's option was given as a file
        flags["threshold"] = "--threshold-table"
    if "per_class" in flags:
        message = message.replace("average=None", "--per-class")
    message = re.sub(r"\baverage='(\w+)'", r"--average \1", message)

    def flag(name: str) -> str | None:
        return flags.get(_LIBRARY_OPTIONS.get(name, name)) or flags.get(name)

    message = re.sub(
        r"\boptions '(\w+)' and '(\w+)'",
        lambda m: f"{flag(m[1])} and {flag(m[2])}" if flag(m[1]) and flag(m[2]) else m[0],
        message,
    )
    message = re.sub(r"\boption '(\w+)'", lambda m: flag(m[1]) or m[0], message)
    # Roles named in the text: "'class' is the class_col", "also in 'by'".
    message = re.sub(r"\bthe (\w+_col)\b", lambda m: f"the {flag(m[1]) or m[1]}", message)
    message = re.sub(  # "pass truth_col='label'": --truth-col label
        r"""\bpass (\w+_col)=('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")""",  # (a name's repr)
        lambda m: (
            f"pass {flag(m[1])} {shlex.quote(ast.literal_eval(m[2]))}" if flag(m[1]) else m[0]
        ),
        message,
    )
    if "by" in flags:
        message = message.replace("in 'by'", "in --by")
    if "per_class" in flags:
        message = re.sub(r"(\(it takes .*?)\bNone\)", r"\1--per-class)", message)
    if "per_id" in flags:
        message = message.replace("without per_id", "without --per-id")
    if args.command == "curves":  # the library's takers of an option are kinds here
        kinds = {metric: kind for kind, metric in _CURVE_METRICS.items()}

        def by_kind(m: re.Match[str]) -> str:
            takers = [f"--kind {kinds[t]}" for t in m[2].split(", ") if t in kinds]
            if not takers:  # an option of no curve: the library's words
                return m[0]
            return f"{m[1]} is not used by --kind {args.kind}; it is for {' and '.join(takers)}"

        message = re.sub(
            r"(--[\w-]+) is not used by \w+; the metrics that take it: (.*)", by_kind, message
        )
    # The duplicate rows' hints name Python's option (`pl_metrics._frame.by_hint`) and method.
    message = message.replace(
        "rows repeated whole (a file read twice) go with .unique()",
        "rows repeated whole (a file read twice, or copied into two files) must be removed",
    )
    message = re.sub(  # (compare --bootstrap of a metric that takes no weights)
        r"\(and score (it|them) with report\)", r"(and score \1 with pl-metrics score)", message
    )
    message = re.sub(
        r"score them by=(\[.*?\]) with report",
        lambda m: f"score them with pl-metrics score --by {_by_argument(m.group(1))}",
        message,
    )
    return re.sub(
        r"(pass|or) by=(\[.*?\]) (if each|to apply)",
        lambda m: f"{m.group(1)} --by {_by_argument(m.group(2))} {m.group(3)}",
        message,
    )


def _by_argument(names: str) -> str:
    """Python's ``by=[...]`` (its repr) as the --by argument a shell passes whole."""
    return shlex.quote(",".join(ast.literal_eval(names)))


def _stdout_closed() -> int:
    """Stop writing quietly to a closed pipe, with the status of a process that SIGPIPE ended.

    Python's flush of stdout at exit would fail again and print "Exception ignored": stdout
    is pointed at the null device first (Python docs, "Note on SIGPIPE").
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 128 + 13  # 128 + SIGPIPE, as `seq 9 | head -1` gives for seq


if __name__ == "__main__":
    sys.exit(main())
