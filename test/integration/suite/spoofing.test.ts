// Issue 14, finding 1 — a crew's words never become a command link, an icon or a bidi trick in VS Code's own UI.
// A crew whose /inputs names, failure message and run label carry `[Open](command:…)`, `$(alert)` and bidi
// controls: every notification, the quick pick of runs and the tree show them as text (read from the real DOM).
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { CrewRunsTestApi } from '../../../src/testApi';
import { demoCrews, startSimulator, type Simulator } from '../../../src/simulator/server';
import { SPOOF_INPUT_NAME } from '../../fixtures/hostileCorpus';
import { addCrewWithToken, executeCommand, getExtensionApi, selectors, showCrewRunsView, ui, waitFor, kickOffWithoutReview } from '../helpers';

type Api = CrewRunsTestApi;

const TOKEN = 'spoofing-crew-token-0001';
const LINK = '[Dashboard](command:workbench.action.quickOpen?%5B%22%3E%22%5D)';
const CREW_NAME = `Spoof ${LINK} $(alert)`;
const RUN_VALUE = `Quarterly ${LINK} $(alert) \u202Ereport\u202C`;
const FAILURE = `ValueError: see ${LINK} $(alert) for details`; // shown in the run's tooltip and view
const SLOW = { timeoutMs: 60_000, intervalMs: 200 } as const;
const WORD_JOINER = /\u2060/g;

/** True when `selector` matches an element of the page as it is now (the bridge reads the real DOM). */
async function present(selector: string): Promise<boolean> {
  return (await ui.textIfPresent(selector)) !== undefined;
}

/** What the reader sees: the DOM's text without the invisible word joiners. */
async function visibleText(selector: string, expected: string): Promise<string> {
  return waitFor(async () => {
    const text = (await ui.text(selector, { timeoutMs: 1000 }).catch(() => '')).replace(WORD_JOINER, '');
    return text.includes(expected) ? text : undefined;
  }, { message: `${selector} showing ${expected}`, ...SLOW });
}

/** Reads the notification center (toasts may hide before they are read), closing it again. */
async function inCenter<T>(read: () => Promise<T>): Promise<T> {
  await executeCommand('notifications.showList');
  try {
    return await read();
  } finally {
    await executeCommand('notifications.hideList');
  }
}

const CENTER = '.notifications-center';

/** The notification center's text once it shows `expected`, and whether any of its messages holds a link or an icon. */
async function notification(expected: string): Promise<{ text: string; link: boolean; icon: boolean }> {
  return waitFor(
    () =>
      inCenter(async () => {
        const text = (await ui.text(CENTER, { timeoutMs: 1000 }).catch(() => '')).replace(WORD_JOINER, '');
        if (!text.includes(expected)) {
          return undefined;
        }
        return { text, link: await present(MESSAGE_LINK), icon: await present(`${CENTER} .notification-list-item-message .codicon-alert`) };
      }),
    { message: `a notification showing ${expected}`, ...SLOW },
  );
}

const MESSAGE_LINK = '.notifications-center .notification-list-item-message a';

