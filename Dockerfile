# tfidf-serve as a container image: the service and the default model, on Debian's slim Node 20.
#   docker build -t tfidf-serve:1.0.0 .
# On a machine that reaches no image registry, the same file on a base assembled from Debian's
# archive and the npm registry (docs/operations.md, "Building the image"):
#   podman build --build-arg NODE_IMAGE="$(bash scripts/container-base.sh)" -t tfidf-serve:1.0.0 .
#   docker run --rm -p 8000:8000 tfidf-serve:1.0.0
#   docker run --rm -p 8000:8000 -v "$PWD/my-model:/models:ro" \
#     -e MODEL_PATH=/models/final_best_model.pkl -e VECTORIZER_PATH=/models/tfidf_vectorizer.pkl tfidf-serve:1.0.0
# An image of your own model that starts without decoding pickles (docs/compiled-models.md):
#   FROM tfidf-serve:1.0.0 AS compile
#   COPY --chown=node my-model/ /home/node/my-model/
#   RUN node dist/src/cli.js compile --settings /home/node/my-model/model-settings.json --out /home/node/model.tfsc
#   FROM tfidf-serve:1.0.0
#   COPY --from=compile /home/node/model.tfsc /home/node/model/model.tfsc
#   ENV MODEL_PATH=/home/node/model/model.tfsc

# The Node 20 image both stages start from: the official one unless told otherwise.
ARG NODE_IMAGE=node:20-bookworm-slim

# Build stage: every dependency, tsc, and the bundles (scripts/bundle.mjs).
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json ./
COPY src ./src
COPY workers ./workers
COPY test ./test
COPY bench ./bench
COPY scripts ./scripts
# npm's settings for this build only (e.g. a registry's CA: `--secret id=npmrc,src=FILE`, and the
# file it names as `--secret id=npm-ca`); a secret mount is in no layer, and without one npm
# runs on its defaults.
RUN --mount=type=secret,id=npmrc --mount=type=secret,id=npm-ca \
  NPM_CONFIG_USERCONFIG=/run/secrets/npmrc npm ci --no-audit --no-fund

# Run stage: production dependencies only (no compiler; lzma-native loads its prebuilt binary,
# and only a .xz/.lzma model file needs it), the built service and the default model.
FROM ${NODE_IMAGE}
# A fixed mmap threshold: glibc's moving one let models loaded and unloaded one after another
# stay resident (bench/results/README.md: +35 MB for nine models without it, none with it).
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8000 MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=secret,id=npmrc --mount=type=secret,id=npm-ca \
  NPM_CONFIG_USERCONFIG=/run/secrets/npmrc npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist/src ./dist/src
COPY --from=build /app/dist/workers ./dist/workers
# WordNet's lemma lists (with their licence) for declared preprocessing; NLTK's and Sastrawi's
# data are the app's own (docs/preprocessing.md, "Where the data comes from"): compile a model
# that reads them where they are installed, and the compiled file carries them.
COPY src/preprocess/data ./src/preprocess/data
# The gRPC service's .proto files (GRPC_PORT), read at run time: tsc copies none into dist.
COPY src/grpc/*.proto ./src/grpc/
COPY models/final_best_model.pkl models/tfidf_vectorizer.pkl ./models/
# The image's own user (uid 1000), not root; nothing in /app is writable by it.
USER node
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8000) + '/health').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form: node is PID 1 and gets SIGTERM itself, which drains requests in flight and exits 0.
STOPSIGNAL SIGTERM
# V8 grows a heap to 1.2 times what survives its last full collection, not up to 4 times: the
# front thread's garbage under load is collected sooner; and its young generation holds what 50
# requests in flight keep alive (8 MB semi-spaces), so they die young instead of filling the
# old generation (docs/performance.md).
CMD ["node", "--max-semi-space-size=8", "--heap-growing-percent=20", "dist/src/main.bundle.js"]
