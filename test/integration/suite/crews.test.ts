// Issue "Crews and tokens": adding crews through the real Add Crew UI, their state in the tree,
// token fixes (Enter Again, Set Token, Forget Token), Rename, Remove, the demo crews, and that a
// token never lands in settings, logs, notifications or files.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { demoCrews, startSimulator, type CrewConfig, type Simulator } from '../../../src/simulator/server';
import { addCrewWithToken, executeCommand, readLog, selectors, showCrewRunsView, ui, waitFor, kickOffWithoutReview } from '../helpers';
import { removeEmptyWorkspaceSettings, workspaceSettingsFile } from './support/securityKit';
import {
  acceptNotification,
  answerModal,
  type Api,
  clearNotifications,
  closeQuickInput,
  pressInQuickInput,
  crewRows,
  filesContaining,
  removeAllCrews,
  removeRunsOf,
  replaceValue,
  runTempDir,
  SLOW,
  testApi,
  typeInQuickInput,
  userSettingsFile,
  waitForCrewDescription,
  waitForQuickInput,
  waitForNotification,
} from './support/kit';

const CANARY = 'CANARYtoken7f3a9c1e5b2d4680';
const SETTING = 'crewRuns.crews';

function crewConfigs(): CrewConfig[] {
  const [research, review, flow] = demoCrews();
  return [
    research,
    review,
    flow,
    { ...structuredClone(research), id: 'workspace-crew', name: 'Workspace crew' },
    { ...structuredClone(research), id: 'canary-crew', name: 'Canary crew', orgToken: CANARY },
  ];
}

function userSetting(): unknown {
  return vscode.workspace.getConfiguration().inspect(SETTING)?.globalValue;
}

