"""The C kernel (DataFrame input) against the polars plan (LazyFrame input): the same numbers.

Both paths are also checked against scikit-learn in test_ranking (its ``kind`` fixture runs
each case eagerly, through the kernel, and lazily, through the plan). Here they meet on
inputs made to reach every branch: few and many positives per id (direct comparison and
sorting), ids contiguous or scattered (sorted first), float32, float64 and integer scores,
groups, weights, ragged ids, and the inputs that go to the plan even in memory.
"""

from __future__ import annotations

import itertools
import os
import re
import warnings
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import pl_metrics
from pl_metrics import _kernel
from pl_metrics._kernel import contiguous_runs
from tests.conftest import on_the_plan

RANKING = ["lwlrap", "lrap", "coverage_error", "label_ranking_loss"]

KERNEL_MISSING = not _kernel.available()


@pytest.mark.skipif(not os.environ.get("PL_METRICS_REQUIRE_KERNEL"), reason="optional here")
def test_the_kernel_is_built() -> None:
    """CI has a compiler: there the kernel must build (elsewhere it may be missing)."""
    assert not KERNEL_MISSING, "pl_metrics._kernels did not build: see pip's output"


needs_kernel = pytest.mark.skipif(KERNEL_MISSING, reason="C kernel not built")


def random_dump(
    rng: np.random.Generator,
    *,
    n_ids: int,
    n_classes: int,
    positive_rate: float,
    levels: int,
    groups: int,
    contiguous: bool,
    score_dtype: Any,
    by_class: bool = False,
) -> pl.DataFrame:
    """A long dump with ties (scores on ``levels`` values), rows by id or shuffled, or
    ``by_class``: each group's rows class by class, the ids in the same order in each."""
    n = n_ids * n_classes
    scores = rng.integers(0, levels, n) / levels
    df = pl.DataFrame(
        {
            "group": np.repeat(rng.integers(0, groups, n_ids), n_classes),
            "id": np.repeat(np.arange(n_ids), n_classes),
            "class": np.tile(np.arange(n_classes), n_ids),
            "score": scores * 100 if score_dtype == pl.Int32 else scores,
            "truth": rng.random(n) < positive_rate,
            "w": np.repeat(rng.random(n_ids) + 0.5, n_classes),
        }
    ).with_columns(pl.col("score").cast(score_dtype))
    if not contiguous:
        df = df.sample(fraction=1.0, shuffle=True, seed=int(rng.integers(1 << 31)))
    if by_class:
        df = df.sort("group", "class", maintain_order=True)
    return df


