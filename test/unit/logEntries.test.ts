import * as assert from 'node:assert/strict';
import { extensionProblems } from '../integration/helpers/logEntries';

const MARKS = ['crew-runs.crew-runs', '/dist/extension.js'];

describe('extension host log: problems of the extension', () => {
  it("does not blame the extension for VS Code's own error logged just before it activates (Chaos, CI)", () => {
    const log = [
      "2026-11-23 01:03:02.370 [error] Error: EEXIST: file already exists, open '/tmp/u/User/workspaceStorage/41606495/vscode.lock'",
      "2026-11-23 01:03:02.387 [info] Lock '/tmp/u/User/workspaceStorage/41606495/vscode.lock': Could not acquire lock, checking if the file is stale.",
      "2026-11-23 01:03:02.462 [info] ExtensionService#_doActivateExtension crew-runs.crew-runs, startup: false, activationEvent: 'onView:crewRuns.crews'",
      '2026-11-23 01:03:02.825 [info] Eager extensions activated',
    ].join('\n');
    assert.deepEqual(extensionProblems(log, MARKS), []);
  });

  it('finds an error whose stack runs through the extension, with its whole stack', () => {
    const log = [
      '2026-11-23 01:03:02.462 [info] ExtensionService#_doActivateExtension vscode.git',
      '2026-11-23 01:03:05.001 [error] TypeError: x is undefined',
      '    at poll (/repo/dist/extension.js:1:2345)',
      '    at process.processTicksAndRejections (node:internal/process/task_queues:105:5)',
      '2026-11-23 01:03:05.100 [info] something else',
    ].join('\n');
    const problems = extensionProblems(log, MARKS);
    assert.equal(problems.length, 1);
    assert.equal(problems[0].line, 2);
    assert.match(problems[0].text, /TypeError[\s\S]*dist\/extension\.js/);
  });

  it('finds an unhandled rejection of the extension (VS Code logs its stack as the next entry)', () => {
    const log = [
      '2026-11-23 01:03:05.001 [error] rejected promise not handled within 1 second: Error: boom',
      '2026-11-23 01:03:05.002 [error] stack trace: Error: boom',
      '    at Object.run (/repo/dist/extension.js:1:99)',
      "2026-11-23 01:03:06.000 [error] Activating extension crew-runs.crew-runs failed due to an error:",
    ].join('\n');
    assert.deepEqual(extensionProblems(log, MARKS).map((p) => p.line), [2, 4]);
  });
});
