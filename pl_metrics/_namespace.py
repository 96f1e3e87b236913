"""The ``.metrics`` namespace on DataFrame and LazyFrame: forwards to the plain functions.

Its methods are made from the registry (one per metric) and the table functions, so a
registered metric is on the namespace without anything written here.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Generic, NoReturn, overload

import polars as pl

from pl_metrics import _compare, _report
from pl_metrics._frame import FrameT
from pl_metrics._registry import function, metric_names, suggestion

__all__ = ["METHODS", "MetricsNamespace"]

#: Every method of the namespace and the function it forwards to.
METHODS: dict[str, Callable[..., Any]] = {
    **{name: function(name) for name in metric_names()},
    "report": _report.report,
    "state": _report.state,
    "compare": _compare.compare,
    "bootstrap": _compare.bootstrap,
    "paired": _compare.paired,
}


@pl.api.register_dataframe_namespace("metrics")
@pl.api.register_lazyframe_namespace("metrics")
class MetricsNamespace(Generic[FrameT]):
    """Metrics of a long prediction table; a LazyFrame in gives a LazyFrame out."""

    def __init__(self, frame: FrameT) -> None:
        self._frame: FrameT = frame

    def __getattr__(self, name: str) -> NoReturn:  # only names that are not methods
        close = suggestion(name, METHODS)
        hint = f"; {close}" if close else ""
        raise AttributeError(
            f".metrics has no method {name!r}{hint} (methods: {', '.join(METHODS)})"
        )


def _method(function: Callable[..., Any]) -> Callable[..., Any]:
    """Make ``function(frame, ...)`` the namespace method ``frame.metrics.function(...)``."""

    @functools.wraps(function)
    def method(self: MetricsNamespace[Any], *args: Any, **options: Any) -> Any:
        return function(self._frame, *args, **options)

    return method


for _name, _function in METHODS.items():
    setattr(MetricsNamespace, _name, _method(_function))


class _Fresh:
    """``frame.metrics``: a new namespace at each access, not kept on the frame.

    polars' registration keeps the namespace in the frame's attributes, and the namespace
    holds the frame: a reference cycle, so every frame that ``.metrics`` was called on
    stayed in memory until Python's cycle collector next ran. A loop of
    ``pl.read_parquet(path).metrics.lrap()`` over 20M-row files grew by a frame (0.35 GiB)
    per file, and each read took three times longer, on fresh pages.
    """

    @overload
    def __get__(self, frame: None, owner: type) -> type[MetricsNamespace[Any]]: ...
    @overload
    def __get__(self, frame: FrameT, owner: type) -> MetricsNamespace[FrameT]: ...
    def __get__(self, frame: Any, owner: type) -> Any:
        return MetricsNamespace if frame is None else MetricsNamespace(frame)


# Registered above (polars lists the name among the frames' namespaces); reached through
# `_Fresh` instead of polars' caching accessor.
pl.DataFrame.metrics = _Fresh()  # type: ignore[attr-defined]
pl.LazyFrame.metrics = _Fresh()  # type: ignore[attr-defined]
