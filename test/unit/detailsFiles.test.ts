import * as assert from 'node:assert/strict';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { DetailsFiles } from '../../src/runTracking/detailsFiles';
import type { RunDetails } from '../../src/runTracking/model';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe('DetailsFiles', () => {
  let dir: string;
  beforeEach(async () => (dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crew-details-'))));
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  const details = (text: string): RunDetails => ({
    inputs: { topic: 'llamas' },
    tasks: [{ name: 'research', output: text }],
    history: [{ state: 'running', at: 1 }],
    finalOutput: { kind: 'markdown', text },
    feedbackRounds: [],
  });

  /** Written by one instance (another window), read by a fresh one: its first read comes from the file. */
  async function fromDisk(value: RunDetails): Promise<DetailsFiles> {
    await new DetailsFiles(dir, quiet).write('run-1', value);
    const files = new DetailsFiles(dir, quiet);
    await files.init();
    return files;
  }

  it('a read from the file compares equal to what the file holds, and differs once changed', async () => {
    const files = await fromDisk(details('# Report'));
    const read = await files.read('run-1');
    assert.deepEqual(read, details('# Report'));
    assert.equal(files.compare('run-1', read).differs, false);
    read.tasks.push({ name: 'writing', output: 'more' });
    assert.equal(files.compare('run-1', read).differs, true);
    assert.equal(files.compare('run-1', details('# Report')).differs, false, 'still what the file holds');
  });

  it('every read is a copy the caller may change, before and after a compare', async () => {
    const files = await fromDisk(details('# Report'));
    const first = await files.read('run-1');
    first.finalOutput!.text = 'changed by a caller';
    const second = await files.read('run-1');
    assert.equal(second.finalOutput?.text, '# Report');
    files.compare('run-1', second);
    second.tasks.length = 0;
    assert.deepEqual(await files.read('run-1'), details('# Report'));
  });

  it('a file that is not JSON reads as empty details, and anything written then differs', async () => {
    await fs.writeFile(path.join(dir, 'run-1.json'), '{"version":1,"ta');
    const files = new DetailsFiles(dir, quiet);
    const read = await files.read('run-1');
    assert.deepEqual(read, { tasks: [], history: [], feedbackRounds: [] });
    assert.equal(files.compare('run-1', read).differs, false);
    assert.equal(files.compare('run-1', details('x')).differs, true);
  });
});
