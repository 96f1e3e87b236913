"""Reading prediction dumps: file discovery, formats, hive partitions, parquet statistics."""

from __future__ import annotations

import contextlib
import functools
import glob
import gzip
import io
import itertools
import math
import os
import re
import shlex
import warnings
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote, unquote

import polars as pl

from pl_metrics._frame import (
    EMPTY_TABLE,
    TEXT_FLAGS,
    TEXT_NUMBERS,
    MetricsInputError,
    caller_stacklevel,
    checked_options,
    is_categorical,
    is_float32s,
    is_past_2_53,
    listed,
    shown,
)
from pl_metrics._registry import METRICS

__all__ = [
    "FORMATS",
    "MAX_BATCH_RANGES",
    "PATH_LIKE",
    "Paths",
    "batch_ranges",
    "check_dataset",
    "columns_named",
    "counted_text",
    "file_format",
    "files",
    "keys_from_folders",
    "kind_of",
    "mixed_dumps",
    "mixed_tasks",
    "no_number",
    "path_items",
    "printable",
    "reader_error",
    "refuse_named_twice",
    "require_in_every_file",
    "row_group_ranges",
    "scan",
    "scan_files",
    "unreadable_file",
    "unreadable_named",
]

#: How many classes a message shows.
_SHOWN = 4
#: Files, folders or globs as `files` takes them: text, bytes or path-likes (an os.DirEntry),
#: one or several.
_PathLike = str | bytes | os.PathLike[str] | os.PathLike[bytes]
Paths = _PathLike | Iterable[_PathLike]
#: One path: b"oof.parquet", an os.DirEntry too.
PATH_LIKE = (str, bytes, os.PathLike)
FORMATS = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".ipc": "ipc",
    ".arrow": "ipc",
    ".feather": "ipc",
    ".csv": "csv",
}


def kind_of(path: Path) -> str | None:
    """A file's format from its name (``x.csv.gz`` is CSV: polars reads it decompressed)."""
    if path.name.lower().endswith(".csv.gz"):
        return "csv"
    return FORMATS.get(path.suffix.lower())


_Read = TypeVar("_Read")


def _kept_per_file(read: Callable[[Path], _Read]) -> Callable[[Path], _Read]:
    """``read`` of a file, kept while the file stays as it was (inode, time and size).

    `score` asks for a file's row count, schema and rows again as it lists, checks, scans
    and plans; read once. (A failed read is not kept: it raises again, named.)
    """

    @functools.lru_cache(maxsize=4096)
    def kept(path: Path, version: tuple[int, int, int]) -> _Read:
        return read(path)

    @functools.wraps(read)
    def cached(path: Path) -> _Read:
        stat = path.stat()
        return kept(path, (stat.st_ino, stat.st_mtime_ns, stat.st_size))

    return cached


#: The folder name of a null hive value (as Hive, Spark and polars write it).
_HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"


def path_items(source: object) -> list[Any] | None:
    """``source`` as a list: a path alone, or the items of any iterable.

    A set or a generator is read once, here. None for what holds no paths: None, a number,
    a dict (its keys are no paths), a bytearray (its items are numbers), a frame (its
    columns, or their names).
    """
    if isinstance(source, PATH_LIKE):
        return [source]
    if _is_frame(source):
        return None
    if isinstance(source, Iterable) and not isinstance(source, (Mapping, bytearray, memoryview)):
        return list(source)
    return None


def _is_frame(source: object) -> bool:
    """Whether ``source`` is a table (polars', Arrow's, pandas', Dask's), not paths."""
    attrs = ("collect_schema", "__arrow_c_stream__", "__dask_graph__")
    return any(hasattr(source, a) for a in attrs)


def files(source: Paths) -> list[Path]:
    """The files of ``source``: files, folders (searched recursively) and globs."""
    if hasattr(source, "__dask_graph__"):  # iterating a Dask frame gives its column names
        raise MetricsInputError(
            f"a Dask {type(source).__name__} is not read as it is: write it to parquet "
            "(.to_parquet(folder)) and pass the folder (pl_metrics.dask.score has its "
            "workers read the files)"
        )
    if _is_frame(source):
        raise MetricsInputError(
            f"expected files, folders or globs, got a {type(source).__name__} (frames are "
            "scored by pl_metrics.report, or pl_metrics.score)"
        )
    items = path_items(source)
    if items is None:
        raise MetricsInputError(
            f"expected files, folders or globs (a path or a list of them), got {shown(source)}"
        )
    items = [os.fsdecode(i) if isinstance(i, (bytes, os.PathLike)) else i for i in items]
    if not items:
        raise MetricsInputError("no input: give at least one file, folder or glob")
    found: list[Path] = []
    for item in items:
        text = os.path.expanduser(str(item))  # ~ as the shell and polars' scans read it
        if not text:  # (Path("") is the working folder)
            raise MetricsInputError("an empty path: give a file, folder or glob")
        if "://" in text:  # (Path would also merge its slashes: s3:/bucket)
            scan = "scan_csv" if text.lower().endswith(".csv") else "scan_parquet"
            raise MetricsInputError(
                f"{text!r} is a URL: files, folders and globs are read from local disks; copy "
                f"it to one, or score it as a LazyFrame: pl_metrics.score(pl.{scan}({text!r}), "
                "...)"
            )
        if Path(text).exists() or not any(c in text for c in "*?["):
            found += _expand(Path(text))
            continue
        matched = sorted(Path(p) for p in glob.glob(text, recursive=True))
        if not matched:
            raise MetricsInputError(f"no file matches {text!r}")
        for path in matched:
            found += _expand(path) if path.is_dir() else [path]
    # A file reached twice (a glob and the file itself, or through a link) is read once;
    # two links to one file in two hive folders are two partitions' data.
    unique: dict[tuple[Path, tuple[tuple[str, str], ...]], Path] = {}
    for path in found:
        unique.setdefault((path.resolve(), tuple(_hive_parts(path).items())), path)
    for path in unique.values():
        if not str(path).isascii() and not _utf8(str(path)):  # (bytes of another encoding)
            raise MetricsInputError(
                f"file {printable(ascii(str(path)))}: its name is not UTF-8, which polars "
                "cannot open; rename it (or its folder)"
            )
    return _without_empty(list(unique.values()))


def _utf8(text: str) -> bool:
    """Whether ``text`` is UTF-8 (not bytes of another encoding, escaped by ``os.fsdecode``)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _without_empty(found: list[Path]) -> list[Path]:
    """``found`` less its parquet and IPC files of no rows (as `scan` leaves CSV's out).

    A shard of no rows types its columns by its writer's guess (Null, or pandas' Float64
    for every column): it would hold up the others' types for no data.
    """
    empty = {path for path in found if _row_count(path) == 0}
    if len(empty) == len(found):
        which = (
            f"file {str(found[0])!r} has no rows"
            if len(found) == 1
            else f"none of its {len(found)} files has a row"
        )
        raise MetricsInputError(f"the table is empty: {which}")
    return [p for p in found if p not in empty]


def _row_count(path: Path) -> int | None:
    """The rows of a parquet or IPC file, from its metadata; None for others, or unread.

    Kept while the file's size and modification time stay, as its schema is (each call of
    `files` asks again).
    """
    kind = kind_of(path)
    if kind not in ("parquet", "ipc"):
        return None
    try:
        return _read_row_count(path)
    except Exception:  # (an unreadable file is named where it is read)
        return None


@_kept_per_file
def _read_row_count(path: Path) -> int:
    """`_row_count`'s read, of a parquet or IPC file."""
    if kind_of(path) == "parquet":
        import pyarrow.parquet as pq

        return int(pq.read_metadata(path).num_rows)
    return int(pl.scan_ipc(path, glob=False).select(pl.len()).collect().item())


def _expand(path: Path) -> list[Path]:
    """A file as itself, a folder as the parquet, IPC and CSV files below it.

    Entries below the folder whose names start with "." or "_" are left out, as pyarrow's
    datasets, Spark and Hive leave them out: no data (.ipynb_checkpoints, macOS's "._x"
    files, Spark's _temporary).
    """
    if path.is_file():
        return [path]
    if path.is_dir():
        walked = list(_walk(path))
        found = sorted(p for p in walked if kind_of(p) and not _hidden(p, path))
        if dangling := [p for p in found if not p.is_file() and p.is_symlink()]:
            raise MetricsInputError(
                f"file {str(dangling[0])!r} is a link to {os.readlink(dangling[0])!r}, which "
                "does not exist (a disk not mounted?): its rows would be left out; restore "
                "the link's file or remove the link"
            )
        found = [p for p in found if p.is_file()]
        if not found:
            raise MetricsInputError(
                f"folder {str(path)!r} holds no parquet, IPC or CSV file (but in entries "
                'named ".x" or "_x", which are left out)'
                if any(kind_of(p) for p in walked)
                else f"folder {str(path)!r} holds no parquet, IPC or CSV file"
            )
        _refuse_stray_data(path, [p for p in walked if not kind_of(p)])
        return found
    if path.exists() or str(path) == "-":  # a pipe (`<(...)`, /dev/stdin): no file to plan
        raise MetricsInputError(
            f"{str(path)!r} is no regular file (a pipe or standard input, say): save the data "
            "to a .parquet or .csv file and score that"
        )
    if str(path) in METRICS:  # `pl-metrics score oof.parquet lwlrap`
        raise MetricsInputError(
            f"file not found: {str(path)!r}, which is a metric: name metrics with --metric "
            f"(-m {path}), or the metrics argument of pl_metrics.score"
        )
    raise MetricsInputError(f"file not found: {str(path)!r}")


