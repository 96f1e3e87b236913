"""The registry is the one place metric facts live: everything else must agree with it."""

from __future__ import annotations

import ast
import dataclasses
import inspect
from pathlib import Path

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
