// The live run view: one webview panel per run. The page is built once from a full `init`; after
// that only small `update` patches follow the run store's changes. Long outputs travel in segments
// on request. Every message from the page is validated before anything is done with it.

import * as vscode from 'vscode';
import { deflateRawSync } from 'node:zlib';
import { inertLine } from '../util/inertText';
import type { RunDetails, RunRecord } from '../runTracking/model';
import type { Logger } from '../util/logger';
import type { RunStore } from '../runTracking/runStore';
import { stateLabel } from '../ui/format';
import { distinctRunLabel } from '../sidebar/runRows';
import { renderMarkdown } from './hostMarkdown';
import { showStatusMessage } from '../ui/notify';
import { escapeHtml, pageHtml } from '../ui/webviewPage';
import { type HostMessage, isSafeLink, type PageMessage, type PageReport, parsePageMessage } from './page/messages';
import { pageStrings } from './page/pageStrings';
import { SegmentCache, segmentContent, SEGMENTS_PER_REQUEST } from './page/segments';
import { buildView, type OutputTarget, RAW_MAX, type RunView } from './page/viewModel';
import { diffViews } from './page/viewPatch';
import { TraceFeed, type TraceSettings } from './traceFeed';
import { errorText } from '../util/errorText';
import { isPlainObject } from '../util/objects';

export const RUN_VIEW_TYPE = 'crewRuns.run';

const utf8 = new TextEncoder();

/**
 * The host renders all markdown segments of Show All but every HOST_SHARE-th, which the page's worker renders.
 * The worker starts cold in each page and shares 2 cores with the page, which puts the HTML in, and with the
 * workbench: per segment it took about twice the host's time (bench, issue 36), so the host takes two of three.
 */
const HOST_SHARE = 3;

/** Runs whose details the run views keep read (see RunPanelManager.recentDetails): bounded, a run's may be 5 MB. */
const RECENT_DETAILS = 2;

export interface RunPanelDeps {
  extensionUri: vscode.Uri;
  runs: RunStore;
  log: Logger;
  /** Settles once the run store has loaded: restored panels wait for it before looking their run up. */
  ready?: PromiseLike<unknown>;
  /** Tests only (the test API's RunPanelProbe): told what each panel sends and hears. */
  observer?: RunPanelObserver;
  /** The price table and crews' models the trace's cost estimate uses (settings, read when needed). */
  traceSettings: () => TraceSettings;
}

/** A panel as an observer sees it (see runPanelProbe.ts, test hooks only). */
export interface ObservedPanel {
  readonly panel: vscode.WebviewPanel;
  /** The page has said `ready` and been sent its `init`. */
  ready(): boolean;
  send(message: HostMessage): void;
}

/** Told what each panel sends and hears; only the test API makes one. The page then reports every render. */
export interface RunPanelObserver {
  attached(runId: string, panel: ObservedPanel): void;
  posted(runId: string, message: HostMessage, bytes: number): void;
  reported(runId: string, report: PageReport): void;
  /** The page said `ready` (loaded, listening). */
  pageReady(runId: string): void;
  /** Pages scan every piece of output they render for what must never be there (the security tests). */
  readonly scanOutputs: boolean;
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
  disposables: vscode.Disposable[];
  /** Show All's segments being sent, one request after another. */
  sending: Promise<void>;
  /** What the page has had of the run's trace. */
  trace: TraceFeed;
  /** Show Trace asked: scroll to the trace once the page has it. */
  revealTrace?: boolean;
  /**
   * The run's details read and its view built while the page loads (a long output's file takes a while to
   * read, and its text to cut): the first `init` uses them, unless the run changed meanwhile.
   */
  prepared?: Promise<{ details: RunDetails; view: RunView; previewHtml?: string } | undefined>;
}

export class RunPanelManager implements vscode.Disposable {
  private readonly entries = new Map<string, PanelEntry>();
  private readonly segments = new SegmentCache();
  /**
   * The details last read for the runs viewed lately, with the record they belong to: reading a run's details
   * parses its whole file (5 MB with a long output), and a view is opened again, or shown again after another
   * tab (its page reloads), far more often than its run changes. Every change to the details comes with a new
   * record object (RunStore), so while the store still holds that very record they are current.
   */
  private readonly recentDetails = new Map<string, { record: RunRecord; details: RunDetails }>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly observer?: RunPanelObserver;
  private readonly visibleRunsEmitter = new vscode.EventEmitter<void>();
  /** A run view was shown, hidden, opened or closed (see visibleRunIds; the poller's viewed runs). */
  readonly onDidChangeVisibleRuns = this.visibleRunsEmitter.event;

