"""Every fact about every metric, in one place.

The command line's metric list, `compare`'s sort direction, the driver's chunk key and the
option checks are derived from `METRICS`; the namespace methods, ``__all__`` and the
README's API table are checked against it: ``tests/test_registry.py`` fails when an entry
lacks a fact or when a metric function, the namespace or the README disagree with it.
Adding a metric is one family module (a `pl_metrics._state.Family` and a public function)
plus one entry here.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal

__all__ = [
    "COMMON_OPTIONS",
    "METRICS",
    "METRIC_OPTIONS",
    "ChunkKey",
    "MetricInfo",
    "api_table",
    "function",
    "info",
    "metric_names",
    "suggestion",
    "sweepable",
]

#: Options every metric takes (the columns of the long table and the data-check switches).
COMMON_OPTIONS = ("id_col", "class_col", "score_col", "truth_col", "by", "ragged", "validate")
#: Options that only some metrics take; each entry lists those it takes.
METRIC_OPTIONS = (
    "weight_col",
    "threshold",
    "pred_col",
    "average",
    "zero_division",
    "per_class",
    "beta",
    "eps",
    "class_weights",
    "k",
    "padding",
    "undefined",
    "n_bins",
    "strategy",
    "max_points",
    "metric",
    "thresholds",
    "fold_col",
    "max_fpr",
    "per_id",
)
ChunkKey = Literal["id", "class"]
_THRESHOLD = frozenset({"weight_col", "threshold", "pred_col", "average", "zero_division"})
_ALL_AVERAGES = (None, "macro", "micro", "weighted", "samples")


@dataclass(frozen=True)
class MetricInfo:
    """The facts of one metric.

    ``per_class`` says when it gives one row per class: ``"always"`` (a table per class),
    ``"option"`` (with ``per_class=True``, or ``average=None`` where it takes ``average``),
    or ``"never"``.
    """

    name: str
    module: str  # the family module under pl_metrics that defines it
    higher_is_better: bool | None  # None: a table of counts, not a score to sort by
    chunk_key: ChunkKey  # the key that parts of a table must not split for states to merge
    options: frozenset[str]  # of METRIC_OPTIONS
    averages: tuple[str | None, ...]  # the values of `average` it accepts; () if none
    per_class: Literal["always", "option", "never"]
    sklearn: str  # its scikit-learn equivalent (or the reference it follows), for the docs
    notes: str = ""
    signature: str = ""  # the options the README's table shows
    #: ``"metric"``: one value per group (or class); ``"curve"``: a table of points per class.
    kind: Literal["metric", "curve"] = "metric"
    #: Options that may also be passed by position, after the frame, in this order.
    positional: tuple[str, ...] = ()
    #: A group whose weights are all zero: an error (scikit-learn refuses such weights for
    #: most metrics) or NaN (its LRAP divides by them); ``"sum"``: weights that sum to zero
    #: (negative ones among them) are an error too, for a mean weighted by them.
    zero_weights: Literal["error", "sum", "nan"] = "error"
    #: The result's columns besides its keys: its name alone, unless given here.
    columns: tuple[str, ...] = ()
    #: The columns it adds when it gives a row per class.
    class_columns: tuple[str, ...] = ()
    #: Whether it breaks ties by the classes' order (scikit-learn's sorted labels): Struct
    #: classes, which polars does not compare, are refused.
    orders_classes: bool = False

    @property
    def weights(self) -> bool:
        """Whether it takes per-id sample weights (``weight_col``)."""
        return "weight_col" in self.options


def _thresholded(name: str, sklearn: str, notes: str, samples: bool) -> MetricInfo:
    """A metric of each class's confusion counts with every option of `f1`."""
    averages = _ALL_AVERAGES if samples else _ALL_AVERAGES[:-1]
    return MetricInfo(
        name,
        "_thresholded",
        True,
        "id",
        _THRESHOLD,
        averages,
        "option",
        sklearn,
        notes,
        "threshold, pred_col, by, weight_col, average, zero_division" if name == "f1" else "...",
    )


