// The long-value editor: one input's value in an untitled editor named after the input ("topic.md"), with controls that last as long
// as the document (a CodeLens "Use This Text | Discard" on its first line and the same two as editor title
// actions), not a notification's button that VS Code hides after a few seconds. Kick Off waits until the
// user decides; closing the editor keeps the text when it was changed (what was typed is never lost).
import * as vscode from 'vscode';
import { parseInputValue } from '../api/inputValues';
import { showStatusMessage } from '../ui/notify';
import { safeFileName } from '../util/fileName';

interface Pending {
  document: vscode.TextDocument;
  original: string;
  decide(text: string | undefined): void;
  /** A JSON value's input name: its text is checked as it changes, the error shown where it is. */
  jsonInput?: string;
  /** The status bar's hint, gone once the value is decided. */
  hint?: vscode.Disposable;
}

const pending = new Map<string, Pending>();
let editRequest: (() => void) | undefined;
let toggleRequest: (() => void) | undefined;

/**
 * What watches documents and editors while a value is in an editor (its CodeLens, its JSON errors, closing
 * it): made for the first such editor and disposed with the last, so no document change or editor switch of
 * the window is looked at otherwise.
 */
interface Watch extends vscode.Disposable {
  problems: vscode.DiagnosticCollection;
  lensesChanged: vscode.EventEmitter<void>;
}
let watch: Watch | undefined;

/** Commands of the long-value editor; registered with the kickoff commands. */
export function registerValueEditor(): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('crewRuns.useInputText', (arg?: unknown) => decide(arg, 'use')),
    vscode.commands.registerCommand('crewRuns.discardInputText', (arg?: unknown) => decide(arg, 'discard')),
    vscode.commands.registerCommand('crewRuns.editInputInEditor', () => editRequest?.()),
    vscode.commands.registerCommand('crewRuns.toggleInputJson', () => toggleRequest?.()),
    { dispose: () => stopWatching() },
  ];
}

function startWatching(): Watch {
  if (watch) {
    return watch;
  }
  const problems = vscode.languages.createDiagnosticCollection('crewRuns.inputJson');
  const lensesChanged = new vscode.EventEmitter<void>();
  const parts = vscode.Disposable.from(
    problems,
    lensesChanged,
    vscode.workspace.onDidChangeTextDocument((event) => checkJson(pending.get(event.document.uri.toString()))),
    vscode.languages.registerCodeLensProvider({ scheme: 'untitled' }, {
      onDidChangeCodeLenses: lensesChanged.event,
      provideCodeLenses: (document) => {
        const key = document.uri.toString();
        if (!pending.has(key)) {
          return [];
        }
        const top = new vscode.Range(0, 0, 0, 0);
        return [
          new vscode.CodeLens(top, { title: `$(check) ${vscode.l10n.t('Use This Text')}`, command: 'crewRuns.useInputText', arguments: [key] }),
          new vscode.CodeLens(top, { title: `$(discard) ${vscode.l10n.t('Discard')}`, command: 'crewRuns.discardInputText', arguments: [key] }),
        ];
      },
    }),
    vscode.window.onDidChangeActiveTextEditor(updateContext),
    vscode.workspace.onDidCloseTextDocument((document) => {
      const entry = pending.get(document.uri.toString());
      if (entry) {
        const text = document.getText();
        finish(entry, text !== entry.original ? text : undefined);
      }
    }),
  );
  watch = { problems, lensesChanged, dispose: () => parts.dispose() };
  return watch;
}

function stopWatching(): void {
  watch?.dispose();
  watch = undefined;
}

/**
 * While a Kick Off input step is open: what the "edit in an editor" keybinding (and command) does, so the
 * editor is reachable without the mouse. Returns what stops it when the step ends.
 */
export function offerEditInEditor(handler: () => void, toggleJson?: () => void): vscode.Disposable {
  editRequest = handler;
  toggleRequest = toggleJson;
  void vscode.commands.executeCommand('setContext', 'crewRuns.kickoffInputStep', true);
  return new vscode.Disposable(() => {
    if (editRequest === handler) {
      editRequest = undefined;
      toggleRequest = undefined;
      void vscode.commands.executeCommand('setContext', 'crewRuns.kickoffInputStep', false);
    }
  });
}