  constructor(private readonly deps: RunPanelDeps) {
    this.observer = deps.observer;
    this.disposables.push(
      this.visibleRunsEmitter,
      deps.runs.onDidChange(({ runIds }) => {
        for (const id of runIds) {
          const entry = this.entries.get(id);
          if (entry) {
            entry.prepared = undefined; // Read before this change.
            this.schedule(entry);
          }
        }
        this.retitle(runIds);
      }),
    );
  }

  /** Opens the run's panel, or reveals it when already open. False when the run is unknown. */
  open(runId: string, column: vscode.ViewColumn = vscode.ViewColumn.Active, preserveFocus = false): boolean {
    const existing = this.entries.get(runId);
    if (existing) {
      existing.panel.reveal(column, preserveFocus);
      return true;
    }
    const record = this.deps.runs.get(runId);
    if (!record) {
      return false;
    }
    const panel = vscode.window.createWebviewPanel(RUN_VIEW_TYPE, this.title(record), { viewColumn: column, preserveFocus }, {
      ...this.webviewOptions(),
      retainContextWhenHidden: false,
      enableFindWidget: true,
    });
    this.attach(panel, runId);
    return true;
  }

  /**
   * Restores a panel after a window reload (the serializer is registered in extension.ts); the saved state
   * carries only the run id (and view choices).
   */
  async deserialize(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    const runId = isPlainObject(state) && typeof state.runId === 'string' ? state.runId : undefined;
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

  /** The editor group a run's view is showing in, when it is visible. */
  visibleColumn(runId: string): vscode.ViewColumn | undefined {
    const panel = this.entries.get(runId)?.panel;
    return panel?.visible ? panel.viewColumn : undefined;
  }

  isOpen(runId: string): boolean {
    return this.entries.has(runId);
  }

  dispose(): void {
    for (const entry of [...this.entries.values()]) {
      entry.panel.dispose();
    }
    vscode.Disposable.from(...this.disposables).dispose();
  }

  // ---- internals ----

  /** The tab's title: the crew and the run's label with its "#2", as the crews tree tells look-alikes apart. */
  private title(record: RunRecord): string {
    return panelTitle({ crewName: record.crewName, label: distinctRunLabel(record, this.deps.runs.list(record.crewUrl)) });
  }

  /** What the page shows: its heading names the run as the title does, with its "#2". */
  private viewOf(record: RunRecord, details: RunDetails): RunView {
    return buildView({ ...record, label: distinctRunLabel(record, this.deps.runs.list(record.crewUrl)) }, details, this.segments);
  }

  /**
   * A run that came or went may change the "#2" of open views of its crew's runs (a removed oldest run makes
   * the next one the first): their titles are set again. Crews are known only for runs still in the store.
   */
  private retitle(changed: readonly string[]): void {
    if (this.entries.size === 0) {
      return;
    }
    const records = changed.map((id) => this.deps.runs.get(id));
    const crews = records.some((r) => r === undefined) ? undefined : new Set(records.map((r) => r!.crewUrl));
    for (const entry of this.entries.values()) {
      const record = this.deps.runs.get(entry.runId);
      if (record && (!crews || crews.has(record.crewUrl))) {
        const title = this.title(record);
        if (entry.panel.title !== title) {
          entry.panel.title = title;
        }
      }
    }
  }

  private webviewOptions(): vscode.WebviewOptions {
    return {
      enableScripts: true,
      enableCommandUris: false,
      localResourceRoots: [vscode.Uri.joinPath(this.deps.extensionUri, 'media')],
    };
  }

  private attach(panel: vscode.WebviewPanel, runId: string): void {
    const record = this.deps.runs.get(runId);
    const entry: PanelEntry = { runId, panel, ready: false, needInit: true, dirty: false, busy: false, disposed: false, disposables: [], sending: Promise.resolve(), trace: new TraceFeed(this.deps.runs, runId) };
    this.entries.set(runId, entry);
    panel.webview.options = this.webviewOptions();
    if (record) {
      panel.title = this.title(record);
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
    this.observer?.attached(runId, { panel, ready: () => entry.ready && !entry.needInit, send: (m) => this.post(entry, m) });
    this.visibleRunsEmitter.fire();
    panel.webview.html = this.html(panel.webview, runId, record ? this.title(record) : runId);
    // While the page loads, not after its `ready`: reading a 5 MB output's file and cutting its text into
    // segments then delays nothing the user sees.
    entry.prepared = this.prepare(runId);
    entry.trace.prefetch();
  }

  private async readDetails(runId: string): Promise<RunDetails> {
    const record = this.deps.runs.get(runId);
    const recent = this.recentDetails.get(runId);
    this.recentDetails.delete(runId);
    if (record && recent?.record === record) {
      this.recentDetails.set(runId, recent);
      return recent.details;
    }
    const details = await this.deps.runs.readDetails(runId);
    // Read in the run's queue, after any write queued before: they belong to the record if it is still the one.
    if (record && this.deps.runs.get(runId) === record) {
      this.recentDetails.set(runId, { record, details });
      while (this.recentDetails.size > RECENT_DETAILS) {
        this.recentDetails.delete(this.recentDetails.keys().next().value as string);
      }
    }
    return details;
  }

  private async prepare(runId: string): Promise<{ details: RunDetails; view: RunView; previewHtml?: string } | undefined> {
    try {
      const details = await this.readDetails(runId);
      const record = this.deps.runs.get(runId);
      if (!record) {
        return undefined;
      }
      const view = this.viewOf(record, details);
      return { details, view, previewHtml: finalPreviewHtml(view) };
    } catch {
      return undefined; // The first sync reads again, and says why it fails.
    }
  }

  private html(webview: vscode.Webview, runId: string, title: string): string {
    const media = vscode.Uri.joinPath(this.deps.extensionUri, 'media');
    const uri = (...path: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(media, ...path)).toString();
    return pageHtml({
      cspSource: webview.cspSource,
      language: vscode.env.language,
      title,
      styles: [uri('dist', 'codicons', 'codicon.css'), uri('runView.css')],
      script: uri('dist', 'runView.js'),
      loading: vscode.l10n.t('Loading…'),
      data: { 'run-id': runId },
      workers: true, // Show All's markdown worker (page/renderWorker.ts).
    });
  }

  private post(entry: PanelEntry, message: HostMessage): void {
    if (entry.disposed) {
      return;
    }
    if (this.observer) {
      this.observer.posted(entry.runId, message, messageBytes(message));
    }
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
        this.deps.log.warn(`Run view ${entry.runId}: update failed (${errorText(e)}).`);
      } finally {
        entry.busy = false;
      }
    })();
  }

  private async sync(entry: PanelEntry): Promise<void> {
    if (!entry.ready) {
      return; // Hidden or not loaded yet: the next `ready` gets a full init.
    }
    const prepared = entry.prepared;
    entry.prepared = undefined;
    // A change while it is awaited marks the panel dirty: the next sync sends what changed.
    const early = prepared && (await prepared);
    const record = this.deps.runs.get(entry.runId);
    let next: RunView | undefined;
    let previewHtml: string | undefined;
    if (record && early) {
      entry.details = early.details;
      next = early.view;
      previewHtml = early.previewHtml;
      entry.panel.title = this.title(record);
    } else if (record) {
      const details = await this.readDetails(entry.runId);
      entry.details = details;
      next = this.viewOf(record, details);
      entry.panel.title = this.title(record);
    } else if (entry.view) {
      next = { ...entry.view, summary: { ...entry.view.summary, exists: false } };
    }
    if (!next || entry.disposed || !entry.ready) {
      return;
    }
    if (entry.needInit || !entry.view) {
      entry.needInit = false;
      const strings = pageStrings(stateLabel);
      previewHtml ??= finalPreviewHtml(next);
      const view = previewHtml === undefined || !next.final ? next : { ...next, final: { ...next.final, previewHtml } };
      this.post(entry, { type: 'init', strings, view, now: Date.now(), probe: this.observer !== undefined, scan: this.observer?.scanOutputs ?? false });
      entry.trace.reset();
    } else {
      const patch = diffViews(entry.view, next);
      if (patch) {
        this.post(entry, { type: 'update', patch, now: Date.now() });
      }
    }
    entry.view = next;
    if (record && entry.details) {
      // Twice when the first was read while the page loaded: then the events that came since.
      for (let more = true; more && !entry.disposed && entry.ready; ) {
        const trace = await entry.trace.next(record, entry.details, this.deps.traceSettings());
        if (trace && !entry.disposed && entry.ready) {
          this.post(entry, trace);
        }
        more = trace !== undefined && entry.trace.behind;
      }
    }
    if (entry.revealTrace && entry.ready && !entry.disposed) {
      entry.revealTrace = false;
      this.post(entry, { type: 'revealTrace' });
    }
  }

  /** Opens the run's view (or reveals it) scrolled to its trace. False when the run is unknown. */
  showTrace(runId: string): boolean {
    if (!this.open(runId)) {
      return false;
    }
    const entry = this.entries.get(runId)!;
    entry.revealTrace = true;
    this.schedule(entry);
    return true;
  }

  /** The trace's settings changed: every open view re-reads them. */
  refreshTraces(): void {
    for (const entry of this.entries.values()) {
      this.schedule(entry);
    }
  }

  private onMessage(entry: PanelEntry, value: unknown): void {
    const message = parsePageMessage(value);
    if (!message) {
      return; // Not ours, or malformed: ignored.
    }
    void this.handle(entry, message).catch((e: unknown) => {
      this.deps.log.warn(`Run view ${entry.runId}: '${message.type}' failed (${errorText(e)}).`);
    });
  }

  private async handle(entry: PanelEntry, message: PageMessage): Promise<void> {
    const arg = { runId: entry.runId };
    switch (message.type) {
      case 'ready':
        this.observer?.pageReady(entry.runId);
        entry.ready = true;
        entry.needInit = true;
        this.schedule(entry);
        return;
      case 'rendered':
        this.observer?.reported(entry.runId, message.report);
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
      case 'loadMore': {
        // In the order asked: the page renders segments in order, so a later request must not cut in.
        const sent = entry.sending.then(() => this.sendSegments(entry, message.target, message.key, message.segment, message.deflate === true));
        entry.sending = sent.catch(() => undefined);
        await sent;
        return;
      }
      case 'requestRaw':
        this.sendRaw(entry);
        return;
      case 'copyText':
        await vscode.env.clipboard.writeText(message.text);
        showStatusMessage(vscode.l10n.t('Copied.'), 3000);
        return;
    }
  }

  /**
   * Sends SEGMENTS_PER_REQUEST segments from `first` on, so the page renders one while the next are on their way.
   * markdown-it is most of Show All's work, and the extension host has a core of its own: two markdown segments
   * of three go rendered (the same rules, page/markdown.ts), the third as text the page's worker renders
   * meanwhile (page/renderWorker.ts; see HOST_SHARE).
   */
  private async sendSegments(entry: PanelEntry, target: OutputTarget, key: string, first: number, deflate: boolean): Promise<void> {
    const details = entry.details;
    if (!details || !entry.ready) {
      return;
    }
    const final = target === 'final';
    const textOf = (d: RunDetails | undefined) => (final ? d?.finalOutput?.text : d?.tasks[target]?.output);
    const text = textOf(details);
    if (typeof text !== 'string') {
      return;
    }
    const kind = final && details.finalOutput?.kind === 'json' ? 'json' : 'markdown';
    const cut = this.segments.get(text, kind);
    if (cut.key !== key) {
      return; // Stale request: the output changed and the page is being told.
    }
    const end = Math.min(cut.segments.length, first + SEGMENTS_PER_REQUEST);
    for (let segment = first; segment < end; segment++) {
      if (segment > first) {
        await new Promise((resolve) => setImmediate(resolve)); // One segment at a time: the host stays responsive.
      }
      // Closed or hidden meanwhile (the page asks again after its next init), or the output changed (it is told).
      if (entry.disposed || !entry.ready || (entry.details !== details && textOf(entry.details) !== text)) {
        return;
      }
      const last = segment === cut.segments.length - 1;
      const content = segmentContent(text, cut.segments[segment]);
      // The worker's first from the third of these on, so that it has warmed up (renderWorker.ts) by then.
      const renderHere = kind === 'markdown' && (segment % HOST_SHARE !== 0 || segment < 2 * HOST_SHARE);
      const encoded = utf8.encode(renderHere ? renderMarkdown(content) : content);
      // Level 1: a few ms per segment here, against several times fewer bytes through the workbench.
      const sent = deflate ? new Uint8Array(deflateRawSync(encoded, { level: 1 })) : encoded;
      this.post(entry, { type: 'outputChunk', target, key, segment, last, content: sent, format: renderHere ? 'html' : 'text', deflated: deflate });
    }
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

/** The first screen of a markdown final output, rendered here (see OutputView.previewHtml). */
function finalPreviewHtml(view: RunView): string | undefined {
  const final = view.final;
  if (final?.kind !== 'markdown' || final.preview === '') {
    return undefined;
  }
  try {
    return renderMarkdown(final.preview);
  } catch {
    return undefined; // The page renders it then.
  }
}

/** A message's size as sent: its JSON, and a segment's bytes as they are (not as JSON would spell them). */
function messageBytes(message: HostMessage): number {
  return message.type === 'outputChunk'
    ? Buffer.byteLength(JSON.stringify({ ...message, content: undefined })) + message.content.byteLength
    : message.type === 'trace'
      ? Buffer.byteLength(JSON.stringify({ ...message, lines: undefined })) + message.lines.byteLength
      : Buffer.byteLength(JSON.stringify(message));
}

export function panelTitle(record: Pick<RunRecord, 'crewName' | 'label'>): string {
  return inertLine(`${record.crewName}: ${record.label}`);
}

function staticPage(text: string): string {
  return `<!DOCTYPE html><html><head><meta charset="UTF-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none';"></head><body><p>${escapeHtml(text)}</p></body></html>`;
}
