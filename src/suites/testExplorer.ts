// The "Crew Suites" test controller: the workspace's suite files (SUITE_FILE_GLOB) as test items — a suite, its
// cases, and a case's repeats — with ranges, so the ▶ shows in the suite file's gutter; kept current as files change
// (a file watcher, and open editors as they are typed in); each suite's problems in the Problems panel at their line.
// Running them is suiteTestRun.ts's.
import * as vscode from 'vscode';
import type * as Core from './core/lazy';
import type { ParsedSuite, SourceRange, SuiteCase } from './core/types';

export type SuiteCore = typeof Core;

export const SUITES_CONTROLLER_ID = 'crewRuns.suites';

export interface SuiteFile {
  uri: vscode.Uri;
  /** The file's URI as a string: the suite's item id and its history's key. */
  key: string;
  parsed: ParsedSuite;
  item: vscode.TestItem;
}

/** What a test item stands for: a suite, one of its cases, or one run of a case (`itemId`: the core's SuiteItem id). */
export interface ItemRef {
  file: SuiteFile;
  caseName?: string;
  itemId?: string;
}

/** Where suites are not looked for: dependencies and version control. */
const EXCLUDE = '{**/node_modules/**,**/.git/**}';
/** An edited suite is read again this long after the last keystroke. */
const REREAD_MS = 300;

