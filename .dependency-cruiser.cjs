// The layer rules of ARCHITECTURE.md ("dependencies point down only"), checked by
// `npm run check:layers` (part of `npm test`). lib/layers.test.ts proves that the rules can fail.
//
//   app/, components/     pages, route handlers, server actions; components are client code
//   cli/, bin/            the command line
//   lib/api/              the one front door: commands and the read model; lib/api/open.ts wires a
//                         database URL to the store of its dialect
//   lib/engine/           the dialect-free core: the bottom layer
//   db/<dialect>/         the stores, the only place a database driver is imported
//   db/shared/            what both stores share (row mapping, port binding): no SQL, no driver, no dialect
//
// Paths below are relative to the repository root, as dependency-cruiser reports them; `@/…`
// imports are resolved through tsconfig.json's `paths`. Type-only imports count too
// (tsPreCompilationDeps), except where a rule says otherwise: a type import still ties the code
// to the layer it comes from.

/** The database drivers and their type packages (resolved into node_modules, or not found): only db/ may use them. */
const DRIVER = '(^|/)node_modules/(@types/)?(better-sqlite3|mssql|tedious)/|^(@types/)?(better-sqlite3|mssql|tedious)(/|$)';

/** Test files: `x.test.ts`, `x.test.tsx`. */
const TEST = '[.]test[.]tsx?$';

/**
 * The one test that holds the dashboard's procedure form (components/enqueue/procedure.ts) to the server's own
 * check of parameter values (db/mssql/param-values.ts): it imports that one db/ module, and nothing else of db/.
 */
const FORM_CROSS_CHECK = '^components/enqueue/procedure[.]test[.]ts$';
const PARAM_VALUES = '^db/mssql/param-values[.]ts$';

/**
 * Test support: what only tests use (fakes, harnesses, suites other test files run), never part of the runtime
 * build — `test-support/` folders (e.g. db/mssql/test-support/), the contract suite (db/contract/), and the test
 * folders (cli/test/, bin/test/, e2e/).
 */
const TEST_SUPPORT = '(^|/)test-support/|^db/contract/|^(cli|bin)/test/|^e2e/';