METRICS: dict[str, MetricInfo] = {
    m.name: m
    for m in (
        MetricInfo(
            "lwlrap",
            "_ranking",
            True,
            "id",
            frozenset({"weight_col", "per_class"}),
            (),
            "option",
            "none (DCASE 2019 reference code)",
            "`per_class=True`: rows `(by..., class, lwlrap, weight)`, "
            "`sum(lwlrap * weight)` is the overall value",
            "by, weight_col, per_class",
            zero_weights="nan",
            class_columns=("weight",),
        ),
        MetricInfo(
            "lrap",
            "_ranking",
            True,
            "id",
            frozenset({"weight_col"}),
            (),
            "never",
            "`label_ranking_average_precision_score`",
            signature="by, weight_col",
            zero_weights="nan",
        ),
        MetricInfo(
            "coverage_error",
            "_ranking",
            False,
            "id",
            frozenset({"weight_col"}),
            (),
            "never",
            "`coverage_error`",
            signature="by, weight_col",
            zero_weights="sum",
        ),
        MetricInfo(
            "label_ranking_loss",
            "_ranking",
            False,
            "id",
            frozenset({"weight_col"}),
            (),
            "never",
            "`label_ranking_loss`",
            signature="by, weight_col",
            zero_weights="sum",
        ),
        MetricInfo(
            "ndcg",
            "_ndcg",
            True,
            "id",
            frozenset({"weight_col", "k"}),
            (),
            "never",
            "`ndcg_score` with the 0/1 truth as relevance",
            "ties share their positions' discounts, as sklearn; no positive: 0",
            "k, by, weight_col",
            zero_weights="sum",
        ),
        MetricInfo(
            "confusion",
            "_thresholded",
            None,
            "id",
            frozenset({"weight_col", "threshold", "pred_col"}),
            (),
            "always",
            "`multilabel_confusion_matrix`",
            "rows `(by..., class, tp, fp, fn, tn)`",
            "threshold, pred_col, by, weight_col",
            columns=("tp", "fp", "fn", "tn"),
        ),
        _thresholded(
            "f1",
            "`f1_score` on the indicator matrix",
            "`average`: None (per class), macro (the default, for every metric with an "
            "`average`), micro, weighted, samples",
            samples=True,
        ),
        _thresholded("precision", "`precision_score`", "as `f1`", samples=True),
        _thresholded("recall", "`recall_score`", "as `f1`", samples=True),
        _thresholded(
            "balanced_accuracy",
            "`balanced_accuracy_score` per class",
            "(TPR + TNR) / 2; see differences below; no `samples`",
            samples=False,
        ),
        _thresholded(
            "balanced_f1",
            "none (BirdCLEF 2022 metrics notebook)",
            "2·TPR·TNR / (TPR + TNR); no `samples`",
            samples=False,
        ),
        _thresholded(
            "mfif",
            '`f1_score(average="macro", labels=[0, 1])` per class',
            "mean of F1 and inverted F1 (BirdCLEF 2022); no `samples`",
            samples=False,
        ),
        MetricInfo(
            "fbeta",
            "_thresholded",
            True,
            "id",
            _THRESHOLD | {"beta"},
            _ALL_AVERAGES,
            "option",
            "`fbeta_score` on the indicator matrix",
            "recall weighs `beta` times as much as precision (0: precision); averages as `f1`",
            "beta, threshold, pred_col, by, weight_col, average, zero_division",
        ),
        _thresholded(
            "jaccard",
            "`jaccard_score` on the indicator matrix",
            "tp / (tp + fp + fn); options as `f1`",
            True,
        ),
        MetricInfo(
            "specificity",
            "_thresholded",
            True,
            "id",
            _THRESHOLD,
            _ALL_AVERAGES[:3],
            "option",
            "`recall_score(pos_label=0)` per class",
            "true negative rate tn / (tn + fp); options as `f1`; averages None, macro, micro",
            "...",
        ),
        MetricInfo(
            "matthews_corrcoef",
            "_thresholded",
            True,
            "id",
            _THRESHOLD - {"zero_division"},
            _ALL_AVERAGES[:3],
            "option",
            "`matthews_corrcoef` per class column",
            "micro: of the counts pooled over classes; 0 where undefined, as sklearn",
            "threshold, pred_col, by, weight_col, average",
        ),
        MetricInfo(
            "hamming_loss",
            "_thresholded",
            False,
            "id",
            frozenset({"weight_col", "threshold", "pred_col"}),
            (),
            "never",
            "`hamming_loss` on the indicator matrix",
            "share of (id, class) cells predicted wrong",
            "threshold, pred_col, by, weight_col",
            zero_weights="sum",
        ),
        MetricInfo(
            "accuracy",
            "_thresholded",
            True,
            "id",
            frozenset({"weight_col", "threshold", "pred_col"}),
            (),
            "never",
            "`accuracy_score` on the indicator matrix",
            "share of ids whose whole label set is predicted exactly",
            "threshold, pred_col, by, weight_col",
            zero_weights="sum",
        ),
        MetricInfo(
            "log_loss",
            "_logloss",
            False,
            "id",
            frozenset({"weight_col", "eps"}),
            (),
            "never",
            "`log_loss`",
            "one true class per id; rows used as given",
            "by, weight_col, eps",
            zero_weights="sum",
        ),
        MetricInfo(
            "weighted_log_loss",
            "_logloss",
            False,
            "id",
            frozenset({"eps", "class_weights"}),
            (),
            "never",
            "none (Mayo Clinic STRIP AI, Kaggle)",
            "rows rescaled to sum 1; per-class means, class-weighted",
            "by, class_weights, eps",
        ),
        MetricInfo(
            "roc_auc",
            "_curves",
            True,
            "class",
            frozenset({"weight_col", "average", "undefined", "max_fpr"}),
            _ALL_AVERAGES,
            "option",
            "`roc_auc_score` on the indicator matrix",
            "a class without positives or negatives (or whose positives all weigh 0, under "
            'any average, `"weighted"` too, where scikit-learn weighs that class 0): error '
            "naming it (ids, for `samples`: "
            'counted, and named by `per_id=True` with `undefined="skip"`, as nulls), '
            'or `undefined="skip"` (BirdCLEF 2024; a group left with no class: NaN); '
            "`max_fpr`: McClish-standardised partial AUC",
            "by, weight_col, average, undefined, max_fpr",
        ),
        MetricInfo(
            "average_precision",
            "_curves",
            True,
            "class",
            frozenset({"weight_col", "average"}),
            _ALL_AVERAGES,
            "option",
            "`average_precision_score`",
            "step-wise; a class without positives scores 0, as sklearn",
            "by, weight_col, average",
        ),
        MetricInfo(
            "padded_cmap",
            "_curves",
            True,
            "class",
            frozenset({"padding", "per_class"}),
            (),
            "option",
            "none (BirdCLEF 2023)",
            "padding rows (truth 1, score 1) added to the state's sums; scores in [0, 1]",
            "padding, by, per_class",
        ),
        MetricInfo(
            "brier_score",
            "_curve_tables",
            False,
            "class",
            frozenset({"weight_col", "average"}),
            (None, "macro"),
            "option",
            "`brier_score_loss` per class column",
            "mean of (score - truth)²; scores are probabilities; `average` None or `macro` "
            "(no micro)",
            "by, weight_col, average",
            zero_weights="sum",
        ),
        MetricInfo(
            "binary_log_loss",
            "_curve_tables",
            False,
            "class",
            frozenset({"weight_col", "average", "eps"}),
            (None, "macro", "micro"),
            "option",
            "`log_loss` per class column; micro: over all cells",
            "each (id, class) cell a binary problem; macro: mean column-wise log loss",
            "by, weight_col, average, eps",
            zero_weights="sum",
        ),
        MetricInfo(
            "expected_calibration_error",
            "_curve_tables",
            False,
            "class",
            frozenset({"average", "n_bins", "strategy"}),
            (None, "macro"),
            "option",
            "none: count-weighted mean of abs(prob_true - prob_pred) over the non-empty "
            "bins of `calibration_curve`",
            "sklearn's bins: a score on an edge goes to the lower bin; `average` None or `macro`",
            "n_bins, strategy, by, average",
        ),
        MetricInfo(
            "roc_curve",
            "_curve_tables",
            None,
            "class",
            frozenset({"weight_col", "max_points"}),
            (),
            "always",
            "`roc_curve(drop_intermediate=False)` per class",
            "rows `(by..., class, threshold, fpr, tpr)`, first row at threshold inf",
            "by, weight_col, max_points",
            "curve",
            columns=("threshold", "fpr", "tpr"),
        ),
        MetricInfo(
            "precision_recall_curve",
            "_curve_tables",
            None,
            "class",
            frozenset({"weight_col", "max_points"}),
            (),
            "always",
            "`precision_recall_curve` per class",
            "rows `(by..., class, threshold, precision, recall)`; last: 1, 0, null threshold",
            "by, weight_col, max_points",
            "curve",
            columns=("threshold", "precision", "recall"),
        ),
        MetricInfo(
            "calibration_curve",
            "_curve_tables",
            None,
            "class",
            frozenset({"n_bins", "strategy"}),
            (),
            "always",
            "`sklearn.calibration.calibration_curve` per class",
            "rows `(by..., class, bin, prob_pred, prob_true, count)`, non-empty bins; "
            "`n_bins=10` by default (scikit-learn's is 5)",
            "n_bins, strategy, by",
            "curve",
            columns=("bin", "prob_pred", "prob_true", "count"),
        ),
        MetricInfo(
            "threshold_sweep",
            "_thresholds",
            None,
            "class",
            frozenset({"weight_col", "metric", "thresholds", "zero_division", "beta"}),
            (),
            "always",
            "a thresholded metric of `score >= t` per class, e.g. `f1_score`, at each `t`",
            "rows `(by..., class, threshold, value)`, every threshold in one pass",
            "metric, thresholds, by, weight_col, zero_division, beta",
            "curve",
            ("metric", "thresholds"),
            columns=("threshold", "value"),
        ),
        MetricInfo(
            "best_threshold",
            "_thresholds",
            None,
            "class",
            frozenset({"weight_col", "metric", "fold_col", "zero_division", "beta"}),
            (),
            "always",
            "none: the distinct score maximising the metric of `score >= t`, per class",
            "rows `(by..., class, threshold, value)`; ties: the highest threshold; `fold_col`: "
            "`held_out_value`, each fold scored with thresholds tuned on the other folds, its "
            "held-out predictions pooled",
            "metric, by, fold_col, weight_col, zero_division, beta",
            "curve",
            ("metric",),
            columns=("threshold", "value", "held_out_value"),
        ),
        MetricInfo(
            "top_k_accuracy",
            "_curves",
            True,
            "id",
            frozenset({"weight_col", "k"}),
            (),
            "never",
            "`top_k_accuracy_score`",
            "one true class per id; `k=1` by default (scikit-learn's is 2); sklearn's tie "
            "order (later label first; labels sorted, categoricals by their text, an enum's "
            "in its declared order)",
            "k, by, weight_col",
            zero_weights="sum",
            orders_classes=True,
        ),
    )
}


