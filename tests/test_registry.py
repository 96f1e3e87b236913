"""The registry is the one place metric facts live: everything else must agree with it."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import math
import typing
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import pl_metrics
from pl_metrics import _namespace, _registry
from pl_metrics._registry import COMMON_OPTIONS, METRIC_OPTIONS, METRICS, MetricInfo
from pl_metrics.cli import main

README = Path(__file__).parent.parent / "README.md"


@pytest.mark.parametrize("entry", list(METRICS.values()), ids=list(METRICS))
def test_every_entry_has_every_fact(entry: MetricInfo) -> None:
    for field in dataclasses.fields(entry):
        if field.name not in ("notes",):
            value = getattr(entry, field.name)
            assert value is not None or field.name == "higher_is_better", field.name
            assert value != "" or field.name == "notes", f"{entry.name}: {field.name} is empty"
    assert entry.chunk_key in ("id", "class")
    assert entry.options <= set(METRIC_OPTIONS), entry.options - set(METRIC_OPTIONS)
    assert ("average" in entry.options) == bool(entry.averages)
    assert entry.per_class in ("always", "option", "never")
    if entry.higher_is_better is None:
        assert entry.per_class == "always"  # only tables of counts have no direction


@pytest.mark.parametrize("name", list(METRICS))
def test_the_function_takes_exactly_the_registered_options(name: str) -> None:
    function = _registry.function(name)
    assert getattr(pl_metrics, name) is function
    parameters = inspect.signature(function).parameters
    first, *options = parameters
    assert first == "frame"
    positional = [o for o in options if parameters[o].kind is not inspect.Parameter.KEYWORD_ONLY]
    assert tuple(positional) == METRICS[name].positional  # the rest are keyword-only
    assert set(options) == set(COMMON_OPTIONS) | METRICS[name].options
    assert function.__doc__
    assert "Examples" in function.__doc__


def test_every_public_function_documents_what_it_returns() -> None:
    # NumPy-style sections: 27 functions had Parameters and Examples but no Returns.
    functions = [getattr(pl_metrics, n) for n in pl_metrics.__all__]
    lacking = [
        f.__name__
        for f in functions
        if inspect.isfunction(f) and "\n    Returns\n    -------\n" not in (f.__doc__ or "")
    ]
    assert not lacking


@pytest.mark.parametrize("function", [pl_metrics.compare, pl_metrics.bootstrap, pl_metrics.paired])
def test_options_passed_on_are_typed_as_report_takes_them(function: object) -> None:
    # compare, bootstrap and paired refuse tables and per-id values: every option of
    # report's that a score takes but by and per_id, with report's types, so that a type
    # checker sees a typo.
    from pl_metrics._report import MetricOptions

    report = inspect.signature(pl_metrics.report).parameters
    typed = MetricOptions.__annotations__
    scores = [entry for entry in METRICS.values() if entry.higher_is_better is not None]
    of_scores = {option for entry in scores for option in entry.options}
    assert set(typed) == (set(COMMON_OPTIONS) | of_scores) - {"by", "per_id"}
    spelled = {o: getattr(t, "__forward_arg__", t) for o, t in typed.items()}  # (text)
    assert spelled == {o: report[o].annotation for o in typed}
    assert str(inspect.signature(function).parameters["options"].annotation) == (
        "Unpack[MetricOptions]"
    )


@pytest.mark.parametrize("name", list(METRICS))
def test_the_family_computes_it(name: str) -> None:
    df = pl.DataFrame(
        {"id": [0, 0, 1, 1], "class": ["a", "b"] * 2, "score": [0.8, 0.2, 0.3, 0.7]}
    ).with_columns(truth=pl.Series([True, False, False, True]))
    out = pl_metrics.report(df, name)
    # The report of one metric is its function's table, named by the registry.
    assert_frame_equal(out, getattr(pl_metrics, name)(df))
    assert out.height >= 1
    assert ("class" in out.columns) == (METRICS[name].per_class == "always")
    assert name in out.columns or METRICS[name].per_class == "always"


def test_namespace_all_and_command_line_follow_the_registry(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name in METRICS:
        assert name in pl_metrics.__all__
        assert name in _namespace.METHODS
        assert callable(getattr(pl.DataFrame({"x": [1]}).metrics, name))
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    help_text = capsys.readouterr().out
    assert all(name in help_text for name in METRICS)
    assert pl_metrics.metric_names() == list(METRICS)


def test_the_readme_api_table_is_the_registry() -> None:
    text = README.read_text()
    assert _registry.api_table() in text, (
        "README's API table differs from the registry; paste pl_metrics._registry.api_table()"
    )


@pytest.mark.parametrize("entry", METRICS.values(), ids=list(METRICS))
def test_the_api_table_names_every_option(entry: MetricInfo) -> None:
    """A row's signature shows each option the metric takes ("..." is the row above's;
    per_id has its own paragraph)."""
    shown = {name.strip() for name in entry.signature.split(",")}
    if shown != {"..."}:
        assert set(entry.options) - {"per_id"} <= shown


def test_an_incomplete_entry_fails_these_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forgetting a fact is caught: an entry without a scikit-learn equivalent, say, or a
    wrong one (the tests run against the broken entry, not a copy of their comparison)."""
    broken = dataclasses.replace(METRICS["lrap"], sklearn="")
    with pytest.raises(AssertionError, match="sklearn is empty"):
        test_every_entry_has_every_fact(broken)
    wrong = [  # (a wrong fact, the test that catches it)
        (
            "lrap",
            {"options": frozenset({"k"})},
            test_the_function_takes_exactly_the_registered_options,
        ),
        (
            "brier_score",
            {"chunk_key": "id"},
            test_metrics_of_per_class_score_tables_are_chunked_by_class,
        ),
    ]
    for name, facts, test in wrong:
        with monkeypatch.context() as patched:
            patched.setitem(METRICS, name, dataclasses.replace(METRICS[name], **facts))
            with pytest.raises(AssertionError):
                test(name)


