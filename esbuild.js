// Builds the extension bundle, its lazily loaded parts, the test API, the simulator CLI and the page scripts.
// Usage: node esbuild.js [--production] [--watch]
const esbuild = require('esbuild');
const path = require('path');

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/**
 * The heavy parts are bundles of their own in dist/, required on first use, so activation never pays for
 * them; in source they are a `require('…/name')` (or `import('…/name')`), rewritten here to the sibling bundle.
 * Everything else is one bundle, dist/core.js (src/extension.ts, the composition root), which the small entry
 * VS Code loads, dist/extension.js (src/entry.ts), reads through V8's code cache.
 */
const lazyModules = {
  // undici, for the first request to a crew or the platform (src/api/client.ts, src/platform/platformClient.ts).
  'src/api/transport': 'transport',
  // The demo crews' server (src/crews/demoCommands.ts).
  'src/simulator/server': 'simulator',
  // markdown-it with the run view's rules (src/runView/hostMarkdown.ts, src/chat/crewMarkdown.ts).
  'src/runView/page/markdown': 'markdown',
  // The trace's commands: the span tree on the host, Compare Trace, Export Trace (src/runView/traceViews.ts).
  'src/runView/traceViews': 'traceViews',
  // The trace's summary for the editor's AI (#crewRun, @crews /why).
  'src/chat/traceText': 'chatTrace',
  // The crew tools and @crews: what they do, from the first tool call or request (src/chat/registerChat.ts).
  'src/chat/chatHandlers': 'chat',
  // jsonc-parser, counting the crews of workspace settings files in an untrusted window (src/crews/crewRegistry.ts).
  'src/crews/crewFileCount': 'crewFiles',
  // jsonc-parser naming what a kickoff step's JSON lacks (src/kickoff/kickoffSteps.ts).
  'src/kickoff/jsonProblem': 'jsonProblem',
  // The batch sources' table readers (CSV, JSON Lines, JSON arrays), for Run Batch from File (src/batches/batchCommands.ts).
  'src/batches/core/source': 'batchTables',
  // Kick Off with a Trigger Payload…: the platform's trigger apps and payloads (src/platform/triggerCommand.ts).
  'src/platform/triggerKickoff': 'triggerKickoff',
  // Chat with Flow's crew picker: the crews that chat first, the others asked while it is open (src/flowChat/chatCommands.ts).
  'src/flowChat/pickChatFlow': 'chatPicker',
  // The chat page's words, sent when a chat page is ready (src/flowChat/chatPanel.ts).
  'src/flowChat/chatWords': 'chatWords',
  // Redeploy (sent once, followed) and Copy CI Redeploy Step (src/platform/platformCommands.ts); DeploymentHealth
  // loads the follow and the send by their own modules, which this bundle's entry re-exports.
  'src/platform/deployActions': 'deployActions',
  'src/platform/redeployFollow': 'deployActions',
  'src/platform/redeploySend': 'deployActions',
  // The platform sign-in flow and the CrewAI CLI's sign-in (Fernet), on the first sign-in (src/platform/authProvider.ts).
  'src/platform/signIn': 'signIn',
  // A suite file's reader (and its worker thread), its checks, judge prompt, baseline and reports, with yaml and ajv
  // (src/suites/core/lazy.ts).
  'src/suites/core/lazy': 'suites',
  // The suites in the Testing view, where a workspace has a suite file (src/suites/suiteActivation.ts).
  'src/suites/suiteFeature': 'suiteExplorer',
  // What activate() returns to the integration tests (CREW_RUNS_TEST_HOOKS=1); not packaged.
  'src/testApi': 'testApi',
};

const lazyModulesPlugin = {
  name: 'lazy-modules',
  setup(build) {
    build.onResolve({ filter: /^\./ }, (args) => {
      if (args.kind !== 'dynamic-import' && args.kind !== 'require-call') {
        return undefined;
      }
      const resolved = path.relative(__dirname, path.resolve(args.resolveDir, args.path)).split(path.sep).join('/');
      const bundle = lazyModules[resolved];
      return bundle ? { path: `./${bundle}.js`, external: true } : undefined;
    });
  },
};

/**
 * Modules import `vscode` and Node's built-in modules (`node:path`, `node:fs/promises`…) as namespaces. Left
 * external, each would be a copy of the whole module object made at load, a getter per property (`vscode`'s
 * several hundred, `node:fs`'s hundred), for every importing module or, shared, once: a millisecond of every
 * start. Here each is a module of named exports, one per property of the real module, read from it with
 * `require`: esbuild keeps only the names the code uses, each read once at load, and a use is a plain variable.
 * `vscode`'s names are those its type declarations give values (its API object's properties), Node's those of
 * the module itself; a name the code uses that is not among them fails the build, never `undefined` at run time.
 * So an API newer than @types/vscode is reached through `require('vscode')`, the module itself; `vscode` used as a
 * value (`vscode as …`) is a namespace of the typed names only.
 */
