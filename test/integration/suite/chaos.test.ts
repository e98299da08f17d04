// @crew-runs-reload-session — the runner gives this file a VS Code of its own and reloads its window.
//
// Fault suite (issue "Fault and security suite"): 30 runs over 3 crews while the simulator answers
// 20% of reads with faults of every kind (500, 502 HTML, 503, 429, resets, malformed and truncated
// bodies, stalls longer than the request timeout) after a cold start, and the window reloads twice
// with runs in flight. Every run must end in its true state in the store and the tree, none lost or
// duplicated, the extension host must log no error of ours, and the log must name the faults
// without flooding. CREW_RUNS_SOAK=1: three times the runs and a 40% fault rate.
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { RunRecord } from '../../../src/runTracking/model';
import type { CrewConfig, ReadFaultKind, Scenario } from '../../../src/simulator/server';
import { EXTENSION_ID, getExtension, readAllLogs, readExtensionHostLogs, reload, reloadSuite, showCrewRunsView, waitFor, kickOffWithoutReview } from '../helpers';
import { extensionProblems } from '../helpers/logEntries';
import { type Api, testApi } from './support/kit';
import { phaseSimulator, type RemoteSimulator } from './support/reloadSim';

const SOAK = process.env.CREW_RUNS_SOAK === '1';
const SIM = 'chaos';
/** Runs kicked off in phases 0, 1 and 2 (the window reloads between them). */
const PER_PHASE = SOAK ? [36, 36, 18] : [12, 12, 6];
const TOTAL = PER_PHASE.reduce((a, b) => a + b, 0);
const FAULT_RATE = SOAK ? 0.4 : 0.2;
const ALL_FAULTS: ReadFaultKind[] = ['500', '502html', '503', '429', 'reset', 'malformed', 'truncated', 'stall'];
/** Longer than the request timeout below: a stall is also a timed-out check. */
const STALL_MS = 6000;
const REQUEST_TIMEOUT_SECONDS = 5;
/** Warning lines one run may cause in the log: one per distinct problem in a row, not one per check. */
const MAX_WARNINGS_PER_RUN = SOAK ? 14 : 8;

const crew = (id: string, name: string, taskMs: number): CrewConfig => ({
  id,
  name,
  kind: 'crew',
  inputs: ['topic'],
  pendingMs: 1500,
  tasks: [
    { name: 'research_task', agent: 'Researcher', durationMs: taskMs, output: 'Notes on {topic}.' },
    { name: 'writing_task', agent: 'Writer', durationMs: taskMs, output: '# Report on {topic}' },
  ],
});
/** Runs take some 10-40 s including pending time and polling under faults. */
const CREWS = [crew('alpha', 'Alpha', 4000), crew('beta', 'Beta', 7000), crew('gamma', 'Gamma', 10_000)];

interface Planned {
  n: number;
  crewId: string;
  topic: string;
  scenario: Scenario;
  expected: 'succeeded' | 'failed';
  phase: number;
  runId?: string;
  kickoffId?: string;
}

function plan(): Planned[] {
  const entries: Planned[] = [];
  let n = 0;
  PER_PHASE.forEach((count, phase) => {
    for (let i = 0; i < count; i++, n++) {
      const crewId = CREWS[n % 3].id;
      const scenario: Scenario = crewId === 'beta' && n % 2 === 1 ? 'failAtTask:1' : crewId === 'gamma' && n % 4 === 2 ? 'fail' : 'ok';
      entries.push({ n, crewId, topic: `Chaos ${n + 1}`, scenario, expected: scenario === 'ok' ? 'succeeded' : 'failed', phase });
    }
  });
  return entries;
}

const isEnded = (run: RunRecord | undefined) => run?.state === 'succeeded' || run?.state === 'failed';

