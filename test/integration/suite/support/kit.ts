// Small shared utilities for the crews and kickoff suites: the typed test API, the quick input and
// notifications as the user sees them (through the UI bridge), and clean-up of what a test adds.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { RunRecord } from '../../../../src/runTracking/model';
import type { CrewRunsTestApi } from '../../../../src/testApi';
import type { CrewsTreeNode } from '../../../../src/sidebar/crewsTree';
import { executeCommand, getExtensionApi, selectors, ui, waitFor } from '../../helpers';
import type { QuickInputGuard } from '../../helpers/uiBridgeProtocol';

export type Api = CrewRunsTestApi;

export async function testApi(): Promise<Api> {
  const api = await getExtensionApi<Api | undefined>();
  assert.ok(api?.crews && api.runs && api.tree, 'the test API is exported (CREW_RUNS_TEST_HOOKS=1)');
  return api;
}

/** Generous deadlines: another suite may run on this 2-core machine at the same time. */
export const SLOW = { timeoutMs: 30_000 } as const;

/** Runs `work` in the light theme, then in the dark one, and puts back the theme the user settings had. */
export async function inLightAndDark(work: (kind: 'light' | 'dark') => Promise<void>): Promise<void> {
  const workbench = vscode.workspace.getConfiguration('workbench');
  const before = workbench.inspect<string>('colorTheme')?.globalValue;
  try {
    for (const [kind, theme, themeKind] of [
      ['light', 'Default Light Modern', vscode.ColorThemeKind.Light],
      ['dark', 'Default Dark Modern', vscode.ColorThemeKind.Dark],
    ] as const) {
      await workbench.update('colorTheme', theme, vscode.ConfigurationTarget.Global);
      await waitFor(() => vscode.window.activeColorTheme.kind === themeKind || undefined, { message: `the ${kind} theme applied`, ...SLOW });
      await work(kind);
    }
  } finally {
    await workbench.update('colorTheme', before, vscode.ConfigurationTarget.Global);
  }
}

/**
 * Text of the open quick input, or undefined when none is open. A quick input in its close
 * animation is still displayed for 150 ms with its old content (and inert): it does not count.
 * One look at the page as it is: a short wait for the selector read a slow page as "none open".
 */
export function quickInputText(): Promise<string | undefined> {
  return ui.textIfPresent(selectors.openQuickInput);
}

/** Waits until the open quick input's text matches (its title, prompt, items, validation message). */
export function waitForQuickInput(expected: string | RegExp, message?: string): Promise<string> {
  let last: string | undefined;
  return waitFor(
    async () => {
      const text = (last = await quickInputText());
      return text !== undefined && (typeof expected === 'string' ? text.includes(expected) : expected.test(text)) ? text : undefined;
    },
    { message: message ?? `quick input showing ${String(expected)}`, intervalMs: 200, ...SLOW },
  ).catch((error: Error) => {
    throw new Error(`${error.message}; the quick input showed ${JSON.stringify(last?.slice(0, 300))}`);
  });
}

export function waitForQuickInputClosed(): Promise<boolean> {
  return waitFor(async () => (await quickInputText()) === undefined, { message: 'the quick input to close', intervalMs: 200, ...SLOW });
}

/**
 * Keys for the quick input go through these, never plain ui.type/ui.press: the runner acts only
 * once a quick input is open (not closing), holds the keyboard focus and shows `when`, and checks
 * the result (the typed text in the box, the wanted active item) before Enter. A key sent a moment
 * early lands in the editor or in the previous step, and the test then fails elsewhere by chance.
 */
export interface QuickInputKeys {
  /** Text the open quick input must show first (its title, step, an item). */
  when?: string | RegExp;
  /** The quick pick's active item contains this: before the key pressed, or before the Enter after typed text. */
  activeItem?: string;
}

function guard(options: QuickInputKeys): QuickInputGuard {
  const { when, activeItem } = options;
  return {
    ...(typeof when === 'string' ? { contains: when } : when ? { matches: { source: when.source, flags: when.flags } } : {}),
    activeItem,
    timeoutMs: SLOW.timeoutMs,
  };
}

