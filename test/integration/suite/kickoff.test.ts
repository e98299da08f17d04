// Issue "Kick off": the multi-step Kick Off flow driven through the real quick inputs — typing each
// input, Back, the review step, errors that come back to it (422, 413, 401, network), presets, Run
// Again, inputs from a JSON editor, and how few keystrokes a repeated kickoff of the demo crew takes.
import * as assert from 'assert';
import * as net from 'net';
import * as vscode from 'vscode';
import { demoCrews, startSimulator, type CrewConfig, type Simulator } from '../../../src/simulator/server';
import { addCrewWithToken, executeCommand, selectors, ui, waitFor } from '../helpers';
import {
  acceptNotification,
  answerModal,
  type Api,
  clearNotifications,
  closeQuickInput,
  openJsonEditor,
  pickInQuickInput,
  pressInQuickInput,
  type QuickInputKeys,
  quickInputText,
  removeAllCrews,
  removeRunsOf,
  replaceValue,
  typeInQuickInput,
  SLOW,
  testApi,
  waitForNotification,
  waitForQuickInput,
} from './support/kit';

function crewConfigs(): CrewConfig[] {
  const [research] = demoCrews();
  const copy = (id: string, name: string, extra: Partial<CrewConfig> = {}): CrewConfig => ({ ...structuredClone(research), id, name, ...extra });
  return [
    copy('research', 'Research'),
    copy('strict', 'Strict'),
    copy('docs', 'Docs', { dialect: 'docs' }),
    copy('auth', 'Auth'),
  ];
}

/** Enter on a review step kicks off: its active item must be Kick Off (not "Fill in … first"). */
const KICK_OFF: QuickInputKeys = { activeItem: 'Kick Off' };

const NAMES: Record<string, string> = { research: 'Research (kick)', strict: 'Strict (kick)', docs: 'Docs (kick)', auth: 'Auth (kick)', net: 'Net (kick)', drop: 'Drop (kick)' };

