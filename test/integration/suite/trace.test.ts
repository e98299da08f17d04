// A run's trace in its run view, in a real extension host: built from the event log every status carries
// (status-events.md), kept with the run, drawn as a waterfall, priced from the settings, exported.
//
// Most checks drive a run through the store with hand-made bodies (api.runs.applyPolled: the very fold a poll
// does, no network), so each event is the test's; the last follows a demo crew's real run on the simulator.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { normaliseStatus } from '../../../src/api/normalize';
import type { RunRecord } from '../../../src/runTracking/model';
import type { PageReport } from '../../../src/runView/page/messages';
import { type CrewConfig, type Simulator, startSimulator } from '../../../src/simulator/server';
import { executeCommand, ui, waitFor } from '../helpers';
import { type Api, inLightAndDark, testApi } from './support/kit';
import { addSimulatorCrews, cleanUp, kickOff, waitForRun } from './support/monitoring';

const CREW_URL = 'http://127.0.0.1:9';
const CREW_NAME = 'Trace test crew';
const T0 = Date.parse('2026-10-01T10:00:00Z');

let api: Api;
/** Runs the hand-made tests added: removed after them, so later suites' trees (and pictures) never show them. */
const madeRuns = new Set<string>();

async function newRun(label: string): Promise<RunRecord> {
  const run = await api.runs.add({ crewUrl: CREW_URL, crewName: CREW_NAME, kickoffId: `k-${label}-${Date.now()}`, inputs: { topic: label } });
  madeRuns.add(run.id);
  await api.runs.setWatching(run.id, false, 'user'); // Driven by the test, not polled.
  return run;
}

/** An event of the bus as a status summarises it, `s` seconds after T0. */
function ev(id: string, type: string, s: number, more: Record<string, unknown> = {}) {
  return { event_id: id, type, timestamp: new Date(T0 + s * 1000).toISOString(), ...more };
}

const TASK = { task_id: 't-1', task_name: 'research', agent_id: 'a-1', agent_role: 'Researcher' };

/** A crew run: its start, a task, an agent and a model call that has not ended. */
const opening = [
  ev('e1', 'crew_kickoff_started', 0),
  ev('e2', 'task_started', 1, { ...TASK, parent_event_id: 'e1' }),
  ev('e3', 'agent_execution_started', 1.5, { ...TASK, parent_event_id: 'e2' }),
  ev('e4', 'llm_call_started', 2, { ...TASK, parent_event_id: 'e3', model: 'test-model-1', call_id: 'c1' }),
];

async function apply(run: RecordLike, body: Record<string, unknown>): Promise<void> {
  await api.runs.applyPolled(run.id, undefined, normaliseStatus({ state: 'RUNNING', status: 'Task is Running', ...body }));
}
type RecordLike = Pick<RunRecord, 'id'>;

function report(runId: string): PageReport | undefined {
  return api.panels.inspect(runId)?.pageReport;
}

function waitForReport(runId: string, check: (r: PageReport) => boolean, message: string, timeoutMs = 20_000): Promise<PageReport> {
  return waitFor(
    () => {
      const r = report(runId);
      return r && check(r) ? r : undefined;
    },
    { message: () => `${message} (last report: ${JSON.stringify(report(runId) && traceOf(report(runId)!))})`, timeoutMs },
  );
}

function traceOf(r: PageReport) {
  return { summary: r.traceSummary, notice: r.traceNotice, rows: r.traceRows, selected: r.traceSelected, spans: r.traceSpans, failed: r.traceFailed, running: r.traceRunning };
}

/** Pictures of the editor area in the light and the dark theme (looked at by a person: test-results/). */
async function screenshots(name: string, ready: () => Promise<unknown>): Promise<void> {
  await inLightAndDark(async (kind) => {
    await ready();
    const shot = await ui.screenshot(`${name}-${kind}`, { selector: '.part.editor' });
    assert.ok(shot.width > 0 && shot.height > 0, `the ${kind} picture was taken`);
  });
}

async function open(run: RecordLike): Promise<void> {
  await executeCommand('crewRuns.openRun', { runId: run.id });
  await waitForReport(run.id, (r) => r.stateText.length > 0, 'the run view drawn');
}

