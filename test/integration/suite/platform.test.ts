// Issue #37 "Your organization's crews": sign in to the platform with a personal access token, pick the
// organization, import its deployments as crews (one whose token the platform does not give is asked for), kick
// one off, see its deployment health, open its logs, redeploy it and follow that through its phases to online (and
// to failed, with the build log's first error), copy its CI redeploy step (#51);
// signing out removes the personal token only; a workspace setting cannot move the platform URL.
import * as assert from 'assert';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { cliPaths } from '../../../src/platform/cliSignIn';
import { demoCrews, startSimulator, type Simulator } from '../../../src/simulator/server';
import { writeCliSignIn } from '../../fixtures/crewaiCli';
import { executeCommand, kickOffWithoutReview, readLog, selectors, showCrewRunsView, ui, waitFor } from '../helpers';
import {
  acceptNotification,
  answerModal,
  type Api,
  clearNotifications,
  closeQuickInput,
  notificationsText,
  quickInputText,
  crewRow,
  pickInQuickInput,
  pressInQuickInput,
  removeAllCrews,
  removeRunsOf,
  replaceValue,
  settled,
  SLOW,
  testApi,
  typeInQuickInput,
  waitForNotification,
  waitForQuickInput,
} from './support/kit';
import { MessageSpy } from './support/monitoring';

const PAT = 'pat-PLATFORMcanary-5e2f9a7c31';
const ORG_A = '4a1f0e2c-0000-4000-8000-00000000000a';
const ORG_B = '4a1f0e2c-0000-4000-8000-00000000000b';
const URL_SETTING = 'crewRuns.platform.url';

function workspaceSettingsFile(): string | undefined {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  return folder ? path.join(folder, '.vscode', 'settings.json') : undefined;
}

