// @crew-runs-own-session — a second window means a second extension host: kept off the main session.
//
// Issue #21 "Run state you can trust", Done when: two workbench windows of one VS Code server side by
// side. Window A is a second page the runner opens (support/windows.ts: its own extension host, the
// same globalState, secrets and storage); window B is this test's own window. A run started in A is
// shown in B; Stop Watching and Remove from History in A hold in both windows through 60 s of
// polling and nobody polls those runs again; feedback sent from B is applied once and notified once;
// closing A hands its runs to B within one lease period.
import * as assert from 'assert';
import type { CrewConfig, Simulator, TaskConfig } from '../../../src/simulator/server';
import { startSimulator } from '../../../src/simulator/server';
import { addCrewWithToken, executeCommand, holdsFor, kickOffWithoutReview, selectors, showCrewRunsView, ui, waitFor } from '../helpers';
import { batchProgress, type Batch } from '../../../src/batches/core/model';
import { answerModal, type Api, flatRows, runSummaries, testApi, treeRows, type TreeRow } from './support/kit';
import { MessageSpy, type ShownMessage } from './support/monitoring';
import { PeerWindow } from './support/windows';

/** A run's lease lasts this long without renewal (src/storage/lease.ts, DEFAULT_LEASE_TTL_MS). */
const LEASE_PERIOD_MS = 30_000;
/** A poll started just before a stop or removal may still arrive after it. */
const IN_FLIGHT_MS = 3_000;

const task = (name: string, durationMs: number, humanInput?: boolean): TaskConfig => ({ name, agent: 'Agent', durationMs, output: `${name} on {topic}.`, humanInput });
const crew = (id: string, name: string, tasks: TaskConfig[]): CrewConfig => ({ id, name, kind: 'crew', inputs: ['topic'], pendingMs: 500, tasks });

const CREWS: CrewConfig[] = [
  // Still running long after the suite.
  crew('long', 'Long', [task('research_task', 600_000)]),
  // Ends some 50 s after its kickoff: through a window closing and the other taking over.
  crew('handoff', 'Handoff', [task('first_task', 10_000), task('second_task', 40_000)]),
  crew('review', 'Review', [task('draft_task', 2_000), task('review_task', 2_000, true), task('publish_task', 2_000)]),
  // Waits for feedback only after window B has surely seen it running (B re-reads the shared runs every 30 s).
  crew('lateReview', 'Late review', [task('draft_task', 45_000), task('review_task', 2_000, true)]),
  // Its replies take 2 s: an answer sent from one window is still on its way when the other window sends one.
  { ...crew('slowReview', 'Slow review', [task('draft_task', 2_000), task('review_task', 2_000, true)]), faults: { latencyMs: 2_000 } },
  // Many short runs; a topic containing FAIL fails.
  { ...crew('quick', 'Quick', [task('first_task', 3_000), task('second_task', 4_000)]), failWhenInputContains: 'FAIL' },
  // Rows of a batch: each run ends within a few seconds.
  crew('rows', 'Rows', [task('row_task', 300)]),
  // A conversational flow: its chat sessions are listed under it in both windows.
  { id: 'chatty', name: 'Chatty', kind: 'flow', inputs: [], tasks: [], chat: { tokenIntervalMs: 20, answer: 'Answered in B.' } },
];

