// Runs INSIDE the VS Code extension host (the bench harness's last round): the run view with a 5 MB
// output (first screen, Show All, the page's longest task), update sizes while a run progresses, and
// the batch results view of 500 rows. Each figure has a reference measured here, in the same host.
import { performance } from 'perf_hooks';
import * as vscode from 'vscode';
import { normaliseStatus } from '../../src/api/normalize';
import type { CrewRunsTestApi } from '../../src/testApi';
import { createMarkdown } from '../../src/runView/page/markdown';

export interface ViewsBench {
  /** createWebviewPanel → its page's first message, for a page with one inline script (median of 3, each after Close All). */
  emptyWebviewMs: number;
  /** Open Run of the 5 MB output, ms after the command: panel attached, `init` posted, first report. */
  openPhases: { attached: number; ready: number; init: number; report: number };
  /** The 5 MB page's own account of its loading (PageReport.startup). */
  startup: string;
  /** Open Run → first screen of the 5 MB output, median of 3 (each after Close All). */
  openToRenderedMs: number;
  bigOpensMs: number[];
  /** Open Run → first screen of a 1 KB output (median of 3, each after Close All): the webview's own cost, the reference. */
  smallOpenToRenderedMs: number;
  smallOpensMs: number[];
  /** The median 1 KB open's phases and page render, to set against the 5 MB's. */
  smallPhases: { attached: number; ready: number; init: number; report: number };
  smallPageRenderMs: number;
  /** The session's first Open Run (1 KB): also loads the command host and warms the webview machinery. */
  coldOpenMs: number;
  pageRenderMs: number;
  previewChars: number;
  /** Show All of the 5 MB output, median of 3 (each in a page opened afresh but the first). */
  showAllMs: number;
  showAllsMs: number[];
  /** Of Show All, the page's time in markdown-it and in innerHTML. */
  showAllPage: { markdownMs: number; insertMs: number; waitMs: number; workerPieces: number; scanMs: number };
  allChars: number;
  /** The page's longest task while Show All rendered the rest (0: none over 50 ms), median of the 3 Show Alls. */
  showAllLongestTaskMs: number;
  showAllLongestTasksMs: number[];
  /** The page's longest single piece (segment rendered and put in) by the end of each Show All: the longest task's reference. */
  showAllLongestPieceMs: number;
  showAllLongestPiecesMs: number[];
  /** markdown-it rendering the same 5 MB in the extension host, in one go (median of 3): the machine's pace. */
  markdownAllMs: number;
  markdownRunsMs: number[];
  /** How many rounds each of Open Run (5 MB, 1 KB), Show All and the markdown reference took. */
  rounds: number;
  bigMaxMessageBytes: number;
  updateSizes: number[];
  updateMedianBytes: number;
  updateMaxBytes: number;
  liveMaxMessageBytes: number;
  batchRows: number;
  batchRenderMs: number;
  batchOpenToRenderedMs: number;
  smallBatchRows: number;
  smallBatchRenderMs: number;
}

type WaitFor = <T>(check: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs?: number) => Promise<T>;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function emptyWebview(options: vscode.WebviewPanelOptions & vscode.WebviewOptions = {}): Promise<number> {
  const started = performance.now();
  const panel = vscode.window.createWebviewPanel('crewRunsBench.empty', 'Empty', vscode.ViewColumn.Active, { enableScripts: true, ...options });
  const nonce = Math.random().toString(36).slice(2);
  const message = new Promise<void>((resolve) => panel.webview.onDidReceiveMessage(() => resolve()));
  panel.webview.html = `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'nonce-${nonce}';"></head><body><p>Empty</p><script nonce="${nonce}">acquireVsCodeApi().postMessage('ready');</script></body></html>`;
  await message;
  const ms = performance.now() - started;
  panel.dispose();
  return ms;
}

