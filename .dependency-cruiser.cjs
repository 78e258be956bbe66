/**
 * Who may import whom, checked by `npm run lint:deps` (and so by `npm test`) rather than
 * remembered. The rooms, from the wire down (STYLE.md §1, §11, §12):
 *
 *   transports   src/http/, src/grpc/, src/cli.ts      (src/main.ts only wires them)
 *   service      src/service/        the context and createService both transports share
 *   front        src/repository/, src/pool/, src/access/
 *   model        src/model/, src/preprocess/, src/settings/
 *   estimators   src/sklearn/
 *   maths        src/python/, src/pickle/
 *
 * src/protocol/v2/ (typed V2 operations) serves the transports and the service. Shared
 * single files at src/ (errors.ts, config.ts, logger.ts, ...) sit beside every room.
 * workers/ are the Piscina threads: they run the model rooms, never a server.
 *
 * Each rule says why it exists; a violation names the rule and the import.
 */

/** A transport: what speaks a wire protocol or a command line. */
const TRANSPORT = '^src/(http|grpc)/|^src/cli[.]ts$'
/** What holds servers, sockets, threads or model lifecycles: never below the service line. */
const FRONT = '^src/(http|grpc|pool|repository|service|access)/'
/** The maths: pure functions over values, testable against numbers saved from Python. */
const MATHS = '^src/(sklearn|pickle|python)/'

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'A cycle makes the evaluation order of ES modules depend on which one is imported first ' +
        '(a class can be undefined at the other end), and means two modules are one job split in two. ' +
        'Move the shared piece down to where both can import it one way.',
      from: {},
      to: { circular: true }
    },
    {
      name: 'transports-only-from-transports',
      severity: 'error',
      comment:
        'src/http/ and src/grpc/ are skins over the service: nothing below them may reach up into one ' +
        '(what both need belongs in src/service/ or src/protocol/). Only src/main.ts, which wires the ' +
        'process, and the transports themselves import them.',
      from: { pathNot: `${TRANSPORT}|^src/main[.]ts$` },
      to: { path: '^src/(http|grpc)/' }
    },
    {
      name: 'grpc-not-to-http',
      severity: 'error',
      comment:
        'No transport imports another: gRPC must not reach into the HTTP skin (its context, body ' +
        'limits, routes). What both need lives in src/service/ or src/protocol/v2/.',
      from: { path: '^src/grpc/' },
      to: { path: '^src/http/' }
    },
    {
      name: 'http-not-to-grpc',
      severity: 'error',
      comment: 'No transport imports another: HTTP must not depend on the gRPC skin.',
      from: { path: '^src/http/' },
      to: { path: '^src/grpc/' }
    },
    {
      name: 'cli-not-to-other-transports',
      severity: 'error',
      comment:
        'The command line is a transport of its own: it must not take its limits or defaults from ' +
        'the HTTP or gRPC skins; shared values belong in the room below.',
      from: { path: '^src/cli[.]ts$' },
      to: { path: '^src/(http|grpc)/' }
    },
    {
      name: 'service-only-from-transports',
      severity: 'error',
      comment:
        'The service (the context and createService the transports share) is the top of the core: ' +
        'the rooms below it (repository, pool, access, model, preprocess, settings, the maths, the ' +
        'protocol) are what it is made of, and none of them may reach back up into it.',
      // The V2 operations are the service's verbs (REST and gRPC call them), so they stand beside it.
      from: { path: '^src/(repository|pool|access|model|preprocess|settings|sklearn|pickle|python|protocol)/', pathNot: '^src/protocol/v2/operations\\.ts$' },
      to: { path: '^src/service/' }
    },
    {
      name: 'model-rooms-not-to-front',
      severity: 'error',
      comment:
        'src/model/, src/preprocess/ and src/settings/ describe and build one model; they run inside ' +
        'workers too, so they never import the pool, the repository, access control or the service ' +
        'that manage models from the front thread.',
      from: { path: '^src/(model|preprocess|settings)/' },
      to: { path: '^src/(pool|repository|access|service)/' }
    },
    {
      name: 'sklearn-not-to-model-rooms',
      severity: 'error',
      comment:
        "src/sklearn/ is scikit-learn's estimators as plain data and pure functions: it knows nothing of " +
        "the app's model settings or declared preprocessing, which are built above it.",
      from: { path: '^src/sklearn/' },
      to: { path: '^src/(model|preprocess|settings)/' }
    },
    {
      name: 'maths-not-to-front',
      severity: 'error',
      comment:
        'The maths (src/sklearn/, src/pickle/, src/python/) are pure functions over values: they never ' +
        'import the rooms that hold servers, threads, sockets or model lifecycles, so they run the same ' +
        'in a test, a worker or the front thread.',
      from: { path: MATHS },
      to: { path: FRONT }
    },
    {
      name: 'maths-not-to-servers-or-threads',
      severity: 'error',
      comment:
        'The maths never import a server framework or a thread API (express, @grpc/*, piscina, ' +
        'worker_threads): which thread runs them is decided above them.',
      from: { path: MATHS },
      to: {
        path: [
          '(^|/)node_modules/(express|piscina|@grpc/[^/]+)/',
          '^(node:)?worker_threads$'
        ]
      }
    },
    {
      name: 'pickle-not-to-sklearn',
      severity: 'error',
      comment:
        'The pickle VM knows Python values, not estimators: src/pickle/ never imports src/sklearn/ ' +
        '(STYLE.md §1), so the reader can be tested and fuzzed alone.',
      from: { path: '^src/pickle/' },
      to: { path: '^src/sklearn/' }
    },
    {
      name: 'python-not-to-sklearn-or-preprocess',
      severity: 'error',
      comment:
        "src/python/ is Python's own str, re and unicodedata semantics, the lowest text room: " +
        "scikit-learn's and the preprocessing's uses of it sit above it and it imports neither.",
      from: { path: '^src/python/' },
      to: { path: '^src/(sklearn|preprocess)/' }
    },
    {
      name: 'protocol-not-to-sklearn',
      severity: 'error',
      comment:
        'The V2 protocol knows tensors and the answers the pool gives, not estimators: a protocol ' +
        "module importing src/sklearn/ would pull the model's code into the front thread's contract.",
      from: { path: '^src/protocol/' },
      to: { path: '^src/sklearn/' }
    },
    {
      name: 'labels-not-to-sklearn',
      severity: 'error',
      comment:
        "Label matching runs on the front thread and needs only Python's lowercasing, from src/python/; " +
        'importing src/sklearn/ would load estimator code where no model runs.',
      from: { path: '^src/labels[.]ts$' },
      to: { path: '^src/sklearn/' }
    },
    {
      name: 'http-not-to-sklearn',
      severity: 'error',
      comment:
        "HTTP presents what the pool answers; the model's data comes through the pool, not by importing " +
        'the estimators (presentation of explanations belongs to http, their computation to sklearn).',
      from: { path: '^src/http/' },
      to: { path: '^src/sklearn/' }
    },
    {
      name: 'otel-sdk-only-in-tracing',
      severity: 'error',
      comment:
        'The OpenTelemetry SDK is loaded only when tracing is configured (src/tracing/start.ts imports ' +
        'it dynamically): any other module importing an @opentelemetry package would load it into every ' +
        'process. The rest of the service speaks to src/tracing/tracing.ts\'s interfaces.',
      from: { pathNot: '^src/tracing/(otel-tracing|span-counts|export-thread)[.]ts$' },
      to: { path: '(^|/)node_modules/@opentelemetry/' }
    },
    {
      name: 'otel-tracing-only-through-start',
      severity: 'error',
      comment:
        'src/tracing/otel-tracing.ts (and what it imports) holds the SDK: only start.ts may import it, ' +
        'dynamically, and only when tracing is on.',
      from: { pathNot: '^src/tracing/(start|otel-tracing|export-thread)[.]ts$' },
      to: { path: '^src/tracing/(otel-tracing|span-counts|export-thread|span-shipper)[.]ts$' }
    },
    {
      name: 'workers-not-to-front',
      severity: 'error',
      comment:
        'A worker thread runs the model (src/sklearn/, src/pool/ messages, src/preprocess/, src/model/); ' +
        'it must not import a transport, the service, the repository or access control, which would ' +
        'start servers or state meant for the front thread inside every worker.',
      from: { path: '^workers/' },
      to: { path: `${TRANSPORT}|^src/main[.]ts$|^src/(service|repository|access)/` }
    }
  ],
  options: {
    // Only our own sources are walked; packages are leaves.
    doNotFollow: { path: 'node_modules' },
    // The NodeNext '.js' specifiers resolve to the '.ts' sources through the tsconfig.
    tsConfig: { fileName: 'tsconfig.json' },
    // `import type` counts: a type-only import still ties one room to another's contract.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings']
    },
    reporterOptions: {
      text: { highlightFocused: true }
    }
  }
}