#: Metrics that are means over ids: ``per_id=True`` gives each id's value instead.
_PER_ID = (
    "lwlrap",
    "lrap",
    "coverage_error",
    "label_ranking_loss",
    "log_loss",
    "weighted_log_loss",
    "top_k_accuracy",
    "ndcg",
    "accuracy",
    "hamming_loss",
    "f1",
    "precision",
    "recall",
    "fbeta",
    "jaccard",
    "roc_auc",
    "average_precision",
)
METRICS.update(
    {name: replace(METRICS[name], options=METRICS[name].options | {"per_id"}) for name in _PER_ID}
)


def sweepable() -> list[str]:
    """Metrics of one class's confusion counts: those a threshold can be swept or tuned for."""
    return [n for n, e in METRICS.items() if e.module == "_thresholded" and e.per_class == "option"]


def metric_names() -> list[str]:
    """Every registered metric, in the registry's order.

    Returns
    -------
    list of str
        The metrics' names, as `report` and `score` take them.

    Examples
    --------
    >>> import pl_metrics
    >>> pl_metrics.metric_names()[:4]
    ['lwlrap', 'lrap', 'coverage_error', 'label_ranking_loss']
    """
    return list(METRICS)


def suggestion(name: str, choices: Iterable[str]) -> str:
    """What to say of an unknown metric ``name``: ours, or the close ``choices``.

    Ours if ``name`` is scikit-learn's (``f1_score``: ``f1``); "" if nothing is close.
    """
    from pl_metrics._frame import did_you_mean

    ours = _SKLEARN_NAMES.get(name.lower())  # (F1_score too)
    if ours is not None:
        return f"scikit-learn's {name.lower()} is {ours!r} here"
    plain = name.lower().replace("-", "_")
    short = _SHORT_NAMES.get(plain)
    if short is not None:
        return f"did you mean {short!r}?"
    # An average in the name (macro_f1, roc_auc_micro): the metric with that average.
    averaged = re.fullmatch(
        r"(macro|micro|weighted|samples)_(\w+)|(\w+)_(macro|micro|weighted|samples)", plain
    )
    if averaged is not None:
        average = averaged.group(1) or averaged.group(4)
        rest = averaged.group(2) or averaged.group(3)
        metric = _SHORT_NAMES.get(rest, _SKLEARN_NAMES.get(rest, rest))
        if metric in METRICS and average in METRICS[metric].averages:
            return f"did you mean {metric!r} with average={average!r}?"
    f_beta = re.fullmatch(r"f_?(\d+(?:\.\d+)?)(?:_score)?", name.lower())
    # F2, the Kaggle metric, say (F1 is f1: below)
    if f_beta is not None and name.lower() not in METRICS and float(f_beta.group(1)) != 1:
        beta = f_beta.group(1)
        if set(beta) == {"1"}:  # f11: a key held down
            return "did you mean 'f1'?"
        if beta.startswith("0") and beta.isdigit() and len(beta) > 1:  # F05: Kaggle's F0.5
            beta = f"0.{beta[1:]}"
        return f"F-beta with beta={beta} is 'fbeta' with beta={beta}"
    listed = [part.strip() for part in name.split(",")]
    if len(listed) > 1 and all(part in METRICS for part in listed):  # the CLI's -m lrap,f1
        return f"several metrics are a list: {listed!r}"
    # Spelled without underscores, or with scikit-learn's "score": f1score, rocauc.
    bare = re.sub(r"_?score$", "", name.lower()).replace("_", "")
    same = [c for c in choices if c.replace("_", "") == bare and c != name]
    return f"did you mean {same[0]!r}?" if same else did_you_mean(name, choices)


