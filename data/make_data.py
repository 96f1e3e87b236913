"""Make the prediction dumps in data/ from scikit-learn's bundled digits images.

Run from the repository root: ``python data/make_data.py``. Deterministic (fixed seeds).

* ``digits_oof.parquet``: out-of-fold class probabilities of four models on the 1,797 digits
  images (10 classes), 5 stratified folds: one row per (model, fold, id, class).
* ``digits_properties_oof.parquet``: a multi-label problem on the same images: six properties
  of the digit shown (even, prime, ...), scored by two one-vs-rest models, 5 folds.

It also prints the expected metric values (computed with scikit-learn) for data/README.md.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
from sklearn.datasets import load_digits
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import label_ranking_average_precision_score, log_loss
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.multioutput import MultiOutputClassifier
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

HERE = Path(__file__).parent
PROPERTIES = {
    "even": [0, 2, 4, 6, 8],
    "prime": [2, 3, 5, 7],
    "five_or_more": [5, 6, 7, 8, 9],
    "closed_loop": [0, 4, 6, 8, 9],
    "square": [0, 1, 4, 9],
    "fibonacci": [0, 1, 2, 3, 5, 8],
}


def long_format(
    model: str, fold: int, ids: np.ndarray, classes: list[str], score: np.ndarray, truth: np.ndarray
) -> pl.DataFrame:
    n_ids, n_classes = score.shape
    return pl.DataFrame(
        {
            "model": [model] * (n_ids * n_classes),
            "fold": np.full(n_ids * n_classes, fold, dtype=np.int8),
            "id": np.repeat(ids, n_classes).astype(np.int32),
            "class": classes * n_ids,
            "score": score.reshape(-1),
            "truth": truth.reshape(-1).astype(bool),
        }
    )


def digits_oof(x: np.ndarray, y: np.ndarray) -> pl.DataFrame:
    models = {
        "logreg": make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, C=0.1)),
        "forest": RandomForestClassifier(n_estimators=100, random_state=0),
        "knn": KNeighborsClassifier(n_neighbors=10),
        "naive_bayes": GaussianNB(),
    }
    classes = [str(c) for c in range(10)]
    onehot = np.eye(10, dtype=bool)[y]
    parts = []
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
    for fold, (train, test) in enumerate(folds.split(x, y)):
        for name, model in models.items():
            score = model.fit(x[train], y[train]).predict_proba(x[test])
            parts.append(long_format(name, fold, test, classes, score, onehot[test]))
    return pl.concat(parts)


def properties_oof(x: np.ndarray, y: np.ndarray) -> pl.DataFrame:
    labels = np.array([[d in digits for digits in PROPERTIES.values()] for d in y])
    models = {
        "logreg": make_pipeline(
            StandardScaler(), MultiOutputClassifier(LogisticRegression(max_iter=2000))
        ),
        "forest": RandomForestClassifier(n_estimators=100, random_state=0),
    }
    parts = []
    for fold, (train, test) in enumerate(KFold(5, shuffle=True, random_state=0).split(x)):
        for name, model in models.items():
            probas = model.fit(x[train], labels[train]).predict_proba(x[test])
            score = np.column_stack([p[:, 1] for p in probas])
            parts.append(long_format(name, fold, test, list(PROPERTIES), score, labels[test]))
    return pl.concat(parts)


def expected_values(df: pl.DataFrame, multiclass: bool) -> None:
    """Print scikit-learn's values per model (all folds pooled) for data/README.md."""
    for (model,), rows in df.sort("id", "class").group_by("model", maintain_order=True):
        n_classes = rows["class"].n_unique()
        truth = rows["truth"].to_numpy().reshape(-1, n_classes)
        score = rows["score"].to_numpy().reshape(-1, n_classes)
        line = f"| {model} | {label_ranking_average_precision_score(truth, score):.6f} |"
        if multiclass:
            line += f" {log_loss(truth.argmax(axis=1), score, labels=range(10)):.6f} |"
        print(line)


def main() -> None:
    x, y = load_digits(return_X_y=True)
    digits = digits_oof(x, y)
    digits.write_parquet(HERE / "digits_oof.parquet", compression="zstd")
    properties = properties_oof(x, y)
    properties.write_parquet(HERE / "digits_properties_oof.parquet", compression="zstd")
    print("digits_oof: model | lrap | log_loss")
    expected_values(digits, multiclass=True)
    print("digits_properties_oof: model | lrap")
    expected_values(properties, multiclass=False)


if __name__ == "__main__":
    main()
