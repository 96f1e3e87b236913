"""Scoring on a 2-worker Dask LocalCluster equals single-machine scoring."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import pl_metrics
import pl_metrics.dask
from pl_metrics import _driver
from tests.conftest import write_corrupt_page
from tests.test_driver import close

distributed = pytest.importorskip("distributed")

DATA = Path(__file__).parent.parent / "data"


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as dask_client,
    ):
        yield dask_client


@pytest.fixture(scope="module")
def dump(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("shards")
    df = pl.read_parquet(DATA / "digits_oof.parquet")
    for (model,), part in df.group_by("model"):
        part.sort("id").write_parquet(root / f"{model}.parquet", row_group_size=2000)
    return root


CASES = [
    (["lwlrap", "lrap", "coverage_error", "label_ranking_loss"], ["model", "fold"], {}),
    (["f1", "precision", "balanced_accuracy", "mfif"], "model", {"threshold": 0.3}),
    (["f1", "recall"], ["model"], {"average": "samples"}),
    (["log_loss", "top_k_accuracy", "confusion"], ["model", "fold"], {"k": 2}),
]


@pytest.mark.parametrize(("metrics", "by", "options"), CASES)
def test_equals_single_machine(
    client: Any, dump: Path, metrics: list[str], by: Any, options: dict[str, Any]
) -> None:
    if "confusion" in metrics:
        metrics, options = ["confusion"], {}
    want = pl_metrics.score(dump, metrics, by=by, n_chunks=1, **options)
    got = pl_metrics.dask.score(dump, metrics, by=by, client=client, n_chunks=5, **options)
    close(got, want)


def test_relative_paths_are_read_from_the_clients_folder(
    client: Any, dump: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Workers read the paths as given, from their own folder: a relative path failed there
    as a ChunkError after three tries. A file a worker cannot read is the data's error."""
    monkeypatch.chdir(dump.parent)  # the workers started elsewhere
    want = pl_metrics.score(dump, "lrap", by="model", n_chunks=1)
    got = pl_metrics.dask.score(dump.name, "lrap", by="model", client=client, n_chunks=3)
    close(got, want)
    gone = tmp_path / "gone.parquet"
    pl.read_parquet(DATA / "digits_oof.parquet").write_parquet(gone)

    def vanish(*args: Any) -> Any:  # the file is gone when the chunks run
        run = original(*args)

        def gone_first(*chunk_args: Any) -> Any:
            gone.unlink(missing_ok=True)
            return run(*chunk_args)

        return gone_first

    original = pl_metrics.dask._dask_runner
    monkeypatch.setattr(pl_metrics.dask, "_dask_runner", vanish)
    with pytest.raises(pl_metrics.MetricsInputError, match=r"gone\.parquet"):
        pl_metrics.dask.score(gone, "lrap", by=["model", "fold"], client=client, retries=0)


