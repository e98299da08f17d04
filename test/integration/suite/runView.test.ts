// The run view (one webview panel per run) in a real extension host: it follows a run live, renders
// untrusted output inert, stays responsive with a 5 MB output, and its actions work.
//
// Runs are driven through the store (api.runs.add / applyPolled with normalised hand-made bodies),
// so no network is involved. The panels are seen through the test API's probe (api.panels).
import * as assert from 'assert';
import * as vscode from 'vscode';
import { normaliseStatus } from '../../../src/api/normalize';
import type { RunRecord } from '../../../src/runTracking/model';
import type { PageReport } from '../../../src/runView/page/messages';
import { executeCommand, ui, waitFor } from '../helpers';
import { type Api, pickInQuickInput, testApi, waitForQuickInput } from './support/kit';

/** A loopback address nothing listens on: if the poller tries it, it fails fast and locally. */
const CREW_URL = 'http://127.0.0.1:9';
const CREW_NAME = 'Run view test crew';

let api: Api;
let panels: Api['panels'];

async function setUp(): Promise<void> {
  api = await testApi();
  panels = api.panels;
}

async function newRun(label: string): Promise<RunRecord> {
  const run = await api.runs.add({ crewUrl: CREW_URL, crewName: CREW_NAME, kickoffId: `k-${label}-${Date.now()}`, inputs: { topic: label } });
  await api.runs.setWatching(run.id, false, 'user'); // Driven by the test, not polled.
  return run;
}

function snapshot(body: Record<string, unknown>) {
  return normaliseStatus(body);
}

function report(runId: string): PageReport | undefined {
  return panels.inspect(runId)?.pageReport;
}

function waitForReport(runId: string, check: (r: PageReport) => boolean, message: string, timeoutMs = 20_000): Promise<PageReport> {
  return waitFor(
    () => {
      const r = report(runId);
      return r && check(r) ? r : undefined;
    },
    { message: `${message} (last report: ${JSON.stringify(report(runId))?.slice(0, 400)})`, timeoutMs },
  );
}

function assertInert(r: PageReport): void {
  assert.strictEqual(r.scriptElements, 0, 'no <script> inside output containers');
  assert.strictEqual(r.eventHandlerAttributes, 0, 'no on* attributes inside output containers');
  assert.strictEqual(r.unsafeElements, 0, 'no style/img/svg/iframe/... inside output containers');
  assert.strictEqual(r.unsafeLinks, 0, 'no link that is not http(s)');
}

const XSS_CORPUS = [
  '# Report',
  '<script>window.parent.postMessage("pwned-by-crew-output","*")</script>',
  '<img src=x onerror="alert(1)">',
  '<svg onload=alert(1)><script>alert(2)</script></svg>',
  '<svg><a xlink:href="javascript:alert(3)"><text>svg link</text></a></svg>',
  '<iframe srcdoc="<script>alert(4)</script>"></iframe>',
  '<style>*{display:none}</style></style><script>alert(5)</script>',
  '<div style="background-image:url(javascript:alert(6))">styled</div>',
  '[js link](javascript:alert(7))',
  '[JS link](JaVaScRiPt:alert(8))',
  '[command link](command:workbench.action.terminal.new)',
  '[vscode link](vscode://file/etc/passwd)',
  '[data link](data:text/html;base64,PHNjcmlwdD5hbGVydCg5KTwvc2NyaXB0Pg==)',
  '<command:workbench.action.quit>',
  '![pixel](https://evil.example/pixel.png)',
  '<a href="javascript:alert(10)" onclick="alert(11)">raw anchor</a>',
  '"><img src=x onerror=alert(12)>',
  '`<script>in code</script>`',
  '```html\n<script>alert(13)</script>\n```',
  '[safe link](https://example.com/ok)',
].join('\n\n');

