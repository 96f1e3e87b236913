"""The README's ``pip install -e .`` leaves a package that type checkers can find.

setuptools' default editable install of a flat layout is an import-hook finder
(``__editable___*_finder.py``) that mypy and pyright cannot see; setup.py asks for a static
``.pth`` naming the project root instead. Nothing is installed here: the test reads the
installed distribution's record and skips when pl_metrics is not an editable install of this
checkout.
"""

from __future__ import annotations

import inspect
import json
import sys
import typing
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

import pl_metrics
import pl_metrics.dask
import pl_metrics.plot

ROOT = Path(__file__).resolve().parent.parent


def editable_install() -> metadata.Distribution:
    """The installed distribution of pl_metrics, if it is an editable install of ``ROOT``."""
    # Several may be visible (an ``pl_metrics.egg-info`` left in the checkout, say): the
    # installed one is the one with pip's ``direct_url.json``.
    for dist in metadata.distributions(name="pl_metrics"):
        direct_url = dist.read_text("direct_url.json")
        if direct_url is None:
            continue
        info = json.loads(direct_url)
        if not info.get("dir_info", {}).get("editable"):
            pytest.skip("pl_metrics is installed from a wheel, not editable: nothing to check")
        source = Path(unquote(urlparse(info["url"]).path)).resolve()
        if source != ROOT:
            pytest.skip(f"the editable install is of another checkout ({source})")
        return dist
    pytest.skip("pl_metrics is not installed by pip (no direct_url.json): nothing to check")


def test_editable_install_is_a_static_path_entry() -> None:
    dist = editable_install()
    files = dist.files or []
    finders = [f.name for f in files if f.name.endswith("_finder.py")]
    assert not finders, (
        f"the editable install is an import hook ({finders}) that mypy and pyright cannot "
        "follow; see the editable_wheel command in setup.py"
    )
    entries: list[Path] = []
    for pth in (f for f in files if f.suffix == ".pth"):
        for line in Path(str(pth.locate())).read_text().splitlines():
            line = line.strip()
            assert not line.startswith("import"), f"{pth.name} runs code: {line!r}"
            if line and not line.startswith("#"):
                entries.append(Path(line).resolve())
    if any(entry.is_relative_to(ROOT / "build") for entry in entries):
        pytest.skip("installed with editable_mode=strict (a link tree under build/)")
    assert entries == [ROOT], f"the .pth files name {entries}, not the project root {ROOT}"
    # What a type checker then finds on that path: this package, typed.
    assert Path(pl_metrics.__file__).resolve() == ROOT / "pl_metrics" / "__init__.py"
    assert (ROOT / "pl_metrics" / "py.typed").is_file()


def test_the_kernels_stub_names_what_the_kernel_has() -> None:
    """mypy reads `_kernels.pyi`, not the module: it lacked curve_areas and named a
    not_increasing the module had no more, with no check seeing it."""
    import ast

    from pl_metrics import _kernel

    if not _kernel.available():
        pytest.skip("C kernel not built")
    stub = ast.parse((Path(pl_metrics.__file__).parent / "_kernels.pyi").read_text())
    declared = {node.name for node in stub.body if isinstance(node, ast.FunctionDef)}
    built = {name for name in dir(_kernel._kernels) if not name.startswith("_")}
    assert declared == built


@pytest.mark.skipif(sys.version_info < (3, 11), reason="typing.Unpack is of Python 3.11")
def test_the_public_annotations_resolve_at_run_time() -> None:
    """What reads annotations at run time (Sphinx, pydantic's validate_call, typer) resolves
    them: compare's, bootstrap's and paired's named Unpack, imported for type checkers only."""
    modules = [pl_metrics, pl_metrics.expr, pl_metrics.plot, pl_metrics.dask]
    for module in modules:
        for name in module.__all__:
            value = getattr(module, name)
            if inspect.isfunction(value):
                typing.get_type_hints(value)


def test_metric_state_and_its_methods_have_examples() -> None:
    # Every public callable's docstring has an example: MetricState (pl_metrics.state's)
    # and its methods had none.
    state = pl_metrics.MetricState
    objects = {
        "MetricState": state,
        **{n: getattr(state, n) for n in ["finalize", "merge", "collect"]},
    }
    missing = [name for name, obj in objects.items() if ">>>" not in (inspect.getdoc(obj) or "")]
    assert not missing, missing