def test_a_key_folder_above_the_clients_folder_is_read_alike(
    client: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Workers read absolute paths, with a fold=0 folder above the client's folder: they
    scored one fold where the client's relative path planned five, silently."""
    run = tmp_path / "fold=0" / "run"
    run.mkdir(parents=True)
    pl.read_parquet(DATA / "digits_oof.parquet").write_parquet(run / "oof.parquet")
    monkeypatch.chdir(run)
    with pytest.raises(pl_metrics.MetricsInputError, match=r"^column 'fold': 1 file holds other"):
        pl_metrics.dask.score("oof.parquet", "lrap", by="fold", client=client)


def test_killed_worker_mid_run(client: Any, dump: Path) -> None:
    metrics = ["lrap", "f1"]
    want = pl_metrics.score(dump, metrics, by=["model", "fold"], n_chunks=1)
    result: dict[str, pl.DataFrame] = {}

    def run() -> None:
        result["out"] = pl_metrics.dask.score(
            dump, metrics, by=["model", "fold"], client=client, n_chunks=60
        )

    pids = client.run(os.getpid)
    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 30
    busy: list[str] = []
    while not busy and time.monotonic() < deadline:
        busy = [w for w, tasks in client.processing().items() if tasks]
        time.sleep(0.005)
    assert busy, "no task started"
    os.kill(pids[busy[0]], signal.SIGKILL)  # kill a worker that has tasks; its nanny restarts it
    thread.join(timeout=120)
    assert "out" in result
    close(result["out"], want)


def test_errors(client: Any, dump: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(pl_metrics.MetricsInputError, match="file not found"):
        pl_metrics.dask.score(tmp_path / "gone.parquet", "lrap", client=client)
    roc = pl_metrics.dask.score(dump, ["roc_auc"], by="model", client=client, n_chunks=3)
    close(roc, pl_metrics.score(dump, ["roc_auc"], by="model", n_chunks=1))  # class chunks too
    with (
        distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=":0") as cluster,
        distributed.Client(cluster) as local,
    ):

        def broken(*_: Any) -> None:
            raise OSError("disk went away")

        monkeypatch.setattr(pl_metrics.dask, "_chunk_state", broken)
        with pytest.raises(
            pl_metrics.dask.ChunkError, match=r"chunk 1 of 3 .* failed after 2 tries: .*went away"
        ):
            pl_metrics.dask.score(dump, "lrap", by="model", client=local, n_chunks=3, retries=1)


@pytest.mark.parametrize(
    ("error", "reading"),
    [
        (OSError("disk went away"), True),
        (FileNotFoundError("gone.parquet"), True),
        (pl.exceptions.ComputeError("a page does not decode"), True),
        (RuntimeError("polars panicked: corrupt page"), True),  # (a panic travels as its text)
        (RuntimeError("out of memory"), False),
        (ValueError("a bug"), False),
    ],
)
def test_a_chunks_error_that_can_be_a_files_is_looked_for_in_the_files(
    error: BaseException, reading: bool
) -> None:
    """A reading error, an OSError or a panic sends a worker to find the unreadable file;
    any other error is the chunk's own."""
    assert pl_metrics.dask._reading(error) is reading


def test_a_panic_while_finding_the_file_still_raises_the_chunk_error(
    dump: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unreadable_chunk(*_: Any) -> None:
        raise pl.exceptions.ComputeError("a page does not decode")

    def panicking(*_: Any) -> None:
        raise pl.exceptions.PanicException("corrupt page")

    monkeypatch.setattr(pl_metrics.dask, "_chunk_state", unreadable_chunk)
    monkeypatch.setattr(pl_metrics.dask, "unreadable_file", panicking)
    with (
        distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=":0") as cluster,
        distributed.Client(cluster) as local,
        pytest.raises(pl_metrics.dask.ChunkError, match=r"a page does not decode$"),
    ):
        pl_metrics.dask.score(dump, "lrap", by="model", client=local, n_chunks=2, retries=0)


@pytest.mark.parametrize("ids", [None, 30])
def test_a_corrupt_file_is_named(client: Any, tmp_path: Path, ids: int | None) -> None:
    rows = pl.read_parquet(DATA / "digits_oof.parquet").filter(pl.col("model") == "knn")
    rows.filter(pl.col("fold") == 0).write_parquet(tmp_path / "a.parquet")
    write_corrupt_page(rows.filter(pl.col("fold") == 1), tmp_path / "b.parquet")
    if ids is not None:  # few rows a chunk: the client counts the ids first, and names the file
        rows = rows.filter(pl.col("id") < ids).select("id", pl.exclude("id"))
        rows.filter(pl.col("fold") == 0).write_parquet(tmp_path / "a.parquet")
        rows.filter(pl.col("fold") == 1).write_parquet(tmp_path / "b.parquet")
        data = bytearray((tmp_path / "b.parquet").read_bytes())
        data[8:108] = bytes(b ^ 0xFF for b in data[8:108])  # the ids' page, the first
        (tmp_path / "b.parquet").write_bytes(bytes(data))
    # The file that does not read alone is the data's error, as in pl_metrics.score().
    with pytest.raises(pl_metrics.MetricsInputError, match=r"^cannot read file '.*b\.parquet'"):
        pl_metrics.dask.score(tmp_path, "lrap", client=client, n_chunks=2, retries=0)


def test_a_csv_field_that_does_not_parse_is_the_error_score_gives(
    client: Any, tmp_path: Path
) -> None:
    rows = pl.read_parquet(DATA / "digits_oof.parquet").filter(pl.col("model") == "knn")
    rows = rows.with_columns(pl.col("score").cast(pl.String))
    last = pl.int_range(pl.len()) == rows.height - 3  # past polars' schema inference
    rows.with_columns(score=pl.when(last).then(pl.lit("abc")).otherwise("score")).write_csv(
        tmp_path / "oof.csv"
    )
    with pytest.raises(pl_metrics.MetricsInputError) as local:
        pl_metrics.score(tmp_path / "oof.csv", "lrap")
    with pytest.raises(pl_metrics.MetricsInputError) as distributed:
        pl_metrics.dask.score(tmp_path / "oof.csv", "lrap", client=client, retries=0)
    assert str(distributed.value) == str(local.value)
    assert str(local.value).startswith("cannot read file '")


def test_files_of_two_tasks_are_warned_of_from_a_worker(client: Any, tmp_path: Path) -> None:
    digits = pl.read_parquet(DATA / "digits_oof.parquet").filter(pl.col("fold") == 0)
    digits.write_parquet(tmp_path / "digits.parquet")
    other = digits.with_columns(pl.concat_str(pl.lit("other_"), "class").alias("class"))
    other.write_parquet(tmp_path / "other.parquet")
    with pytest.warns(UserWarning, match=r"^files scored together hold different classes"):
        pl_metrics.dask.score(tmp_path, "lrap", by="model", client=client, retries=0)


def test_default_local_cluster(dump: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    got = pl_metrics.dask.score(dump, "lrap", by="model", n_chunks=2)
    assert np.isfinite(got["lrap"].to_numpy()).all()
    # Its two workers share the cores (each took a polars pool of all of them), or keep
    # the POLARS_MAX_THREADS given.
    share = str(max(1, (os.cpu_count() or 2) // 2))
    for given, want in ((None, share), ("3", "3")):
        if given is None:
            monkeypatch.delenv("POLARS_MAX_THREADS", raising=False)
        else:
            monkeypatch.setenv("POLARS_MAX_THREADS", given)
        with pl_metrics.dask._client(None) as local:
            pools = local.run(lambda: os.environ.get("POLARS_MAX_THREADS"))
        assert set(pools.values()) == {want}


def test_default_local_cluster_shares_the_cores_of_a_script_importing_polars(
    tmp_path: Path,
) -> None:
    # LocalCluster's env= is set in a worker after it imports the script: one that imports
    # pl_metrics (so polars) at its top, as the docs' examples do, sized each worker's pool
    # at every core. This process's environment is as it was after.
    import json
    import subprocess
    import sys

    script = tmp_path / "job.py"
    script.write_text(
        "import json, os\n"
        "import polars as pl\n"
        "import pl_metrics.dask\n"
        "if __name__ == '__main__':\n"
        "    with pl_metrics.dask._client(None) as client:\n"
        "        pools = client.run(lambda: pl.thread_pool_size())\n"
        "    print(json.dumps([sorted(pools.values()), os.environ.get('POLARS_MAX_THREADS')]))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "POLARS_MAX_THREADS"}
    env["PYTHONPATH"] = os.pathsep.join(
        [str(Path(pl_metrics.__file__).parent.parent), env.get("PYTHONPATH", "")]
    )
    done = subprocess.run(
        [sys.executable, str(script)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    pools, left = json.loads(done.stdout.strip().splitlines()[-1])
    share = max(1, (os.cpu_count() or 2) // 2)
    assert pools == [share, share]
    assert left is None


def test_command_line_dask_local(dump: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pl_metrics.cli import main

    assert (
        main(
            [
                "score",
                str(dump),
                "-m",
                "lrap",
                "--by",
                "model",
                "--dask",
                "local",
                "--chunks",
                "2",
                "--format",
                "csv",
            ]
        )
        == 0
    )
    got = pl.read_csv(capsys.readouterr().out.encode())
    want = pl_metrics.score(dump, "lrap", by="model")
    assert got["lrap"].to_list() == pytest.approx(want["lrap"].to_list(), rel=1e-12)


def test_a_polars_panic_on_a_worker_travels_back_as_text(monkeypatch: pytest.MonkeyPatch) -> None:
    # PanicException cannot be pickled: the client waited forever for the task's error.
    import pickle

    from pl_metrics import dask as on_dask
    from pl_metrics._driver import whole

    def panic(*args: object) -> None:
        raise pl.exceptions.PanicException("corrupt page")

    monkeypatch.setattr(on_dask, "chunk_state", panic)
    with pytest.raises(RuntimeError, match="polars panicked: corrupt page") as caught:
        on_dask._chunk_state([str(DATA / "digits_oof.parquet")], pl.lit(True), None, whole)  # type: ignore[arg-type]
    pickle.loads(pickle.dumps(caught.value))


def test_dask_options_are_checked_before_a_cluster_starts(tmp_path: Path) -> None:
    path = tmp_path / "dump.parquet"
    pl.DataFrame(
        {"id": [1, 1, 2, 2], "class": ["a", "b"] * 2, "score": [0.1, 0.7, 0.8, 0.3]}
    ).with_columns(truth=pl.Series([False, True, True, False])).write_parquet(path)
    error = pl_metrics.MetricsInputError
    with pytest.raises(error, match=r"^option 'retries': expected an integer >= 0, got 1\.5$"):
        pl_metrics.dask.score(path, "lrap", retries=1.5)  # type: ignore[arg-type]
    with pytest.raises(error, match=r"^option 'client': expected a dask\.distributed Client"):
        pl_metrics.dask.score(path, "lrap", client=1.0)
    with pytest.raises(error, match=r"^option 'client': cannot connect to 'bogus'"):
        pl_metrics.dask.score(path, "lrap", client="bogus")

    class Cluster:  # a LocalCluster, as the Client needs it
        scheduler_address = "tcp://127.0.0.1:8786"

    with pytest.raises(error, match=r"; pass Client\(cluster\), or cluster\.scheduler_address$"):
        pl_metrics.dask.score(path, "lrap", client=Cluster())
    # (Named as the Dask one: pl_metrics.score takes a progress bar.)
    with pytest.raises(error, match=r"^dask\.score: unknown option 'progress'$"):
        pl_metrics.dask.score(path, "lrap", progress=True)  # type: ignore[call-arg]


def test_a_scheduler_address_gets_a_client_that_is_closed(client: Any, dump: Path) -> None:
    """A client made from an address is ours: closed after, where it was left to try to
    reconnect for 30 s once the cluster went away."""
    address = client.scheduler.address
    before = set(distributed.client._global_clients.values())
    got = pl_metrics.dask.score(dump, "lrap", by="model", client=address)
    close(got, pl_metrics.score(dump, "lrap", by="model"))
    made = set(distributed.client._global_clients.values()) - before
    assert not [c for c in made if c.status != "closed"]  # none left open


def test_a_closed_client_is_refused_by_name(client: Any, dump: Path) -> None:
    """Dask's raw ClosedClientError (and, once the workers' versions were read, a raw
    AttributeError) where the option is the user's to fix."""
    closed = distributed.Client(client.scheduler.address)
    closed.close()
    with pytest.raises(pl_metrics.MetricsInputError, match=r"^option 'client': the client is"):
        pl_metrics.dask.score(dump, "lrap", by="model", client=closed)


def test_workers_that_cannot_run_the_chunks_are_refused_before_any_is_sent(dump: Path) -> None:
    """A worker lacking pl_metrics, or of another polars (whose expressions it may not
    read), could not unpickle a chunk's task and stopped: the call waited forever."""

    class Workers:  # each worker's answer to the versions' question; nothing may be submitted
        def __init__(self, answers: list[Any]) -> None:
            self.answers = answers

        def run(self, function: Any, text: str, on_error: str) -> dict[str, Any]:
            assert (function, on_error) == (eval, "return")
            assert eval(text) == (pl.__version__, pl_metrics.__version__)  # (here, ours)
            return {f"tcp://w{i}": answer for i, answer in enumerate(self.answers)}

        def submit(self, *args: Any, **kwargs: Any) -> Any:
            raise AssertionError("a chunk was sent")

    ours = (pl.__version__, pl_metrics.__version__)
    for other, told in [
        (ModuleNotFoundError("No module named 'pl_metrics'"), "tcp://w1 cannot import them"),
        (("1.0.0", pl_metrics.__version__), "tcp://w1 has polars 1.0.0, pl_metrics"),
        ((pl.__version__, "0.0.1"), r"tcp://w1 has polars .*, pl_metrics 0\.0\.1"),
    ]:
        with pytest.raises(
            pl_metrics.MetricsInputError,
            match=rf"^option 'client': 1 of the 2 Dask workers cannot score the chunks \({told}",
        ):
            pl_metrics.dask.score(dump, "lrap", by="model", client=Workers([ours, other]))


def test_the_workers_are_asked_what_they_import(client: Any, dump: Path) -> None:
    """Each worker tells the versions it imports: reading its packages' metadata refused a
    worker whose pl_metrics is on its path or uploaded (no metadata), and kept a worker's
    first answer for its life (a package installed since was still missing)."""
    got = client.run(eval, pl_metrics.dask._VERSIONS, on_error="return")
    assert set(got.values()) == {(pl.__version__, pl_metrics.__version__)}
    close(
        pl_metrics.dask.score(dump, "lrap", by="model", client=client),
        pl_metrics.score(dump, "lrap", by="model"),
    )


def test_files_of_one_model_each_are_told_of_key_folders(client: Any, tmp_path: Path) -> None:
    """As score() tells it: no model column in files named by their model."""
    df = pl.read_parquet(DATA / "digits_oof.parquet")
    for model in ("knn", "logreg"):
        df.filter(pl.col("model") == model).drop("model").write_parquet(
            tmp_path / f"{model}.parquet"
        )
    with pytest.raises(
        pl_metrics.MetricsInputError, match=r"put each in a folder named model=<value>"
    ):
        pl_metrics.dask.score(tmp_path, "lrap", by="model", client=client)


def test_a_closing_client_is_refused_by_name(dump: Path) -> None:
    """A client being closed (status 'closing') is as closed: refused before any task."""

    class Closing:
        status = "closing"

        def submit(self, *args: Any, **kwargs: Any) -> Any:
            raise AssertionError("a task was sent to a closing client")

        def run(self, *args: Any, **kwargs: Any) -> Any:
            raise AssertionError("the workers of a closing client were asked")

    with pytest.raises(pl_metrics.MetricsInputError, match=r"^option 'client': the client is"):
        pl_metrics.dask.score(dump, "lrap", by="model", client=Closing())


def test_a_cluster_without_workers_is_warned_of(dump: Path) -> None:
    """No worker yet (an adaptive cluster, or one of n_workers=0): the tasks would wait for
    some, and no version check reaches them; said before the first task is sent."""

    class NoWorkers:
        status = "running"

        def run(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
            return {}

        def submit(self, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("a task was sent")

    with (
        pytest.warns(UserWarning, match=r"^the Dask cluster has no workers yet") as told,
        pytest.raises(RuntimeError, match="a task was sent"),
    ):
        pl_metrics.dask.score(dump, "lrap", by="model", client=NoWorkers())
    assert told[0].filename == __file__


def test_a_failed_merge_cancels_the_chunks_not_yet_read(
    client: Any, dump: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The client merges the chunks' states as they come: a merge that fails (out of
    memory, say) cancels the tasks left, not kept running until the error is dropped."""

    def fails(states: Any) -> pl_metrics.MetricState:
        raise MemoryError("no room to merge")

    monkeypatch.setattr(_driver, "_whole", fails)
    before = set(client.futures)  # (earlier tests' errors may hold theirs)
    with pytest.raises(MemoryError):
        pl_metrics.dask.score(dump, "lrap", by="model", client=client, n_chunks=40)
    assert set(client.futures) <= before  # (each read or cancelled, none held)