#: Names of data that `kind_of` does not read: a compressed CSV (but .csv.gz), a TSV.
_DATA_NAMED = re.compile(
    r"\.(csv|tsv|parquet|pq|arrow|ipc|feather)\.(bz2|xz|zst|zip|lz4|gz)$|\.tsv$"
)
#: Suffixes of files that may be parquet or IPC of another name (``part.parq``, ``part-0``).
_DATA_LIKE = re.compile(r"^(|\.(par|pq|arr|ipc|fea)[a-z0-9]*)$")


def _hidden(path: Path, root: Path) -> bool:
    """Whether an entry below ``root`` on the way to ``path`` is named ".x" or "_x"."""
    return any(part.startswith((".", "_")) for part in path.relative_to(root).parts)


def _refuse_stray_data(folder: Path, others: Sequence[Path]) -> None:
    """Refuse data among a folder's ``others`` (files not read) that their names leave out.

    Parquet or IPC by their first bytes (``part.parq``, a part file without an extension;
    only such names are opened), or named as data (``x.csv.bz2``, ``x.tsv``): their rows
    would be left out silently, where a glob or a list naming them is refused. Sidecars
    (``x.parquet.dvc``, ``README.md``) are no data.
    """
    stray, advice = [], {}
    for file in sorted(others):
        name = file.name.lower()
        named, like = _DATA_NAMED.search(name), _DATA_LIKE.match(file.suffix.lower())
        if not (named or like) or _hidden(file, folder):
            continue
        if named:
            stray.append(f"{str(file)!r} (by its name)")
            if name.endswith(".tsv"):
                advice["tsv"] = "convert a TSV to CSV or parquet"
            else:
                advice["packed"] = "decompress a compressed file (of CSVs, .csv.gz is read)"
            continue
        try:
            with file.open("rb") as opened:
                head = opened.read(6)
        except OSError:  # (unreadable: no data of ours that we could read)
            continue
        kind = "parquet" if head.startswith(b"PAR1") else "Arrow IPC" if head == b"ARROW1" else ""
        if kind:
            stray.append(f"{str(file)!r} ({kind}, by its bytes)")
            advice["named"] = "name a parquet file .parquet, an IPC file .arrow"
    if stray:
        raise MetricsInputError(
            f"folder {str(folder)!r} holds {len(stray):,} data "
            f"{'file' if len(stray) == 1 else 'files'} whose rows would be left out: "
            f"{listed(stray, 3)}; {', '.join(advice.values())}, or move "
            f"{'it' if len(stray) == 1 else 'them'} out of the folder"
        )


def _walk(root: Path) -> Iterator[Path]:
    """The files below ``root``, following links to folders, but not round in a loop.

    ``Path.rglob`` does not descend into a linked folder (``model=knn -> /elsewhere``),
    whose files would be left out silently; polars' own folder scans follow such links.
    A folder is not entered again below itself, nor one of its ancestors (a link to ``/``,
    or two folders linking to each other, would walk on without end).
    """
    # Each folder's real path and those of the folders walked down to it.
    down: dict[str, tuple[str, ...]] = {os.fspath(root): (os.path.realpath(root),)}

    def unlisted(error: OSError) -> None:  # (os.walk leaves out a folder it cannot list)
        below = Path(error.filename).relative_to(root).parts if error.filename else ()
        if not any(part.startswith((".", "_")) for part in below):  # (no data: not read)
            # Warned, not refused: a disk's lost+found, say, holds no data of the dump.
            warnings.warn(
                f"cannot list folder {str(error.filename)!r}: {error.strerror}; its files, if "
                "any, are left out",
                UserWarning,
                stacklevel=caller_stacklevel(),
            )

    for folder, names, files_ in os.walk(root, followlinks=True, onerror=unlisted):
        above = down.pop(folder)
        kept = []
        for name in sorted(names):
            real = os.path.realpath(os.path.join(folder, name))
            if not any(os.path.commonpath([real, a]) == real for a in above):
                kept.append(name)
                down[os.path.join(folder, name)] = (*above, real)
        names[:] = kept
        for name in files_:
            yield Path(folder, name)


def file_format(files: Sequence[Path]) -> str:
    """The one format (``parquet``, ``ipc`` or ``csv``) of ``files``, from their suffixes."""
    kinds = {kind_of(p) for p in files}
    if None in kinds:
        unknown = next(p for p in files if kind_of(p) is None)
        raise MetricsInputError(
            f"unsupported file type {unknown.suffix or '(no extension)'!r} ({str(unknown)!r}); "
            f"expected {', '.join(sorted(FORMATS))} or .csv.gz"
        )
    if len(kinds) > 1:
        first: dict[str, Path] = {}
        for path in files:  # a file of each type, to find the stray one by
            first.setdefault(str(kind_of(path)), path)
        each = ", ".join(f"{kind} ({str(path)!r})" for kind, path in sorted(first.items()))
        raise MetricsInputError(f"the input mixes file types: {each}; score the files of one type")
    return str(kinds.pop())


@checked_options
def scan(source: Paths) -> pl.LazyFrame:
    """Lazily scan files, folders (hive-partitioned or not) and globs of one format.

    Parquet, IPC (Arrow, Feather) and CSV. A folder is read recursively, into linked
    folders too (not back up: a link to a folder above is not followed); ``key=value``
    folder names become columns (hive partitioning), so ``oof/model=a/fold=0/part.csv``
    gives ``model`` and ``fold`` columns, in every format, typed as polars types parquet's.

    Parquet and IPC files are read as one table when their numeric column types differ
    (Float32 and Float64 scores: Float64), and when some files lack a column (a shard
    that gained one): it is null in their rows. A column of types that do not widen to one
    (text in one file, numbers in another) is left out. `score` refuses either when a
    metric reads it, naming the column and the files; a folder key that some files hold
    is refused here. Only their metadata is read here, and a file's own column of a folder
    key where its statistics do not show that it holds the folder's value (else the
    folder's value would replace the column's silently). A column left out, or null in
    the rows of files that lack it, is told in a warning, which names its types and files.
    Files without rows are left out (their column types are a writer's guess); if every
    file lacks rows, the table is empty, which raises.

    Parameters
    ----------
    source
        A file, folder or glob (text, bytes or a path-like), or several.

    Returns
    -------
    polars.LazyFrame
        Lazy: the rows are read when it is collected.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import polars as pl
    >>> import pl_metrics
    >>> df = pl.read_parquet("data/digits_oof.parquet")
    >>> root = Path(tempfile.mkdtemp())
    >>> for (model,), part in df.partition_by("model", as_dict=True).items():
    ...     (root / f"model={model}").mkdir()
    ...     part.drop("model").write_parquet(root / f"model={model}" / "part.parquet")
    >>> lf = pl_metrics.scan(root)  # the files' metadata only: nothing read yet
    >>> lf.metrics.lrap(by="model").sort("model").collect()
    shape: (4, 2)
    ┌─────────────┬──────────┐
    │ model       ┆ lrap     │
    │ ---         ┆ ---      │
    │ str         ┆ f64      │
    ╞═════════════╪══════════╡
    │ forest      ┆ 0.984994 │
    │ knn         ┆ 0.98811  │
    │ logreg      ┆ 0.981145 │
    │ naive_bayes ┆ 0.912151 │
    └─────────────┴──────────┘
    """
    # A metric reading a column left out would only say that the table lacks it: the
    # warning says why. (score() explains it where a metric reads it, and does not warn.)
    return scan_files(files(source), warn_left_out=True)


def scan_files(
    found: Sequence[Path],
    *,
    check_folders: bool = True,
    warn_left_out: bool = False,
    text: Collection[str] = (),
) -> pl.LazyFrame:
    """`scan` of files found by `files`.

    ``check_folders=False`` where the folders were checked already: a Dask worker's chunk,
    a file read alone to name the one that fails. ``warn_left_out``: warn of each column
    left out for types that do not widen (`scan`'s warning, shown at its caller's line).
    ``text``: columns of CSV files read as written, not typed ("007" stays "007").
    """
    kind = file_format(found)
    if kind == "csv":
        return _scan_csv(found, check_folders, warn=warn_left_out, text=text)
    schemas = [_file_schema(path, kind) for path in found]
    if check_folders:
        _check_folders(found, kind, schemas)
    common = _common_schema(found, schemas, warn=warn_left_out)
    same = all(dict(schema) == dict(common) for schema in schemas)
    scanner = _scan_parquet if kind == "parquet" else _scan_ipc
    hive = {key: values.dtype for key, values in _hive_values(found).items()}
    # polars cannot read times from folder names (run=12:00:00): read as text, then parsed.
    times = [key for key, dtype in hive.items() if dtype == pl.Time]
    texts = {key: pl.String() if key in times else dtype for key, dtype in hive.items()}
    lf = scanner(found, None if same else common, texts if times else None)
    return lf.with_columns(pl.col(times).str.to_time()) if times else lf