reloadSuite('Chaos', function (s) {
  this.timeout(SOAK ? 900_000 : 300_000);
  let api: Api;
  let sim: RemoteSimulator;

  before(async () => {
    api = await testApi();
    if (s.phase === 0) {
      await vscode.workspace.getConfiguration('crewRuns').update('requestTimeoutSeconds', REQUEST_TIMEOUT_SECONDS, vscode.ConfigurationTarget.Global);
    }
    sim = await phaseSimulator(s.phase, SIM, {
      timeScale: 1,
      seed: 2024,
      crews: CREWS,
      faults: { readFaultRate: FAULT_RATE, readFaultKinds: ALL_FAULTS, stallMs: STALL_MS, retryAfterSeconds: 1, coldStartMs: 3000, idleAfterMs: 20_000 },
    }, 'Chaos');
    if (s.phase === 0) {
      await showCrewRunsView();
      reload.set('plan', plan());
    }
  });

  after(async () => {
    await sim?.close();
    await vscode.workspace.getConfiguration('crewRuns').update('requestTimeoutSeconds', undefined, vscode.ConfigurationTarget.Global);
  });

  /** Kicks off this phase's runs (the crew's scenario set before each) and records their ids. */
  async function kickOffPhase(phase: number): Promise<Planned[]> {
    const entries = reload.get<Planned[]>('plan')!;
    for (const entry of entries.filter((e) => e.phase === phase)) {
      await sim.updateCrew(entry.crewId, { scenario: entry.scenario });
      const runId = await kickOffWithoutReview<string | undefined>({ crew: sim.crew(entry.crewId).url, inputs: { topic: entry.topic } });
      assert.ok(typeof runId === 'string', `${entry.topic} was kicked off`);
      entry.runId = runId;
      entry.kickoffId = api.runs.get(runId)!.kickoffId;
      reload.set('plan', entries); // Recorded at once: the next reload may come any time.
    }
    return entries;
  }

  /** Waits until some runs started before this phase are seen running or ended here: polling goes on. */
  async function someProgress(entries: Planned[], phase: number): Promise<void> {
    const earlier = entries.filter((e) => e.phase < phase && e.runId);
    if (earlier.length === 0) {
      return;
    }
    await waitFor(() => earlier.every((e) => api.runs.get(e.runId!)), { message: 'the earlier runs loaded', timeoutMs: 20_000 });
    const startedAt = Date.now();
    await waitFor(
      async () => (await sim.requests()).filter((r) => r.endpoint === 'status' && r.time > startedAt).length >= 3,
      { message: 'status checks from the reloaded window', timeoutMs: 60_000, intervalMs: 500 },
    );
  }

  s.step(`kicks off ${PER_PHASE[0]} runs on 3 crews under ${FAULT_RATE * 100}% read faults and a cold start`, async () => {
    const entries = await kickOffPhase(0);
    const mine = entries.filter((e) => e.phase === 0);
    await waitFor(() => mine.some((e) => api.runs.get(e.runId!)?.state === 'running'), { message: 'a run running', timeoutMs: 60_000 });
    assert.ok(mine.filter((e) => !isEnded(api.runs.get(e.runId!))).length >= 3, 'runs in flight at the reload');
  });

  s.reload('reloads the window with the first runs in flight');

  s.step(`finds the first runs again, polls them and kicks off ${PER_PHASE[1]} more`, async () => {
    const entries = reload.get<Planned[]>('plan')!;
    await someProgress(entries, 1);
    await kickOffPhase(1);
    await waitFor(() => api.runs.list().filter((r) => !isEnded(r)).length >= 3, { message: 'runs in flight', timeoutMs: 10_000 });
  });

  s.reload('reloads the window again with runs of both phases in flight');

  s.step(`kicks off the last ${PER_PHASE[2]} runs`, async () => {
    const entries = reload.get<Planned[]>('plan')!;
    await someProgress(entries, 2);
    await kickOffPhase(2);
  });

  s.step(`ends all ${TOTAL} runs in their true states in the store and the tree`, async () => {
    const entries = reload.get<Planned[]>('plan')!;
    assert.ok(entries.every((e) => e.runId), 'every run was kicked off');
    await waitFor(() => entries.every((e) => isEnded(api.runs.get(e.runId!))), {
      message: () => `every run ended (still going: ${JSON.stringify(entries.filter((e) => !isEnded(api.runs.get(e.runId!))).map((e) => [e.topic, api.runs.get(e.runId!)?.state]))})`,
      timeoutMs: SOAK ? 600_000 : 200_000,
      intervalMs: 1000,
    });
    const wrong: unknown[] = [];
    for (const entry of entries) {
      const run = api.runs.get(entry.runId!)!;
      const truth = await sim.getRun(run.kickoffId);
      const item = await api.tree.getTreeItem(api.tree.runNode(run.id));
      if (run.state !== truth?.phase || run.state !== entry.expected || item.contextValue !== `run state-${entry.expected} finished` || run.watching) {
        wrong.push({ topic: entry.topic, store: run.state, crew: truth?.phase, planned: entry.expected, tree: item.contextValue, watching: run.watching });
      }
    }
    assert.deepStrictEqual(wrong, [], 'every run as the crew says, in the store and the tree');
    const failedDetails = await api.runs.readDetails(entries.find((e) => e.scenario === 'failAtTask:1')!.runId!);
    assert.strictEqual(failedDetails.error, "ValueError: Simulated failure in task 'writing_task'");
    const okDetails = await api.runs.readDetails(entries.find((e) => e.expected === 'succeeded' && e.phase === 0)!.runId!);
    assert.match(okDetails.finalOutput?.text ?? '', /^# Report on Chaos \d+$/);
    // The tree lists each crew's runs once.
    for (const node of await api.tree.getChildren()) {
      if (node.type === 'crew' && CREWS.some((c) => sim.crew(c.id).url === node.crew.url)) {
        const children = await api.tree.getChildren(node);
        assert.strictEqual(children.length, entries.filter((e) => sim.crew(e.crewId).url === node.crew.url).length, `runs under ${node.crew.name}`);
      }
    }
  });

  s.step('lost none and duplicated none: one run per kickoff, on both sides', async () => {
    const entries = reload.get<Planned[]>('plan')!;
    const urls = new Set(sim.crews.map((c) => c.url));
    const stored = api.runs.list().filter((r) => urls.has(r.crewUrl));
    assert.strictEqual(stored.length, TOTAL, `${TOTAL} runs in the store`);
    assert.strictEqual(new Set(stored.map((r) => r.id)).size, TOTAL, 'distinct run ids');
    assert.strictEqual(new Set(stored.map((r) => r.kickoffId)).size, TOTAL, 'distinct kickoff ids');
    const atCrew = await sim.listRuns();
    assert.strictEqual(atCrew.length, TOTAL, `${TOTAL} kickoffs reached the crews`);
    assert.deepStrictEqual(atCrew.map((r) => r.kickoffId).sort(), stored.map((r) => r.kickoffId).sort(), 'the same kickoff ids on both sides');
    assert.deepStrictEqual(entries.map((e) => e.kickoffId).sort(), stored.map((r) => r.kickoffId).sort());
    const kickoffs = (await sim.requests()).filter((r) => r.endpoint === 'kickoff');
    assert.strictEqual(kickoffs.length, TOTAL, 'one POST /kickoff per run: no retried kickoff');
  });

  s.step('the extension hosts logged no error of the extension (3 hosts: before, between and after the reloads)', () => {
    const logs = readExtensionHostLogs();
    if (logs.length === 0) {
      return; // Not under the browser runner's logs folder.
    }
    assert.ok(logs.length >= 3, `one extension host log per window: ${logs.map((l) => l.file).join(', ')}`);
    // Our stacks name any of our bundles (dist/extension.js, the ones loaded on first use).
    const bundles = `${getExtension().extensionPath.replace(/\\/g, '/')}/dist/`;
    const problems = logs.flatMap(({ file, text }) => extensionProblems(text, [EXTENSION_ID, bundles]).map((entry) => `${file}:${entry.line}: ${entry.text}`));
    assert.deepStrictEqual(problems, [], 'no error, unhandled rejection or stack of the extension');
  });

  s.step('the log names the faults without flooding', async () => {
    const entries = reload.get<Planned[]>('plan')!;
    const log = readAllLogs();
    const requests = await sim.requests();
    const faulted = requests.filter((r) => r.endpoint === 'status' && r.fault).length;
    const kinds = [...new Set(requests.filter((r) => r.fault).map((r) => r.fault))].sort();
    const perRun = entries.map((entry) => {
      const prefix = `[Chaos ${CREWS.find((c) => c.id === entry.crewId)!.name} · ${entry.topic}] `;
      const lines = log.split('\n').filter((line) => line.includes(prefix));
      const faultedChecks = requests.filter((r) => r.endpoint === 'status' && r.fault && r.path.endsWith(`/${entry.kickoffId}`)).length;
      return { topic: entry.topic, faultedChecks, warnings: lines.filter((l) => /\[warning\]/.test(l)).map((l) => l.slice(l.indexOf(prefix) + prefix.length)), lines };
    });
    const warnings = perRun.flatMap((r) => r.warnings);
    const problems = [...new Set(warnings.map((w) => /^Status check failed: (.*) \(still watching\)$/.exec(w)?.[1] ?? `UNEXPECTED: ${w}`))];
    console.log(`      faults injected (all reads): ${kinds.join(', ')}; faulted status checks: ${faulted}; warning lines: ${warnings.length}`);
    console.log(`      problems named: ${JSON.stringify(problems)}`);
    assert.ok(kinds.length >= 6, `most fault kinds were injected (${kinds.join(', ')})`);
    assert.ok(warnings.length > 0, 'faults show in the log');
    assert.ok(problems.every((p) => !p.startsWith('UNEXPECTED')), `every warning is a status-check problem: ${JSON.stringify(problems)}`);
    // Each names what went wrong (a status check is one request: every kind may surface).
    // A stall the client gave up on reads "did not answer in time".
    const named = /JSON|\b50[0-4]\b|429|reset|timed? ?out|in time|closed|incomplete|truncated|reach/i;
    assert.deepStrictEqual(problems.filter((p) => !named.test(p)), [], 'every problem names its fault');
    // Without flooding: a warning needs a failed check of that very run, and a run's problems are told once in a row.
    const flooding = perRun.filter((r) => r.warnings.length > r.faultedChecks || r.warnings.length > MAX_WARNINGS_PER_RUN);
    assert.deepStrictEqual(
      flooding.map((r) => [r.topic, r.warnings.length, r.faultedChecks]),
      [],
      `no run has more warning lines than faulted checks, nor more than ${MAX_WARNINGS_PER_RUN}`,
    );
    const ends = perRun.map((r) => r.lines.filter((l) => /Run (succeeded|failed)$/.test(l)).length);
    assert.ok(ends.every((n) => n === 1), `each run's end logged once (${JSON.stringify(ends)})`);
  });
});
