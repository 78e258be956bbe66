"""NLTK's own speed at its tokenizers, on one core, for bench/preprocess/nltk-tokenizers.ts.

    /usr/bin/python3 bench/baseline/nltk-tokenizers.py TEXTS.json SECONDS SPLIT...

Each SPLIT is a `words` step's split as model-settings.json writes it (JSON); the tokenizer
is the one test/fixtures/preprocess/nltk-tokenizers.py calls for it, with Punkt's English
parameters from ../shared/nltk_data. Prints, per split, {"rate": texts/s of
" ".join(tokenizer(text)), "fed": that for the first 20 texts}, which the bench checks
ours against.
"""
import json
import os
import sys
import tempfile

from timing import load_module, timed  # bench/baseline/timing.py, beside this file

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load_generator():
    return load_module(os.path.join(ROOT, "test", "fixtures", "preprocess", "nltk-tokenizers.py"), "nltk_tokenizers_fixture")


def main():
    texts_file, budget, splits = sys.argv[1], float(sys.argv[2]), [json.loads(s) for s in sys.argv[3:]]
    import nltk

    generator = load_generator()
    with open(texts_file, encoding="utf-8") as f:
        texts = json.load(f)
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        generator.punkt_data_dir(tmp, not nltk.__version__.startswith("3.8"))
        nltk.data.path[:] = [tmp]
        for split in splits:
            call = {split: {}} if isinstance(split, str) else split
            tokenize = generator.python_call(call, nltk)
            clean = lambda t: " ".join(tokenize(t))  # noqa: E731
            clean(texts[0])
            out.append({"rate": timed(lambda xs: [clean(t) for t in xs], texts, budget), "fed": [clean(t) for t in texts[:20]]})
    print(json.dumps({"nltk": nltk.__version__, "results": out}))


if __name__ == "__main__":
    main()