def _scan_parquet(
    found: Sequence[Path],
    common: pl.Schema | None,
    hive_schema: Mapping[str, pl.DataType] | None = None,
) -> pl.LazyFrame:
    """Parquet files as one table; ``common``: the types to read files of other types as.

    ``hive_schema``: the types of the columns of ``key=value`` folders; None: polars'.
    """
    names, hive = [str(p) for p in found], _is_hive(found)
    if common is None:
        return pl.scan_parquet(names, hive_partitioning=hive, hive_schema=hive_schema, glob=False)
    return pl.scan_parquet(
        names,
        hive_partitioning=hive,
        hive_schema=hive_schema,
        glob=False,
        schema=common,
        cast_options=_widening(),
        missing_columns="insert",
        extra_columns="ignore",  # columns of types that do not agree (`_common_schema`)
    )


def _scan_ipc(
    found: Sequence[Path],
    common: pl.Schema | None,
    hive_schema: Mapping[str, pl.DataType] | None = None,
) -> pl.LazyFrame:
    """IPC files as one table; ``common``: the types to read files of other types as.

    ``hive_schema``: the types of the columns of ``key=value`` folders; None: polars'.
    """
    names = [str(p) for p in found]
    if common is None:
        hive = _is_hive(found)
        return pl.scan_ipc(names, hive_partitioning=hive, hive_schema=hive_schema, glob=False)
    # scan_ipc takes no target schema: each file is cast to the common types, then stacked,
    # with the hive types inferred over all the files, as a scan of them all infers them.
    if hive_schema is None:
        hive_schema = {key: values.dtype for key, values in _hive_values(found).items()}
    frames = [
        pl.scan_ipc(
            name,
            hive_partitioning=bool(hive_schema),
            hive_schema=hive_schema or None,
            glob=False,
        )
        for name in names
    ]
    # (A file lacking a column gets it as nulls, from the stacking.)
    kept = [[k for k in f.collect_schema() if k in common or k in hive_schema] for f in frames]
    texts = {k for k, v in hive_schema.items() if v == pl.String}  # (a Time key is parsed after)
    held = [
        pl.Schema({k: v for k, v in common.items() if k in names and k not in texts})
        for names in kept
    ]
    return pl.concat(
        (f.select(k).cast(h) for f, k, h in zip(frames, kept, held, strict=True)), how="diagonal"
    )


def _widening() -> pl.ScanCastOptions:
    """Scan options that read narrower numeric types of some files as the common type."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pl.exceptions.UnstableWarning)
        return pl.ScanCastOptions(
            integer_cast=["upcast", "allow-float"],
            float_cast="upcast",
            categorical_to_string="allow",
        )


def printable(text: str) -> str:
    """``text`` on one line: newlines, control characters and raw bytes escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text.strip())


#: A CSV's spellings of a missing value (lower case), told as such where a column of
#: numbers cannot read them.
_MISSING_MARKS = frozenset({"na", "n/a", "#n/a", "null", "none", "nil", "missing", "-", "?", "."})


def reader_error(error: Exception, *, scanned: bool = False, hints: bool = True) -> str:
    """The first line of a reader's error (polars adds lines of advice), printable.

    With ``hints``, a CSV's usual mistakes are told what to do: decimal commas between
    commas, a spreadsheet's encoding, and (``scanned``: a CSV this library scanned, whose
    types it guessed) a value unlike the rows its column's type was guessed from.
    """
    text = printable((str(error).strip() or type(error).__name__).splitlines()[0])
    if not hints:
        return text
    unparsed = re.match(r"could not parse `(.*)` as dtype `.*` at column '.*'", text)
    if scanned and unparsed and unparsed[1].strip().lower() in _MISSING_MARKS:
        text += (  # (R's NA, say, past the rows that typed the column)
            f"; {unparsed[1]!r} marks a missing value? fill or drop those rows (its type was "
            f"guessed from the first {CSV_INFER_ROWS:,} rows, which hold none)"
        )
    elif scanned and unparsed:
        text += (
            f"; its type was guessed from the first {CSV_INFER_ROWS:,} rows: write the "
            f"column's values alike (1.0, not 1, for a float), or the table as parquet"
        )
    elif text.startswith("found more fields than defined"):  # (polars' CSV reader)
        text += (
            "; a row has more fields than the header: decimal commas (0,5) in a file "
            "separated by commas? write decimal points (0.5)"
        )
    elif text == "invalid utf-8 sequence":
        text += "; save the file as UTF-8 (a spreadsheet's 'CSV UTF-8')"
    return text


def unreadable_file(found: Sequence[Path], columns: Sequence[str]) -> str | None:
    """Which of ``found`` polars cannot read ``columns`` of, told as an error message.

    For after reading the files together failed, whose error names no file (a corrupt
    parquet page, a CSV field that does not parse). Each file is read on its own, one after
    the other, its values hashed in the streaming engine: memory stays that of a batch. None
    when every file reads.
    """
    for path in found:
        try:
            lf = scan_files([path], check_folders=False)
            present = [c for c in columns if c in lf.collect_schema()]
            lf.select(pl.col(present).hash().max()).collect(engine="streaming")
        except MetricsInputError:  # alone, it is empty: the files together left it out
            continue
        except (pl.exceptions.PolarsError, pl.exceptions.PanicException, OSError) as error:
            # (A corrupt file can make polars panic; that is this file's error too.)
            return f"cannot read file {str(path)!r}: {reader_error(error, scanned=True)}"
    return None


def mixed_dumps(
    found: Sequence[Path], id_col: str, class_col: str, problem: str | None
) -> str | None:
    """Why files read together fail a check of each id's classes, when the files show it.

    Dumps of other tasks (other classes) stacked in one folder look like ids lacking
    classes; one file per model with no column naming the model, like ids repeating their
    classes. For after the check failed: each file's class (or id) column is read; a file
    that cannot be read or is empty tells nothing, and no hint leaves the error as it is.
    """
    if problem == "duplicate":
        merged = _merged_by_inference(found, [class_col, id_col])
        if merged is not None or len(found) < 2:
            return merged
    elif len(found) < 2 or problem not in ("ragged", "class_sets"):
        return None
    # Files of other classes are other tasks' dumps (their ids repeat where the tasks
    # share a class name): not models' dumps to put in model= folders. (Of repeated rows,
    # where each of two files holds classes the other lacks: a file of some of another's
    # classes is a part of it written twice.)
    sets = {path: set(values) for path, values in _distinct(found, class_col).items()}
    classes = _different_classes(sets)
    tasks = problem != "duplicate" or any(
        not (a <= b or b <= a) for a, b in itertools.combinations(sets.values(), 2)
    )
    if classes and tasks:
        return f"but the {len(found)} files hold {classes}: score each dump on its own"
    return _same_ids(_distinct(found, id_col)) if problem == "duplicate" else None


def check_dataset(dataset: Any, columns: Collection[str]) -> None:
    """Refuse a ``pyarrow.dataset.Dataset`` whose files hold ``columns`` in wider floats.

    pyarrow reads every file as the dataset's schema (its first file's, unless one is given)
    and casts the others' columns to it: a Float64 score of a later file read as Float32
    loses digits, and distinct scores become ties, without a word. A folder given to
    `score` itself widens them instead.
    """
    from pyarrow.types import is_floating  # (imported already: the dataset is pyarrow's)

    floats = {
        field.name: field.type.bit_width
        for field in dataset.schema
        if field.name in columns and is_floating(field.type)
    }
    for fragment in dataset.get_fragments() if floats else ():
        physical = fragment.physical_schema
        for name, width in floats.items():
            index = physical.get_field_index(name)
            held = physical.field(index).type if index >= 0 else None
            if held is not None and is_floating(held) and held.bit_width > width:
                where = getattr(fragment, "path", None)
                raise MetricsInputError(
                    f"column {name!r}: the dataset reads it as {dataset.schema.field(name).type}"
                    f" (its schema's, by default its first file's), but "
                    f"{repr(where) if where else 'a fragment'} holds {held}: pyarrow would cut "
                    "its digits. Give score() the files or folder themselves (their floats "
                    f"are widened), or make the dataset with a schema of {held} for {name!r}",
                    column=name,
                )


@contextlib.contextmanager
def keys_from_folders(found: Sequence[Path] | None, keys: Sequence[str]) -> Iterator[None]:
    """A group key the files lack: say how folders name it (oof_<model>_<fold>.csv files).

    Told where several files are read and none is in a ``key=value`` folder of its name.
    """
    try:
        yield
    except MetricsInputError as error:
        name = error.column
        if (
            name is None
            or name not in keys
            or not found
            or len(found) < 2
            or "is not in the table" not in str(error)
            or "did you mean" in str(error)  # (a typo of a column the files hold)
            or any(name in _hive_parts(path) for path in found)
        ):
            raise
        raise MetricsInputError(  # (no examples to keep last: the column is missing)
            f"{error}; if each file holds the rows of one {name} (oof_<{name}>.csv, say), put "
            f"each in a folder named {name}=<value>: read as a column named {name}",
            column=name,
        ) from None