/** Types into the open quick input (appending to what it holds) and optionally presses Enter. */
export async function typeInQuickInput(text: string, options: QuickInputKeys & { enter?: boolean } = {}): Promise<void> {
  await ui.type(text, { enter: options.enter, quickInput: guard(options) });
}

/** Replaces the value of the open quick input's box with `text` and optionally presses Enter. */
export async function replaceValue(text: string, options: QuickInputKeys & { enter?: boolean } = {}): Promise<void> {
  await ui.type(text, { enter: options.enter, quickInput: { ...guard(options), replace: true } });
}

/** Presses a key ("Enter", "Escape", "ArrowDown") in the open quick input. */
export async function pressInQuickInput(key: string, options: QuickInputKeys = {}): Promise<void> {
  await ui.press(key, { quickInput: guard(options) });
}

/** Chooses the quick pick item containing `label`: types it as the filter, Enter once it is the active item. */
export async function pickInQuickInput(label: string, options: Omit<QuickInputKeys, 'activeItem'> = {}): Promise<void> {
  await typeInQuickInput(label, { ...options, activeItem: label, enter: true });
}

/**
 * Text of the notifications as listed in the notification center. Toasts are never drawn under the
 * runner (VS Code skips them with --enable-smoke-test-driver), so the center is where they show.
 */
export async function notificationsText(): Promise<string> {
  await executeCommand('notifications.showList');
  try {
    return await ui.text('.notifications-center', { timeoutMs: 2000 });
  } catch {
    return '';
  } finally {
    await executeCommand('notifications.hideList');
  }
}

export function waitForNotification(expected: string | RegExp): Promise<string> {
  let last = '';
  return waitFor(
    async () => {
      last = await notificationsText();
      return (typeof expected === 'string' ? last.includes(expected) : expected.test(last)) ? last : undefined;
    },
    { message: `a notification matching ${String(expected)} (center: ${JSON.stringify(last.replace(/\s+/g, ' ').slice(0, 300))})`, intervalMs: 500, ...SLOW },
  );
}

/**
 * Presses the primary (first) button of the notification whose text contains `expected`: the
 * notification center, the keyboard focus on that notification (not simply the newest: another
 * may have arrived after it), then notification.acceptPrimaryAction, which acts on the focused one
 * (Ctrl+Shift+A's command; the key itself did not reach it through the page).
 */
export async function acceptNotification(expected: string): Promise<void> {
  await executeCommand('notifications.showList');
  try {
    await ui.focusNotification(expected, { timeoutMs: SLOW.timeoutMs });
    await executeCommand('notification.acceptPrimaryAction');
  } finally {
    await executeCommand('notifications.hideList');
  }
}

export async function clearNotifications(): Promise<void> {
  await executeCommand('notifications.clearAll');
}

export interface ModalCall {
  message: string;
  detail?: string;
  items: string[];
}

/**
 * Modal dialogs are refused by the workbench under --enable-smoke-test-driver ("DialogService:
 * refused to show dialog in tests"), so they cannot be answered on screen. This answers the next
 * modal showWarningMessage with `answer` (the tests share the extension's `vscode` object) and
 * records what it asked; non-modal calls pass through.
 */
export function answerModal(answer: string | undefined): { calls: ModalCall[]; dispose(): void } {
  const window = vscode.window as unknown as Record<string, (...args: unknown[]) => unknown>;
  const original = window.showWarningMessage;
  const calls: ModalCall[] = [];
  window.showWarningMessage = (...args: unknown[]) => {
    const options = args[1] as { modal?: boolean; detail?: string } | undefined;
    if (typeof options === 'object' && options?.modal) {
      calls.push({ message: String(args[0]), detail: options.detail, items: args.slice(2).map(String) });
      return Promise.resolve(answer);
    }
    return original.apply(vscode.window, args);
  };
  return { calls, dispose: () => (window.showWarningMessage = original) };
}

