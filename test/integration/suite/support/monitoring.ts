// Shared by monitoring.test.ts and feedback.test.ts: the test API, crews served by the simulator,
// tree items, log lines, status bar and notification text, and a pass-through spy on notifications.
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { CrewRegistry } from '../../../../src/crews/crewRegistry';
import type { RunRecord, StateChange } from '../../../../src/runTracking/model';
import type { PollerInspection, RunPoller } from '../../../../src/runTracking/poller';
import type { RunStore } from '../../../../src/runTracking/runStore';
import type { Simulator } from '../../../../src/simulator/server';
import type { CrewsTreeNode, CrewsTreeProvider } from '../../../../src/sidebar/crewsTree';
import type { FeedbackReviews } from '../../../../src/feedback/feedbackReview';
import type { RunPanelProbe } from '../../../../src/runView/runPanelProbe';
import { addCrewWithToken, executeCommand, getExtensionApi, readLog, selectors, ui, waitFor, kickOffWithoutReview } from '../../helpers';


export interface Api {
  runs: RunStore;
  crews: CrewRegistry;
  poller: RunPoller;
  inspection: { poller: PollerInspection };
  tree: CrewsTreeProvider;
  reviews: FeedbackReviews;
  /** What each run view shows (test hooks). */
  panels: RunPanelProbe;
  logUri: vscode.Uri;
  /** Stops without the confirmation (the command always asks). */
  stopRun(runId: string): Promise<string>;
}

export async function testApi(): Promise<Api> {
  const api = await getExtensionApi<Api | undefined>();
  assert.ok(api?.runs && api.poller && api.tree && api.reviews, 'the test API is exported (CREW_RUNS_TEST_HOOKS=1)');
  return api;
}

/** Adds every crew the simulator serves (org token), named "<prefix> <crew name>". Returns their URLs by crew id. */
export async function addSimulatorCrews(api: Api, sim: Simulator, prefix: string): Promise<Record<string, { url: string; name: string }>> {
  const added: Record<string, { url: string; name: string }> = {};
  for (const crew of sim.crews) {
    const name = `${prefix} ${crew.name}`;
    await addCrewWithToken({ url: crew.url, name, token: crew.orgToken });
    assert.ok(api.crews.get(crew.url), `crew ${name} was added`);
    added[crew.id] = { url: crew.url, name };
  }
  return added;
}

/** Removes the user crews and the given runs (the suites share one VS Code instance). */
export async function cleanUp(api: Api | undefined, runIds: Iterable<string>): Promise<void> {
  if (api) {
    for (const id of runIds) {
      await api.poller.stopWatching(id).catch(() => undefined);
      await api.runs.remove(id);
    }
  }
  await vscode.workspace.getConfiguration().update('crewRuns.crews', undefined, vscode.ConfigurationTarget.Global);
  await executeCommand('notifications.clearAll');
}

export async function kickOff(crewUrl: string, inputs: Record<string, string>): Promise<string> {
  const runId = await kickOffWithoutReview<string | undefined>({ crew: crewUrl, inputs });
  assert.ok(typeof runId === 'string', `kick off of ${crewUrl} returned a run id (got ${String(runId)})`);
  return runId;
}

export function waitForRun(api: Api, runId: string, check: (run: RunRecord) => boolean, message: string, timeoutMs = 90_000): Promise<RunRecord> {
  return waitFor(
    () => {
      const run = api.runs.get(runId);
      return run && check(run) ? run : undefined;
    },
    { message: `${message} (run now: ${JSON.stringify(summary(api.runs.get(runId)))})`, timeoutMs, intervalMs: 200 },
  );
}

function summary(run: RunRecord | undefined) {
  return run && { state: run.state, watching: run.watching, needsFeedback: run.needsFeedback, warning: run.warning, kickoffId: run.kickoffId };
}

export async function runItem(api: Api, runId: string): Promise<vscode.TreeItem> {
  return api.tree.getTreeItem(api.tree.runNode(runId));
}

export async function childItems(api: Api, node: CrewsTreeNode): Promise<vscode.TreeItem[]> {
  const children = await api.tree.getChildren(node);
  return Promise.all(children.map((child) => api.tree.getTreeItem(child)));
}

export function iconId(item: vscode.TreeItem): string | undefined {
  return item.iconPath instanceof vscode.ThemeIcon ? item.iconPath.id : undefined;
}

/** The log lines (message part) written about one run: `[<crew> · <label>] …`. */
export async function runLogLines(run: Pick<RunRecord, 'crewName' | 'label'>): Promise<string[]> {
  const prefix = `[${run.crewName} · ${run.label}] `;
  const lines = (await readLog()).split('\n');
  const result: string[] = [];
  for (const line of lines) {
    const at = line.indexOf(prefix);
    if (at >= 0) {
      const level = /\[(info|warning|error|debug|trace)\]/.exec(line.slice(0, at))?.[1] ?? '?';
      result.push(`${level}: ${line.slice(at + prefix.length)}`);
    }
  }
  return result;
}