@contextlib.contextmanager
def counted_text(
    lf: pl.LazyFrame, found: Sequence[Path] | None = None, keys: Sequence[str | None] = ()
) -> Iterator[None]:
    """A column of numbers (or flags) read as text: its values that are not, counted.

    For inputs that are read in any case (files scored, the command line's, a DataFrame):
    ``lf`` is read for that column, and the generic advice gives way to the rows and values.
    ``found``: the files ``lf`` scans; those of them whose column is text are named.
    ``keys``: the columns that name a row (groups, id, class), the first failing row's told.
    """
    try:
        yield
    except MetricsInputError as error:
        if error.problem not in (TEXT_NUMBERS, TEXT_FLAGS) or error.column is None:
            raise
        try:
            told = text_values(lf, error.column, flags=error.problem == TEXT_FLAGS, keys=keys)
        except (pl.exceptions.PolarsError, OSError):  # (unreadable: the reads say so later)
            told = None
        except MetricsInputError as empty:  # no rows at all: told alone, as the table's
            raise empty from None
        if told is None:
            raise
        # The statement without its generic advice: up to the first "; " after the name.
        text = str(error)
        cut = text.find("; ", len(f"column {error.column!r}: "))
        what = text if cut < 0 else text[:cut]
        raise MetricsInputError(
            f"{what}; {told}{_text_in(found, error.column)}",
            problem=error.problem,
            column=error.column,
        ) from None


def _text_in(found: Sequence[Path] | None, column: str) -> str:
    """Which of several files hold ``column`` as text (a CSV's "NA" types it so), if some."""
    if not found or len(found) < 2:
        return ""
    try:
        kind = file_format(found)
        schemas = _schemas(found, kind)
        texts = [
            p for p, schema in zip(found, schemas, strict=True) if schema.get(column) == pl.String
        ]
    except (pl.exceptions.PolarsError, OSError, MetricsInputError):  # (told by the reads)
        return ""
    if not texts or len(texts) == len(found):
        return ""
    named = listed([repr(str(p)) for p in texts], 3)
    return f" (text in {len(texts):,} of the {len(found):,} files: {named})"


@contextlib.contextmanager
def unreadable_named(found: Sequence[Path] | None, columns: Sequence[str]) -> Iterator[None]:
    """Name the file when reading ``found`` fails: polars' errors do not."""
    try:
        yield
    except (pl.exceptions.ComputeError, pl.exceptions.PanicException, OSError) as error:
        which = unreadable_file(found, columns) if found else None
        if which is None:
            raise
        raise MetricsInputError(which) from error


def no_number(text: pl.Expr) -> pl.Expr:
    """Where a text column holds a value that reads as no finite number.

    ("nan" and "inf" cast to floats, but a CSV's reader reads them as text: told too.)
    """
    number = text.str.strip_chars().cast(pl.Float64, strict=False)
    return text.is_not_null() & ~number.is_finite().fill_null(False)


def text_values(
    lf: pl.LazyFrame, column: str, *, flags: bool, keys: Sequence[str | None] = ()
) -> str:
    """The values of a text ``column`` that are not numbers (``flags``: 0/1 nor true/false).

    A CSV column of numbers with one "NA" reads as text: its rows that hold no number are
    counted, with the first few such values, as the reader gives them, and the first such
    row's ``keys`` (those in the table); a column whose values all read (text in a typed
    file) is told so.
    """
    schema = lf.collect_schema()
    named = [k for k in dict.fromkeys(keys) if k is not None and k != column and k in schema]
    text = pl.col(column)
    bad = no_number(text)
    if flags:
        stripped = text.str.strip_chars()
        word, number = stripped.str.to_lowercase(), stripped.cast(pl.Float64, strict=False)
        good = number.is_in([0.0, 1.0]).fill_null(False) | word.is_in(["true", "false"])
        bad = text.is_not_null() & ~good
    found = lf.select(
        bad.sum().alias("rows"),
        text.filter(bad).unique(maintain_order=True).head(_SHOWN + 1).implode().alias("values"),
        text.is_not_null().sum().alias("held"),
        pl.len().alias("all"),
        # (one struct: the keys of one row, whatever the engine's order of aggregations)
        *([pl.struct(named).filter(bad).first().alias("first")] if named else []),
    ).collect(engine="streaming")
    rows, values, held, every, *first = found.row(0)
    if not every:  # a CSV of a header only reads every column as text
        raise MetricsInputError(EMPTY_TABLE)
    if not held:  # (a column of nulls only, typed as text: nothing to parse)
        return "it holds no value (nulls only)"
    if not rows:  # a typed file's column of text that all reads (a parquet's String)
        these = "true/false (or 0/1)" if flags else "numbers"
        kind = "boolean (or integers 0/1)" if flags else "numbers (Float64)"
        return f"its values are {these} held as text: store the column as {kind}"
    what = "0/1 nor true/false" if flags else "a number"
    fix = "write them as true/false or 1/0" if flags else "fix"
    shown = ", ".join(repr(v) for v in values[:_SHOWN]) + (", ..." if len(values) > _SHOWN else "")
    if flags and rows == held:  # words of its own ('yes'/'no'): no row to drop, a map to make
        return (
            f"its values are {shown}, none of them {what}: map them to booleans first, e.g. "
            f"pl.col({column!r}) == {values[0]!r} if {values[0]!r} marks a positive"
        )
    at = ", ".join(f"{k}={v!r}" for k, v in (first[0] or {}).items()) if first else ""
    return (
        f"{rows:,} {'row holds a value that is' if rows == 1 else 'rows hold values that are'}"
        f" not {what}: {shown} ({f'first at {at}; ' if at else ''}{fix} or drop those rows)"
    )


def _merged_by_inference(found: Sequence[Path], columns: Sequence[str]) -> str | None:
    """A CSV file's key column whose texts read as one number ("01" and "1" as 1), told.

    polars types a CSV's columns by inference, so two classes (or ids) written apart are
    one once read, and their rows look repeated. The texts are cast to the type the reader
    gives the column, as `scan_files` reads it.
    """
    for path in found:
        if file_format([path]) != "csv":
            continue
        try:
            schema = scan_files([path], check_folders=False).collect_schema()
            numeric = [c for c in columns if c in schema and schema[c].is_numeric()]
            texts = pl.scan_csv(path, infer_schema=False, glob=False).select(
                pl.col(numeric).unique().implode()
            )
            distinct = texts.collect().row(0, named=True) if numeric else {}
        except (pl.exceptions.PolarsError, MetricsInputError, OSError):  # (an empty CSV)
            continue
        for column, values in distinct.items():
            text = pl.Series(values, dtype=pl.String).drop_nulls()
            number = text.cast(schema[column], strict=False)
            if number.null_count() or number.n_unique() == text.len():
                continue
            pairs = pl.DataFrame({"text": text, "number": number})
            first = pairs.filter(pl.col("number").is_duplicated()).sort("number", "text")
            a, b = first["text"][0], first["text"][1]
            return (
                f"but file {str(path)!r} writes {a!r} and {b!r} in column {column!r}, which "
                "a CSV reader types as one number: keep such keys as text (write them in "
                "parquet, or with a prefix: c01)"
            )
    return None


def mixed_tasks(found: Sequence[Path], class_col: str, by: Sequence[str]) -> str | None:
    """A warning for files whose rows are scored together but hold different classes.

    Dumps of two tasks in one folder, with the same ids (`pl-metrics score data/`), pass
    every check: each id has the classes of both. Files are compared within each ``by``
    group (of ``key=value`` folders or of the files' own columns): groups are scored apart.
    (Files that split one dump by class hold different classes too: the warning says so.)
    """
    if any(class_col in _hive_parts(path) for path in found):  # split by class folders
        return None
    together: dict[tuple[tuple[str, str], ...], list[Path]] = {}
    for path in found:
        key = tuple((k, v) for k, v in _hive_parts(path).items() if k in by)
        together.setdefault(key, []).append(path)
    for paths in together.values():
        if len(paths) < 2:
            continue
        groups = _class_sets(paths, class_col, by)
        for key in sorted(groups, key=repr):  # (the same group told on every call)
            classes = _different_classes(groups[key])
            if classes:
                return (
                    f"files scored together hold {classes}: if they are dumps of different "
                    "tasks, score each on its own (if they split one dump by class, all is well)"
                )
    return None