def test_unknown_metric_suggests_close_names() -> None:
    with pytest.raises(pl_metrics.MetricsInputError, match="did you mean 'lwlrap'"):
        pl_metrics.report(pl.DataFrame(), "lwrap")
    # F2 (a Kaggle metric) is fbeta with beta=2; F1 in capitals is f1.
    for name, beta in (
        ("f2", "2"),
        ("F0.5", "0.5"),
        ("f_2", "2"),
        ("F05", r"0\.5"),
        ("f0", r"0 \(expected"),
    ):
        with pytest.raises(pl_metrics.MetricsInputError, match=f"is 'fbeta' with beta={beta}"):
            pl_metrics.report(pl.DataFrame(), name)
    with pytest.raises(pl_metrics.MetricsInputError, match="did you mean 'f1'"):
        pl_metrics.report(pl.DataFrame(), "F1")
    # Short names, whose closest spellings were other metrics ('acc': 'jaccard').
    for short, ours in (
        ("acc", "accuracy"),
        ("AP", "average_precision"),
        ("pr-auc", "average_precision"),
        ("AUC", "roc_auc"),
        ("mcc", "matthews_corrcoef"),
        ("top_k", "top_k_accuracy"),
        ("topk", "top_k_accuracy"),
        ("f11", "f1"),  # (not fbeta with beta=11)
        ("micro_f1", "f1' with average='micro"),
        ("F1-macro", "f1' with average='macro"),
        ("auc_weighted", "roc_auc' with average='weighted"),
    ):
        with pytest.raises(pl_metrics.MetricsInputError, match=f"did you mean '{ours}'"):
            pl_metrics.report(pl.DataFrame(), short)
    assert set(_registry._SHORT_NAMES.values()) <= set(METRICS)
    assert not set(_registry._SHORT_NAMES) & set(METRICS)


@pytest.mark.parametrize(
    ("theirs", "ours"),
    [
        ("f1_score", "f1"),
        ("label_ranking_average_precision_score", "lrap"),
        ("brier_score_loss", "brier_score"),
    ],
)
def test_scikit_learn_names_point_to_ours(theirs: str, ours: str) -> None:
    with pytest.raises(pl_metrics.MetricsInputError, match=f"scikit-learn's {theirs} is '{ours}'"):
        pl_metrics.report(pl.DataFrame(), theirs)
    with pytest.raises(AttributeError, match=f"scikit-learn's {theirs} is '{ours}'"):
        getattr(pl.DataFrame().metrics, theirs)


def test_every_scikit_learn_name_of_the_registry_points_to_ours() -> None:
    for entry in METRICS.values():
        theirs = entry.sklearn.strip("`").split("`")[0].split("(")[0].split(".")[-1]
        if theirs.isidentifier() and theirs not in METRICS:
            with pytest.raises(pl_metrics.MetricsInputError, match="scikit-learn's"):
                pl_metrics.report(pl.DataFrame(), theirs)