describe('Spoofing: a crew\'s words stay text', function () {
  this.timeout(240_000);
  let api: Api;
  let sim: Simulator;
  let crewUrl: string;
  let runId: string | undefined;
  /** A second run, so that Open Run asks which (with one run in the history it opens that one). */
  let otherRunId: string | undefined;

  before(async function () {
    if (!ui.available()) {
      this.skip();
    }
    const exported = await getExtensionApi<Api | undefined>();
    assert.ok(exported?.runs && exported.crews, 'the test API is exported (CREW_RUNS_TEST_HOOKS=1)');
    api = exported;
    const [research] = demoCrews();
    sim = await startSimulator({
      timeScale: 0.05,
      crews: [{ ...structuredClone(research), id: 'spoof', name: 'Spoof', orgToken: TOKEN, inputs: ['topic', SPOOF_INPUT_NAME], scenario: 'fail', failureMessage: FAILURE }],
    });
    crewUrl = sim.crewUrl('spoof');
    await addCrewWithToken({ url: crewUrl, name: CREW_NAME, token: TOKEN });
    await executeCommand('notifications.clearAll');
  });

  afterEach(async () => {
    await ui.press('Escape').catch(() => undefined);
    await executeCommand('notifications.clearAll');
  });

  after(async () => {
    if (api) {
      for (const id of [runId, otherRunId]) {
        if (id) {
          await api.poller.stopWatching(id).catch(() => undefined);
          await api.runs.remove(id).catch(() => undefined);
        }
      }
      if (crewUrl && api.crews.get(crewUrl)) {
        await api.forgetToken(crewUrl);
        const setting = vscode.workspace.getConfiguration().inspect<{ url: string }[]>('crewRuns.crews')?.globalValue ?? [];
        const rest = setting.filter((c) => c.url !== crewUrl);
        await vscode.workspace.getConfiguration().update('crewRuns.crews', rest.length ? rest : undefined, vscode.ConfigurationTarget.Global);
      }
    }
    await sim?.close();
  });

  it('input names from /inputs show as text in the notification: no link element, no icon', async () => {
    assert.strictEqual(await executeCommand('crewRuns.checkConnection', crewUrl), true);
    const { text, link, icon } = await notification('is ready');
    assert.strictEqual(link, false, `the notification message has no link element (${text})`);
    assert.strictEqual(icon, false, 'no $(alert) icon in the notification');
    assert.ok(text.includes('[Open](command:workbench.action.quickOpen'), `the link shows literally: ${text}`);
    assert.ok(text.includes('$(alert)'), `the icon syntax shows literally: ${text}`);
    assert.ok(!/[\u202A-\u202E\u2066-\u2069]/.test(text), 'no bidi control reaches the notification');
  });

  it('a 422 listing the crew\'s input names and a failed run\'s message show as text', async () => {
    // The kickoff leaves out the hostile input: the crew answers 422 naming it.
    const refused = kickOffWithoutReview({ crew: crewUrl, inputs: { topic: RUN_VALUE } });
    const missing = await notification('needs these inputs');
    assert.strictEqual(missing.link, false, `the 422 notification has no link element (${missing.text})`);
    assert.ok(missing.text.includes('[Open](command:'), `the missing input shows literally: ${missing.text}`);
    await executeCommand('notifications.clearAll');
    assert.strictEqual(await refused, undefined, 'no run was started');

    runId = await kickOffWithoutReview<string>({ crew: crewUrl, inputs: { topic: RUN_VALUE, [SPOOF_INPUT_NAME]: 'x' } });
    assert.ok(runId, 'the kickoff started a run');
    // "<label> on <crew> failed: <error>": all three carry the link and the icon.
    const failed = await notification(' failed');
    assert.strictEqual(failed.link, false, `the failure notification has no link element (${failed.text})`);
    assert.strictEqual(failed.icon, false, 'no icon in the failure notification');
    assert.ok(failed.text.includes(LINK), `the failure message shows literally: ${failed.text}`);
  });

  it('the quick pick of runs and the tree show the run label and crew name as text, without icons', async () => {
    assert.ok(runId, 'the previous test started a run');
    // Not left to other suites' runs: alone in its session, this suite's one run would open without a picker.
    otherRunId = await kickOffWithoutReview<string>({ crew: crewUrl, inputs: { topic: 'Another report', [SPOOF_INPUT_NAME]: 'y' } });
    assert.ok(otherRunId, 'a second run started');
    const picking = executeCommand('crewRuns.openRun');
    const picked = await visibleText(selectors.openQuickInput, 'Quarterly');
    assert.ok(picked.includes('$(alert)'), `the label's icon syntax shows literally: ${picked}`);
    assert.ok(!/[\u202A-\u202E]/.test(picked), 'no bidi control in the quick pick');
    assert.strictEqual(await present(`${selectors.openQuickInput} .codicon-alert`), false, 'no $(alert) icon in the quick pick');
    await ui.press('Escape', { quickInput: { contains: 'Quarterly' } });
    await picking;

    await showCrewRunsView();
    await api.treeView.reveal(api.tree.runNode(runId), { select: false, focus: false });
    const tree = await visibleText(selectors.sideBar, 'Quarterly');
    assert.ok(tree.includes(CREW_NAME), `the crew name shows literally: ${tree}`);
    assert.strictEqual(await present(`${selectors.sideBar} .codicon-alert`), false, 'no $(alert) icon in the tree');
  });

  it('every Set Token prompt shows the crew\'s URL and the origin the token goes to (finding 9)', async () => {
    const origin = new URL(crewUrl).origin;
    const setting = executeCommand('crewRuns.setToken', crewUrl);
    const kindStep = await visibleText(selectors.openQuickInput, crewUrl);
    assert.ok(kindStep.includes('Set Token for'), kindStep);
    await ui.press('Enter', { quickInput: { contains: 'Organization Bearer Token' } });
    const tokenStep = await visibleText(selectors.openQuickInput, `sent only to ${origin}`);
    assert.ok(tokenStep.includes(crewUrl), tokenStep);
    await ui.press('Escape', { quickInput: { contains: 'sent only to' } });
    await setting;
    assert.strictEqual(await api.crews.hasToken(crewUrl), true, 'the stored token is kept');
    assert.ok(!sim.requestLog.entries.some((e) => e.crewId === 'spoof' && e.tokenKind === 'invalid'), 'no other token was tried');
  });
});
