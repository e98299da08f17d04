// Issue "Fault and security suite" — token hygiene and where a token may go, in a real VS Code:
// - a full session with canary tokens (add crews in the UI and by arguments, kickoff, polling to the
//   end, a human-feedback round, 401/422/network errors, copy/save/open outputs, the run view), then
//   every surface scanned for the canaries: settings, state databases, the extension's storage,
//   every log file, webview HTML and messages, clipboard, exported files, notifications;
// - a crew whose server redirects to another origin never gets the token sent there;
// - a workspace crew named like a user crew, at another URL, never receives a token;
// - in an untrusted window (when the runner provides one), workspace crews are hidden.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { CrewRunsTestApi } from '../../../src/testApi';
import { demoCrews, startSimulator, type CrewConfig, type Simulator } from '../../../src/simulator/server';
import { addCrewWithToken, executeCommand, getExtensionApi, readLog, showCrewRunsView, ui, waitFor, kickOffWithoutReview } from '../helpers';
import { answerModal, pressInQuickInput, quickInputText, replaceValue, typeInQuickInput, waitForQuickInput } from './support/kit';
import {
  answerSaveDialog,
  closedPortUrl,
  filesUnder,
  NotificationSpy,
  removeEmptyWorkspaceSettings,
  scanSurfaces,
  startRecordingServer,
  userDataDir,
  WebviewMessageSpy,
  workspaceSettingsFile,
  type LocalServer,
} from './support/securityKit';

type Api = CrewRunsTestApi;

/** Distinctive tokens: one per crew, plus a wrong one that looks like them. */
const CANARY_A = 'CANARYsecA7f3a9c1e5b2d4680f1';
const CANARY_B = 'CANARYsecB0e9d8c7b6a5f4e3d2';
const CANARY_WRONG = 'CANARYsecWRONG5d4c3b2a19f8e7';
const CANARY_DEAD = 'CANARYsecDEAD4e5f6a7b8c9d0e1';
const CANARY_REDIRECT = 'CANARYsecREDIR1a2b3c4d5e6f70';
const CANARY_SHARED = 'CANARYsecSHARED9a8b7c6d5e4f3';
const CANARY_HISTORY = 'CANARYsecHIST7a6b5c4d3e2f10';
const CANARY_ECHO = 'CANARYsecECHO"q\\b5e4f3a2b1c0';
const ALL_CANARIES = [CANARY_A, CANARY_B, CANARY_WRONG, CANARY_DEAD, CANARY_REDIRECT, CANARY_SHARED, CANARY_HISTORY, CANARY_ECHO, JSON.stringify(CANARY_ECHO).slice(1, -1)];
const SETTING = 'crewRuns.crews';
const SLOW = { timeoutMs: 60_000, intervalMs: 200 } as const;

function crewConfigs(): CrewConfig[] {
  const [research, review] = demoCrews();
  return [
    { ...structuredClone(research), id: 'sec-a', name: 'Sec A', orgToken: CANARY_A },
    { ...structuredClone(review), id: 'sec-b', name: 'Sec B', orgToken: CANARY_B },
    { ...structuredClone(research), id: 'sec-wrong', name: 'Sec Wrong' },
    { ...structuredClone(research), id: 'sec-redirect', name: 'Sec Redirect', orgToken: CANARY_REDIRECT },
    { ...structuredClone(research), id: 'sec-lookalike', name: 'Sec Lookalike', orgToken: CANARY_SHARED },
    // Echoes the Authorization header in every 2xx status body (its token has a quote and a backslash).
    { ...structuredClone(research), id: 'sec-history', name: 'Sec History', orgToken: CANARY_HISTORY },
    { ...structuredClone(research), id: 'sec-echo', name: 'Sec Echo', orgToken: CANARY_ECHO, echoToken: true },
  ];
}

async function notificationCenterText(): Promise<string> {
  await executeCommand('notifications.showList');
  try {
    return await ui.text('.notifications-center', { timeoutMs: 2000 });
  } catch {
    return '';
  } finally {
    await executeCommand('notifications.hideList');
  }
}