/** Opens the value in an editor and waits for Use This Text (its text), Discard or closing unchanged (undefined). */
export async function editInEditor(name: string, value: string, language: 'markdown' | 'json' = 'markdown'): Promise<string | undefined> {
  const document = await openNamed(name, value, language);
  const { lensesChanged } = startWatching();
  const decided = new Promise<string | undefined>((resolve) => {
    const entry: Pending = { document, original: value, decide: resolve, jsonInput: language === 'json' ? name : undefined };
    pending.set(document.uri.toString(), entry);
    checkJson(entry);
  });
  lensesChanged.fire();
  await vscode.window.showTextDocument(document, { preview: false });
  updateContext();
  const entry = pending.get(document.uri.toString());
  if (entry) {
    entry.hint = showStatusMessage(vscode.l10n.t('Editing the value of "{0}": Use This Text or Discard above the text.', name), 10_000);
  }
  return decided;
}

/** An untitled document named after the input (its tab says whose value it is), holding `value`. */
async function openNamed(name: string, value: string, language: 'markdown' | 'json'): Promise<vscode.TextDocument> {
  const base = safeFileName(name);
  const extension = language === 'json' ? 'json' : 'md';
  const open = new Set(vscode.workspace.textDocuments.map((document) => document.uri.toString()));
  let uri = vscode.Uri.from({ scheme: 'untitled', path: `${base}.${extension}` });
  for (let n = 2; open.has(uri.toString()); n++) {
    uri = vscode.Uri.from({ scheme: 'untitled', path: `${base} (${n}).${extension}` });
  }
  const document = await vscode.languages.setTextDocumentLanguage(await vscode.workspace.openTextDocument(uri), language);
  if (value !== '') {
    const edit = new vscode.WorkspaceEdit();
    edit.insert(uri, new vscode.Position(0, 0), value);
    await vscode.workspace.applyEdit(edit);
  }
  return document;
}

async function decide(arg: unknown, choice: 'use' | 'discard'): Promise<void> {
  const key = typeof arg === 'string' ? arg : arg instanceof vscode.Uri ? arg.toString() : vscode.window.activeTextEditor?.document.uri.toString();
  const entry = key === undefined ? undefined : pending.get(key);
  if (!entry) {
    return;
  }
  const text = choice === 'use' ? entry.document.getText() : undefined;
  forget(entry);
  // Closed without a save prompt (the text now lives in the kickoff, or was discarded on purpose), before
  // the kickoff's next step shows.
  await vscode.window.showTextDocument(entry.document, { preview: false });
  await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  entry.decide(text);
}

function finish(entry: Pending, text: string | undefined): void {
  forget(entry);
  entry.decide(text);
}

/** The JSON of an input's editor as it is typed: its error at its line and column (JSON.parse does not recurse). */
function checkJson(entry: Pending | undefined): void {
  if (!entry?.jsonInput) {
    return;
  }
  const parsed = parseInputValue(entry.jsonInput, entry.document.getText());
  if (parsed.ok) {
    watch?.problems.delete(entry.document.uri);
    return;
  }
  const at = new vscode.Position(Math.max(0, (parsed.line ?? 1) - 1), Math.max(0, (parsed.column ?? 1) - 1));
  const range = entry.document.validateRange(new vscode.Range(at, at.translate(0, 1)));
  watch?.problems.set(entry.document.uri, [new vscode.Diagnostic(range, parsed.message, vscode.DiagnosticSeverity.Error)]);
}

function forget(entry: Pending): void {
  entry.hint?.dispose();
  watch?.problems.delete(entry.document.uri);
  pending.delete(entry.document.uri.toString());
  watch?.lensesChanged.fire();
  updateContext();
  if (pending.size === 0) {
    stopWatching();
  }
}

function updateContext(): void {
  const active = vscode.window.activeTextEditor?.document.uri.toString();
  void vscode.commands.executeCommand('setContext', 'crewRuns.inputValueEditor', active !== undefined && pending.has(active));
}
