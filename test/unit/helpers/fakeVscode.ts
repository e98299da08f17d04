// Just enough of the `vscode` module to build tree items and tooltips in plain Node. Its MarkdownString
// appends exactly as VS Code's does (src/vs/base/common/htmlContent.ts: appendText escapes only
// \`*_{}[]()#+-!~, `>` and icons, and turns spaces into &nbsp;), so what a tooltip holds is what the hover renders.
import Module from 'node:module';

const escapeIcons = (text: string) => text.replace(/(\\)?\$\([a-z0-9-]+?(?:~[a-z0-9-]*?)?\)/gi, (match, escaped) => (escaped ? match : `\\${match}`));

export class FakeMarkdownString {
  supportThemeIcons: boolean;
  isTrusted: boolean;
  constructor(
    public value = '',
    supportThemeIcons = false,
  ) {
    this.supportThemeIcons = supportThemeIcons;
    this.isTrusted = false;
  }
  appendText(value: string): this {
    this.value += (this.supportThemeIcons ? escapeIcons(value) : value)
      .replace(/[\\`*_{}[\]()#+\-!~]/g, '\\$&')
      .replace(/([ \t]+)/g, (_match, g1: string) => '&nbsp;'.repeat(g1.length))
      .replace(/>/gm, '\\>')
      .replace(/\n/g, '\n\n');
    return this;
  }
  appendMarkdown(value: string): this {
    this.value += value;
    return this;
  }
}

class TreeItem {
  id?: string;
  description?: string;
  tooltip?: unknown;
  iconPath?: unknown;
  contextValue?: string;
  command?: unknown;
  constructor(
    public label: string,
    public collapsibleState = 0,
  ) {}
}

/** `l10n.t` filling in `{0}`… as VS Code does. */
const t = (message: string, ...args: unknown[]) => message.replace(/\{(\d+)\}/g, (match, i: string) => (args[Number(i)] === undefined ? match : String(args[Number(i)])));

export const fakeVscode = {
  MarkdownString: FakeMarkdownString,
  TreeItem,
  TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
  ThemeIcon: class {
    constructor(
      public id: string,
      public color?: unknown,
    ) {}
  },
  ThemeColor: class {
    constructor(public id: string) {}
  },
  StatusBarAlignment: { Left: 1, Right: 2 },
  CommentMode: { Editing: 0, Preview: 1 },
  CommentThreadState: { Unresolved: 0, Resolved: 1 },
  CommentThreadCollapsibleState: { Collapsed: 0, Expanded: 1 },
  Disposable: { from: (...items: { dispose(): void }[]) => ({ dispose: () => items.forEach((i) => i.dispose()) }) },
  window: {
    createStatusBarItem: () => ({ text: '', tooltip: undefined as unknown, show: () => undefined, hide: () => undefined, dispose: () => undefined }),
  },
  l10n: { t },
};

/** Requires `modulePath` (resolved by the caller) with `fakeVscode` as its `vscode`, fresh each time. */
export function requireWithFakeVscode<T>(modulePath: string): T {
  const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const load = loader._load;
  loader._load = function (request: string, ...rest: unknown[]) {
    return request === 'vscode' ? fakeVscode : load.call(this, request, ...rest);
  };
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(modulePath) as T;
  } finally {
    loader._load = load;
  }
}

/** VS Code's EventEmitter as listeners see it: `event` subscribes, `fire` calls each listener in order. */
export class FakeEventEmitter<T> {
  private readonly listeners = new Set<(e: T) => unknown>();
  readonly event = (listener: (e: T) => unknown) => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };
  fire(e: T): void {
    for (const listener of [...this.listeners]) {
      listener(e);
    }
  }
  dispose(): void {
    this.listeners.clear();
  }
}

/**
 * Requires each of `modulePaths` with `vscode` as their `vscode`, as one program: a module they share is one
 * instance. The modules of src/platform, src/ui and src/crews are taken out of the cache meanwhile, so they are
 * loaded afresh with these (another test may have loaded them with another fake), and the cache is put back as it
 * was afterwards: other tests keep the instances they have.
 */
export function requireFreshWith(modulePaths: string[], vscode: unknown): unknown[] {
  const fresh = /[\\/]out[\\/]src[\\/](platform|ui|crews)[\\/]/;
  const matching = () => Object.keys(require.cache).filter((file) => fresh.test(file));
  const before = new Map(matching().map((file) => [file, require.cache[file]]));
  before.forEach((_module, file) => delete require.cache[file]);
  const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const load = loader._load;
  loader._load = function (request: string, ...rest: unknown[]) {
    return request === 'vscode' ? vscode : load.call(this, request, ...rest);
  };
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return modulePaths.map((modulePath) => require(modulePath) as unknown);
  } finally {
    loader._load = load;
    matching().forEach((file) => delete require.cache[file]);
    before.forEach((module, file) => (require.cache[file] = module));
  }
}

/** Serves `exports` as the module `file` (a resolved path) to whatever requires it, until the returned function is called. */
export function stubModule(file: string, exports: unknown): () => void {
  const previous = require.cache[file];
  const stub = new Module(file);
  stub.filename = file;
  stub.loaded = true;
  stub.exports = exports;
  require.cache[file] = stub;
  return () => {
    if (previous) {
      require.cache[file] = previous;
    } else {
      delete require.cache[file];
    }
  };
}