def _class_sets(
    found: Sequence[Path], class_col: str, by: Sequence[str]
) -> dict[tuple[Any, ...], dict[Path, set[Any]]]:
    """Each ``by`` group's classes in each file (the ``by`` columns a file has)."""
    groups: dict[tuple[Any, ...], dict[Path, set[Any]]] = {}
    for path, rows in _each_file(found, [*by, class_col], needs=class_col).items():
        keys = [b for b in by if b in rows.columns]
        for key, part in rows.group_by(keys) if keys else [((), rows)]:
            # (A list or struct key comes as a list or dict, which cannot be a dict key.)
            hashable = tuple(repr(v) if isinstance(v, (list, dict)) else v for v in key)
            groups.setdefault(hashable, {})[path] = set(part[class_col])
    return groups


def _distinct(found: Sequence[Path], column: str) -> dict[Path, pl.Series]:
    """Each file's distinct values of ``column``."""
    return {path: rows[column] for path, rows in _each_file(found, [column], needs=column).items()}


def _each_file(
    found: Sequence[Path], columns: Sequence[str], *, needs: str
) -> dict[Path, pl.DataFrame]:
    """Each file's distinct rows of those of ``columns`` it has, read one file at a time.

    A file that cannot be read, or lacks the column it ``needs``, tells nothing.
    """
    out: dict[Path, pl.DataFrame] = {}
    for path in found:
        try:
            lf = scan_files([path], check_folders=False)
            present = [c for c in columns if c in lf.collect_schema()]
            if needs in present:
                out[path] = lf.select(present).unique().collect(engine="streaming")
        except (pl.exceptions.PolarsError, MetricsInputError, OSError):  # (an empty CSV)
            continue
    return out


def _different_classes(sets: dict[Path, set[Any]]) -> str:
    """``different classes ('9' only in 'a')`` if two files' classes differ, else ""."""
    found = [(path, classes) for path, classes in sets.items() if classes]
    other = next((k for k in range(1, len(found)) if found[k][1] != found[0][1]), None)
    if other is None:
        return ""
    (a, in_a), (b, in_b) = found[0], found[other]
    only = [
        f"{listed([repr(c) for c in sorted(map(str, classes))], _SHOWN)} only in {str(path)!r}"
        for path, classes in ((a, in_a - in_b), (b, in_b - in_a))
        if classes
    ]
    return f"different classes ({'; '.join(only)})"


def _same_ids(ids: dict[Path, pl.Series]) -> str | None:
    """Two files of one hive partition (or of none) that hold the same ids, told as a hint.

    Files in different ``key=value`` folders are told apart by those columns already. Of
    the files that share ids, the two that share the most (in one pass over all their ids).
    """
    partitions: dict[tuple[tuple[str, str], ...], list[Path]] = {}
    for path in ids:
        partitions.setdefault(tuple(_hive_parts(path).items()), []).append(path)
    for paths in partitions.values():
        typed = _comparable([ids[path] for path in paths])
        held = pl.concat(
            pl.DataFrame({"id": values, "file": pl.repeat(n, values.len(), eager=True)})
            .drop_nulls()
            .unique()  # (distinct ids of a file may be one once typed: a file is no pair)
            for n, values in enumerate(typed)
        )
        pairs = (
            held.group_by("id")
            .agg(pl.col("file").sort().head(2))
            .filter(pl.col("file").list.len() == 2)
            .group_by("file")
            .len()
            .sort("len", "file", descending=[True, False])
        )
        if not pairs.height:
            continue
        one, two = pairs["file"][0]
        first, other = paths[one], paths[two]
        shared = ids[first].filter(typed[one].is_in(typed[two].implode()).fill_null(False))
        if not shared.len():
            continue
        # A few shared ids are rows written twice (a task retried), not a model's dump.
        if shared.len() * 2 < min(typed[one].len(), typed[two].len()):
            return (
                f"files {str(first)!r} and {str(other)!r} share {shared.len():,} of their "
                f"ids (such as {shared.sort()[0]!r}): an id's rows belong in one file"
            )
        return (
            f"files {str(first)!r} and {str(other)!r} hold the same ids: if each "
            "file is the dump of one model (or fold), put each in a folder named "
            "model=<name> (read as a column named model) and group by model"
        )
    return None


def _comparable(ids: list[pl.Series]) -> list[pl.Series]:
    """Files' ids in one type: ids read as integers in one CSV and floats in another.

    Lists and structs by their hashes (they cast to no string; a collision words a hint).
    """
    if all(values.dtype.is_integer() for values in ids):  # (exact: above 2**53 too)
        return [values.cast(pl.Int128) for values in ids]
    if all(values.dtype.is_numeric() for values in ids):
        return [values.cast(pl.Float64) for values in ids]
    if any(values.dtype.is_nested() for values in ids):
        return [values.hash(seed=0) for values in ids]
    return [values.cast(pl.String) for values in ids]


def _schemas(found: Sequence[Path], kind: str) -> list[pl.Schema]:
    """Each file's schema: a CSV's as polars infers it, a parquet or IPC file's metadata."""
    return [_csv_schema(p) if kind == "csv" else _file_schema(p, kind) for p in found]


def _file_schema(path: Path, kind: str) -> pl.Schema:
    """The schema in a parquet or IPC file's metadata; an unreadable file raises, named.

    `score` asks for it when it scans the files and again when it checks the columns the
    metrics read: read once, kept while the file's size and modification time stay.
    """
    try:
        stat = path.stat()
        if not stat.st_size:  # (polars' error would be of the format's footer)
            raise MetricsInputError(
                f"cannot read file {str(path)!r}: it is empty (0 bytes; a write that was cut "
                "short?)"
            )
        return pl.Schema(_read_schema(path))  # (a copy: the kept one stays as read)
    except (pl.exceptions.PolarsError, OSError) as error:
        stream = kind == "ipc" and _is_ipc_stream(path)
        detail = (
            "it is an Arrow IPC stream, which is not scanned; convert it to parquet first: "
            "python -c "
            + shlex.quote(
                f"import polars as pl; pl.read_ipc_stream({str(path)!r})"
                f".write_parquet({str(path.with_suffix('.parquet'))!r})"
            )
            if stream
            else reader_error(error)
        )
        raise MetricsInputError(f"cannot read file {str(path)!r}: {detail}") from error


def _is_ipc_stream(path: Path) -> bool:
    """Whether ``path`` holds Arrow's IPC stream format: no 'ARROW1' file magic."""
    try:
        with path.open("rb") as file:
            head = file.read(8)
    except OSError:
        return False
    # A stream starts with its first message's continuation marker (a file with its magic).
    return head.startswith(b"\xff\xff\xff\xff")


@_kept_per_file
def _read_schema(path: Path) -> pl.Schema:
    """`_file_schema`'s read, of a parquet or IPC file."""
    return _scan_alone(path, kind_of(path)).collect_schema()


def _scan_alone(path: Path, kind: str | None) -> pl.LazyFrame:
    """One file of ``kind``, its own columns only: no folder keys.

    A CSV's types are guessed as `_scan_one_csv` guesses them.
    """
    if kind == "csv":
        return _scan_one_csv(path)
    scan = pl.scan_parquet if kind == "parquet" else pl.scan_ipc
    return scan(path, glob=False, hive_partitioning=False)


def _common_schema(
    found: Sequence[Path], schemas: Sequence[pl.Schema], *, warn: bool = False
) -> pl.Schema:
    """The types every file can be read as: numeric types widened, every file's columns.

    A column that some files lack is read as nulls there (a shard that gained a column of
    notes); one whose types differ otherwise (text in one file, numbers in another) is left
    out. `require_in_every_file` refuses either when a metric reads it. A folder key held
    by some files only is refused: polars would read its type from the folders.
    """
    keys = set(_hive_values(found))
    for path, schema in zip(found[1:], schemas[1:], strict=True):
        if (set(schema) ^ set(schemas[0])) & keys:
            raise _column_sets_differ(found[0], set(schemas[0]), path, set(schema))
    common: dict[str, pl.DataType] = {}
    for name in dict.fromkeys(name for schema in schemas for name in schema):
        wider = _common_type(found, schemas, name)
        if isinstance(wider, MetricsInputError):
            if name in keys:
                raise wider
            if warn:
                warnings.warn(
                    f"{wider}; it is left out of the table",
                    UserWarning,
                    stacklevel=caller_stacklevel(),
                )
            continue
        common[name] = wider
    if warn:
        _warn_of_columns_some_lack(found, schemas, common)
    return pl.Schema(common)


def _warn_of_columns_some_lack(
    found: Sequence[Path], schemas: Sequence[pl.Schema], names: Iterable[str]
) -> None:
    """Warn of each of ``names`` that some files lack: it is null in their rows.

    A metric reading it would tell those rows as null, not why.
    """
    for name in names:
        lacking = [
            repr(str(p)) for p, schema in zip(found, schemas, strict=True) if name not in schema
        ]
        if lacking:
            warnings.warn(
                f"column {name!r} is not in {len(lacking):,} of the {len(found):,} files "
                f"({listed(lacking, 3)}): it is null in their rows",
                UserWarning,
                stacklevel=caller_stacklevel(),
            )


