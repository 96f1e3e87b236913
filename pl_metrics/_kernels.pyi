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