describe('Two windows', function () {
  this.timeout(240_000);
  let api: Api;
  let sim: Simulator;
  let spy: MessageSpy;
  let a: PeerWindow | undefined;
  const urls: Record<string, string> = {};
  const names: Record<string, string> = {};

  /** Status checks of a kickoff id the simulator answered since `since`. */
  const statusChecks = (kickoffId: string, since = 0) =>
    sim.requestLog.entries.filter((e) => e.endpoint === 'status' && e.path.endsWith(`/${kickoffId}`) && e.time >= since);

  function windowA(): PeerWindow {
    assert.ok(a, 'window A is open');
    return a;
  }

  async function kickOffInA(crewId: string, topic: string): Promise<{ runId: string; kickoffId: string }> {
    const runId = await windowA().kickOff(urls[crewId], { topic });
    assert.ok(typeof runId === 'string', `window A kicked off ${topic}`);
    const run = await windowA().run(runId);
    assert.ok(run, `window A returned run ${runId} (${topic}) but its store does not have it; A has ${JSON.stringify((await windowA().runs()).map((r) => r.label))}, B has ${JSON.stringify(runSummaries(api).map((r) => r.label))}`);
    return { runId, kickoffId: run.kickoffId };
  }

  function rowOf(rows: TreeRow[], runId: string) {
    return flatRows(rows).find((row) => row.type === 'run' && row.id === runId);
  }

  /** Both windows' view of a run and the crew's, for a failed wait. */
  async function explain(runId: string, error: Error): Promise<never> {
    const inA = await a?.run(runId).catch(() => 'window A did not answer');
    const inB = runSummaries(api).find((r) => r.id === runId);
    const kickoffId = inB?.kickoffId ?? (typeof inA === 'object' ? inA?.kickoffId : undefined);
    const atCrew = kickoffId ? sim.getRun(kickoffId) : undefined;
    throw new Error(`${error.message}; window A: ${JSON.stringify(inA)}; window B: ${JSON.stringify(inB)}; the crew: ${JSON.stringify(atCrew && { phase: atCrew.phase })}`);
  }

  /** Notifications about a run (its label and crew, however quoted) saying `what`. */
  function messagesAbout(messages: ShownMessage[], label: string, crewName: string, what: RegExp): ShownMessage[] {
    return messages.filter((m) => m.message.includes(label) && m.message.includes(crewName) && what.test(m.message));
  }

  before(async function () {
    if (!ui.available()) {
      this.skip(); // The second window is a page of the browser runner.
    }
    api = await testApi();
    spy = new MessageSpy();
    sim = await startSimulator({ timeScale: 1, seed: 21, crews: CREWS });
    for (const served of sim.crews) {
      names[served.id] = `2w ${served.name}`;
      urls[served.id] = served.url;
      await addCrewWithToken({ url: served.url, name: names[served.id], token: served.orgToken });
    }
    await showCrewRunsView();
    // Opened after the crews exist: its extension host starts as a window opened now would.
    a = await PeerWindow.open('A');
    await windowA().command('workbench.view.extension.crewRuns');
  });

  after(async () => {
    await a?.close().catch((error: unknown) => console.log(`      (closing window A: ${String(error)})`));
    spy?.dispose();
    for (const run of api?.runs.list() ?? []) {
      await api.poller.stopWatching(run.id).catch(() => undefined);
      await api.runs.remove(run.id).catch(() => undefined);
    }
    await executeCommand('workbench.action.closeAllEditors');
    await sim?.close();
  });

  it('a run started in window A is shown in window B: store, tree and status bar', async () => {
    const { runId, kickoffId } = await kickOffInA('long', 'Shown in B');
    const shown = await waitFor(() => api.runs.get(runId), { message: "the run in window B's store", timeoutMs: LEASE_PERIOD_MS + 10_000, intervalMs: 250 });
    assert.strictEqual(shown.kickoffId, kickoffId, 'the same kickoff');
    assert.strictEqual(shown.crewUrl, urls.long);
    const row = await waitFor(async () => rowOf(await treeRows(api), runId), { message: "the run in window B's tree", timeoutMs: 10_000 });
    assert.deepStrictEqual(row.path, [names.long], 'under its crew');
    await waitFor(async () => /\b1 running\b/.test(await ui.text(selectors.statusBar)), { message: "window B's status bar counting the run", timeoutMs: 30_000, intervalMs: 300 });
    // Window A shows it too, the same way.
    assert.deepStrictEqual(rowOf(await windowA().tree(), runId)?.path, [names.long]);
    assert.match(await windowA().text(selectors.statusBar), /\b1 running\b/);
    // Its trace too: the events one window keeps, the other's run view draws.
    await waitFor(async () => (await api.runs.readDetails(runId)).events?.kept, { message: "the run's events kept, seen from window B", timeoutMs: 30_000, intervalMs: 250 });
    await executeCommand('crewRuns.openRun', { runId });
    await waitFor(() => (api.panels.inspect(runId)?.pageReport?.traceSpans ?? 0) > 0, { message: "window B's run view drawing the trace", timeoutMs: 30_000 });
    await executeCommand('workbench.action.closeAllEditors');
  });

  it('a chat started in window B is listed under its crew in window A, once, when its first message is sent', async () => {
    const sessionId = await executeCommand<string>('crewRuns.chatWithFlow', urls.chatty);
    assert.ok(sessionId, 'a session was started');
    const chat = await waitFor(() => api.flowChats().find((c) => c.sessionId === sessionId && c.lastReport()), { message: 'the chat page reporting' });
    chat.submitFromPage('Seen in both windows?');
    await waitFor(() => (chat.lastReport()?.transcript.length === 2 && !chat.lastReport()!.busy ? true : undefined), { message: 'the turn over', timeoutMs: 30_000 });
    const listed = await waitFor(
      async () => {
        const rows = flatRows(await windowA().tree()).filter((row) => row.path[0] === names.chatty && row.path[1] === 'Chats');
        return rows.length ? rows : undefined;
      },
      { message: "the session in window A's tree", timeoutMs: 30_000 },
    );
    assert.deepStrictEqual(listed.map((row) => [row.label, row.contextValue]), [['Seen in both windows?', 'chatSession']], 'listed once, under its crew');
    await executeCommand('workbench.action.closeAllEditors');
  });

  it('Stop Watching and Remove from History in window A hold in both windows through 60 s of polling', async () => {
    const stopped = await kickOffInA('long', 'Stopped in A');
    const removed = await kickOffInA('long', 'Removed in A');
    // Both windows know both runs, and they are being polled, before window A acts.
    await waitFor(() => api.runs.get(stopped.runId) && api.runs.get(removed.runId), { message: 'both runs in window B', timeoutMs: LEASE_PERIOD_MS + 10_000, intervalMs: 250 });
    await waitFor(() => statusChecks(stopped.kickoffId).length > 0 && statusChecks(removed.kickoffId).length > 0, { message: 'both runs polled', timeoutMs: 30_000 });

    await windowA().answerModals('Stop Watching'); // "Stop watching … on …?"
    await windowA().command('crewRuns.stopWatching', { runId: stopped.runId });
    const stoppedAt = Date.now();
    await windowA().answerModals('Remove'); // "… has not finished. Remove it from the history anyway?"
    await windowA().command('crewRuns.removeRun', { runId: removed.runId });
    const removedAt = Date.now();
    const inA = await windowA().run(stopped.runId);
    assert.deepStrictEqual([inA?.watching, inA?.stopReason], [false, 'user'], 'window A: stopped at once');
    assert.strictEqual(await windowA().run(removed.runId), undefined, 'window A: removed at once');

    // Window B may learn of both a little later, but neither window may bring them back.
    let bSawStop = false;
    let bSawRemoval = false;
    const checks = await holdsFor(60_000, async () => {
      const runsA = await windowA().runs();
      const stoppedA = runsA.find((r) => r.id === stopped.runId);
      if (!stoppedA || stoppedA.watching || stoppedA.stopReason !== 'user') {
        return `window A: the stopped run is ${JSON.stringify(stoppedA)}`;
      }
      if (runsA.some((r) => r.id === removed.runId)) {
        return 'window A: the removed run is back';
      }
      const stoppedB = api.runs.get(stopped.runId);
      if (bSawStop && (!stoppedB || stoppedB.watching)) {
        return `window B: the stopped run went back to ${JSON.stringify(stoppedB && runSummaries(api).find((r) => r.id === stopped.runId))}`;
      }
      bSawStop ||= stoppedB?.watching === false;
      if (bSawRemoval && api.runs.get(removed.runId)) {
        return 'window B: the removed run is back';
      }
      bSawRemoval ||= !api.runs.get(removed.runId);
      const polled = [
        ...statusChecks(stopped.kickoffId, stoppedAt + IN_FLIGHT_MS).map((e) => `the stopped run ${((e.time - stoppedAt) / 1000).toFixed(1)} s after the stop`),
        ...statusChecks(removed.kickoffId, removedAt + IN_FLIGHT_MS).map((e) => `the removed run ${((e.time - removedAt) / 1000).toFixed(1)} s after the removal`),
      ];
      if (polled.length > 0) {
        return `a window polled ${polled.join(', ')}`;
      }
      return undefined;
    });
    console.log(`      ${checks} checks over 60 s`);
    const stoppedB = api.runs.get(stopped.runId);
    assert.deepStrictEqual([stoppedB?.watching, stoppedB?.stopReason], [false, 'user'], 'window B: the run is shown stopped');
    assert.strictEqual(api.runs.get(removed.runId), undefined, "window B: the removed run is gone from B's store");
    for (const [window, rows] of [
      ['A', await windowA().tree()],
      ['B', await treeRows(api)],
    ] as const) {
      assert.strictEqual(rowOf(rows, removed.runId), undefined, `window ${window}: the removed run is not in the tree`);
      assert.match(rowOf(rows, stopped.runId)?.contextValue ?? '', /\bstopped\b/, `window ${window}: the tree shows the run stopped`);
    }
  });

  it('feedback sent from window B is applied once, and notified once across both windows', async () => {
    const topic = 'Feedback from B';
    const { runId, kickoffId } = await kickOffInA('review', topic);
    const waiting = await waitFor(() => api.runs.get(runId)?.needsFeedback && api.runs.get(runId), {
      message: 'window B shows the run waiting for feedback',
      timeoutMs: LEASE_PERIOD_MS + 30_000,
      intervalMs: 250,
    }).catch((error: Error) => explain(runId, error));
    await executeCommand('crewRuns.giveFeedback', { runId });
    const review = api.reviews.openReviewOf(runId);
    assert.ok(review, 'window B opened the review');
    // Give Feedback opens the run view beside the review, and the answered review's tab closes, leaving the
    // run view in front: its page, not a toast, would then say the run succeeded (#52). The user closed it.
    await waitFor(() => api.panels.isOpen(runId) || undefined, { message: 'window B opened the run view beside the review' });
    api.panels.close(runId);
    await waitFor(() => !api.panels.isOpen(runId) || undefined, { message: 'window B closed the run view' });
    const note = answerModal('Approve with Note'); // Typed text asks first what to do with it.
    const sent = await executeCommand<boolean>('crewRuns.feedback.approve', { thread: review.thread, text: 'Approved in window B' }).finally(() => note.dispose());
    assert.strictEqual(sent, true, 'window B sent the approval');

    await waitFor(() => api.runs.get(runId)?.state === 'succeeded', { message: 'window B shows the run succeeded', timeoutMs: LEASE_PERIOD_MS + 30_000, intervalMs: 250 }).catch((error: Error) =>
      explain(runId, error),
    );
    await waitFor(async () => (await windowA().run(runId))?.state === 'succeeded', { message: 'window A shows the run succeeded', timeoutMs: LEASE_PERIOD_MS + 30_000, intervalMs: 500 }).catch(
      (error: Error) => explain(runId, error),
    );
    const original = sim.getRun(kickoffId)?.id;
    assert.ok(original, 'the simulator knows the run');
    // The client may first be answered 422 for a body style the crew does not take (then it sends the other).
    assert.deepStrictEqual(
      sim.resumes.filter((r) => r.runId === original && r.status === 200).map((r) => r.action),
      ['approve'],
      'the crew accepted one resume',
    );
    const waitingFor = (messages: ShownMessage[]) => messagesAbout(messages, waiting.label, names.review, /waiting for your feedback/);
    const succeeded = (messages: ShownMessage[]) => messagesAbout(messages, waiting.label, names.review, /succeeded/);
    let shown: ShownMessage[] = [];
    const all = await waitFor(
      async () => {
        shown = [...spy.shown, ...(await windowA().messages())];
        return succeeded(shown).length > 0 ? shown : undefined;
      },
      { message: () => `a "… succeeded." notification in either window (they showed ${JSON.stringify(shown.map((m) => m.message))})`, timeoutMs: 30_000, intervalMs: 500 },
    );
    const seen = JSON.stringify(all.map((m) => m.message));
    assert.strictEqual(waitingFor(all).length, 1, `"… is waiting for your feedback." once in both windows together (${seen})`);
    assert.strictEqual(succeeded(all).length, 1, `"… succeeded." once in both windows together (${seen})`);
  });

  it('an answer sent from both windows at once reaches the crew once; the window that lost says it is on its way (#46)', async () => {
    const topic = 'Answered twice';
    const { runId, kickoffId } = await kickOffInA('slowReview', topic);
    await waitFor(async () => api.runs.get(runId)?.needsFeedback && (await windowA().run(runId))?.needsFeedback, {
      message: 'both windows show the run waiting for feedback',
      timeoutMs: LEASE_PERIOD_MS + 60_000,
      intervalMs: 250,
    }).catch((error: Error) => explain(runId, error));
    // Each window asks for its change request in its own input box; Enter in one, then at once in the other.
    const fromA = windowA().command<boolean>('crewRuns.requestChanges', { runId });
    await ui.type('Shorter, from A', { enter: true, window: windowA().name, quickInput: { timeoutMs: 30_000 } });
    const fromB = executeCommand<boolean>('crewRuns.requestChanges', { runId });
    await ui.type('Longer, from B', { enter: true, quickInput: { timeoutMs: 30_000 } });
    const outcomes = await Promise.all([fromA, fromB]);
    assert.deepStrictEqual([...outcomes].sort(), [false, true], `one window sent, the other did not (A: ${outcomes[0]}, B: ${outcomes[1]})`);
    const lost = outcomes[0] ? undefined : windowA().name;
    await waitFor(async () => /already on its way/.test(await ui.text(selectors.statusBar, { window: lost })), {
      message: `the window that lost (${lost ?? 'B'}) says the answer is on its way`,
      timeoutMs: 5_000,
      intervalMs: 100,
    });
    // A 422 asks for the other body style of the same answer (the client sends it again at once): not a second answer.
    const received = sim.requestLog.entries.filter((e) => e.endpoint === 'resume' && e.crewId === 'slowReview' && e.status !== 422);
    assert.strictEqual(received.length, 1, `the crew was sent one answer: ${JSON.stringify(received.map((e) => ({ status: e.status, time: e.time })))}`);
    assert.ok(sim.getRun(kickoffId), 'the simulator knows the run');
  });

  it('closing window A hands its runs to window B within one lease period; B does not announce again what was announced', async function () {
    this.timeout(300_000);
    // A run that waits for feedback, announced by A, when A closes; B knew it before it waited.
    const waiting = await kickOffInA('lateReview', 'Waiting at the handover');
    const seenByB = await waitFor(() => api.runs.get(waiting.runId), { message: 'window B knows the run', timeoutMs: LEASE_PERIOD_MS + 10_000, intervalMs: 100 });
    assert.strictEqual(seenByB.needsFeedback, false, 'window B knew the run before it waited for feedback');
    // It waits some 50 s after its kickoff; A notices at its next check and B at its next look at the shared runs (every 30 s).
    await waitFor(() => api.runs.get(waiting.runId)?.needsFeedback, {
      message: 'window B knows the run waits for feedback',
      timeoutMs: 120_000,
      intervalMs: 250,
    }).catch((error: Error) => explain(waiting.runId, error));
    const waitingLabel = api.runs.get(waiting.runId)!.label;
    const askedForFeedback = (messages: ShownMessage[]) => messagesAbout(messages, waitingLabel, names.lateReview, /waiting for your feedback/);
    // Announced once, by the window whose write made the run wait: A, which polls it, unless B's write was
    // the one (B learns the change from the record file at once, and may be the window that stored it).
    let shownThen: ShownMessage[] = [];
    await waitFor(async () => askedForFeedback((shownThen = [...(await windowA().messages()), ...spy.shown])).length > 0, {
      message: () => `a window announces the run waiting for feedback (A and B showed ${JSON.stringify(shownThen.map((m) => m.message))})`,
      timeoutMs: 30_000,
    });
    const announcedByB = askedForFeedback(spy.shown).length;
    // Then a run to hand over, kicked off only now: it must still be going when A closes (it takes some 50 s;
    // kicked off with the first, it could end while B was still learning that the first waits, which failed a run here).
    const topic = 'Handed to B';
    const { runId, kickoffId } = await kickOffInA('handoff', topic);
    await waitFor(() => api.runs.get(runId), { message: 'window B knows the run to hand over', timeoutMs: LEASE_PERIOD_MS + 10_000, intervalMs: 250 });
    await waitFor(() => statusChecks(kickoffId).length > 0, { message: 'window A polls the run', timeoutMs: 30_000 });
    const label = api.runs.get(runId)!.label;
    const messagesOfA = await windowA().messages();
    await windowA().close(); // Resolves once A's extension host has exited: whatever polls now is B.
    a = undefined;
    const closedAt = Date.now();
    assert.notStrictEqual((await sim.getRun(kickoffId))?.phase, 'succeeded', 'the run is still going when A closes');

    const first = await waitFor(() => statusChecks(kickoffId, closedAt)[0], {
      message: `window B polling the run after window A closed (lease period ${LEASE_PERIOD_MS / 1000} s)`,
      timeoutMs: 2 * LEASE_PERIOD_MS + 15_000,
      intervalMs: 250,
    });
    const tookMs = first.time - closedAt;
    console.log(`      window B polled it ${(tookMs / 1000).toFixed(1)} s after window A closed`);
    assert.ok(tookMs <= LEASE_PERIOD_MS, `window B took over within one lease period (${(tookMs / 1000).toFixed(1)} s)`);

    // B polls the waiting run too (twice, so the first poll's reporting is surely over): it was announced already.
    const polledByB: string[] = [];
    const listening = api.poller.onDidPoll((result) => result.runId === waiting.runId && result.ok && polledByB.push(result.runId));
    try {
      await waitFor(() => polledByB.length >= 2, { message: 'window B polls the run waiting for feedback', timeoutMs: 2 * LEASE_PERIOD_MS + 15_000, intervalMs: 250 });
    } finally {
      listening.dispose();
    }
    assert.strictEqual(askedForFeedback(spy.shown).length, announcedByB, `window B does not ask again for feedback already asked for (${JSON.stringify(spy.shown.map((m) => m.message))})`);
    const everywhere = [...messagesOfA, ...spy.shown];
    assert.strictEqual(askedForFeedback(everywhere).length, 1, `asked once in both windows together (${JSON.stringify(everywhere.map((m) => m.message))})`);

    const done = await waitFor(() => api.runs.get(runId)?.state === 'succeeded' && api.runs.get(runId), { message: 'window B follows the run to its end', timeoutMs: 90_000, intervalMs: 250 });
    assert.strictEqual(done.watching, false);
    const succeeded = (messages: ShownMessage[]) => messagesAbout(messages, label, names.handoff, /succeeded/);
    await waitFor(() => succeeded(spy.shown).length > 0, { message: `window B notifies "${label} … succeeded."`, timeoutMs: 15_000 });
    assert.strictEqual(succeeded(spy.shown).length, 1, 'once');
    assert.strictEqual(succeeded(messagesOfA).length, 0, 'window A had not (it was still running)');
  });

  it('50 runs across both windows, window A closed and reopened midway, 15% of status reads failing: each ends in its true state in both windows, announced once, kicked off once', async function () {
    this.timeout(420_000);
    a = await PeerWindow.open('A2');
    await windowA().command('workbench.view.extension.crewRuns');
    const since = Date.now();
    sim.setFaults({ readFaultRate: 0.15, readFaultKinds: ['503', 'reset'] });
    const started: { runId: string; kickoffId: string; label: string }[] = [];
    let closedA: PeerWindow | undefined;
    for (let i = 1; i <= 50; i++) {
      // Zero-padded, so that no label is part of another; every fifth fails.
      const topic = `Fifty ${String(i).padStart(2, '0')}${i % 5 === 0 ? ' FAIL' : ''}`;
      if (i % 2 === 1) {
        const runId = await windowA().kickOff(urls.quick, { topic });
        assert.ok(typeof runId === 'string', `window A kicked off ${topic}`);
        started.push({ runId, kickoffId: (await windowA().run(runId))!.kickoffId, label: topic });
      } else {
        const runId = await kickOffWithoutReview<string>({ crew: urls.quick, inputs: { topic } });
        started.push({ runId, kickoffId: api.runs.get(runId)!.kickoffId, label: topic });
      }
      if (i === 25) {
        // A window closed with runs in flight, and another opened: B takes them over, the new one joins.
        // Its notices are read after it closed: one it showed while closing counts too.
        closedA = windowA();
        await closedA.close();
        a = await PeerWindow.open('A3');
      }
    }
    const truth = (kickoffId: string) => sim.getRun(kickoffId)?.phase;
    const finished = (state: string | undefined) => state === 'succeeded' || state === 'failed';
    await waitFor(() => started.every((s) => finished(truth(s.kickoffId))), { message: 'the crew ends all 50 runs', timeoutMs: 120_000, intervalMs: 500 });
    const wrongIn = async (): Promise<string[]> => {
      const inA = new Map((await windowA().runs()).map((r) => [r.id, r.state]));
      return started.flatMap((s) => {
        const want = truth(s.kickoffId);
        const inB = api.runs.get(s.runId)?.state;
        return inB === want && inA.get(s.runId) === want ? [] : [`${s.label}: crew ${want}, window A ${inA.get(s.runId)}, window B ${inB}`];
      });
    };
    let wrong: string[] = [];
    await waitFor(async () => (wrong = await wrongIn()).length === 0, {
      message: () => `every run in its true state in both windows (${wrong.length} not: ${wrong.slice(0, 5).join('; ')})`,
      timeoutMs: 90_000,
      intervalMs: 1_000,
    });

    const endNotices = async () => {
      const all = [...((await closedA?.messages()) ?? []), ...(await windowA().messages()), ...spy.shown];
      return started.map((s) => messagesAbout(all, s.label, names.quick, /succeeded|failed/).length);
    };
    let counts: number[] = [];
    await waitFor(async () => (counts = await endNotices()).every((n) => n >= 1), {
      message: () => `every run's end announced (not: ${started.filter((_, i) => counts[i] === 0).map((s) => s.label).join(', ')})`,
      timeoutMs: 30_000,
      intervalMs: 500,
    });
    // Nothing comes back and nothing is said again while both windows keep polling and re-reading.
    await holdsFor(15_000, async () => {
      const again = (await endNotices()).filter((n) => n > 1).length;
      const back = (await wrongIn()).length;
      return again || back ? `${again} runs announced twice, ${back} runs no longer in their true state` : undefined;
    });
    const kickoffs = sim.requestLog.entries.filter((e) => e.endpoint === 'kickoff' && e.time >= since).length;
    const faults = sim.requestLog.entries.filter((e) => e.endpoint === 'status' && e.time >= since && e.fault).length;
    const failed = started.filter((s) => truth(s.kickoffId) === 'failed').length;
    console.log(
      `      50 runs (${50 - failed} succeeded, ${failed} failed): all in their true state in both windows, 0 resurrected, 0 announced twice; ${kickoffs} kickoff requests, ${faults} status reads failed on purpose`,
    );
    assert.strictEqual(kickoffs, 50, 'one kickoff request per run');
    assert.strictEqual(new Set(started.map((s) => s.kickoffId)).size, 50);
    assert.ok(faults > 0, 'faults were injected');
    sim.setFaults({});
  });

  it('a paused batch resumed from both windows reaches the crew once per row: at once, and from a window whose copy still said paused (#46)', async () => {
    const a = windowA();
    const topics = (batch: string) => [`${batch} row 1`, `${batch} row 2`];
    // Two small paused batches, sent by window B (it holds their leases); window A reads them as its 30 s tick does.
    const pausedBatch = async (source: string): Promise<Batch> => {
      const batch = await api.batches.store.create({
        crewUrl: urls.rows,
        crewName: names.rows,
        source,
        concurrency: 2,
        paused: 'Rows had no token stored.',
        rows: topics(source).map((topic, index) => ({ index, inputs: { topic }, status: 'queued' as const })),
      });
      assert.ok(await api.batches.runner.start(batch.id), `window B sends ${source}`);
      return batch;
    };
    const together = await pausedBatch('together.csv');
    const after = await pausedBatch('after.csv');
    const inA = async (id: string, refresh = false) => (await a.batches({ refresh })).find((b) => b.id === id);
    assert.ok((await inA(together.id, true))?.paused && (await inA(after.id))?.paused, 'window A shows both batches paused');
    const finishedInB = (id: string) =>
      waitFor(() => (api.batches.store.get(id) && batchProgress(api.batches.store.get(id)!).finished && !api.batches.runner.owns(id)) || undefined, {
        message: `window B sends every row of the batch and lets it go (${JSON.stringify(api.batches.store.get(id)?.rows.map((r) => r.status))})`,
        timeoutMs: 60_000,
        intervalMs: 250,
      });
    const resumeIn = async (window: 'A' | 'B', id: string) => {
      if (window === 'A') {
        return a.command('crewRuns.resumeBatch', { batchId: id });
      }
      const yes = answerModal('Resume Batch');
      try {
        return await executeCommand('crewRuns.resumeBatch', { batchId: id });
      } finally {
        yes.dispose();
      }
    };
    await a.answerModals('Resume Batch');
    try {
      // Both windows at once.
      await Promise.all([resumeIn('B', together.id), resumeIn('A', together.id)]);
      await finishedInB(together.id);
      // One window, then the other: A's copy still says paused (it re-reads every 30 s); the batch is done and let go.
      await resumeIn('B', after.id);
      await finishedInB(after.id);
      if (!(await inA(after.id))?.paused) {
        console.log("      (window A's own 30 s re-read came first: its copy no longer says paused)");
      }
      await resumeIn('A', after.id);
    } finally {
      await a.answerModals(undefined);
    }
    // Each window re-reads the batches, as its tick does, and goes on with whatever it finds there, until both see them done.
    const finishedIn = async (window: 'A' | 'B', id: string) => {
      const batch = window === 'A' ? await inA(id, true) : (await api.batches.refresh(), api.batches.store.get(id));
      return batch !== undefined && batchProgress(batch).finished;
    };
    for (const batch of [together, after]) {
      await waitFor(async () => ((await finishedIn('A', batch.id)) && (await finishedIn('B', batch.id))) || undefined, {
        message: `both windows see ${batch.source} finished`,
        timeoutMs: 60_000,
        intervalMs: 500,
      });
    }
    const runs = sim.listRuns().filter((r) => r.crewId === 'rows');
    const received = [...topics('together.csv'), ...topics('after.csv')].map((topic) => runs.filter((r) => r.inputs.topic === topic).length);
    assert.deepStrictEqual(received, [1, 1, 1, 1], `the crew received each row once (kickoff requests: ${sim.requestLog.entries.filter((e) => e.crewId === 'rows' && e.endpoint === 'kickoff').length})`);
    assert.ok(
      (await a.messages()).some((m) => m.message === `The batch ${names.rows}: after.csv is not paused any more: nothing more was sent.`),
      'window A says the batch was resumed already',
    );
  });
});