def _sklearn_names() -> dict[str, str]:
    """scikit-learn's function name of each metric that has one of its own."""
    names: dict[str, str] = {}
    for entry in METRICS.values():  # the first metric of a function takes it (f1, not mfif)
        found = re.match(r"`(?:sklearn\.\w+\.)?(\w+)", entry.sklearn)
        if found and found.group(1) not in METRICS:
            names.setdefault(found.group(1), entry.name)
    return names


def info(metric: str) -> MetricInfo:
    """The registry entry of ``metric``; unknown names raise, suggesting close ones."""
    entry = METRICS.get(metric) if isinstance(metric, str) else None
    if entry is None:
        from pl_metrics._frame import MetricsInputError

        close = suggestion(str(metric), METRICS)
        hint = f"; {close}" if close else ""
        raise MetricsInputError(
            f"unknown metric {metric!r}{hint} (expected one of {', '.join(METRICS)})"
        )
    return entry


def function(metric: str) -> Callable[..., Any]:
    """The public function computing ``metric`` (``pl_metrics.lrap`` for ``"lrap"``)."""
    entry = info(metric)
    module = importlib.import_module(f"pl_metrics.{entry.module}")
    found: Callable[..., Any] = getattr(module, entry.name)
    return found


def api_table() -> str:
    """The README's API table, made from the registry (a test keeps the README equal to it)."""
    rows = ["| method | scikit-learn equivalent | notes |", "|---|---|---|"]
    for entry in METRICS.values():
        rows.append(f"| `{entry.name}({entry.signature})` | {entry.sklearn} | {entry.notes} |")
    return "\n".join(rows)


#: scikit-learn's name of a metric, where it differs from ours: ``f1_score`` is ``f1``.
_SKLEARN_NAMES: dict[str, str] = _sklearn_names()

#: The short names people use, whose closest spelling would be another metric ("acc" is
#: closest to "jaccard", "ap" to "lrap", "pr_auc" to "roc_auc").
_SHORT_NAMES: dict[str, str] = {
    "acc": "accuracy",
    "ap": "average_precision",
    "map": "average_precision",
    "pr_auc": "average_precision",
    "auprc": "average_precision",
    "auc": "roc_auc",
    "auroc": "roc_auc",
    "auc_roc": "roc_auc",
    "mcc": "matthews_corrcoef",
    "ece": "expected_calibration_error",
    "cmap": "padded_cmap",
    "bce": "binary_log_loss",
    "top_k": "top_k_accuracy",
    "topk": "top_k_accuracy",
}