/** What a command's promise resolved to, failing with `message` if it does not within `timeoutMs`: a command that
 *  never returns then names itself, instead of the test's timeout naming nothing. */
export async function settled<T>(promise: Thenable<T>, message: string, timeoutMs = 60_000): Promise<T> {
  let result: { value: T } | undefined;
  let failure: { error: unknown } | undefined;
  promise.then(
    (value) => (result = { value }),
    (error: unknown) => (failure = { error }),
  );
  await waitFor(() => result ?? failure, { message, timeoutMs });
  if (failure) {
    throw failure.error;
  }
  return result!.value;
}

/** Closes whatever quick input is open (tests that fail midway must not leave one behind). */
export async function closeQuickInput(): Promise<void> {
  for (let i = 0; i < 5 && (await quickInputText()) !== undefined; i++) {
    await executeCommand('workbench.action.closeQuickOpen');
  }
}

/** The crews tree's root rows as the user sees them: label, description, contextValue. */
export async function crewRows(api: Api): Promise<{ label: string; url: string; description: string; contextValue: string }[]> {
  const nodes = await api.tree.getChildren();
  const rows = [];
  for (const node of nodes ?? []) {
    if (node.type !== 'crew') {
      continue;
    }
    const item = await api.tree.getTreeItem(node);
    rows.push({
      label: typeof item.label === 'string' ? item.label : (item.label?.label ?? ''),
      url: node.crew.url,
      description: String(item.description ?? ''),
      contextValue: item.contextValue ?? '',
    });
  }
  return rows;
}

export async function crewRow(api: Api, url: string) {
  return (await crewRows(api)).find((row) => row.url === url);
}

/** Waits until the crew's tree row has this description (e.g. 'ready', 'token missing'). */
export function waitForCrewDescription(api: Api, url: string, description: string) {
  return waitFor(
    async () => {
      const row = await crewRow(api, url);
      return row?.description === description ? row : undefined;
    },
    { message: `crew ${url} described as '${description}'`, ...SLOW },
  ).catch(async (error: Error) => {
    const row = await crewRow(api, url);
    throw new Error(`${error.message}; last row: ${JSON.stringify(row)}`);
  });
}

/** What windows compare of a run: its index summary, without the inputs. */
export type RunSummary = Pick<RunRecord, 'id' | 'crewUrl' | 'kickoffId' | 'state' | 'watching' | 'stopReason' | 'needsFeedback' | 'warning' | 'label'>;

export function runSummaries(api: Api): RunSummary[] {
  return api.runs.list().map(({ id, crewUrl, kickoffId, state, watching, stopReason, needsFeedback, warning, label }) => ({
    id,
    crewUrl,
    kickoffId,
    state,
    watching,
    stopReason,
    needsFeedback,
    warning,
    label,
  }));
}

/** A tree row as the user sees it; runs are leaves (their tasks are not listed). */
export interface TreeRow {
  type: string;
  /** A run's id, or a crew's URL. */
  id?: string;
  label: string;
  description: string;
  contextValue: string;
  tooltip: string;
  children: TreeRow[];
}

async function treeRow(api: Api, node: CrewsTreeNode, depth: number): Promise<TreeRow> {
  const item = await api.tree.getTreeItem(node);
  const expand = depth > 0 && node.type !== 'run' && item.collapsibleState !== vscode.TreeItemCollapsibleState.None;
  const children = expand ? await Promise.all(((await api.tree.getChildren(node)) ?? []).map((child) => treeRow(api, child, depth - 1))) : [];
  return {
    type: node.type,
    id: 'runId' in node ? node.runId : 'crew' in node ? node.crew.url : undefined,
    label: typeof item.label === 'string' ? item.label : (item.label?.label ?? ''),
    description: typeof item.description === 'string' ? item.description : '',
    contextValue: item.contextValue ?? '',
    tooltip: typeof item.tooltip === 'string' ? item.tooltip : (item.tooltip?.value ?? ''),
    children,
  };
}