describe('Trace', function () {
  this.timeout(120_000);

  before(async () => {
    api = await testApi();
  });

  afterEach(async () => {
    await vscode.workspace.getConfiguration('crewRuns.trace').update('modelPrices', undefined, vscode.ConfigurationTarget.Global);
    await executeCommand('workbench.action.closeAllEditors');
  });

  after(async () => {
    for (const id of madeRuns) {
      await api.runs.remove(id);
    }
  });

  it('grows live as events arrive: starts paired with their ends, nested, the open call running', async () => {
    const run = await newRun('live trace');
    await open(run);
    await apply(run, { events: opening, events_count: 4 });
    let r = await waitForReport(run.id, (x) => x.traceSpans === 4, 'four spans');
    assert.strictEqual(r.traceRunning, 4, 'nothing has ended yet');
    const rows = r.traceRows.split('\n');
    assert.match(rows[0], /^crew .* running$/);
    assert.deepStrictEqual(rows.slice(1), ['  task research running', '    agent Researcher running', '      llm test-model-1 running'], 'nested crew → task → agent → model call');
    const bytesBefore = api.panels.inspect(run.id)!.lastMessageBytes;
    await apply(run, {
      events: [
        ...opening,
        ev('e5', 'llm_call_completed', 4, { ...TASK, started_event_id: 'e4', call_id: 'c1', model: 'test-model-1', usage: { prompt_tokens: 1200, completion_tokens: 300, total_tokens: 1500 } }),
        ev('e6', 'tool_usage_started', 4.5, { ...TASK, parent_event_id: 'e3', tool_name: 'search', tool_args: { q: 'llamas' } }),
      ],
      events_count: 6,
    });
    r = await waitForReport(run.id, (x) => x.traceSpans === 5 && x.traceRows.includes('llm test-model-1 ok'), 'the model call ended, a tool call begun');
    assert.match(r.traceRows, /tool search running/);
    assert.match(r.traceSummary, /1 task · 1 agent · 1 model call · 1 tool call/);
    assert.match(r.traceSummary, /1,500 tokens/);
    assert.match(r.traceRows, /\n {2}task research running 1,500 tokens\n/, 'a task\'s tokens are its model calls\'');
    assert.ok(api.panels.inspect(run.id)!.lastMessageBytes < bytesBefore + 4000, 'the update carried the new events, not the whole trace');
  });

  it('marks a failed tool step, and Jump to the Failure selects it with its error', async () => {
    const run = await newRun('failing trace');
    await open(run);
    await apply(run, {
      events: [
        ...opening,
        ev('e5', 'llm_call_completed', 3, { ...TASK, started_event_id: 'e4', usage: { total_tokens: 10 } }),
        ev('e6', 'tool_usage_started', 3.5, { ...TASK, parent_event_id: 'e3', tool_name: 'scrape' }),
        ev('e7', 'tool_usage_error', 9, { ...TASK, started_event_id: 'e6', tool_name: 'scrape', error: 'HTTP 503 from example.com' }),
        ev('e8', 'agent_execution_error', 9.5, { ...TASK, started_event_id: 'e3', error: 'Tool failed' }),
        ev('e9', 'task_failed', 9.6, { ...TASK, started_event_id: 'e2', error: 'Tool failed' }),
        ev('e10', 'crew_kickoff_failed', 9.7, { started_event_id: 'e1', error: 'Tool failed' }),
      ],
      events_count: 10,
    });
    const r = await waitForReport(run.id, (x) => x.traceSpans === 5 && x.traceFailed >= 1, 'the failed steps');
    assert.match(r.traceRows, /tool scrape failed/);
    assert.match(r.traceSummary, /errors/);
    assert.ok(api.panels.jumpToFailure(run.id), 'the page is ready');
    const jumped = await waitForReport(run.id, (x) => x.traceSelected.includes('scrape'), 'the failing step selected');
    assert.match(jumped.traceSelected, /HTTP 503 from example\.com/, 'its error shown');
  });

  it('says what to do when the crew’s runtime sends no events, and keeps the timeline', async () => {
    const run = await newRun('old runtime');
    await open(run);
    await apply(run, { events: null, events_count: null, last_event: null, progress: null, source: 'application' });
    const r = await waitForReport(run.id, (x) => /no event log/.test(x.traceNotice), 'the notice');
    assert.ok(r.timelineEntries > 0, 'the polled timeline stays');
    assert.match(r.traceNotice, /redeploy/);
    assert.match(r.traceNotice, /CREWAI_STATUS_EVENTS/);
    assert.strictEqual(r.traceSpans, 0);
  });

  it('a windowed log says how many earlier events were never seen', async () => {
    const run = await newRun('windowed');
    await open(run);
    // The status lists only its latest 2 of 42 events.
    await apply(run, { events: [ev('w41', 'memory_saved', 41), ev('w42', 'knowledge_retrieval_started', 42)], events_count: 42 });
    const r = await waitForReport(run.id, (x) => x.traceSpans === 2, 'the two events, unknown types kept');
    assert.match(r.traceNotice, /40 earlier events were never seen/);
    assert.match(r.traceRows, /memory_saved/);
  });

  it('estimates cost from the price table the user edits', async () => {
    const run = await newRun('priced');
    await open(run);
    await apply(run, {
      events: [
        ...opening,
        ev('e5', 'llm_call_completed', 4, { ...TASK, started_event_id: 'e4', model: 'test-model-1', usage: { prompt_tokens: 1_000_000, completion_tokens: 500_000, total_tokens: 1_500_000 } }),
      ],
      events_count: 5,
    });
    let r = await waitForReport(run.id, (x) => x.traceSpans === 4 && x.traceSummary.includes('tokens'), 'the tokens');
    assert.doesNotMatch(r.traceSummary, /estimate/, 'no price for an unknown model: tokens only');
    await vscode.workspace.getConfiguration('crewRuns.trace').update('modelPrices', { 'test-model-1': { input: 2, output: 10 } }, vscode.ConfigurationTarget.Global);
    // 1M prompt tokens at $2 + 0.5M completion tokens at $10.
    r = await waitForReport(run.id, (x) => x.traceSummary.includes('$7.00'), 'the cost at the edited price');
    assert.match(r.traceSummary, /≈ \$7\.00 \(estimate\)/);
    await vscode.workspace.getConfiguration('crewRuns.trace').update('modelPrices', { 'test-model-1': { input: 4, output: 10 } }, vscode.ConfigurationTarget.Global);
    await waitForReport(run.id, (x) => x.traceSummary.includes('$9.00'), 'the cost follows the edit');
  });

  it('survives closing and reopening the view, and exports as OpenTelemetry spans', async () => {
    const run = await newRun('exported');
    await open(run);
    await apply(run, { events: opening, events_count: 4 });
    await waitForReport(run.id, (x) => x.traceSpans === 4, 'four spans');
    await executeCommand('workbench.action.closeAllEditors');
    await open(run);
    const r = await waitForReport(run.id, (x) => x.traceSpans === 4, 'the same trace, read from the run’s events');
    assert.match(r.traceRows, /llm test-model-1 running/);
    // Show Trace: the view scrolled to its trace, the first row selected for the keyboard.
    assert.strictEqual(await executeCommand('crewRuns.showTrace', { runId: run.id }), true);
    await waitForReport(run.id, (x) => x.traceSelected.startsWith(CREW_NAME) || /crew_kickoff_started/.test(x.traceSelected), 'the first row selected');

    const document = (await executeCommand('crewRuns.exportTrace', { runId: run.id }, 'otlp')) as vscode.TextDocument;
    const otlp = JSON.parse(document.getText()) as { resourceSpans: { scopeSpans: { spans: { name: string; parentSpanId?: string; traceId: string }[] }[] }[] };
    const spans = otlp.resourceSpans[0].scopeSpans[0].spans;
    assert.strictEqual(spans.length, 4);
    assert.ok(spans.every((s) => /^[0-9a-f]{32}$/.test(s.traceId)));
    assert.strictEqual(spans.filter((s) => !s.parentSpanId).length, 1, 'one root: the crew');
  });
});

