// The allowed directions between the folders of src/, checked by `npm run lint` (dependency-cruiser).
// Lower layers never import higher ones, so each can be read, tested and bundled without what sits above it:
//
//   util ← storage                                             plain Node: files every window shares (locks, leases, notices)
//   util ← storage, api ← runTracking ← batches/core           plain Node: the run model, its files, the poller, starting a run
//   util ← api ← kickoff/core ← batches/core                   plain Node: what a kickoff sends (inputs, presets, steps)
//   util ← storage ← flowChat/core                             plain Node: which crews chat, their recent sessions
//   util ← api ← ui                                            the shared VS Code toolkit
//   crews ← platform ← sidebar ← runs ← runView ← kickoff, feedback, batches ← suites ← flowChat ← chat   the features, lowest first
//   util ← api ← runTracking ← suites/core ← suites/terminal   plain Node: a suite file, its checks, reports; the CI runner
//   services.ts: what every feature is handed (crews, runs, poller, marks); a feature needing more declares its own
//   extension.ts, registerCommands.ts, testApi.ts, appServices.ts  the composition root, above everything
//   entry.ts                                                   what VS Code loads: the root, through V8's code cache
//   util ← simulator                                           a stand-alone server: it never imports the extension
//   */page/                                                    webview pages (browser code): data types only
//
// Type-only imports count too: a type that points upward is a design that points upward. So does a climb through a
// shared file: a feature never *reaches* a higher one, by any chain of imports (services.ts included).

/** The feature folders, lowest first: a feature may import the ones before it, never those after it. */
const FEATURES = ['crews', 'platform', 'sidebar', 'runs', 'runView', ['kickoff', 'feedback', 'batches'], 'suites', 'flowChat', 'chat'];

const ROOT_FILES = '^src/(entry|extension|registerCommands|testApi|appServices)\\.ts$';
/** A feature folder's own files, not its plain-Node core or its webview page. */
const featureFiles = (names) => `^src/(${names.join('|')})/(?!core/|page/|terminal/)`;