/**
 * Runs a command that may await a notification's answer: waits for a NEW message matching
 * `expected`, dismisses the notifications (the awaited answer becomes undefined), returns the result.
 */
async function dismissing<T>(spy: NotificationSpy, run: () => Thenable<T>, expected: RegExp): Promise<T> {
  const from = spy.shown.length;
  const command = Promise.resolve(run());
  await waitFor(() => spy.shown.slice(from).some((m) => expected.test(m.message)), { message: `a notification matching ${String(expected)} (seen: ${spy.text().slice(-400)})`, ...SLOW });
  await executeCommand('notifications.clearAll');
  return command;
}

function waitForRunState(api: Api, runId: string, check: (run: NonNullable<ReturnType<Api['runs']['get']>>) => boolean, what: string) {
  return waitFor(() => {
    const run = api.runs.get(runId);
    return run && check(run) ? run : undefined;
  }, { message: `${what} (run: ${JSON.stringify(api.runs.get(runId) && { state: api.runs.get(runId)!.state, needsFeedback: api.runs.get(runId)!.needsFeedback })})`, timeoutMs: 90_000, intervalMs: 200 });
}

describe('Security: tokens', function () {
  this.timeout(300_000);
  let api: Api;
  let sim: Simulator;
  let recorder: LocalServer;
  let spy: NotificationSpy;
  let webviews: WebviewMessageSpy;
  const runIds: string[] = [];
  const exported: string[] = [];
  let exportDir: string;

  before(async () => {
    const exportedApi = await getExtensionApi<Api | undefined>();
    assert.ok(exportedApi?.crews && exportedApi.runs && exportedApi.panels, 'the test API is exported (CREW_RUNS_TEST_HOOKS=1)');
    api = exportedApi;
    sim = await startSimulator({ timeScale: 0.05, crews: crewConfigs() });
    recorder = await startRecordingServer(ALL_CANARIES);
    sim.updateCrew('sec-redirect', { redirectTo: recorder.url });
    spy = new NotificationSpy();
    webviews = new WebviewMessageSpy();
    exportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crew-runs-export-'));
    await showCrewRunsView();
  });

  after(async () => {
    spy?.dispose();
    webviews?.dispose();
    await executeCommand('workbench.action.closeAllEditors');
    await executeCommand('notifications.clearAll');
    if (api) {
      for (const id of runIds) {
        await api.poller.stopWatching(id).catch(() => undefined);
        await api.runs.remove(id).catch(() => undefined);
      }
      for (const crew of api.crews.list().filter((c) => sim?.crews.some((s) => s.url === c.url) || c.url === recorder?.url)) {
        await api.forgetToken(crew.url);
      }
      await vscode.workspace.getConfiguration().update(SETTING, undefined, vscode.ConfigurationTarget.Global);
      if (vscode.workspace.getConfiguration().inspect(SETTING)?.workspaceValue !== undefined) {
        await vscode.workspace.getConfiguration().update(SETTING, undefined, vscode.ConfigurationTarget.Workspace);
      }
      removeEmptyWorkspaceSettings();
    }
    await executeCommand('notifications.clearAll');
    await sim?.close();
    await recorder?.close();
    if (exportDir) {
      fs.rmSync(exportDir, { recursive: true, force: true });
    }
  });

  it('a full session with canary tokens leaves them in no setting, state, storage, log, webview, clipboard, export or notification', async () => {
    const urlA = sim.crewUrl('sec-a');
    const urlB = sim.crewUrl('sec-b');

    // 1. Add crews: A through the real Add Crew UI (the token typed into the password box), the others by arguments.
    if (ui.available()) {
      const done = executeCommand<{ url: string } | undefined>('crewRuns.addCrew');
      await waitForQuickInput('Add Crew (1/4)');
      await replaceValue(urlA);
      await waitForQuickInput("The crew's base URL");
      await pressInQuickInput('Enter');
      await waitForQuickInput('Add Crew (2/4)');
      await replaceValue('Sec A', { enter: true });
      await waitForQuickInput('Add Crew (3/4)');
      await pressInQuickInput('Enter', { activeItem: 'Organization Bearer Token' });
      await waitForQuickInput('Paste the token');
      await typeInQuickInput(CANARY_A);
      const shown = await quickInputText();
      assert.ok(shown !== undefined && !shown.includes(CANARY_A), 'the password box does not show the token');
      await pressInQuickInput('Enter');
      assert.strictEqual((await done)?.url, urlA);
    } else {
      await addCrewWithToken({ url: urlA, name: 'Sec A', token: CANARY_A });
    }
    await addCrewWithToken({ url: urlB, name: 'Sec B', token: CANARY_B });
    await addCrewWithToken({ url: sim.crewUrl('sec-wrong'), name: 'Sec Wrong', token: CANARY_WRONG });
    const deadUrl = `${await closedPortUrl()}/dead`;
    await addCrewWithToken({ url: deadUrl, name: 'Sec Dead', token: CANARY_DEAD });
    assert.strictEqual(await api.crews.hasToken(urlA), true);

    // 2. Check, kick off, poll to the end.
    assert.strictEqual(await executeCommand('crewRuns.checkConnection', urlA), true);
    const runA = await kickOffWithoutReview<string>({ crew: urlA, inputs: { topic: 'canary topic', audience: 'canary audience' } });
    assert.ok(runA, 'kickoff A started a run');
    runIds.push(runA);

    // 3. A human-feedback round on B.
    const runB = await kickOffWithoutReview<string>({ crew: urlB, inputs: { topic: 'canary review' } });
    assert.ok(runB, 'kickoff B started a run');
    runIds.push(runB);
    await waitForRunState(api, runB, (r) => r.needsFeedback, 'B waiting for feedback');
    await executeCommand('crewRuns.giveFeedback', { runId: runB });
    const review = api.reviews.openReviewOf(runB);
    assert.ok(review, 'a review thread is open');
    const reviewDoc = await waitFor(() => vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'crew-review' && d.uri.path.startsWith(`/${runB}/`)), { message: 'the review document', ...SLOW });
    const note = answerModal('Approve with Note'); // Typed text asks first what to do with it.
    assert.strictEqual(await executeCommand<boolean>('crewRuns.feedback.approve', { thread: review.thread, text: 'approved by the canary test' }).finally(() => note.dispose()), true);
    await waitForRunState(api, runA, (r) => r.state === 'succeeded', 'A succeeded');
    await waitForRunState(api, runB, (r) => r.state === 'succeeded', 'B succeeded');

    // 3b. A crew that echoes the token in every 2xx status body, polled to the end (issue 14, finding 5).
    const urlEcho = sim.crewUrl('sec-echo');
    await addCrewWithToken({ url: urlEcho, name: 'Sec Echo', token: CANARY_ECHO });
    const runEcho = await kickOffWithoutReview<string>({ crew: urlEcho, inputs: { topic: 'canary echo', audience: 'a' } });
    assert.ok(runEcho, 'kickoff of the echoing crew started a run');
    runIds.push(runEcho);
    await waitForRunState(api, runEcho, (r) => r.state === 'succeeded', 'the echoing crew\'s run succeeded');
    await executeCommand('crewRuns.openRun', { runId: runEcho });
    await waitFor(() => api.panels.inspect(runEcho)?.pageReport?.hasFinalOutput, { message: 'the run view of the echoing crew rendered', ...SLOW });
    assert.match(JSON.stringify([api.runs.get(runEcho), await api.runs.readDetails(runEcho)]), /Bearer \*\*\*/, 'the echoed token was seen and redacted (positive control)');

    // 4. Errors: 401 with a wrong canary-like token, 422 (missing input), a network failure.
    assert.strictEqual(await dismissing(spy, () => executeCommand('crewRuns.checkConnection', sim.crewUrl('sec-wrong')), /Sec Wrong rejected the token \(401\)/), false);
    assert.strictEqual(await dismissing(spy, () => kickOffWithoutReview({ crew: sim.crewUrl('sec-wrong'), inputs: { topic: 't', audience: 'a' } }), /Sec Wrong rejected the token/), undefined);
    assert.strictEqual(await dismissing(spy, () => kickOffWithoutReview({ crew: urlA, inputs: { topic: 'only topic' } }), /Sec A needs these inputs: audience/), undefined);
    assert.strictEqual(await dismissing(spy, () => executeCommand('crewRuns.checkConnection', deadUrl), /Could not reach Sec Dead/), false);
    assert.ok(sim.requestLog.entries.some((e) => e.crewId === 'sec-wrong' && e.status === 401 && e.tokenKind === 'invalid'), 'the wrong token really was sent to its own crew');

    // 5. Outputs: copy, save as Markdown and JSON, open as documents; the run view.
    await vscode.env.clipboard.writeText('');
    assert.strictEqual(await executeCommand('crewRuns.copyOutput', { runId: runA }), true);
    const clipboard = await vscode.env.clipboard.readText();
    assert.ok(clipboard.length > 100, 'the output was copied');
    for (const [runId, name] of [[runA, 'a.md'], [runA, 'a.json'], [runB, 'b.md'], [runB, 'b.json']]) {
      const target = vscode.Uri.file(path.join(exportDir, name));
      const dialog = answerSaveDialog(target);
      try {
        await executeCommand('crewRuns.saveOutputAs', { runId });
      } finally {
        dialog.dispose();
      }
      assert.strictEqual(dialog.calls, 1);
      assert.ok(fs.existsSync(target.fsPath), `${name} was saved`);
      exported.push(target.fsPath);
    }
    assert.match(fs.readFileSync(path.join(exportDir, 'a.json'), 'utf8'), /"crewUrl"/, 'the JSON export names the crew (by URL, not token)');
    const documents: string[] = [];
    const inspections = [];
    let frames = '';
    for (const runId of [runA, runB, runEcho]) {
      await executeCommand('crewRuns.openOutputInEditor', { runId });
      await executeCommand('crewRuns.openTaskOutput', { runId, index: 0 });
      await executeCommand('crewRuns.openRun', { runId });
      // One panel at a time: a panel hidden before its page loaded would never report.
      await waitFor(() => api.panels.inspect(runId)?.pageReport?.hasFinalOutput, { message: `the run view of ${runId} rendered`, ...SLOW });
      const inspection = api.panels.inspect(runId);
      assert.ok(inspection, 'the run view is open');
      assert.match(inspection.html, /default-src 'none'/);
      assert.match(inspection.html, /script-src 'nonce-[0-9a-f]{32}'/);
      assert.match(inspection.html, /base-uri 'none'; form-action 'none'/);
      assert.doesNotMatch(inspection.html, /unsafe-inline|unsafe-eval/);
      inspections.push(inspection);
      if (ui.available()) {
        frames += (await ui.frameText('canary', { timeoutMs: 10_000 }).catch(() => ({ text: '' }))).text;
      }
    }
    documents.push(...vscode.workspace.textDocuments.filter((d) => d.uri.scheme === 'crew-run' || d.uri.scheme === 'crew-review').map((d) => d.getText()));
    documents.push(reviewDoc.getText());
    assert.ok(!ui.available() || frames.includes('canary'), 'the run view page text was read');

    // 6. Scan every surface.
    await api.runs.flush();
    const logText = await readLog();
    assert.match(logText, /Sec A/, 'the log was read');
    const center = ui.available() ? await notificationCenterText() : '';
    const userData = userDataDir();
    const fileSurfaces: Record<string, string[]> = {
      'extension global storage': filesUnder(api.globalStorageUri.fsPath),
      'exported outputs': exported,
    };
    if (userData) {
      const all = filesUnder(userData);
      fileSurfaces['user settings'] = all.filter((f) => f === path.join(userData, 'User', 'settings.json'));
      fileSurfaces['global state (state.vscdb)'] = all.filter((f) => f.startsWith(path.join(userData, 'User', 'globalStorage')) && /state\.vscdb/.test(f));
      fileSurfaces['workspace state'] = all.filter((f) => f.startsWith(path.join(userData, 'User', 'workspaceStorage')));
      if (fileSurfaces['global state (state.vscdb)'].length === 0) {
        // The web workbench keeps global and workspace state in the browser's IndexedDB, not on the
        // server's disk; the extension's own state is read back through its readers below instead.
        console.log('      (no state.vscdb on disk: this web workbench keeps state in the browser; scanned through the extension\'s readers)');
      }
      fileSurfaces['log files'] = all.filter((f) => f.startsWith(path.join(userData, 'logs')));
      fileSurfaces['everything else under the user-data dir'] = all.filter((f) => !Object.values(fileSurfaces).flat().includes(f));
      assert.strictEqual(fileSurfaces['user settings'].length, 1, 'the user settings file exists');
      assert.ok(fileSurfaces['log files'].some((f) => f.endsWith('Crew Runs.log')), 'the channel log file is among the scanned logs');
    } else {
      console.log('      (CREW_RUNS_TEST_LOGS_DIR not set: user-data files not scanned)');
    }
    const workspaceSettings = workspaceSettingsFile();
    if (workspaceSettings && fs.existsSync(workspaceSettings)) {
      fileSurfaces['workspace settings'] = [workspaceSettings];
    }
    const texts: Record<string, string> = {
      'output channel': logText,
      'webview HTML': inspections.map((i) => i?.html ?? '').join('\n'),
      'webview messages': webviews.text(),
      'webview page text': frames,
      clipboard,
      'output documents': documents.join('\n'),
      'notifications (calls)': spy.text(),
      'notification center': center,
      'run records': JSON.stringify(api.runs.list()),
      'run details': JSON.stringify(await Promise.all(api.runs.list().map((r) => api.runs.readDetails(r.id)))),
      'remembered inputs (global state)': JSON.stringify(api.crews.list().map((c) => [api.presets.lastUsed(c.url), api.presets.presets(c.url)])),
      'crews in the tree': JSON.stringify(await Promise.all((await api.tree.getChildren()).map((n) => api.tree.getTreeItem(n)))),
    };
    assert.ok(webviews.messages.length > 0, 'the webview messages were captured');
    assert.ok(spy.shown.length >= 5, `notifications were captured (${spy.shown.length})`);
    const result = scanSurfaces(ALL_CANARIES, fileSurfaces, texts);
    console.log(`      scanned: ${Object.entries(result.surfaces).map(([k, v]) => `${k} ${v}`).join('; ')}`);
    assert.deepStrictEqual(result.hits, [], 'no surface holds a canary token');
    // Positive control: the scan would have found a token where one is (the simulator did receive them).
    assert.ok(sim.requestLog.entries.some((e) => e.crewId === 'sec-a' && e.tokenKind === 'org'));
    assert.ok(sim.requestLog.entries.some((e) => e.crewId === 'sec-echo' && e.endpoint === 'status' && e.status === 200 && e.tokenKind === 'org'), 'the echoing crew answered status with the token');
    assert.ok(sim.requestLog.entries.some((e) => e.crewId === 'sec-b' && e.endpoint === 'resume' && e.tokenKind === 'org'), 'the resume carried the token to its crew');
  });

  it('a crew that redirects to another origin never gets its token sent there', async () => {
    const url = sim.crewUrl('sec-redirect');
    await addCrewWithToken({ url, name: 'Sec Redirect', token: CANARY_REDIRECT });
    const before = spy.shown.length;
    assert.strictEqual(await dismissing(spy, () => executeCommand('crewRuns.checkConnection', url), /answered with a redirect to http:\/\/127\.0\.0\.1:\d+\. Redirects are not followed/), false);
    assert.strictEqual(await dismissing(spy, () => kickOffWithoutReview({ crew: url, inputs: { topic: 't', audience: 'a' } }), /redirect/), undefined);
    const redirects = sim.requestLog.entries.filter((e) => e.crewId === 'sec-redirect');
    assert.ok(redirects.length >= 2 && redirects.every((e) => e.fault === 'redirect' && e.status === 302), `the crew answered with redirects (${JSON.stringify(redirects.map((e) => [e.endpoint, e.status, e.fault]))})`);
    assert.deepStrictEqual(recorder.requests, [], 'the redirect target received no request at all');
    assert.ok(!spy.shown.slice(before).some((m) => m.message.includes(CANARY_REDIRECT)));
    assert.strictEqual(await api.crews.hasToken(url), true);
  });

  it('a workspace crew named like a user crew, at another URL, never receives a token (check, kickoff, status)', async function () {
    const userUrl = sim.crewUrl('sec-lookalike');
    await addCrewWithToken({ url: userUrl, name: 'Shared Name', token: CANARY_SHARED });
    const lookalikeUrl = `${recorder.url}/lookalike`;
    const settingsFile = workspaceSettingsFile();
    if (vscode.workspace.isTrusted) {
      await vscode.workspace.getConfiguration().update(SETTING, [{ name: 'Shared Name', url: lookalikeUrl }], vscode.ConfigurationTarget.Workspace);
    } else {
      // A restricted setting in an untrusted window: written as a cloned repository would bring it.
      assert.ok(settingsFile && !fs.existsSync(settingsFile), 'no workspace settings file yet');
      fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
      fs.writeFileSync(settingsFile, JSON.stringify({ [SETTING]: [{ name: 'Shared Name', url: lookalikeUrl }] }, null, 2));
    }
    try {
      if (!vscode.workspace.isTrusted) {
        // Untrusted: the workspace crew is not even listed.
        await waitFor(() => api.crews.hiddenWorkspaceCrewCount > 0, { message: 'the workspace crew counted as hidden', ...SLOW });
        assert.strictEqual(api.crews.get(lookalikeUrl), undefined);
      } else {
        await waitFor(() => api.crews.get(lookalikeUrl), { message: 'the workspace crew listed', ...SLOW });
        assert.deepStrictEqual(api.crews.list().filter((c) => c.name === 'Shared Name').map((c) => [c.url, c.source]), [
          [userUrl, 'user'],
          [lookalikeUrl, 'workspace'],
        ]);
      }
      assert.strictEqual(await api.crews.hasToken(lookalikeUrl), false, 'the lookalike has no token');

      if (api.crews.get(lookalikeUrl)) {
        assert.strictEqual(await dismissing(spy, () => executeCommand('crewRuns.checkConnection', lookalikeUrl), /Shared Name has no token yet/), false);
        assert.strictEqual(await dismissing(spy, () => kickOffWithoutReview({ crew: lookalikeUrl, inputs: { topic: 't', audience: 'a' } }), /Shared Name has no token yet/), undefined);
      } else {
        // Not listed: the argument names no crew; check falls back to a quick pick of the real crews.
        const check = executeCommand('crewRuns.checkConnection', lookalikeUrl);
        await new Promise((resolve) => setTimeout(resolve, 1000));
        await executeCommand('workbench.action.closeQuickOpen');
        await check;
        assert.strictEqual(await kickOffWithoutReview({ crew: lookalikeUrl, inputs: { topic: 't', audience: 'a' } }), undefined);
      }

      // Status: a run on the lookalike URL (as if tracked there) is polled without a token, never with the user crew's.
      const run = await api.runs.add({ crewUrl: lookalikeUrl, crewName: 'Shared Name', kickoffId: 'tracked-on-lookalike', inputs: {} });
      runIds.push(run.id);
      api.poller.watch(run.id);
      await waitFor(() => {
        const r = api.runs.get(run.id);
        return r && (r.warning || !r.watching || r.state !== 'queued') ? r : undefined;
      }, { message: 'the poller to try the lookalike run', ...SLOW }).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      await api.poller.stopWatching(run.id);

      assert.deepStrictEqual(recorder.requests.filter((r) => r.hasAuthorization), [], 'no request to the lookalike carried an Authorization header');
      assert.deepStrictEqual(recorder.requests, [], 'nothing was sent to the lookalike at all');
      // The user crew of the same name still works with its own token.
      assert.strictEqual(await executeCommand('crewRuns.checkConnection', userUrl), true);
    } finally {
      if (vscode.workspace.isTrusted) {
        await vscode.workspace.getConfiguration().update(SETTING, undefined, vscode.ConfigurationTarget.Workspace);
      } else if (settingsFile) {
        fs.rmSync(settingsFile, { force: true });
      }
      removeEmptyWorkspaceSettings();
    }
  });

  it('in an untrusted window, workspace crews are hidden and cannot be used', async function () {
    if (vscode.workspace.isTrusted) {
      console.log('      skipped: this window is trusted. Needs a runner session with "security.workspace.trust.enabled": true and the fixture folder NOT trusted (e.g. an env var such as CREW_RUNS_TEST_UNTRUSTED=1 that flips the runner\'s settings and skips trusting the folder).');
      this.skip();
    }
    const lookalikeUrl = `${recorder.url}/untrusted`;
    const file = workspaceSettingsFile();
    assert.ok(file, 'a workspace folder is open');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify({ [SETTING]: [{ name: 'Sec A', url: lookalikeUrl }] }, null, 2));
    try {
      await waitFor(() => api.crews.hiddenWorkspaceCrewCount === 1, { message: 'one hidden workspace crew', ...SLOW });
      assert.ok(!api.crews.list().some((c) => c.source === 'workspace'), 'no workspace crew is listed');
      assert.strictEqual(await kickOffWithoutReview({ crew: lookalikeUrl, inputs: { topic: 't', audience: 'a' } }), undefined);
      assert.deepStrictEqual(recorder.requests.filter((r) => r.path.startsWith('/untrusted')), []);
    } finally {
      fs.rmSync(file, { force: true });
      removeEmptyWorkspaceSettings();
    }
  });

  it('in an untrusted window, a workspace suite is listed but never run: each case skipped, saying why, nothing sent (#50)', async function () {
    if (vscode.workspace.isTrusted) {
      console.log('      skipped: this window is trusted (the untrusted session runs it).');
      this.skip();
    }
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    assert.ok(root, 'a workspace folder is open');
    const file = path.join(root, 'untrusted.crew-suite.yaml');
    fs.writeFileSync(file, `name: Untrusted\ncrew: ${recorder.url}/suite\ncases:\n  - name: one\n    inputs: { topic: t }\n  - name: two\n    inputs: { topic: u }\n`);
    try {
      const suites = await api.suites();
      const key = vscode.Uri.file(file).toString();
      await waitFor(async () => (await suites.items()).find((item) => item.id === key)?.children.length === 2, { message: 'the suite is listed', ...SLOW });
      const from = suites.results().length;
      await suites.run([[key]]);
      const results = suites.results().slice(from);
      assert.deepStrictEqual(results.map((r) => [r.path.at(-1), r.state]), [['one', 'skipped'], ['two', 'skipped']]);
      assert.ok(results.every((r) => /Suites run only in a trusted workspace/.test(r.output[0])), JSON.stringify(results));
      assert.deepStrictEqual(recorder.requests.filter((r) => r.path.startsWith('/suite')), []);
    } finally {
      fs.rmSync(file, { force: true });
      await executeCommand('notifications.clearAll');
    }
  });

  it('a workspace with hostile crewRuns.* numbers changes neither the history nor the polling pace', async () => {
    const url = sim.crewUrl('sec-history');
    await addCrewWithToken({ url, name: 'Sec History', token: CANARY_HISTORY });
    for (const topic of ['one', 'two', 'three']) {
      const runId = await kickOffWithoutReview<string>({ crew: url, inputs: { topic, audience: 'a' } });
      assert.ok(runId, `kickoff ${topic}`);
      runIds.push(runId);
      await waitForRunState(api, runId, (r) => r.state === 'succeeded', `run ${topic} succeeded`);
    }
    const history = api.runs.list(url).map((r) => r.id).sort();
    const capBefore = api.runs.maxRunsPerCrew;
    assert.ok(history.length >= 3 && capBefore >= 3, `three finished runs kept (cap ${capBefore})`);
    // Every crewRuns.* setting is restricted or user-only; editor.tabSize is neither, so VS Code shows its workspace
    // value even to an untrusted window: once it does, the whole file was taken in.
    const hostile = { 'editor.tabSize': 7, 'crewRuns.notifications': 'off', 'crewRuns.maxRunsPerCrew': 1, 'crewRuns.pollMaxIntervalSeconds': 0, 'crewRuns.pollUnfocusedFactor': 0, 'crewRuns.watchDeadlineHours': 0, 'crewRuns.requestTimeoutSeconds': 0 };
    const file = workspaceSettingsFile();
    assert.ok(file && !fs.existsSync(file), 'a workspace folder without settings');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // Written as a cloned repository would bring it (in an untrusted window the API may not write it).
    fs.writeFileSync(file, JSON.stringify(hostile, null, 2));
    try {
      // VS Code fires the change to the extension as it takes the new values in: once they are visible, it was handled.
      await waitFor(() => vscode.workspace.getConfiguration('editor').inspect('tabSize')?.workspaceValue === 7, { message: 'the workspace settings read by VS Code', ...SLOW });
      assert.strictEqual(api.runs.maxRunsPerCrew, capBefore, 'the history cap is the user\'s');
      await api.runs.flush();
      assert.deepStrictEqual(api.runs.list(url).map((r) => r.id).sort(), history, 'no run was deleted from the history');
      const applied = api.settings();
      assert.strictEqual(applied.maxRunsPerCrew, capBefore);
      if (!vscode.workspace.isTrusted) {
        const user = (key: string) => vscode.workspace.getConfiguration('crewRuns').inspect(key)?.globalValue;
        assert.strictEqual(applied.pollMaxIntervalSeconds, user('pollMaxIntervalSeconds') ?? 15, 'an untrusted workspace does not set the polling pace');
        assert.strictEqual(applied.pollUnfocusedFactor, user('pollUnfocusedFactor') ?? 2);
        assert.strictEqual(applied.requestTimeoutSeconds, user('requestTimeoutSeconds') ?? 60);
        assert.strictEqual(applied.watchDeadlineHours, user('watchDeadlineHours') ?? 24);
        assert.strictEqual(vscode.workspace.getConfiguration('crewRuns').get('notifications'), user('notifications') ?? 'all', 'an untrusted workspace does not silence the notifications');
      } else {
        // A trusted workspace may set them, within range: never a poll loop without a pause.
        assert.deepStrictEqual([applied.pollMaxIntervalSeconds, applied.pollUnfocusedFactor, applied.requestTimeoutSeconds, applied.watchDeadlineHours], [2, 1, 5, 0.1]);
      }
    } finally {
      fs.rmSync(file, { force: true });
      removeEmptyWorkspaceSettings();
      // The next suite starts once VS Code has taken the removal in (it was still busy with it when the next
      // suite's first quick input opened, and that input never got the keyboard focus).
      await waitFor(() => (vscode.workspace.getConfiguration('editor').inspect('tabSize')?.workspaceValue === undefined ? true : undefined), {
        message: 'the workspace settings gone from VS Code',
        ...SLOW,
      });
    }
  });
});