export function statusBarText(): Promise<string> {
  return ui.text(selectors.statusBar);
}

export async function waitForStatusBar(check: (text: string) => boolean, message: string, timeoutMs = 60_000): Promise<string> {
  let last = '';
  return waitFor(
    async () => {
      last = await statusBarText();
      return check(last) ? last : undefined;
    },
    { message, timeoutMs, intervalMs: 300 },
  ).catch(async (error: Error) => {
    await ui.screenshot('monitoring-status-bar-wait-failed').catch(() => undefined);
    // The text read last, not the one when the wait began.
    throw new Error(`${error.message} (status bar: ${JSON.stringify(last.replace(/\s+/g, ' '))})`);
  });
}

/**
 * Text of the notifications as listed in the notification center. Toasts are never drawn under the
 * runner (VS Code skips them with --enable-smoke-test-driver), so the center is where they show.
 */
export async function notificationsText(): Promise<string> {
  await executeCommand('notifications.showList');
  try {
    return await ui.text(NOTIFICATION_CENTER, { timeoutMs: 2000 });
  } catch {
    return '';
  } finally {
    await executeCommand('notifications.hideList');
  }
}

export const NOTIFICATION_CENTER = '.notifications-center';

export async function waitForNotification(expected: string | RegExp, timeoutMs = 60_000): Promise<string> {
  let last = '';
  return waitFor(
    async () => {
      last = await notificationsText();
      return (typeof expected === 'string' ? last.includes(expected) : expected.test(last)) ? last : undefined;
    },
    { message: `a notification matching ${String(expected)} (center: ${JSON.stringify(last.replace(/\s+/g, ' ').slice(0, 500))})`, timeoutMs, intervalMs: 500 },
  );
}

export interface ShownMessage {
  level: 'info' | 'warning' | 'error';
  message: string;
  items: string[];
}

/**
 * Records every notification the extension asks for (the tests share the extension's `vscode`
 * object), passing each call through unchanged so it still appears on screen.
 */
export class MessageSpy implements vscode.Disposable {
  readonly shown: ShownMessage[] = [];
  private readonly originals: Partial<Record<'showInformationMessage' | 'showWarningMessage' | 'showErrorMessage' | 'setStatusBarMessage', unknown>> = {};

  /** `onShown`: told of each notification as it is shown (a second window writes them to a file). */
  constructor(onShown?: (message: ShownMessage) => void) {
    const window = vscode.window as unknown as Record<string, (...args: unknown[]) => unknown>;
    const levels = { showInformationMessage: 'info', showWarningMessage: 'warning', showErrorMessage: 'error' } as const;
    for (const [name, level] of Object.entries(levels) as [keyof typeof levels, ShownMessage['level']][]) {
      const original = window[name];
      this.originals[name] = original;
      window[name] = (...args: unknown[]) => {
        const items = args.slice(1).filter((a): a is string => typeof a === 'string');
        const shown: ShownMessage = { level, message: String(args[0]), items };
        this.shown.push(shown);
        onShown?.(shown);
        return original.apply(vscode.window, args);
      };
    }
    const setStatus = window.setStatusBarMessage;
    this.originals.setStatusBarMessage = setStatus;
    window.setStatusBarMessage = (...args: unknown[]) => {
      this.statusMessages.push(String(args[0]));
      return setStatus.apply(vscode.window, args);
    };
  }

  /** Passing status bar messages (setStatusBarMessage), kept apart: they are not notifications. */
  readonly statusMessages: string[] = [];

  matching(pattern: RegExp): ShownMessage[] {
    return this.shown.filter((m) => pattern.test(m.message));
  }

  dispose(): void {
    const window = vscode.window as unknown as Record<string, unknown>;
    for (const [name, original] of Object.entries(this.originals)) {
      window[name] = original;
    }
  }
}

/** POST /kickoff straight to the simulator (a run started outside VS Code). */
export async function kickOffUnreviewed(url: string, token: string, inputs: Record<string, string>): Promise<string> {
  const response = await fetch(`${url}/kickoff`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ inputs }),
  });
  assert.strictEqual(response.status, 200, 'the simulator accepted the kickoff');
  const body = (await response.json()) as { kickoff_id?: string };
  assert.ok(body.kickoff_id, 'the kickoff answer carries a kickoff id');
  return body.kickoff_id;
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The run's history without its task changes (same state, another task): the states it went through, each once. */
export function stateChanges(history: StateChange[]): string[] {
  return history.filter((h, i) => i === 0 || h.state !== history[i - 1].state || h.task === history[i - 1].task).map((h) => h.state);
}
