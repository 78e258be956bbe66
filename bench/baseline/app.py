"""The Python service tfidf-serve replaces: the same HTTP API in FastAPI + scikit-learn,
written as a competent team would (models loaded once at import, whole-batch transform,
pydantic validation, sync endpoints on uvicorn's thread pool).

    MODEL_PATH=... VECTORIZER_PATH=... /usr/bin/python3 -m uvicorn app:app --app-dir bench/baseline --port 8001 --workers 1
"""
import os
import pickle
import time
from typing import List, Optional

from fastapi import FastAPI
from pydantic import BaseModel, Field

with open(os.environ["VECTORIZER_PATH"], "rb") as f:
    VECTORIZER = pickle.load(f)
with open(os.environ["MODEL_PATH"], "rb") as f:
    MODEL = pickle.load(f)
LABELS = [str(c).lower() for c in MODEL.classes_]
STARTED = time.time()
COUNTER = {"n": 0}

app = FastAPI(title="text classification", version="1.0.0")


class BatchRequest(BaseModel):
    texts: List[str] = Field(..., min_items=1, max_items=50)
    batch_size: Optional[int] = Field(10, ge=1, le=50)


class SingleRequest(BaseModel):
    text: str = Field(..., min_length=1, max_length=10000)


def classify(texts):
    started = time.perf_counter()
    proba = MODEL.predict_proba(VECTORIZER.transform(texts))
    per_text = (time.perf_counter() - started) / len(texts)
    best = proba.argmax(axis=1)
    return [(LABELS[i], float(proba[k, i]), per_text) for k, i in enumerate(best)]


@app.post("/predict")
def predict(body: dict):
    started = time.perf_counter()
    if "text" in body:
        req = SingleRequest(**body)
        COUNTER["n"] += 1
        label, confidence, seconds = classify([req.text])[0]
        return {"sentiment": label, "confidence": round(confidence, 4), "model_used": type(MODEL).__name__,
                "processing_time": seconds, "request_id": f"req-{COUNTER['n']}"}
    req = BatchRequest(**body)
    results = classify(req.texts)
    return {"predictions": [{"text": t, "prediction": label, "confidence": round(c, 2), "processing_time": s}
                            for t, (label, c, s) in zip(req.texts, results)],
            "batch_info": {"total_texts": len(req.texts), "batch_size": req.batch_size,
                           "processing_time": time.perf_counter() - started}}


@app.get("/health")
def health():
    return {"status": "healthy", "model_loaded": True, "uptime_seconds": time.time() - STARTED}
