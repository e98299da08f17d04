// Issue #51 "try a crew with a trigger's payload": signed in to the simulator's platform, Kick Off's first step
// offers a trigger's payload; the app picker puts connected apps first, the payload opens in the kickoff's JSON
// editor, the review shows it, and the crew receives the edited payload as the object `crewai_trigger_payload`
// (with its other input). The payload is remembered for that crew and trigger; the command run with a crew as its
// argument (as another extension would) starts nothing without the review; an app not connected says so; a refused
// token is said once.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { startSimulator, triggerDemoCrew, type Simulator } from '../../../src/simulator/server';
import { addCrewWithToken, executeCommand, ui, waitFor } from '../helpers';
import {
  type Api,
  clearNotifications,
  closeQuickInput,
  notificationsText,
  pickInQuickInput,
  pressInQuickInput,
  removeAllCrews,
  removeRunsOf,
  settled,
  SLOW,
  testApi,
  typeInQuickInput,
  waitForNotification,
  waitForQuickInput,
} from './support/kit';
import { MessageSpy } from './support/monitoring';

const PAT = 'pat-TRIGGERcanary-8d1e4b';
const ORG = '7c2e9a10-0000-4000-8000-0000000000a1';
const URL_SETTING = 'crewRuns.platform.url';
const EDITED = 'Edited in the payload editor by the test';

