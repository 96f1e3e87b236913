"""Benchmark pl_metrics against its peers on generated long-format prediction dumps.

Run by hand (not part of the test suite), from the repository root:

    pip install -e ".[bench]"
    python benchmarks/bench.py            # peers, scaling, grouped F1 (about 15 minutes)
    python benchmarks/bench.py --large    # also 100M and 400M rows, chunked (about 1 hour)
    python benchmarks/bench.py --quick    # small sizes, to check the script

Every measurement runs in a fresh process, so its peak memory (max RSS) is its own. Each
system's value is checked against pl_metrics (1e-9). Results go to BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

HERE = Path(__file__).parent
OUT = HERE / "out"


# --- data -------------------------------------------------------------------------------------
def make_dump(
    path: Path, n_ids: int, n_classes: int, *, groups: int = 1, layout: str = "id", seed: int = 0
) -> Path:
    """Write a long dump: 2% positives, a useful but imperfect model, ties from rounding.

    ``layout="id"`` writes rows id by id (clustered by id); ``"class"`` writes them class by
    class, so every row group spans every id (what unpivoting a wide table gives).
    """
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    block = max(1, 4_000_000 // n_classes)  # ids per written batch
    schema = pa.schema(
        [
            ("model", pa.string()),
            ("fold", pa.int8()),
            ("id", pa.int32()),
            ("class", pa.int16()),
            ("score", pa.float32()),
            ("truth", pa.bool_()),
        ]
    )
    with pq.ParquetWriter(path, schema) as writer:
        for g in range(groups):
            model, fold = f"m{g // 5}", g % 5
            starts = range(0, n_ids, block)
            if layout == "class":
                # Class by class: each batch holds one class for every id.
                for c in range(n_classes):
                    truth = rng.random(n_ids) < 0.02
                    score = np.round(0.35 * truth + 0.65 * rng.random(n_ids), 3)
                    writer.write_table(
                        _table(
                            schema, model, fold, np.arange(n_ids), np.full(n_ids, c), score, truth
                        ),
                        row_group_size=1_000_000,
                    )
                continue
            for start in starts:
                ids = np.arange(start, min(n_ids, start + block))
                k = len(ids) * n_classes
                truth = rng.random(k) < 0.02
                score = np.round(0.35 * truth + 0.65 * rng.random(k), 3)
                writer.write_table(
                    _table(
                        schema,
                        model,
                        fold,
                        np.repeat(ids, n_classes),
                        np.tile(np.arange(n_classes), len(ids)),
                        score,
                        truth,
                    ),
                    row_group_size=1_000_000,
                )
    return path


def _table(
    schema: pa.Schema,
    model: str,
    fold: int,
    ids: np.ndarray,
    classes: np.ndarray,
    score: np.ndarray,
    truth: np.ndarray,
) -> pa.Table:
    n = len(ids)
    return pa.table(
        [
            pa.array([model] * n),
            pa.array(np.full(n, fold, np.int8)),
            pa.array(ids.astype(np.int32)),
            pa.array(classes.astype(np.int16)),
            pa.array(score.astype(np.float32)),
            pa.array(truth),
        ],
        schema=schema,
    )


def dense(path: Path) -> tuple[np.ndarray, np.ndarray]:
    df = pl.read_parquet(path, columns=["id", "class", "score", "truth"]).sort("id", "class")
    k = df["class"].n_unique()
    return df["truth"].to_numpy().reshape(-1, k), df["score"].to_numpy().reshape(-1, k)


# --- systems ----------------------------------------------------------------------------------
def lrap_numpy(truth: np.ndarray, score: np.ndarray) -> float:
    """The best numpy/scipy formulation: two max-ranks per row on the dense matrix."""
    from scipy.stats import rankdata

    r = rankdata(-score, axis=1, method="max")
    p = rankdata(np.where(truth, -score, np.inf), axis=1, method="max")
    npos = truth.sum(axis=1)
    per_row = np.where(truth, p / r, 0.0).sum(axis=1) / np.maximum(npos, 1)
    per_row[(npos == 0) | (npos == truth.shape[1])] = 1.0
    return float(per_row.mean())


def lrap_polars_window(lf: pl.LazyFrame) -> pl.LazyFrame:
    """The plain polars query a user would write: two window ranks, then means."""
    rank = pl.col("score").rank("max", descending=True)
    per_id = (
        lf.with_columns(r=rank.over("id"), p=rank.over("id", "truth"))
        .group_by("id")
        .agg(
            n=pl.len(),
            npos=pl.col("truth").sum(),
            s=(pl.col("p") / pl.col("r")).filter(pl.col("truth")).sum(),
        )
    )
    degenerate = (pl.col("npos") == 0) | (pl.col("npos") == pl.col("n"))
    return per_id.select(
        pl.when(degenerate).then(1.0).otherwise(pl.col("s") / pl.col("npos")).mean()
    )


def auc_polars_window(lf: pl.LazyFrame) -> pl.LazyFrame:
    """The plain polars query for macro ROC AUC: Mann-Whitney with average ranks per class."""
    rank = pl.col("score").rank("average").over("class")
    per_class = (
        lf.with_columns(r=rank)
        .group_by("class")
        .agg(
            npos=pl.col("truth").sum().cast(pl.Float64),
            n=pl.len().cast(pl.Float64),
            rsum=pl.col("r").filter(pl.col("truth")).sum(),
        )
    )
    npos, n = pl.col("npos"), pl.col("n")
    return per_class.select(((pl.col("rsum") - npos * (npos + 1) / 2) / (npos * (n - npos))).mean())


DUCKDB_LRAP = """
WITH ranked AS (
  SELECT id, truth,
    COUNT(*) OVER w AS r,
    SUM(truth::INT) OVER w AS p
  FROM read_parquet('{path}')
  WINDOW w AS (PARTITION BY id ORDER BY score DESC
               RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
), per_id AS (
  SELECT id, COUNT(*) AS n, SUM(truth::INT) AS npos,
         SUM(CASE WHEN truth THEN p / r ELSE 0 END) AS s
  FROM ranked GROUP BY id
)
SELECT AVG(CASE WHEN npos = 0 OR npos = n THEN 1.0 ELSE s / npos END) FROM per_id
"""


def run_system(system: str, metric: str, path: Path, repeats: int) -> dict[str, object]:
    """Time one system (median of ``repeats``) in this process; return value and peak RSS."""
    import pl_metrics

    if system in ("sklearn", "numpy", "sklearn-grouped"):
        import scipy.stats  # noqa: F401  (imported before timing)
        import sklearn.metrics  # noqa: F401
    if system in ("sklearn", "numpy"):
        truth, score = dense(path)
    if system == "duckdb":
        import duckdb

        con = duckdb.connect()
        con.execute(f"SET threads = {os.cpu_count()}")
    if system == "sklearn-grouped":
        df = pl.read_parquet(path)
        parts = []
        for _, rows in df.sort("model", "fold", "id", "class").group_by(
            "model", "fold", maintain_order=True
        ):
            k = rows["class"].n_unique()
            parts.append(
                (
                    rows["truth"].to_numpy().reshape(-1, k),
                    rows["score"].to_numpy().reshape(-1, k) >= 0.5,
                )
            )

    def once() -> float:
        lf = pl.scan_parquet(path)
        if system == "pl_metrics":  # the file driver (what the command line runs)
            return float(pl_metrics.score(path, metric, progress=False)[metric].item())
        if system == "pl_metrics-novalidate":
            out = pl_metrics.score(path, metric, validate=False, progress=False)
            return float(out[metric].item())
        if system == "pl_metrics-report4":
            out = pl_metrics.score(
                path, ["lwlrap", "lrap", "coverage_error", "label_ranking_loss"], progress=False
            )
            return float(out[metric].item())
        if system == "pl_metrics-lazy":  # a LazyFrame: the streaming plan, no kernel
            return float(getattr(lf.metrics, metric)().collect(engine="streaming").item())
        if system.startswith("pl_metrics-grouped"):
            out = lf.metrics.f1(
                by=["model", "fold"], validate=not system.endswith("novalidate")
            ).collect(engine="streaming")
            return float(out["f1"].mean())
        if system == "read":
            pl.read_parquet(path, columns=["id", "class", "score", "truth"])
            return float("nan")
        if system == "polars-window":
            query = auc_polars_window if metric == "roc_auc" else lrap_polars_window
            return float(query(lf).collect().item())
        if system == "duckdb":
            return float(con.execute(DUCKDB_LRAP.format(path=path)).fetchone()[0])
        if system == "numpy":
            return lrap_numpy(truth, score)
        if system == "sklearn":
            from sklearn import metrics as skm

            function = {
                "lrap": skm.label_ranking_average_precision_score,
                "roc_auc": skm.roc_auc_score,
                "average_precision": skm.average_precision_score,
            }[metric]
            return float(function(truth, score))
        if system == "sklearn-grouped":
            from sklearn.metrics import f1_score

            return float(
                np.mean([f1_score(t, p, average="macro", zero_division=0) for t, p in parts])
            )
        raise ValueError(system)

    value = once()  # warm-up, untimed, for every system alike (imports, caches, page cache)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        value = once()
        times.append(time.perf_counter() - start)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {"median": statistics.median(times), "times": times, "value": value, "rss": rss}


def run_driver(path: Path, budget: str, n_chunks: int | None) -> dict[str, object]:
    import pl_metrics
    from pl_metrics._chunks import budget_bytes, plan_chunks

    chunks = len(plan_chunks(pl.scan_parquet(path), files=[path], budget=budget_bytes(budget)))
    start = time.perf_counter()
    out = pl_metrics.score(
        path, ["lrap", "lwlrap"], memory_budget=budget, n_chunks=n_chunks, progress=False
    )
    elapsed = time.perf_counter() - start
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {
        "median": elapsed,
        "times": [elapsed],
        "value": float(out["lrap"].item()),
        "value2": float(out["lwlrap"].item()),
        "rss": rss,
        "chunks": chunks,
    }


def run_dask(path: Path, budget: str) -> dict[str, object]:
    """The chunked driver on a local 2-worker Dask cluster; peak memory of each worker."""
    from dask.distributed import Client, LocalCluster

    import pl_metrics.dask

    with (
        LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0") as cluster,
        Client(cluster) as client,
    ):
        start = time.perf_counter()
        out = pl_metrics.dask.score(path, ["lrap", "lwlrap"], client=client, memory_budget=budget)
        elapsed = time.perf_counter() - start
        peaks = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
    return {
        "median": elapsed,
        "times": [elapsed],
        "value": float(out["lrap"].item()),
        "rss": max(peaks.values()),
        "client_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    }


def in_subprocess(*args: str) -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, __file__, "--worker", *args], capture_output=True, text=True, check=False
    )
    if result.returncode:
        return {"error": result.stderr.strip().splitlines()[-1] if result.stderr else "failed"}
    return json.loads(result.stdout.strip().splitlines()[-1])


# --- report -----------------------------------------------------------------------------------
def machine() -> str:
    import duckdb
    import scipy
    import sklearn

    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1024**3
    return (
        f"{platform.machine()}, {os.cpu_count()} cores, {mem:.0f} GiB; Python "
        f"{platform.python_version()}, polars {pl.__version__}, numpy {np.__version__}, "
        f"scipy {scipy.__version__}, scikit-learn {sklearn.__version__}, "
        f"duckdb {duckdb.__version__}"
    )


def fmt_row(name: str, r: dict[str, object], base: dict[str, object], ref: float) -> str:
    if "error" in r:
        return f"| {name} | failed: {r['error']} | | | |"
    median, rss = float(r["median"]), float(r["rss"]) / 1024**3  # type: ignore[arg-type]
    ratio = median / float(base.get("median", float("nan")))  # type: ignore[arg-type]
    value = float(r["value"])  # type: ignore[arg-type]
    check = "" if np.isnan(value) else ("ok" if abs(value - ref) <= 1e-9 else f"DIFF {value}")
    return f"| {name} | {median:.3f} | {ratio:.2f}x | {rss:.2f} | {check} |"


def peers(size: tuple[int, int], repeats: int, lines: list[str]) -> None:
    n_ids, n_classes = size
    path = make_dump(OUT / f"lrap_{n_ids}x{n_classes}.parquet", n_ids, n_classes)
    rows = n_ids * n_classes
    for metric in ("lrap", "lwlrap", "roc_auc", "average_precision"):
        systems = ["pl_metrics", "pl_metrics-novalidate", "read"]
        if metric in ("lrap", "lwlrap"):
            systems[2:2] = ["pl_metrics-report4", "pl_metrics-lazy"]
        if metric == "lrap":
            systems += ["polars-window", "duckdb", "numpy", "sklearn"]
        if metric == "roc_auc":
            systems += ["polars-window", "sklearn"]
        if metric == "average_precision":
            systems += ["sklearn"]
        results = {s: in_subprocess(s, metric, str(path), str(repeats)) for s in systems}
        base = results["pl_metrics"]
        ref = float(base.get("value", float("nan")))  # type: ignore[arg-type]
        lines += [
            f"\n### {metric}, {n_ids:,} ids x {n_classes} classes ({rows:,} rows)\n",
            "| system | median s | / pl_metrics | peak RSS GiB | value |",
            "|---|---|---|---|---|",
        ]
        lines += [fmt_row(s, r, base, ref) for s, r in results.items()]
        print("\n".join(lines[-len(results) - 3 :]), flush=True)


def grouped(repeats: int, lines: list[str], n_ids: int) -> None:
    path = make_dump(OUT / f"grouped_{n_ids}.parquet", n_ids, 50, groups=25)
    results = {
        s: in_subprocess(s, "f1", str(path), str(repeats))
        for s in ("pl_metrics-grouped", "pl_metrics-grouped-novalidate", "sklearn-grouped")
    }
    base = results["pl_metrics-grouped"]
    lines += [
        f"\n### macro F1 by model and fold: 5 models x 5 folds x {n_ids:,} ids x 50 "
        f"classes ({25 * n_ids * 50:,} rows)\n",
        "| system | median s | / pl_metrics | peak RSS GiB | value |",
        "|---|---|---|---|---|",
    ]
    lines += [
        fmt_row(s, r, base, float(base["value"]))  # type: ignore[arg-type]
        for s, r in results.items()
    ]
    print("\n".join(lines[-len(results) - 3 :]), flush=True)


def scaling(sizes: list[int], lines: list[str]) -> None:
    lines += [
        "\n### Time per row, lrap from parquet (200 classes, `score()`, default memory budget)\n",
        "| rows | median s | ns per row | peak RSS GiB |",
        "|---|---|---|---|",
    ]
    for rows in sizes:
        path = make_dump(OUT / f"lrap_{rows // 200}x200.parquet", rows // 200, 200)
        r = in_subprocess("pl_metrics", "lrap", str(path), "2")
        if "error" in r:
            lines.append(f"| {rows:,} | failed: {r['error']} | | |")
            continue
        median = float(r["median"])  # type: ignore[arg-type]
        lines.append(
            f"| {rows:,} | {median:.2f} | {median / rows * 1e9:.1f} | "
            f"{float(r['rss']) / 1024**3:.2f} |"
        )  # type: ignore[arg-type]
        print(lines[-1], flush=True)


def large(lines: list[str]) -> None:
    lines += [
        "\n### Larger than memory: `score()` in id-disjoint chunks (budget 1GB)\n",
        "| rows | layout | chunks | s | M rows/s | peak RSS GiB | lrap |",
        "|---|---|---|---|---|---|---|",
    ]
    for rows in (100_000_000, 400_000_000):
        for layout in ("id", "class"):
            path = make_dump(
                OUT / f"large_{rows}_{layout}.parquet", rows // 200, 200, layout=layout
            )
            r = in_subprocess("driver", "1GB", str(path), "0")
            if "error" in r:
                lines.append(f"| {rows:,} | {layout} | failed: {r['error']} | | | | |")
                continue
            s = float(r["median"])  # type: ignore[arg-type]
            lines.append(
                f"| {rows:,} | {'clustered' if layout == 'id' else 'by class'} | "
                f"{r.get('chunks', '')} | {s:.1f} | {rows / s / 1e6:.1f} | "
                f"{float(r['rss']) / 1024**3:.2f} | {float(r['value']):.12f} |"
            )  # type: ignore[arg-type]
            print(lines[-1], flush=True)
    path = OUT / "large_100000000_id.parquet"
    single = in_subprocess("driver", "1GB", str(path), "0")
    dask = in_subprocess("dask", "1GB", str(path), "0")
    lines += [
        "\n### 100M rows (clustered): single process vs a local 2-worker Dask cluster\n",
        "| driver | s | peak RSS GiB | lrap |",
        "|---|---|---|---|",
    ]
    for name, r in (
        ("pl_metrics.score (one process)", single),
        ("pl_metrics.dask.score (per worker)", dask),
    ):
        if "error" in r:
            lines.append(f"| {name} | failed: {r['error']} | | |")
            continue
        lines.append(
            f"| {name} | {float(r['median']):.1f} | "  # type: ignore[arg-type]
            f"{float(r['rss']) / 1024**3:.2f} | {float(r['value']):.12f} |"
        )  # type: ignore[arg-type]
    print("\n".join(lines[-4:]), flush=True)
    lines.append(
        "\nThe same 100M-row files as one streaming query (a LazyFrame: no chunks, no kernel),"
        " for comparison:\n"
    )
    for layout in ("id", "class"):
        whole = in_subprocess(
            "pl_metrics-lazy", "lrap", str(OUT / f"large_100000000_{layout}.parquet"), "1"
        )
        lines.append(
            f"- {layout} layout: lrap {float(whole.get('value', float('nan'))):.12f}, "  # type: ignore[arg-type]
            f"{float(whole.get('median', float('nan'))):.1f} s, peak RSS "  # type: ignore[arg-type]
            f"{float(whole.get('rss', float('nan'))) / 1024**3:.2f} GiB"
        )  # type: ignore[arg-type]
        print(lines[-1], flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--large", action="store_true")
    parser.add_argument("--out", default=str(HERE.parent / "BENCHMARKS.md"))
    args = parser.parse_args()
    if args.worker:
        system, metric, path, repeats = args.worker
        if system == "driver":
            result = run_driver(Path(path), metric, None)
        elif system == "dask":
            result = run_dask(Path(path), metric)
        else:
            result = run_system(system, metric, Path(path), int(repeats))
        print(json.dumps(result))
        return
    lines = [
        "# Benchmarks",
        "",
        f"Machine: {machine()}.",
        "",
        "Generated by `python benchmarks/bench.py` (see its docstring); medians of 3 runs"
        " after one untimed warm-up,"
        " each system in a fresh process reading the same parquet file; peak RSS is the "
        "process's maximum resident memory, input included. pl_metrics validates the "
        "data unless marked novalidate. `pl_metrics` is `pl_metrics.score(path, metric)`, the"
        " file driver that the command line runs (a chunk read into memory, the ranking"
        " kernel); `pl_metrics-lazy` is `pl.scan_parquet(path).metrics.<metric>()`, one"
        " streaming query. `read` is reading the four columns into memory.",
    ]
    repeats = 1 if args.quick else 3
    sizes = [(2_000, 20)] if args.quick else [(10_000, 50), (100_000, 200)]
    for size in sizes:
        peers(size, repeats, lines)
    grouped(repeats, lines, 200 if args.quick else 4_000)
    scaling([100_000, 1_000_000] if args.quick else [1_000_000, 10_000_000, 100_000_000], lines)
    if args.large:
        large(lines)
    # Keep the hand-written part above the marker (targets and analysis); replace the rest.
    out = Path(args.out)
    marker = "<!-- generated by benchmarks/bench.py: everything below is replaced -->"
    head = out.read_text().split(marker)[0] if out.exists() and marker in out.read_text() else ""
    out.write_text(head + marker + "\n\n" + "\n".join(lines) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
