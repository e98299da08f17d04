// Compare Trace with Another Run… in a real extension host: two runs driven through the store with hand-made
// statuses (api.runs.applyPolled: the fold a poll does, no network), so every event is the test's; the comparison
// opens as a read-only Markdown document in the preview, which a person looks at in test-results/.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { normaliseStatus } from '../../../src/api/normalize';
import type { RunRecord } from '../../../src/runTracking/model';
import { executeCommand, ui, waitFor } from '../helpers';
import { type Api, SLOW, pickInQuickInput, testApi, waitForQuickInput } from './support/kit';

const CREW_URL = 'http://127.0.0.1:9';
const CREW_NAME = 'Trace comparison crew';
const T0 = Date.parse('2026-10-02T09:00:00Z');

let api: Api;

async function newRun(label: string): Promise<RunRecord> {
  const run = await api.runs.add({ crewUrl: CREW_URL, crewName: CREW_NAME, kickoffId: `k-${label}-${Date.now()}`, inputs: { topic: label } });
  await api.runs.setWatching(run.id, false, 'user'); // Driven by the test, not polled.
  return run;
}

/** An event of the bus as a status summarises it, `s` seconds after T0. */
function ev(id: string, type: string, s: number, more: Record<string, unknown> = {}) {
  return { event_id: id, type, timestamp: new Date(T0 + s * 1000).toISOString(), ...more };
}

const RESEARCH = { task_id: 't-1', task_name: 'research', agent_id: 'a-1', agent_role: 'Researcher' };
const WRITE = { task_id: 't-2', task_name: 'write', agent_id: 'a-2', agent_role: 'Writer' };

/**
 * A crew run: research (a model call `callSeconds` long, a search, then `extraTool` when given) and, when `write`,
 * a writing task with one model call.
 */
function crewEvents(callSeconds: number, options: { extraTool?: string; write: boolean }) {
  const events = [
    ev('e1', 'crew_kickoff_started', 0, { crew_name: CREW_NAME }),
    ev('e2', 'task_started', 1, { ...RESEARCH, parent_event_id: 'e1' }),
    ev('e3', 'agent_execution_started', 1, { ...RESEARCH, parent_event_id: 'e2' }),
    ev('e4', 'llm_call_started', 2, { ...RESEARCH, parent_event_id: 'e3', model: 'test-model-1', call_id: 'c1' }),
    ev('e5', 'llm_call_completed', 2 + callSeconds, { ...RESEARCH, started_event_id: 'e4', call_id: 'c1', usage: { prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200 } }),
    ev('e6', 'tool_usage_started', 3 + callSeconds, { ...RESEARCH, parent_event_id: 'e3', tool_name: 'search' }),
    ev('e7', 'tool_usage_finished', 3.5 + callSeconds, { ...RESEARCH, started_event_id: 'e6', tool_name: 'search' }),
  ];
  let s = 4 + callSeconds;
  if (options.extraTool) {
    events.push(ev('x1', 'tool_usage_started', s, { ...RESEARCH, parent_event_id: 'e3', tool_name: options.extraTool }));
    events.push(ev('x2', 'tool_usage_finished', s + 1.2, { ...RESEARCH, started_event_id: 'x1', tool_name: options.extraTool }));
    s += 2;
  }
  events.push(ev('e8', 'agent_execution_completed', s, { ...RESEARCH, started_event_id: 'e3' }), ev('e9', 'task_completed', s, { ...RESEARCH, started_event_id: 'e2' }));
  if (options.write) {
    events.push(
      ev('w1', 'task_started', s + 1, { ...WRITE, parent_event_id: 'e1' }),
      ev('w2', 'agent_execution_started', s + 1, { ...WRITE, parent_event_id: 'w1' }),
      ev('w3', 'llm_call_started', s + 1.5, { ...WRITE, parent_event_id: 'w2', model: 'test-model-1', call_id: 'c2' }),
      ev('w4', 'llm_call_completed', s + 3, { ...WRITE, started_event_id: 'w3', call_id: 'c2', usage: { total_tokens: 800 } }),
      ev('w5', 'agent_execution_completed', s + 3, { ...WRITE, started_event_id: 'w2' }),
      ev('w6', 'task_completed', s + 3, { ...WRITE, started_event_id: 'w1' }),
    );
    s += 3;
  }
  events.push(ev('e10', 'crew_kickoff_completed', s + 0.5, { started_event_id: 'e1' }));
  return events;
}

