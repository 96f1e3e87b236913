"""The optional C kernel; everything else is configured in pyproject.toml."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "pl_metrics._kernels",
            ["pl_metrics/_kernels.c"],
            extra_compile_args=["-O3"],
            optional=True,  # no compiler: install anyway, the polars plans take over
        )
    ]
)
