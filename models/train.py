#!/usr/bin/python3
"""Trains the default model: TfidfVectorizer + LogisticRegression on rt-polarity.

    /usr/bin/python3 models/train.py

Reads ../shared/data/rt-polarity (beside the clone), holds out 20% (stratified, seed 0)
to measure accuracy, then refits on everything and writes tfidf_vectorizer.pkl and
final_best_model.pkl here with pickle protocol 4, as a notebook would, plus
training.json with the figures models/README.md quotes.
"""
import json
import os
import pickle
import sys

import numpy as np
import scipy
import sklearn
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "shared", "data", "rt-polarity", "rt-polarity.jsonl")

VECTORIZER = dict(ngram_range=(1, 2), min_df=2, sublinear_tf=True)
CLASSIFIER = dict(C=4.0, max_iter=1000)


def main():
    rows = [json.loads(line) for line in open(DATA, encoding="utf-8")]
    texts = [r["text"] for r in rows]
    labels = [r["label"] for r in rows]
    x_train, x_test, y_train, y_test = train_test_split(texts, labels, test_size=0.2, stratify=labels, random_state=0)
    vec = TfidfVectorizer(**VECTORIZER)
    clf = LogisticRegression(**CLASSIFIER).fit(vec.fit_transform(x_train), y_train)
    accuracy = accuracy_score(y_test, clf.predict(vec.transform(x_test)))

    vec = TfidfVectorizer(**VECTORIZER)
    clf = LogisticRegression(**CLASSIFIER).fit(vec.fit_transform(texts), labels)
    # stop_words_ lists the terms min_df cut; transform never reads it, and it is half the file.
    del vec.stop_words_
    with open(os.path.join(HERE, "tfidf_vectorizer.pkl"), "wb") as f:
        pickle.dump(vec, f, protocol=4)
    with open(os.path.join(HERE, "final_best_model.pkl"), "wb") as f:
        pickle.dump(clf, f, protocol=4)
    info = {
        "data": "rt-polarity (Pang & Lee sentence polarity v1.0), 10,662 snippets, CC BY 4.0",
        "vectorizer": {k: list(v) if isinstance(v, tuple) else v for k, v in VECTORIZER.items()},
        "classifier": CLASSIFIER,
        "features": len(vec.vocabulary_),
        "classes": [str(c) for c in clf.classes_],
        "held_out_accuracy": round(float(accuracy), 4),
        "held_out": len(x_test),
        "versions": {"python": sys.version.split()[0], "sklearn": sklearn.__version__, "numpy": np.__version__, "scipy": scipy.__version__},
    }
    with open(os.path.join(HERE, "training.json"), "w") as f:
        json.dump(info, f, indent=2)
        f.write("\n")
    print(json.dumps(info, indent=2))


if __name__ == "__main__":
    main()
