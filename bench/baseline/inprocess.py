"""scikit-learn's own speed on one core: transform + predict_proba of the texts in a JSON file.

    /usr/bin/python3 bench/baseline/inprocess.py VECTORIZER MODEL TEXTS.json SECONDS

Prints {"batch50": {...}, "single": {...}, "labels": [...]}: texts/s and MB/s for calls of 50
texts at a time (how a batching service calls it) and of one text at a time (the single-text
endpoint), each for SECONDS; "labels" are its predictions for the first 20 texts, which the
bench checks ours against.
"""
import json
import pickle
import sys
import time


def measure(vec, clf, texts, size, per_call, budget):
    done, started = 0, time.perf_counter()
    while True:
        for start in range(0, len(texts), per_call):
            clf.predict_proba(vec.transform(texts[start:start + per_call]))
        done += 1
        elapsed = time.perf_counter() - started
        if elapsed >= budget:
            break
    return {"texts_per_s": done * len(texts) / elapsed, "mb_per_s": done * size / elapsed / 1e6}


def main():
    vec = pickle.load(open(sys.argv[1], "rb"))
    clf = pickle.load(open(sys.argv[2], "rb"))
    texts = json.load(open(sys.argv[3], encoding="utf-8"))
    budget = float(sys.argv[4])
    size = sum(len(t.encode("utf-8")) for t in texts)
    clf.predict_proba(vec.transform(texts[:10]))
    out = {"batch50": measure(vec, clf, texts, size, 50, budget), "single": measure(vec, clf, texts, size, 1, budget)}
    out["labels"] = [str(c) for c in clf.predict(vec.transform(texts[:20]))]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
