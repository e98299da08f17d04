// The allowed directions between the folders of src/, checked by `npm run lint` (dependency-cruiser).
// Lower layers never import higher ones, so each can be read, tested and bundled without what sits above it:
//
//   util ← api ← runs ← crews ← batches ← ui ← views ← commands, platform, chat ← extension.ts (the composition root)
//   util ← simulator (a stand-alone server: it never imports the extension)
//
// Type-only imports count too: a type that points upward is a design that points upward.
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
      comment: 'src/api/ is the crew HTTP API (client, dialects, parsing); it knows nothing of runs, crews or the UI.',
      from: { path: '^src/api/' },
      to: { path: '^src/', pathNot: '^src/(api|util)/' },
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
      name: 'runs-below-the-ui',
      severity: 'error',
      comment: 'src/runs/ (model, record files, poller, leases, shared run operations) is plain Node: api/ and util/ only.',
      from: { path: '^src/runs/' },
      to: { path: '^src/|^node_modules/@types/vscode/', pathNot: '^src/(runs|api|util)/' },
    },
    {
      name: 'crews-below-the-ui',
      severity: 'error',
      comment: 'src/crews/ (registry, tokens, presets) builds on api/, runs/ and util/ only.',
      from: { path: '^src/crews/' },
      to: { path: '^src/', pathNot: '^src/(crews|runs|api|util)/' },
    },
    {
      name: 'batches-below-the-ui',
      severity: 'error',
      comment: 'src/batches/ (model, store, runner, parsing) is plain Node: api/, runs/, crews/ and util/ only.',
      from: { path: '^src/batches/' },
      to: { path: '^src/|^node_modules/@types/vscode/', pathNot: '^src/(batches|crews|runs|api|util)/' },
    },
    {
      name: 'ui-is-a-toolkit',
      severity: 'error',
      comment: 'src/ui/ is the shared toolkit (notifications, quick input, error wording): it knows no view, command or feature.',
      from: { path: '^src/ui/' },
      to: { path: '^src/', pathNot: '^src/(ui|api|crews/tokenRules\\.ts$|util)' },
    },
    {
      name: 'webview-page-is-a-browser',
      severity: 'error',
      comment: 'src/views/webview/ runs in the webview (and its worker): no vscode, no Node, nothing of the host but data types.',
      from: { path: '^src/views/webview/' },
      to: { path: '^src/|^node_modules/@types/vscode/', pathNot: '^src/(views/webview|api|runs/model\\.ts|util)' },
    },
    {
      name: 'views-below-the-commands',
      severity: 'error',
      comment: 'src/views/ draws the models; commands, chat and platform use views, never the other way round.',
      from: { path: '^src/views/' },
      to: { path: '^src/(commands|chat|platform|simulator)/|^src/(extension|testApi)\\.ts$' },
    },
    {
      name: 'features-do-not-import-each-other',
      severity: 'error',
      comment: 'chat/ and platform/ are features beside commands/: what they share lives lower (runs/, crews/, views/).',
      from: { path: '^src/(chat|platform)/' },
      to: { path: '^src/(commands|chat|platform|simulator)/', pathNot: '^src/$1/' },
    },
    {
      name: 'only-the-composition-uses-platform',
      severity: 'error',
      comment: 'The platform feature is wired in by the composition alone (extension.ts, services.ts, registerCommands.ts, testApi.ts).',
      from: { path: '^src/', pathNot: '^src/(platform/|extension\\.ts$|services\\.ts$|testApi\\.ts$|commands/registerCommands\\.ts$)' },
      to: { path: '^src/platform/' },
    },
    {
      name: 'nothing-imports-the-root',
      severity: 'error',
      comment: 'extension.ts and testApi.ts are the top: nothing imports them back.',
      from: { path: '^src/', pathNot: '^src/extension\\.ts$' },
      to: { path: '^src/(extension|testApi)\\.ts$' },
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
