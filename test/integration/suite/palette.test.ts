// The command palette offers a command that needs a batch (or a run) only once there is one (#52, finding 3):
// "Run Batch" + Enter ran Cancel Batch ("No batches to choose from") while seven batch commands were listed
// before Run Batch from File… with no batch at all.
import * as assert from 'assert';
import { executeCommand, ui } from '../helpers';
import { type Api, closeQuickInput, testApi, typeInQuickInput, waitForQuickInput } from './support/kit';

describe('Palette', function () {
  this.timeout(120_000);
  let api: Api;

  before(async function () {
    if (!ui.available()) {
      this.skip(); // The palette is read from the page.
    }
    api = await testApi();
  });

  afterEach(async () => {
    await closeQuickInput().catch(() => undefined);
  });

  /** The palette's items for `text`, as drawn. */
  async function paletteFor(text: string, showing: string): Promise<string> {
    await executeCommand('workbench.action.showCommands');
    await typeInQuickInput(text, { when: /\d+ Results/ });
    return waitForQuickInput(showing, `the palette listing ${showing} for "${text}"`);
  }

  it('lists the batch commands only once there is a batch: "Run Batch" finds Run Batch from File… first', async () => {
    for (const batch of api.batches.store.list()) {
      await api.batches.store.remove(batch.id);
    }
    let items = await paletteFor('Run Batch', 'Run Batch from File');
    for (const hidden of ['Cancel Batch', 'Resume Batch', 'Open Batch Results', 'Remove Batch', 'Re-run Failed Rows', 'Export Batch Results', 'Compare Batches']) {
      assert.ok(!items.includes(hidden), `no "${hidden}" without a batch: ${JSON.stringify(items.slice(0, 400))}`);
    }
    await closeQuickInput();
    const batch = await api.batches.store.create({
      crewUrl: 'http://127.0.0.1:9',
      crewName: 'Palette crew',
      source: 'palette.jsonl',
      inputNames: ['topic'],
      concurrency: 1,
      rows: [{ index: 0, inputs: { topic: 'x' }, status: 'notSent' as const, note: 'made by the test' }],
    });
    try {
      items = await paletteFor('Batch', 'Remove Batch');
      assert.match(items, /Open Batch Results/, 'with a batch, its commands are offered');
    } finally {
      await closeQuickInput();
      await api.batches.store.remove(batch.id);
    }
  });

  it('lists the run commands once there is a run', async () => {
    const run = await api.runs.add({ crewUrl: 'http://127.0.0.1:9', crewName: 'Palette crew', kickoffId: `k-palette-${Date.now()}`, inputs: { topic: 'palette' } });
    try {
      await api.runs.setWatching(run.id, false, 'user');
      const items = await paletteFor('Show Trace', 'Show Trace');
      assert.match(items, /Show Trace/);
    } finally {
      await closeQuickInput();
      await api.removeRun(run.id);
    }
  });
});
