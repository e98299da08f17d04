// An editor without chat (issue #35): the `withoutChat` session loads Crew Runs through a wrapper
// that hands it a `vscode` module lacking `lm` and `chat` (runner/withoutChat.ts), in a real VS Code
// 1.96 whose workbench does have chat. Activation must succeed with no error, the crew tools and
// @crews must stay hidden (their `when` clauses: nobody would answer them), the log says why, and
// a kickoff through the wizard works. Runs only in that session (pending anywhere else).
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { startSimulator, demoCrews, type Simulator } from '../../../src/simulator/server';
import { addCrewWithToken, EXTENSION_ID, executeCommand, getExtension, readExtensionHostLog, readLog, ui, waitFor } from '../helpers';
import { WITHOUT_CHAT_PROBE } from '../helpers/uiBridgeProtocol';
import { type Api, cleanUp, waitForRun } from './support/monitoring';
import { clearNotifications, notificationsText, pressInQuickInput, typeInQuickInput, waitForQuickInput } from './support/kit';

interface Probe {
  hidden: string[];
  /** How many times the extension's bundles asked for `vscode` and got the module without chat. */
  requires: number;
}

function probe(): Probe | undefined {
  return (globalThis as Record<symbol, Probe | undefined>)[Symbol.for(WITHOUT_CHAT_PROBE)];
}

describe('Without chat: an editor that has no vscode.lm and no vscode.chat', function () {
  this.timeout(120_000);
  let api: Api;
  let sim: Simulator | undefined;
  const runIds: string[] = [];

  before(function () {
    if (!probe() || !ui.available()) {
      this.skip(); // Only in the withoutChat session of the browser runner.
    }
  });

  after(async () => {
    await cleanUp(api, runIds);
    await sim?.close();
  });

  it('activates with no error, and its bundles saw no chat or language model API', async () => {
    api = (await getExtension().activate()) as Api;
    assert.ok(getExtension().isActive, 'the extension is active');
    assert.ok(api?.runs && api.crews, 'activate() returned (the test API)');
    assert.deepStrictEqual(probe()?.hidden, ['lm', 'chat']);
    assert.ok((probe()?.requires ?? 0) > 0, "the extension's bundles got the vscode module without lm and chat");

    const hostLog = readExtensionHostLog() ?? '';
    const failures = hostLog.split('\n').filter((line) => line.includes(EXTENSION_ID) && /fail|error/i.test(line));
    assert.deepStrictEqual(failures, [], 'the extension host log names no failure of the extension');

    const log = await waitFor(async () => {
      const text = await readLog();
      return /no language model tools API/.test(text) && /no chat API/.test(text) ? text : undefined;
    }, { message: 'the log saying that the tools and @crews are not offered' });
    assert.doesNotMatch(log, /could not start|\[error\]/i, 'nothing failed');
    assert.doesNotMatch(await notificationsText(), /Crew Runs|could not start/i, 'no notification at all from the extension');
  });

  it('keeps the crew tools hidden from the editor\'s AI (their when clause is never true)', async () => {
    // This host's own API has vscode.lm (VS Code 1.96 has it): the contributions are processed, and hidden.
    assert.ok(vscode.lm, 'the workbench itself has the language model API');
    const contributed = (getExtension().packageJSON as { contributes: { languageModelTools: { name: string }[] } }).contributes.languageModelTools;
    assert.ok(contributed.length > 0, 'the manifest contributes tools');
    const listed = vscode.lm.tools.filter((tool) => tool.name.startsWith('crewRuns_')).map((tool) => tool.name);
    assert.deepStrictEqual(listed, [], 'no crew tool is listed');
  });

  it('kicks off through the wizard, and the run ends in the tree', async () => {
    const [research] = demoCrews();
    sim = await startSimulator({ timeScale: 0.01, crews: [{ ...structuredClone(research), id: 'plain', name: 'Plain' }] });
    const name = 'Plain (no chat)';
    await addCrewWithToken({ url: sim.crews[0].url, name, token: sim.crews[0].orgToken });
    await clearNotifications();

    // The only crew: the wizard starts at its first input.
    const done = executeCommand<string | undefined>('crewRuns.kickOff');
    await waitForQuickInput(`Kick Off ${name}: topic (1/3)`);
    await typeInQuickInput('editors without chat', { enter: true });
    await waitForQuickInput(`Kick Off ${name}: audience (2/3)`);
    await typeInQuickInput('fork users', { enter: true });
    await waitForQuickInput(`Kick Off ${name}: review (3/3)`);
    await pressInQuickInput('Enter', { activeItem: 'Kick Off' });
    const runId = await done;
    assert.ok(runId, 'the kickoff returned a run id');
    runIds.push(runId);

    const run = await waitForRun(api, runId, (r) => r.state === 'succeeded', 'the run succeeding');
    assert.deepStrictEqual(sim.getRun(run.kickoffId)?.inputs, { topic: 'editors without chat', audience: 'fork users' });
    const crewNode = (await api.tree.getChildren())?.find((node) => node.type === 'crew' && node.crew.url === sim?.crews[0].url);
    assert.ok(crewNode, 'the crew is in the tree');
    assert.ok((await api.tree.getChildren(crewNode))?.some((node) => node.type === 'run' && node.runId === runId), 'the run is under its crew');
    assert.doesNotMatch(await readLog(), /could not start|\[error\]/i, 'still nothing failed');
    const dist = fs.realpathSync(path.join(getExtension().extensionPath, 'dist'));
    assert.ok(require.cache[path.join(dist, 'chat.js')] === undefined, 'no chat code was loaded (dist/chat.js)');
  });
});