describe('Kick off', function () {
  this.timeout(180_000);
  let api: Api;
  let sim: Simulator;
  let netSim: Simulator | undefined;
  let blackHole: net.Server | undefined;
  let backVia = '';
  const url = (id: string) => (id === 'net' ? netUrl : sim.crewUrl(id));
  let netUrl = '';
  const kickoffs = (s: Simulator, id: string) => s.requestLog.entries.filter((e) => e.crewId === id && e.endpoint === 'kickoff');

  before(async function () {
    if (!ui.available()) {
      this.skip(); // Drives quick inputs through the browser runner's page.
    }
    api = await testApi();
    await removeAllCrews(api);
    sim = await startSimulator({ timeScale: 0.01, crews: crewConfigs() });
    netSim = await startSimulator({ timeScale: 0.01, crews: [{ ...crewConfigs()[0], id: 'net', name: 'Net' }] });
    netUrl = netSim.crewUrl('net');
    for (const crew of sim.crews) {
      await addCrewWithToken({ url: crew.url, name: NAMES[crew.id], token: crew.orgToken });
    }
    await addCrewWithToken({ url: netUrl, name: NAMES.net, token: netSim.crews[0].orgToken });
    await clearNotifications();
  });

  /** Closes (reverting) every editor, so no JSON editor offers itself unless a test opens one. */
  async function closeEditors(): Promise<void> {
    for (let i = 0; i < 10 && vscode.window.visibleTextEditors.length > 0; i++) {
      await executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
    await executeCommand('workbench.action.closeAllEditors');
  }

  beforeEach(closeEditors);

  afterEach(async () => {
    await closeQuickInput();
    await clearNotifications();
  });

  after(async () => {
    if (!api) {
      return;
    }
    if (backVia) {
      console.log(`      (quick input Back was pressed via ${backVia})`);
    }
    await removeRunsOf(api, [...(sim ? sim.crews.map((c) => c.url) : []), netUrl]);
    for (const crew of api.crews.list()) {
      for (const preset of api.presets.presets(crew.url)) {
        await api.presets.deletePreset(crew.url, preset.name);
      }
    }
    await removeAllCrews(api);
    await vscode.workspace.getConfiguration().update('crewRuns.notifications', undefined, vscode.ConfigurationTarget.Global);
    await api.demo.dispose();
    await closeEditors();
    await sim?.close();
    await netSim?.close();
    await new Promise<void>((resolve) => (blackHole ? blackHole.close(() => resolve()) : resolve()));
  });

  const inputStep = (crew: string, name: string, step: number, total: number) => waitForQuickInput(`Kick Off ${NAMES[crew]}: ${name} (${step}/${total})`);
  const reviewStep = (crew: string, total = 3) => waitForQuickInput(`Kick Off ${NAMES[crew]}: review (${total}/${total})`);

  /** Palette-like start: pick the crew by typing its name in the crew quick pick. */
  async function startKickoff(crew: string): Promise<{ done: Promise<string | undefined> }> {
    const done = executeCommand<string | undefined>('crewRuns.kickOff');
    await waitForQuickInput(NAMES.research, 'the crew quick pick');
    await pickInQuickInput(NAMES[crew]);
    return { done }; // Wrapped: an async function would otherwise wait for the whole kickoff.
  }

  /** Picks a starting point by typing part of its label. */
  async function startFrom(crew: string, label: string): Promise<void> {
    await waitForQuickInput(new RegExp(`Kick Off ${NAMES[crew].replace(/[()]/g, '\\$&')}\\n[\\s\\S]*${label}`), 'the starting point');
    await pickInQuickInput(label);
  }

  /** Presses the quick input's Back: its keybinding if it works in this page, else its command. */
  async function pressBack(expected: string): Promise<void> {
    if (backVia !== 'workbench.action.quickInputBack') {
      await pressInQuickInput('Control+Alt+Minus');
      const moved = await waitFor(async () => (await quickInputText())?.includes(expected), { timeoutMs: 3000 }).catch(() => false);
      if (moved) {
        backVia = 'keybinding Ctrl+Alt+-';
        return;
      }
    }
    backVia = 'workbench.action.quickInputBack';
    await executeCommand('workbench.action.quickInputBack');
    await waitForQuickInput(expected);
  }

  it('happy path: pick the crew, type each input, review, Enter → a run with the typed inputs', async () => {
    const before = kickoffs(sim, 'research').length;
    const { done } = await startKickoff('research');
    // No last values, no presets, no JSON editor: straight to the first input.
    const topicStep = await inputStep('research', 'topic', 1, 3);
    assert.doesNotMatch(topicStep, /required/, 'nothing is "required" before anything was typed');
    await typeInQuickInput('AI agents', { enter: true });
    await inputStep('research', 'audience', 2, 3);
    await typeInQuickInput('engineers', { enter: true });
    const review = await reviewStep('research');
    assert.match(review, /Kick Off\s+Research \(kick\)/);
    assert.match(review, /topic\s*AI agents/);
    assert.match(review, /audience\s*engineers/);
    await pressInQuickInput('Enter', KICK_OFF);
    const runId = await done;
    assert.ok(runId, 'the command returned the run id');
    const run = api.runs.get(runId)!;
    assert.deepStrictEqual((await api.runs.readDetails(runId)).inputs, { topic: 'AI agents', audience: 'engineers' });
    assert.strictEqual(kickoffs(sim, 'research').length, before + 1, 'one POST /kickoff');
    assert.deepStrictEqual(sim.getRun(run.kickoffId)?.inputs, { topic: 'AI agents', audience: 'engineers' });
    assert.deepStrictEqual(api.presets.lastUsed(url('research')), { topic: 'AI agents', audience: 'engineers' });
    const crewNode = (await api.tree.getChildren())?.find((n) => n.type === 'crew' && n.crew.url === url('research'));
    assert.ok(crewNode, 'the crew is in the tree');
    const runNodes = await api.tree.getChildren(crewNode);
    assert.ok(runNodes?.some((n) => n.type === 'run' && n.runId === runId), 'the run is under its crew in the tree');
    await ui.screenshot('kickoff-run-in-tree', { selector: selectors.sideBar });
  });

  it('Back goes to the previous input with its value kept, and from the review to the last input', async () => {
    const { done } = await startKickoff('research');
    await startFrom('research', 'Enter new values');
    await inputStep('research', 'topic', 1, 3);
    await typeInQuickInput('first topic', { enter: true });
    await inputStep('research', 'audience', 2, 3);
    await pressBack('topic (1/3)');
    await pressInQuickInput('Enter'); // Keeps "first topic".
    await inputStep('research', 'audience', 2, 3);
    await typeInQuickInput('first audience', { enter: true });
    const review = await reviewStep('research');
    assert.match(review, /topic\s*first topic/);
    await pressBack('audience (2/3)');
    await replaceValue('second audience', { enter: true });
    const again = await reviewStep('research');
    assert.match(again, /audience\s*second audience/);
    await pressInQuickInput('Enter', KICK_OFF);
    const runId = await done;
    assert.deepStrictEqual((await api.runs.readDetails(runId!)).inputs, { topic: 'first topic', audience: 'second audience' });
  });

  /** Kick Off with new values, whether or not earlier tests left last used values to start from. */
  async function startWithNewValues(crew: string): Promise<{ done: Promise<string | undefined> }> {
    const started = await startKickoff(crew);
    const shown = await waitForQuickInput(/Enter new values|: topic \(1\/3\)/, 'the starting point or the first input');
    if (shown.includes('Enter new values')) {
      await pickInQuickInput('Enter new values');
    }
    return started;
  }

  it('after Back the value is selected: typing replaces it, never appends to it', async () => {
    const { done } = await startWithNewValues('research');
    await inputStep('research', 'topic', 1, 3);
    await typeInQuickInput('first topic', { enter: true });
    await inputStep('research', 'audience', 2, 3);
    await pressBack('topic (1/3)');
    await typeInQuickInput('second topic', { enter: true });
    await inputStep('research', 'audience', 2, 3);
    await typeInQuickInput('some audience', { enter: true });
    await reviewStep('research');
    await pressInQuickInput('Enter', KICK_OFF);
    const runId = await done;
    assert.deepStrictEqual((await api.runs.readDetails(runId!)).inputs, { topic: 'second topic', audience: 'some audience' });
  });

  it('from one step to the next the keyboard stays in the quick input: the editor behind it never gets it back in between', async function () {
    if (!ui.available()) {
      this.skip();
    }
    // Someone typing notes kicks off. Between two steps the focus must not go back to the editor: on a busy
    // machine a webview or editor that got it back kept it, and the next keys went there instead of the step.
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument({ content: 'notes\n' }));
    const { done } = await startWithNewValues('research');
    await inputStep('research', 'topic', 1, 3);
    await typeInQuickInput('Focus', { enter: true });
    await inputStep('research', 'audience', 2, 3);
    await typeInQuickInput('steady', { when: 'audience (2/3)' });
    await ui.focusLog('start');
    await pressInQuickInput('Enter', { when: 'audience (2/3)' }); // The last input box gives way to the review's pick.
    await reviewStep('research');
    const { entries } = await ui.focusLog('read');
    const elsewhere = entries.filter((entry) => entry.event === 'focusin' && !entry.inQuickInput);
    assert.deepStrictEqual(elsewhere, [], `between the last input and the review the focus went elsewhere: ${JSON.stringify(entries)}`);
    await pressInQuickInput('Enter', KICK_OFF);
    assert.ok(await done, 'the kickoff went on from the review');
  });

  it('"Continue where you left off" goes on at the first input still unanswered', async () => {
    const first = await startWithNewValues('research');
    await inputStep('research', 'topic', 1, 3);
    await typeInQuickInput('kept topic', { enter: true });
    await inputStep('research', 'audience', 2, 3);
    await pressInQuickInput('Escape');
    assert.equal(await first.done, undefined, 'Escape starts nothing');
    const { done } = await startKickoff('research');
    await startFrom('research', 'Continue where you left off');
    await inputStep('research', 'audience', 2, 3);
    await typeInQuickInput('later audience', { enter: true });
    const review = await reviewStep('research');
    assert.match(review, /topic\s*kept topic/);
    await pressInQuickInput('Enter', KICK_OFF);
    const runId = await done;
    assert.deepStrictEqual((await api.runs.readDetails(runId!)).inputs, { topic: 'kept topic', audience: 'later audience' });
  });

  it('422: asks again for only the missing input, then kicks off', async () => {
    // GET /inputs lists only topic; by the time of the kickoff the crew requires audience too.
    sim.updateCrew('strict', { inputs: ['topic'] });
    const { done } = await startKickoff('strict');
    await inputStep('strict', 'topic', 1, 2);
    sim.updateCrew('strict', { inputs: ['topic', 'audience'] });
    await typeInQuickInput('only topic', { enter: true });
    await reviewStep('strict', 2);
    await pressInQuickInput('Enter', KICK_OFF);
    const missingStep = await inputStep('strict', 'audience', 2, 3);
    assert.doesNotMatch(missingStep, /topic \(/, 'only the missing input is asked');
    await typeInQuickInput('late audience', { enter: true });
    const review = await reviewStep('strict', 3);
    assert.match(review, /topic\s*only topic/);
    assert.match(review, /audience\s*late audience/);
    await pressInQuickInput('Enter', KICK_OFF);
    const runId = await done;
    assert.deepStrictEqual((await api.runs.readDetails(runId!)).inputs, { topic: 'only topic', audience: 'late audience' });
    assert.deepStrictEqual(kickoffs(sim, 'strict').map((e) => e.status), [422, 200]);
    await waitForNotification('Strict (kick) needs these inputs: audience.');
  });

  it('401 at kickoff offers Set Token, keeps the values, and the kickoff then works', async () => {
    const { done } = await startKickoff('auth');
    await inputStep('auth', 'topic', 1, 3);
    sim.updateCrew('auth', { orgToken: 'rotated-token-0001' }); // Reset on the crew's Status tab meanwhile.
    await typeInQuickInput('auth topic', { enter: true });
    await inputStep('auth', 'audience', 2, 3);
    await typeInQuickInput('auth audience', { enter: true });
    await reviewStep('auth');
    await pressInQuickInput('Enter', KICK_OFF);
    await waitForNotification('Auth (kick) rejected the token (401)');
    await acceptNotification('Auth (kick) rejected the token (401)'); // "Set Token…"
    await waitForQuickInput('Set Token for Auth (kick)');
    await pressInQuickInput('Enter'); // Organization
    await waitForQuickInput('Paste the token');
    await typeInQuickInput('rotated-token-0001', { enter: true });
    const review = await reviewStep('auth');
    assert.match(review, /topic\s*auth topic/);
    assert.match(review, /audience\s*auth audience/);
    await pressInQuickInput('Enter', KICK_OFF);
    const runId = await done;
    assert.deepStrictEqual((await api.runs.readDetails(runId!)).inputs, { topic: 'auth topic', audience: 'auth audience' });
    assert.deepStrictEqual(kickoffs(sim, 'auth').map((e) => [e.status, e.tokenKind]), [[401, 'invalid'], [200, 'org']]);
  });

  it('a network failure at kickoff offers Track a Kickoff ID and never retries the kickoff', async () => {
    const { done } = await startKickoff('net');
    await inputStep('net', 'topic', 1, 3);
    // The crew goes away; in its place a server that takes each connection, notes its request line and drops it.
    const port = Number(new URL(netUrl).port);
    await netSim!.close();
    netSim = undefined;
    const requestLines: string[] = [];
    blackHole = net.createServer((socket) => {
      socket.once('data', (chunk) => {
        requestLines.push(chunk.toString('utf8').split('\r\n')[0]);
        socket.destroy();
      });
    });
    await new Promise<void>((resolve, reject) => {
      blackHole!.once('error', reject);
      blackHole!.listen(port, '127.0.0.1', () => resolve());
    });
    await typeInQuickInput('net topic', { enter: true });
    await inputStep('net', 'audience', 2, 3);
    await typeInQuickInput('net audience', { enter: true });
    await reviewStep('net');
    await pressInQuickInput('Enter', KICK_OFF);
    const warning = await waitForNotification('The run may or may not have started');
    assert.match(warning, /Could not reach Net \(kick\)/);
    await acceptNotification('The run may or may not have started'); // "Track a Kickoff ID…"
    await waitForQuickInput('Track a Kickoff ID on Net (kick)');
    // The crew cannot be asked about the id (it is gone): tracked once the user says so.
    const modal = answerModal('Track Anyway');
    let runId: string | undefined;
    try {
      await typeInQuickInput('net-kickoff-0001', { enter: true });
      runId = await done;
      // The kickoff's command ends with its warning; the tracking goes on from the notification's button.
      await waitFor(() => api.runs.list(netUrl).find((r) => r.kickoffId === 'net-kickoff-0001'), { message: 'the tracked kickoff id is a run of the crew', ...SLOW });
    } finally {
      modal.dispose();
    }
    assert.match(modal.calls[0]?.message ?? '', /could not check the kickoff id\. Track it anyway\?/);
    assert.strictEqual(runId, undefined, 'the kickoff itself started nothing');
    assert.deepStrictEqual(requestLines.filter((l) => l.includes('/kickoff')), ['POST /net/kickoff HTTP/1.1'], 'exactly one kickoff attempt');
  });

  it('after a kickoff that may have started a run, Kick Off from the review asks first: nothing goes without Kick Off Again, which sends one new kickoff (#46)', async () => {
    // A crew of its own, which answers its inputs and then drops every connection as it is sent a request.
    let dropSim: Simulator | undefined = await startSimulator({ timeScale: 0.01, crews: [{ ...crewConfigs()[0], id: 'drop', name: 'Drop' }] });
    const dropUrl = dropSim.crewUrl('drop');
    await addCrewWithToken({ url: dropUrl, name: NAMES.drop, token: dropSim.crews[0].orgToken });
    const requestLines: string[] = [];
    const dropper = net.createServer((socket) => socket.once('data', (chunk) => (requestLines.push(chunk.toString('utf8').split('\r\n')[0]), socket.destroy())));
    // Every notification the wizard shows about it is answered here, as the user would: the uncertain
    // kickoff's (not modal) with Back to Review, and the question before a second kickoff as each step says.
    const window = vscode.window as unknown as Record<string, (...args: unknown[]) => unknown>;
    const original = window.showWarningMessage;
    const asked: { message: string; detail?: string; items: string[] }[] = [];
    let secondKickoff: string | undefined;
    window.showWarningMessage = (...args: unknown[]) => {
      const message = String(args[0]);
      const options = typeof args[1] === 'object' ? (args[1] as { modal?: boolean; detail?: string }) : undefined;
      if (options?.modal) {
        asked.push({ message, detail: options.detail, items: args.slice(2).map(String) });
        return Promise.resolve(secondKickoff);
      }
      if (/may or may not have started/.test(message)) {
        asked.push({ message, items: args.slice(1).filter((a) => typeof a === 'string').map(String) });
        return Promise.resolve(asked.filter((a) => /may or may not/.test(a.message)).length === 1 ? 'Back to Review' : undefined);
      }
      return original.apply(vscode.window, args);
    };
    try {
      const { done } = await startKickoff('drop');
      await inputStep('drop', 'topic', 1, 3);
      const port = Number(new URL(dropUrl).port);
      await dropSim.close();
      dropSim = undefined;
      await new Promise<void>((resolve, reject) => {
        dropper.once('error', reject);
        dropper.listen(port, '127.0.0.1', () => resolve());
      });
      await typeInQuickInput('drop topic', { enter: true });
      await inputStep('drop', 'audience', 2, 3);
      await typeInQuickInput('drop audience', { enter: true });
      await reviewStep('drop');
      await pressInQuickInput('Enter', KICK_OFF);
      // Back to Review from the warning that the run may or may not have started; then Kick Off again.
      await reviewStep('drop');
      assert.deepEqual(requestLines.filter((l) => l.includes('/kickoff')).length, 1, 'one kickoff so far');
      await pressInQuickInput('Enter', KICK_OFF);
      await waitFor(() => asked.length === 2 || undefined, { message: 'the question before a second kickoff' });
      assert.match(asked[1].message, /^The kickoff of Drop \(kick\) at .+ may have started a run: Crew Runs cannot tell\.$/);
      assert.match(asked[1].detail ?? '', /Kicking off again could start it twice/);
      assert.deepEqual(asked[1].items, ['Kick Off Again', 'Track a Kickoff ID…']);
      // Dismissed: back to the review, and nothing sent.
      await reviewStep('drop');
      assert.equal(requestLines.filter((l) => l.includes('/kickoff')).length, 1, 'nothing sent without Kick Off Again');
      secondKickoff = 'Kick Off Again';
      await pressInQuickInput('Enter', KICK_OFF);
      assert.equal(await done, undefined, 'the second kickoff may not have started either: the wizard ends with its warning');
      assert.deepEqual(asked.map((a) => (a.detail === undefined ? 'warning' : 'question')), ['warning', 'question', 'question', 'warning']);
      assert.deepEqual(requestLines.filter((l) => l.includes('/kickoff')), ['POST /drop/kickoff HTTP/1.1', 'POST /drop/kickoff HTTP/1.1'], 'one more kickoff, the one the user chose');
    } finally {
      window.showWarningMessage = original;
      await dropSim?.close();
      await new Promise<void>((resolve) => dropper.close(() => resolve()));
    }
  });

  it('presets: Save as Preset from the review, then kick off from Manage Presets', async () => {
    const crewUrl = url('research');
    const last = api.presets.lastUsed(crewUrl);
    assert.ok(last, 'an earlier test left last used values');
    const { done: cancelled } = await startKickoff('research');
    await startFrom('research', 'Last used inputs');
    await reviewStep('research'); // Complete values go straight to the review.
    await pickInQuickInput('Save as Preset');
    await waitForQuickInput('Save Inputs as Preset');
    await typeInQuickInput('Weekly digest', { enter: true });
    await reviewStep('research');
    await pickInQuickInput('Cancel');
    assert.strictEqual(await cancelled, undefined);
    assert.deepStrictEqual(api.presets.presets(crewUrl), [{ name: 'Weekly digest', inputs: last }]);

    const before = kickoffs(sim, 'research').length;
    const managed = executeCommand('crewRuns.managePresets', crewUrl);
    await waitForQuickInput('Presets of Research (kick)');
    await pressInQuickInput('Enter', { activeItem: 'Weekly digest' });
    await reviewStep('research');
    await pressInQuickInput('Enter', KICK_OFF);
    await managed;
    assert.strictEqual(kickoffs(sim, 'research').length, before + 1);
    const newest = api.runs.list(crewUrl).sort((a, b) => b.startedAt - a.startedAt)[0];
    assert.deepStrictEqual((await api.runs.readDetails(newest.id)).inputs, last);
  });

  it('Run Again shows the inputs it will send and starts one run on Enter, even clicked twice; Run Again with Edited Inputs changes one', async () => {
    const crewUrl = url('research');
    const topics = await Promise.all(api.runs.list(crewUrl).map(async (r) => (await api.runs.readDetails(r.id)).inputs?.topic));
    const original = api.runs.list(crewUrl).find((_r, i) => topics[i] === 'AI agents');
    assert.ok(original, 'the happy-path run');
    const before = kickoffs(sim, 'research').length;
    // A double click on the tree's Run Again icon: two commands.
    const clicks = [executeCommand<string | undefined>('crewRuns.runAgain', { runId: original.id }), executeCommand<string | undefined>('crewRuns.runAgain', { runId: original.id })];
    const shown = await reviewStep('research');
    assert.match(shown, /topic\s*AI agents/);
    assert.strictEqual(kickoffs(sim, 'research').length, before, 'nothing is sent before the user confirms');
    await pressInQuickInput('Enter', KICK_OFF);
    const started = (await Promise.all(clicks)).filter((id): id is string => id !== undefined);
    assert.strictEqual(started.length, 1, `one run for a double click: ${JSON.stringify(started)}`);
    assert.strictEqual(kickoffs(sim, 'research').length, before + 1, 'one POST /kickoff');
    const againId = started[0];
    assert.ok(againId && againId !== original.id);
    const again = api.runs.get(againId)!;
    assert.notStrictEqual(again.kickoffId, original.kickoffId);
    assert.deepStrictEqual((await api.runs.readDetails(againId)).inputs, { topic: 'AI agents', audience: 'engineers' });
    assert.deepStrictEqual(sim.getRun(again.kickoffId)?.inputs, { topic: 'AI agents', audience: 'engineers' });

    const edited = executeCommand<string | undefined>('crewRuns.runAgainWithEditedInputs', { runId: original.id });
    await reviewStep('research');
    await pickInQuickInput('topic');
    await inputStep('research', 'topic', 1, 3);
    await replaceValue('AI agents, edited', { enter: true });
    const review = await reviewStep('research');
    assert.match(review, /topic\s*AI agents, edited/);
    await pressInQuickInput('Enter', KICK_OFF);
    const editedId = await edited;
    assert.deepStrictEqual((await api.runs.readDetails(editedId!)).inputs, { topic: 'AI agents, edited', audience: 'engineers' });
  });

  it('inputs from the JSON in the active editor', async () => {
    const editor = await openJsonEditor('{"topic": "x", "audience": "y"}');
    const { done } = await startKickoff('strict');
    await startFrom('strict', 'From the JSON in the active editor');
    const review = await reviewStep('strict');
    assert.match(review, /topic\s*x\b/);
    assert.match(review, /audience\s*y\b/);
    await pressInQuickInput('Enter', KICK_OFF);
    const runId = await done;
    const run = api.runs.get(runId!)!;
    assert.deepStrictEqual((await api.runs.readDetails(run.id)).inputs, { topic: 'x', audience: 'y' });
    assert.deepStrictEqual(sim.getRun(run.kickoffId)?.inputs, { topic: 'x', audience: 'y' });
    await editor.close();
  });

  it('the review shows every character it will send: invisible ones written out, with the length sent', async () => {
    // JSON escapes: the values hold two zero-width spaces and a tag character, which draw nothing.
    const editor = await openJsonEditor('{"topic": "Q3\\u200b\\u200b", "audience": "y\\udb40\\udc41"}');
    const { done } = await startKickoff('strict');
    await startFrom('strict', 'From the JSON in the active editor');
    const review = await reviewStep('strict');
    assert.match(review, /topic\s*Q3⟦U\+200B ×2⟧ \(4 characters\)/);
    assert.match(review, /audience\s*y⟦U\+E0041⟧ \(3 characters\)/);
    await closeQuickInput();
    assert.strictEqual(await done, undefined, 'nothing kicked off');
    await editor.close();
  });

  it('a second kickoff of the demo crew from the palette, with last values remembered, takes few keystrokes', async () => {
    await removeAllCrews(api); // Only the demo crews in the crew pick.
    const urls = await executeCommand<string[]>('crewRuns.tryDemoCrew');
    const researchUrl = urls.find((u) => u.endsWith('/research-crew'))!;
    // The first kickoff from the palette, typing the values.
    await ui.press('Control+Shift+P');
    await waitForQuickInput(/./, 'the command palette');
    await typeInQuickInput('Crew Runs: Kick Off Crew');
    await waitForQuickInput('Kick Off Crew');
    await pressInQuickInput('Enter', { activeItem: 'Kick Off Crew' });
    await waitForQuickInput('Research Crew', 'the crew pick');
    await pressInQuickInput('Enter', { activeItem: 'Research Crew' });
    await waitForQuickInput('Kick Off Research Crew: topic (1/3)');
    await typeInQuickInput('palette topic', { enter: true });
    await waitForQuickInput('Kick Off Research Crew: audience (2/3)');
    await typeInQuickInput('palette audience', { enter: true });
    await waitForQuickInput('Kick Off Research Crew: review (3/3)');
    await pressInQuickInput('Enter', KICK_OFF);
    const firstId = await waitFor(() => api.runs.list(researchUrl)[0]?.id, { message: 'the first run', ...SLOW });
    await clearNotifications();

    // The second: count every key pressed after the palette opens.
    let keystrokes = 0;
    const press = async (key: string, options: QuickInputKeys = {}) => {
      keystrokes++;
      await pressInQuickInput(key, options);
    };
    await ui.press('Control+Shift+P'); // Opens the palette: not counted.
    const palette = await waitForQuickInput(/Crew Runs/, 'the command palette');
    const firstCommand = palette.split('\n').find((line) => /:/.test(line)) ?? '';
    console.log(`      palette opens with: ${JSON.stringify(palette.split('\n').slice(0, 3))}`);
    if (!/Kick Off Crew/.test(firstCommand)) {
      for (const key of 'kick off') {
        await press(key === ' ' ? 'Space' : key);
      }
      await waitForQuickInput('Kick Off Crew');
    }
    await press('Enter', { activeItem: 'Kick Off Crew' });
    await waitForQuickInput('Research Crew', 'the crew pick');
    await press('Enter', { activeItem: 'Research Crew' }); // The first crew is Research Crew.
    await waitForQuickInput('Last used inputs');
    await press('Enter', { activeItem: 'Last used inputs' });
    await waitForQuickInput('Kick Off Research Crew: review (3/3)');
    await press('Enter', KICK_OFF);
    const secondId = await waitFor(
      () => api.runs.list(researchUrl).find((r) => r.id !== firstId)?.id,
      { message: 'the second run', ...SLOW },
    );
    console.log(`      keystrokes after the palette opened: ${keystrokes}`);
    assert.deepStrictEqual((await api.runs.readDetails(secondId)).inputs, { topic: 'palette topic', audience: 'palette audience' });
    assert.ok(keystrokes < 10, `${keystrokes} keystrokes`);
    await removeRunsOf(api, urls);
  });

  it('the crew pick and Kick Off\'s first step are one quick input: the keyboard never leaves it between them', async function () {
    if (!ui.available()) {
      this.skip();
    }
    // The cause of a focus race seen in CI: the crew pick closed, which gave the keyboard back to the view the demo
    // focuses, and on a loaded machine that landed after the first step had opened. One quick input closes nothing.
    await removeAllCrews(api); // Only the demo crews in the crew pick.
    const urls = await executeCommand<string[]>('crewRuns.tryDemoCrew');
    await executeCommand('crewRuns.crews.focus');
    const done = executeCommand<string | undefined>('crewRuns.kickOff');
    await waitForQuickInput('Research Crew', 'the crew pick');
    console.log(`      the crew pick: ${(await ui.screenshot('kickoff-crew-pick-step', { selector: '.quick-input-widget' })).path}`);
    await ui.focusLog('start');
    await pressInQuickInput('Enter', { activeItem: 'Research Crew' });
    await waitForQuickInput(/Kick Off Research Crew/, 'the first step');
    const { entries } = await ui.focusLog('read');
    const elsewhere = entries.filter((entry) => entry.event === 'focusin' && !entry.inQuickInput);
    assert.deepStrictEqual(elsewhere, [], `between the crew pick and the first step the focus went elsewhere: ${JSON.stringify(entries)}`);
    await closeQuickInput();
    assert.strictEqual(await done, undefined, 'nothing kicked off');
    await removeRunsOf(api, urls);
  });

  it('"Kick Off" typed in the command palette finds Kick Off Crew first, and no batch command', async () => {
    await ui.press('Control+Shift+P');
    await waitForQuickInput(/./, 'the command palette');
    await typeInQuickInput('Kick Off');
    const palette = await waitForQuickInput('Kick Off Crew', 'Kick Off Crew among the matches');
    const commands = palette.split('\n').filter((line) => line.includes('Crew Runs:'));
    assert.match(commands[0] ?? '', /Kick Off Crew/, `the first match: ${JSON.stringify(commands)}`);
    assert.ok(!commands.some((line) => /Batch/.test(line)), `a batch command matches "Kick Off": ${JSON.stringify(commands)}`);
    await closeQuickInput();
  });

  // Last: its notifications must not become an earlier test's "newest".
  it('400 shows the crew\'s message and comes back to the review with the values kept', async () => {
    sim.updateCrew('docs', { maxInputLength: 20 });
    if (!api.crews.get(url('docs'))) {
      await addCrewWithToken({ url: url('docs'), name: NAMES.docs, token: sim.crews.find((c) => c.id === 'docs')!.orgToken });
    }
    const done = executeCommand<string | undefined>('crewRuns.kickOff', url('docs'));
    await inputStep('docs', 'topic', 1, 3);
    await typeInQuickInput('short topic', { enter: true });
    await inputStep('docs', 'audience', 2, 3);
    await typeInQuickInput('an audience far longer than twenty characters', { enter: true });
    await reviewStep('docs');
    await pressInQuickInput('Enter', KICK_OFF);
    await waitForNotification("Docs (kick) refused the request (400). The crew said: \"Invalid Request: Input 'audience' is too long (at most 20 characters)\"");
    await acceptNotification('Docs (kick) refused the request (400)'); // "Back to Review"
    const review = await reviewStep('docs');
    assert.match(review, /topic\s*short topic/);
    assert.match(review, /audience\s*an audience far longer/);
    sim.updateCrew('docs', { maxInputLength: undefined });
    await pressInQuickInput('Enter', KICK_OFF);
    const runId = await done;
    assert.deepStrictEqual((await api.runs.readDetails(runId!)).inputs, { topic: 'short topic', audience: 'an audience far longer than twenty characters' });
    assert.deepStrictEqual(kickoffs(sim, 'docs').map((e) => e.status), [400, 200]);
  });

  it('a refused kickoff whose notice is dismissed keeps the typed values for next time', async () => {
    await clearNotifications();
    sim.updateCrew('docs', { maxInputLength: 20 });
    // By the crew's URL: earlier tests removed the other crews (the crew pick's first entry).
    const first = executeCommand<string | undefined>('crewRuns.kickOff', url('docs'));
    await startFrom('docs', 'Enter new values'); // The previous test left last used values.
    await inputStep('docs', 'topic', 1, 3);
    await typeInQuickInput('kept topic', { enter: true });
    await inputStep('docs', 'audience', 2, 3);
    await typeInQuickInput('an audience too long to be taken', { enter: true });
    await reviewStep('docs');
    await pressInQuickInput('Enter', KICK_OFF);
    await waitForNotification('Docs (kick) refused the request (400)');
    await clearNotifications(); // Dismissed, not "Back to Review".
    assert.strictEqual(await first, undefined, 'nothing started');
    sim.updateCrew('docs', { maxInputLength: undefined });
    const done = executeCommand<string | undefined>('crewRuns.kickOff', url('docs'));
    await startFrom('docs', 'Continue where you left off');
    const review = await reviewStep('docs');
    assert.match(review, /topic\s*kept topic/);
    assert.match(review, /audience\s*an audience too long to be taken/);
    await pressInQuickInput('Enter', KICK_OFF);
    const runId = await done;
    assert.deepStrictEqual((await api.runs.readDetails(runId!)).inputs, { topic: 'kept topic', audience: 'an audience too long to be taken' });
  });
});
