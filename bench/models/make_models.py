#!/usr/bin/python3
"""Writes one of the bench's generated models, 3 classes each:

    /usr/bin/python3 bench/models/make_models.py large OUT_DIR     # 200,000 features, 1-2 grams, sublinear tf
    /usr/bin/python3 bench/models/make_models.py unigram OUT_DIR   # 17,000 features, unigrams

Trained on rt-polarity (negative/positive), the objective half of subjectivity (neutral)
and sentiment-labelled-sentences, from ../shared/data; saved as OUT_DIR/tfidf_vectorizer.pkl
and OUT_DIR/final_best_model.pkl.
"""
import json
import os
import pickle
import sys

from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "..", "shared", "data")


def rows(name):
    return [json.loads(line) for line in open(os.path.join(DATA, name, f"{name}.jsonl"), encoding="utf-8")]


def main():
    kind, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    texts, labels = [], []
    for r in rows("rt-polarity"):
        texts.append(r["text"])
        labels.append(r["label"])
    for r in rows("subjectivity"):
        if r["label"] == "objective":
            texts.append(r["text"])
            labels.append("neutral")
    for r in rows("sentiment-labelled-sentences"):
        texts.append(r["text"])
        labels.append(r["label"])
    if kind == "large":
        vec = TfidfVectorizer(ngram_range=(1, 2), max_features=200000, sublinear_tf=True)
    else:
        vec = TfidfVectorizer(max_features=17000)
    clf = LogisticRegression(max_iter=1000).fit(vec.fit_transform(texts), labels)
    del vec.stop_words_
    with open(os.path.join(out, "tfidf_vectorizer.pkl"), "wb") as f:
        pickle.dump(vec, f, protocol=4)
    with open(os.path.join(out, "final_best_model.pkl"), "wb") as f:
        pickle.dump(clf, f, protocol=4)
    print(json.dumps({"features": len(vec.vocabulary_), "classes": [str(c) for c in clf.classes_]}))


if __name__ == "__main__":
    main()
