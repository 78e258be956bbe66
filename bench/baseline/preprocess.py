"""The apps' own Python speed: their cleaning, then scikit-learn, on one core.

    /usr/bin/python3 bench/baseline/preprocess.py APP TEXTS.json SECONDS

APP is a folder name of test/fixtures/apps/1.2.1; its cleaning is the very function the
fixture generator (test/fixtures/apps/generate.py) ran to make the app. Prints
{"clean": texts/s of the cleaning alone, "batch50": texts/s of clean + transform +
predict_proba (decision_function without it) in calls of 50, "single": the same one text at a time, "fed": the cleaned
first 20 texts, which the bench checks ours against}.
"""
import json
import os
import sys

import joblib

from timing import load_module, timed  # bench/baseline/timing.py, beside this file

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
APPS = os.path.join(ROOT, "test", "fixtures", "apps")


def load_generator():
    return load_module(os.path.join(APPS, "generate.py"), "apps_generate")


def main():
    name, texts_file, budget = sys.argv[1], sys.argv[2], float(sys.argv[3])
    generate = load_generator()
    generate.nltk_data_dir()
    spec = next(a for a in generate.APPS if a["name"] == name)
    clean = spec["make"]()["clean"]
    folder = os.path.join(APPS, "1.2.1", name)
    with open(os.path.join(folder, "fixture.json"), encoding="utf-8") as f:
        files = json.load(f)["files"]
    # joblib.load reads plain pickles too, and the apps saved some .pkl files with joblib.
    loaded = [joblib.load(os.path.join(folder, f)) for f in files]
    # predict_proba where the model has it (as the app's confidence), else decision_function.
    model = loaded[-1]
    score = model.predict_proba if hasattr(model, "predict_proba") else model.decision_function
    predict = score if len(loaded) == 1 else (lambda xs: score(loaded[0].transform(xs)))
    with open(texts_file, encoding="utf-8") as f:
        texts = json.load(f)
    predict([clean(t) for t in texts[:10]])

    def batches(xs):
        for start in range(0, len(xs), 50):
            predict([clean(t) for t in xs[start:start + 50]])

    def singles(xs):
        for t in xs:
            predict([clean(t)])

    out = {
        "clean": timed(lambda xs: [clean(t) for t in xs], texts, budget),
        "batch50": timed(batches, texts, budget),
        "single": timed(singles, texts[:500], budget),
        "fed": [clean(t) for t in texts[:20]],
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