describe('Kick Off with a Trigger Payload', function () {
  this.timeout(120_000);
  let api: Api;
  let sim: Simulator;
  const crew = { ...triggerDemoCrew(), pendingMs: 100 };
  const url = () => sim.crewUrl(crew.id);
  const kickoffs = () => sim.requestLog.entries.filter((e) => e.crewId === crew.id && e.endpoint === 'kickoff').length;
  const payloadRequests = () => sim.requestLog.entries.filter((e) => e.path.endsWith('/payload'));

  async function closeEditors(): Promise<void> {
    for (let i = 0; i < 10 && vscode.window.visibleTextEditors.length > 0; i++) {
      await executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
  }

  /** The payload editor, once it shows the trigger's payload. */
  function payloadEditor(contains: string): Promise<vscode.TextEditor> {
    return waitFor(
      () => {
        const editor = vscode.window.activeTextEditor;
        return editor?.document.languageId === 'json' && editor.document.getText().includes(contains) ? editor : undefined;
      },
      { message: `the payload in a JSON editor, holding ${contains}`, ...SLOW },
    );
  }

  before(async function () {
    if (!ui.available()) {
      this.skip(); // Drives quick inputs through the browser runner's page.
    }
    api = await testApi();
    sim = await startSimulator({
      timeScale: 0.01,
      crews: [crew],
      platform: { token: PAT, organizations: [{ uuid: ORG, name: 'Acme Support' }], deployments: [] },
    });
    await vscode.workspace.getConfiguration().update(URL_SETTING, sim.origin, vscode.ConfigurationTarget.Global);
    await waitFor(() => api.platform.baseUrl() === sim.origin, { message: 'the platform URL setting read', ...SLOW });
    await api.platform.signInWithToken(PAT, ORG, 'Acme Support');
    await addCrewWithToken({ url: url(), name: crew.name, token: sim.crews[0].orgToken });
    await closeEditors();
    await clearNotifications();
  });

  afterEach(async () => {
    await closeQuickInput();
    await closeEditors();
    await clearNotifications();
  });

  after(async () => {
    if (!api) {
      return;
    }
    if (await api.platform.signedIn()) {
      await api.signOut();
    }
    await removeRunsOf(api, [url()]);
    await removeAllCrews(api);
    await vscode.workspace.getConfiguration().update(URL_SETTING, undefined, vscode.ConfigurationTarget.Global);
    await sim?.close();
  });

  it('from Kick Off’s first step: picks Gmail’s New Email, edits its payload, and the crew receives the edited object', async () => {
    await api.presets.rememberLastUsed(url(), { team: 'support' }); // The first step shows the crew's last inputs.
    const done = executeCommand<string | undefined>('crewRuns.kickOff', url());
    await waitForQuickInput('With a Trigger’s Payload');
    await pickInQuickInput('With a Trigger’s Payload');

    const apps = await waitForQuickInput('with a Trigger Payload (1/3)');
    const order = ['Gmail', 'Google Calendar', 'Slack'].map((name) => apps.indexOf(name));
    assert.ok(order.every((at, i) => at >= 0 && (i === 0 || at > order[i - 1])), `connected apps first: ${apps}`);
    assert.match(apps, /Slack[\s\S]*not connected/);
    assert.match(apps, /an email arrives/, 'each app with its description');
    const appShot = await ui.screenshot('trigger-app-picker');
    console.log(`      screenshot: ${appShot.path}`);
    await pickInQuickInput('Gmail');
    await waitForQuickInput(/with a Trigger Payload \(2\/3\)[\s\S]*New Email Received/);
    await pickInQuickInput('New Email Received');

    const editor = await payloadEditor('"snippet"');
    const sample = JSON.parse(editor.document.getText()) as { result: { snippet: string; id: string } };
    assert.match(sample.result.snippet, /checkout page times out/);
    const editorShot = await ui.screenshot('trigger-payload-editor');
    console.log(`      screenshot: ${editorShot.path}`);
    const edited = { ...sample, result: { ...sample.result, snippet: EDITED } };
    const edit = new vscode.WorkspaceEdit();
    edit.replace(editor.document.uri, new vscode.Range(0, 0, editor.document.lineCount, 0), JSON.stringify(edited, undefined, 2));
    assert.ok(await vscode.workspace.applyEdit(edit));
    await executeCommand('crewRuns.useInputText');

    const review = await waitForQuickInput(/review/);
    assert.match(review, /crewai_trigger_payload/);
    assert.match(review, /team\s*support/);
    assert.strictEqual(kickoffs(), 0, 'nothing sent before Kick Off in the review');
    await pressInQuickInput('Enter', { activeItem: 'Kick Off' });
    const runId = await settled(done, 'Kick Off to return the run');
    assert.ok(runId, 'a run started');
    const run = api.runs.get(runId);
    assert.ok(run);
    const received = sim.getRun(run.kickoffId)?.inputs;
    assert.deepStrictEqual(received, { team: 'support', crewai_trigger_payload: edited }, 'the crew received the edited payload as an object');
    assert.strictEqual(kickoffs(), 1, 'sent once');
    await waitFor(() => api.runs.get(runId)?.state === 'succeeded', { message: 'the run to succeed', ...SLOW });
    assert.match(JSON.stringify((await api.runs.readDetails(runId)).tasks), new RegExp(EDITED), 'the crew quotes the payload it was given');
  });

  it('run with a crew as its argument, it starts nothing without the review; the payload used last is offered again', async () => {
    const before = kickoffs();
    const payloadsBefore = payloadRequests().length;
    const done = executeCommand<string | undefined>('crewRuns.kickOffWithTriggerPayload', url());
    await waitForQuickInput('with a Trigger Payload (1/3)');
    await pressInQuickInput('Enter', { activeItem: 'Gmail' }); // The app used last is the active one.
    const triggers = await waitForQuickInput(/with a Trigger Payload \(2\/3\)[\s\S]*New Email Received/);
    assert.match(triggers, /New Email Received[\s\S]*used before/);
    await pressInQuickInput('Enter', { activeItem: 'New Email Received' });
    await waitForQuickInput(/with a Trigger Payload \(3\/3\)[\s\S]*last kicked off with/);
    await pickInQuickInput('last kicked off with');
    await payloadEditor(EDITED);
    assert.strictEqual(payloadRequests().length, payloadsBefore, 'the remembered payload needs no request');
    await executeCommand('crewRuns.useInputText');
    await waitForQuickInput(/review/);
    await closeQuickInput(); // Escape in the review: nothing is sent.
    assert.strictEqual(await settled(done, 'the command to return'), undefined);
    assert.strictEqual(kickoffs(), before, 'nothing was sent without Kick Off in the review');
  });

  it('saved as a preset from the review, the payload is sent again when Kick Off starts from that preset', async () => {
    const done = executeCommand<string | undefined>('crewRuns.kickOffWithTriggerPayload', url());
    await waitForQuickInput('with a Trigger Payload (1/3)');
    await pressInQuickInput('Enter', { activeItem: 'Gmail' });
    await waitForQuickInput(/with a Trigger Payload \(2\/3\)[\s\S]*New Email Received/);
    await pressInQuickInput('Enter', { activeItem: 'New Email Received' });
    await waitForQuickInput(/with a Trigger Payload \(3\/3\)[\s\S]*last kicked off with/);
    await pickInQuickInput('last kicked off with');
    await payloadEditor(EDITED);
    await executeCommand('crewRuns.useInputText');
    await waitForQuickInput(/review/);
    await pickInQuickInput('Save as Preset');
    await waitForQuickInput('Save Inputs as Preset');
    await typeInQuickInput('Checkout email', { enter: true });
    await waitForQuickInput(/review/);
    await closeQuickInput();
    assert.strictEqual(await settled(done, 'the command to return'), undefined);
    const preset = api.presets.presets(url()).find((p) => p.name === 'Checkout email');
    assert.ok(preset, 'the preset is saved');
    assert.match(JSON.stringify(preset.inputs.crewai_trigger_payload), new RegExp(EDITED), 'with the payload');

    const before = kickoffs();
    const again = executeCommand<string | undefined>('crewRuns.kickOff', url());
    await waitForQuickInput('Checkout email');
    await pickInQuickInput('Checkout email');
    const review = await waitForQuickInput(/review/);
    assert.match(review, /crewai_trigger_payload/, 'the review shows the payload the preset carries');
    await pressInQuickInput('Enter', { activeItem: 'Kick Off' });
    const runId = await settled(again, 'Kick Off to return the run');
    assert.ok(runId);
    assert.strictEqual(kickoffs(), before + 1);
    const received = sim.getRun(api.runs.get(runId)!.kickoffId)?.inputs;
    assert.match(JSON.stringify(received?.crewai_trigger_payload), new RegExp(EDITED), 'the crew received the preset’s payload');
    assert.strictEqual(typeof received?.crewai_trigger_payload, 'object');
  });

  it('an app that is not connected says so and offers its Integrations page; nothing is asked of it', async () => {
    const payloadsBefore = payloadRequests().length;
    const done = executeCommand<string | undefined>('crewRuns.kickOffWithTriggerPayload', url());
    await waitForQuickInput('with a Trigger Payload (1/3)');
    await pickInQuickInput('Slack');
    await waitForNotification('Slack is not connected to Acme Support');
    assert.match(await notificationsText(), /Open Integrations Page/);
    await clearNotifications();
    assert.strictEqual(await settled(done, 'the command to return'), undefined);
    assert.strictEqual(payloadRequests().length, payloadsBefore);
  });

  it('a refused personal token is said once, with Sign In Again, and no app is offered', async () => {
    await api.platform.signInWithToken('pat-wrong', ORG, 'Acme Support');
    const spy = new MessageSpy(); // Counts what was shown, not the notification center's rendering of it.
    try {
      const done = executeCommand<string | undefined>('crewRuns.kickOffWithTriggerPayload', url());
      const said = await waitForNotification('Could not list the trigger apps of Acme Support');
      assert.match(said, /refused your personal access token/);
      await clearNotifications();
      assert.strictEqual(await settled(done, 'the command to return'), undefined);
      const shown = spy.shown.filter((m) => m.message.includes('Could not list the trigger apps'));
      assert.strictEqual(shown.length, 1, `said once: ${JSON.stringify(spy.shown.map((m) => m.message))}`);
      assert.deepStrictEqual(shown[0].items, ['Sign In Again']);
    } finally {
      spy.dispose();
      await api.platform.signInWithToken(PAT, ORG, 'Acme Support');
    }
  });
});