const VSCODE_TYPES = path.join(__dirname, 'node_modules', '@types', 'vscode', 'index.d.ts');
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function exportedNames(moduleName) {
  if (moduleName === 'vscode') {
    // Inside `declare module 'vscode' {…}`, one tab in: every declaration there is exported, `export` or not.
    const types = require('fs').readFileSync(VSCODE_TYPES, 'utf8');
    return [...new Set([...types.matchAll(/^\t(?:export )?(?:namespace|class|enum|const|let|var|function) (\w+)/gm)].map((m) => m[1]))];
  }
  return Object.getOwnPropertyNames(require(moduleName)).filter((name) => IDENTIFIER.test(name) && name !== 'default');
}

const namedExportsPlugin = {
  name: 'named-exports',
  setup(build) {
    build.onResolve({ filter: /^(vscode|node:[\w/]+)$/ }, (args) =>
      // Only `import` statements: a `require()` (undici's CJS, and the modules below) wants the module itself.
      args.kind === 'import-statement' ? { path: args.path, namespace: 'named-exports' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'named-exports' }, (args) => ({
      contents: [
        `const m = require(${JSON.stringify(args.path)});`,
        // Pure: a name nothing uses is dropped, and its property never read (a getter such as `fs.promises` stays unread).
        ...exportedNames(args.path).map((name) => `export const ${name} = /* @__PURE__ */ (() => m.${name})();`),
      ].join('\n'),
      loader: 'js',
    }));
    build.onEnd((result) => {
      const undefinedImports = result.warnings.filter((w) => w.id === 'import-is-undefined' && /"named-exports:/.test(w.text));
      if (undefinedImports.length > 0) {
        throw new Error(`not in the module: ${undefinedImports.map((w) => `${w.text} (${w.location?.file}:${w.location?.line})`).join('; ')}`);
      }
    });
  },
};

/**
 * `@vscode/l10n` in the lower layers (which must not import `vscode`) is VS Code's own l10n in the bundles:
 * src/util/vscodeL10n.ts. Plain-Node unit tests keep the package.
 */
const vscodeL10nPlugin = {
  name: 'vscode-l10n',
  setup(build) {
    build.onResolve({ filter: /^@vscode\/l10n$/ }, () => ({ path: path.join(__dirname, 'src', 'util', 'vscodeL10n.ts') }));
  },
};

/**
 * `import source from 'worker-source:./module'`: that module bundled on its own (browser, IIFE) and imported
 * as its code, a string. The run view starts its markdown worker from it (src/runView/page/renderWorker.ts).
 */
function workerSourcePlugin(production) {
  return {
    name: 'worker-source',
    setup(build) {
      build.onResolve({ filter: /^worker-source:/ }, (args) => ({
        path: `${path.resolve(args.resolveDir, args.path.slice('worker-source:'.length))}.ts`,
        namespace: 'worker-source',
      }));
      build.onLoad({ filter: /.*/, namespace: 'worker-source' }, async (args) => {
        const result = await esbuild.build({
          absWorkingDir: __dirname,
          entryPoints: [args.path],
          bundle: true,
          write: false,
          metafile: true,
          format: 'iife',
          platform: 'browser',
          target: 'es2022',
          minify: production,
          logLevel: 'warning',
        });
        const watchFiles = Object.keys(result.metafile.inputs).map((input) => path.resolve(__dirname, input));
        return { contents: `export default ${JSON.stringify(result.outputFiles[0].text)};`, loader: 'js', watchFiles };
      });
    },
  };
}

const problemMatcherPlugin = {
  name: 'problem-matcher',
  setup(build) {
    build.onStart(() => {
      if (watch) console.log('[watch] build started');
    });
    build.onEnd((result) => {
      for (const { text, location } of result.errors) {
        console.error(`✘ [ERROR] ${text}`);
        if (location) console.error(`    ${location.file}:${location.line}:${location.column}:`);
      }
      if (watch) console.log('[watch] build finished');
    });
  },
};

/** Every bundle, relative to the repository root (outdir dist/ and media/dist/). */
function makeBuilds(production) {
  const nodeOptions = {
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    minify: production,
    ...(process.env.KEEPN ? { minifyIdentifiers: false } : {}),
    sourcemap: !production,
    sourcesContent: false,
    external: ['vscode'],
    // jsonc-parser's UMD build requires its parts at run time, out of the bundle's sight: take the ESM build.
    mainFields: ['module', 'main'],
    logLevel: 'warning',
    plugins: [lazyModulesPlugin, namedExportsPlugin, vscodeL10nPlugin, problemMatcherPlugin],
  };

  return [
    { ...nodeOptions, entryPoints: { extension: 'src/entry.ts' }, outdir: 'dist' },
    { ...nodeOptions, entryPoints: { core: 'src/extension.ts' }, outdir: 'dist' },
    { ...nodeOptions, entryPoints: { transport: 'src/api/transport.ts' }, outdir: 'dist' },
    { ...nodeOptions, entryPoints: { markdown: 'src/runView/page/markdown.ts' }, outdir: 'dist' },
    { ...nodeOptions, entryPoints: { testApi: 'src/testApi.ts' }, outdir: 'dist' },
    { ...nodeOptions, entryPoints: { traceViews: 'src/runView/traceViews.ts', chatTrace: 'src/chat/traceText.ts', chat: 'src/chat/chatHandlers.ts', crewFiles: 'src/crews/crewFileCount.ts', jsonProblem: 'src/kickoff/jsonProblem.ts', batchTables: 'src/batches/core/source.ts', triggerKickoff: 'src/platform/triggerKickoff.ts', chatPicker: 'src/flowChat/pickChatFlow.ts', chatWords: 'src/flowChat/chatWords.ts', deployActions: 'src/platform/deployActions.ts', signIn: 'src/platform/signIn.ts', suiteExplorer: 'src/suites/suiteFeature.ts' }, outdir: 'dist' },
    // The simulator library, loaded lazily by the extension for the demo crews…
    { ...nodeOptions, entryPoints: { simulator: 'src/simulator/server.ts' }, outdir: 'dist' },
    // …and its command line (`npm run simulator`).
    // (plain Node: no `vscode` to translate with)
    { ...nodeOptions, entryPoints: { 'simulator-cli': 'src/simulator/main.ts' }, outdir: 'dist', plugins: nodeOptions.plugins.filter((p) => p !== vscodeL10nPlugin) },
    // The suites' core, also the script of its reader's worker thread (src/suites/core/parseThread.ts): a thread has no
    // `vscode`, so the plain l10n package, given the extension's translations (src/suites/core/lazy.ts useTranslations).
    { ...nodeOptions, entryPoints: { suites: 'src/suites/core/lazy.ts' }, outdir: 'dist', plugins: nodeOptions.plugins.filter((p) => p !== vscodeL10nPlugin) },
    // The suite runner for CI (`npm run suite`), plain Node like the simulator's.
    { ...nodeOptions, entryPoints: { 'suite-cli': 'src/suites/terminal/main.ts' }, outdir: 'dist', plugins: nodeOptions.plugins.filter((p) => p !== vscodeL10nPlugin) },
    {
      bundle: true,
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      minify: production,
      sourcemap: !production,
      sourcesContent: false,
      logLevel: 'warning',
      entryPoints: { runView: 'src/runView/page/runView.ts', batchResults: 'src/batches/page/batchResults.ts', flowChat: 'src/flowChat/page/chatPage.ts' },
      outdir: 'media/dist',
      plugins: [workerSourcePlugin(production), problemMatcherPlugin],
    },
  ];
}

const builds = makeBuilds(production);

/** The run view's icon font: copied beside the page script (media/ is the webview's only resource root). */
function copyCodicons() {
  const fs = require('fs');
  const from = path.join(__dirname, 'node_modules', '@vscode', 'codicons', 'dist');
  const to = path.join(__dirname, 'media', 'dist', 'codicons');
  fs.mkdirSync(to, { recursive: true });
  for (const file of ['codicon.css', 'codicon.ttf']) {
    fs.copyFileSync(path.join(from, file), path.join(to, file));
  }
}

async function main() {
  if (production) {
    // A packaged build must not carry a development build's source maps.
    for (const dir of ['dist', 'media/dist']) {
      require('fs').rmSync(path.join(__dirname, dir), { recursive: true, force: true });
    }
  }
  copyCodicons();
  if (watch) {
    const contexts = await Promise.all(builds.map((b) => esbuild.context(b)));
    await Promise.all(contexts.map((c) => c.watch()));
    return;
  }
  await Promise.all(builds.map((b) => esbuild.build(b)));
}

// The bench (bench/bundle.ts) builds the very same bundles into a folder of its own.
module.exports = { makeBuilds };

if (require.main === module) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
