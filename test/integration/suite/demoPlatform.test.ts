// Issue #51 "The demo's platform": `npm run demo` as its user tries the platform part, in the demo's own server
// configuration (a demo window: no test runs there, it is driven from outside with keys, as firstImpressionsDemo
// does). The demo signs nothing in by itself; Sign In offers the demo's platform; its notice offers Import Crews…
// next; the demo's platform lists a deployment that is not a crew yet, imported under a readable name; and the
// sign-in survives a reload of the window (it did not: the demo's VS Code server kept no secret over a reload).
import * as assert from 'assert';
import { demoCrews } from '../../../src/simulator/server';
import { selectors, ui, waitFor } from '../helpers';
import type { QuickInputGuard } from '../helpers/uiBridgeProtocol';

/** The demo crews the demo adds; its platform also lists one deployment that is none of them. */
const DEMO_CREWS = demoCrews().length;

const DEMO = 'demo-platform';
const SLOW_MS = 60_000;

function demoToast(contains: string): Promise<string> {
  return ui.text(`${selectors.notifications} .notification-toast:visible:has-text(${JSON.stringify(contains)})`, { window: DEMO, timeoutMs: SLOW_MS });
}

function demoQuickInput(contains: string, activeItem?: string): QuickInputGuard {
  return { contains, activeItem, timeoutMs: SLOW_MS };
}

/** The demo's open quick input once it shows `contains`. */
function demoQuickInputText(contains: string): Promise<string> {
  return ui.text(`${selectors.openQuickInput}:has-text(${JSON.stringify(contains)})`, { window: DEMO, timeoutMs: SLOW_MS });
}

/** A command from the demo's palette, as a user runs it (F1 again while a window just loaded drops the key). */
async function demoCommand(title: string): Promise<void> {
  let lastProblem = '';
  await waitFor(
    async () => {
      await ui.press('F1', { window: DEMO });
      return ui.text(selectors.openQuickInput, { window: DEMO, timeoutMs: 5_000 }).then(
        () => true,
        (error: Error) => ((lastProblem = error.message), false),
      );
    },
    { message: () => `the command palette opening on F1 (${lastProblem})`, timeoutMs: SLOW_MS },
  );
  await ui.type(title, { window: DEMO, enter: true, quickInput: { ...demoQuickInput(''), activeItem: title } });
}

/** The crews view's row that names `name`, as drawn. */
function demoCrewRow(name: string): Promise<string> {
  return ui.text(`${selectors.sideBar} .monaco-list-row:has-text(${JSON.stringify(name)})`, { window: DEMO, timeoutMs: SLOW_MS });
}

/** Waits until the description of `name`'s row (what follows its name) is what `wanted` accepts; on failure says what it showed, with a picture. */
async function waitForDemoCrewRow(name: string, wanted: (description: string) => boolean, message: string): Promise<void> {
  let row = '';
  await waitFor(async () => wanted((row = await demoCrewRow(name)).slice(row.indexOf(name) + name.length)), { message, timeoutMs: SLOW_MS }).catch(async (error: Error) => {
    const shot = await ui.screenshot('failed-demo-platform-row', { window: DEMO }).then((s) => s.path, () => '(no screenshot)');
    assert.fail(`${error.message}; the row showed ${JSON.stringify(row)}; screenshot ${shot}`);
  });
}

describe('The demo’s platform (npm run demo)', function () {
  this.timeout(240_000);
  // Each test goes on from where the one before left off.
  let broken: string | undefined;

  before(async function () {
    if (!ui.available()) {
      this.skip(); // Needs the browser runner, which starts the demo's own server.
    }
    await ui.demo('open', DEMO, { timeoutMs: SLOW_MS });
    // The demo crews (and their platform) are up: their hello is atop the Crew Runs view.
    await ui.text(`${selectors.sideBar}:has-text("Kick one off to see a run")`, { window: DEMO, timeoutMs: SLOW_MS });
  });

  beforeEach(function () {
    if (broken) {
      console.log(`      skipped: "${broken}" failed before it`);
      this.skip();
    }
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed') {
      broken = this.currentTest.title;
    }
  });

  after(async () => {
    if (ui.available()) {
      await ui.demo('close', DEMO).catch(() => undefined);
    }
  });

  it('Sign In offers the demo’s platform (nothing is signed in by itself), and its notice offers Import Crews… next', async () => {
    await demoCommand('Crew Runs: Sign In to CrewAI Platform…');
    const offer = await demoQuickInputText('The demo’s platform');
    assert.match(offer, /Paste a personal access token/, `the usual way stays offered: ${offer}`);
    const shot = await ui.screenshot('demo-platform-sign-in', { window: DEMO });
    console.log(`      screenshot: ${shot.path}`);
    await ui.press('Enter', { window: DEMO, quickInput: demoQuickInput('The demo’s platform', 'The demo’s platform') });
    const toast = await demoToast('Signed in to');
    assert.match(toast, /Signed in to http:\/\/127\.0\.0\.[12]:\d+ \(Demo organization\)\./, toast);
    assert.match(toast, /Import Crews…/, `the notice offers the next step: ${toast}`);
  });

  it('Import Crews… from that notice lists the demo’s deployments: the demo crews marked, one not a crew yet, chosen', async () => {
    await ui.click(`${selectors.notifications} .notification-toast:has-text("Signed in to") .monaco-button:has-text("Import Crews…")`, { window: DEMO, timeoutMs: SLOW_MS });
    const picker = await demoQuickInputText('Import Crews from Demo organization');
    assert.match(picker, new RegExp(`${DEMO_CREWS + 1} Results[\\s\\S]*1 Selected`), picker);
    assert.strictEqual((picker.match(/imported · Crew is online/g) ?? []).length, DEMO_CREWS, `the demo crews are marked imported, the status in sentence case: ${picker}`);
    assert.match(picker, /Inbox Triage Crew\s*Crew is online/, `the deployment not yet a crew, under a readable name: ${picker}`);
    const shot = await ui.screenshot('demo-platform-import', { window: DEMO });
    console.log(`      screenshot: ${shot.path}`);
    await ui.press('Enter', { window: DEMO, quickInput: demoQuickInput('Import Crews from Demo organization') });
    await demoToast('Imported 1 crew: Inbox Triage Crew.');
    // With its deployment health, as every imported crew.
    await waitForDemoCrewRow('Inbox Triage Crew', (row) => /\bonline\b/.test(row), 'the imported crew shown online');
  });

  it('the sign-in survives a reload of the window: Import Crews… says all of its deployments are already your crews', async () => {
    await ui.demo('reload', DEMO, { timeoutMs: SLOW_MS });
    await demoCrewRow('Inbox Triage Crew');
    await demoCommand('Crew Runs: Import Crews…');
    await demoToast(`All ${DEMO_CREWS + 1} deployments are already your crews.`).catch(async (error: Error) => {
      const shown = await ui.textIfPresent(selectors.openQuickInput, { window: DEMO });
      const shot = await ui.screenshot('failed-demo-platform-after-reload', { window: DEMO }).then((s) => s.path, () => '(no screenshot)');
      assert.fail(`${error.message}; the quick input showed ${JSON.stringify(shown?.slice(0, 300))}; screenshot ${shot}`);
    });
    // The imported crew works again: the demo gave it this server's token, as it gives the demo crews theirs.
    await waitForDemoCrewRow('Inbox Triage Crew', (row) => /\bonline\b/.test(row) && !/token missing|token rejected/.test(row), 'the imported crew shown online with its token after the reload');
  });
});