/** The test frameworks, resolved into node_modules or not found. */
const TEST_FRAMEWORK = '(^|/)node_modules/(vitest|@vitest/[^/]+|@playwright/test|playwright)/|^(vitest|@playwright/test)(/|$)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'driver-outside-db',
      comment:
        'A database driver is used only by the stores in db/; everything else goes through lib/api. ' +
        'Exceptions: bin/preflight.mjs loads better-sqlite3 once to tell whether `npm test` can run on this machine; ' +
        'bin/bench.ts times a bare better-sqlite3 loop as the machine-independent baseline of `npm run bench`; ' +
        'bin/bench-peers.ts does the same for `npm run bench:peers` and opens plainjob (which takes a better-sqlite3 Database).',
      severity: 'error',
      from: { pathNot: ['^db/', '^bin/preflight[.]mjs$', '^bin/bench[.]ts$', '^bin/bench-peers[.]ts$'] },
      to: { path: DRIVER },
    },
    {
      name: 'db-imports-upper-layer',
      comment:
        'db/ implements the ports of lib/engine and sits below lib/api: it must not import app/, components/, cli/, bin/, ' +
        'e2e/, lib/server/ or lib/api/ (tests included: a store test opens its own store, not lib/api/open).',
      severity: 'error',
      from: { path: '^db/' },
      to: { path: '^(app|components|cli|bin|e2e|lib/server|lib/api)/' },
    },
    {
      name: 'db-shared-dialect-free',
      comment:
        "db/shared holds what both stores share (the row mapping given a dialect's column converters, the port binder): " +
        'it imports lib/engine and itself only — no driver, no db/sqlite or db/mssql module (a dialect passes in what differs).',
      severity: 'error',
      from: { path: '^db/shared/' },
      to: { path: [DRIVER, '^db/(sqlite|mssql)/'] },
    },
    {
      name: 'engine-imports-upper-layer',
      comment:
        'lib/engine is the bottom layer: node builtins, pure npm libraries and lib/engine itself only — ' +
        'no db/, lib/api/, lib/server/, app/, components/, cli/ (tests included: a test that needs a store lives in lib/api/ or db/).',
      severity: 'error',
      from: { path: '^lib/engine/' },
      to: { path: '^(db|lib/api|lib/server|app|components|cli|bin|e2e)/' },
    },
    {
      name: 'api-imports-upper-layer',
      comment: 'lib/api is the front door for app/, cli/ and library users; it must not depend on them nor on lib/server/.',
      severity: 'error',
      from: { path: '^lib/api/' },
      to: { path: '^(app|components|cli|bin|e2e|lib/server)/' },
    },
    {
      name: 'components-import-server-code',
      comment:
        'components/ is client code: no lib/server/, no db/, no driver. Of lib/api only types may be imported ' +
        '(`import type` of the JSON views; erased at compile time, so no server code reaches the browser bundle).',
      severity: 'error',
      from: { path: '^components/', pathNot: FORM_CROSS_CHECK },
      to: { path: '^(lib/server|db)/' },
    },
    {
      name: 'components-import-server-code',
      comment: 'FORM_CROSS_CHECK (a test, never bundled) may import db/mssql/param-values.ts, and nothing else of lib/server/ or db/.',
      severity: 'error',
      from: { path: FORM_CROSS_CHECK },
      to: { path: '^(lib/server|db)/', pathNot: PARAM_VALUES },
    },
    {
      name: 'components-import-api-at-run-time',
      comment: 'components/ may import types from lib/api (the JSON views), never its code: use `import type`.',
      severity: 'error',
      from: { path: '^components/' },
      to: { path: '^lib/api/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'store-outside-engine-and-api',
      comment:
        'Nothing outside lib/engine and lib/api touches a store: app/, components/, cli/, bin/, e2e/, lib/server/ and ' +
        'the rest of lib/ import no db/ module (call lib/api instead). db/ itself and its tests are free to. ' +
        "Exceptions: bin/bench-peers.ts measures the embedded schema's ceilings with db/sqlite/bench/ceiling.ts (bare SQL, " +
        'no store), bin/bench-enqueue.ts the parts of an enqueue with db/sqlite/bench/enqueue-parts.ts.',
      severity: 'error',
      from: { pathNot: ['^(db|lib/api|lib/engine)/', FORM_CROSS_CHECK] },
      to: { path: '^db/', pathNot: '^db/sqlite/bench/(ceiling|enqueue-parts)[.]ts$' },
    },
    {
      name: 'store-outside-engine-and-api',
      comment: 'FORM_CROSS_CHECK may import db/mssql/param-values.ts (pure checks, no store), no other db/ module.',
      severity: 'error',
      from: { path: FORM_CROSS_CHECK },
      to: { path: '^db/', pathNot: PARAM_VALUES },
    },
    {
      name: 'api-db-wiring-outside-open',
      comment: 'Within lib/api only open.ts (the wiring) and tests import db/; the rest talks to the ports of lib/engine.',
      severity: 'error',
      from: { path: '^lib/api/', pathNot: ['^lib/api/open[.]ts$', TEST] },
      to: { path: '^db/' },
    },
    {
      name: 'api-open-imports-db-internals',
      comment: 'lib/api/open.ts reaches a dialect through its entry points only: db/<dialect>/store and db/mssql/url.',
      severity: 'error',
      from: { path: '^lib/api/open[.]ts$' },
      to: { path: '^db/', pathNot: '^db/(sqlite/store|mssql/store|mssql/url)[.]ts$' },
    },
    {
      name: 'engine-cycle',
      comment: 'No circular dependencies inside lib/engine.',
      severity: 'error',
      from: { path: '^lib/engine/' },
      to: { path: '^lib/engine/', circular: true },
    },
    {
      name: 'lib-outside-layers',
      comment:
        'Every module of lib/ sits in a layer — lib/api, lib/engine or lib/server — none directly in lib/ (tests aside): ' +
        'such a module imports nothing and nothing imports it.',
      severity: 'error',
      from: { path: '^lib/[^/]+$', pathNot: TEST },
      to: {},
    },
    {
      name: 'lib-outside-layers',
      comment: 'Nothing imports a module directly in lib/ (see above).',
      severity: 'error',
      from: {},
      to: { path: '^lib/[^/]+$', pathNot: TEST },
    },
    {
      name: 'runtime-imports-test-support',
      comment:
        'Runtime code never imports test support (TEST_SUPPORT): what the package builds (tsdown follows the imports of ' +
        'lib/api/index.ts and cli/main.ts) and what Next bundles then never holds a fake, a harness or a suite. ' +
        'Exception: the stress tools (bin/stress-mssql.ts, bin/stress/; `npm run stress:mssql`, not packaged) reuse cli/test/.',
      severity: 'error',
      from: { pathNot: [TEST, TEST_SUPPORT, '^bin/stress-mssql[.]ts$', '^bin/stress/'] },
      to: { path: TEST_SUPPORT },
    },
    {
      name: 'test-framework-in-runtime-code',
      comment:
        'Only tests and test support import a test framework: a module that does is test support, to be named or placed ' +
        'as such (TEST_SUPPORT), not left among the runtime sources.',
      severity: 'error',
      from: { pathNot: [TEST, TEST_SUPPORT] },
      to: { path: TEST_FRAMEWORK },
    },
    {
      name: 'db-cycle',
      comment: 'No circular dependencies inside db/ (type-only imports included).',
      severity: 'error',
      from: { path: '^db/' },
      to: { path: '^db/', circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment:
        'An import that cannot be resolved cannot be checked against the rules above (a mistyped path or an `@/` alias ' +
        'the resolver does not know would slip through): every import must resolve to a file or an npm package.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // look at our own code only: npm packages are leaves (enough to see which driver is imported)
    doNotFollow: { path: ['node_modules'] },
    // dist/: the compiled package (bin/readpast.mjs runs it), made from the sources checked here
    exclude: { path: ['^[.]next/', '^dist/', '^(data|test-results|playwright-report|e2e-results|[.]tmp)/'] },
    // `import type` counts as a dependency (rules opt out with dependencyTypesNot: ['type-only'])
    tsPreCompilationDeps: true,
    // `@/lib/…` → lib/… (tsconfig.json `paths`)
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.d.ts', '.js', '.mjs', '.cjs', '.json'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    skipAnalysisNotInRules: true,
    reporterOptions: { text: { highlightFocused: true } },
  },
};
