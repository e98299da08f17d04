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
