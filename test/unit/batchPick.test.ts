// #52 (the walkthrough): Open Batch Results from the palette with one batch asked which batch, a picker of one row.
// A batch command given no batch takes the only one there is; each that acts on it (cancel, resume, re-run, remove)
// still says what it will do first.
import * as assert from 'node:assert/strict';
import type * as BatchCommandsModule from '../../src/batches/batchCommands';
import type { Batch } from '../../src/batches/core/model';
import type { BatchStore } from '../../src/batches/core/batchStore';
import { fakeVscode, requireWithFakeVscode } from './helpers/fakeVscode';

function batch(id: string, source: string): Batch {
  return { id, crewUrl: 'https://crew.example', crewName: 'Crew', source, inputNames: ['topic'], concurrency: 1, createdAt: Date.parse('2026-01-01T00:00:00Z'), rows: [] } as unknown as Batch;
}

describe('Picking a batch (#52)', () => {
  const window = fakeVscode.window as Record<string, unknown>;
  const asked: unknown[][] = [];
  before(() => {
    window.showQuickPick = async (items: unknown[]) => {
      asked.push(items);
      return undefined;
    };
  });
  after(() => {
    delete window.showQuickPick;
  });

  it('takes the only batch without a picker; asks when there are two', async () => {
    const { pickBatch } = requireWithFakeVscode<typeof BatchCommandsModule>(require.resolve('../../src/batches/batchCommands'));
    const one = batch('b-1', 'topics.csv');
    const store = (batches: Batch[]) => ({ list: () => batches, get: (id: string) => batches.find((b) => b.id === id) }) as unknown as BatchStore;
    assert.equal(await pickBatch(store([one]), undefined, 'Open which batch?'), one);
    assert.deepEqual(asked, [], 'no picker for a single choice');
    await pickBatch(store([one, batch('b-2', 'more.csv')]), undefined, 'Open which batch?');
    assert.equal(asked.length, 1, 'two batches: the user chooses');
  });
});
