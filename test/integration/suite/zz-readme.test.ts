// The README's (and the walkthrough's) pictures, cut to what each shows, taken from the real UI while the demo crews run: the Crews view with runs
// and tasks, a kickoff input step, the run view of a finished run, a run's trace, the feedback thread, a chat with a
// conversational flow, and an organization's deployments imported with their health.
// Saved as test-results/readme-*.png; `npm run screenshots` copies them into docs/images/.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { DEMO_PLATFORM_TOKEN, demoCrews, startSimulator, type Simulator } from '../../../src/simulator/server';
import { addCrewWithToken, executeCommand, selectors, ui, waitFor, kickOffWithoutReview } from '../helpers';
import { type Api, closeQuickInput, pickInQuickInput, pressInQuickInput, settled, removeAllCrews, removeRunsOf, replaceValue, testApi, typeInQuickInput, waitForNotification, waitForQuickInput } from './support/kit';

const PLATFORM_URL = 'crewRuns.platform.url';

describe('README pictures', function () {
  this.timeout(240_000);
  let api: Api;
  let sim: Simulator;

  before(async function () {
    if (!ui.available()) {
      this.skip();
    }
    api = await testApi();
    await removeAllCrews(api);
    // The demo crews, faster: a run takes a few seconds instead of half a minute. Each is also a deployment
    // of the demo organization, under its own name, for the import picture.
    const crews = demoCrews();
    sim = await startSimulator({
      timeScale: 0.15,
      crews,
      platform: {
        organizations: [{ uuid: '0b7c2a51-5d1e-4f7a-9c3e-1d2f3a4b5c6d', name: 'Acme Labs' }],
        deployments: crews.map((crew, i) => ({ uuid: `d${i + 1}000000-5d1e-4f7a-9c3e-1d2f3a4b5c6d`, organization: '0b7c2a51-5d1e-4f7a-9c3e-1d2f3a4b5c6d', crewId: crew.id, name: crew.name, shape: 'full' as const })),
      },
    });
    for (const crew of sim.crews) {
      await addCrewWithToken({ url: crew.url, name: crew.name, token: crew.orgToken });
      await executeCommand('crewRuns.checkConnection', crew.url);
    }
    await vscode.workspace.getConfiguration().update('crewRuns.notifications', 'off', vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await closeQuickInput().catch(() => undefined);
    if (api) {
      await removeRunsOf(api, sim.crews.map((c) => c.url));
      await removeAllCrews(api);
    }
    await vscode.workspace.getConfiguration().update('crewRuns.notifications', undefined, vscode.ConfigurationTarget.Global);
    if (await api?.platform.signedIn()) {
      await api?.signOut();
    }
    await vscode.workspace.getConfiguration().update(PLATFORM_URL, undefined, vscode.ConfigurationTarget.Global);
    await executeCommand('workbench.action.closeAllEditors');
    await sim?.close();
  });

  const crewUrl = (id: string) => sim.crewUrl(id);
  const finished = (runId: string) => waitFor(() => ['succeeded', 'failed'].includes(api.runs.get(runId)?.state ?? ''), { timeoutMs: 90_000, message: 'the run to finish' });

  it('the Crews view with runs and their tasks', async () => {
    const research = await kickOffWithoutReview<string>({ crew: crewUrl('research-crew'), inputs: { topic: 'AI agents in code editors', audience: 'developers' } });
    const flow = await kickOffWithoutReview<string>({ crew: crewUrl('idea-flow'), inputs: { topic: 'release notes', count: '5' } });
    await finished(research);
    await kickOffWithoutReview<string>({ crew: crewUrl('research-crew'), inputs: { topic: 'Vector databases', audience: 'architects' } });
    await waitFor(() => api.runs.get(flow)?.state === 'succeeded' || api.runs.get(flow)?.state === 'running', { timeoutMs: 60_000 });
    await executeCommand('workbench.view.extension.crewRuns');
    await api.treeView.reveal(api.tree.runNode(research), { expand: true, focus: false, select: false });
    await waitFor(async () => (await api.tree.getChildren(api.tree.runNode(research)) as unknown[]).length === 3, { timeoutMs: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 500)); // Let the tree paint its icons.
    const shot = await ui.screenshot('readme-crews-tree', { selector: selectors.sideBar });
    assert.ok(shot.distinctColours > 10, 'the side bar is not blank');
  });

  it('a kickoff input step', async () => {
    const done = executeCommand('crewRuns.kickOff', crewUrl('research-crew'));
    await waitForQuickInput('Last used inputs');
    await pressInQuickInput('ArrowDown', { activeItem: 'Last used inputs' });
    await pressInQuickInput('Enter', { activeItem: 'Enter new values' });
    await waitForQuickInput('Kick Off Research Crew: topic (1/3)');
    await typeInQuickInput('Prompt injection defences');
    const shot = await ui.screenshot('readme-kickoff-step', { selector: selectors.openQuickInput });
    assert.ok(shot.distinctColours > 10);
    await closeQuickInput();
    assert.strictEqual(await done, undefined, 'cancelled: no run started');
  });

  it('a kickoff step that takes JSON', async () => {
    const done = executeCommand('crewRuns.kickOff', crewUrl('interview-crew'));
    await waitForQuickInput(/Kick Off Interview Crew: interview_data \(1\/3\)[\s\S]*As JSON/);
    await replaceValue('{"topic": "Rust", "questions_and_answers": [{"question": "Why ownership?", "answer": "No data races"}]}');
    await waitForQuickInput(/As JSON/);
    const shot = await ui.screenshot('readme-json-input-step', { selector: selectors.openQuickInput });
    assert.ok(shot.distinctColours > 10);
    await closeQuickInput();
    assert.strictEqual(await done, undefined, 'cancelled: no run started');
  });

  it('the run view of a finished run', async () => {
    const run = api.runs.list(crewUrl('research-crew')).find((r) => r.state === 'succeeded');
    assert.ok(run, 'a finished research run');
    await executeCommand('workbench.action.closeAllEditors');
    await executeCommand('crewRuns.openRun', { runId: run.id });
    await waitFor(() => api.panels.inspect(run.id)?.pageReport?.hasFinalOutput, { timeoutMs: 20_000, message: 'the run view rendering the output' });
    const shot = await ui.screenshot('readme-run-view', { selector: '.part.editor' });
    assert.ok(shot.distinctColours > 10);
  });

  it('the trace of a run with a slow tool call', async () => {
    const runId = await kickOffWithoutReview<string>({ crew: crewUrl('research-crew'), inputs: { topic: 'Llamas in the Andes #slowtool', audience: 'hikers' } });
    assert.ok(runId, 'the kickoff returned a run id');
    await finished(runId);
    await executeCommand('workbench.action.closeAllEditors');
    assert.strictEqual(await executeCommand('crewRuns.showTrace', { runId }), true);
    await waitFor(() => (api.panels.inspect(runId)?.pageReport?.traceSpans ?? 0) > 5 && api.panels.inspect(runId)?.pageReport?.traceRunning === 0 && api.panels.inspect(runId)?.pageReport?.traceSelected, {
      timeoutMs: 20_000,
      message: 'the run view drawing the whole trace',
    });
    const shot = await ui.screenshot('readme-trace', { selector: '.part.editor' });
    assert.ok(shot.distinctColours > 10);
  });

  it('the feedback thread of a paused task', async () => {
    await executeCommand('workbench.action.closeAllEditors');
    const runId = await kickOffWithoutReview<string>({ crew: crewUrl('review-crew'), inputs: { topic: 'our new release' } });
    await waitFor(() => api.runs.get(runId)?.needsFeedback, { timeoutMs: 90_000, message: 'the review crew to ask for feedback' });
    await executeCommand('crewRuns.giveFeedback', { runId });
    await waitFor(() => api.reviews.openReviewOf(runId), { timeoutMs: 10_000 });
    await waitFor(async () => (await ui.text('.part.editor')).includes('Approve') || undefined, { timeoutMs: 10_000, message: 'the comment thread drawn' });
    await waitFor(() => api.panels.inspect(runId)?.pageReport, { timeoutMs: 20_000, message: 'the run view beside it drawn' });
    const shot = await ui.screenshot('readme-feedback', { selector: '.part.editor' });
    assert.ok(shot.distinctColours > 10);
  });

  it('a chat with a conversational flow, its second answer caught mid-stream, with a tool step', async () => {
    await executeCommand('workbench.action.closeAllEditors');
    await executeCommand('workbench.action.closePanel');
    const sessionId = await executeCommand<string>('crewRuns.chatWithFlow', crewUrl('support-chat-flow'));
    assert.ok(sessionId, 'a chat started');
    const chat = await waitFor(() => api.flowChats().find((c) => c.sessionId === sessionId), { timeoutMs: 20_000, message: 'the chat panel' });
    await waitFor(() => chat.lastReport(), { timeoutMs: 20_000, message: 'the chat page reporting' });
    chat.submitFromPage('My order arrived damaged. What can I do?');
    await waitFor(() => (chat.lastReport()?.transcript.some((line) => line.startsWith('assistant: ')) && !chat.lastReport()?.busy ? true : undefined), {
      timeoutMs: 60_000,
      message: 'the answer complete',
    });
    // The second answer, photographed while it streams in: part of its text shown, the composer waiting.
    chat.submitFromPage('Can I turn it on for one team only?');
    const answers = () => chat.lastReport()?.transcript.filter((line) => line.startsWith('assistant: ')) ?? [];
    await waitFor(() => (chat.lastReport()?.busy && answers().length === 2 && answers()[1].length > 120 ? true : undefined), {
      timeoutMs: 60_000,
      message: 'the second answer half way',
    });
    const shot = await ui.screenshot('readme-flow-chat', { selector: '.part.editor' });
    assert.ok(shot.distinctColours > 10);
  });

  it('an organization’s deployments to import, then in the sidebar with their health', async () => {
    await executeCommand('workbench.action.closeAllEditors');
    await executeCommand('workbench.action.closePanel');
    await removeRunsOf(api, sim.crews.map((c) => c.url));
    await removeAllCrews(api);
    await vscode.workspace.getConfiguration().update(PLATFORM_URL, sim.origin, vscode.ConfigurationTarget.Global);
    await waitFor(() => api.platform.baseUrl() === sim.origin, { timeoutMs: 10_000, message: 'the platform URL setting read' });
    await api.platform.signInWithToken(DEMO_PLATFORM_TOKEN, '0b7c2a51-5d1e-4f7a-9c3e-1d2f3a4b5c6d', 'Acme Labs');
    const done = executeCommand<number>('crewRuns.platform.importCrews');
    await waitForQuickInput(/Import Crews from Acme Labs[\s\S]*Support Chat Flow/);
    await new Promise((resolve) => setTimeout(resolve, 500)); // The picker fades in.
    const pick = await ui.screenshot('readme-import-crews', { selector: selectors.openQuickInput });
    assert.ok(pick.distinctColours > 10);
    await pressInQuickInput('Enter');
    assert.strictEqual(await done, sim.crews.length, 'every deployment imported');
    await waitForNotification(`Imported ${sim.crews.length} crews`);
    await executeCommand('notifications.clearAll');
    await waitFor(() => sim.crews.every((c) => api.platform.health(c.url)?.state === 'online'), { timeoutMs: 20_000, message: 'every deployment online' });
    await executeCommand('workbench.view.extension.crewRuns');
    await new Promise((resolve) => setTimeout(resolve, 500)); // Let the tree paint its icons.
    const tree = await ui.screenshot('readme-organization-crews', { selector: selectors.sideBar });
    assert.ok(tree.distinctColours > 10);
  });

  it('a crew tried with a trigger\'s sample payload: the trigger apps, connected first', async () => {
    const done = executeCommand('crewRuns.kickOffWithTriggerPayload', crewUrl('research-crew'));
    await waitForQuickInput(/with a Trigger Payload \(1\/3\)[\s\S]*Gmail[\s\S]*Slack/);
    const shot = await ui.screenshot('readme-trigger-apps', { selector: selectors.openQuickInput });
    assert.ok(shot.distinctColours > 10);
    await closeQuickInput();
    assert.strictEqual(await done, undefined, 'cancelled: no run started');
  });

  it('a redeploy step for CI, written for an imported crew', async () => {
    await executeCommand('workbench.action.closeAllEditors');
    await executeCommand('notifications.clearAll');
    const step = executeCommand<string>('crewRuns.platform.copyCiRedeployStep', crewUrl('research-crew'));
    await waitForQuickInput('Copy CI Redeploy Step');
    await pickInQuickInput('GitHub Actions step');
    const yaml = await settled(step, 'the step written');
    await waitFor(async () => (await ui.text('.part.editor')).includes('CREWAI_PAT') || undefined, { timeoutMs: 10_000, message: 'the step in its editor' });
    await executeCommand('notifications.clearAll');
    const shot = await ui.screenshot('readme-ci-redeploy-step', { selector: '.part.editor' });
    assert.ok(shot.distinctColours > 10 && yaml.includes('secrets.CREWAI_PAT'));
    await executeCommand('workbench.action.revertAndCloseActiveEditor');
  });
});
