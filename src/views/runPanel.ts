// The live run view: one webview panel per run. The page is built once from a full `init`; after
// that only small `update` patches follow the run store's changes. Long outputs travel in segments
// on request. Every message from the page is validated before anything is done with it.

import { randomBytes } from 'node:crypto';
import { inertLine } from '../util/inertText';
import * as vscode from 'vscode';
import { escapeHtml, pageCsp } from './webviewPage';
import type { Logger, RunDetails, RunRecord } from '../runs/model';
import type { RunStore } from '../runs/runStore';
import { stateLabel } from './format';
import {
  buildView,
  diffViews,
  type HostMessage,
  isSafeLink,
  type OutputTarget,
  type PageMessage,
  type PageReport,
  type PageStrings,
  parsePageMessage,
  RAW_MAX,
  type RunView,
  segmentContent,
  SegmentCache,
} from './webview/protocol';
import { showStatusMessage } from './notify';

export const RUN_VIEW_TYPE = 'crewRuns.run';

export interface RunPanelDeps {
  extensionUri: vscode.Uri;
  runs: RunStore;
  log: Logger;
  /** Settles once the run store has loaded: restored panels wait for it before looking their run up. */
  ready?: PromiseLike<unknown>;
}

export interface RunPanelInspection {
  html: string;
  sentMessages: number;
  lastMessageBytes: number;
  maxMessageBytes: number;
  pageReport?: PageReport;
  /** Reports received from the page so far. */
  reports: number;
  /** Full `init` messages sent (one per page load: open, reveal after hidden, restore). */
  inits: number;
  /** The page has said `ready` and been sent its `init`. */
  ready: boolean;
  visible: boolean;
}

interface PanelEntry {
  runId: string;
  panel: vscode.WebviewPanel;
  /** The page is loaded and listening (false while hidden: the page is discarded then). */
  ready: boolean;
  /** The next message must be a full `init`. */
  needInit: boolean;
  /** What the page was last sent. */
  view?: RunView;
  details?: RunDetails;
  dirty: boolean;
  busy: boolean;
  disposed: boolean;
  sentMessages: number;
  lastMessageBytes: number;
  maxMessageBytes: number;
  reports: number;
  inits: number;
  pageReport?: PageReport;
  disposables: vscode.Disposable[];
}

export class RunPanelManager implements vscode.Disposable {
  private readonly entries = new Map<string, PanelEntry>();
  private readonly segments = new SegmentCache();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly visibleRunsEmitter = new vscode.EventEmitter<void>();
  /** A run view was shown, hidden, opened or closed (see visibleRunIds; the poller's viewed runs). */
  readonly onDidChangeVisibleRuns = this.visibleRunsEmitter.event;

  constructor(private readonly deps: RunPanelDeps) {
    this.disposables.push(
      this.visibleRunsEmitter,
      deps.runs.onDidChange(({ runIds }) => {
        for (const id of runIds) {
          const entry = this.entries.get(id);
          if (entry) {
            this.schedule(entry);
          }
        }
      }),
    );
  }

  /** Opens the run's panel, or reveals it when already open. False when the run is unknown. */
  open(runId: string, column: vscode.ViewColumn = vscode.ViewColumn.Active): boolean {
    const existing = this.entries.get(runId);
    if (existing) {
      existing.panel.reveal(column);
      return true;
    }
    const record = this.deps.runs.get(runId);
    if (!record) {
      return false;
    }
    const panel = vscode.window.createWebviewPanel(RUN_VIEW_TYPE, panelTitle(record), { viewColumn: column, preserveFocus: false }, {
      ...this.webviewOptions(),
      retainContextWhenHidden: false,
      enableFindWidget: true,
    });
    this.attach(panel, runId);
    return true;
  }

  /**
   * Restores a panel after a window reload; the saved state carries only the run id (and view choices). The
   * serializer is registered at activation (commands/lazyCommands.ts), which loads this host on first use.
   */
  async deserialize(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    const runId = isObject(state) && typeof state.runId === 'string' ? state.runId : undefined;
    await Promise.resolve(this.deps.ready).catch(() => undefined);
    if (runId && this.entries.has(runId)) {
      panel.dispose(); // Already open elsewhere.
      return;
    }
    if (!runId || !this.deps.runs.get(runId)) {
      panel.webview.options = { enableScripts: false, enableCommandUris: false, localResourceRoots: [] };
      panel.webview.html = staticPage(vscode.l10n.t('This run is no longer in the history.'));
      return;
    }
    this.attach(panel, runId);
  }