def _common_type(
    found: Sequence[Path], schemas: Sequence[pl.Schema], name: str
) -> pl.DataType | MetricsInputError:
    """The type every file holding column ``name`` can be read as, or why there is none."""
    held = [
        (path, schema[name]) for path, schema in zip(found, schemas, strict=True) if name in schema
    ]
    (source, common), *rest = held
    for path, dtype in rest:
        if dtype == common:
            continue
        wider = _widened(common, dtype)
        if wider is None:
            return MetricsInputError(
                f"column {name!r} is {common} in {str(source)!r} but {dtype} in "
                f"{str(path)!r}: the files must agree on its type"
            )
        if wider != common:
            common, source = wider, path
    return common


def columns_named(*options: object) -> list[str]:
    """The column names among options' values: names, and lists of names (``by``)."""
    listed = (o if isinstance(o, (list, tuple)) else [o] for o in options)
    return [name for names in listed for name in names if isinstance(name, str)]


def require_in_every_file(
    found: Sequence[Path],
    columns: Sequence[str],
    keys: Collection[str] = (),
    needs: str = "the columns the metrics read",
) -> None:
    """Refuse a column the metrics read that some files lack, or hold in another type.

    `scan` reads files of different columns as one table: a column some files lack is null
    in their rows, one of types that do not widen to one is left out; a metric reading it
    would then refuse null rows or a missing column, which would not say why. Columns no
    file holds are left to the column checks (which suggest close names). Of ``keys`` (the
    id, class and ``by`` columns), integers past 2**53 in one file beside floats in another
    are refused too: widened to floats, two of them could be one id.
    """
    refuse_named_twice(found, columns)
    if len(found) < 2 or not columns:
        return
    kind = file_format(found)
    if kind == "csv":  # (stacked with their types relaxed to common ones)
        found = [path for path in found if _has_rows(path)]
    schemas = _schemas(found, kind)
    folder_keys = set(_hive_values(found))
    for name in columns:
        holders = [name in schema for schema in schemas]
        if name in folder_keys or not any(holders):
            continue
        if not all(holders):
            lacking = found[holders.index(False)]
            raise MetricsInputError(
                f"column {name!r} is in some files of the table but not in "
                f"{str(lacking)!r}; every file needs {needs}"
            )
        if kind != "csv":
            wider = _common_type(found, schemas, name)
            if isinstance(wider, MetricsInputError):
                raise wider
        if name in keys:
            _refuse_keys_widened_apart(found, schemas, name, kind)


#: Integer types whose every value a Float64 holds exactly.
_EXACT_AS_FLOATS = (pl.Int8, pl.Int16, pl.Int32, pl.UInt8, pl.UInt16, pl.UInt32)


def _refuse_keys_widened_apart(
    found: Sequence[Path], schemas: Sequence[pl.Schema], name: str, kind: str
) -> None:
    """Refuse key column ``name`` whose values widen to other keys in other files.

    Float32 in some files, Float64 in others; integers past 2**53 in some, floats in others
    (only those files' column is read, and only where the types mix: ids of Int64 and of
    Float64, say).
    """
    held = [(path, schema[name]) for path, schema in zip(found, schemas, strict=True)]
    floats = [(path, dtype) for path, dtype in held if dtype.is_float()]
    if not floats:
        return
    widths = {dtype: path for path, dtype in floats}
    if len(widths) > 1:  # (a Float32 0.1 is another key than a Float64 file's: is_float32s)
        (narrow, narrow_path), (wider, wider_path) = sorted(widths.items(), key=lambda t: str(t[0]))
        wides = [p for p, t in floats if t == pl.Float64] if narrow == pl.Float32 else []
        if not wides or not all(
            _scan_alone(path, kind).select(is_float32s(name)).collect().item() for path in wides
        ):
            raise MetricsInputError(
                f"column {name!r} is {narrow} in {str(narrow_path)!r} but {wider} in "
                f"{str(wider_path)!r}: widened, a Float32 value such as 0.1 is another key "
                "than the Float64 one; write it as one type in every file"
            )
    wide = [(p, t) for p, t in held if t.is_integer() and t not in _EXACT_AS_FLOATS]
    for path, dtype in wide:
        if _scan_alone(path, kind).select(is_past_2_53(name)).collect().item():
            float_path, float_type = floats[0]
            raise MetricsInputError(
                f"column {name!r} is {dtype} in {str(path)!r}, with integers past 2**53, but "
                f"{float_type} in {str(float_path)!r}: read as floats, two such integers "
                "could be one value; write it as one type in every file"
            )


def _column_sets_differ(
    first: Path, first_names: set[str], other: Path, other_names: set[str]
) -> MetricsInputError:
    only = [(first, sorted(first_names - other_names)), (other, sorted(other_names - first_names))]
    text = "; ".join(f"only {str(path)!r} has {names}" for path, names in only if names)
    return MetricsInputError(
        f"files {str(first)!r} and {str(other)!r} have different columns: {text}"
    )


def _widened(left: pl.DataType, right: pl.DataType) -> pl.DataType | None:
    """The common type of two types, None if they have none.

    Numeric types widen as polars widens them; text and a categorical are read as text (a
    categorical's codes differ between files). A column of nulls only (of type Null, as a
    writer types a column it saw no value of) is read as the other type.
    """
    if left == pl.Null or right == pl.Null:
        return right if left == pl.Null else left
    if all(dtype == pl.String or type(dtype) is pl.Categorical for dtype in (left, right)):
        return pl.String()
    if not (left.is_numeric() and right.is_numeric()):
        return None
    scales = {d.scale if isinstance(d, pl.Decimal) else None for d in (left, right)}
    if len(scales) > 1:  # polars' scans cast a decimal to no other scale, nor a number to one
        return None
    both = [pl.DataFrame(schema={"x": left}), pl.DataFrame(schema={"x": right})]
    return pl.concat(both, how="vertical_relaxed").schema["x"]


#: The rows of a CSV file that its columns' types are guessed from (polars' default is 100:
#: hard 0/1 scores written as "1" and "0" in the first rows made a later "0.7" unreadable).
CSV_INFER_ROWS = 10_000


def _scan_one_csv(path: Path, **options: Any) -> pl.LazyFrame:
    """One CSV file, its types guessed from its first `CSV_INFER_ROWS` rows."""
    return pl.scan_csv(path, infer_schema_length=CSV_INFER_ROWS, glob=False, **options)


def _scan_csv(
    found: Sequence[Path], check_folders: bool, *, warn: bool = False, text: Collection[str] = ()
) -> pl.LazyFrame:
    """CSV files stacked (types relaxed to common ones), with their hive columns.

    ``warn``: of columns that some files lack (`scan`'s warning). ``text``: columns read as
    text (`scan_files`).
    """
    with_rows = [index for index, path in enumerate(found) if _has_rows(path)]
    if not with_rows:
        which = (
            f"file {str(found[0])!r} has no rows"
            if len(found) == 1
            else f"none of its {len(found)} CSV files has a row"
        )
        raise MetricsInputError(f"the table is empty: {which}")
    hive = _hive_values(found)
    kept = [found[index] for index in with_rows]
    checked = bool(hive) and check_folders
    # The files' own columns (each inferred from its first rows), read once for both uses.
    schemas = [_csv_schema(path) for path in kept] if checked or warn or len(kept) > 1 else []
    if checked:
        _check_folders(kept, "csv", schemas)

    def as_text(path: Path) -> dict[str, pl.DataType]:
        return {c: pl.String() for c in text if c in _csv_schema(path)} if text else {}

    frames = [
        _scan_one_csv(found[index], schema_overrides=as_text(found[index])).with_columns(
            pl.lit(values[index], dtype=values.dtype).alias(key) for key, values in hive.items()
        )
        for index in with_rows
    ]
    if len(kept) > 1:
        schemas = [s | as_text(path) for s, path in zip(schemas, kept, strict=True)]
        frames = _typed_empty_columns(frames, schemas)
    if warn:
        _warn_of_columns_some_lack(kept, schemas, dict.fromkeys(n for s in schemas for n in s))
        for path in kept:  # (refused by score() where a metric reads the name)
            if twice := _named_twice(path):
                warnings.warn(
                    _named_twice_error(path, twice), UserWarning, stacklevel=caller_stacklevel()
                )
    return pl.concat(frames, how="diagonal_relaxed")


def _typed_empty_columns(
    frames: list[pl.LazyFrame], schemas: list[pl.Schema]
) -> list[pl.LazyFrame]:
    """The files' columns of no value typed as the other files type them.

    polars reads a column of empty fields as text: stacked with files of numbers, the whole
    column was text ("numbers held as text", where its nulls are the problem), where a
    parquet file's column of nulls takes the others' type. Only such columns are read.
    """
    typed: dict[str, set[pl.DataType]] = {}
    for schema in schemas:
        for name, dtype in schema.items():
            if dtype != pl.String:
                typed.setdefault(name, set()).add(dtype)
    # The one type the others give, or Float64 of several numbers (Int64 in one, Float64 in
    # another), as polars stacks them.
    common = {
        name: next(iter(types)) if len(types) == 1 else pl.Float64()
        for name, types in typed.items()
        if len(types) == 1 or all(t.is_numeric() for t in types)
    }
    kept = []
    for frame, schema in zip(frames, schemas, strict=True):
        text = [n for n, dtype in schema.items() if dtype == pl.String and n in common]
        if text:
            held = frame.select(pl.col(text).is_not_null().any()).collect()
            empty = [n for n in text if not held[n].item()]
            frame = frame.with_columns(pl.col(n).cast(common[n]) for n in empty)
        kept.append(frame)
    return kept


