"""The optional C kernel and the editable install; everything else is in pyproject.toml."""

from setuptools import Extension, setup
from setuptools.command.editable_wheel import editable_wheel


class StaticPathEditableWheel(editable_wheel):
    """``pip install -e .`` as a static ``.pth`` naming the project root.

    For a flat layout (packages at the project root, no ``package_dir``) setuptools' default
    editable install is an import-hook finder (``__editable___*_finder.py``), which type
    checkers (mypy, pyright) cannot see: for them ``import pl_metrics`` from another folder is
    unresolved. Told that the packages' root is the project root, the command takes the branch
    it takes for a src-layout and writes a plain path entry instead, which they follow
    (``py.typed`` does the rest). Only this command is told: wheels and sdists are built as
    before. ``--config-settings editable_mode=strict`` still gives a link tree.

    Mode 'compat' would do the same, but it is marked transitional (to be removed) and makes
    every ``pip install -e .`` print a deprecation banner.

    The path entry makes the root's other names importable too, as ``setup.py develop`` did:
    ``tests`` (a package), ``setup``, and ``benchmarks``, ``data`` and ``docs`` as namespace
    packages. tests/test_packaging.py checks that the install stays a static path entry.
    """

    def finalize_options(self) -> None:
        """Set the package root to the project root when no ``package_dir`` is configured."""
        super().finalize_options()
        if not self.package_dir:
            self.package_dir = {"": "."}


setup(
    ext_modules=[
        Extension(
            "pl_metrics._kernels",
            ["pl_metrics/_kernels.c"],
            # No fused multiply-adds: curve_areas gives the polars plan's bits.
            extra_compile_args=["-O3", "-ffp-contract=off"],
            optional=True,  # no compiler: install anyway, the polars plans take over
        )
    ],
    cmdclass={"editable_wheel": StaticPathEditableWheel},
)
