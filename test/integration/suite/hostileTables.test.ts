// Issue #47 in a real VS Code: Run Batch on an open 19.9 MB CSV of one ""-filled field (2 MB took the host 27 s)
// reads the editor's text, unsaved edit included, in slices (batchHostileTables.test.ts counts them; the bench row
// 7 times them), and a crew declaring 10,000 inputs is read as its first 200, said once.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { Simulator } from '../../../src/simulator/server';
import { startSimulator } from '../../../src/simulator/server';
import { executeCommand, showCrewRunsView, waitFor } from '../helpers';
import { type Api, closeQuickInput, testApi, waitForQuickInput, waitForQuickInputClosed } from './support/kit';
import { addSimulatorCrews, cleanUp, MessageSpy } from './support/monitoring';

const crew = (id: string, name: string, inputs: string[]) => ({
  id,
  name,
  kind: 'crew' as const,
  inputs,
  pendingMs: 200,
  tasks: [{ name: 'task', agent: 'Agent', durationMs: 300, output: 'Done.' }],
});

describe('Hostile tables (#47)', function () {
  this.timeout(180_000);
  let api: Api;
  let sim: Simulator;
  let crews: Record<string, { url: string; name: string }>;
  let dir: string;

  before(async () => {
    api = await testApi();
    sim = await startSimulator({
      timeScale: 1,
      dialect: 'live',
      crews: [crew('plain', 'Plain', ['topic', 'audience']), crew('many', 'Many', Array.from({ length: 10_000 }, (_, i) => `input_${i}`))],
    });
    crews = await addSimulatorCrews(api as never, sim, 'Hostile');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crew-hostile-tables-'));
    await showCrewRunsView();
  });

  after(async () => {
    await closeQuickInput();
    await executeCommand('workbench.action.closeAllEditors');
    await cleanUp(api as never, []);
    await sim?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('Run Batch on an open 19.9 MB CSV of one ""-filled field reads the editor\'s text: the huge row too long, an unsaved row to send', async () => {
    const file = path.join(dir, 'quotes.csv');
    const head = 'topic,audience\n"';
    fs.writeFileSync(file, `${head}${'""'.repeat((19_900_000 - head.length - 20) / 2)}",readers\n`);
    // Open as a document, not in an editor (which asks before showing a file this large in the browser).
    const document = await vscode.workspace.openTextDocument(file);
    // Unsaved: only the open document has this row.
    const edit = new vscode.WorkspaceEdit();
    edit.insert(document.uri, document.positionAt(document.getText().length), 'Edited,readers\n');
    assert.ok(await vscode.workspace.applyEdit(edit));
    assert.ok(document.isDirty);
    executeCommand<string | undefined>('crewRuns.kickOffBatch', { crew: crews.plain.url, file }).then(undefined, () => undefined);
    const text = await waitForQuickInput('Kick Off 1 Row');
    assert.match(text, /1 row skipped/);
    assert.match(text, /Row 1: "topic" is too long/);
    await closeQuickInput();
    await waitForQuickInputClosed();
    assert.strictEqual(sim.requestLog.counts('plain').kickoff, 0, 'nothing sent');
    await document.save();
  });

  it('Run Batch against a crew declaring 10,000 inputs says the first 200 are used, and that no row can be sent without their columns', async () => {
    const file = path.join(dir, 'few.csv');
    fs.writeFileSync(file, 'input_0,input_1\na,b\n');
    const spy = new MessageSpy();
    try {
      executeCommand<string | undefined>('crewRuns.kickOffBatch', { crew: crews.many.url, file }).then(undefined, () => undefined);
      const text = await waitForQuickInput('No row can be sent');
      assert.match(text, /no column for the required inputs input_2, input_3/);
      const notice = `Hostile Many lists 10000 inputs; only the first 200 are asked for and sent.`;
      await waitFor(() => spy.shown.some((m) => m.message === notice), { message: () => `the cap said; shown: ${JSON.stringify(spy.shown.map((m) => m.message))}` });
      await closeQuickInput();
      await waitForQuickInputClosed();
      assert.strictEqual(sim.requestLog.counts('many').kickoff, 0, 'nothing sent');
    } finally {
      spy.dispose();
    }
  });
});