def test_what_a_module_takes_from_another_is_in_that_ones_all() -> None:
    """A private module's ``__all__`` lists what the others import from it: its interface."""
    package = Path(pl_metrics.__file__).parent
    exported = {}
    for path in package.glob("_*.py"):
        tree = ast.parse(path.read_text())
        for node in tree.body:
            if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "__all__":
                exported[path.stem] = set(ast.literal_eval(node.value))
    missing = set()
    for path in package.glob("*.py"):
        tree = ast.parse(path.read_text())
        modules = {}  # `from pl_metrics import _kernel`: its names are read as _kernel.X
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pl_metrics._"):
                module = node.module.split(".")[1]
                missing |= {
                    f"{module}.{a.name} (in {path.name})"
                    for a in node.names
                    if a.name not in exported.get(module, set())
                }
            if isinstance(node, ast.ImportFrom) and node.module == "pl_metrics":
                modules |= {a.asname or a.name: a.name for a in node.names if a.name in exported}
        missing |= {
            f"{modules[node.value.id]}.{node.attr} (in {path.name})"
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and node.attr not in exported[modules[node.value.id]]
        }
    assert not missing


@pytest.mark.parametrize("metric", list(METRICS))
def test_metrics_of_per_class_score_tables_are_chunked_by_class(metric: str) -> None:
    # The fact from the state, not the registry: a state that keeps a table of each class's
    # scores (curves) grows with the distinct scores, which class chunks bound; flipping
    # brier_score's chunk_key to "id" failed no test.
    df = pl.DataFrame(
        {"id": [0, 0, 1, 1], "class": ["a", "b"] * 2, "score": [0.9, 0.1, 0.2, 0.8]}
    ).with_columns(truth=pl.Series([True, False, False, True]))
    keeps_curves = "curves" in pl_metrics.state(df, metric)._schemas
    assert (pl_metrics.chunk_key(metric) == "class") == keeps_curves


def test_every_short_name_points_to_its_metric() -> None:
    # Each short name people use, spelled out here: a short name pointing to the wrong
    # metric ("ece" to brier_score, "map" to lrap) or dropped failed no test.
    shorts = {  # each metric's short names, as people type them
        "accuracy": "acc",
        "average_precision": "ap map pr_auc auprc",
        "roc_auc": "auc auroc auc_roc",
        "matthews_corrcoef": "mcc",
        "expected_calibration_error": "ece",
        "padded_cmap": "cmap",
        "binary_log_loss": "bce",
        "top_k_accuracy": "top_k topk",
    }
    expected = {short: ours for ours, names in shorts.items() for short in names.split()}
    assert expected == _registry._SHORT_NAMES
    for short, ours in expected.items():
        with pytest.raises(pl_metrics.MetricsInputError, match=f"did you mean '{ours}'"):
            pl_metrics.report(pl.DataFrame(), short)


def _literals(annotation: object) -> set[object]:
    """The values of the Literals (and None) in a type such as ``Literal["macro"] | None``."""
    if typing.get_origin(annotation) is typing.Literal:
        return set(typing.get_args(annotation))
    if annotation is type(None):
        return {None}
    return {v for arg in typing.get_args(annotation) for v in _literals(arg)}


@pytest.mark.parametrize("name", [n for n, e in METRICS.items() if "average" in e.options])
def test_the_registered_averages_are_the_functions_typed_ones(name: str) -> None:
    # The averages from the function's own signature, not the registry: the option checks
    # take `averages` as given, so adding "weighted" to specificity's (or "samples" to
    # balanced_accuracy's), or dropping "weighted" from average_precision's, failed no test.
    hints = typing.get_type_hints(_registry.function(name))
    assert _literals(hints["average"]) == set(METRICS[name].averages)
    if "samples" in METRICS[name].averages:  # a mean over ids: each id's value is given too
        assert "per_id" in METRICS[name].options