export class SuiteExplorer implements vscode.Disposable {
  readonly controller: vscode.TestController;
  private readonly files = new Map<string, SuiteFile>();
  private readonly refs = new WeakMap<vscode.TestItem, ItemRef>();
  private readonly problems: vscode.DiagnosticCollection;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly rereads = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly inFlight = new Set<Promise<ParsedSuite>>();
  private disposed = false;
  private discovery: Promise<void>;
  /** Each file's newest reading asked for: an older one that comes back later is dropped. */
  private readonly readings = new Map<string, number>();
  private readingCount = 0;
  private readonly changed = new vscode.EventEmitter<void>();
  /** A suite was read (again), added or removed. */
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly core: SuiteCore,
    /** Reads suite files off the extension host's thread (the core's SuiteParser). */
    private readonly parser: { parse(text: string, fallbackName: string): Promise<ParsedSuite> },
  ) {
    this.controller = vscode.tests.createTestController(SUITES_CONTROLLER_ID, vscode.l10n.t('Crew Suites'));
    this.problems = vscode.languages.createDiagnosticCollection('crewSuites');
    this.controller.resolveHandler = async (item) => {
      if (!item) {
        await this.discovery;
      }
    };
    this.controller.refreshHandler = () => this.discoverAll();
    const watcher = vscode.workspace.createFileSystemWatcher(core.SUITE_FILE_GLOB);
    this.disposables.push(
      this.controller,
      this.problems,
      this.changed,
      watcher,
      watcher.onDidCreate((uri) => void this.readFromDisk(uri)),
      watcher.onDidChange((uri) => {
        // An editor with unsaved changes holds what the user sees: it is read as it is typed.
        if (!this.openDocument(uri)?.isDirty) {
          void this.readFromDisk(uri);
        }
      }),
      watcher.onDidDelete((uri) => this.remove(uri)),
      vscode.workspace.onDidOpenTextDocument((document) => this.isSuite(document.uri) && void this.readDocument(document)),
      vscode.workspace.onDidChangeTextDocument((e) => this.isSuite(e.document.uri) && this.rereadSoon(e.document)),
      // Closed without saving: the file on disk is the suite again (or none, if it never was saved).
      vscode.workspace.onDidCloseTextDocument((document) => this.isSuite(document.uri) && void this.readFromDisk(document.uri)),
      vscode.workspace.onDidChangeWorkspaceFolders(() => void (this.discovery = this.discoverAll())),
    );
    this.discovery = this.discoverAll();
  }

  /** Resolves once the workspace's suites are read (and any edit waiting to be read is). */
  async settled(): Promise<void> {
    await this.discovery;
    const edited = vscode.workspace.textDocuments.filter((document) => this.rereads.has(document.uri.toString()));
    await Promise.all([...edited.map((document) => this.readDocument(document)), ...this.inFlight]);
  }

  list(): SuiteFile[] {
    return [...this.files.values()].sort((a, b) => a.parsed.suite.name.localeCompare(b.parsed.suite.name));
  }

  get(key: string): SuiteFile | undefined {
    return this.files.get(key);
  }

  refOf(item: vscode.TestItem): ItemRef | undefined {
    const ref = this.refs.get(item);
    // An item of an older reading of its file: the current one of the same ids, if it still exists.
    return ref && this.files.get(ref.file.key) === ref.file ? ref : ref && this.resolve(ref.file.key, ref.caseName, ref.itemId);
  }

  /** The current item of a suite, case or case run by its ids. */
  resolve(key: string, caseName?: string, itemId?: string): ItemRef | undefined {
    const file = this.files.get(key);
    if (!file) {
      return undefined;
    }
    if (caseName === undefined) {
      return { file };
    }
    const suiteCase = file.parsed.suite.cases.find((c) => c.name === caseName);
    if (!suiteCase) {
      return undefined;
    }
    return itemId === undefined || itemId === caseName || suiteCase.repeat > 1 ? { file, caseName, itemId } : undefined;
  }

  /** The test item a suite item's result is reported on: the case's own when it runs once, else its repeat's. */
  leafItem(file: SuiteFile, caseName: string, itemId: string): vscode.TestItem | undefined {
    const caseItem = file.item.children.get(caseName);
    return caseItem && (caseItem.children.size > 0 ? caseItem.children.get(itemId) : caseItem);
  }

  private async discoverAll(): Promise<void> {
    let uris: vscode.Uri[];
    try {
      uris = await vscode.workspace.findFiles(this.core.SUITE_FILE_GLOB, EXCLUDE);
    } catch {
      uris = [];
    }
    const found = new Set(uris.map((uri) => uri.toString()));
    for (const key of [...this.files.keys()]) {
      const file = this.files.get(key)!;
      if (!found.has(key) && !this.openDocument(file.uri)) {
        this.remove(file.uri);
      }
    }
    for (const uri of uris) {
      await this.readFromDisk(uri);
    }
    for (const document of vscode.workspace.textDocuments) {
      if (this.isSuite(document.uri)) {
        await this.readDocument(document);
      }
    }
  }

  private isSuite(uri: vscode.Uri): boolean {
    return (uri.scheme === 'file' || uri.scheme === 'vscode-remote' || uri.scheme === 'untitled') && this.core.isSuiteFileName(uri.path);
  }

  private openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
    const key = uri.toString();
    return vscode.workspace.textDocuments.find((document) => document.uri.toString() === key);
  }

  private rereadSoon(document: vscode.TextDocument): void {
    const key = document.uri.toString();
    clearTimeout(this.rereads.get(key));
    this.rereads.set(
      key,
      setTimeout(() => void this.readDocument(document), REREAD_MS),
    );
  }

  private async readDocument(document: vscode.TextDocument): Promise<void> {
    const key = document.uri.toString();
    clearTimeout(this.rereads.get(key));
    this.rereads.delete(key);
    if (!document.isClosed) {
      await this.read(document.uri, document.getText());
    }
  }

  /** Parses a suite's text off the host's thread; applies it unless a newer reading of the file was asked for meanwhile. */
  private async read(uri: vscode.Uri, text: string): Promise<void> {
    const key = uri.toString();
    const reading = ++this.readingCount;
    this.readings.set(key, reading);
    const parsing = this.parser.parse(text, fallbackName(uri));
    this.inFlight.add(parsing);
    try {
      const parsed = await parsing;
      if (this.readings.get(key) === reading && !this.disposed) {
        this.apply(uri, parsed);
      }
    } finally {
      this.inFlight.delete(parsing);
    }
  }

  private async readFromDisk(uri: vscode.Uri): Promise<void> {
    const document = this.openDocument(uri);
    if (document && !document.isClosed) {
      await this.readDocument(document);
      return;
    }
    let bytes: Uint8Array;
    try {
      const stat = await vscode.workspace.fs.stat(uri);
      if (stat.size > this.core.SUITE_LIMITS.fileBytes) {
        const start = { line: 0, character: 0 };
        this.readings.set(uri.toString(), ++this.readingCount);
        this.apply(uri, {
          suite: { name: fallbackName(uri), concurrency: this.core.SUITE_LIMITS.defaultConcurrency, cases: [], range: { start, end: start } },
          problems: [{ range: { start, end: start }, severity: 'error', message: vscode.l10n.t('The suite file is larger than {0} MB: it is not read.', this.core.SUITE_LIMITS.fileBytes / 1024 / 1024) }],
        });
        return;
      }
      bytes = await vscode.workspace.fs.readFile(uri);
    } catch {
      this.remove(uri); // Gone (or unreadable) meanwhile.
      return;
    }
    await this.read(uri, new TextDecoder().decode(bytes));
  }

  private apply(uri: vscode.Uri, parsed: ParsedSuite): void {
    const key = uri.toString();
    const { suite, problems } = parsed;
    let item = this.controller.items.get(key);
    if (!item) {
      item = this.controller.createTestItem(key, suite.name, uri);
      this.controller.items.add(item);
    }
    item.label = suite.name;
    item.range = toRange(suite.range);
    item.description = suite.crew ? (suite.crew.kind === 'url' ? suite.crew.url : suite.crew.name) : vscode.l10n.t('no crew named');
    const errors = problems.filter((p) => p.severity === 'error').length;
    item.error = suite.cases.length === 0 && errors > 0 ? vscode.l10n.t('No case to run: {0} problem(s), see the Problems panel.', errors) : undefined;
    const file: SuiteFile = { uri, key, parsed, item };
    this.refs.set(item, { file });
    item.children.replace(suite.cases.map((suiteCase, index) => this.caseItem(file, suiteCase, index)));
    this.files.set(key, file);
    this.problems.set(
      uri,
      problems.map((problem) => {
        const diagnostic = new vscode.Diagnostic(toRange(problem.range), problem.message, problem.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning);
        diagnostic.source = vscode.l10n.t('Crew Suites');
        return diagnostic;
      }),
    );
    this.changed.fire();
  }

  private caseItem(file: SuiteFile, suiteCase: SuiteCase, index: number): vscode.TestItem {
    const item = this.controller.createTestItem(suiteCase.name, suiteCase.name, file.uri);
    item.range = toRange(suiteCase.range);
    item.sortText = String(index).padStart(6, '0');
    this.refs.set(item, { file, caseName: suiteCase.name, itemId: suiteCase.repeat > 1 ? undefined : suiteCase.name });
    if (suiteCase.repeat > 1) {
      item.description = vscode.l10n.t('×{0}', suiteCase.repeat);
      const repeats: vscode.TestItem[] = [];
      for (const suiteItem of this.core.suiteItems({ ...file.parsed.suite, cases: [suiteCase] })) {
        const repeat = this.controller.createTestItem(suiteItem.id, `#${suiteItem.repeat}`, file.uri);
        repeat.range = item.range;
        repeat.sortText = String(suiteItem.repeat).padStart(4, '0');
        this.refs.set(repeat, { file, caseName: suiteCase.name, itemId: suiteItem.id });
        repeats.push(repeat);
      }
      item.children.replace(repeats);
    }
    return item;
  }

  private remove(uri: vscode.Uri): void {
    const key = uri.toString();
    this.readings.set(key, ++this.readingCount); // A reading still under way is of a file that is gone.
    if (this.files.delete(key)) {
      this.controller.items.delete(key);
      this.problems.delete(uri);
      this.changed.fire();
    }
  }

  dispose(): void {
    this.disposed = true;
    for (const timer of this.rereads.values()) {
      clearTimeout(timer);
    }
    vscode.Disposable.from(...this.disposables).dispose();
  }
}

export function toRange(range: SourceRange): vscode.Range {
  return new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
}

/** A suite without `name:` is named after its file, without `.crew-suite.yaml`. */
function fallbackName(uri: vscode.Uri): string {
  const base = uri.path.slice(uri.path.lastIndexOf('/') + 1);
  return base.replace(/\.crew-suite\.ya?ml$/i, '') || base;
}