describe('Run view', function () {
  this.timeout(120_000);

  before(setUp);

  afterEach(async () => {
    await executeCommand('workbench.action.closeAllEditors');
  });

  it('follows a run live with small update messages', async () => {
    const run = await newRun('live');
    await executeCommand('crewRuns.openRun', { runId: run.id });
    const inspection = panels.inspect(run.id);
    assert.ok(inspection, 'a panel is open for the run');
    assert.match(inspection.html, /default-src 'none'/, 'strict CSP');
    assert.match(inspection.html, /script-src 'nonce-[0-9a-f]{32}'/, 'one nonce script');
    assert.doesNotMatch(inspection.html, /unsafe-inline|unsafe-eval/);

    let r = await waitForReport(run.id, (x) => x.stateText.length > 0, 'the page rendering its init');
    const queuedText = r.stateText;

    await api.runs.applyPolled(
      run.id, undefined,
      snapshot({
        state: 'RUNNING',
        status: 'Reading 3 sources on llamas',
        progress: { unit: 'task', completed: 1, total: 3, current: 'writing', current_agent: 'Writer' },
        last_step: { thought: 'I should look up llamas', tool: 'search', tool_input: 'llamas', result: 'Llamas are camelids.' },
        last_executed_task: { name: 'research', description: 'Research llamas', output: '## Research\n\nLlamas are **camelids**.', agent: 'Researcher' },
      }),
    );
    r = await waitForReport(run.id, (x) => x.stateText !== queuedText && x.taskSections === 1, 'running with one task');
    assert.match(r.message, /Reading 3 sources on llamas/, 'the server\'s own words, when they say more than the state');
    assert.match(r.progressText, /1\D+3/, 'progress with a known total');
    const afterRunning = panels.inspect(run.id)!;

    await api.runs.applyPolled(run.id, undefined, snapshot({ state: 'SUCCESS', status: null, result: '# Llama report\n\nLlamas are great.' }));
    r = await waitForReport(run.id, (x) => x.hasFinalOutput && x.finalOutputComplete, 'the final output');
    assert.ok(r.finalOutputTextLength > 10);
    assert.ok(r.timelineEntries >= 3, 'timeline: queued, running, succeeded');
    assertInert(r);

    const done = panels.inspect(run.id)!;
    assert.ok(done.sentMessages > afterRunning.sentMessages, 'updates were sent');
    assert.ok(done.lastMessageBytes < 8 * 1024, `the last update is small (${done.lastMessageBytes} bytes)`);
    assert.ok(done.maxMessageBytes < 64 * 1024, `no message is large (${done.maxMessageBytes} bytes)`);

    // Opening again reveals the same panel.
    await executeCommand('crewRuns.openRun', { runId: run.id });
    assert.strictEqual(vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputWebview).length, 1);
  });

  it('renders an XSS corpus in task and final outputs inert', async () => {
    const run = await newRun('xss');
    await executeCommand('crewRuns.openRun', { runId: run.id });
    await api.runs.applyPolled(
      run.id, undefined,
      snapshot({ state: 'RUNNING', status: '<img src=x onerror=alert(1)>', last_executed_task: { name: '<script>alert(0)</script>', output: XSS_CORPUS, agent: '<b>agent</b>' } }),
    );
    await waitForReport(run.id, (x) => x.taskSections === 1, 'the task section');
    await api.runs.applyPolled(run.id, undefined, snapshot({ state: 'SUCCESS', status: null, result: XSS_CORPUS }));
    const r = await waitForReport(run.id, (x) => x.hasFinalOutput, 'the final output');
    assertInert(r);
    // Per container: the safe link, and the image turned into a link to its https address.
    assert.strictEqual(r.links, 4, 'only the https links (two in each of task and final output) are links');
    assert.ok(r.finalOutputTextLength > 100, 'the corpus is shown as text');
    if (ui.available()) {
      const text = await ui.frameText('pwned-by-crew-output', { timeoutMs: 10_000 });
      const at = text.text.indexOf('pwned-by-crew-output');
      assert.match(text.text, /<script>window\.parent\.postMessage\("pwned-by-crew-output"/, `script tags are shown as text: …${text.text.slice(Math.max(0, at - 80), at + 80)}…`);
    }
  });

  it('stays responsive with a 5 MB final output and renders it all on request', async () => {
    const run = await newRun('big');
    await executeCommand('crewRuns.openRun', { runId: run.id });
    await waitForReport(run.id, (x) => x.stateText.length > 0, 'init');
    const paragraph = 'The crew wrote a very long report. It has **bold** words, `code` and a [link](https://example.com/p).\n\n';
    const text = `# Big report\n\n${paragraph.repeat(Math.ceil((5 * 1024 * 1024) / paragraph.length))}`;
    assert.ok(text.length >= 5 * 1024 * 1024);
    await api.runs.applyPolled(run.id, undefined, snapshot({ state: 'SUCCESS', status: null, result: text }));
    let r = await waitForReport(run.id, (x) => x.hasFinalOutput, 'the preview of the final output');
    assert.ok(!r.finalOutputComplete, 'a preview, not all of it');
    assert.ok(r.finalOutputTextLength > 1000 && r.finalOutputTextLength < 1024 * 1024, `preview length ${r.finalOutputTextLength}`);
    const max = panels.inspect(run.id)!.maxMessageBytes;
    assert.ok(max < 1024 * 1024, `no message near the output's size (${max} bytes)`);
    console.log(`      preview rendered in ${r.renderMs} ms; largest message ${max} bytes`);

    // Still responsive: a small change shows up quickly.
    const before = r.messagesHandled;
    let started = Date.now();
    await api.runs.setWarning(run.id, 'A small change');
    await waitForReport(run.id, (x) => x.messagesHandled > before, 'the page handling an update', 5000);
    console.log(`      update with a 5 MB output on the page: ${Date.now() - started} ms`);

    // Show All renders the rest in segments, also while the run changes in other ways meanwhile.
    started = Date.now();
    assert.ok(panels.showAll(run.id));
    let changing = true;
    const churn = (async () => {
      for (let i = 0; changing; i++) {
        await api.runs.setWarning(run.id, i % 2 ? 'A small change during Show All' : undefined);
        await new Promise((resolve) => setTimeout(resolve, 25)); // A change every 25 ms or so, not a wait for a state.
      }
    })();
    try {
      r = await waitForReport(run.id, (x) => x.finalOutputComplete, 'the whole output rendered', 90_000);
    } finally {
      changing = false;
      await churn;
    }
    const rendered = r.finalOutputTextLength; // Of the segments in the page (they join it in batches).
    console.log(`      whole 5 MB output rendered in ${Date.now() - started} ms (${rendered} characters of text)`);
    // Markup is not text: a paragraph renders to about 70% of its source characters.
    const perParagraph = 'The crew wrote a very long report. It has bold words, code and a link.'.length;
    const expected = (text.length / paragraph.length) * perParagraph;
    assert.ok(rendered > expected * 0.98, `all of the text is rendered (${rendered} characters, about ${Math.round(expected)} expected)`);
    assertInert(r);
    // The segments the host sent as markdown were rendered by the page's worker (page/renderWorker.ts):
    // the CSP lets it start, and its output passed the same DOM scan.
    assert.ok(r.workerPieces > 0, `the markdown worker rendered segments (${r.workerPieces})`);
    const inspection = panels.inspect(run.id)!;
    assert.ok(inspection.maxMessageBytes < 1024 * 1024, `segments stay small (${inspection.maxMessageBytes} bytes)`);
    if (ui.available()) {
      const shot = await ui.screenshot('run-view-show-all');
      assert.ok(shot.distinctColours > 10, 'the screenshot shows the run view');
    }
  });

  it('actions: open output in editor, copy, task output documents, compare', async () => {
    const first = await newRun('actions-a');
    await api.runs.applyPolled(first.id, undefined, snapshot({ state: 'SUCCESS', status: null, result: 'Output of the first run.' }));
    const run = await newRun('actions-b');
    await api.runs.applyPolled(run.id, undefined, snapshot({ state: 'RUNNING', last_executed_task: { name: 'research', output: 'Task one output.' } }));
    const output = '# Result\n\nThe second run is done.';
    await api.runs.applyPolled(run.id, undefined, snapshot({ state: 'SUCCESS', status: null, result: output }));
    await executeCommand('crewRuns.openRun', { runId: run.id });

    await executeCommand('crewRuns.openOutputInEditor', { runId: run.id });
    const editor = await waitFor(() => vscode.window.activeTextEditor?.document.uri.scheme === 'crew-run' && vscode.window.activeTextEditor, { message: 'the output document' });
    assert.strictEqual(editor.document.getText(), output);
    assert.strictEqual(editor.document.languageId, 'markdown');

    await vscode.env.clipboard.writeText('');
    await executeCommand('crewRuns.copyOutput', { runId: run.id });
    assert.strictEqual(await vscode.env.clipboard.readText(), output);

    await executeCommand('crewRuns.openTaskOutput', { runId: run.id, index: 0 });
    const task = await waitFor(() => vscode.window.activeTextEditor?.document.uri.path.endsWith(' · task-1.md') && vscode.window.activeTextEditor, { message: 'the task document' });
    assert.strictEqual(task.document.getText(), 'Task one output.');

    if (ui.available()) {
      const comparing = executeCommand('crewRuns.compareOutput', { runId: run.id });
      await waitForQuickInput('actions-a', 'the run quick pick');
      await pickInQuickInput('actions-a');
      await comparing;
      const tab = await waitFor(() => {
        const active = vscode.window.tabGroups.activeTabGroup.activeTab;
        return active?.input instanceof vscode.TabInputTextDiff ? active.input : undefined;
      }, { message: 'a diff editor' });
      // The run compared (picked first) on the left.
      assert.strictEqual(tab.original.path, `/${run.id}/actions-b · output.md`);
      assert.strictEqual(tab.modified.path, `/${first.id}/actions-a · output.md`);
    }
  });

  it('survives being hidden: the page is rebuilt from a fresh init', async () => {
    const run = await newRun('hidden');
    await api.runs.applyPolled(run.id, undefined, snapshot({ state: 'SUCCESS', status: null, result: 'Hidden and back.' }));
    await executeCommand('crewRuns.openRun', { runId: run.id });
    // The page handles its init, then its trace (always sent after an init); one more message after those makes the
    // old page's count one a fresh page (init and trace) stays below, whichever of its reports is read.
    const settled = await waitForReport(run.id, (x) => x.hasFinalOutput && x.messagesHandled >= 2, 'first render and its trace');
    assert.ok(panels.jumpToFailure(run.id), 'the page is ready');
    const r = await waitForReport(run.id, (x) => x.messagesHandled > settled.messagesHandled, 'the page handling one more message');
    await executeCommand('workbench.action.files.newUntitledFile');
    await waitFor(() => !panels.inspect(run.id)?.visible, { message: 'the panel hidden' });
    await executeCommand('crewRuns.openRun', { runId: run.id });
    assert.strictEqual(panels.inspect(run.id)!.inits, 1);
    await waitFor(() => panels.inspect(run.id)!.inits === 2, { message: 'a second init for the rebuilt page' });
    await waitForReport(run.id, (x) => x.hasFinalOutput && x.messagesHandled < r.messagesHandled, 'a fresh page after reveal');
    await executeCommand('workbench.action.revertAndCloseActiveEditor');
  });

  it('screenshot of a finished run', async function () {
    if (!ui.available()) {
      this.skip();
    }
    const run = await newRun('screenshot');
    await api.runs.applyPolled(
      run.id, undefined,
      snapshot({
        state: 'RUNNING',
        progress: { unit: 'task', completed: 1, total: 2 },
        last_executed_task: { name: 'research', output: '## Findings\n\n- Llamas hum.\n- They live in the Andes.', agent: 'Researcher' },
      }),
    );
    await api.runs.applyPolled(
      run.id, undefined,
      snapshot({
        state: 'SUCCESS',
        status: null,
        result: '# Llama report\n\nLlamas are **social** animals. See [the guide](https://example.com/llamas).\n\n```json\n{"herd": 12}\n```',
        usage_metrics: { total_tokens: 12345, prompt_tokens: 10000, completion_tokens: 2345 },
      }),
    );
    await executeCommand('crewRuns.openRun', { runId: run.id });
    await waitForReport(run.id, (x) => x.hasFinalOutput, 'the finished run');
    const frame = await ui.frameText('Llama report', { timeoutMs: 10_000 });
    assert.match(frame.text, /Llamas are social animals/);
    const shot = await ui.screenshot('run-view-finished');
    console.log(`      screenshot: ${shot.path} (${shot.width}x${shot.height}, ${shot.distinctColours} colours)`);
    assert.ok(shot.distinctColours > 20, 'the screenshot is not blank');
  });
});