def _sklearn_with_weights() -> dict[str, Any]:
    """scikit-learn's value of some weighted metrics, given each of four ids' weight."""
    from sklearn import metrics as sk

    truth = np.eye(3, dtype=int)[[0, 1, 2, 0]]  # one true class per id
    score = np.array([[0.8, 0.1, 0.1], [0.2, 0.5, 0.3], [0.1, 0.3, 0.6], [0.4, 0.4, 0.2]])
    pred = (score >= 0.5).astype(int)
    label = truth.argmax(axis=1)

    def lrap(w: Any) -> Any:  # (lwlrap is LRAP when each id has one true class)
        return sk.label_ranking_average_precision_score(truth, score, sample_weight=w)

    def brier(w: Any) -> Any:
        return np.mean(
            [
                sk.brier_score_loss(t, s, sample_weight=w)
                for t, s in zip(truth.T, score.T, strict=True)
            ]
        )

    return {
        "lwlrap": lrap,
        "lrap": lrap,
        "coverage_error": lambda w: sk.coverage_error(truth, score, sample_weight=w),
        "label_ranking_loss": lambda w: sk.label_ranking_loss(truth, score, sample_weight=w),
        "ndcg": lambda w: sk.ndcg_score(truth, score, sample_weight=w),
        "f1": lambda w: sk.f1_score(truth, pred, average="macro", sample_weight=w),
        "matthews_corrcoef": lambda w: sk.matthews_corrcoef(
            truth[:, 0], pred[:, 0], sample_weight=w
        ),
        "hamming_loss": lambda w: sk.hamming_loss(truth, pred, sample_weight=w),
        "accuracy": lambda w: sk.accuracy_score(truth, pred, sample_weight=w),
        "log_loss": lambda w: sk.log_loss(label, score, sample_weight=w),
        "average_precision": lambda w: sk.average_precision_score(truth, score, sample_weight=w),
        "brier_score": brier,
        "top_k_accuracy": lambda w: sk.top_k_accuracy_score(label, score, k=1, sample_weight=w),
    }


@pytest.mark.parametrize("name", list(_sklearn_with_weights()))
def test_the_registered_zero_weights_are_scikit_learns(name: str) -> None:
    # `zero_weights` from scikit-learn, not the registry: the conformance tests read what to
    # expect from the same fact, so flipping lrap's to "error", hamming_loss's to "error" or
    # average_precision's to "sum" failed no test.
    reference = _sklearn_with_weights()[name]

    def outcome(weights: list[float]) -> str:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                value = float(reference(np.array(weights)))
        except ZeroDivisionError:
            return "divides by zero"
        except ValueError:
            return "refused"
        return "nan" if math.isnan(value) else "value" if math.isfinite(value) else "infinite"

    all_zero, summing_to_zero = outcome([0.0] * 4), outcome([1.0, -1.0, 1.0, -1.0])
    registered = METRICS[name].zero_weights
    assert (all_zero == "nan") == (registered == "nan"), all_zero
    cancelled = summing_to_zero in ("divides by zero", "infinite")
    assert cancelled == (registered != "error"), summing_to_zero


def test_the_namespace_forwards_each_method_to_its_function() -> None:
    # Each method from the data: a method forwarding to another function (report to
    # state, bootstrap and paired swapped), a dropped method, positional options dropped or
    # a lost docstring failed no test.
    df = pl.DataFrame(
        {"id": [0, 0, 1, 1], "class": ["a", "b"] * 2, "score": [0.8, 0.2, 0.3, 0.7]}
    ).with_columns(truth=pl.Series([True, False, False, True]))
    tables = {"report", "state", "compare", "bootstrap", "paired"}
    assert set(_namespace.METHODS) == set(METRICS) | tables
    for name, function in _namespace.METHODS.items():
        assert function is getattr(pl_metrics, name), name
        method = getattr(df.metrics, name)
        assert method.__doc__ == function.__doc__, name
        assert method.__wrapped__ is function, name
    assert_frame_equal(df.metrics.report(["lrap", "f1"]), pl_metrics.report(df, ["lrap", "f1"]))
    sweep = df.metrics.threshold_sweep("precision", [0.25, 0.5])
    assert_frame_equal(sweep, pl_metrics.threshold_sweep(df, "precision", [0.25, 0.5]))


def test_every_public_name_is_exported() -> None:
    # A name dropped from ``__all__`` (from_wide, merge_states, expr...) failed no test.
    public = {
        name
        for name, value in vars(pl_metrics).items()
        if not name.startswith("_")
        and name != "annotations"
        and (not inspect.ismodule(value) or name == "expr")
    }
    assert set(pl_metrics.__all__) == public


def test_every_metric_of_one_class_s_counts_can_be_swept() -> None:
    # The metrics a threshold can be swept for, from their options: dropping one from
    # `sweepable` failed no test (the sweep's tests take their list from it).
    counted = [n for n, e in METRICS.items() if "threshold" in e.options and e.averages]
    assert _registry.sweepable() == counted