def both_paths(df: pl.DataFrame, **options: Any) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The kernel (rows in memory) and the polars plan (a LazyFrame's state, kernel off).

    (A LazyFrame's state is collected as `score` collects it, the kernel on each chunk: the
    plan ran only without it.)
    """
    kernel = pl_metrics.report(df, RANKING, **options)
    joins = on_the_plan(pl_metrics.state(df.lazy(), RANKING, **options).finalize().collect)
    return kernel, joins


@needs_kernel
@pytest.mark.parametrize("score_dtype", [pl.Float32, pl.Float64])
def test_kernels_read_in_chunks_equal_one_chunk(score_dtype: Any) -> None:
    """Scores and classes are read in their chunks: runs across two or more chunks
    (copied), chunks inside a run, empty chunks, and the threads' pieces give the pair
    counts and the run sums of one chunk."""
    rng = np.random.default_rng(11)
    for _ in range(60):
        df = random_dump(
            rng,
            n_ids=int(rng.integers(1, 30)),
            n_classes=int(rng.integers(1, 12)),
            positive_rate=0.3,
            levels=5,
            groups=1,
            contiguous=True,
            score_dtype=score_dtype,
        )
        cuts = sorted(rng.integers(0, df.height + 1, int(rng.integers(0, 15))).tolist())
        bounds = [0, *cuts, df.height]  # repeated cuts: empty chunks
        chunked = pl.concat([df[a:b] for a, b in itertools.pairwise(bounds)], rechunk=False)
        runs = _kernel.id_runs(chunked, [], "id", in_order=True)
        assert runs is not None
        truth = _kernel.flags(chunked["truth"])
        rank, pos_rank, sums = _kernel.pair_counts(chunked["score"], truth, runs.starts)
        want_rank, want_pos, want_sums = _kernel.pair_counts(
            df["score"].rechunk(), truth, runs.starts
        )
        np.testing.assert_array_equal(rank, want_rank)
        np.testing.assert_array_equal(pos_rank, want_pos)
        for got, want in zip(sums, want_sums, strict=True):
            np.testing.assert_array_equal(got, want)
        firsts = np.arange(0, len(runs.starts) - 1, 3)  # three runs a segment
        predicted = truth[::-1].copy()
        codes = _kernel.ClassCodes.of(chunked["class"])
        counted = _kernel.run_sums(runs.starts, truth, codes, firsts, predicted)
        codes = _kernel.ClassCodes.of(df["class"].rechunk())
        one = _kernel.run_sums(runs.starts, truth, codes, firsts, predicted)
        assert counted is not None
        assert one is not None
        np.testing.assert_array_equal(counted[0], one[0])
        np.testing.assert_array_equal(counted[1], one[1])
        assert counted[2] is not None
        assert one[2] is not None
        np.testing.assert_array_equal(counted[2][0], one[2][0])
        assert counted[2][1].equals(one[2][1])
        np.testing.assert_array_equal(counted[2][2], one[2][2])
        # Reduced per segment as counted: the per-run values' reductions.
        reduced = _kernel.run_sums(runs.starts, truth, codes, firsts, predicted, per_run=False)
        assert reduced is not None
        assert reduced.positives is None
        assert reduced.per_segment is not None
        per_run = {"rows": np.diff(runs.starts), "positives": one[0], "class_hash": one[1]}
        for kind, values in per_run.items():
            for op, ufunc in (("sum", np.add), ("min", np.minimum), ("max", np.maximum)):
                want = ufunc.reduceat(values, firsts)
                np.testing.assert_array_equal(reduced.per_segment[kind][op], want)
        assert reduced.per_class is not None
        np.testing.assert_array_equal(reduced.per_class[2], one[2][2])


@needs_kernel
@given(
    seed=st.integers(0, 2**32 - 1),
    n_ids=st.integers(1, 25),
    n_classes=st.integers(2, 45),  # one class: coverage and ranking loss refuse it
    positive_rate=st.sampled_from([0.0, 0.03, 0.3, 0.7, 1.0]),
    levels=st.sampled_from([2, 5, 1000]),
    groups=st.integers(1, 3),
    layout=st.sampled_from(["by id", "shuffled", "by class"]),
    score_dtype=st.sampled_from([pl.Float64, pl.Float32, pl.Int32]),
    weighted=st.booleans(),
)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_kernel_equals_plan(
    seed: int,
    n_ids: int,
    n_classes: int,
    positive_rate: float,
    levels: int,
    groups: int,
    layout: str,
    score_dtype: Any,
    weighted: bool,
) -> None:
    rng = np.random.default_rng(seed)
    df = random_dump(
        rng,
        n_ids=n_ids,
        n_classes=n_classes,
        positive_rate=positive_rate,
        levels=levels,
        groups=groups,
        contiguous=layout != "shuffled",
        score_dtype=score_dtype,
        by_class=layout == "by class",
    )
    options: dict[str, Any] = {"by": "group", "weight_col": "w" if weighted else None}
    kernel, joins = both_paths(df, **options)
    assert_frame_equal(kernel.sort("group"), joins.sort("group"), rel_tol=1e-12)
    kernel = pl_metrics.lwlrap(df, per_class=True, **options)
    joins = pl_metrics.state(df.lazy(), "lwlrap", per_class=True, **options).finalize().collect()
    assert_frame_equal(kernel.sort("group", "class"), joins.sort("group", "class"), rel_tol=1e-12)


@needs_kernel
@pytest.mark.parametrize("threads", [1, 2, 3, 7])
def test_runs_split_between_threads(monkeypatch: pytest.MonkeyPatch, threads: int) -> None:
    """Each thread writes its own slice of the output: any split gives the same numbers."""
    df = random_dump(
        np.random.default_rng(threads),
        n_ids=200,
        n_classes=30,
        positive_rate=0.3,  # about 9 positives per id: both branches of the kernel
        levels=20,
        groups=2,
        contiguous=True,
        score_dtype=pl.Float64,
    )
    monkeypatch.setattr(_kernel, "thread_count", lambda: threads)
    kernel, joins = both_paths(df, by="group")
    assert_frame_equal(kernel.sort("group"), joins.sort("group"), rel_tol=1e-12)


def test_ragged_ids_and_null_ids_with_checks_off() -> None:
    df = pl.DataFrame(
        {
            "id": [1, 1, 1, 2, 2, None, None, None],
            "class": [0, 1, 2, 0, 1, 0, 1, 2],
            "score": [0.5, 0.5, 0.1, 0.2, 0.9, 0.3, 0.4, 0.3],
            "truth": [1, 0, 1, 1, 0, 0, 1, 1],
        }
    )
    kernel, joins = both_paths(df, ragged="allow", validate=False)
    assert_frame_equal(kernel, joins, rel_tol=1e-12)


@pytest.mark.parametrize(
    "score",
    [
        pl.Series([0.5, None, 0.1, 0.2, 0.9, 0.3]),  # nulls: the plan handles them
        pl.Series([0.5, float("nan"), 0.1, 0.2, 0.9, 0.3]),  # NaN: polars' order, not C's
        pl.Series([2**60 + 1, 2**60, 3, 1, 2, 3], dtype=pl.Int64),  # not exact as float64
    ],
)
def test_inputs_the_kernel_leaves_to_the_plan(score: pl.Series) -> None:
    df = pl.DataFrame(
        {
            "id": [1, 1, 1, 2, 2, 2],
            "class": [0, 1, 2] * 2,
            "score": score,
            "truth": [True, True, False, False, True, True],
        }
    )
    kernel, joins = both_paths(df, validate=False)
    assert_frame_equal(kernel, joins, rel_tol=1e-12)


@needs_kernel
def test_dataframes_use_the_kernel_and_lazyframes_stream() -> None:
    df = pl.DataFrame({"id": [1, 1], "class": [0, 1], "score": [0.2, 0.4], "truth": [1, 0]})
    eager_state = pl_metrics.state(df, "lrap")
    lazy_state = pl_metrics.state(df.lazy(), "lrap")
    # The kernels count a DataFrame's tables at once; a LazyFrame's are polars' plan.
    assert eager_state.counted
    assert not lazy_state.counted
    assert "AGGREGATE" in lazy_state.groups.lazy().explain()


@needs_kernel
@pytest.mark.parametrize("outside", [0, 1, 3])
def test_probability_metrics_use_the_kernel_and_count_scores_outside(outside: int) -> None:
    # The Brier score and calibration check each row's score against [0, 1]: on a
    # DataFrame that passes, over the whole frame first, so the kernel counts the state
    # (before, the check's count per id sent every row to the polars plan). Rows that fail
    # are still counted per group, and named.
    rng = np.random.default_rng(outside)
    df = random_dump(
        rng,
        n_ids=40,
        n_classes=3,
        positive_rate=0.3,
        levels=1000,
        groups=2,
        contiguous=True,
        score_dtype=pl.Float64,
    )
    df = df.with_columns(pl.col("score").clip(0, 1))
    if outside:
        df = df.with_columns(
            pl.when(pl.int_range(pl.len()) < outside)
            .then(pl.col("score") + 2)
            .otherwise(pl.col("score"))
            .alias("score")
        )
    metrics = ["brier_score", "binary_log_loss", "calibration_curve"]
    for metric in metrics:
        eager = pl_metrics.state(df, metric, by="group")
        assert eager.counted == (not outside)
        if outside:
            rows = "1 row has" if outside == 1 else f"{outside} rows have"
            with pytest.raises(pl_metrics.MetricsInputError, match=f"{rows} a score outside"):
                eager.finalize().collect()
            continue
        lazy = pl_metrics.state(df.lazy(), metric, by="group").finalize().collect()
        assert_frame_equal(eager.finalize().collect(), lazy, rel_tol=1e-12)


def test_without_the_kernel_dataframes_use_the_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    df = random_dump(
        np.random.default_rng(1),
        n_ids=30,
        n_classes=8,
        positive_rate=0.3,
        levels=4,
        groups=2,
        contiguous=False,
        score_dtype=pl.Float64,
    )
    with_kernel = pl_metrics.report(df, RANKING, by="group")
    monkeypatch.setattr(_kernel, "_kernels", None)
    assert "PYTHON" not in pl_metrics.state(df, "lrap").groups.lazy().explain()
    assert_frame_equal(pl_metrics.report(df, RANKING, by="group"), with_kernel, rel_tol=1e-12)


@pytest.mark.parametrize(
    ("ids", "groups", "reordered"),
    [
        ([1, 1, 1, 2, 2, 2, 3, 3, 3], None, False),  # in order: flagged sorted, not moved
        ([3, 3, 3, 1, 1, 1, 2, 2, 2], None, False),  # together but not in order: left so
        ([1, 1, 1, 2, 2, 2, 1, 3, 3], None, True),  # an id comes back: sorted
        ([1, 2, 1, 2, 1, 2, 1, 2, 1], None, True),  # scattered: sorted without checking
        ([1] * 9, ["a"] * 3 + [None] * 3 + ["b"] * 3, False),  # groups with a null
        ([1] * 9, ["a", "a", None, None, None, "b", "b", "b", "a"], True),
        ([1, 1, 2, 2, 1, 1, 1, 2, 2], [5, 5, 5, 5, 6, 6, 6, 6, 6], False),  # integer keys
        ([1, 1, 2, 2, 1, 1, 1, 2, 2], [5, 5, 5, 5, 6, 6, 6, 5, 5], True),
    ],
)
def test_contiguous(
    ids: list[int], groups: list[str | None] | list[int] | None, reordered: bool
) -> None:
    df = pl.DataFrame({"g": groups or [None] * len(ids), "id": ids, "row": range(len(ids))})
    by = [] if groups is None else ["g"]
    out, runs = contiguous_runs(df, by, "id")
    assert sorted(out["row"].to_list()) == list(range(len(ids)))
    assert (out["row"].to_list() != list(range(len(ids)))) == reordered
    starts = runs.starts.tolist()
    keys = [*by, "id"]
    firsts = out.select(keys)[starts[:-1]]
    assert firsts.n_unique() == len(starts) - 1  # one run per key
    assert_frame_equal(runs.keys(), firsts)
    changes = [i for i in range(1, len(ids)) if out.row(i)[:2] != out.row(i - 1)[:2]]
    assert starts == [0, *changes, len(ids)]
    if groups is None and not reordered:
        assert out["id"].flags["SORTED_ASC"] == (ids == sorted(ids))


def _class_by_class(df: pl.DataFrame, how: str) -> pl.DataFrame:
    """``df`` (rows by id) laid out class by class, as ``how`` says."""
    if how == "unpivot":  # of a wide table with the groups as index columns
        wide = df.pivot("class", index=["fold", "model", "id"], values="score")
        long = wide.unpivot(index=["fold", "model", "id"], variable_name="class")
        truth = df.select("fold", "model", "id", pl.col("class").cast(pl.String), "truth")
        return long.rename({"value": "score"}).join(
            truth, on=["fold", "model", "id", "class"], maintain_order="left"
        )
    order = {
        "each group by class": ["fold", "model", "class"],
        "by class, then group": ["class", "fold", "model"],
        "by fold, class, model": ["fold", "class", "model"],
    }[how]
    return df.sort(order, maintain_order=True)


def _id_major(df: pl.DataFrame, by: list[str]) -> pl.DataFrame | None:
    """``df``'s rows id by id, when they come class by class; else None."""
    sections = _kernel._sections(df, by, "id", "class")
    return None if sections is None else _kernel._turned(df, by, sections)


@pytest.mark.parametrize(
    "how", ["unpivot", "each group by class", "by class, then group", "by fold, class, model"]
)
def test_rows_class_by_class_are_turned_id_by_id(how: str) -> None:
    """An unpivot of a wide table writes rows class by class, the same keys in the same order
    in each class: turned id by id, as a stable sort by key would bring them (a sort of 5M
    rows took 0.7 s), every metric gives the values of the rows by id."""
    rng = np.random.default_rng(3)
    n_ids, n_classes = 60, 5
    by_id = pl.concat(
        pl.DataFrame(
            {
                "fold": fold,
                "model": model,
                "id": np.repeat(rng.permutation(1000)[:n_ids], n_classes),
                "class": np.tile([f"c{k}" for k in range(n_classes)], n_ids),
                "score": rng.integers(0, 8, n_ids * n_classes) / 8,
                "truth": rng.random(n_ids * n_classes) < 0.3,
            }
        )
        for fold in (0, 1)
        for model in ("a", "b")
    )
    df = _class_by_class(by_id, how)
    turned = _id_major(df, ["model", "fold"])
    assert turned is not None
    keys = ["model", "fold", "id"]
    positions = by_id.select(keys).unique(maintain_order=True).with_row_index("at")
    in_key_order = df.join(positions, on=keys, maintain_order="left").sort(
        "at", maintain_order=True
    )
    assert_frame_equal(turned, in_key_order.drop("at"))
    runs = _kernel.id_runs(turned, ["model", "fold"], "id")
    assert runs is not None
    assert len(runs.starts) - 1 == 4 * n_ids
    for metric in ("f1", "confusion", "lrap", "roc_auc", "binary_log_loss", "ndcg"):
        options = {"average": None} if metric in ("f1", "roc_auc") else {}
        got = pl_metrics.report(df, metric, by=["model", "fold"], **options)
        want = pl_metrics.report(by_id, metric, by=["model", "fold"], **options)
        assert_frame_equal(got, want, rel_tol=1e-12)


def test_many_sections_are_turned_as_few() -> None:
    """Past `_SECTIONS_TURNED_APART` sections (a group of a few ids each), the rows are
    turned through one array of their places: the same frame."""
    rng = np.random.default_rng(5)
    groups, n_ids, n_classes = 300, 3, 4
    df = pl.DataFrame(
        {
            "group": np.repeat(np.arange(groups), n_ids * n_classes),
            "class": np.tile(np.repeat(np.arange(n_classes), n_ids), groups),
            "id": np.tile(np.arange(n_ids), groups * n_classes),
            "score": rng.random(groups * n_ids * n_classes),
            "name": [f"row {k}" for k in range(groups * n_ids * n_classes)],  # turned by polars
        }
    )
    assert groups > _kernel._SECTIONS_TURNED_APART
    turned = _id_major(df, ["group"])
    assert turned is not None
    assert_frame_equal(turned, df.sort("group", "id", maintain_order=True))
    # Nor are they counted as class blocks: compared one by one, they would cost more.
    sections = _kernel._sections(df, ["group"], "id", "class")
    assert sections is not None
    assert groups > _kernel._MOST_SECTIONS
    assert _kernel.class_blocks(df, ["group"], "id", sections) is None
    few = df.filter(pl.col("group") < 5)
    few_sections = _kernel._sections(few, ["group"], "id", "class")
    assert few_sections is not None
    assert _kernel.class_blocks(few, ["group"], "id", few_sections) is not None


def test_layouts_only_like_class_by_class_are_sorted() -> None:
    """Blocks of unequal sizes, other ids inside a block or a class block twice: not turned,
    or turned and found not to be runs of ids; sorted, they give the values and errors of
    the rows by id."""
    rng = np.random.default_rng(8)
    n_ids, n_classes = 40, 4
    by_id = pl.DataFrame(
        {
            "id": np.repeat(np.arange(n_ids), n_classes),
            "class": np.tile(np.arange(n_classes), n_ids),
            "score": rng.integers(0, 6, n_ids * n_classes) / 6,
            "truth": rng.random(n_ids * n_classes) < 0.4,
        }
    )
    by_class = by_id.sort("class", maintain_order=True)
    swapped = by_class["id"].to_numpy().copy()
    swapped[[n_ids + 3, n_ids + 4]] = swapped[[n_ids + 4, n_ids + 3]]  # inside a block
    near_misses = {
        "a row missing": (
            pl.concat([by_class[:5], by_class[6:]]),
            pl.concat([by_id[:20], by_id[21:]]),
        ),
        "ids swapped inside a block": (by_class.with_columns(id=swapped), None),
        "a class block twice": (pl.concat([by_class[:n_ids], by_class]), None),
    }
    for how, (df, same_rows) in near_misses.items():
        rows = df if same_rows is None else same_rows
        for metric in ("f1", "lrap"):
            try:
                want = pl_metrics.report(rows.sort("id", "class"), metric)
            except pl_metrics.MetricsInputError as error:
                with pytest.raises(pl_metrics.MetricsInputError, match=re.escape(str(error))):
                    pl_metrics.report(df, metric)
            else:
                assert_frame_equal(pl_metrics.report(df, metric), want, rel_tol=1e-12), how


@given(
    seed=st.integers(0, 2**32 - 1),
    kinds=st.lists(
        st.sampled_from(["text", "int8", "uint64", "huge", "date", "bool", "enum", "float", "cat"]),
        min_size=1,
        max_size=3,
    ),
    nulls=st.booleans(),
    rows=st.integers(0, 60),
)
@settings(max_examples=80, deadline=None)
def test_sorted_on_one_key_equals_polars_sort(
    seed: int, kinds: list[str], nulls: bool, rows: int
) -> None:
    """The keys made one 64-bit key sort as polars sorts them (stably), whatever their types:
    those that cannot be made one (nulls, floats, categoricals, huge ranges) by polars."""
    rng = np.random.default_rng(seed)
    values = {
        "text": lambda: rng.choice(["b", "a", "ab", "", "z"], rows),
        "int8": lambda: pl.Series(rng.integers(-128, 128, rows), dtype=pl.Int8),
        "uint64": lambda: pl.Series(rng.integers(0, 2**40, rows).astype(np.uint64)),
        "huge": lambda: pl.Series(rng.integers(-(2**63), 2**63 - 1, rows, dtype=np.int64)),
        "date": lambda: pl.Series(rng.integers(0, 20_000, rows)).cast(pl.Date),
        "bool": lambda: rng.random(rows) < 0.5,
        "enum": lambda: pl.Series(
            rng.choice(["x", "w", "y"], rows), dtype=pl.Enum(["y", "x", "w"])
        ),
        "float": lambda: rng.integers(0, 4, rows) / 4,
        "cat": lambda: pl.Series(rng.choice(["q", "p"], rows), dtype=pl.Categorical),
    }
    df = pl.DataFrame({f"k{i}": values[kind]() for i, kind in enumerate(kinds)})
    df = df.with_row_index("row")
    if nulls and rows:
        df = df.with_columns(
            pl.when(pl.col("row") % 7 == 3).then(None).otherwise(pl.col("k0")).alias("k0")
        )
    keys = [c for c in df.columns if c != "row"]
    want = df.sort(keys, maintain_order=True)
    assert_frame_equal(_kernel.sorted_on(df, keys, maintain_order=True), want)
    got = _kernel.sorted_on(df, keys)  # unstable: the same keys in the same order
    assert_frame_equal(got.drop("row"), want.drop("row"))


def test_a_group_per_id_is_brought_together_for_the_kernels() -> None:
    """Rows sorted by id with a fold per id made a segment of each id, and the kernels a
    table per segment and class (F1 by fold 20x slower): the rows are sorted by the group,
    stably, for the curves table, and otherwise left as they are, their classes counted per
    group; the values are those of the groups' rows together, to the bit."""
    rng = np.random.default_rng(4)
    n, k = 3000, 4
    df = pl.DataFrame(
        {
            "fold": np.repeat(np.arange(n) % 5, k),
            "id": np.repeat(np.arange(n), k),
            "class": np.tile(np.arange(k), n),
            "score": rng.random(n * k).round(2),
            "truth": rng.random(n * k) < 0.3,
        }
    )
    out, runs = _kernel.grouped_runs(df, ["fold"], "id")
    assert runs is not None
    assert len(runs.firsts) == 5  # a segment per fold, not per id
    assert_frame_equal(out, df.sort("fold", maintain_order=True))
    # The runs moved whole, by their groups, are polars' stable sort of the rows (null
    # groups first, as it puts them), whatever the groups' type.
    folds = {
        "text with nulls": pl.Series(rng.choice(["f2", None, "f10", "f1"], n).tolist()),
        "float with nulls": pl.Series(rng.choice([2.5, None, -1.0], n).tolist(), dtype=pl.Float64),
        "bool with nulls": pl.Series(rng.choice([True, None, False], n).tolist(), dtype=pl.Boolean),
        "categorical": pl.Series(rng.choice(["b", "a", "c"], n).tolist(), dtype=pl.Categorical),
    }
    for fold in folds.values():
        two = df.with_columns(fold=fold.gather(np.repeat(np.arange(n), k)), half=pl.col("id") % 2)
        for by in (["fold"], ["half", "fold"]):
            moved, runs = _kernel.grouped_runs(two, by, "id")
            assert runs is not None
            assert_frame_equal(moved, two.sort(by, maintain_order=True))
    together = df.sort("fold", "id")
    for metric in ("f1", "lrap", "roc_auc", "confusion"):
        options = {"average": None} if metric in ("f1", "roc_auc") else {}
        got = pl_metrics.report(df, metric, by="fold", **options)
        want = pl_metrics.report(together, metric, by="fold", **options)
        assert_frame_equal(got, want, check_exact=True)
    scattered = _kernel.grouped_runs(df, ["fold"], "id", scattered=True)
    assert scattered[0] is df
    assert scattered[1] is not None
    assert scattered[1].groups_scattered
    few = df.head(4 * 1000)  # a segment per id, but fewer than _FEW_SEGMENTS: left as is
    assert _kernel.grouped_runs(few, ["fold"], "id")[0] is few


def _tables_equal_the_group_by(
    df: pl.DataFrame,
    spied: str,
    *,
    predicted: bool = True,
    grouped: bool,
    curves: bool = False,
) -> list[Any]:
    """`per_id_and_classes`' tables of ``df`` by ``g``: polars' aggregations of its rows.

    ``curves``: the curves table too. Returns what the function ``spied`` of
    `pl_metrics._runs` gave, call by call.
    """
    from pl_metrics import _runs

    took: list[Any] = []
    real = getattr(_runs, spied)
    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setattr(_runs, spied, lambda *a, **k: took.append(r := real(*a, **k)) or r)
    prediction, truth = pl.col("score") >= 0.5, pl.col("truth")
    cells = {"tp": prediction & truth, "fp": prediction & ~truth, "fn": ~prediction & truth}
    cells["tn"] = ~prediction & ~truth
    confusion = [cell.sum().cast(pl.Int64).alias(name) for name, cell in cells.items()]
    reductions = [
        pl.len().alias("ids"),
        pl.col("rows").max().alias("most_rows"),
        pl.col("rows").min().alias("least_rows"),
        pl.col("class_hash").min().alias("least_hash"),
        pl.col("class_hash").max().alias("most_hash"),
        pl.col("class_hash").sum().alias("all_hashes"),
        pl.col("positives").sum(),
        pl.col("positives").max().alias("most_positives"),
        pl.col("passed").sum(),
        pl.col("w").max(),
    ]
    # Categorical classes hash their strings, as the state's class hash does.
    hashed = pl.col("class")
    if isinstance(df["class"].dtype, (pl.Categorical, pl.Enum)):
        hashed = hashed.cast(pl.String)
    id_counts = [*ID_COUNTS[:2], hashed.hash(seed=0).sum().alias("class_hash")]
    id_counts += ID_COUNTS[3:]
    curve_exprs = [
        truth.sum().cast(pl.Float64).alias("pos"),
        (~truth).sum().cast(pl.Float64).alias("neg"),
    ]
    try:
        ids_table, class_table, group_table, curve_table = _runs.per_id_and_classes(
            df.lazy(),
            ["g"],
            "id",
            "class",
            truth,
            id_counts,
            KINDS,
            "n",
            class_counts=_runs.ClassCounts(prediction, {n: n for n in cells})
            if predicted
            else None,
            class_exprs=confusion if predicted else (),
            group_exprs=reductions if grouped else None,
            curves=_runs.CurveCounts("score", "s", "pos", "neg", curve_exprs) if curves else None,
        )
    finally:
        monkeypatch.undo()
    assert class_table is not None
    assert (curve_table is not None) == curves
    if curve_table is not None:
        keys = ["g", "class", "s"]
        want_curves = df.group_by("g", "class", pl.col("score").alias("s")).agg(curve_exprs)
        assert_frame_equal(curve_table.collect().sort(keys), want_curves.sort(keys))
    want_ids = df.group_by("g", "id").agg(id_counts)
    if grouped:
        assert ids_table is None
        assert group_table is not None
        want_groups = want_ids.group_by("g").agg(reductions)
        assert_frame_equal(group_table.collect().sort("g"), want_groups.sort("g"))
    else:
        assert ids_table is not None
        assert group_table is None
        assert_frame_equal(ids_table.collect().sort("g", "id"), want_ids.sort("g", "id"))
    want_classes = df.group_by("g", "class").agg(pl.len().alias("n"), *confusion)
    if not predicted:
        want_classes = want_classes.select("g", "class", "n")
    keys = ["g", "class"]
    assert_frame_equal(class_table.collect().sort(keys), want_classes.sort(keys))
    return took


@needs_kernel
@given(
    seed=st.integers(0, 2**32 - 1),
    group=st.sampled_from(["text with nulls", "float with NaN", "int"]),
    classes=st.sampled_from(["text", "negative int8"]),
    layout=st.sampled_from(["by id", "class by class"]),
    grouped=st.booleans(),
    predicted=st.booleans(),
)
@settings(max_examples=25, deadline=None)
def test_counts_of_scattered_groups_equal_the_group_by(
    seed: int, group: str, classes: str, layout: str, grouped: bool, predicted: bool
) -> None:
    """Groups that change from id to id (a fold per id) are not sorted for counts alone:
    the kernel counts per group, each run's group numbered (`IdRuns.group_codes`), and the
    tables are polars' aggregations."""

    rng = np.random.default_rng(seed)
    n_ids, n_classes = 1500, int(rng.integers(2, 5))  # more segments than _FEW_SEGMENTS
    values = {
        "text with nulls": pl.Series(rng.choice(["a", "b", "c", None], n_ids).tolist()),
        "float with NaN": pl.Series(rng.choice([0.5, 1.5, float("nan")], n_ids)),
        "int": pl.Series(rng.integers(0, 5, n_ids)),
    }[group]
    rows = np.repeat(np.arange(n_ids), n_classes)
    df = pl.DataFrame(
        {
            "g": values.gather(rows),
            "id": rows,
            "class": np.tile([f"c{k}" for k in range(n_classes)], n_ids),
            "truth": rng.random(len(rows)) < 0.4,
            "score": rng.random(len(rows)).round(1),
        }
    )
    if classes == "negative int8":  # codes read less their least: no wrap in int8
        df = df.with_columns(pl.col("class").str.slice(1).cast(pl.Int8) * 80 - 120)
    if layout == "class by class":
        df = df.sort("class", maintain_order=True)
    from pl_metrics import _runs

    numbered: list[Any] = []
    real = _runs.run_sums
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(
            _runs, "run_sums", lambda *a, **k: numbered.append(k["groups"]) or real(*a, **k)
        )
        _tables_equal_the_group_by(df, "run_sums", predicted=predicted, grouped=grouped)
    if group != "float with NaN":  # (NaN differs from itself row to row: may be sorted)
        assert len(numbered) == 1
        assert numbered[0] is not None  # counted per group, each run's group numbered
        assert len(numbered[0].first_segment) == df["g"].n_unique()


@pytest.mark.parametrize("group", ["text with nulls", "int", "two columns"])
def test_scattered_groups_numbered_and_ordered_as_polars_sorts(group: str) -> None:
    """A group per id: each run's group numbered in the order groups first come, and the
    runs by group (`IdRuns.runs_by_group`) in the order of polars' sort of their keys."""
    rng = np.random.default_rng(7)
    n_ids = 2000
    g = {
        "text with nulls": pl.Series(rng.choice(["b", "a", None, "c"], n_ids).tolist()),
        "int": pl.Series(rng.integers(-3, 3, n_ids)),
        "two columns": pl.Series(rng.integers(0, 2, n_ids)),
    }[group]
    rows = np.repeat(np.arange(n_ids), 3)
    df = pl.DataFrame({"g": g.gather(rows), "id": rows})
    by = ["g"]
    if group == "two columns":
        df = df.with_columns(
            h=pl.Series(rng.choice([None, 1.5, -2.0], n_ids).tolist(), dtype=pl.Float64).gather(
                rows
            )
        )
        by = ["g", "h"]
    runs = _kernel.id_runs(df, by, "id")
    assert runs is not None
    assert runs.groups_scattered
    keys = runs.keys()
    codes = runs.group_codes
    firsts = keys.select(by).unique(maintain_order=True)
    assert_frame_equal(runs.groups[codes.first_segment], firsts)
    numbered = keys.join(
        firsts.with_row_index("code"), on=by, how="left", nulls_equal=True, maintain_order="left"
    )["code"]
    assert codes.of_run.tolist() == numbered.to_list()
    assert codes.runs.tolist() == numbered.value_counts(sort=False).sort("code")["count"].to_list()
    assert_frame_equal(
        keys[runs.runs_by_group()], keys.sort([*by, "id"], nulls_last=True), check_exact=True
    )


def test_huge_finite_scores_pass_and_nan_is_still_found() -> None:
    """The whole-table screen (a finite sum) may fail on overflow: then rows are counted."""
    df = pl.DataFrame(
        {
            "id": [1, 1, 2, 2],
            "class": [0, 1] * 2,
            "score": pl.Series([3e38, 3e38, 3e38, 1.0], dtype=pl.Float32),
            "truth": [True, False, False, True],
        }
    )
    assert df.select(pl.col("score").sum().is_finite()).item() is False
    assert pl_metrics.lrap(df).item() == 0.5  # ties at 3e38: each positive ranks 2nd
    nan = df.with_columns(score=pl.Series([float("nan"), 1.0, float("inf"), 2.0]))
    with pytest.raises(pl_metrics.MetricsInputError, match="2 rows are NaN or infinite"):
        pl_metrics.lrap(nan)


# The per-id columns `_runs` counts, written as the families write them, and their kinds.
ID_COUNTS = [
    pl.len().alias("rows"),
    pl.col("truth").sum().cast(pl.Int64).alias("positives"),
    pl.col("class").hash(seed=0).sum().alias("class_hash"),
    pl.lit(1.0, dtype=pl.Float64).first().alias("w"),
    pl.lit(0, pl.UInt32).alias("passed"),
]
KINDS = {
    "rows": "rows",
    "positives": "positives",
    "class_hash": "class_hash",
    "w": "unit_weight",
    "passed": "zero",
}


@needs_kernel
@pytest.mark.parametrize(
    ("classes", "counted"),
    [
        (pl.Series([3, 1, 2], dtype=pl.Int16), True),
        (pl.Series([-5, 7, 0], dtype=pl.Int64), True),
        (pl.Series([-128, 127, 0], dtype=pl.Int8), True),
        (pl.Series([0, 255, 9], dtype=pl.UInt8), True),
        (pl.Series([4_000_000_000, 4_000_000_001, 4_000_000_005], dtype=pl.UInt32), True),
        (pl.Series([0, 2**40, 5], dtype=pl.Int64), False),  # too wide a span
        (pl.Series([1, 2, 3], dtype=pl.UInt64), False),
        (pl.Series(["b", "a", "c"]), True),  # strings by their rank
        (pl.Series(["a much longer class name v2", "a much longer class name v1", ""]), True),
        (pl.Series(["b", "a", "c"], dtype=pl.Categorical), True),  # by their physical codes
        (pl.Series(["b", "a", "b"], dtype=pl.Enum(["z", "b", "y", "a"])), True),
        (pl.Series([1, None, 2], dtype=pl.Int32), False),
        (pl.Series([1.5, 2.5, 0.5]), False),
    ],
)
@pytest.mark.parametrize("layout", ["by id", "groups alternate", "ids scattered", "empty"])
@pytest.mark.parametrize("grouped", [False, True], ids=["per id", "per group"])
def test_counts_over_id_runs_equal_the_group_by(
    classes: pl.Series,
    counted: bool,
    layout: str,
    grouped: bool,
) -> None:
    """Ragged ids, repeated classes, null groups and ids, chunks: the kernel's per-id and
    per-class tables (rows and confusion counts), or the per-id table's reductions per
    group, are polars' aggregations, and it counts whatever it can."""
    from pl_metrics import _runs

    rng = np.random.default_rng(len(classes) + len(layout))
    n_ids = 0 if layout == "empty" else 40
    rows_per_id = rng.integers(1, 6, n_ids)
    ids = np.repeat(np.arange(n_ids), rows_per_id)
    df = pl.DataFrame(
        {
            "g": pl.Series(rng.choice(["a", "b", None], n_ids), dtype=pl.String)[ids],
            "id": pl.Series(ids).set(pl.Series(ids == 3), None),  # a null id too
            "class": classes.gather(rng.integers(0, len(classes), len(ids))),
            "truth": rng.random(len(ids)) < 0.4,
            "score": rng.random(len(ids)).round(1),  # ties at the threshold
        }
    )
    if layout == "by id":
        df = df.sort("g", "id", nulls_last=True, maintain_order=True)
    elif layout == "ids scattered":
        df = df.sample(fraction=1.0, shuffle=True, seed=1)
    df = pl.concat([df.head(len(df) // 3), df.slice(len(df) // 3)], rechunk=False)
    # A float sum depends on the ids' order: the per-id table is summed in order instead.
    id_counts = [*ID_COUNTS[:2], pl.col("class").hash(seed=0).sum().alias("class_hash")]
    schema = df.lazy().group_by("g", "id").agg([*id_counts, *ID_COUNTS[3:]]).collect_schema()
    assert _runs.Reductions.of([pl.col("w").sum()], schema) is None
    assert _runs.Reductions.of([pl.col("rows").mean()], schema) is None
    took = _tables_equal_the_group_by(df, "_counted", grouped=grouped, curves=True)
    assert len(took) == 1  # both tables from one pass
    # (Scattered ids are sorted first, then counted by the kernel.)
    assert (took[0] is not None) == (counted and layout != "empty")


@needs_kernel
@given(
    seed=st.integers(0, 2**32 - 1),
    how=st.sampled_from(["each group by class", "by class, then group", "halves by class"]),
    class_dtype=st.sampled_from([pl.Int16, pl.String, pl.Categorical, "enum"]),
    miss=st.sampled_from(
        [
            None,
            "an id changed inside a block",
            "an id twice in each block",
            "a class twice in a section",
            "a null group",
            "a row missing",
            "a row repeated",
        ]
    ),
    grouped=st.booleans(),
)
@settings(max_examples=80, deadline=None)
def test_counts_of_class_blocks_equal_the_group_by(
    seed: int, how: str, class_dtype: Any, miss: str | None, grouped: bool
) -> None:
    """Rows class by class are counted where they are (`ClassBlocks`): the per-id (or
    per-group) and per-class tables are polars' aggregations. Near misses too, which are
    turned or sorted instead (a block whose keys differ, a class twice in a section)."""

    rng = np.random.default_rng(seed)
    n_ids, n_classes = int(rng.integers(2, 12)), int(rng.integers(2, 6))
    names = [f"c{k}" for k in range(n_classes)]
    if class_dtype == "enum":
        class_dtype = pl.Enum(names[::-1])  # an order of its own
    ids = rng.permutation(100)[:n_ids]
    by_id = pl.DataFrame(
        {
            "g": np.repeat(["a", "b", "c"], n_ids * n_classes),
            "id": np.tile(np.repeat(ids, n_classes), 3),
            "class": np.tile(names, 3 * n_ids),
            "truth": rng.random(3 * n_ids * n_classes) < 0.4,
            "score": rng.random(3 * n_ids * n_classes).round(1),  # ties at the threshold
        }
    )
    if class_dtype == pl.Int16:
        by_id = by_id.with_columns(pl.col("class").str.slice(1).cast(pl.Int16))
    else:
        by_id = by_id.with_columns(pl.col("class").cast(class_dtype))
    if miss == "an id twice in each block":  # next to itself
        by_id = by_id.with_row_index("at")
        copy = by_id.filter(pl.col("id") == ids[0])
        by_id = pl.concat([by_id, copy]).sort("at", maintain_order=True).drop("at")
    if miss == "a null group":
        by_id = by_id.with_columns(g=pl.when(pl.col("id") == ids[-1]).then(None).otherwise("g"))
    half = pl.col("id").rank("dense") > (n_ids + 1) // 2
    order = {
        "each group by class": [pl.col("g"), pl.col("class")],
        "by class, then group": [pl.col("class"), pl.col("g")],
        "halves by class": [pl.col("g"), half.over("g"), pl.col("class")],
    }[how]
    df = by_id.sort(order, nulls_last=True, maintain_order=True)
    block = n_ids + (miss == "an id twice in each block")
    if miss == "an id changed inside a block":
        df = df.with_columns(id=pl.Series(df["id"]).scatter(block + block // 2, 1000))
    elif miss == "a class twice in a section":
        df = pl.concat([df[: 2 * block], df[:block], df[2 * block :]])
    elif miss == "a row missing":
        df = pl.concat([df[: block + 1], df[block + 2 :]])
    elif miss == "a row repeated":
        df = pl.concat([df[: block + 1], df[block:]])
    took = _tables_equal_the_group_by(df, "_counted_in_blocks", grouped=grouped)
    # Counted where they are, unless the blocks are not alike (or of two rows or fewer on
    # average: rows by id, as far as the rows tell).
    alike = miss in (None, "an id twice in each block", "a null group")
    alike = alike and 2 * len(df["class"].rle()) <= len(df)
    assert bool(took) == alike
    assert all(t is not None for t in took)


@needs_kernel
@given(
    seed=st.integers(0, 2**32 - 1),
    groups=st.sampled_from(["one", "in turn", "repeated"]),
    score_dtype=st.sampled_from([pl.Float32, pl.Float64]),
    class_dtype=st.sampled_from(
        [pl.Int8, pl.Int16, pl.Int64, pl.UInt8, pl.UInt32, pl.String, pl.Categorical, "enum"]
    ),
    chunks=st.integers(1, 6),
    threads=st.sampled_from([1, 2, 5]),
    sorted_rows=st.booleans(),
    weighted=st.booleans(),
)
@settings(max_examples=120, deadline=None)
def test_curve_counts_equal_the_group_by(
    seed: int,
    groups: str,
    score_dtype: Any,
    class_dtype: Any,
    chunks: int,
    threads: int,
    sorted_rows: bool,
    weighted: bool,
) -> None:
    """The kernel's curves table is polars' aggregation by (group, class, score): ties,
    -0.0 with 0.0, NaN, infinities, a group in several segments (summed), segments across
    chunks (one table per thread) and cut between threads (summed), and each class's scores
    highest first. ``sorted_rows``: the hash table gives up at once (scores as if nearly
    all distinct; not for pieces of one score), and every row is sorted, each thread a
    share of the classes. Either way each (segment, class) comes once, its rows together,
    highest score first. ``weighted``: the weights of the positives and negatives, to the
    bit on any number of threads where a group is one segment (added in the rows' order,
    compensated, as polars adds a small group's floats)."""
    rng = np.random.default_rng(seed)
    # Up to 400 ids: the sort's radix passes (64 rows of a class and truth, and more).
    n_ids, n_classes = (
        int(rng.integers(1, 400 if rng.random() < 0.3 else 40)),
        int(rng.integers(1, 6)),
    )
    n = n_ids * n_classes
    first_class = -5 if class_dtype in (pl.UInt8, pl.UInt32) else 5
    # Classes far apart: the sort's classes span more integers than rows (sorted as pairs).
    step = 50_001 if class_dtype in (pl.Int64, pl.UInt32) and rng.random() < 0.5 else 3
    specials = np.array([0.0, -0.0, np.nan, np.inf, -np.inf])
    levels = int(rng.choice([8, 2**30]))  # ties, or nearly all distinct
    scores = np.where(
        rng.random(n) < 0.1, rng.choice(specials, n), rng.integers(0, levels, n) / levels
    )
    group_of = {"one": np.zeros(n_ids), "in turn": np.arange(n_ids) // 7}
    group_of["repeated"] = rng.integers(0, 3, n_ids)
    names = [str(k * step - first_class) for k in range(n_classes)]
    if class_dtype == "enum":  # more categories than present, in another order
        class_dtype = pl.Enum(["unused", *reversed(names), "also unused"])
    df = pl.DataFrame(
        {
            "g": np.repeat(group_of[groups], n_classes).astype(np.int64),
            "id": np.repeat(np.arange(n_ids), n_classes),
            "class": np.tile(rng.permutation(n_classes) * step - first_class, n_ids),
            "score": scores,
            "truth": rng.random(n) < 0.4,
            "w": rng.random(n)
            * rng.choice(
                [0.0, 1e-8, 1.0, 3e7, np.inf, np.nan], n, p=[0.2, 0.2, 0.3, 0.28, 0.01, 0.01]
            ),
        },
        schema_overrides={"score": score_dtype},
    )
    text = class_dtype in (pl.String, pl.Categorical) or isinstance(class_dtype, pl.Enum)
    df = df.with_columns(pl.col("class").cast(pl.String if text else class_dtype))
    df = df.with_columns(pl.col("class").cast(class_dtype))
    cuts = sorted(rng.integers(0, n + 1, chunks - 1).tolist())
    bounds = [0, *cuts, n]
    df = pl.concat([df[a:b] for a, b in itertools.pairwise(bounds)], rechunk=False)
    runs = _kernel.id_runs(df, ["g"], "id", in_order=True)
    assert runs is not None
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_kernel, "thread_count", lambda: threads)
        if sorted_rows:
            patch.setattr(_kernel, "_CURVE_ENTRIES", 1)
            patch.setattr(_kernel, "_CURVE_ROWS_PER_ENTRY", 2**40)
        codes = _kernel.ClassCodes.of(df["class"])
        truth_flags = _kernel.flags(df["truth"])
        weights = df["w"] if weighted else None
        counted = _kernel.curve_counts(
            runs.starts, runs.firsts, truth_flags, codes, df["score"], weights
        )
    assert counted is not None
    segment, classes, scores_of, positives, negatives = counted
    got = pl.DataFrame(
        {"g": runs.groups["g"].gather(segment), "class": classes, "score": scores_of}
    ).with_columns(pos=pl.Series(positives), neg=pl.Series(negatives))
    assert got.schema["class"] == class_dtype
    assert got.schema["score"] == score_dtype
    truth, w = pl.col("truth"), pl.col("w")
    sums = (
        [w.filter(truth).sum(), w.filter(~truth).sum()]
        if weighted
        else [truth.sum(), (~truth).sum()]
    )
    want = df.group_by("g", "class", "score").agg(
        sums[0].cast(pl.Float64).alias("pos"), sums[1].cast(pl.Float64).alias("neg")
    )
    keys = ["g", "class", "score"]
    if groups != "repeated":  # each group in one segment: each key once
        assert got.select(keys).is_unique().all()
    summed = got.group_by(keys).agg(pl.col("pos", "neg").sum())
    exact = not weighted or groups != "repeated"  # (a group's segments' sums added up)
    assert_frame_equal(summed.sort(keys), want.sort(keys), check_exact=exact, rel_tol=1e-12)
    ordered = got.with_columns(segment=pl.Series(segment))
    if threads == 1 and not sorted_rows:  # no segment cut: each class's scores highest first
        # Categoricals and enums in the order of their codes, strings as sorted.
        code = pl.col("class").to_physical() if text and class_dtype != pl.String else "class"
        order = ["segment", code, "score"]
        assert_frame_equal(ordered, ordered.sort(order, descending=[False, False, True]))
    # Each (segment, class) once, in one block of rows, scores falling (in the hash table's
    # rows, the sort's, and a segment's cut between threads, merged): ordered by the block's
    # first row, then score, the table is as it came.
    assert ordered.select("segment", "class", "score").is_unique().all()
    block = pl.col("row").min().over("segment", "class").alias("block")
    blocks = ordered.with_row_index("row").with_columns(block)
    want_order = blocks.sort(["block", "score"], descending=[False, True], maintain_order=True)
    assert_frame_equal(blocks, want_order)


@needs_kernel
@given(
    seed=st.integers(0, 2**32 - 1),
    metric=st.sampled_from(["roc_auc", "average_precision"]),
    score_dtype=st.sampled_from([pl.Float32, pl.Float64]),
    weights=st.sampled_from(["counts", "weights", "extreme"]),
    key_dtype=st.sampled_from([pl.Int64, pl.String, pl.Categorical]),
)
@settings(max_examples=60, deadline=None)
def test_curve_areas_equal_the_plan(
    seed: int, metric: str, score_dtype: Any, weights: str, key_dtype: Any
) -> None:
    """The C sums of a curves table in blocks (each key's rows together, highest score
    first) are the polars plan's to the bit: counts, weights, weights far from 1 (the ROC
    area's scaling), negative and zero weights, null keys, blocks in any order. A table
    whose scores tie or rise within a block is left to the plan."""
    from pl_metrics._curves import _area_sums
    from pl_metrics._state import CURVE_NEG, CURVE_POS, CURVE_SCORE

    rng = np.random.default_rng(seed)
    blocks = []
    for g, c in itertools.product(range(int(rng.integers(1, 4))), range(int(rng.integers(1, 5)))):
        m = int(rng.integers(1, 300))
        scores = np.sort(np.unique(rng.integers(0, 400, m) / 400.0).astype(np.float32))[::-1]
        m = len(scores)
        if weights == "counts":
            pos, neg = rng.integers(0, 4, m).astype(float), rng.integers(0, 4, m).astype(float)
        elif weights == "weights":
            pos, neg = rng.random(m) * (rng.random(m) < 0.5), rng.random(m) - 0.1
        else:
            scale = 10.0 ** rng.choice([-170, -20, 0, 20, 160])
            pos, neg = rng.random(m) * scale, rng.random(m) * scale * rng.choice([-1, 1], m)
        key = None if g == 2 else g
        blocks.append(
            pl.DataFrame(
                {
                    "g": [key] * m,
                    "class": [c] * m,
                    CURVE_SCORE: scores,
                    CURVE_POS: pos,
                    CURVE_NEG: neg,
                },
                schema_overrides={"g": pl.Int64, "class": pl.Int16, CURVE_SCORE: score_dtype},
            )
        )
    order = rng.permutation(len(blocks))
    df = pl.concat([blocks[k] for k in order]).with_columns(
        pl.col("g").cast(pl.String).cast(key_dtype)
    )
    keys = ["g", "class"]
    want = _area_sums(df.lazy(), keys, metric, None).collect()
    summed = _kernel.curve_areas(
        df, keys, CURVE_SCORE, CURVE_POS, CURVE_NEG, roc=metric == "roc_auc"
    )
    assert summed is not None
    firsts, values = summed
    got = firsts.with_columns(
        pl.Series(name, v) for name, v in zip(want.columns[2:], values, strict=True)
    )
    assert_frame_equal(got.sort(keys), want.sort(keys), check_exact=True)
    # Ties, or scores rising within a block: not the kernel's table.
    tied = df.with_columns(pl.col(CURVE_SCORE).max().over(keys))
    if df.height > len(blocks):  # a block of several rows
        for changed in (tied, df.reverse()):
            assert (
                _kernel.curve_areas(changed, keys, CURVE_SCORE, CURVE_POS, CURVE_NEG, roc=True)
                is None
            )


@needs_kernel
@pytest.mark.parametrize(
    "defect", ["none", "duplicate", "missing", "swapped", "doubled id", "id split"]
)
@pytest.mark.parametrize("by", [None, "group"])
def test_data_checks_counted_over_id_runs_raise_as_the_plan(
    defect: str, by: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Duplicate and missing (id, class) rows, found by the kernel's counts, raise the
    polars plan's error (or none); the values are the plan's."""
    df = random_dump(
        np.random.default_rng(7),
        n_ids=30,
        n_classes=5,
        positive_rate=0.3,
        levels=4,
        groups=3,
        contiguous=True,
        score_dtype=pl.Float64,
    ).sort("group", "id")
    first = pl.col("id") == pl.col("id").min()
    if defect == "duplicate":  # a row repeated
        df = pl.concat([df, df.filter(first).head(1)]).sort("group", "id")
    elif defect == "missing":
        df = df.filter(~(first & (pl.col("class") == 2)))
    elif defect == "swapped":  # an id repeats a class and lacks another
        swapped = pl.when(first & (pl.col("class") == 2)).then(3).otherwise("class")
        df = df.with_columns(swapped.alias("class"))
    elif defect == "doubled id":  # all an id's rows twice, next to each other
        df = pl.concat([df, df.filter(first)]).sort("group", "id")
    elif defect == "id split":  # an id's rows in two places: valid, sorted by the kernel
        df = pl.concat([df.filter(~first), df.filter(first)])
    metrics = ["lrap", "f1", "coverage_error"]

    def outcome() -> pl.DataFrame | str:
        try:
            return pl_metrics.report(df, metrics, by=by)
        except pl_metrics.MetricsInputError as error:
            return str(error)

    kernel = outcome()
    monkeypatch.setattr(_kernel, "_kernels", None)
    plan = outcome()
    if isinstance(plan, str):
        assert kernel == plan
    else:
        assert isinstance(kernel, pl.DataFrame), kernel
        assert_frame_equal(kernel, plan, rel_tol=1e-12)
    assert isinstance(plan, str) == (defect not in ("none", "id split"))


@pytest.mark.parametrize("kernel", [True, False], ids=["C", "numpy"])
@pytest.mark.parametrize(
    "words",
    [
        ["a", "bb", "", "twelve_bytes"],  # every string whole in its view
        ["a", "", "thirteen_byte", "a much longer model name v1", "a much longer model name v2"],
    ],
)
def test_key_change_rows_equal_polars(
    words: list[str], kernel: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chunks (whose string views number their buffers apart), slices, long strings sharing
    a length and prefix, integers of every width, runs longer than the C kernel's blocks:
    the rows where the keys change are polars' comparison of neighbouring rows."""
    if kernel and not _kernel.available():
        pytest.skip("the C kernel is not compiled")
    if not kernel:
        monkeypatch.setattr(_kernel, "_kernels", None)
    rng = np.random.default_rng(len(words))
    for trial in range(300):
        n = int(rng.integers(0, 30 if trial % 2 else 200))
        values = list(rng.choice(words, n))
        # Long runs of one value, so that whole blocks of rows have no change.
        numbers = np.repeat(rng.integers(-3, 3, n), rng.integers(1, 80, n))[:n]
        whole = pl.DataFrame(
            {
                "k": pl.Series(values, dtype=pl.String),
                "i8": pl.Series(numbers, dtype=pl.Int8),
                "u16": pl.Series(numbers + 3, dtype=pl.UInt16),
                "i32": pl.Series(numbers * 1000, dtype=pl.Int32),
                "i64": pl.Series(numbers << 40, dtype=pl.Int64),
            }
        )
        cuts = sorted({0, n, *rng.integers(0, n + 1, 3).tolist()})
        pieces = [whole[a:b] for a, b in itertools.pairwise(cuts)]
        df = pl.concat(pieces, rechunk=False) if pieces else whole
        if trial % 3 == 0 and df.height > 3:
            df = df.slice(1, df.height - 2)
        for keys in (["k"], ["i8"], ["u16"], ["i32"], ["i64"], ["k", "i8"], ["i32", "i64"]):
            changed = pl.any_horizontal(pl.col(k).ne_missing(pl.col(k).shift(1)) for k in keys)
            want = df.with_row_index().filter(changed.fill_null(False)).get_column("index")
            got = _kernel.key_change_rows(df, keys)
            assert got.tolist() == want.filter(want > 0).to_list(), (keys, values)
        # Integers' change rows count those below the row before's.
        for changes, column in zip(
            _kernel._each_change_rows(df, df.columns), df.columns, strict=True
        ):
            below = df.select((pl.col(column) < pl.col(column).shift(1)).sum()).item()
            assert changes.below == (None if column == "k" else below), column
        # The runs' first rows, gathered chunk by chunk, are polars' gather.
        rows = np.flatnonzero(rng.random(df.height) < 0.3)
        for column in ("i8", "u16", "i32", "i64", "k"):
            gathered = _kernel._gather(df[column], rows)
            assert gathered.equals(df[column].gather(rows), check_dtypes=True), column


@pytest.mark.parametrize("kernel", [True, False], ids=["C", "numpy"])
@pytest.mark.parametrize("id_type", [pl.Int8, pl.Int64, pl.UInt32, pl.UInt64, pl.String])
def test_id_runs_find_whether_ids_increase_in_each_segment(
    id_type: pl.DataType, kernel: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Runs of ids in order, dropping where a group starts, dropping within a group, a
    group in two segments, a key in two runs, chunks: the runs, whether each segment's ids
    increase, and whether each key has one run, as polars finds them."""
    if kernel and not _kernel.available():
        pytest.skip("the C kernel is not compiled")
    if not kernel:
        monkeypatch.setattr(_kernel, "_kernels", None)
    rng = np.random.default_rng(11)
    # Both ends of each type's range, where a signed or unsigned misreading would show.
    low, high = {
        pl.Int8: (-128, 127),
        pl.Int64: (-(2**63), 2**63 - 1),
        pl.UInt32: (0, 2**32 - 1),
        pl.UInt64: (0, 2**64 - 1),
        pl.String: (0, 9),
    }[id_type]
    for trial in range(200):
        n_runs = int(rng.integers(1, 12))
        picks = rng.integers(0, 6, n_runs)
        values = np.array([low, low + 1, 0, 1, high - 1, high], dtype=object)[picks]
        if trial % 2:  # mostly increasing, as dumps are
            values = np.sort(values)
        groups = np.sort(rng.integers(0, 3, n_runs)) if trial % 3 else rng.integers(0, 3, n_runs)
        sizes = rng.integers(2, 5, n_runs)
        ids = [str(v) if id_type == pl.String else int(v) for v in np.repeat(values, sizes)]
        df = pl.DataFrame({"g": np.repeat(groups, sizes), "id": pl.Series(ids, dtype=id_type)})
        cut = int(rng.integers(0, df.height + 1))
        df = pl.concat([df[:cut], df[cut:]], rechunk=False)
        key = pl.struct("g", "id")
        first = df.with_row_index().filter(key.ne_missing(key.shift(1)).fill_null(True))
        segment = (pl.col("g") != pl.col("g").shift(1)).fill_null(False).cum_sum()
        want_ordered = first.select(
            ((pl.col("id") > pl.col("id").shift(1)) | (segment != segment.shift(1))).slice(1).all()
        ).item()
        one_run_each = first.select(key.is_unique().all()).item()
        runs = _kernel.id_runs(df, ["g"], "id", in_order=False)
        if not one_run_each:
            assert runs is None
            continue
        assert runs is not None
        assert runs.starts[:-1].tolist() == first["index"].to_list()
        assert runs.ordered == want_ordered, (df, trial)
        assert runs.ids.equals(first["id"])


def test_id_runs_take_seldom_changing_columns_from_their_stretches() -> None:
    """A model of few changes (text with nulls, 64-bit integers) and a fold per id, in
    chunks: the segments' groups are the rows' own values, types included, whether the
    ids rise throughout or restart with each model."""
    rng = np.random.default_rng(12)
    n_ids, quarter = 700, 175  # more segments than a seldom-changing column's changes
    rows = np.repeat(np.arange(n_ids), 3)
    versions = np.array([7, 2**40, 2**64 - 3, 7], np.uint64)
    df = pl.DataFrame(
        {
            "model": pl.Series(np.repeat(["b", None, "a", "b"], quarter).tolist()).gather(rows),
            "version": pl.Series(np.repeat(versions, quarter)).gather(rows),
            "fold": pl.Series(rng.integers(0, 5, n_ids), dtype=pl.Int8).gather(rows),
            "id": rows,
        }
    )
    # Ids restarting with each model, whose stretches are then distinct.
    restarting = df.with_columns(
        pl.Series(np.repeat(["b", None, "a", "c"], quarter).tolist()).gather(rows).alias("model"),
        pl.col("id") % quarter,
    )
    bys = [["model", "fold"], ["model", "version", "fold"]]
    for frame, keys in ((df, [*bys, ["fold", "version"]]), (restarting, bys)):
        frame = pl.concat([frame[:1000], frame[1000:1001], frame[1001:]], rechunk=False)
        for by in keys:
            runs = _kernel.id_runs(frame, by, "id")
            assert runs is not None
            assert len(runs.firsts) > _kernel._FEW_CHANGES
            want = frame.select(by)[runs.starts[runs.firsts]]
            assert_frame_equal(runs.groups, want, check_exact=True)


@pytest.mark.parametrize("wide", [False, True], ids=["32-bit", "64-bit"])
def test_gather_and_repeat_indices_equal_numpy(wide: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """`block_rows` (32-bit, from Arrow's pool) is each block's rows in turn, empty blocks
    and blocks given twice included, and `_repeat_index` is `np.repeat`'s; past the 32-bit
    rows (made small here), the same in 64 bits."""
    if wide:
        monkeypatch.setattr(_kernel, "_MOST_32_BIT_ROWS", 10)
    rng = np.random.default_rng(13)
    for _ in range(50):
        lengths = rng.integers(0, 6, int(rng.integers(0, 30)))
        starts = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        blocks = rng.integers(0, max(len(lengths), 1), len(lengths))[: len(lengths)]
        want = [row for b in blocks.tolist() for row in range(starts[b], starts[b + 1])]
        assert _kernel.block_rows(starts, blocks).tolist() == want
        positive = lengths[lengths > 0]
        repeated = _kernel._repeat_index(positive)
        assert repeated.tolist() == np.repeat(np.arange(len(positive)), positive).tolist()


@pytest.mark.parametrize("by", [[], ["g"], ["model", "g"]])
def test_id_runs_of_no_rows(by: list[str]) -> None:
    """No rows: no runs, no segments, and each ``by`` column, empty."""
    df = pl.DataFrame(schema={"model": pl.String, "g": pl.Int8, "id": pl.Int64})
    runs = _kernel.id_runs(df, by, "id")
    assert runs is not None
    assert runs.starts.tolist() == [0]
    assert runs.firsts.tolist() == []
    assert runs.groups.columns == by
    assert runs.groups.height == 0


@needs_kernel
def test_confusion_counts_with_null_and_nan_scores_unchecked_equal_the_plan(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With the checks off, a null score (no prediction) and a NaN one (predicted
    negative) are counted as the plan counts them."""
    df = random_dump(
        np.random.default_rng(3),
        n_ids=20,
        n_classes=4,
        positive_rate=0.4,
        levels=4,
        groups=2,
        contiguous=True,
        score_dtype=pl.Float64,
    ).sort("group", "id")
    for bad in (None, float("nan")):
        bad_score = pl.when(pl.int_range(pl.len()) == 5).then(bad).otherwise("score")
        rows = df.with_columns(bad_score.alias("score"))
        options: dict[str, Any] = {"by": "group", "validate": False}
        kernel = pl_metrics.report(rows, ["f1", "precision", "hamming_loss"], **options)
        confusion = pl_metrics.confusion(rows, **options)
        with monkeypatch.context() as patch:
            patch.setattr(_kernel, "_kernels", None)
            plan = pl_metrics.report(rows, ["f1", "precision", "hamming_loss"], **options)
            assert_frame_equal(kernel, plan)
            assert_frame_equal(confusion, pl_metrics.confusion(rows, **options))


def test_keys_and_classes_numpy_cannot_hold_take_the_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    """Int128 ids and classes (no numpy type) are counted by polars, as without the kernel."""
    df = random_dump(
        np.random.default_rng(4),
        n_ids=10,
        n_classes=3,
        positive_rate=0.4,
        levels=4,
        groups=2,
        contiguous=True,
        score_dtype=pl.Float64,
    ).with_columns(pl.col("id", "class").cast(pl.Int128))
    metrics = ["f1", "lrap"]
    got = pl_metrics.report(df, metrics, by="group")
    monkeypatch.setattr(_kernel, "_kernels", None)
    assert_frame_equal(got, pl_metrics.report(df, metrics, by="group"))


@needs_kernel
def test_kernels_refuse_columns_shorter_than_the_runs() -> None:
    """The C functions check that every column has the runs' rows, not read past them."""
    from pl_metrics import _kernels

    assert _kernels is not None
    starts = np.array([0, 5, 10], np.int64)
    two, rows = np.zeros(2), np.zeros(10, np.bool_)
    with pytest.raises(ValueError, match="short"):  # truth of 4 rows for runs of 10
        _kernels.pair_counts(
            starts, np.zeros(10), False, rows[:4], *(np.zeros(5, np.int64),) * 2, two, two, two
        )

    def run_sums(
        base: int,
        classes: np.ndarray,
        firsts: tuple[int, ...] = (0, 1),
        cells: int = 2,
        of_run: tuple[int, ...] = (),
        n_groups: int = 0,
        run0: int = 0,
        weight: np.ndarray | None = None,
        weighted_cells: int = 0,
    ) -> np.ndarray:
        """Two runs in ``firsts``' segments (or ``of_run``'s groups), counted into
        ``cells`` counts per segment (or group): the counts; with ``weight`` (and a
        prediction for each row), their weights summed in ``weighted_cells`` sums."""
        assert _kernels is not None
        no_rows, no_pairs = np.zeros(0, np.bool_), np.zeros(0, np.int64)
        runs = (np.zeros(2, np.int64), np.zeros(2, np.uint64))
        counts = np.zeros(cells, np.int64)
        weighted = np.zeros(weighted_cells)
        _kernels.run_sums(
            starts, base, rows, no_rows if weight is None else rows, classes, "h", 0,
            np.zeros(1, np.uint64), np.array(firsts, np.int64), run0, *runs, counts,
            no_pairs, no_pairs.view(np.uint64), np.array(of_run, np.int64), n_groups,
            np.zeros(0) if weight is None else weight, weighted,
        )  # fmt: skip
        return counts if weight is None else weighted

    with pytest.raises(ValueError, match="short"):  # classes of 9 rows
        run_sums(0, np.zeros(9, np.int16))
    with pytest.raises(ValueError, match="short"):  # runs from before the first row
        run_sums(1, np.zeros(10, np.int16))
    with pytest.raises(ValueError, match="short"):  # a count per class of one segment of two
        run_sums(0, np.zeros(10, np.int16), cells=1)
    with pytest.raises(ValueError, match="short"):  # the first run in no segment
        run_sums(0, np.zeros(10, np.int16), firsts=(1,))
    run_sums(0, np.zeros(10, np.int16))  # the same runs from row 0: counted
    # Runs' groups numbered: each run's must be read, and each group have its counts.
    with pytest.raises(ValueError, match="short"):  # a group for the first run only
        run_sums(0, np.zeros(10, np.int16), of_run=(0,), n_groups=1, cells=1)
    with pytest.raises(ValueError, match="short"):  # a group past the groups
        run_sums(0, np.zeros(10, np.int16), of_run=(0, 2), n_groups=2)
    with pytest.raises(ValueError, match="short"):  # two groups' counts, room for one
        run_sums(0, np.zeros(10, np.int16), of_run=(1, 0), n_groups=2, cells=1)
    with pytest.raises(ValueError, match="short"):  # runs numbered from before the first
        run_sums(0, np.zeros(10, np.int16), of_run=(0, 0), n_groups=1, run0=-(10**9))
    # Both runs in group 1, whatever the segments: its 10 rows of class 0.
    counted = run_sums(0, np.zeros(10, np.int16), firsts=(0, 1), of_run=(1, 1), n_groups=2)
    np.testing.assert_array_equal(counted, [0, 10])
    # Weights summed per (segment, class, truth, prediction): a weight for every row, and
    # a sum for every count.
    weights = np.arange(10.0)
    with pytest.raises(ValueError, match="short"):
        run_sums(0, np.zeros(10, np.int16), cells=8, weight=weights[:9], weighted_cells=8)
    with pytest.raises(ValueError, match="short"):
        run_sums(0, np.zeros(10, np.int16), cells=8, weight=weights, weighted_cells=7)
    summed = run_sums(0, np.zeros(10, np.int16), cells=8, weight=weights, weighted_cells=8)
    np.testing.assert_array_equal(summed, [10, 0, 0, 0, 35, 0, 0, 0])  # (false, false)
    first_runs, classes, scores = np.zeros(1, np.int64), np.zeros(10, np.int16), np.zeros(10)
    with pytest.raises(ValueError, match="short"):  # no scores
        _kernels.curve_counts([(starts, 0, classes, two[:0], rows)], first_runs, "h", False, 100)
    with pytest.raises(ValueError, match="no segment"):
        _kernels.curve_counts([(starts, 0, classes, scores, rows)], first_runs + 1, "h", False, 9)
    counted = _kernels.curve_counts([(starts, 0, classes, scores, rows)], first_runs, "h", False, 9)
    assert counted is not None
    assert len(counted) == 40  # one (segment, class, score): one 40-byte record
    # More distinct (class, score) pairs in a segment than allowed: left to polars.
    stretch = [(starts, 0, classes, np.arange(10.0), rows)]
    assert _kernels.curve_counts(stretch, first_runs, "h", False, 9) is None
    # Change rows, and given the integers' order, how many are below the row before's.
    ids, out = np.array([3, 1, 2, 2, -1], np.int32), np.zeros(5, np.int64)
    assert _kernels.change_rows(ids, 4, out) == (3, 0)
    assert _kernels.change_rows(ids, 4, out, "i") == (3, 2)
    assert _kernels.change_rows(ids.view(np.uint32), 4, out, "u") == (3, 1)  # -1: the highest
    np.testing.assert_array_equal(out[:3], [1, 2, 4])
    with pytest.raises(ValueError, match="order"):
        _kernels.change_rows(ids, 4, out, "x")
    # The curves' sums: per block of rows, highest score first; starts must not fall, nor
    # pass the rows; the sort mode needs its columns, long enough for the rows.
    sums = [np.zeros(2) for _ in range(5)]
    score, weights = np.array([3.0, 2.0, 1.0]), np.ones(3)
    assert _kernels.curve_areas(np.array([0, 2, 3]), score, False, weights, weights, True, *sums)
    assert not _kernels.curve_areas(
        np.array([0, 2, 3]), score[::-1].copy(), False, weights, weights, True, *sums
    )
    with pytest.raises(ValueError, match="fall"):
        _kernels.curve_areas(np.array([0, 3, 2]), score, False, weights, weights, True, *sums)
    with pytest.raises(ValueError, match="short"):
        _kernels.curve_areas(np.array([0, 2, 4]), score, False, weights, weights, True, *sums)
    stretch = [(starts, 0, classes, np.arange(10.0), rows)]
    with pytest.raises(TypeError, match="columns"):
        _kernels.curve_counts(stretch, first_runs, "h", False, 0, 0, 1)
    short = [np.zeros(3, np.int64) for _ in range(5)]
    with pytest.raises(ValueError, match="shorter than the rows"):
        _kernels.curve_counts(
            stretch, first_runs, "h", False, 0, 0, 1, (*short, np.zeros(1, np.int64))
        )
    # Weights: a float64 a row, in every stretch or none, counted in the sort mode alone;
    # and runs' starts must not fall.
    room = (*(np.zeros(10, np.int64) for _ in range(5)), np.zeros(1, np.int64))
    weighted = (starts, 0, classes, np.arange(10.0), rows, np.ones(10))
    counted = _kernels.curve_counts([weighted], first_runs, "h", False, 0, 0, 1, room)
    assert counted == b""
    assert room[-1][0] == 10  # (a row per distinct score)
    with pytest.raises(ValueError, match="sort mode"):
        _kernels.curve_counts([weighted], first_runs, "h", False, 9)
    with pytest.raises(ValueError, match="short"):
        _kernels.curve_counts([(*weighted[:5], np.ones(9))], first_runs, "h", False, 0, 0, 1, room)
    with pytest.raises(ValueError, match="some stretches only"):
        _kernels.curve_counts([weighted, stretch[0]], first_runs, "h", False, 0, 0, 1, room)
    falling = (np.array([0, 10, 4], np.int64), *stretch[0][1:])
    with pytest.raises(ValueError, match="starts fall"):
        _kernels.curve_counts([falling], first_runs, "h", False, 9)
    # Block sums from the last row: at most 8 columns, each as long as the starts say.
    with pytest.raises(ValueError, match="at most 8"):
        _kernels.sums_from_last(np.array([0, 3], np.int64), [score] * 9, np.zeros(9))
    with pytest.raises(ValueError, match="short"):
        _kernels.sums_from_last(np.array([0, 4], np.int64), [score], np.zeros(1))
    with pytest.raises(ValueError, match="out of range"):
        _kernels.kahan_bincount(np.array([0, 2], np.int64), np.ones(2), np.zeros(2))


def test_in_threads_nested_and_after_fork(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kept threads run nested calls in place, and a forked child starts its own."""
    monkeypatch.setattr(_kernel, "thread_count", lambda: 2)
    seen = np.zeros((4, 3), np.int64)

    def outer(i: int) -> None:
        def inner(j: int) -> None:
            seen[i, j] += 1

        _kernel.in_threads(inner, range(3))  # inside a pool thread: run in place

    _kernel.in_threads(outer, range(4))
    assert (seen == 1).all()
    if not hasattr(os, "fork"):
        return
    read, write = os.pipe()
    with warnings.catch_warnings():  # Python 3.12+ warns of forking a threaded process
        warnings.simplefilter("ignore", DeprecationWarning)
        child = os.fork()  # the parent's pool threads do not exist in the child
    if child == 0:  # pragma: no cover - runs in the child
        counts = np.zeros(5, np.int64)
        _kernel.in_threads(lambda k: counts.__setitem__(k, k), range(5))
        os.write(write, str(int(counts.sum())).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        got = pipe.read()
    os.waitpid(child, 0)
    assert got == "10"


@needs_kernel
@given(
    seed=st.integers(0, 2**32 - 1),
    n_ids=st.integers(1, 30),
    n_classes=st.integers(1, 7),
    class_dtype=st.sampled_from([pl.Int16, pl.String, pl.Categorical, "enum"]),
    score_dtype=st.sampled_from([pl.Float64, pl.Float32]),
    layout=st.sampled_from(["by id", "shuffled", "ragged"]),
    defect=st.sampled_from(
        [
            *("none", "two true", "no true", "zero row", "negative", "nan", "null", "-0.0"),
            *("weight varies", "weight null", "weight zero"),
        ]
    ),
    weighted=st.booleans(),
    validate=st.booleans(),
    per_id=st.booleans(),
    k=st.integers(1, 3),
    threshold=st.sampled_from([0.25, 0.5]),
)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_per_id_kernels_equal_the_plan(
    seed: int,
    n_ids: int,
    n_classes: int,
    class_dtype: Any,
    score_dtype: Any,
    layout: str,
    defect: str,
    weighted: bool,
    validate: bool,
    per_id: bool,
    k: int,
    threshold: float,
) -> None:
    """The per-id kernels (log loss's true probability and zero rows, accuracy's exact
    matches, 'samples' counts, top-k's hits with ties broken by label order) give the
    plan's values and errors: groups, every class type, ragged and shuffled ids, ties,
    ids without one true class, zeros, negatives, NaN and nulls, weights (varying within
    an id, null, zero), checks on and off."""
    rng = np.random.default_rng(seed)
    n = n_ids * n_classes
    true_class = rng.integers(0, n_classes, n_ids)
    classes = np.tile(np.arange(n_classes), n_ids)
    scores = rng.integers(1, 5, n) / 4  # ties, and ones (zeros are a defect below)
    df = pl.DataFrame(
        {
            "group": np.repeat(rng.integers(0, 3, n_ids), n_classes),
            "id": np.repeat(np.arange(n_ids), n_classes),
            "class": classes,
            "score": scores,
            "truth": classes == np.repeat(true_class, n_classes),
            "w": np.repeat(rng.random(n_ids) + 0.5, n_classes),
        }
    )
    first = pl.col("id") == 0
    if defect == "two true":
        df = df.with_columns(truth=pl.col("truth") | (first & (pl.col("class") == 0)))
    elif defect == "no true":
        df = df.with_columns(truth=pl.col("truth") & ~first)
    elif defect in ("zero row", "-0.0"):
        zero = 0.0 if defect == "zero row" else -0.0
        some = (pl.col("id") == 1) & (pl.col("class") == 0)  # (a zero in a row that is not)
        df = df.with_columns(score=pl.when(first | some).then(zero).otherwise("score"))
    elif defect in ("negative", "nan", "null"):
        bad = {"negative": -0.25, "nan": float("nan"), "null": None}[defect]
        df = df.with_columns(
            score=pl.when(pl.int_range(pl.len()) == n // 2).then(bad).otherwise("score")
        )
    elif defect.startswith("weight"):
        bad = {"weight varies": 9.0, "weight null": None, "weight zero": 0.0}[defect]
        row = pl.int_range(pl.len()) == (n // 2 if defect == "weight varies" else 0)
        df = df.with_columns(w=pl.when(row).then(bad).otherwise("w"))
    if layout == "ragged":  # some ids lack a (false) class
        df = df.filter(pl.col("truth") | (rng.random(n) < 0.8))
    elif layout == "shuffled":
        df = df.sample(fraction=1.0, shuffle=True, seed=seed % 1000)
    names = [str(c) for c in rng.permutation(n_classes)]  # an enum's order is not the text's
    cls = pl.col("class")
    if class_dtype == "enum":
        df = df.with_columns(cls.cast(pl.String).cast(pl.Enum(names)))
    elif class_dtype in (pl.String, pl.Categorical):
        df = df.with_columns((pl.lit("c") + cls.cast(pl.String)).cast(class_dtype))
    df = df.with_columns(pl.col("score").cast(score_dtype))
    cut = df.height // 2  # in two chunks
    df = pl.concat([df[:cut], df[cut:]], rechunk=False)
    options: dict[str, Any] = {
        "by": "group",
        "weight_col": "w" if weighted else None,
        "validate": validate,
        "per_id": per_id,
        "ragged": "allow" if layout == "ragged" else "error",
    }

    def outcome(metrics: list[str], more: dict[str, Any]) -> pl.DataFrame | str:
        try:
            result = pl_metrics.report(df, metrics, **(options | more))
        except pl_metrics.MetricsInputError as error:
            return str(error)
        return result.sort("group", nulls_last=True)

    calls: list[tuple[list[str], dict[str, Any]]] = [
        (["log_loss", "top_k_accuracy", "accuracy"], {"k": k, "threshold": threshold}),
        (["precision", "jaccard", "accuracy"], {"average": "samples", "threshold": threshold}),
        (["top_k_accuracy", "lrap", "f1"], {"k": k, "threshold": threshold}),
        # (top-k's kernel stands in for its hook alone: 'samples' ROC AUC keeps its own.)
        (["top_k_accuracy", "roc_auc", "average_precision"], {"k": k, "average": "samples"}),
        # (Weighted: the kernel's sums of weights per class.)
        (["precision", "matthews_corrcoef"], {"average": None, "per_id": False}),
    ]
    kernel = [outcome(*call) for call in calls]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_kernel, "_kernels", None)
        plan = [outcome(*call) for call in calls]
    if defect == "none" and n_classes > 1 and not per_id and layout != "ragged":
        # (Values, not errors: the options are right.)
        assert all(isinstance(want, pl.DataFrame) for want in plan), plan
    for got, want in zip(kernel, plan, strict=True):
        if isinstance(want, str):
            assert got == want
        else:
            assert isinstance(got, pl.DataFrame), got
            if "id" in want.columns:  # (per id)
                got, want = got.sort("group", "id"), want.sort("group", "id")
            # (Weighted sums over rows moved together for the kernels add in another order.)
            assert_frame_equal(got, want, rel_tol=1e-12)


@pytest.mark.parametrize("collide", [False, True])
def test_row_codes_number_distinct_rows_as_they_first_come(
    collide: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As polars' ordered group_by numbers them, nulls and text included; rows whose hashes
    collide (forced here: every hash the same) are still told apart."""
    rng = np.random.default_rng(3)
    n = 2_000
    df = pl.DataFrame(
        {
            "model": rng.choice(["a", "b", None], n),
            "fold": pl.Series(rng.integers(0, 4, n), dtype=pl.Int8),
            "id": rng.integers(0, 300, n),
        }
    )
    listed = df.with_row_index("row").group_by(df.columns, maintain_order=True)
    rows = listed.agg(pl.col("row"))["row"]
    want = np.empty(n, np.int64)
    want[rows.explode().to_numpy()] = np.repeat(np.arange(len(rows)), rows.list.len().to_numpy())
    if collide:
        monkeypatch.setattr(pl.DataFrame, "hash_rows", lambda self: pl.Series([0] * self.height))
    codes, firsts = _kernel.row_codes(df)
    np.testing.assert_array_equal(codes, want)
    np.testing.assert_array_equal(firsts, rows.list.first().to_numpy())
    assert not _kernel.distinct_rows(df)
    distinct = df.unique(maintain_order=True)
    assert _kernel.distinct_rows(distinct)
    assert _kernel.distinct_rows(distinct.select([]).head(1))  # no columns: one (empty) key


@pytest.mark.parametrize("kernel", [True, False], ids=["C", "numpy"])
@given(
    lengths=st.lists(st.integers(0, 6), max_size=8),
    width=st.integers(0, 3),
    seed=st.integers(0, 2**32 - 1),
)
@settings(max_examples=60, deadline=None)
def test_sums_from_last_adds_each_block_from_its_last_row(
    kernel: bool, lengths: list[int], width: int, seed: int
) -> None:
    """As polars' ordered sum adds a curves block's rows, lowest score (last row) first."""
    rng = np.random.default_rng(seed)
    rows = sum(lengths)
    pool = np.array([-0.0, 0.0, 1e16, -1e16, 1.0, 0.1, 3.3, -2.5, np.inf])
    columns = [rng.choice(pool, rows) for _ in range(width)]
    starts = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    with pytest.MonkeyPatch.context() as patch:
        if not kernel:
            patch.setattr(_kernel, "_kernels", None)
        sums = _kernel.sums_from_last(columns, starts)
    assert sums.shape == (len(lengths), width)
    for block, (a, b) in enumerate(itertools.pairwise(starts)):
        for c, column in enumerate(columns):
            want = pl.Series(column[a:b][::-1]).cum_sum().fill_null(0.0)
            expected = (want[-1] if b > a else 0.0) + 0.0
            assert sums[block, c] == expected or (np.isnan(sums[block, c]) and np.isnan(expected))
            assert np.signbit(sums[block, c]) == np.signbit(expected)


def test_the_kernels_true_class_counts_are_those_of_their_checks() -> None:
    # The kernel's counts were paired with the checks by position: putting "several" first
    # (fc6b293) swapped them, unseen while such ids still go to the polars plan.
    from pl_metrics._spec import resolve
    from pl_metrics._state import _count_templates

    df = pl.DataFrame(
        {"id": [0, 0, 1, 1], "class": [0, 1] * 2, "score": [0.1] * 4, "truth": [0, 0, 1, 1]}
    )
    templates = _count_templates(resolve(df.lazy(), ["top_k_accuracy"]).columns, [])
    counts = (
        df.with_columns(pl.col("truth").cast(pl.Boolean))
        .group_by("id")
        .agg(
            templates["no_positive"].alias("none"), templates["several_positives"].alias("several")
        )
    )
    assert counts.sort("id").select("none", "several").rows() == [(1, 0), (0, 1)]


@needs_kernel
def test_groups_in_a_few_stretches_are_counted_as_stacked_groups(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Per-fold files stacked, each of every model: each model's stretches are moved together
    for the curves table, whose values are then those of the rows stacked by model, bit for
    bit (each segment's were summed and sorted again: 8x as long)."""
    rng = np.random.default_rng(0)
    n, k = 300, 12
    fold = rng.integers(0, 5, n)
    by_model = pl.concat(
        pl.DataFrame(
            {
                "model": model,
                "fold": np.repeat(fold, k),
                "id": np.repeat(np.arange(n), k),
                "class": np.tile(np.arange(k), n),
                "score": rng.random(n * k).round(2).astype(np.float32),
                "truth": rng.random(n * k) < 0.2,
                "w": np.repeat(rng.random(n), k),
            }
        )
        for model in "abc"
    )
    by_fold = by_model.sort("fold", maintain_order=True)
    moved = []
    segments_by_group = _kernel.segments_by_group

    def spied(*args: Any) -> Any:
        moved.append(True)
        return segments_by_group(*args)

    monkeypatch.setattr("pl_metrics._runs.segments_by_group", spied)
    for metric, options in [
        ("roc_auc", {"weight_col": "w"}),
        ("brier_score", {}),
        ("calibration_curve", {}),
        ("average_precision", {"average": None}),
    ]:
        stacked = pl_metrics.report(by_model, metric, by="model", **options)
        assert not moved
        assert_frame_equal(
            pl_metrics.report(by_fold, metric, by="model", **options), stacked, check_exact=True
        )
        assert moved
        moved.clear()


# Mutant: _ranking.py:118 `return in_memory and _kernel.available()` -> `return
# _kernel.available()` (a LazyFrame's plan then collects all its rows into memory for the
# kernel, in a Python source, instead of streaming).
@needs_kernel
@pytest.mark.parametrize(
    ("metric", "options"),
    [("lrap", {}), ("lwlrap", {}), ("lwlrap", {"per_class": True}), ("ndcg", {})],
)
def test_lazy_ranking_plans_have_no_python_step(metric: str, options: dict[str, Any]) -> None:
    df = pl.DataFrame({"id": [1, 1], "class": [0, 1], "score": [0.2, 0.4], "truth": [1, 0]})
    state = pl_metrics.state(df.lazy(), metric, **options)
    for table in (state.groups, state.classes):
        if table is not None:
            assert "PYTHON" not in table.lazy().explain()


# Mutant: _ranking.py:235 `if not kernel_reads(df[SCORE]) or df[_TRUTH].null_count():` ->
# `if not kernel_reads(df[SCORE]):` (unchecked null truth reaches the kernel, which reads a
# null's stale bit as a positive: per class, a length error; otherwise other numbers).
@needs_kernel
def test_unchecked_null_truth_counts_as_the_plan_does() -> None:
    # A null made by `when` over a true value keeps the value's bit set under the null.
    truth = pl.select(
        pl.when(pl.Series([True, True, False, True, True, True])).then(
            pl.Series([True, False, True, True, False, True])
        )
    ).to_series()
    assert truth.null_count() == 1
    assert _kernel.flags(truth)[2]
    df = pl.DataFrame(
        {
            "id": [0, 0, 0, 1, 1, 1],
            "class": [0, 1, 2] * 2,
            "score": [0.9, 0.2, 0.5, 0.3, 0.6, 0.1],
            "truth": truth,
        }
    )
    calls = [
        lambda: pl_metrics.report(df, RANKING, validate=False),
        lambda: pl_metrics.lwlrap(df, validate=False, per_class=True),
        lambda: pl_metrics.report(df, ["lrap", "coverage_error"], validate=False, per_id=True),
    ]
    for call in calls:
        assert_frame_equal(call(), on_the_plan(call), rel_tol=1e-12)


def test_count_kinds_leaves_a_literal_that_is_not_zero_to_the_plan() -> None:
    # A literal per-id column is a row check that passed on the whole frame (zero); any
    # other literal is no count the kernel makes, even next to zeros: the plan computes it.
    from pl_metrics._runs import count_kinds

    templates = {"rows": pl.len()}
    passed = [pl.len().alias("n"), pl.lit(0).alias("a")]
    assert count_kinds(passed, templates) == {"n": "rows", "a": "zero"}
    assert count_kinds([*passed, pl.lit(3).alias("b")], templates) is None
    assert count_kinds([*passed, pl.col("x").sum().alias("b")], templates) is None


def test_single_label_metrics_of_one_true_class_per_id_count_on_the_kernel() -> None:
    # Each id has exactly one true class: the kernel's checks (no true class, several) must
    # find nothing, and the numbers are scikit-learn's on both paths.
    from sklearn.metrics import log_loss, top_k_accuracy_score

    rng = np.random.default_rng(7)
    n_ids, n_classes = 12, 4
    truth = np.zeros((n_ids, n_classes), bool)
    truth[np.arange(n_ids), rng.integers(0, n_classes, n_ids)] = True
    score = rng.random((n_ids, n_classes)) + 0.1
    score /= score.sum(axis=1, keepdims=True)
    df = pl.DataFrame(
        {
            "id": np.repeat(np.arange(n_ids), n_classes),
            "class": np.tile(np.arange(n_classes), n_ids),
            "score": score.reshape(-1),
            "truth": truth.reshape(-1),
        }
    )
    labels = truth.argmax(axis=1)
    want = {
        "log_loss": log_loss(labels, score, labels=range(n_classes)),
        "top_k_accuracy": top_k_accuracy_score(labels, score, k=2, labels=range(n_classes)),
    }
    for metric, expected in want.items():
        options = {"k": 2} if metric == "top_k_accuracy" else {}
        function = getattr(pl_metrics, metric)
        got = function(df, **options).item()
        planned = on_the_plan(lambda f=function, o=options: f(df, **o).item())
        assert got == pytest.approx(expected, rel=1e-12)
        assert planned == pytest.approx(expected, rel=1e-12)


def test_weighted_curve_tables_counted_by_the_kernel_match_sklearn() -> None:
    # The curves table (ROC AUC, AP) of a DataFrame's id runs sums each row's weight.
    from sklearn.metrics import average_precision_score, roc_auc_score

    rng = np.random.default_rng(11)
    n_ids, n_classes = 30, 3
    truth = rng.random((n_ids, n_classes)) < 0.4
    truth[0], truth[1] = True, False
    score = rng.integers(0, 5, (n_ids, n_classes)) / 4
    weight = rng.choice([0.5, 1.0, 2.0, 3.0], n_ids)
    df = pl.DataFrame(
        {
            "id": np.repeat(np.arange(n_ids), n_classes),
            "class": np.tile(np.arange(n_classes), n_ids),
            "score": score.reshape(-1),
            "truth": truth.reshape(-1),
            "w": np.repeat(weight, n_classes),
        }
    )
    for metric, reference in [
        ("roc_auc", roc_auc_score),
        ("average_precision", average_precision_score),
    ]:
        want = [reference(truth[:, k], score[:, k], sample_weight=weight) for k in range(n_classes)]
        function = getattr(pl_metrics, metric)
        got = function(df, weight_col="w", average=None)[metric].to_numpy()
        planned = on_the_plan(lambda f=function, m=metric: f(df, weight_col="w", average=None)[m])
        np.testing.assert_allclose(got, want, rtol=1e-12)
        np.testing.assert_allclose(planned.to_numpy(), want, rtol=1e-12)


@pytest.mark.parametrize("extra", [-1, 0, 1])
def test_id_runs_take_groups_of_about_as_many_changes_as_seldom_ones(extra: int) -> None:
    """A model changing about `_FEW_CHANGES` times (its stretches numbered in 8 bits only
    below that), with more segments than that: each segment's group is its rows' own."""
    n_models, rows_per_id = _kernel._FEW_CHANGES + 1 + extra, 3
    model = np.repeat(np.arange(n_models) * 10, 2 * rows_per_id)
    ids = np.tile(np.repeat([5, 9], rows_per_id), n_models)  # (restarting with each model)
    for name, column in [("int", model), ("text", model.astype(str))]:
        df = pl.DataFrame({"model": column, "id": ids})
        runs = _kernel.id_runs(df, ["model"], "id")
        assert runs is not None, name
        assert len(runs.firsts) == n_models
        want = df.select("model")[runs.starts[runs.firsts]]
        assert_frame_equal(runs.groups, want, check_exact=True)


def test_sorted_on_keys_whose_spans_pass_63_bits_equals_polars_sort() -> None:
    """Keys each within 62 bits whose spans multiply past 2**63 (one 64-bit key of them
    would wrap): sorted as polars sorts them."""
    df = pl.DataFrame(
        {
            "a": [2, 0, 1, 2, 0, 1],
            "b": [0, 2**62 - 1, 5, 2**62 - 1, 0, -(2**40)],
        }
    ).with_row_index("row")
    for keys in (["a", "b"], ["b", "a"]):
        want = df.sort(keys, maintain_order=True)
        assert_frame_equal(_kernel.sorted_on(df, keys, maintain_order=True), want)


@given(seed=st.integers(0, 2**32 - 1), rows=st.integers(0, 40), groups=st.integers(1, 4))
@settings(max_examples=60, deadline=None)
def test_merged_falling_numbers_each_groups_distinct_scores_highest_first(
    seed: int, rows: int, groups: int
) -> None:
    """Each row's number is its (group, score)'s place among the distinct ones, groups
    rising, scores falling within each (-0.0 as 0.0); each number's first row comes first."""
    rng = np.random.default_rng(seed)
    group = rng.integers(0, groups, rows)
    score = rng.choice([-0.0, 0.0, 0.25, 0.5, 1.0, -2.0], rows)
    number, firsts = _kernel.merged_falling(group, score)
    pairs = sorted({(int(g), float(s) + 0.0) for g, s in zip(group, score, strict=True)})
    pairs = sorted(pairs, key=lambda p: (p[0], -p[1]))
    place = {p: k for k, p in enumerate(pairs)}
    want = [place[(int(g), float(s) + 0.0)] for g, s in zip(group, score, strict=True)]
    assert number.tolist() == want
    assert firsts.tolist() == [want.index(k) for k in range(len(pairs))]


def test_merged_falling_numbers_minus_zero_as_zero() -> None:
    number, firsts = _kernel.merged_falling(
        np.array([0, 0, 0, 1]), np.array([-0.0, 0.5, 0.0, -0.0])
    )
    assert (number.tolist(), firsts.tolist()) == ([1, 0, 1, 2], [1, 0, 3])


@pytest.mark.parametrize(
    "values",
    [
        [2.0**53, 1.0, -(2.0**53)],  # whole numbers, some below 0: partial sums inexact
        [0.1, 0.2, 0.3, 0.7, 0.1, 0.9],  # weights
        [3.0, 1.0, 2.0, 0.0, 5.0, 1.0],  # counts
    ],
)
def test_cumulated_sums_equal_each_blocks_own(values: list[float]) -> None:
    """`cumulated_sums` is each block's own cumulative sum (as polars' cum_sum over the
    block), to the bit, whether the values are counts or not."""
    array = np.array(values)
    for starts in (np.arange(len(array) + 1), np.array([0, 1, len(array)])):  # (not empty)
        cumulated, sums = _kernel.cumulated_sums(array, starts)
        want = [np.cumsum(array[a:b]) for a, b in itertools.pairwise(starts)]
        assert cumulated.tolist() == np.concatenate(want).tolist()
        assert sums.tolist() == [w[-1] for w in want]


@pytest.mark.parametrize("metric", ["log_loss", "top_k_accuracy"])
def test_single_label_ids_of_no_and_two_true_classes_unchecked_equal_the_plan(
    metric: str,
) -> None:
    """Checks off, an id without a true class before one of two (as many true rows as ids,
    the first id's next id's first row true): the kernel gives the plan's numbers."""
    df = pl.DataFrame(
        {
            "id": [0, 0, 1, 1, 2, 2],
            "class": [0, 1] * 3,
            "score": [0.7, 0.3, 0.2, 0.8, 0.6, 0.4],
            "truth": [False, False, True, True, False, True],
        }
    )
    function = getattr(pl_metrics, metric)
    options: dict[str, Any] = {
        "validate": False,
        **({"k": 1} if metric == "top_k_accuracy" else {}),
    }
    got = function(df, **options)
    planned = on_the_plan(lambda: function(df, **options))
    assert_frame_equal(got, planned, rel_tol=1e-12)