/** Open Run and Show All (and their references), `rounds` each; then, unless `only`, the update messages and batch results. */
export async function measureViews(api: CrewRunsTestApi, crewUrl: string, waitFor: WaitFor, { rounds, only: runViewOnly }: { rounds: number; only: boolean }): Promise<ViewsBench> {
  const panels = api.panels;
  panels.scanOutputs = false; // Timed as users' pages run: without the tests' DOM security scan.
  const report = (id: string) => panels.inspect(id)?.pageReport;
  const closeAll = () => vscode.commands.executeCommand('workbench.action.closeAllEditors');
  const finished = async (name: string, result: string) => {
    const run = await api.runs.add({ crewUrl, crewName: 'History crew', kickoffId: `${name}-${Date.now()}`, inputs: { topic: name } });
    await api.runs.applyPolled(run.id, undefined, normaliseStatus({ state: 'SUCCESS', status: null, result }));
    await api.runs.flush();
    return run;
  };
  const openTimed = async (runId: string) => {
    const opened = performance.now();
    await vscode.commands.executeCommand('crewRuns.openRun', { runId });
    const first = await waitFor(() => (report(runId)?.hasFinalOutput ? report(runId) : undefined), 'the output rendered');
    const ms = performance.now() - opened;
    const times = panels.inspect(runId)!.times;
    const since = (t: number | undefined) => (t === undefined ? -1 : Math.round(t - opened));
    return { ms, first, phases: { attached: since(times.attached), ready: since(times.firstReady), init: since(times.firstInit), report: since(times.firstReport) } };
  };

  // Each open as a user with no editor open would: after Close All. The first open of all also loads the
  // command host and warms the webview machinery: reported on its own; the rows take the median of the rounds after it.
  const small = await finished('small', `# Small report\n\n${'A short finding. '.repeat(60)}`);
  const paragraph = 'The crew wrote a very long report. It has **bold** words, `code` and a [link](https://example.com/p).\n\n';
  const text = `# Big report\n\n${paragraph.repeat(Math.ceil((5 * 1024 * 1024) / paragraph.length))}`;
  const big = await finished('big', text);
  const coldOpen = await openTimed(small.id);
  const smallOpens: Awaited<ReturnType<typeof openTimed>>[] = [];
  const bigOpens: Awaited<ReturnType<typeof openTimed>>[] = [];
  const emptyWebviewMs: number[] = [];
  for (let i = 0; i < rounds; i++) {
    await closeAll();
    emptyWebviewMs.push(await emptyWebview()); // The floor: any webview here, to its page's first message.
    await closeAll();
    smallOpens.push(await openTimed(small.id));
    await closeAll();
    bigOpens.push(await openTimed(big.id));
  }
  const smallOpen = [...smallOpens].sort((a, b) => a.ms - b.ms)[Math.floor(rounds / 2)];
  const bigOpen = [...bigOpens].sort((a, b) => a.ms - b.ms)[Math.floor(rounds / 2)];
  // Show All, median of the rounds: the first in the page the last open left, each next in a page opened afresh.
  const markdownRuns: number[] = [];
  const showAlls: { ms: number; chars: number; page: ViewsBench['showAllPage']; longestTask: number; longestPiece: number }[] = [];
  for (let i = 0; i < rounds; i++) {
    const shown = i === 0 ? bigOpens[rounds - 1].first : (await closeAll(), (await openTimed(big.id)).first); // Its times so far are the first screen's.
    const showAllStarted = performance.now();
    panels.showAll(big.id);
    let longestTask = 0;
    const all = await waitFor(() => {
      const r = report(big.id);
      longestTask = Math.max(longestTask, r?.longestTaskMs ?? 0); // Each report carries the longest task since the previous one.
      return r?.finalOutputComplete ? r : undefined;
    }, 'all of the 5 MB output', 120_000);
    const ms = performance.now() - showAllStarted;
    const page = { markdownMs: all.markdownMs - shown.markdownMs, insertMs: all.insertMs - shown.insertMs, waitMs: all.waitMs - shown.waitMs, workerPieces: all.workerPieces - shown.workerPieces, scanMs: all.scanMs - shown.scanMs };
    showAlls.push({ ms, chars: all.finalOutputTextLength, page, longestTask, longestPiece: all.longestPieceMs });
    // Its reference right after it, so that both see the same load on the machine (2 cores shared with others),
    // once the page has painted what it rendered (not to count its work against the reference).
    await new Promise((resolve) => setTimeout(resolve, 500));
    const mdStarted = performance.now();
    createMarkdown().render(text);
    markdownRuns.push(performance.now() - mdStarted);
  }
  const showAll = [...showAlls].sort((a, b) => a.ms - b.ms)[Math.floor(rounds / 2)];
  const bigInspect = panels.inspect(big.id)!;
  await closeAll();
  const markdownAllMs = median(markdownRuns);
  const only = {
    emptyWebviewMs: median(emptyWebviewMs),
    openPhases: bigOpen.phases,
    startup: bigOpen.first.startup,
    openToRenderedMs: bigOpen.ms,
    smallOpenToRenderedMs: smallOpen.ms,
    smallOpensMs: smallOpens.map((o) => Math.round(o.ms)),
    smallPhases: smallOpen.phases,
    smallPageRenderMs: smallOpen.first.renderMs,
    coldOpenMs: coldOpen.ms,
    bigOpensMs: bigOpens.map((o) => Math.round(o.ms)),
    pageRenderMs: bigOpen.first.renderMs,
    previewChars: bigOpen.first.finalOutputTextLength,
    showAllMs: showAll.ms,
    showAllsMs: showAlls.map((r) => Math.round(r.ms)),
    showAllPage: showAll.page,
    allChars: showAll.chars,
    showAllLongestTaskMs: median(showAlls.map((r) => r.longestTask)),
    showAllLongestTasksMs: showAlls.map((r) => r.longestTask),
    showAllLongestPieceMs: median(showAlls.map((r) => r.longestPiece)),
    showAllLongestPiecesMs: showAlls.map((r) => r.longestPiece),
    markdownAllMs,
    markdownRunsMs: markdownRuns.map((ms) => Math.round(ms)),
    rounds,
    bigMaxMessageBytes: bigInspect.maxMessageBytes,
  };
  if (runViewOnly) {
    return { ...only, updateSizes: [], updateMedianBytes: 0, updateMaxBytes: 0, liveMaxMessageBytes: 0, batchRows: 0, batchRenderMs: 0, batchOpenToRenderedMs: 0, smallBatchRows: 0, smallBatchRenderMs: 0 };
  }

  // A run in progress: the size of each update message after the first full `init`.
  const live = await api.runs.add({ crewUrl, crewName: 'History crew', kickoffId: `live-${Date.now()}`, inputs: { topic: 'live' } });
  await api.runs.setWatching(live.id, false, 'user'); // driven here, not polled
  await vscode.commands.executeCommand('crewRuns.openRun', { runId: live.id });
  await waitFor(() => (report(live.id)?.stateText ? true : undefined), 'the live run page');
  const taskOutput = (n: number) => `## Task ${n}\n\n${'Findings about llamas, with **some** markdown and a [link](https://example.com). '.repeat(20)}`;
  const bodies: Record<string, unknown>[] = [];
  const total = 5;
  for (let done = 0; done < total; done++) {
    const current = `task_${done}`;
    const progress = { unit: 'task', completed: done, total, current, current_agent: `Agent ${done}` };
    bodies.push({ state: 'RUNNING', status: 'Task is Running', progress });
    bodies.push({ state: 'RUNNING', status: 'Task is Running', progress, last_step: { thought: `Thinking about step ${done}`, tool: 'search', tool_input: `llamas ${done}`, result: 'Llamas are camelids.' } });
    bodies.push({
      state: 'RUNNING',
      status: 'Task is Running',
      progress: { unit: 'task', completed: done + 1, total, current: `task_${done + 1}`, current_agent: `Agent ${done + 1}` },
      last_executed_task: { name: current, description: `Task ${done}`, output: taskOutput(done), agent: `Agent ${done}` },
    });
  }
  const sizes: number[] = [];
  for (const body of bodies) {
    const before = panels.inspect(live.id)!.sentMessages;
    await api.runs.applyPolled(live.id, undefined, normaliseStatus(body));
    const sent = await waitFor(() => {
      const i = panels.inspect(live.id)!;
      return i.sentMessages > before ? i : undefined;
    }, 'an update message', 10_000).catch(() => undefined);
    if (sent) {
      sizes.push(sent.lastMessageBytes);
    }
  }
  const liveInspect = panels.inspect(live.id)!;
  await closeAll();

  const batch = async (rows: number) => {
    const created = await api.batches.store.create({
      crewUrl,
      crewName: 'History crew',
      source: `bench-${rows}.jsonl`,
      inputNames: ['topic', 'audience'],
      concurrency: 3,
      // Ended rows: nothing for the runner to send.
      rows: Array.from({ length: rows }, (_, index) => ({ index, inputs: { topic: `row ${index}`, audience: 'all' }, status: 'notSent' as const, note: 'made by the bench' })),
    });
    const opened = performance.now();
    await vscode.commands.executeCommand('crewRuns.openBatchResults', { batchId: created.id });
    const rendered = await waitFor(() => {
      const r = api.inspection.batchPanels.panel(created.id)?.report;
      return r?.rowsRendered === rows ? r : undefined;
    }, `the results view of ${rows} rows`, 60_000);
    const openMs = performance.now() - opened;
    await closeAll();
    await api.batches.store.remove(created.id);
    return { renderMs: rendered.renderMs, openMs };
  };
  const smallBatch = await batch(50);
  const bigBatch = await batch(500);

  return {
    ...only,
    updateSizes: sizes,
    updateMedianBytes: median(sizes),
    updateMaxBytes: Math.max(...sizes),
    liveMaxMessageBytes: liveInspect.maxMessageBytes,
    batchRows: 500,
    batchRenderMs: bigBatch.renderMs,
    batchOpenToRenderedMs: bigBatch.openMs,
    smallBatchRows: 50,
    smallBatchRenderMs: smallBatch.renderMs,
  };
}