def _refuse_unread_text(path: Path) -> None:
    """Refuse a CSV file of text polars reads garbled: UTF-16 (or UTF-32), or CR lines.

    A spreadsheet's "Unicode text" is UTF-16: its names came out as '\ufffd\ufffdr o w'.
    Lines that end in a CR alone (old Mac files) are one line to polars: a header of every
    value.
    """
    try:
        with path.open("rb") as file:
            start = file.read(1 << 16)
        zipped = start.startswith(b"\x1f\x8b")
        if zipped:  # a .csv.gz: its text's start
            with gzip.open(path, "rb") as file:
                start = file.read(1 << 16)
    except (OSError, EOFError):  # (polars' own read tells it)
        return
    # A dump of another format named .csv (oof.csv holding parquet): no text at all, and
    # bytes 0 early on (a header 'PAR1,...' is text).
    binary = b"\x00" in start[:64]
    name = path.name[: -len(".gz")] if zipped and path.name.endswith(".gz") else path.name
    if binary and start.startswith(b"\xff\xff\xff\xff"):  # (an IPC stream's marker)
        raise MetricsInputError(
            f"file {str(path)!r} is an Arrow IPC stream, not CSV, whatever its name says; "
            "convert it to parquet first: python -c "
            + shlex.quote(
                f"import polars as pl; pl.read_ipc_stream({str(path)!r})"
                f".write_parquet({str(path.with_name(Path(name).stem + '.parquet'))!r})"
            )
        )
    for magic, kind, suffix in (
        (b"PAR1", "parquet", ".parquet"),
        (b"ARROW1", "Arrow IPC", ".arrow"),
    ):
        if binary and start.startswith(magic):
            fix = "decompress it as" if zipped else "rename it"
            raise MetricsInputError(
                f"file {str(path)!r} is {kind}, not CSV, whatever its name says: {fix} "
                f"{Path(name).stem}{suffix}"
            )
    if start.startswith((b"\xff\xfe", b"\xfe\xff")) or binary:
        raise MetricsInputError(
            f"file {str(path)!r}: text of two or four bytes a character (UTF-16, as a "
            "spreadsheet's 'Unicode text' saves it), which polars does not read; save the "
            "file as UTF-8 (a spreadsheet's 'CSV UTF-8')"
        )
    if b"\r" in start and b"\n" not in start:
        raise MetricsInputError(
            f"file {str(path)!r}: its lines end in a carriage return alone (an old Mac "
            "file), which polars reads as one line; save it with LF (or CRLF) line endings"
        )


def _csv_schema(path: Path) -> pl.Schema:
    """A CSV file's columns as inferred, once (an inference reads `CSV_INFER_ROWS` rows)."""
    return pl.Schema(_inferred_csv_schema(path))  # (a copy: the kept one stays as read)


@_kept_per_file
def _inferred_csv_schema(path: Path) -> pl.Schema:
    """`_csv_schema`'s read."""
    return _scan_one_csv(path).collect_schema()


@_kept_per_file
def _has_rows(path: Path) -> bool:
    """Whether a CSV file holds a row below its header (reads its first lines only)."""
    _refuse_unread_text(path)
    try:
        first = _scan_one_csv(path, raise_if_empty=False).head(1).collect()
    except (pl.exceptions.PolarsError, OSError) as error:  # (OSError: a cut gzip stream)
        hint = ""
        if "more fields than defined" in str(error) and path.suffix.lower() == ".csv":
            with path.open(encoding="utf-8", errors="replace") as file:
                header = file.readline()
            separator = next(
                (s for s in (";", "\t", "|") if s in header and "," not in header), None
            )
            if separator is not None:  # (a comma in its rows: a decimal comma, say)
                hint = (
                    f"; its header is separated by {separator!r} (its commas decimal?): save it "
                    f"with ',' between fields, or score pl.scan_csv({str(path)!r}, "
                    f"separator={separator!r}, decimal_comma=True, "
                    f"infer_schema_length={CSV_INFER_ROWS})"
                )
        # (That hint is the file's own: not also the general one of decimal commas.)
        told = reader_error(error, scanned=True, hints=not hint)
        raise MetricsInputError(f"cannot read file {str(path)!r}: {told}{hint}") from error
    return first.height > 0


@_kept_per_file
def _named_twice(path: Path) -> list[str]:
    """The names a CSV file's header gives two columns.

    polars reads the second as ``name_duplicated_0``, beside the first: a metric would read
    the first alone. Read as names again, to tell a header's own 'x_duplicated_0' from
    polars'; empty names, a spreadsheet's trailing columns, are not named twice.
    """
    first = _scan_one_csv(path, raise_if_empty=False).head(0).collect()
    if not any(re.fullmatch(r".*_duplicated_\d+", name) for name in first.columns):
        return []
    names_row = _scan_one_csv(path, has_header=False, infer_schema=False).head(1).collect()
    names = [name for name in names_row.row(0) if name]
    return [name for name, times in Counter(names).items() if times > 1]


def refuse_named_twice(found: Sequence[Path], columns: Collection[str]) -> None:
    """Refuse CSV files whose header names one of ``columns`` twice (`_named_twice`)."""
    for path in found if found and file_format(found) == "csv" else ():
        twice = [name for name in _named_twice(path) if name in columns]
        if twice:
            raise MetricsInputError(_named_twice_error(path, twice))


def _named_twice_error(path: Path, names: Sequence[str]) -> str:
    return (
        f"file {str(path)!r}: its header names {listed([repr(n) for n in names], 3)} twice "
        f"(polars reads the second as {names[0] + '_duplicated_0'!r}); give each column its "
        "own name"
    )


def _check_folder_keys(found: Sequence[Path]) -> None:
    """Refuse files under different ``key=`` folders (``model=a/fold=0/`` and ``model=b/``).

    Polars reads hive partitions only when every file has the same keys (in any order).
    """
    layouts = [frozenset(_hive_parts(path)) for path in found]
    if len(set(layouts)) < 2:
        return
    first = found[0]
    other = next(path for path, keys in zip(found, layouts, strict=True) if keys != layouts[0])

    def keys(path: Path) -> str:
        names = tuple(_hive_parts(path))
        return "/".join(f"{k}=" for k in names) if names else "no key= folder"

    # (A value holding '=' makes no key=value folder, for polars either: of the two files'
    # folders, those they do not share.)
    apart = set(first.parent.parts) ^ set(other.parent.parts)
    for part in (part for path in (first, other) for part in path.parent.parts):
        if part in apart and re.fullmatch(r"[^=]+=.*=.*", part):
            key, value = part.split("=", 1)
            raise MetricsInputError(
                f"folder {part!r}: its value holds '=', which makes no key= folder; write "
                f"it as %3D ({key}={quote(value, safe='')})"
            )
    raise MetricsInputError(
        f"files {str(first)!r} and {str(other)!r} lie in different key= folders "
        f"({keys(first)}; {keys(other)}); hive partitions need the same keys above every "
        "file"
    )


def _check_folders(found: Sequence[Path], kind: str, schemas: Sequence[pl.Schema]) -> None:
    """The hive folders' checks: the files' own key columns, the keys, their spellings."""
    hive = _hive_values(found)  # (folder names typed once, for the two that read them)
    _check_folder_values(found, kind, schemas, hive)
    _check_folder_keys(found)
    # CSV files' own columns are typed file by file and replaced by the folders' values
    # (typed over all folders), so only the folders' own typing can merge two spellings.
    _check_folder_spellings(found, [] if kind == "csv" else schemas, hive)


def _check_folder_spellings(
    found: Sequence[Path], schemas: Sequence[pl.Schema], hive: dict[str, pl.Series]
) -> None:
    """Refuse two folders that read as one partition (``fold=01`` and ``fold=1``).

    Folder names are typed as polars types them (as the files' own column of the key, if
    they have one): both are the integer 1, and the two partitions would be scored as one
    group, silently. A partition is every key's value: ``model=a/fold=01`` beside
    ``model=b/fold=1`` are two.
    """
    parts = [_hive_parts(path) for path in found]
    keys = list(hive.items())
    typed: list[pl.Series] = []
    spelt: list[pl.Series] = []
    for key, inferred in keys:
        texts = [part.get(key) for part in parts]
        names = [None if t in (None, "", _HIVE_NULL) else unquote(t) for t in texts]
        # (The type the files' columns widen to: the first file's may be narrower, say
        # Int8 beside Int16, and read other folders' names as nulls. None: none holds it,
        # or their types do not widen to one.)
        common = _common_type(found, schemas, key) if any(key in s for s in schemas) else None
        held = common if isinstance(common, pl.DataType) else None
        spelt.append(pl.Series(names, dtype=pl.String))
        typed.append(inferred if held is None else _as_type(spelt[-1], held))
    first: dict[tuple[object, ...], tuple[object, ...]] = {}
    for index in range(len(found)):
        values = tuple(column[index] for column in typed)
        written = tuple(column[index] for column in spelt)
        seen = first.setdefault(values, written)
        if seen != written:
            k = next(k for k, (a, b) in enumerate(zip(seen, written, strict=True)) if a != b)
            key, dtype = keys[k][0], typed[k].dtype
            raise MetricsInputError(
                f"folders {key}={seen[k]} and {key}={written[k]} both read as {key} "
                f"{values[k]!r} ({dtype}): their rows would be one group; rename the folders "
                "to one spelling each"
            )


