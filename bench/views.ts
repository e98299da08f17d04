// Items "5 Run view" and the batch results row of "6 Batches": the bench table's rows from what the
// harness measured in VS Code (harness/viewsBench.ts). Same row shape as main.ts's rows.
import type { ViewsBench } from './harness/viewsBench';
import { round } from './lib/stats';

const kb = (bytes: number) => round(bytes / 1024, 1);
const ratio = (a: number, b: number) => (b > 0 ? round(a / b, 2) : undefined);
/** Issue 36's targets: each of these rows at most this many times its reference, measured in the same run. */
export const RUN_VIEW_MAX_RATIO = 1.2;
/** "median (min–max) of n" of a row's rounds. */
const spread = (xs: number[]) => `${Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)])} (${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))}) of ${xs.length}`;
const within = (a: number, b: number) => b > 0 && a / b <= RUN_VIEW_MAX_RATIO;
/** The page's longest task during Show All, in its longest single pieces. */
const LONGEST_TASK_PIECES = 2;

/** Only the run view's Open Run and Show All rows (the `runview` part of the bench, run without `vscode`). */
export function runViewTargetRows(v: ViewsBench) {
  return viewBenchRows(v).slice(0, 3);
}

export function viewBenchRows(v: ViewsBench) {
  const item = '5 Run view';
  return [
    {
      item,
      figure: `Open Run → first screen of a 5 MB final output (median of ${v.rounds}, no editor open)`,
      value: round(v.openToRenderedMs, 0),
      unit: 'ms',
      target: `≤ ${RUN_VIEW_MAX_RATIO}× reference`,
      met: within(v.openToRenderedMs, v.smallOpenToRenderedMs),
      reference: 'Open Run → first screen of a 1 KB output (the same way)',
      referenceValue: round(v.smallOpenToRenderedMs, 0),
      ratio: ratio(v.openToRenderedMs, v.smallOpenToRenderedMs),
      note: `5 MB: ${spread(v.bigOpensMs)} ms, 1 KB reference: ${spread(v.smallOpensMs)} ms; opens ${v.bigOpensMs.join('/')} ms, 1 KB ${v.smallOpensMs.join('/')} ms; the session's first Open Run (1 KB, loads the command host) ${round(v.coldOpenMs, 0)} ms; ${v.previewChars} characters on the first screen, the page's render ${v.pageRenderMs} ms; largest message ${kb(v.bigMaxMessageBytes)} KB; after the command: panel ${v.openPhases.attached} ms, page ready ${v.openPhases.ready} ms, init sent ${v.openPhases.init} ms, first report ${v.openPhases.report} ms; the 1 KB's: page ready ${v.smallPhases.ready} ms, init sent ${v.smallPhases.init} ms, first report ${v.smallPhases.report} ms, the page's render ${v.smallPageRenderMs} ms; an empty webview's first message ${round(v.emptyWebviewMs, 0)} ms; the page's loading: ${v.startup}`,
    },
    {
      item,
      figure: `Show All: the rest of the 5 MB output rendered (median of ${v.rounds})`,
      value: round(v.showAllMs, 0),
      unit: 'ms',
      target: `≤ ${RUN_VIEW_MAX_RATIO}× reference`,
      met: within(v.showAllMs, v.markdownAllMs),
      reference: `markdown-it on the same 5 MB in the extension host, one go (median of ${v.rounds})`,
      referenceValue: round(v.markdownAllMs, 0),
      ratio: ratio(v.showAllMs, v.markdownAllMs),
      note: `Show All: ${spread(v.showAllsMs)} ms, markdown-it reference: ${spread(v.markdownRunsMs)} ms; runs ${v.showAllsMs.join('/')} ms; ${v.allChars} characters of text rendered; in the median run the page spent ${v.showAllPage.markdownMs} ms in markdown-it (the worker rendered ${v.showAllPage.workerPieces} segments), ${v.showAllPage.insertMs} ms putting its HTML in, ${v.showAllPage.waitMs} ms waiting for segments (and the tests' DOM scan, which users' pages skip, ${v.showAllPage.scanMs} ms)`,
    },
    {
      item,
      figure: `page's longest task while Show All renders (0: none over 50 ms; median of ${v.rounds})`,
      value: v.showAllLongestTaskMs,
      unit: 'ms',
      // A task cannot be shorter than the one piece it puts in (a segment's HTML is parsed in one go): at most
      // twice that means the page yields between pieces (40 ms slices), whatever the machine's load does to both.
      target: `≤ ${LONGEST_TASK_PIECES}× reference`,
      met: v.showAllLongestTaskMs <= LONGEST_TASK_PIECES * v.showAllLongestPieceMs,
      reference: `the page's longest single piece (a segment rendered and put in), same Show All (median of ${v.rounds})`,
      referenceValue: v.showAllLongestPieceMs,
      ratio: ratio(v.showAllLongestTaskMs, v.showAllLongestPieceMs),
      note: `runs ${v.showAllLongestTasksMs.join('/')} ms, their longest pieces ${v.showAllLongestPiecesMs.join('/')} ms; under 100 ms (what a user would feel) in ${v.showAllLongestTasksMs.filter((ms) => ms < 100).length} of ${v.rounds} (the page shares its thread and heap with the workbench: a long one is usually a full garbage collection; CREW_RUNS_BENCH_TRACE=1 shows it)`,
    },
    {
      item,
      figure: `update message while a run progresses (median of ${v.updateSizes.length}; max ${kb(v.updateMaxBytes)} KB)`,
      value: kb(v.updateMedianBytes),
      unit: 'KB',
      target: '< 5 KB',
      met: v.updateMedianBytes < 5 * 1024 && v.updateMaxBytes < 5 * 1024,
      reference: 'largest message of that run (init)',
      referenceValue: kb(v.liveMaxMessageBytes),
      ratio: ratio(v.updateMedianBytes, v.liveMaxMessageBytes),
    },
    {
      item: '6 Batches',
      figure: `results view of ${v.batchRows} rows rendered (the page's render)`,
      value: round(v.batchRenderMs, 0),
      unit: 'ms',
      target: `≤ ${v.smallBatchRows ? round(v.batchRows / v.smallBatchRows, 0) : '?'}× reference (linear in rows)`,
      met: v.smallBatchRows > 0 && v.batchRenderMs <= (v.batchRows / v.smallBatchRows) * v.smallBatchRenderMs,
      reference: `results view of ${v.smallBatchRows} rows, the same way`,
      referenceValue: round(v.smallBatchRenderMs, 0),
      ratio: ratio(v.batchRenderMs, v.smallBatchRenderMs),
      note: `Open Batch Results → ${v.batchRows} rows on the page: ${round(v.batchOpenToRenderedMs, 0)} ms`,
    },
  ];
}