function featureRules() {
  const levels = FEATURES.map((level) => (Array.isArray(level) ? level : [level]));
  return levels.flatMap((level, i) => {
    const above = levels.slice(i + 1).flat();
    const rules = [];
    if (above.length > 0) {
      rules.push({
        name: `${level.join('-')}-below-${above[0]}`,
        severity: 'error',
        comment: `${level.join(', ')} sit below ${above.join(', ')}: what they need from above is passed in.`,
        from: { path: featureFiles(level) },
        to: { path: featureFiles(above) },
      });
    }
    if (level.length > 1) {
      rules.push({
        name: `${level.join('-')}-side-by-side`,
        severity: 'error',
        comment: `${level.join(', ')} are features side by side: what they share lives lower.`,
        from: { path: featureFiles(level) },
        to: { path: featureFiles(level), pathNot: '^src/$1/' },
      });
    }
    if (above.length > 0) {
      rules.push({
        name: `${level.join('-')}-never-reach-${above[0]}`,
        severity: 'error',
        comment: `Not even through a shared file (services.ts) or a type: ${level.join(', ')} never reach ${above.join(', ')}.`,
        from: { path: featureFiles(level) },
        to: { path: featureFiles(above), reachable: true },
      });
    }
    return rules;
  });
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle makes two modules one: neither can be understood, tested or loaded without the other.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'util-is-the-floor',
      severity: 'error',
      comment: 'src/util/ holds small helpers every layer uses; it imports no other folder of src/.',
      from: { path: '^src/util/' },
      to: { path: '^src/', pathNot: '^src/util/' },
    },
    {
      name: 'api-speaks-only-http',
      severity: 'error',
      comment: 'src/api/ is the crew HTTP API (client, dialects, parsing, token rules); it knows nothing of runs, crews or the UI.',
      from: { path: '^src/api/' },
      to: { path: '^src/', pathNot: '^src/(api|util)/' },
    },
    {
      name: 'storage-is-the-machine-kit',
      severity: 'error',
      comment:
        'src/storage/ is how every window on the machine shares files (atomic writes, locks, liveness, shared values): plain Node over util/, no feature, no HTTP.',
      from: { path: '^src/storage/' },
      to: { path: '^src/|^node_modules/@types/vscode/', pathNot: '^src/(storage|util)/' },
    },
    {
      name: 'status-reader-is-the-transport',
      severity: 'error',
      comment:
        "The status reader's worker runs the transport's own module (dist/transport.js, api/statusReader.ts): only the transport starts it.",
      from: { path: '^src/', pathNot: '^src/api/transport\\.ts$' },
      to: { path: '^src/api/statusReader\\.ts$' },
    },
    {
      name: 'simulator-stands-alone',
      severity: 'error',
      comment: 'src/simulator/ is also a command-line server (npm run simulator): it uses only util/ and never vscode.',
      from: { path: '^src/simulator/' },
      to: { path: '^src/|^node_modules/@types/vscode/', pathNot: '^src/(simulator|util)/' },
    },
    {
      name: 'only-the-demo-starts-the-simulator',
      severity: 'error',
      comment: 'The extension loads the simulator (dist/simulator.js) for the demo crews only.',
      from: { path: '^src/', pathNot: '^src/(simulator/|crews/demoCommands\\.ts$)' },
      to: { path: '^src/simulator/' },
    },
    {
      name: 'run-tracking-is-plain-node',
      severity: 'error',
      comment: 'src/runTracking/ (the run model, record files, poller, starting and resuming a run, the trace) is plain Node: storage/, api/ and util/ only.',
      from: { path: '^src/runTracking/' },
      to: { path: '^src/|^node_modules/@types/vscode/', pathNot: '^src/(runTracking|storage|api|util)/' },
    },
    {
      name: 'trace-runs-in-pages',
      severity: 'error',
      comment:
        "src/runTracking/trace/ (a run's span tree, summary and cost) is meant for the run view's page too: no vscode, no Node, only itself, the API's types, util/ and @vscode/l10n.",
      from: { path: '^src/runTracking/trace/' },
      to: { pathNot: '^src/(runTracking/trace/|api/types\\.ts$|util/)|(^|/)node_modules/@vscode/l10n/' },
    },
    {
      name: 'batch-core-is-plain-node',
      severity: 'error',
      comment:
        'src/batches/core/ (model, tables, store, runner) is plain Node: the run core, the kickoff core (a row is a kickoff\'s inputs), storage/, api/ and util/.',
      from: { path: '^src/batches/core/' },
      to: { path: '^src/|^node_modules/@types/vscode/', pathNot: '^src/(batches/core|kickoff/core|runTracking|storage|api|util)/' },
    },
    {
      name: 'kickoff-core-is-plain-node',
      severity: 'error',
      comment: "src/kickoff/core/ (a kickoff's inputs: which are asked and in which order, presets and the last used) is plain Node: api/ and util/ only.",
      from: { path: '^src/kickoff/core/' },
      to: { path: '^src/|^node_modules/@types/vscode/', pathNot: '^src/(kickoff/core|api|util)/' },
    },
    {
      name: 'flow-chat-core-is-plain-node',
      severity: 'error',
      comment: "src/flowChat/core/ (which crews chat, each crew's recent sessions shared by every window) is plain Node: storage/ and util/ only.",
      from: { path: '^src/flowChat/core/' },
      to: { path: '^src/|^node_modules/@types/vscode/', pathNot: '^src/(flowChat/core|storage|util)/' },
    },
    {
      name: 'suite-core-is-plain-node',
      severity: 'error',
      comment:
        'src/suites/core/ (the suite file, checks, judge prompt, baseline, reports) is plain Node: the run core, api/ and util/ only; the terminal runner uses it without vscode.',
      from: { path: '^src/suites/core/' },
      to: { path: '^src/|^node_modules/@types/vscode/', pathNot: '^src/(suites/core|runTracking|api|util)/' },
    },
    {
      name: 'suite-terminal-is-plain-node',
      severity: 'error',
      comment: 'src/suites/terminal/ is `node dist/suite-cli.js` for CI: the suite core, the crew client and util/, never vscode.',
      from: { path: '^src/suites/terminal/' },
      to: { path: '^src/|^node_modules/@types/vscode/', pathNot: '^src/(suites/core|suites/terminal|api|util)/' },
    },
    {
      name: 'suite-core-is-lazy',
      severity: 'error',
      comment:
        'The suite core brings yaml and ajv: the extension loads it on first use (dist/suites.js, import()), so the main bundle never carries it. Types may be imported.',
      from: { path: '^src/', pathNot: '^src/suites/(core|terminal)/' },
      to: { path: '^src/suites/core/', dependencyTypesNot: ['type-only', 'dynamic-import'] },
    },
    {
      name: 'yaml-and-ajv-stay-in-the-suite-core',
      severity: 'error',
      comment: 'yaml and ajv are for suites only, in their lazy bundle (dist/suites.js).',
      from: { path: '^src/', pathNot: '^src/suites/core/' },
      to: { path: '(^|/)node_modules/(yaml|ajv)/' },
    },
    {
      name: 'ui-is-a-toolkit',
      severity: 'error',
      comment: 'src/ui/ is the shared toolkit (notifications, quick input, error wording, page shell): it knows no feature.',
      from: { path: '^src/ui/' },
      to: { path: '^src/', pathNot: '^src/(ui|api|util)/' },
    },
    {
      name: 'pages-are-browsers',
      severity: 'error',
      comment: 'A */page/ folder runs in a webview (and its worker): no vscode, no Node, nothing of the host but data types.',
      from: { path: '^src/([^/]+)/page/' },
      to: { path: '^src/|^node_modules/@types/vscode/', pathNot: '^src/($1/page|api|runTracking/model\\.ts|runTracking/trace/|util)' },
    },
    {
      name: 'hosts-use-pages-for-types',
      severity: 'error',
      comment:
        "A page's host shares its pure modules (view model, patches, segments); other features use only a page's message types and the run view's markdown rules (dist/markdown.js).",
      from: { path: '^src/([^/]+)/(?!page/)' },
      to: { path: '^src/[^/]+/page/', pathNot: '^src/$1/page/|/(messages|batchProtocol|markdown)\\.ts$' },
    },
    ...featureRules(),
    {
      name: 'only-the-composition-uses-platform',
      severity: 'error',
      comment:
        "The platform feature is wired in by the composition alone; the others reach it through services.platform, named by the platform's own interface.",
      from: { path: '^src/', pathNot: `^src/platform/|${ROOT_FILES}` },
      to: { path: '^src/platform/', pathNot: '^src/platform/platformServices\\.ts$' },
    },
    {
      name: 'nothing-imports-the-root',
      severity: 'error',
      comment: 'extension.ts, registerCommands.ts and testApi.ts are the top: nothing imports them back.',
      from: { path: '^src/', pathNot: '^src/(extension|entry)\\.ts$' },
      to: { path: '^src/(entry|extension|registerCommands|testApi)\\.ts$' },
    },
    {
      name: 'only-the-composition-has-every-service',
      severity: 'error',
      comment: 'appServices.ts is everything activate() builds: a feature is handed it as the narrow interface it declares.',
      from: { path: '^src/', pathNot: ROOT_FILES },
      to: { path: '^src/appServices\\.ts$' },
    },
    {
      name: 'the-entry-only-loads-the-root',
      severity: 'error',
      comment: 'entry.ts reads the composition root from its own bundle (dist/core.js): it imports extension.ts for its type only.',
      from: { path: '^src/entry\\.ts$' },
      to: { path: '^src/', pathNot: '^src/(util/codeCache|extension)\\.ts$' },
    },
    {
      name: 'nothing-imports-the-entry',
      severity: 'error',
      comment: 'entry.ts is what VS Code loads, and only VS Code.',
      from: { path: '^src/' },
      to: { path: '^src/entry\\.ts$' },
    },
    {
      name: 'src-never-imports-tests',
      severity: 'error',
      comment: 'What ships must not depend on the tests, the bench or the scripts.',
      from: { path: '^src/' },
      to: { path: '^(test|bench|scripts)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^src/.*\\.d\\.ts$' },
  },
};