def _check_folder_values(
    found: Sequence[Path], kind: str, schemas: Sequence[pl.Schema], hive: dict[str, pl.Series]
) -> None:
    """Refuse files whose own column of a folder key holds another value than the folder.

    The folder's value replaces the column (as polars reads hive partitions): a file moved
    into the wrong folder would be scored as that folder's, silently. Parquet statistics
    answer without reading, when they hold one value; else the column is read.
    """
    wrong: dict[str, list[str]] = {}
    for index, (path, schema) in enumerate(zip(found, schemas, strict=True)):
        parts = _hive_parts(path)
        for key, folders in hive.items():
            if key not in schema:
                continue
            # Compared in the file column's type, the folder name read as polars reads it
            # there ("007" is 7 for an integer column, "007" for a string one).
            dtype = schema[key]
            text = parts.get(key)
            folder = None if text in (None, "", _HIVE_NULL) else unquote(text)
            expected = _as_type(pl.Series([folder], dtype=pl.String), dtype)[0]
            held = _as_type(_held_values(path, kind, key), dtype)
            other = held.filter(held.ne_missing(expected))
            if other.len():
                where = (
                    f"in its folder {key}={folders[index]!r}"
                    if key in parts
                    else f"outside any {key}= folder"
                )
                wrong.setdefault(key, []).append(f"{str(path)!r} holds {other[0]!r} {where}")
    for key, files_ in wrong.items():
        raise MetricsInputError(
            f"column {key!r}: {len(files_):,} {'file holds' if len(files_) == 1 else 'files hold'} "
            f"other values than their folder's {key}=... (e.g. {files_[0]}); the folder's "
            "value would replace them: move the files, or rename the column (key= folders "
            "in the path given, above a file, are read as its columns: to read a file "
            "without them, "
            "score pl.scan_parquet(file), a LazyFrame)"
        )


def _as_type(values: pl.Series, dtype: pl.DataType) -> pl.Series:
    """``values`` in ``dtype``, null where they do not convert.

    Text is parsed as polars parses CSV fields (dates too); categories go through text.
    """
    try:
        if values.dtype == pl.String and (dtype.is_temporal() or dtype == pl.Boolean):
            frame = pl.DataFrame({"v": values})
            table = io.StringIO(frame.write_csv())
            values = pl.read_csv(table, schema={"v": dtype}, ignore_errors=True)["v"]
        if dtype == pl.String or is_categorical(dtype):
            values = values.cast(pl.String)
        converted: pl.Series = values.cast(dtype, strict=False)
    except pl.exceptions.PolarsError:  # a conversion polars does not do: no value agrees
        converted = pl.Series(values.name, [None] * len(values), dtype=dtype)
    return converted


def _held_values(path: Path, kind: str, column: str) -> pl.Series:
    """The distinct values of ``column`` in one file.

    From parquet statistics when they hold a single value (no nulls, no float: writers
    leave NaN out of a float column's min and max), else read.
    """
    if kind == "parquet":
        import pyarrow.parquet as pq

        # Unreadable metadata, a date past year 9999 (no Python value: OverflowError): read
        # the values.
        try:
            stats = _column_statistics(pq.ParquetFile(path).metadata, column)
            bounds = set() if stats is None else {v for s in stats for v in (s.min, s.max)}
        except (NotImplementedError, ValueError, OSError, OverflowError):
            stats = None
        if stats is not None:
            nulls = sum(s.null_count for s in stats if s.has_null_count)
            if len(bounds) == 1 and not nulls and not isinstance(min(bounds), float):
                return pl.Series([bounds.pop()])
    return _scan_alone(path, kind).select(pl.col(column).unique()).collect()[column]


def _hive_parts(path: Path) -> dict[str, str]:
    """The ``key=value`` folder names above a file, outermost first (values as written)."""
    pairs = (part.split("=", 1) for part in path.parent.parts if re.fullmatch(r"[^=]+=[^=]*", part))
    return dict(pairs)


def _hive_values(found: Sequence[Path]) -> dict[str, pl.Series]:
    """Each hive key's values, one per file, typed as polars types hive-partitioned parquet.

    Polars infers a hive column's type from its folder names as CSV inference types fields
    (integers Int64, then Float64, booleans, dates, else String); the values are read
    through that same inference, percent-decoded, with Hive's null folder name as null.
    """
    parts = [_hive_parts(path) for path in found]
    keys = dict.fromkeys(key for part in parts for key in part)
    out = {}
    for key in keys:
        texts = [part.get(key) for part in parts]
        values = [None if t in (None, "", _HIVE_NULL) else unquote(t) for t in texts]
        out[key] = _inferred(values).alias(key)
    return out


def _inferred(texts: Sequence[str | None]) -> pl.Series:
    """``texts`` typed by polars' CSV type inference, the one that types hive folder names."""
    cells = ["" if t is None else '"' + t.replace('"', '""') + '"' for t in texts]
    table = io.StringIO("".join(f"{cell},\n" for cell in ["value", *cells]))
    return pl.read_csv(table, infer_schema_length=None, try_parse_dates=True)["value"]


def _is_hive(found: Sequence[Path]) -> bool:
    return any(_hive_parts(p) for p in found)


def row_group_ranges(files: Sequence[Path], id_col: str) -> list[tuple[Any, Any, int]] | None:
    """(min id, max id, rows) of every parquet row group, or None without statistics."""
    import pyarrow.parquet as pq

    ranges = []
    for path in files:
        try:
            meta = pq.ParquetFile(path).metadata
        except NotImplementedError:  # a type Arrow cannot read, as Int128: no statistics
            return None
        stats = _column_statistics(meta, id_col)
        if stats is None:
            return None
        try:  # (a date past year 9999 has no Python value)
            bounds = [(group.min, group.max) for group in stats]
        except (OverflowError, ValueError):
            return None
        ranges += [(lo, hi, meta.row_group(g).num_rows) for g, (lo, hi) in enumerate(bounds)]
    return ranges


#: The most id ranges `batch_ranges` gives: consecutive batches are joined past it (the
#: planner's work grows with the ranges squared).
MAX_BATCH_RANGES = 256


def batch_ranges(dataset: Any, id_col: str) -> list[tuple[Any, Any, int]] | None:
    """(min id, max id, rows) of a ``pyarrow.dataset.Dataset``'s batches, or None.

    What `row_group_ranges` gives of parquet files, for a dataset of any format: read from
    its id column alone, a batch at a time. None where Arrow has no minimum of the ids (a
    dictionary's) or Python no value of one (a date past year 9999).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    ranges: list[tuple[Any, Any, int]] = []
    try:
        for batch in dataset.to_batches(columns=[id_col]):
            bounds = pc.min_max(batch.column(0))
            if bounds["min"].is_valid:  # (a batch of null ids only: the first chunk's)
                ranges.append((bounds["min"].as_py(), bounds["max"].as_py(), batch.num_rows))
    except (pa.ArrowNotImplementedError, OverflowError, ValueError):
        return None
    if not ranges:  # (null ids only: the checks tell them)
        return None
    size = math.ceil(len(ranges) / MAX_BATCH_RANGES)
    joined = [ranges[k : k + size] for k in range(0, len(ranges), size)]
    return [(min(r[0] for r in j), max(r[1] for r in j), sum(r[2] for r in j)) for j in joined]


def _column_statistics(meta: Any, column: str) -> list[Any] | None:
    """Each row group's min/max statistics of ``column`` in a parquet file's metadata.

    None when a row group has none, or the file has no such column (a hive column): a
    struct's field of that name has a longer path, and is not it. None too where they are
    no values polars compares the column's with: a half float's (raw bytes), a duration's
    in seconds (integers, where polars reads milliseconds: cuts a thousand times too low).
    """
    import pyarrow as pa

    paths = [meta.schema.column(i).path for i in range(meta.num_columns)]
    if column not in paths:
        return None
    index = paths.index(column)
    if meta.schema.column(index).logical_type.type == "FLOAT16":
        return None
    arrow_type = meta.schema.to_arrow_schema().field(column).type
    if pa.types.is_duration(arrow_type) and arrow_type.unit == "s":
        return None
    stats = [meta.row_group(g).column(index).statistics for g in range(meta.num_row_groups)]
    return stats if all(s is not None and s.has_min_max for s in stats) else None
