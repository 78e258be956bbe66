"""scikit-learn's own speed on one core: transform + predict_proba of the texts in a JSON file.

    /usr/bin/python3 bench/baseline/inprocess.py VECTORIZER MODEL TEXTS.json SECONDS

Prints {"texts_per_s", "mb_per_s", "calls", "labels"} for whole-list calls (scikit-learn's best
case); "labels" are its predictions for the first 20 texts, which the bench checks ours against.
"""
import json
import pickle
import sys
import time


def main():
    vec = pickle.load(open(sys.argv[1], "rb"))
    clf = pickle.load(open(sys.argv[2], "rb"))
    texts = json.load(open(sys.argv[3], encoding="utf-8"))
    budget = float(sys.argv[4])
    size = sum(len(t.encode("utf-8")) for t in texts)
    clf.predict_proba(vec.transform(texts[:10]))
    calls, started = 0, time.perf_counter()
    while True:
        clf.predict_proba(vec.transform(texts))
        calls += 1
        elapsed = time.perf_counter() - started
        if elapsed >= budget:
            break
    labels = [str(c) for c in clf.predict(vec.transform(texts[:20]))]
    print(json.dumps({"texts_per_s": calls * len(texts) / elapsed, "mb_per_s": calls * size / elapsed / 1e6, "calls": calls, "labels": labels}))


if __name__ == "__main__":
    main()