describe('Platform: the organization’s crews', function () {
  this.timeout(180_000);
  // Each test goes on from where the one before left off: after a failure the rest are skipped, and say so.
  // Not mocha's bail(): it skips a suite without a word whenever any earlier test of the whole run failed.
  let broken: string | undefined;
  let api: Api;
  let sim: Simulator;
  const [research, review, flow, , interview] = demoCrews();
  const url = (id: string) => sim.crewUrl(id);
  const orgToken = (id: string) => sim.crews.find((c) => c.id === id)!.orgToken;
  const platformRequests = () => sim.requestLog.entries.filter((e) => e.path.startsWith('/crewai_plus/'));

  before(async function () {
    if (!ui.available()) {
      this.skip(); // Drives quick inputs through the browser runner's page.
    }
    api = await testApi();
    await removeAllCrews(api);
    sim = await startSimulator({
      timeScale: 0.01,
      crews: [research, review, flow, interview],
      platform: {
        token: PAT,
        organizations: [
          { uuid: ORG_A, name: 'Acme Research' },
          { uuid: ORG_B, name: 'Other Org' },
        ],
        // At timeScale 0.01: each redeploy phase lasts 2 s, after 1 s in which the platform still says what it said
        // before (as the real one does just after the request: the follow must not take that for "online").
        phaseMs: 200_000,
        startLagMs: 100_000,
        deployments: [
          { uuid: 'dep-research', organization: ORG_A, crewId: research.id, name: 'Research deployment', shape: 'full', deploymentId: 103671 },
          { uuid: 'dep-review', organization: ORG_A, crewId: review.id, name: 'Review deployment', shape: 'urlOnly', statusWithoutId: true },
          { uuid: 'dep-flow', organization: ORG_A, crewId: flow.id, name: 'Flow deployment', shape: 'full' },
          { uuid: 'dep-elsewhere', organization: ORG_B, crewId: research.id, name: 'Elsewhere deployment', shape: 'full' },
          // Named as the platform names a deployment made from a project folder (#51: imported as "Interview Crew").
          { uuid: 'dep-interview', organization: ORG_B, crewId: interview.id, name: 'interview-crew', shape: 'full' },
          // Its provisioning failed: no URL, and the platform's words say so (#51).
          { uuid: 'dep-broken', organization: ORG_B, name: 'Broken deployment', status: 'Provisioning Failed, try again.' },
        ],
      },
    });
    await vscode.workspace.getConfiguration().update(URL_SETTING, sim.origin, vscode.ConfigurationTarget.Global);
    await waitFor(() => api.platform.baseUrl() === sim.origin, { message: 'the platform URL setting read', ...SLOW });
    await showCrewRunsView();
    await clearNotifications();
  });

  beforeEach(function () {
    if (broken) {
      console.log(`      skipped: "${broken}" failed before it`);
      this.skip();
    }
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') {
      broken = this.currentTest.title;
    }
    await closeQuickInput();
    await clearNotifications();
  });

  after(async () => {
    if (!api) {
      return;
    }
    if (await api.platform.signedIn()) {
      await api.signOut();
    }
    await removeRunsOf(api, sim ? sim.crews.map((c) => c.url) : []);
    await removeAllCrews(api);
    await waitFor(() => api.platform.imported().length === 0, { message: 'the removed crews’ deployments forgotten', ...SLOW });
    await vscode.workspace.getConfiguration().update(URL_SETTING, undefined, vscode.ConfigurationTarget.Global);
    await sim?.close();
  });

  it('Import Crews while signed out asks for the sign-in first; cancelling it leaves everything as it was', async () => {
    const done = executeCommand<number>('crewRuns.platform.importCrews');
    await waitForQuickInput('Sign in to CrewAI');
    await closeQuickInput();
    assert.strictEqual(await done, 0);
    assert.strictEqual(await api.platform.signedIn(), undefined);
    assert.deepStrictEqual(api.crews.list(), []);
    assert.strictEqual(platformRequests().length, 0, 'nothing was sent');
  });

  it('signs in with a personal access token (a wrong one is refused and asked again) and picks the organization', async () => {
    const spy = new MessageSpy();
    const done = executeCommand<boolean>('crewRuns.platform.signIn');
    await waitForQuickInput('Paste a personal access token');
    await typeInQuickInput('not-the-token', { enter: true });
    await waitForNotification('refused this token');
    await acceptNotification('refused this token');
    await waitForQuickInput('Paste a personal access token');
    await typeInQuickInput(PAT, { enter: true });
    const pick = await waitForQuickInput('Type an organization id');
    assert.match(pick, /Acme Research/);
    assert.match(pick, /Other Org/);
    await pressInQuickInput('Enter', { activeItem: 'Acme Research' });
    assert.strictEqual(await done, true);
    spy.dispose();
    assert.deepStrictEqual(await api.platform.signedIn(), { baseUrl: sim.origin, organizationId: ORG_A, organizationName: 'Acme Research' });
    // What comes next is one click away (#51).
    const notice = spy.matching(/^Signed in to /);
    assert.deepStrictEqual(notice.map((m) => [m.message, m.items]), [[`Signed in to ${sim.origin} (Acme Research).`, ['Import Crews…']]]);
    const organizations = platformRequests().filter((e) => e.path.endsWith('/me/organizations'));
    assert.deepStrictEqual(organizations.map((e) => [e.status, e.tokenKind]), [[401, 'invalid'], [200, 'org']], 'the wrong token was refused, the right one accepted');
    const settings = JSON.stringify(vscode.workspace.getConfiguration('crewRuns'));
    assert.ok(!settings.includes(PAT), 'the personal token is in no setting');
  });

  it('imports the organization’s three deployments as crews, asking once for the token the platform does not give', async () => {
    const done = executeCommand<number>('crewRuns.platform.importCrews');
    const pick = await waitForQuickInput('Import Crews from Acme Research');
    for (const name of ['Research deployment', 'Review deployment', 'Flow deployment']) {
      assert.ok(pick.includes(name), `${name} listed`);
    }
    assert.ok(!pick.includes('Elsewhere deployment'), 'another organization’s deployment is not listed');
    await pressInQuickInput('Enter');
    const asked = await waitForQuickInput('does not give the Bearer Token of Review deployment');
    assert.match(asked, /crewai_plus\/deployments\/dep-review/, 'the prompt links the deployment’s dashboard page');
    await typeInQuickInput(orgToken(review.id), { enter: true });
    assert.strictEqual(await settled(done, 'Import Crews to return', SLOW.timeoutMs), 3);
    await waitForNotification('Imported 3 crews');
    // Without asking again: the import saves the crews one by one, and a crew saved while the health refresh
    // that the first one started is running is asked about right after it, not at the next timer.
    await waitFor(() => [research, review, flow].every((c) => api.platform.health(url(c.id))?.state === 'online'), { message: 'the health of every imported crew', ...SLOW });
    const crews = api.crews.list().map((c) => [c.name, c.url]);
    assert.deepStrictEqual(crews, [
      ['Research deployment', url(research.id)],
      ['Review deployment', url(review.id)],
      ['Flow deployment', url(flow.id)],
    ]);
    for (const id of [research.id, review.id, flow.id]) {
      assert.ok(await api.crews.hasToken(url(id)), `${id} has its token`);
    }
    assert.deepStrictEqual(api.platform.imported().map((c) => [c.uuid, c.crewUrl]), [
      ['dep-research', url(research.id)],
      ['dep-review', url(review.id)],
      ['dep-flow', url(flow.id)],
    ]);
    assert.strictEqual(platformRequests().filter((e) => e.path.endsWith('/deploy')).length, 0, 'importing never redeploys');

    // Nothing left to import: said so, without a picker of rows that are all imported already (#51; a picker marks
    // the imported ones among others: the test of organization B below).
    const again = executeCommand<number>('crewRuns.platform.importCrews');
    await waitForNotification('All 3 deployments are already your crews.');
    assert.strictEqual(await settled(again, 'Import Crews to return'), 0);
    assert.strictEqual(await quickInputText(), undefined, 'no picker');
  });

  it('kicks off an imported crew, and the tree shows each imported crew’s deployment health', async () => {
    const runId = await kickOffWithoutReview<string>({ crew: url(research.id), inputs: { topic: 'platform', audience: 'tests' } });
    assert.ok(runId, 'the kickoff was accepted with the imported token');
    await waitFor(() => api.runs.get(runId)?.state === 'succeeded', { message: 'the run to succeed', ...SLOW });
    assert.strictEqual(sim.requestLog.entries.filter((e) => e.crewId === research.id && e.endpoint === 'kickoff')[0]?.tokenKind, 'org', 'sent with the token the platform gave');
    await api.platform.refreshHealth();
    for (const id of [research.id, review.id, flow.id]) {
      const row = await waitFor(async () => {
        const r = await crewRow(api, url(id));
        return r && /\bonline\b/.test(r.description) ? r : undefined;
      }, { message: `${id} shown online`, ...SLOW });
      assert.match(row.contextValue, /\bimported\b.*\bdeployment-online\b/);
    }
    assert.deepStrictEqual(api.platform.health(url(review.id)), { state: 'online', words: 'Crew is Online' });
    if (ui.available()) {
      const shot = await ui.screenshot('platform-crews', { selector: selectors.sideBar });
      console.log(`      screenshot: ${shot.path}`);
    }
  });

  it('opens the deployment logs in a read-only log document', async () => {
    const uri = await executeCommand<string>('crewRuns.platform.showLogs', url(research.id));
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
    assert.ok(doc, 'the log document is open');
    assert.strictEqual(doc.uri.scheme, 'crew-deployment-log', 'served by the extension’s content provider, which VS Code opens read-only');
    assert.match(doc.getText(), /INFO\s+Building image for Research deployment/);
    if (ui.available()) {
      await ui.screenshot('platform-deployment-log');
    }
    assert.ok(!doc.getText().includes(PAT));

    // Filter Deployment Log (the log's title bar): only the lines with the text, under a line that says so; empty: all again.
    const filtered = executeCommand<string>('crewRuns.platform.filterLogs');
    await waitForQuickInput('Filter Deployment Log');
    await typeInQuickInput('image', { enter: true });
    assert.strictEqual(await filtered, 'image');
    await waitFor(() => /^Lines containing “image”: 2 of 3/.test(doc.getText()), { message: () => `the filtered log (it shows ${JSON.stringify(doc.getText())})`, ...SLOW });
    assert.match(doc.getText(), /Building image for Research deployment\n.*Image built; provisioning\n$/);
    assert.doesNotMatch(doc.getText(), /Crew is Online/);
    const cleared = executeCommand<string>('crewRuns.platform.filterLogs');
    await waitForQuickInput('Filter Deployment Log');
    await replaceValue('', { enter: true });
    assert.strictEqual(await cleared, '');
    await waitFor(() => /Crew is Online/.test(doc.getText()) && !/Lines containing/.test(doc.getText()), { message: 'every line again', ...SLOW });
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('redeploys only after the confirmation, follows it through its phases to online; a failing one shows its first log error (#51)', async () => {
    const refused = answerModal(undefined);
    try {
      assert.strictEqual(await executeCommand('crewRuns.platform.redeploy', url(flow.id)), undefined);
    } finally {
      refused.dispose();
    }
    assert.strictEqual(refused.calls.length, 1);
    assert.match(refused.calls[0].message, /Redeploy Flow deployment\?/);
    assert.strictEqual(sim.platform.deploys('dep-flow'), 0, 'nothing sent without the confirmation');

    const confirmed = answerModal('Redeploy');
    try {
      const deploying = executeCommand<string>('crewRuns.platform.redeploy', url(flow.id));
      const row = await waitFor(async () => {
        const r = await crewRow(api, url(flow.id));
        return r && /\bdeploying\b/.test(r.description) ? r : undefined;
      }, { message: 'the flow shown deploying', ...SLOW });
      assert.match(row.contextValue, /deployment-deploying/);
      // The progress: the platform's phase in sentence case and the time since it was sent.
      await waitForNotification(/Redeploying Flow deployment[\s\S]*(Deploy enqueued|Building image) · \ds/);
      if (ui.available()) {
        await executeCommand('notifications.showList');
        const shot = await ui.screenshot('platform-redeploy-progress');
        console.log(`      screenshot: ${shot.path}`);
        await executeCommand('notifications.hideList');
      }
      // A second redeploy while this one builds: said to be under way, not asked, nothing sent.
      assert.strictEqual(await executeCommand('crewRuns.platform.redeploy', url(flow.id)), undefined);
      assert.strictEqual(confirmed.calls.length, 1, 'not asked again');
      await waitForNotification('A redeploy of Flow deployment is already under way');
      assert.strictEqual(await settled(deploying, 'the redeploy followed to its end'), 'online');
    } finally {
      confirmed.dispose();
    }
    assert.strictEqual(sim.platform.deploys('dep-flow'), 1);
    await waitForNotification('Flow deployment is online again.');
    assert.deepStrictEqual(api.platform.health(url(flow.id)), { state: 'online', words: 'Crew is Online' });

    sim.platform.setFailNextDeploy('dep-review', true);
    const failing = answerModal('Redeploy');
    try {
      assert.strictEqual(await executeCommand('crewRuns.platform.redeploy', url(review.id)), 'failed');
    } finally {
      failing.dispose();
    }
    const firstError = 'pip install failed: No matching distribution found for crewai-tools==0.0.0-missing';
    await waitForNotification(`The redeploy of Review deployment failed: Provisioning failed, try again. First error in the build log: ${firstError}`);
    assert.deepStrictEqual(api.platform.health(url(review.id)), { state: 'failed', words: 'Provisioning Failed, try again.', firstError });
    const failedRow = await crewRow(api, url(review.id));
    assert.match(failedRow?.description ?? '', /deploy failed: pip install failed: No matching/, 'the first error next to the crew');
    if (ui.available()) {
      await executeCommand('notifications.showList');
      const shot = await ui.screenshot('platform-redeploy-failed');
      console.log(`      screenshot: ${shot.path}`);
      await executeCommand('notifications.hideList');
    }
    const uri = await executeCommand<string>('crewRuns.platform.showLogs', url(review.id));
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
    assert.match(doc?.getText() ?? '', /ERROR\s+pip install failed/, 'the logs say why');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('copies the CI redeploy step: the numeric id from the status (or asked for), as a GitHub Actions step or a curl line (#51)', async () => {
    const step = executeCommand<string>('crewRuns.platform.copyCiRedeployStep', url(research.id));
    await waitForQuickInput('Copy CI Redeploy Step');
    await pickInQuickInput('GitHub Actions step');
    const yaml = await settled(step, 'the step written');
    assert.strictEqual(await vscode.env.clipboard.readText(), yaml, 'on the clipboard');
    assert.match(yaml, /^- name: "Redeploy Research deployment on CrewAI"$/m);
    assert.match(yaml, /^ {4}CREWAI_PAT: \$\{\{ secrets\.CREWAI_PAT \}\}$/m);
    assert.ok(yaml.includes(`'${sim.origin}/crewai_plus/api/v1/deployments/103671/redeploy'`), yaml);
    assert.ok(!yaml.includes(PAT) && !yaml.includes(orgToken(research.id)), 'no token of the user or the crew');
    const editor = vscode.window.activeTextEditor;
    assert.deepStrictEqual([editor?.document.isUntitled, editor?.document.languageId, editor?.document.getText()], [true, 'yaml', yaml], 'and in an untitled editor');
    await waitForNotification('Create the repository secret CREWAI_PAT holding a personal access token (pat_…)');
    if (ui.available()) {
      await executeCommand('notifications.showList');
      await ui.screenshot('platform-ci-step');
      await executeCommand('notifications.hideList');
    }
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');

    // The review deployment's status names no id: it is asked for, a uuid refused in words.
    const line = executeCommand<string>('crewRuns.platform.copyCiRedeployStep', url(review.id));
    await waitForQuickInput('Deployment id of Review deployment');
    await typeInQuickInput('4a1f0e2c-0000-4000-8000-00000000000a');
    await waitForQuickInput('That is the deployment’s uuid; the deployment API takes its numeric id.');
    await replaceValue('103672', { enter: true });
    await waitForQuickInput('Copy CI Redeploy Step');
    await pickInQuickInput('curl line');
    const curl = await settled(line, 'the curl line written');
    assert.strictEqual(await vscode.env.clipboard.readText(), curl);
    assert.match(curl, new RegExp(`^curl --fail-with-body -sS -X POST -H "Authorization: Bearer \\$CREWAI_PAT" .* '${sim.origin.replace(/[.]/g, '\\.')}/crewai_plus/api/v1/deployments/103672/redeploy'$`, 'm'));
    assert.strictEqual(sim.platform.deploys('dep-review'), 1, 'writing it sent nothing');
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });

  it('says so before kicking off a crew whose deployment failed, and kicks off only when told to', async () => {
    const kickoffs = () => sim.requestLog.entries.filter((e) => e.crewId === review.id && e.endpoint === 'kickoff').length;
    const before = kickoffs();
    const declined = answerModal(undefined);
    try {
      assert.strictEqual(await kickOffWithoutReview({ crew: url(review.id), inputs: { topic: 'gate' } }), undefined);
    } finally {
      declined.dispose();
    }
    assert.strictEqual(declined.calls.length, 1);
    assert.match(declined.calls[0].message, /Review deployment is not online: its deployment says "Provisioning failed, try again\."/, 'the platform’s words, in sentence case (#51)');
    assert.deepStrictEqual(declined.calls[0].items, ['Kick Off Anyway', 'Show Deployment Logs']);
    assert.strictEqual(kickoffs(), before, 'nothing was sent');
    const accepted = answerModal('Kick Off Anyway');
    try {
      assert.ok(await kickOffWithoutReview({ crew: url(review.id), inputs: { topic: 'gate' } }), 'a run started');
    } finally {
      accepted.dispose();
    }
    assert.strictEqual(kickoffs(), before + 1);
    // An online crew is never asked about.
    const online = answerModal(undefined);
    try {
      assert.ok(await kickOffWithoutReview({ crew: url(research.id), inputs: { topic: 'gate', audience: 'tests' } }));
    } finally {
      online.dispose();
    }
    assert.strictEqual(online.calls.length, 0);
  });

  it('signs out after asking: the personal token is gone, the imported crews keep their tokens and still answer', async () => {
    // Any extension or link can run it: it says where it signs out of, and stays signed in without a yes.
    const declined = answerModal(undefined);
    try {
      await executeCommand('crewRuns.platform.signOut');
    } finally {
      declined.dispose();
    }
    assert.deepStrictEqual(declined.calls.map((c) => c.items), [['Sign Out']]);
    assert.ok(declined.calls[0].message.startsWith(`Sign out of CrewAI at ${sim.origin}`), declined.calls[0].message);
    assert.ok(await api.platform.signedIn(), 'still signed in without a yes');
    const confirmed = answerModal('Sign Out');
    try {
      await executeCommand('crewRuns.platform.signOut');
    } finally {
      confirmed.dispose();
    }
    assert.strictEqual(await api.platform.signedIn(), undefined);
    for (const id of [research.id, review.id, flow.id]) {
      assert.strictEqual(await executeCommand('crewRuns.checkConnection', url(id)), true, `${id} still works with its own token`);
    }
    await api.platform.refreshHealth();
    assert.strictEqual(api.platform.health(url(research.id))?.state, 'unknown');
    const log = await readLog();
    assert.match(log, /Imported deployment Research deployment/, 'the log was read');
    assert.ok(!log.includes(PAT), 'the personal token is in no log line');
  });

  it('signs in with a token whose organization list is refused, going on with the organization id typed (#51)', async () => {
    sim.platform.refuseOrganizations(401);
    const before = platformRequests().length;
    try {
      const done = executeCommand<boolean>('crewRuns.platform.signIn');
      await waitForQuickInput('Paste a personal access token');
      await typeInQuickInput(PAT, { enter: true });
      // The token works (the deployments route takes it): only the list was refused, so the id is asked for.
      const asked = await waitForQuickInput('did not list your organizations');
      assert.doesNotMatch(asked, /wrong|expired/, asked);
      await typeInQuickInput(ORG_B, { enter: true });
      assert.strictEqual(await settled(done, 'the sign-in to end'), true);
      assert.deepStrictEqual(await api.platform.signedIn(), { baseUrl: sim.origin, organizationId: ORG_B, organizationName: ORG_B });
      const asks = platformRequests().slice(before).map((e) => [e.path.replace(/^.*\/v1\//, ''), e.status]);
      // The list refused; the deployments route takes the token (so it is not called wrong); then it is checked with the id typed.
      assert.deepStrictEqual(asks.slice(0, 3), [['me/organizations', 401], ['crews', 200], ['crews', 200]], JSON.stringify(asks));
    } finally {
      sim.platform.refuseOrganizations(undefined);
      await api.signOut();
    }
  });

  it('imports a deployment under a readable name; one whose provisioning failed is said to have failed, in the platform’s words (#51)', async () => {
    await api.platform.signInWithToken(PAT, ORG_B, 'Other Org');
    try {
      const done = executeCommand<number>('crewRuns.platform.importCrews');
      const pick = await waitForQuickInput('Import Crews from Other Org');
      assert.match(pick, /Elsewhere deployment\s*imported · Crew is online/, `an imported one is marked, the status in sentence case: ${pick}`);
      assert.match(pick, /Interview Crew/, pick);
      assert.match(pick, /Broken deployment\s*Provisioning failed, try again\./, pick);
      await pressInQuickInput('Enter');
      assert.strictEqual(await settled(done, 'Import Crews to return', SLOW.timeoutMs), 1);
      assert.deepStrictEqual(api.crews.list().filter((c) => c.url === url(interview.id)).map((c) => c.name), ['Interview Crew'], 'named as Add Crew would name it');
      await waitForNotification('Imported 1 of 2 crews. Not imported: Broken deployment (its deployment failed: Provisioning failed, try again.)');
      assert.ok(!(await notificationsText()).includes('no usable https URL'));
    } finally {
      await api.signOut();
    }
  });

  it('signs in with the CrewAI CLI’s sign-in when chosen (its organization, no question), and says when it has expired', async () => {
    const home = process.env.CREW_RUNS_CREWAI_HOME;
    assert.ok(home, 'the runner points the CLI home at a folder of its own');
    const paths = cliPaths();
    const key = crypto.randomBytes(32);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
    writeCliSignIn(paths, key, { access_token: PAT, expiration: tomorrow }, { enterprise_base_url: sim.origin, org_uuid: ORG_A, org_name: 'Acme Research' });
    try {
      // The imported crews' health and an earlier redeploy's follow read their deployments' status in the background.
      const signInRequests = () => platformRequests().filter((e) => !/^\/crewai_plus\/api\/v1\/crews\/[^/]+\/(status|logs\/deployment)$/.test(e.path));
      const before = signInRequests().length;
      const done = executeCommand<boolean>('crewRuns.platform.signIn');
      await waitForQuickInput('Use the CrewAI CLI’s sign-in');
      assert.deepStrictEqual(signInRequests().slice(before).map((e) => e.path), [], 'nothing is read or sent before the user chooses');
      await pickInQuickInput('Use the CrewAI CLI’s sign-in');
      assert.strictEqual(await done, true);
      assert.deepStrictEqual(await api.platform.signedIn(), { baseUrl: sim.origin, organizationId: ORG_A, organizationName: 'Acme Research' }, 'the CLI’s organization, without a question');
      const checks = signInRequests().slice(before).filter((e) => e.path.endsWith('/me/organizations'));
      assert.deepStrictEqual(checks.map((e) => [e.status, e.tokenKind]), [[200, 'org']], 'its token checked once, at its platform');
      assert.ok(!JSON.stringify(vscode.workspace.getConfiguration('crewRuns')).includes(PAT), 'the token is in no setting');
      await api.signOut();

      writeCliSignIn(paths, key, { access_token: PAT, expiration: new Date(Date.now() - 60_000).toISOString() });
      const expired = executeCommand<boolean>('crewRuns.platform.signIn');
      await waitForQuickInput('Use the CrewAI CLI’s sign-in');
      await pickInQuickInput('Use the CrewAI CLI’s sign-in');
      await waitForNotification('sign-in expired');
      assert.ok(!(await expired), 'not signed in');
      assert.strictEqual(await api.platform.signedIn(), undefined);
      assert.ok(!(await readLog()).includes(PAT), 'the CLI’s token is in no log line');
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
      fs.mkdirSync(home, { recursive: true });
    }
  });

  it('a workspace setting cannot change the platform URL', async () => {
    const file = workspaceSettingsFile();
    assert.ok(file && !fs.existsSync(file), 'a workspace folder without settings');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify({ 'editor.tabSize': 7, [URL_SETTING]: 'https://attacker.example.com' }, null, 2));
    try {
      // editor.tabSize is an ordinary setting: once VS Code shows its workspace value, the whole file was read.
      await waitFor(() => vscode.workspace.getConfiguration('editor').inspect('tabSize')?.workspaceValue === 7, { message: 'the workspace settings read by VS Code', ...SLOW });
      assert.strictEqual(api.platform.baseUrl(), sim.origin, 'the user’s platform URL stands');
      assert.strictEqual(vscode.workspace.getConfiguration().get(URL_SETTING), sim.origin, 'VS Code itself ignores the workspace value of a machine setting');
    } finally {
      fs.rmSync(file);
      if (fs.readdirSync(path.dirname(file)).length === 0) {
        fs.rmdirSync(path.dirname(file));
      }
    }
  });
});