/** The whole crews tree: root rows (crews, and any group node) down to the runs. */
export async function treeRows(api: Api): Promise<TreeRow[]> {
  return Promise.all(((await api.tree.getChildren()) ?? []).map((node) => treeRow(api, node, 3)));
}

/** Every row of the tree, flattened, with the labels of the rows above it. */
export function flatRows(rows: TreeRow[], parents: string[] = []): (TreeRow & { path: string[] })[] {
  return rows.flatMap((row) => [{ ...row, path: parents }, ...flatRows(row.children, [...parents, row.label])]);
}

/** Forgets every user crew, workspace crew and demo crew a suite added. Tokens go through the commands. */
export async function removeAllCrews(api: Api): Promise<void> {
  for (const crew of api.crews.list()) {
    if (await api.crews.hasToken(crew.url)) {
      await api.forgetToken(crew.url);
    }
  }
  await vscode.workspace.getConfiguration().update('crewRuns.crews', undefined, vscode.ConfigurationTarget.Global);
  if (vscode.workspace.getConfiguration().inspect('crewRuns.crews')?.workspaceValue !== undefined) {
    await vscode.workspace.getConfiguration().update('crewRuns.crews', undefined, vscode.ConfigurationTarget.Workspace);
  }
  await api.demo.dispose(); // The demo's crews go with it.
}

/** Removes every run of these crews from the store. */
export async function removeRunsOf(api: Api, urls: string[]): Promise<void> {
  for (const run of api.runs.list()) {
    if (urls.includes(run.crewUrl)) {
      await api.runs.remove(run.id);
    }
  }
}

/**
 * A JSON document in an editor, from a file of its own. Not an untitled editor: a closed "Untitled-3" gives
 * its name to the next untitled editor, and the extension host can hand back the closed one's document (and
 * text) for it, so the extension reads the last case's JSON.
 */
export async function openJsonEditor(content: string): Promise<{ document: vscode.TextDocument; close(): Promise<void> }> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'crew-runs-json-'));
  const file = path.join(dir, 'inputs.json');
  await fs.promises.writeFile(file, content);
  const document = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  assert.strictEqual(document.getText(), content, 'the editor holds the JSON just written');
  await vscode.window.showTextDocument(document);
  const tabs = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === document.uri.toString());
  return {
    document,
    /** Closes its tabs (and waits until they are gone) and deletes the file. */
    close: async () => {
      await vscode.window.tabGroups.close(tabs());
      await waitFor(() => tabs().length === 0 && !vscode.window.visibleTextEditors.some((e) => e.document === document), { message: 'the JSON editor closed', timeoutMs: 30_000 });
      await fs.promises.rm(dir, { recursive: true, force: true });
    },
  };
}

/** The run folder of this test run (parent of user-data), where the server keeps every file it writes. */
export function runTempDir(): string | undefined {
  const logs = process.env.CREW_RUNS_TEST_LOGS_DIR;
  return logs ? path.dirname(path.dirname(logs)) : undefined;
}

export function userSettingsFile(): string | undefined {
  const logs = process.env.CREW_RUNS_TEST_LOGS_DIR;
  return logs ? path.join(path.dirname(logs), 'User', 'settings.json') : undefined;
}

/** Files under `root` (recursively) whose content contains `needle`. */
export function filesContaining(root: string, needle: string, skip: (file: string) => boolean = () => false): { files: number; hits: string[] } {
  let files = 0;
  const hits: string[] = [];
  const visit = (dir: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (skip(full)) {
        continue;
      }
      if (entry.isDirectory()) {
        visit(full);
      } else if (entry.isFile()) {
        try {
          if (fs.statSync(full).size > 50_000_000) {
            continue;
          }
          files++;
          if (fs.readFileSync(full).includes(needle)) {
            hits.push(full);
          }
        } catch {
          // Gone meanwhile.
        }
      }
    }
  };
  visit(root);
  return { files, hits };
}