  /** The run of the panel the user is looking at, if any. */
  activeRunId(): string | undefined {
    for (const entry of this.entries.values()) {
      if (entry.panel.active) {
        return entry.runId;
      }
    }
    return undefined;
  }

  /** The runs whose view is visible (in any editor group). */
  visibleRunIds(): string[] {
    return [...this.entries.values()].filter((e) => e.panel.visible).map((e) => e.runId);
  }

  isOpen(runId: string): boolean {
    return this.entries.has(runId);
  }

  /** Test hook. */
  inspect(runId: string): RunPanelInspection | undefined {
    const entry = this.entries.get(runId);
    if (!entry) {
      return undefined;
    }
    return {
      html: entry.panel.webview.html,
      sentMessages: entry.sentMessages,
      lastMessageBytes: entry.lastMessageBytes,
      maxMessageBytes: entry.maxMessageBytes,
      pageReport: entry.pageReport,
      reports: entry.reports,
      inits: entry.inits,
      ready: entry.ready && !entry.needInit,
      visible: entry.panel.visible,
    };
  }

  /** Renders the whole final output in the run's panel (as its Show All button does). */
  showAll(runId: string): boolean {
    const entry = this.entries.get(runId);
    if (!entry?.ready) {
      return false;
    }
    this.post(entry, { type: 'showAll' });
    return true;
  }

  /** Test hook: closes a run's panel. */
  close(runId: string): void {
    this.entries.get(runId)?.panel.dispose();
  }

  dispose(): void {
    for (const entry of [...this.entries.values()]) {
      entry.panel.dispose();
    }
    vscode.Disposable.from(...this.disposables).dispose();
  }

  // ---- internals ----

  private webviewOptions(): vscode.WebviewOptions {
    return {
      enableScripts: true,
      enableCommandUris: false,
      localResourceRoots: [vscode.Uri.joinPath(this.deps.extensionUri, 'media')],
    };
  }

  private attach(panel: vscode.WebviewPanel, runId: string): void {
    const record = this.deps.runs.get(runId);
    const entry: PanelEntry = {
      runId,
      panel,
      ready: false,
      needInit: true,
      dirty: false,
      busy: false,
      disposed: false,
      sentMessages: 0,
      lastMessageBytes: 0,
      maxMessageBytes: 0,
      reports: 0,
      inits: 0,
      disposables: [],
    };
    this.entries.set(runId, entry);
    panel.webview.options = this.webviewOptions();
    if (record) {
      panel.title = panelTitle(record);
    }
    entry.disposables.push(
      panel.webview.onDidReceiveMessage((message: unknown) => this.onMessage(entry, message)),
      panel.onDidChangeViewState(() => {
        if (!panel.visible) {
          // Without retainContextWhenHidden the page is discarded; it says `ready` again when shown.
          entry.ready = false;
        }
        this.visibleRunsEmitter.fire();
      }),
      panel.onDidDispose(() => {
        entry.disposed = true;
        this.entries.delete(runId);
        vscode.Disposable.from(...entry.disposables).dispose();
        this.visibleRunsEmitter.fire();
      }),
    );
    this.visibleRunsEmitter.fire();
    panel.webview.html = this.html(panel.webview, runId, record ? panelTitle(record) : runId);
  }