describe('Trace of a crew\'s real runs (simulator)', function () {
  this.timeout(180_000);

  let sim: Simulator;
  let crews: Record<string, { url: string; name: string }>;
  const runIds = new Set<string>();
  const crew = (id: string, name: string, extra: Partial<CrewConfig> = {}, taskMs = 2500): CrewConfig => ({
    id,
    name,
    kind: 'crew',
    inputs: ['topic'],
    pendingMs: 200,
    failWhenInputContains: '#fail',
    tasks: [
      { name: 'research_task', agent: 'Researcher', durationMs: taskMs, output: 'Notes on {topic}.' },
      { name: 'writing_task', agent: 'Writer', durationMs: taskMs, output: '# {topic}' },
    ],
    ...extra,
  });

  before(async () => {
    api = await testApi();
    sim = await startSimulator({
      timeScale: 1,
      dialect: 'live',
      crews: [
        crew('evented', 'Evented'),
        // Long enough that the first look, however late a loaded machine makes it, comes before the second task.
        crew('long', 'Long', {}, 10_000),
        crew('old', 'Old Runtime', { oldRuntime: true }),
        crew('windowed', 'Windowed', { statusMaxEvents: 3 }),
      ],
    });
    crews = await addSimulatorCrews(api, sim, 'Trace');
  });

  after(async () => {
    await executeCommand('workbench.action.closeAllEditors');
    await cleanUp(api, runIds);
    await sim?.close();
  });

  async function started(crewId: string, topic: string): Promise<string> {
    const runId = await kickOff(crews[crewId].url, { topic });
    runIds.add(runId);
    await executeCommand('crewRuns.openRun', { runId });
    return runId;
  }

  it('grows live while the run goes on and ends with every step closed', async () => {
    const runId = await started('long', 'live llamas');
    const live = await waitForReport(runId, (x) => x.traceRunning > 0 && /llm /.test(x.traceRows) && !/writing_task/.test(x.traceRows), 'a model call running in the first task', 60_000);
    const shot = await ui.screenshot('trace-running-light', { selector: '.part.editor' });
    assert.ok(shot.width > 0);
    await waitForRun(api, runId, (r) => r.state === 'succeeded', 'the run ends');
    const done = await waitForReport(runId, (x) => x.traceRunning === 0 && /crew .* ok/.test(x.traceRows), 'the crew span ok', 60_000);
    assert.ok(done.traceSpans > live.traceSpans, `the trace grew (${live.traceSpans} → ${done.traceSpans})`);
    assert.match(done.traceRows, /task research_task ok/);
    assert.match(done.traceRows, /task writing_task ok/);
    assert.match(done.traceSummary, /2 tasks/);
    assert.match(done.traceSummary, /tokens/);
    assert.strictEqual(done.traceFailed, 0);
  });

  it('a failed run: its failing tool step marked, Jump to the Failure lands on it', async () => {
    const runId = await started('evented', 'broken llamas #fail');
    await waitForRun(api, runId, (r) => r.state === 'failed', 'the run fails');
    const r = await waitForReport(runId, (x) => x.traceFailed > 0 && /tool .* failed/.test(x.traceRows), 'the failed tool step', 60_000);
    assert.match(r.traceRows, /crew .* failed/);
    assert.ok(api.panels.jumpToFailure(runId));
    const jumped = await waitForReport(runId, (x) => x.traceSelected.length > 0, 'a step selected');
    const failedTool = /tool (\S+) failed/.exec(r.traceRows)![1];
    assert.ok(jumped.traceSelected.includes(failedTool), `the failing tool (${failedTool}) selected: ${jumped.traceSelected}`);
    await screenshots('trace-failed', () => waitForReport(runId, (x) => x.traceSelected.includes(failedTool), 'still selected'));
  });

  it('an older runtime: the view says how to get a trace', async () => {
    const runId = await started('old', 'old llamas');
    const r = await waitForReport(runId, (x) => /CREWAI_STATUS_EVENTS/.test(x.traceNotice), 'the notice', 60_000);
    assert.strictEqual(r.traceSpans, 0);
  });

  it('a log windowed to the latest 3 events says how many were never seen', async () => {
    const runId = await started('windowed', 'windowed llamas');
    await waitForRun(api, runId, (r) => r.state === 'succeeded', 'the run ends');
    // The run's end was the last write: its details hold the final counts.
    const details = await api.runs.readDetails(runId);
    const count = details.lastSnapshot?.eventLog?.count ?? 0;
    const kept = details.events?.kept ?? 0;
    assert.ok(count > kept && kept > 0, `the window lost events between checks (${kept} of ${count} seen)`);
    const r = await waitForReport(runId, (x) => x.traceNotice.includes(`${(count - kept).toLocaleString()} earlier events were never seen`), 'the unseen count', 60_000);
    assert.strictEqual(r.traceSpans > 0, true);
  });
});
