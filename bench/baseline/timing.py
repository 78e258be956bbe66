"""What the one-core Python baselines share: loading a fixture generator as a module, and a
texts-per-second timer."""
import importlib.util
import time


def load_module(path, name):
    """The Python file at `path` as a module named `name` (fixture generators are not packages)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def timed(run, texts, budget):
    """Texts a second of `run(texts)`, repeated until `budget` seconds have passed."""
    done, started = 0, time.perf_counter()
    while True:
        run(texts)
        done += 1
        elapsed = time.perf_counter() - started
        if elapsed >= budget:
            return done * len(texts) / elapsed
