// A long deployment log through the platform client: its end (where a failed build says why) must be read, not
// the reader's first 10,000 entries of it.
import * as assert from 'node:assert/strict';
import { PlatformClient } from '../../src/platform/platformClient';
import { MAX_LOG_LINES } from '../../src/platform/parse';
import { startSimulator, type Simulator } from '../../src/simulator/server';

const ORG = '0b7c2a51-5d1e-4f7a-9c3e-1d2f3a4b5c6d';

describe('platform client: long deployment logs', function () {
  this.timeout(30_000);
  let sim: Simulator;
  const client = new PlatformClient();
  before(async () => {
    sim = await startSimulator({
      crews: [],
      platform: {
        token: 'bench-like-personal-token',
        deployments: [
          { uuid: 'dep-50k', organization: ORG, name: 'Fifty thousand', extraLogLines: MAX_LOG_LINES - 3 },
          { uuid: 'dep-60k', organization: ORG, name: 'Sixty thousand', extraLogLines: MAX_LOG_LINES + 10_000 - 3 },
        ],
      },
    });
  });
  after(async () => {
    await client.dispose();
    await sim?.close();
  });
  const creds = () => ({ baseUrl: sim.origin, token: 'bench-like-personal-token' });

  it('reads all 50,000 lines of a 50,000-line log, up to its last', async () => {
    const { lines, dropped, unread } = await client.logs(creds(), 'dep-50k');
    assert.equal(lines.length, MAX_LOG_LINES);
    assert.deepEqual([dropped, unread], [0, 0]);
    assert.equal(lines[0].message.startsWith('Step 1:'), true);
    assert.equal(lines.at(-1)?.message, 'Crew is Online');
  });

  it('keeps the last 50,000 lines of a longer log and says how many earlier ones it left out', async () => {
    const { lines, dropped, unread } = await client.logs(creds(), 'dep-60k');
    assert.equal(lines.length, MAX_LOG_LINES);
    assert.deepEqual([dropped, unread], [10_000, 0]);
    assert.equal(lines[0].message.startsWith('Step 10001:'), true);
    assert.equal(lines.at(-1)?.message, 'Crew is Online');
  });
});