describe('Crews and tokens', function () {
  this.timeout(180_000);
  let api: Api;
  let sim: Simulator;
  const url = (id: string) => sim.crewUrl(id);
  const tokens = (id: string) => sim.crews.find((c) => c.id === id)!;
  // Not GET /inspect: the tree asks it on its own when it draws a crew with a token (whether the crew chats).
  const requests = (id: string, endpoint?: string) =>
    sim.requestLog.entries.filter((e) => e.crewId === id && !e.path.endsWith('/inspect') && (endpoint === undefined || e.endpoint === endpoint));

  before(async function () {
    if (!ui.available()) {
      this.skip(); // Drives quick inputs through the browser runner's page.
    }
    api = await testApi();
    await removeAllCrews(api);
    sim = await startSimulator({ timeScale: 0.01, crews: crewConfigs() });
    await showCrewRunsView();
    await clearNotifications();
  });

  afterEach(async () => {
    await closeQuickInput();
    await clearNotifications();
  });

  after(async () => {
    if (!api) {
      return;
    }
    await removeRunsOf(api, sim ? sim.crews.map((c) => c.url) : []);
    await removeAllCrews(api);
    removeEmptyWorkspaceSettings();
    await sim?.close();
  });

  /** Drives Add Crew: URL → name → token kind → token. Resolves with what the command returned. */
  async function addCrewThroughUi(options: { url: string; name: string; token: string; kind: 'organization' | 'user' }) {
    const done = executeCommand<{ url: string; name: string } | undefined>('crewRuns.addCrew');
    await waitForQuickInput('Add Crew (1/4)');
    await replaceValue(options.url);
    await waitForQuickInput("The crew's base URL", 'the URL accepted (the prompt instead of a problem)');
    await pressInQuickInput('Enter');
    await waitForQuickInput('Add Crew (2/4)');
    await replaceValue(options.name, { enter: true });
    await waitForQuickInput('Add Crew (3/4)');
    if (options.kind === 'user') {
      await pressInQuickInput('ArrowDown');
    }
    await pressInQuickInput('Enter', { activeItem: options.kind === 'user' ? 'User Bearer Token' : 'Organization Bearer Token' });
    await waitForQuickInput('Add Crew (4/4)');
    await typeInQuickInput(options.token, { enter: true });
    return done;
  }

  it('adds two crews with different tokens through the Add Crew UI, validating the URL as it is typed', async () => {
    const done = executeCommand<{ url: string } | undefined>('crewRuns.addCrew');
    await waitForQuickInput('Add Crew (1/4)');
    await replaceValue('ftp://example.com');
    await waitForQuickInput('A crew URL starts with https://');
    await replaceValue('https://user:pw@example.com');
    await waitForQuickInput('must not contain a user name or password');
    await replaceValue('https://example.com/?x=1');
    await waitForQuickInput('without ?query or #fragment');
    await replaceValue('http://example.com');
    const refused = await waitForQuickInput('Plain http:// is only allowed for this machine');
    assert.match(refused, /Add Crew/);
    await replaceValue(url('research-crew'));
    await waitForQuickInput("The crew's base URL", 'the URL accepted (the prompt instead of a problem)');
    await pressInQuickInput('Enter');
    const nameStep = await waitForQuickInput('Add Crew (2/4)');
    assert.match(nameStep, /A name for this crew/);
    await replaceValue('Research (sim)', { enter: true });
    await waitForQuickInput('Add Crew (3/4)');
    await pressInQuickInput('Enter', { activeItem: 'Organization Bearer Token' }); // Organization is the active item.
    await waitForQuickInput('Paste the token');
    await typeInQuickInput(tokens('research-crew').orgToken, { enter: true });
    const first = await done;
    assert.strictEqual(first?.url, url('research-crew'));
    await waitForNotification('Added Research (sim). It expects: topic, audience.');

    const second = await addCrewThroughUi({ url: `${url('review-crew')}/`, name: 'Review (sim)', token: tokens('review-crew').userToken, kind: 'user' });
    assert.strictEqual(second?.url, url('review-crew'), 'the trailing slash is normalised away');

    assert.deepStrictEqual(userSetting(), [
      { name: 'Research (sim)', url: url('research-crew') },
      { name: 'Review (sim)', url: url('review-crew') },
    ]);
    // Each check went to its own crew with its own kind of token.
    assert.deepStrictEqual(requests('research-crew').map((e) => [e.endpoint, e.status, e.tokenKind]), [['inputs', 200, 'org']]);
    assert.deepStrictEqual(requests('review-crew').map((e) => [e.endpoint, e.status, e.tokenKind]), [['inputs', 200, 'user']]);

    const research = await waitForCrewDescription(api, url('research-crew'), 'ready');
    const review = await waitForCrewDescription(api, url('review-crew'), 'ready');
    assert.deepStrictEqual(
      [research, review].map((r) => [r.label, r.contextValue]),
      [
        ['Research (sim)', 'crew source-user health-ready hasToken'],
        ['Review (sim)', 'crew source-user health-ready hasToken'],
      ],
    );
    const sideBar = await waitFor(async () => {
      const text = await ui.text(selectors.sideBar);
      return text.includes('Research (sim)') && text.includes('Review (sim)') ? text : undefined;
    }, { message: 'both crews in the side bar', ...SLOW });
    assert.match(sideBar, /Research \(sim\)\s*ready/);
    const shot = await ui.screenshot('crews-two-crews-ready', { selector: selectors.sideBar });
    assert.ok(shot.distinctColours > 2, `side bar screenshot looks blank (${shot.distinctColours} colours)`);
  });

  it('refuses http:// to a non-loopback host at the URL step', async () => {
    const before = userSetting();
    const done = executeCommand('crewRuns.addCrew');
    await waitForQuickInput('Add Crew (1/4)');
    await replaceValue('http://crew.example.com', { enter: true });
    const text = await waitForQuickInput('Plain http:// is only allowed for this machine (localhost); use https://');
    assert.match(text, /Add Crew \(1\/4\)/, 'Enter did not move on to the name step');
    await pressInQuickInput('Escape');
    assert.strictEqual(await done, undefined);
    assert.deepStrictEqual(userSetting(), before, 'nothing was added');
  });

  it('a rejected token (401) offers Enter Again, and the second token is saved', async () => {
    const done = executeCommand<{ url: string } | undefined>('crewRuns.addCrew');
    await waitForQuickInput('Add Crew (1/4)');
    await replaceValue(url('idea-flow'), { enter: true });
    await waitForQuickInput('Add Crew (2/4)');
    await replaceValue('Idea (sim)', { enter: true });
    await waitForQuickInput('Add Crew (3/4)');
    await pressInQuickInput('Enter', { activeItem: 'Organization Bearer Token' });
    await waitForQuickInput('Paste the token');
    await typeInQuickInput('not-the-right-token', { enter: true });
    await waitForNotification('Idea (sim) rejected the token (401)');
    assert.strictEqual(await api.crews.hasToken(url('idea-flow')), false, 'a rejected token is not stored');
    await acceptNotification('Idea (sim) rejected the token (401)'); // "Enter Again"
    await waitForQuickInput('Paste the token');
    await typeInQuickInput(tokens('idea-flow').orgToken, { enter: true });
    const crew = await done;
    assert.strictEqual(crew?.url, url('idea-flow'));
    assert.deepStrictEqual(requests('idea-flow').map((e) => [e.status, e.tokenKind]), [[401, 'invalid'], [200, 'org']]);
    await waitForCrewDescription(api, url('idea-flow'), 'ready');
  });

  it('Set Token replaces a crew token after checking it', async () => {
    const reviewUrl = url('review-crew');
    const done = executeCommand<void>('crewRuns.setToken', reviewUrl);
    const kindStep = await waitForQuickInput('Set Token for Review (sim)');
    assert.match(kindStep, /Organization Bearer Token/);
    await pressInQuickInput('ArrowUp', { activeItem: 'User Bearer Token' }); // The stored kind (user) is active; choose Organization.
    await pressInQuickInput('Enter', { activeItem: 'Organization Bearer Token' });
    await waitForQuickInput('Paste the token');
    const before = requests('review-crew').length;
    await typeInQuickInput(tokens('review-crew').orgToken, { enter: true });
    await done;
    await waitForNotification('The token of Review (sim) was saved.');
    assert.deepStrictEqual(requests('review-crew').slice(before).map((e) => [e.endpoint, e.tokenKind]), [['inputs', 'org']]);
    // The stored token is now the organization one: a check sends it.
    assert.strictEqual(await executeCommand('crewRuns.checkConnection', reviewUrl), true);
    assert.deepStrictEqual(requests('review-crew').slice(before + 1).map((e) => [e.endpoint, e.status, e.tokenKind]), [['inputs', 200, 'org']]);
    await waitForCrewDescription(api, reviewUrl, 'ready');
  });

  it('Forget Token asks first; then the crew is "token missing" and a check sends nothing', async () => {
    const reviewUrl = url('review-crew');
    // Any extension or link can run it with a crew: it says which token goes, and keeps it without a yes.
    const declined = answerModal(undefined);
    try {
      await executeCommand('crewRuns.forgetToken', reviewUrl);
    } finally {
      declined.dispose();
    }
    assert.deepStrictEqual(declined.calls.map((c) => [c.message, c.items]), [['Forget the token of Review (sim)?', ['Forget Token']]]);
    assert.ok(declined.calls[0].detail?.includes(`It is deleted from this machine (${reviewUrl}).`), declined.calls[0].detail);
    assert.strictEqual(await api.crews.hasToken(reviewUrl), true, 'kept without a yes');
    const confirmed = answerModal('Forget Token');
    try {
      await executeCommand('crewRuns.forgetToken', reviewUrl);
    } finally {
      confirmed.dispose();
    }
    await waitForNotification('The token of Review (sim) was deleted from this machine.');
    const row = await waitForCrewDescription(api, reviewUrl, 'token missing');
    assert.strictEqual(row.contextValue, 'crew source-user health-noToken noToken');
    assert.strictEqual(await api.crews.hasToken(reviewUrl), false);

    const before = requests('review-crew').length;
    const check = executeCommand('crewRuns.checkConnection', reviewUrl);
    await waitForNotification('Review (sim) has no token yet. Set its token first.');
    await clearNotifications();
    assert.strictEqual(await check, false);
    assert.strictEqual(requests('review-crew').length, before, 'no request without a token');
  });

  it('Rename changes the name only: same URL, same token', async () => {
    const researchUrl = url('research-crew');
    const done = executeCommand('crewRuns.renameCrew', researchUrl);
    await waitForQuickInput('Rename Research (sim)');
    await replaceValue('Research renamed', { enter: true });
    await done;
    assert.deepStrictEqual(userSetting(), [
      { name: 'Research renamed', url: researchUrl },
      { name: 'Review (sim)', url: url('review-crew') },
      { name: 'Idea (sim)', url: url('idea-flow') },
    ]);
    assert.strictEqual(await api.crews.hasToken(researchUrl), true);
    const row = await waitForCrewDescription(api, researchUrl, 'ready');
    assert.strictEqual(row.label, 'Research renamed');
  });

  it('Remove asks first (no keeps the crew), then deletes the crew and its token', async () => {
    const ideaUrl = url('idea-flow');
    // The confirmation is modal, which this runner's workbench refuses to draw: answered in the host.
    const declined = answerModal(undefined);
    try {
      await executeCommand('crewRuns.removeCrew', ideaUrl);
    } finally {
      declined.dispose();
    }
    assert.deepStrictEqual(declined.calls, [
      { message: 'Remove Idea (sim)?', detail: 'Its token is deleted from this machine too. Runs in the history stay until you remove them.', items: ['Remove Crew'] },
    ]);
    assert.ok(api.crews.get(ideaUrl), 'dismissing the dialog keeps the crew');
    assert.strictEqual(await api.crews.hasToken(ideaUrl), true);

    const confirmed = answerModal('Remove Crew');
    try {
      await executeCommand('crewRuns.removeCrew', ideaUrl);
    } finally {
      confirmed.dispose();
    }
    assert.strictEqual(confirmed.calls.length, 1);
    assert.strictEqual(api.crews.get(ideaUrl), undefined);
    assert.ok(!(await crewRows(api)).some((r) => r.url === ideaUrl), 'gone from the tree');
    assert.deepStrictEqual(userSetting(), [
      { name: 'Research renamed', url: url('research-crew') },
      { name: 'Review (sim)', url: url('review-crew') },
    ]);
    assert.strictEqual(await api.crews.hasToken(ideaUrl), false, 'its token was deleted');

    // The same URL added back (settings only, no token): no token, and a check sends nothing.
    const setting = userSetting() as unknown[];
    await vscode.workspace.getConfiguration().update(SETTING, [...setting, { name: 'Idea again', url: ideaUrl }], vscode.ConfigurationTarget.Global);
    await waitForCrewDescription(api, ideaUrl, 'token missing');
    const before = requests('idea-flow').length;
    const check = executeCommand('crewRuns.checkConnection', ideaUrl);
    await waitForNotification('Idea again has no token yet.');
    await clearNotifications();
    assert.strictEqual(await check, false);
    assert.strictEqual(requests('idea-flow').length, before);
    await vscode.workspace.getConfiguration().update(SETTING, setting, vscode.ConfigurationTarget.Global);
  });

  it('a workspace crew named like a user crew but at another URL is separate, has no token and sends no Authorization', async () => {
    assert.ok(vscode.workspace.workspaceFolders?.length, 'the harness opens a folder');
    const researchUrl = url('research-crew');
    const workspaceUrl = url('workspace-crew');
    await vscode.workspace.getConfiguration().update(SETTING, [{ name: 'Research renamed', url: workspaceUrl }], vscode.ConfigurationTarget.Workspace);
    await waitFor(() => api.crews.get(workspaceUrl), { message: 'the workspace crew', ...SLOW });
    const same = api.crews.list().filter((c) => c.name === 'Research renamed');
    assert.deepStrictEqual(same.map((c) => [c.url, c.source]), [
      [researchUrl, 'user'],
      [workspaceUrl, 'workspace'],
    ]);
    assert.strictEqual(await api.crews.hasToken(workspaceUrl), false);
    const row = await waitForCrewDescription(api, workspaceUrl, 'token missing · workspace');
    assert.strictEqual(row.contextValue, 'crew source-workspace health-noToken noToken');

    const check = executeCommand('crewRuns.checkConnection', workspaceUrl);
    await waitForNotification('Research renamed has no token yet.');
    await clearNotifications();
    assert.strictEqual(await check, false);
    const kickoff = kickOffWithoutReview({ crew: workspaceUrl, inputs: { topic: 't', audience: 'a' } });
    await waitForNotification(/Research renamed has no token yet/);
    await clearNotifications();
    assert.strictEqual(await kickoff, undefined, 'no run was started');
    assert.deepStrictEqual(requests('workspace-crew').filter((e) => e.hasAuthorization), [], 'no request to the workspace URL carried a token');
    assert.strictEqual(requests('workspace-crew').length, 0, 'nothing was sent at all');

    await vscode.workspace.getConfiguration().update(SETTING, undefined, vscode.ConfigurationTarget.Workspace);
    await waitFor(() => !api.crews.get(workspaceUrl), { message: 'the workspace crew gone', ...SLOW });
    removeEmptyWorkspaceSettings();
  });

  it('Try the Demo Crew adds demo crews that are ready', async () => {
    const urls = await executeCommand<string[]>('crewRuns.tryDemoCrew');
    assert.strictEqual(urls.length, 7);
    for (const demoUrl of urls) {
      assert.match(demoUrl, /^http:\/\/127\.0\.0\.1:\d+\/[\w-]+$/);
    }
    await waitForNotification('The demo crews run on this machine; nothing leaves it.');
    // The tree asks each crew's GET /inspect as it draws it: the chat flow's row then offers Chat with Flow.
    const rows = await waitFor(async () => {
      const all = (await crewRows(api)).filter((r) => urls.includes(r.url));
      return all.length === 7 && all.every((r) => r.description === 'ready · demo') && all.some((r) => / chats\b/.test(r.contextValue)) ? all : undefined;
    }, { message: 'seven ready demo crews, the chat flow offering chat', ...SLOW }).catch(async (error: Error) => {
      throw new Error(`${error.message}: ${JSON.stringify((await crewRows(api)).filter((r) => urls.includes(r.url)))}`);
    });
    assert.deepStrictEqual(rows.map((r) => [r.label, r.contextValue]), [
      ['Research Crew', 'crew source-demo health-ready hasToken'],
      ['Review Crew', 'crew source-demo health-ready hasToken'],
      ['Idea Flow', 'crew source-demo health-ready hasToken'],
      ['Self-hosted Crew', 'crew source-demo health-ready hasToken'],
      ['Interview Crew', 'crew source-demo health-ready hasToken'],
      ['Support Chat Flow', 'crew source-demo health-ready hasToken chats'],
      ['Echo Crew', 'crew source-demo health-ready hasToken'],
    ]);
    assert.strictEqual(await executeCommand('crewRuns.checkConnection', urls[0]), true, 'a demo crew answers with its token');
    await ui.screenshot('crews-demo-crews', { selector: selectors.sideBar });
    await api.demo.dispose();
    assert.deepStrictEqual(api.crews.list().filter((crew) => crew.source === 'demo'), [], 'the demo crews went with the demo');
  });

  it('a canary token appears in no settings file, log line, notification or stored file', async () => {
    // The center then lists this test's notifications only: earlier suites' many could push them out of its list.
    await clearNotifications();
    const canaryUrl = url('canary-crew');
    await addCrewWithToken({ url: canaryUrl, name: 'Canary crew', token: CANARY });
    assert.strictEqual(await executeCommand('crewRuns.checkConnection', canaryUrl), true);
    const runId = await kickOffWithoutReview<string | undefined>({ crew: canaryUrl, inputs: { topic: 'canary topic', audience: 'canary audience' } });
    assert.ok(runId, 'the kickoff started a run');
    await waitFor(() => api.runs.get(runId)?.state === 'succeeded', { message: 'the canary run to finish', timeoutMs: 60_000 });
    // The crew resets its token: the check fails with 401 and says so.
    sim.updateCrew('canary-crew', { orgToken: 'reset-elsewhere-0001' });
    const check = executeCommand('crewRuns.checkConnection', canaryUrl);
    const center = await waitForNotification('Canary crew rejected the token (401)');
    assert.match(center, /canary topic on Canary crew succeeded/, `the notification center lists the earlier notifications too (it shows: ${JSON.stringify(center.replace(/\s+/g, ' ').slice(0, 400))})`);
    assert.ok(!center.includes(CANARY), 'no notification holds the token');
    await clearNotifications();
    await check;
    assert.ok(sim.requestLog.entries.some((e) => e.crewId === 'canary-crew' && e.tokenKind === 'org'), 'the canary token was really sent to its crew');

    const settingsFile = userSettingsFile();
    assert.ok(settingsFile && fs.existsSync(settingsFile), `user settings file found (${settingsFile})`);
    const settingsText = await waitFor(() => {
      const text = fs.readFileSync(settingsFile, 'utf8');
      return text.includes(canaryUrl) ? text : undefined;
    }, { message: 'the canary crew in settings.json', ...SLOW });
    assert.ok(!settingsText.includes(CANARY), 'settings.json holds no token');
    const log = await readLog();
    assert.match(log, /Canary crew/, 'the log was read');
    assert.ok(!log.includes(CANARY), 'the log holds no token');

    await api.runs.flush();
    const temp = runTempDir();
    assert.ok(temp, 'the runner folder is known');
    const scanned = filesContaining(temp, CANARY, (file) => path.basename(file) === 'ui-bridge');
    assert.ok(scanned.files > 5, `files were scanned under ${temp} (${scanned.files})`);
    assert.deepStrictEqual(scanned.hits, [], 'no file of this VS Code run holds the token');
    const storage = filesContaining(api.globalStorageUri.fsPath, CANARY);
    assert.deepStrictEqual(storage.hits, [], 'global storage holds no token');
    const workspaceSettings = workspaceSettingsFile();
    if (workspaceSettings && fs.existsSync(workspaceSettings)) {
      assert.ok(!fs.readFileSync(workspaceSettings, 'utf8').includes(CANARY));
    }
    await removeRunsOf(api, [canaryUrl]);
  });
});
