import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { CORE_STARTED_MARK } from '../../../src/util/marks';
import { EXTENSION_ID, contributedCommands, getExtension, readExtensionHostLog, selectors, showCrewRunsView, ui, waitFor } from '../helpers';

describe('Activation', () => {
  it('is installed and activates without errors', async () => {
    const extension = getExtension();
    const wasActive = extension.isActive;
    const started = performance.now();
    await extension.activate();
    const elapsed = performance.now() - started;
    assert.ok(extension.isActive, 'extension is active');

    // Recorded for the eye, not asserted: timings vary with the machine.
    console.log(
      wasActive
        ? '      activation: already active when the suite started (onStartupFinished)'
        : `      activation: activate() took ${elapsed.toFixed(0)} ms`,
    );

    const hostLog = readExtensionHostLog();
    // The browser runner always provides the logs folder; the desktop route may not.
    assert.ok(hostLog !== undefined || !ui.available(), 'the extension host log is found');
    if (hostLog !== undefined) {
      const failures = hostLog.split('\n').filter((line) => line.includes(`Activating extension '${EXTENSION_ID}' failed`) || line.includes(`Activating extension ${EXTENSION_ID} failed`));
      assert.deepStrictEqual(failures, [], 'no activation errors in the extension host log');
    }
  });

  it('is the packaged extension when the runner installed a .vsix', function () {
    if (process.env.CREW_RUNS_TEST_VSIX_INSTALLED !== '1') {
      this.skip(); // Only in `npm run test:package`.
    }
    const extension = getExtension();
    assert.match(extension.extensionPath, /[/\\]extensions[/\\]crew-runs\.crew-runs-\d/, 'loaded from the extensions folder, not from the source tree');
    assert.ok(!extension.extensionPath.startsWith(process.cwd()), `not the development copy (${extension.extensionPath})`);
  });

  it('registers every command the manifest contributes', async () => {
    // Activation is onStartupFinished, which may not have fired yet when this test runs alone.
    await getExtension().activate();
    const contributed = contributedCommands();
    assert.ok(contributed.length > 0, 'the manifest contributes commands');
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributed.filter((command) => !registered.has(command));
    assert.deepStrictEqual(missing, [], 'contributed commands without a registration');
  });

  it('builds everything inside activate(), and leaves the heavy parts for their first use', async () => {
    await getExtension().activate();
    // The mark is set at the end of activate(): by the time activation resolves, runs, views and commands exist.
    assert.ok(performance.getEntriesByName(CORE_STARTED_MARK).length > 0, 'activate() marked its object graph built');
    // The tests run in the extension's own host: its CommonJS modules are in this require.cache.
    const dist = fs.realpathSync(path.join(getExtension().extensionPath, 'dist'));
    assert.ok(require.cache[path.join(dist, 'extension.js')] !== undefined, 'dist/extension.js is loaded');
    // The simulator is loaded only by the demo, which no suite before this one started.
    assert.ok(require.cache[path.join(dist, 'simulator.js')] === undefined, 'dist/simulator.js waits for the demo');
    // The crew tools and @crews are registered, but what they do loads with the first call (no suite before made one).
    assert.ok(require.cache[path.join(dist, 'chat.js')] === undefined, 'dist/chat.js waits for the first tool call or @crews request');
    await vscode.commands.executeCommand('crewRuns.refresh');
  });

  it('opens the Crew Runs view container and renders it', async function () {
    if (!ui.available()) {
      this.skip(); // Needs the browser runner's page.
    }
    await showCrewRunsView();
    const sideBarText = await waitFor(
      async () => {
        const text = await ui.text(selectors.sideBar);
        return /crews/i.test(text) ? text : undefined;
      },
      { message: "the side bar showing the 'Crews' view" },
    );
    assert.match(sideBarText, /crew runs/i, 'side bar shows the Crew Runs container title');

    const shot = await ui.screenshot('activation-crew-runs-view', { selector: selectors.sideBar });
    console.log(`      screenshot: ${shot.path} (${shot.width}x${shot.height}, ${shot.distinctColours} colours)`);
    assert.ok(shot.distinctColours > 2, `side bar screenshot looks blank (${shot.distinctColours} distinct colours)`);
  });
});