  private html(webview: vscode.Webview, runId: string, title: string): string {
    const nonce = randomBytes(16).toString('hex');
    const media = vscode.Uri.joinPath(this.deps.extensionUri, 'media');
    const script = webview.asWebviewUri(vscode.Uri.joinPath(media, 'dist', 'runView.js'));
    const css = webview.asWebviewUri(vscode.Uri.joinPath(media, 'runView.css'));
    const codicons = webview.asWebviewUri(vscode.Uri.joinPath(media, 'dist', 'codicons', 'codicon.css'));
    const csp = pageCsp(webview.cspSource, nonce);
    return `<!DOCTYPE html>
<html lang="${escapeHtml(vscode.env.language)}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${codicons.toString()}">
<link rel="stylesheet" href="${css.toString()}">
<title>${escapeHtml(title)}</title>
</head>
<body data-run-id="${escapeHtml(runId)}">
<main id="root" aria-live="polite"><p>${escapeHtml(vscode.l10n.t('Loading…'))}</p></main>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
  }

  private post(entry: PanelEntry, message: HostMessage): void {
    if (entry.disposed) {
      return;
    }
    const bytes = Buffer.byteLength(JSON.stringify(message));
    entry.sentMessages++;
    entry.lastMessageBytes = bytes;
    entry.maxMessageBytes = Math.max(entry.maxMessageBytes, bytes);
    void entry.panel.webview.postMessage(message).then(undefined, (e: unknown) => {
      this.deps.log.warn(`Run view ${entry.runId}: cannot post a message (${String(e)}).`);
    });
  }

  /** Coalesces changes: one sync at a time per panel, re-run while more changes arrived meanwhile. */
  private schedule(entry: PanelEntry): void {
    entry.dirty = true;
    if (entry.busy) {
      return;
    }
    entry.busy = true;
    void (async () => {
      try {
        while (entry.dirty && !entry.disposed) {
          entry.dirty = false;
          await this.sync(entry);
        }
      } catch (e) {
        this.deps.log.warn(`Run view ${entry.runId}: update failed (${e instanceof Error ? e.message : String(e)}).`);
      } finally {
        entry.busy = false;
      }
    })();
  }

  private async sync(entry: PanelEntry): Promise<void> {
    if (!entry.ready) {
      return; // Hidden or not loaded yet: the next `ready` gets a full init.
    }
    const record = this.deps.runs.get(entry.runId);
    let next: RunView | undefined;
    if (record) {
      const details = await this.deps.runs.readDetails(entry.runId);
      entry.details = details;
      next = buildView(record, details, this.segments);
      entry.panel.title = panelTitle(record);
    } else if (entry.view) {
      next = { ...entry.view, summary: { ...entry.view.summary, exists: false } };
    }
    if (!next || entry.disposed || !entry.ready) {
      return;
    }
    if (entry.needInit || !entry.view) {
      entry.needInit = false;
      entry.inits++;
      this.post(entry, { type: 'init', strings: pageStrings(), view: next, now: Date.now() });
    } else {
      const patch = diffViews(entry.view, next);
      if (patch) {
        this.post(entry, { type: 'update', patch, now: Date.now() });
      }
    }
    entry.view = next;
  }

  private onMessage(entry: PanelEntry, value: unknown): void {
    const message = parsePageMessage(value);
    if (!message) {
      return; // Not ours, or malformed: ignored.
    }
    void this.handle(entry, message).catch((e: unknown) => {
      this.deps.log.warn(`Run view ${entry.runId}: '${message.type}' failed (${e instanceof Error ? e.message : String(e)}).`);
    });
  }

  private async handle(entry: PanelEntry, message: PageMessage): Promise<void> {
    const arg = { runId: entry.runId };
    switch (message.type) {
      case 'ready':
        entry.ready = true;
        entry.needInit = true;
        this.schedule(entry);
        return;
      case 'rendered':
        entry.reports++;
        entry.pageReport = message.report;
        return;
      case 'action':
        if (message.action === 'copyKickoffId') {
          const record = this.deps.runs.get(entry.runId);
          if (record) {
            await vscode.env.clipboard.writeText(record.kickoffId);
            showStatusMessage(vscode.l10n.t('Kickoff ID copied.'), 3000);
          }
          return;
        }
        await vscode.commands.executeCommand(`crewRuns.${message.action}`, arg);
        return;
      case 'copyFinalJson':
        await vscode.commands.executeCommand('crewRuns.copyOutput', arg);
        return;
      case 'openTaskOutput':
        await vscode.commands.executeCommand('crewRuns.openTaskOutput', { runId: entry.runId, index: message.index });
        return;
      case 'openLink':
        if (isSafeLink(message.href)) {
          await vscode.env.openExternal(vscode.Uri.parse(message.href.trim(), true));
        }
        return;
      case 'loadMore':
        this.sendSegment(entry, message.target, message.key, message.segment);
        return;
      case 'requestRaw':
        this.sendRaw(entry);
        return;
    }
  }

  private sendSegment(entry: PanelEntry, target: OutputTarget, key: string, segment: number): void {
    const details = entry.details;
    if (!details || !entry.ready) {
      return;
    }
    let text: string | undefined;
    let kind: 'markdown' | 'json' = 'markdown';
    if (target === 'final') {
      text = details.finalOutput?.text;
      kind = details.finalOutput?.kind === 'json' ? 'json' : 'markdown';
    } else {
      text = details.tasks[target]?.output;
    }
    if (typeof text !== 'string') {
      return;
    }
    const cut = this.segments.get(text, kind);
    if (cut.key !== key || segment >= cut.segments.length) {
      return; // Stale request: the output changed and the page is being told.
    }
    this.post(entry, {
      type: 'outputChunk',
      target,
      key,
      segment,
      text: segmentContent(text, cut.segments[segment]),
      last: segment === cut.segments.length - 1,
    });
  }

  private sendRaw(entry: PanelEntry): void {
    const raw = entry.details?.lastSnapshot?.raw;
    let text = '';
    if (raw !== undefined) {
      try {
        text = typeof raw === 'string' ? raw : JSON.stringify(raw, null, 2) ?? '';
      } catch {
        text = String(raw);
      }
    }
    this.post(entry, { type: 'raw', text: text.slice(0, RAW_MAX), truncated: text.length > RAW_MAX, length: text.length });
  }
}

export function panelTitle(record: Pick<RunRecord, 'crewName' | 'label'>): string {
  return inertLine(`${record.crewName}: ${record.label}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function staticPage(text: string): string {
  return `<!DOCTYPE html><html><head><meta charset="UTF-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none';"></head><body><p>${escapeHtml(text)}</p></body></html>`;
}

/** The page's strings, translated here (the page has no l10n of its own). */
export function pageStrings(): PageStrings {
  const t = vscode.l10n.t;
  return {
    kickoffId: t('Kickoff ID'),
    previousKickoffIds: t('Earlier kickoff IDs: {0}'),
    copyKickoffId: t('Copy kickoff ID'),
    inputs: t('Inputs'),
    noInputs: t('No inputs.'),
    elapsed: t('Elapsed {0}'),
    took: t('Took {0}'),
    progress: t('Progress'),
    progressTasksOf: t('{0} of {1} tasks done'),
    progressStepsOf: t('{0} of {1} steps done'),
    progressTaskN: t('Task {0}'),
    progressStepN: t('Step {0}'),
    currentTask: t('Current task'),
    currentAgent: t('Agent'),
    latestStep: t('Latest agent step'),
    stepThought: t('Thought'),
    stepAction: t('Action'),
    stepTool: t('Tool'),
    stepToolInput: t('Tool input'),
    stepResult: t('Result'),
    timeline: t('Timeline'),
    tasks: t('Task outputs'),
    tasksHidden: t('{0} more tasks are not shown here; the raw status JSON has what the crew sent.'),
    usageHidden: t('{0} more usage figures are not shown.'),
    taskAttempt: t('attempt {0}'),
    taskAgent: t('by {0}'),
    taskTime: t('{0}s'),
    emptyOutput: t('(empty output)'),
    output: t('Output'),
    noOutputYet: t('No output yet.'),
    copyJson: t('Copy JSON'),
    showingPart: t('Showing {0} of {1} characters.'),
    showAll: t('Show All'),
    rendering: t('Rendering… {0}%'),
    error: t('Error'),
    usage: t('Token usage'),
    feedbackRounds: t('Feedback rounds'),
    approved: t('Approved'),
    sentBack: t('Sent back with feedback'),
    reviewedOutput: t('Reviewed output'),
    feedbackTaskId: t('task {0}'),
    awaitingFeedback: t('This run is waiting for your feedback.'),
    awaitingFeedbackOn: t('This run is waiting for your feedback on “{0}”.'),
    feedbackInferred: t('(The service stopped listing the run, so it is probably waiting for feedback.)'),
    raw: t('Raw status JSON'),
    rawTruncated: t('Showing the first {0} of {1} characters.'),
    noRaw: t('No status received yet.'),
    loading: t('Loading…'),
    actions: t('Run actions'),
    copyOutput: t('Copy Output'),
    saveOutputAs: t('Save Output As…'),
    openOutputInEditor: t('Open Output in Editor'),
    compareOutput: t('Compare with Another Run'),
    runAgain: t('Run Again'),
    giveFeedback: t('Give Feedback'),
    removed: t('This run is no longer in the history.'),
    notWatching: t('Not watching: {0}.'),
    'stop.deadline': t('the watch time ran out (the run may still be going)'),
    'stop.user': t('you stopped watching'),
    'stop.expired': t('the service no longer knows this run'),
    'stop.unauthorized': t('the token was refused'),
    'stop.noToken': t('no token is stored for this crew'),
    'state.queued': stateLabel('queued'),
    'state.running': stateLabel('running'),
    'state.awaitingFeedback': stateLabel('awaitingFeedback'),
    'state.succeeded': stateLabel('succeeded'),
    'state.failed': stateLabel('failed'),
    'state.cancelled': stateLabel('cancelled'),
    'state.notFound': stateLabel('notFound'),
    'state.unknown': stateLabel('unknown'),
  };
}
