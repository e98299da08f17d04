// The few `vscode` API pieces the tree provider and the platform's health and log documents use, so they run
// in plain Node for the history and platform benchmarks. Installed with `installVscodeStub()` before src/views is loaded.
import Module from 'node:module';

class Disposable {
  constructor(private readonly fn: () => void = () => undefined) {}
  static from(...items: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => items.forEach((i) => i.dispose()));
  }
  dispose(): void {
    this.fn();
  }
}

class EventEmitter<T> {
  private listeners: ((e: T) => void)[] = [];
  event = (listener: (e: T) => void) => {
    this.listeners.push(listener);
    return new Disposable(() => (this.listeners = this.listeners.filter((l) => l !== listener)));
  };
  fire(e: T): void {
    this.listeners.forEach((l) => l(e));
  }
  dispose(): void {
    this.listeners = [];
  }
}

class TreeItem {
  id?: string;
  description?: string;
  tooltip?: unknown;
  iconPath?: unknown;
  contextValue?: string;
  command?: unknown;
  constructor(public label: string, public collapsibleState = 0) {}
}

class ThemeIcon {
  constructor(public id: string, public color?: ThemeColor) {}
}
class ThemeColor {
  constructor(public id: string) {}
}
class MarkdownString {
  value = '';
  appendMarkdown(s: string): this {
    this.value += s;
    return this;
  }
  appendText(s: string): this {
    this.value += s.replace(/[\\`*_{}[\]()#+\-.!]/g, '\\$&');
    return this;
  }
}

const l10n = {
  t: (message: string, ...args: unknown[]) => message.replace(/\{(\d+)\}/g, (_, i: string) => String(args[Number(i)])),
};

export const vscodeStub = {
  Disposable,
  // DeploymentHealth listens for focus; the bench refreshes by hand.
  window: { onDidChangeWindowState: () => new Disposable() },
  EventEmitter,
  TreeItem,
  TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
  ThemeIcon,
  ThemeColor,
  MarkdownString,
  l10n,
};

export function installVscodeStub(): void {
  const moduleWithLoad = Module as unknown as { _load(request: string, ...rest: unknown[]): unknown };
  const load = moduleWithLoad._load;
  moduleWithLoad._load = function (request: string, ...rest: unknown[]) {
    return request === 'vscode' ? vscodeStub : load.call(this, request, ...rest);
  };
}
