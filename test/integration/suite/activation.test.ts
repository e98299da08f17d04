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

  it('starts its core (dist/core.js: runs, views, polling) by itself just after activation', async () => {
    await getExtension().activate();
    const core = fs.realpathSync(path.join(getExtension().extensionPath, 'dist', 'core.js'));
    // It starts in the task after activate() returns (which may be now, if this test activated it).
    await waitFor(() => performance.getEntriesByName(CORE_STARTED_MARK).length > 0, { message: 'the core marking its start' });
    assert.ok(require.cache[core] !== undefined, 'dist/core.js is loaded without any command');
  });

  it('loads the command implementations on the first command, not at activation', async () => {
    await getExtension().activate();
    // The tests run in the extension's own host: its CommonJS modules are in this require.cache.
    const bundle = fs.realpathSync(path.join(getExtension().extensionPath, 'dist', 'commands.js'));
    const loaded = () => require.cache[bundle] !== undefined;
    assert.ok(!loaded(), 'activation did not load dist/commands.js (this suite runs first in its session)');

    await vscode.commands.executeCommand('crewRuns.refresh');
    assert.ok(loaded(), 'the first command loaded dist/commands.js');
    // The real commands took the registrations' place: all still registered, and a second call runs.
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.deepStrictEqual(contributedCommands().filter((command) => !registered.has(command)), []);
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
