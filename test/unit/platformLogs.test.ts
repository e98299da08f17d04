// A long deployment log through the platform client: its end (where a failed build says why) must be read, not
// the reader's first 10,000 entries of it.
import * as assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PlatformClient } from '../../src/platform/platformClient';
import { MAX_LOG_LINES } from '../../src/platform/parse';
import { startSimulator, type Simulator } from '../../src/simulator/server';
import type * as LogsModule from '../../src/platform/deploymentLogs';
import { FakeEventEmitter, fakeVscode, requireFreshWith } from './helpers/fakeVscode';

const ORG = '0b7c2a51-5d1e-4f7a-9c3e-1d2f3a4b5c6d';

/** The log document's text, as Show Deployment Logs opens it, of `uuid` read with `client`. */
async function logDocument(client: PlatformClient, credentials: { baseUrl: string; token: string }, uuid: string): Promise<string> {
  const vscode = { ...fakeVscode, EventEmitter: FakeEventEmitter, workspace: { textDocuments: [] } };
  const [{ DeploymentLogDocuments }] = requireFreshWith([require.resolve('../../src/platform/deploymentLogs')], vscode) as [typeof LogsModule];
  const imported = { uuid, platformUrl: credentials.baseUrl, name: uuid };
  const services = { platform: { imported: { get: () => imported }, account: { current: async () => credentials }, client } };
  const documents = new DeploymentLogDocuments(services as never);
  try {
    return await documents.provideTextDocumentContent({ query: 'crew=x' } as never, { onCancellationRequested: () => ({ dispose: () => undefined }) } as never);
  } finally {
    documents.dispose();
  }
}

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

  it('shows all 50,000 lines in the log document, up to its last, each as one line', async () => {
    const lines = (await logDocument(client, creds(), 'dep-50k')).split('\n');
    assert.equal(lines.pop(), '', 'the text ends with a line break');
    assert.equal(lines.length, MAX_LOG_LINES);
    assert.ok(/^\S+ {2}INFO {3}Step 1: pip install crewai-tools/.test(lines[0]), lines[0]);
    assert.ok(/^\S+ {2}INFO {3}Crew is Online$/.test(lines.at(-1)!), lines.at(-1));
  });

  it('keeps the last 50,000 lines of a longer log and says how many earlier ones it left out', async () => {
    const { lines, dropped, unread } = await client.logs(creds(), 'dep-60k');
    assert.equal(lines.length, MAX_LOG_LINES);
    assert.deepEqual([dropped, unread], [10_000, 0]);
    assert.equal(lines[0].message.startsWith('Step 10001:'), true);
    assert.equal(lines.at(-1)?.message, 'Crew is Online');
  });
});

describe('platform client: a long log of long lines', function () {
  this.timeout(30_000);
  let server: Server;
  let baseUrl: string;
  const client = new PlatformClient();
  /** 50,000 lines of 250 characters: some 14 MB of JSON, more than a reply's JSON may hand the host (8 M characters). */
  const body = JSON.stringify([
    ...Array.from({ length: MAX_LOG_LINES - 1 }, (_, i) => ({ timestamp: '2026-01-02T00:00:00Z', level: 'info', message: `Step ${i + 1}: ${'x'.repeat(240)}` })),
    { timestamp: '2026-01-02T00:00:01Z', level: 'error', message: 'pip install failed: the last line' },
  ]);
  before(async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await client.dispose();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('keeps its end, where the error is, and counts the earlier lines it leaves out', async () => {
    const { lines, dropped } = await client.logs({ baseUrl, token: 'long-lines-token' }, 'dep-long');
    assert.equal(lines.at(-1)?.message, 'pip install failed: the last line');
    assert.equal(lines.at(-1)?.level, 'ERROR');
    assert.equal(lines.length + dropped, MAX_LOG_LINES, 'every line is shown or counted');
    assert.match(lines[0].message, new RegExp(`^Step ${dropped + 1}: x`));
  });

  it('shows its end in the log document, under a line counting the earlier lines', async () => {
    const lines = (await logDocument(client, { baseUrl, token: 'long-lines-token' }, 'dep-long')).split('\n');
    assert.equal(lines.pop(), '');
    const dropped = Number(/^… (\d+) earlier lines not shown$/.exec(lines[0])?.[1]);
    assert.equal(lines.length - 1 + dropped, MAX_LOG_LINES, lines[0]);
    assert.match(lines[1], new RegExp(`^2026-01-02T00:00:00Z  INFO   Step ${dropped + 1}: x`));
    assert.equal(lines.at(-1), '2026-01-02T00:00:01Z  ERROR  pip install failed: the last line');
  });
});