async function finish(run: RunRecord, events: ReturnType<typeof crewEvents> | null): Promise<void> {
  await api.runs.applyPolled(
    run.id, undefined,
    normaliseStatus({ state: 'SUCCESS', status: null, result: 'Done.', events, events_count: events?.length ?? null, ...(events ? {} : { last_event: null, progress: null, source: 'application' }) }),
  );
}

/** The text as a reader sees it in the preview: Markdown escapes dropped. */
const read = (markdown: string) => markdown.replace(/\\(.)/g, '$1');

describe('Trace comparison', function () {
  this.timeout(120_000);

  before(async () => {
    api = await testApi();
  });

  afterEach(async () => {
    await executeCommand('workbench.action.closeAllEditors');
  });

  it('lines up two runs step by step: a slower model call, an added tool call, a missing task, with their deltas', async () => {
    const a = await newRun('compare before');
    const b = await newRun('compare after');
    await finish(a, crewEvents(2, { write: true }));
    await finish(b, crewEvents(5, { extraTool: 'scrape', write: false }));

    const document = (await executeCommand('crewRuns.compareTraces', { runId: a.id }, { runId: b.id })) as vscode.TextDocument;
    assert.ok(document, 'the command returns the document');
    assert.strictEqual(document.uri.scheme, 'crew-trace-compare');
    assert.strictEqual(document.languageId, 'markdown');
    const text = read(document.getText());
    assert.match(text, /# Trace comparison/);
    assert.match(text, /\| Run \| compare before \| compare after \|/, 'A is the run compared, B the other');
    assert.match(text, /\| Tokens \| 2,000 \| 1,200 \| −800 \|/, 'the totals with their deltas');
    assert.match(text, /\| Tool calls \| 1 \| 2 \| \+1 \|/);
    assert.match(text, /\*\*Changes:\*\* 3 slower · 1 added · 1 missing\n/, 'the model call, its agent and task slower; the missing task one change, with the steps in it');
    // The model call: 2 s → 5 s.
    assert.match(text, /\| research › Researcher › test-model-1 \| Model call \| 2s \| 5s \| \+3s \| 1,200 \| 1,200 \| 0 \| \*\*▲ slower\*\* \|/);
    assert.match(text, /\| research › Researcher › scrape \| Tool call \| — \| 1\.2s \| — \| — \| — \| — \| \*\*✚ added\*\* \|/);
    assert.match(text, /\| write \| Task \| 2s \| — \| — \| 800 \| — \| −800 \| \*\*✖ missing\*\* \(with 2 steps inside\) \|/);
    assert.match(text, /\| (·\u2002){3}search \| Tool call \| 500 ms \| 500 ms \| 0 \|.*\| same \|/, 'an unchanged step, indented under its agent');

    // The preview renders it as a reader sees it.
    if (ui.available()) {
      const preview = await ui.frameText('Changed steps', { timeoutMs: 20_000 });
      assert.match(preview.text, /research › Researcher › scrape/);
      assert.doesNotMatch(preview.text, /\\[:.(]/, 'no escape shows');
      const shot = await ui.screenshot('trace-compare', { selector: '.part.editor' });
      assert.ok(shot.width > 0 && shot.height > 0);
      // The steps, below the fold: the preview scrolled as a reader would.
      await ui.click('iframe.webview.ready');
      await ui.press('PageDown');
      await new Promise((resolve) => setTimeout(resolve, 500));
      await ui.screenshot('trace-compare-steps', { selector: '.part.editor' });
    }
  });

  it('asks for the other run (the same crew’s first) when given one, and says plainly when a run has no events', async function () {
    const a = await newRun('compare evented');
    const old = await newRun('compare old runtime');
    await finish(a, crewEvents(1, { write: false }));
    await finish(old, null);
    if (!ui.available()) {
      this.skip();
    }
    const pending = executeCommand('crewRuns.compareTraces', { runId: a.id });
    await waitForQuickInput(CREW_NAME, 'the same crew’s runs first');
    await pickInQuickInput('compare old runtime');
    const document = (await pending) as vscode.TextDocument;
    const text = read(document.getText());
    assert.match(text, /B \(compare old runtime\) has no trace: its crew’s runtime sends no event log/);
    assert.match(text, /newer crewai, or set CREWAI_STATUS_EVENTS=true/);
    assert.doesNotMatch(text, /All steps/, 'no table of steps against nothing');
    await waitFor(() => vscode.workspace.textDocuments.some((d) => d.uri.toString() === document.uri.toString()), { message: 'the document open', ...SLOW });
  });
});
