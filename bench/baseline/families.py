"""scikit-learn's own speed on one core for fixture models of every family, on the texts of
a JSON file: batches of 50 and single calls, each transform + predict_proba (or
decision_function when the model has no predict_proba, or predict for hard voting).

    PYTHON bench/baseline/families.py CASES.json TEXTS.json SECONDS

CASES.json: [{"name": ..., "files": [vectorizer files..., model file]}]. Prints one JSON
object per case: {"name", "batch50_texts_per_s", "single_texts_per_s", "labels"}, labels
being its predictions for the first 20 texts (the bench checks ours against them).
"""
import json
import pickle
import sys
import time
import warnings

import joblib

warnings.filterwarnings("ignore")


def load(path):
    return joblib.load(path) if path.endswith(".joblib") else pickle.load(open(path, "rb"))


def scorer(model):
    for name in ("predict_proba", "decision_function"):
        try:
            getattr(model, name)
            return getattr(model, name)
        except AttributeError:
            pass
    return model.predict


def timed(fn, texts, size, budget):
    fn(texts[:size])
    done, started = 0, time.perf_counter()
    while True:
        for i in range(0, len(texts), size):
            fn(texts[i:i + size])
        done += len(texts)
        elapsed = time.perf_counter() - started
        if elapsed >= budget:
            return done / elapsed


def main():
    cases = json.load(open(sys.argv[1]))
    texts = json.load(open(sys.argv[2], encoding="utf-8"))
    budget = float(sys.argv[3])
    for case in cases:
        stages = [load(f) for f in case["files"]]
        model = stages[-1]
        score = scorer(model)

        def run(batch):
            X = batch
            for stage in stages[:-1]:
                X = stage.transform(X)
            return score(X)

        labels = stages[:-1]
        X = texts[:20]
        for stage in labels:
            X = stage.transform(X)
        out = {"name": case["name"], "labels": [str(c) for c in model.predict(X)],
               "batch50_texts_per_s": timed(run, texts, 50, budget),
               "single_texts_per_s": timed(run, texts[:200], 1, budget)}
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
