from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

def pair_counts(
    starts: npt.NDArray[np.int64],
    score: npt.NDArray[np.floating[Any]],
    is_f32: bool,
    truth: npt.NDArray[np.bool_],
    rank: npt.NDArray[np.int64],
    pos_rank: npt.NDArray[np.int64],
    prec: npt.NDArray[np.float64],
    neg_above: npt.NDArray[np.float64],
    max_rank: npt.NDArray[np.float64],
    /,
) -> None: ...
def ndcg_sums(
    starts: npt.NDArray[np.int64],
    score: npt.NDArray[np.floating[Any]],
    is_f32: bool,
    truth: npt.NDArray[np.bool_],
    discounts: npt.NDArray[np.float64],
    k: int,
    dcg: npt.NDArray[np.float64],
    ideal: npt.NDArray[np.float64],
    /,
) -> None: ...
def run_sums(
    starts: npt.NDArray[np.int64],
    base: int,
    truth: npt.NDArray[np.bool_],
    pred: npt.NDArray[np.bool_],
    classes: npt.NDArray[np.integer[Any]],
    kind: str,
    low: int,
    hash_of: npt.NDArray[np.uint64],
    firsts: npt.NDArray[np.int64],
    run0: int,
    npos: npt.NDArray[np.int64],
    hash_sum: npt.NDArray[np.uint64],
    class_rows: npt.NDArray[np.int64],
    seg_counts: npt.NDArray[np.int64],
    seg_hashes: npt.NDArray[np.uint64],
    of_run: npt.NDArray[np.int64],
    n_groups: int,
    weight: npt.NDArray[np.float64],
    class_weights: npt.NDArray[np.float64],
    /,
) -> None: ...
def change_rows(
    values: npt.NDArray[Any], width: int, out: npt.NDArray[np.int64], order: str = ..., /
) -> tuple[int, int]: ...
def curve_counts(
    stretches: Sequence[
        tuple[
            npt.NDArray[np.int64],
            int,
            npt.NDArray[np.integer[Any]],
            npt.NDArray[np.floating[Any]],
            npt.NDArray[np.bool_],
        ]
        | tuple[
            npt.NDArray[np.int64],
            int,
            npt.NDArray[np.integer[Any]],
            npt.NDArray[np.floating[Any]],
            npt.NDArray[np.bool_],
            npt.NDArray[np.float64],
        ]
    ],
    firsts: npt.NDArray[np.int64],
    kind: str,
    is_f32: bool,
    most: int,
    code_from: int = ...,
    code_to: int = ...,
    columns: Sequence[npt.NDArray[Any]] = ...,
    /,
) -> bytes | None: ...
def curve_areas(
    starts: npt.NDArray[np.int64],
    score: npt.NDArray[np.floating[Any]],
    is_f32: bool,
    pos: npt.NDArray[np.float64],
    neg: npt.NDArray[np.float64],
    roc: bool,
    area: npt.NDArray[np.float64],
    pos_sum: npt.NDArray[np.float64],
    neg_sum: npt.NDArray[np.float64],
    pos_scale: npt.NDArray[np.float64],
    neg_scale: npt.NDArray[np.float64],
    /,
) -> bool: ...
def sums_from_last(
    starts: npt.NDArray[np.int64],
    columns: Sequence[npt.NDArray[np.float64]],
    out: npt.NDArray[np.float64],
    /,
) -> None: ...
def kahan_bincount(
    number: npt.NDArray[np.int64], values: npt.NDArray[np.float64], out: npt.NDArray[np.float64], /
) -> None: ...
