// Test hooks only (built where extension.ts made an inspection): what each run panel sent and what its page reported, for the
// integration tests and the bench. Given to the RunPanelManager when the test API is made; users' windows
// never build one, so their pages neither scan nor report.
import type { HostMessage, PageReport } from './page/messages';
import type { ObservedPanel, RunPanelObserver } from './runPanel';

export interface RunPanelInspection {
  html: string;
  sentMessages: number;
  lastMessageBytes: number;
  maxMessageBytes: number;
  /** Bytes sent so far, per message type. */
  bytesByType: Partial<Record<HostMessage['type'], number>>;
  pageReport?: PageReport;
  /** Reports received from the page so far. */
  reports: number;
  /** Full `init` messages sent (one per page load: open, reveal after hidden, restore). */
  inits: number;
  /** The page has said `ready` and been sent its `init`. */
  ready: boolean;
  visible: boolean;
  /** When (performance.now()) the panel was attached, its page first said `ready`, its first `init` was posted, its page's first report arrived. */
  times: { attached: number; firstReady?: number; firstInit?: number; firstReport?: number };
}

interface Counts {
  panel: ObservedPanel;
  sentMessages: number;
  lastMessageBytes: number;
  maxMessageBytes: number;
  bytesByType: RunPanelInspection['bytesByType'];
  reports: number;
  inits: number;
  pageReport?: PageReport;
  times: RunPanelInspection['times'];
}

export class RunPanelProbe implements RunPanelObserver {
  private readonly panels = new Map<string, Counts>();
  /** On for the tests; the bench turns it off to time what a user's page does. */
  scanOutputs = true;

  attached(runId: string, panel: ObservedPanel): void {
    this.panels.set(runId, { panel, sentMessages: 0, lastMessageBytes: 0, maxMessageBytes: 0, bytesByType: {}, reports: 0, inits: 0, times: { attached: performance.now() } });
    panel.panel.onDidDispose(() => {
      if (this.panels.get(runId)?.panel === panel) {
        this.panels.delete(runId);
      }
    });
  }

  posted(runId: string, message: HostMessage, bytes: number): void {
    const counts = this.panels.get(runId);
    if (counts) {
      counts.sentMessages++;
      counts.lastMessageBytes = bytes;
      counts.maxMessageBytes = Math.max(counts.maxMessageBytes, bytes);
      counts.bytesByType[message.type] = (counts.bytesByType[message.type] ?? 0) + bytes;
      counts.inits += message.type === 'init' ? 1 : 0;
      if (message.type === 'init') {
        counts.times.firstInit ??= performance.now();
      }
    }
  }

  pageReady(runId: string): void {
    const counts = this.panels.get(runId);
    if (counts) {
      counts.times.firstReady ??= performance.now();
    }
  }

  reported(runId: string, report: PageReport): void {
    const counts = this.panels.get(runId);
    if (counts) {
      counts.reports++;
      counts.pageReport = report;
      counts.times.firstReport ??= performance.now();
    }
  }

  inspect(runId: string): RunPanelInspection | undefined {
    const counts = this.panels.get(runId);
    if (!counts) {
      return undefined;
    }
    const { panel, ...rest } = counts;
    return { ...rest, bytesByType: { ...rest.bytesByType }, times: { ...rest.times }, html: panel.panel.webview.html, ready: panel.ready(), visible: panel.panel.visible };
  }

  /** Renders the whole final output in the run's panel, as its Show All button does. */
  showAll(runId: string): boolean {
    const counts = this.panels.get(runId);
    if (!counts?.panel.ready()) {
      return false;
    }
    counts.panel.send({ type: 'showAll' });
    return true;
  }

  /** Selects the trace's first failed step in the run's panel, as its Jump to the Failure button does. */
  jumpToFailure(runId: string): boolean {
    const counts = this.panels.get(runId);
    if (!counts?.panel.ready()) {
      return false;
    }
    counts.panel.send({ type: 'jumpToFailure' });
    return true;
  }

  /** Closes a run's panel. */
  close(runId: string): void {
    this.panels.get(runId)?.panel.panel.dispose();
  }

  isOpen(runId: string): boolean {
    return this.panels.has(runId);
  }

  activeRunId(): string | undefined {
    return [...this.panels].find(([, counts]) => counts.panel.panel.active)?.[0];
  }
}
