// Item "Platform" (issue #37, Performance) in plain Node against the simulator's platform routes (its own process,
// real HTTP), through the product's PlatformClient and code paths, with the vscode stub where a module needs it:
// - the Import Crews list of 500 deployments: from the reply arriving (the transport's answer) to the quick pick's
//   items (the client's parse + deploymentItems), against JSON.parse of the same body text;
// - a health refresh of 100 imported crews (the real DeploymentHealth) against the simulator's per-token rate
//   limit: the most requests in flight and the 429s, as the simulator counted them, and its duration against the
//   same 100 status requests sent one after another; once more against a platform answering after 1.5 s, where
//   the in-flight cap (not the pace) is what holds;
// - a 50,000-line deployment log: the content provider's text (fetch + parse + format), against JSON.parse of the
//   body text.
// The replies are read on the status reader's thread: the list's (api/jsonBody.ts) hands the host JSON text of the
// value, the log's (api/logBody.ts) the document's text made there, each with at most 64 KB of the body's text. Each
// reference's whole body text is fetched once more beside the measured request, outside its time.
// Prints one JSON line. Alone: npx tsc -p bench && node out-bench/bench/platform.js
import { performance } from 'node:perf_hooks';
import type * as HealthModule from '../src/platform/deploymentHealth';
import type * as ImportModule from '../src/platform/importCommand';
import type * as LogsModule from '../src/platform/deploymentLogs';
import type * as ImportedModule from '../src/platform/importedCrews';
import type { ImportedCrew } from '../src/platform/importedCrews';
import { PlatformClient, type PlatformCredentials } from '../src/platform/platformClient';
import { createTransport } from '../src/api/transport';
import { DEFAULT_NETWORK_SETTINGS, type HttpRequest, type HttpResponse, type Transport } from '../src/api/transportTypes';
import type { PlatformDeploymentConfig } from '../src/simulator/types';
import { crewConfig } from './lib/fixtures';
import { SimProcess } from './lib/simProcess';
import { median, round } from './lib/stats';
import { installVscodeStub } from './lib/vscodeStub';
import { yardstick } from './lib/yardstick';

const PAT = 'bench-platform-token';
const ORG = '0b7c2a51-5d1e-4f7a-9c3e-1d2f3a4b5c6d';

export interface PlatformBenchResult {
  list: { deployments: number; items: number; bodyKb: number; rounds: number[]; jsonParseRounds: number[]; yardstickMs: number };
  health: {
    crews: number;
    rateLimitPerSecond: number;
    latencyMs: number;
    maxInFlight: number[];
    rateLimited: number[];
    online: number[];
    rounds: number[];
    sequentialRounds: number[];
    sequentialRateLimited: number[];
    /** One refresh against a slow platform (replies after slowLatencyMs), where paced starts would overlap past the cap. */
    slowLatencyMs: number;
    slowMaxInFlight: number;
    slowRateLimited: number;
    slowOnline: number;
  };
  logs: { lines: number; bodyKb: number; textKb: number; firstLine: string; rounds: number[]; fetchRounds: number[]; jsonParseRounds: number[] };
}

/**
 * The real transport, noting when each reply has arrived (read on the status reader's thread: the host gets what was
 * read of it, never the body's whole text), and able to fetch the last request's whole body once more for the
 * references (JSON.parse of the same text), outside the measured time.
 */
function timedTransport(): { transport: () => Transport; last: () => { at: number; response: HttpResponse }; wholeBody: () => Promise<string> } {
  let last: { at: number; req: HttpRequest; response: HttpResponse } | undefined;
  let real: Transport | undefined;
  return {
    transport: () => {
      const made = createTransport(DEFAULT_NETWORK_SETTINGS);
      real = made;
      return {
        async request(req) {
          const response = await made.request(req);
          last = { at: performance.now(), req, response };
          return response;
        },
        close: () => made.close(),
      } as Transport;
    },
    last: () => last!,
    // Without readJson or readLog: made and read on this thread, the text whole.
    wholeBody: async () => (await real!.request({ method: last!.req.method, url: last!.req.url, headers: last!.req.headers, body: last!.req.body })).bodyText,
  };
}

function timeJsonParse(text: string): number {
  const started = performance.now();
  JSON.parse(text);
  return performance.now() - started;
}

export async function platformBench(rounds = 5): Promise<PlatformBenchResult> {
  installVscodeStub();
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { deploymentItems } = require('../src/platform/importCommand') as typeof ImportModule;
  const { DeploymentHealth } = require('../src/platform/deploymentHealth') as typeof HealthModule;
  const { DeploymentLogDocuments } = require('../src/platform/deploymentLogs') as typeof LogsModule;
  const { ImportedCrews } = require('../src/platform/importedCrews') as typeof ImportedModule;
  /* eslint-enable @typescript-eslint/no-require-imports */

  const listed = 500;
  const healthCrews = 100;
  const logLines = 50_000;
  const rateLimitPerSecond = 10;
  const latencyMs = 20;
  const crews = Array.from({ length: listed }, (_, i) => crewConfig(`crew${i}`, 5000));
  const deployments: PlatformDeploymentConfig[] = crews.map((c, i) => ({
    uuid: `d${String(i).padStart(7, '0')}-5d1e-4f7a-9c3e-000000000000`,
    organization: ORG,
    crewId: c.id,
    name: `Deployment ${i} of the bench organization`,
    shape: 'full',
    extraLogLines: i === 0 ? logLines - 3 : 0,
  }));
  const sim = await SimProcess.start({ crews, seed: 7, platform: { token: PAT, deployments, rateLimitPerSecond, latencyMs } }, 1, Date.now());
  const signIn: PlatformCredentials & { organizationName?: string } = { baseUrl: sim.origin, token: PAT, organizationId: ORG, organizationName: 'Bench' };
  const timed = timedTransport();
  const client = new PlatformClient({ createTransport: timed.transport, userAgent: 'crew-runs-bench' });
  // Between parts the limiter's one-second window must be empty, so each part starts as a fresh refresh would.
  const windowPasses = () => new Promise((resolve) => setTimeout(resolve, 1100));
  try {
    // 1. The Import Crews list.
    const list: PlatformBenchResult['list'] = { deployments: listed, items: 0, bodyKb: 0, rounds: [], jsonParseRounds: [], yardstickMs: yardstick().ms };
    let listText = '';
    for (let i = 0; i < rounds; i++) {
      await windowPasses();
      const { deployments: parsed } = await client.deployments(signIn);
      const items = deploymentItems(parsed, () => false);
      const ready = performance.now();
      list.rounds.push(ready - timed.last().at);
      list.items = items.length;
      // The reference's text, fetched once after the first measured round (the same list every round).
      listText ||= await timed.wholeBody();
      list.bodyKb = listText.length / 1024;
      list.jsonParseRounds.push(timeJsonParse(listText));
    }

    // 2. Health of 100 imported crews, against the limit.
    const importedList: ImportedCrew[] = sim.crews.slice(0, healthCrews).map((c, i) => ({ crewUrl: c.url, uuid: deployments[i].uuid, platformUrl: sim.origin, name: c.name }));
    const values = new Map<string, unknown>([['crewRuns.platform.imported', importedList]]);
    const imported = new ImportedCrews({
      get: <T>(key: string) => values.get(key) as T | undefined,
      change: async (key, update) => void values.set(key, update(values.get(key) as never)),
    });
    const account = { current: async () => signIn, onDidChange: () => ({ dispose: () => undefined }) };
    const quiet = { warn: () => undefined, info: () => undefined, error: () => undefined };
    const health: PlatformBenchResult['health'] = {
      crews: healthCrews,
      rateLimitPerSecond,
      latencyMs,
      maxInFlight: [],
      rateLimited: [],
      online: [],
      rounds: [],
      sequentialRounds: [],
      sequentialRateLimited: [],
      slowLatencyMs: 1500,
      slowMaxInFlight: 0,
      slowRateLimited: 0,
      slowOnline: 0,
    };
    const healthRounds = Math.min(rounds, 3);
    for (let i = 0; i < healthRounds; i++) {
      await windowPasses();
      await sim.resetPlatformStats();
      let started = performance.now();
      for (const crew of importedList) {
        await client.status(signIn, crew.uuid).catch(() => undefined);
      }
      health.sequentialRounds.push(performance.now() - started);
      health.sequentialRateLimited.push((await sim.platformStats()).rateLimited);

      await windowPasses();
      await sim.resetPlatformStats();
      const refresher = new DeploymentHealth(account as never, imported, client, quiet as never);
      try {
        started = performance.now();
        await refresher.refresh();
        health.rounds.push(performance.now() - started);
        health.online.push(importedList.filter((c) => refresher.get(c.crewUrl)?.state === 'online').length);
      } finally {
        refresher.dispose();
      }
      const stats = await sim.platformStats();
      health.maxInFlight.push(stats.maxInFlight);
      health.rateLimited.push(stats.rateLimited);
    }

    // 2b. The same refresh against a platform answering after 1.5 s: five starts a second would put 7–8 in flight
    // without the cap, so here MAX_IN_FLIGHT is what holds.
    const slowSim = await SimProcess.start({ crews: crews.slice(0, healthCrews), seed: 8, platform: { token: PAT, deployments: deployments.slice(0, healthCrews), rateLimitPerSecond, latencyMs: health.slowLatencyMs } }, 1, Date.now());
    const slowSignIn = { ...signIn, baseUrl: slowSim.origin };
    try {
      const slowList = importedList.map((c, i) => ({ ...c, crewUrl: slowSim.crews[i].url, platformUrl: slowSim.origin }));
      const slowValues = new Map<string, unknown>([['crewRuns.platform.imported', slowList]]);
      const slowImported = new ImportedCrews({ get: <T>(key: string) => slowValues.get(key) as T | undefined, change: async () => undefined });
      const refresher = new DeploymentHealth({ current: async () => slowSignIn, onDidChange: account.onDidChange } as never, slowImported, client, quiet as never);
      try {
        await refresher.refresh();
        health.slowOnline = slowList.filter((c) => refresher.get(c.crewUrl)?.state === 'online').length;
      } finally {
        refresher.dispose();
      }
      const stats = await slowSim.platformStats();
      health.slowMaxInFlight = stats.maxInFlight;
      health.slowRateLimited = stats.rateLimited;
    } finally {
      await slowSim.close();
    }

    // 3. The 50,000-line deployment log, as its document's content provider gives it.
    const services = { platform: { imported, account, client } };
    await imported.set({ crewUrl: sim.crews[0].url, uuid: deployments[0].uuid, platformUrl: sim.origin, name: 'Deployment 0' });
    const documents = new DeploymentLogDocuments(services as never);
    const uri = { query: new URLSearchParams({ crew: sim.crews[0].url }).toString() };
    const cancellation = { onCancellationRequested: () => ({ dispose: () => undefined }) };
    const logs: PlatformBenchResult['logs'] = { lines: 0, bodyKb: 0, textKb: 0, firstLine: '', rounds: [], fetchRounds: [], jsonParseRounds: [] };
    let logText = '';
    for (let i = 0; i < rounds; i++) {
      await windowPasses();
      const started = performance.now();
      const text = await documents.provideTextDocumentContent(uri as never, cancellation as never);
      logs.rounds.push(performance.now() - started);
      // The reply now arrives read (its text made on the reader's thread): what the request alone costs is the same
      // request made and read as text here, outside the measured time (the simulator, its latency, the transfer).
      const fetched = performance.now();
      logText = await timed.wholeBody();
      logs.fetchRounds.push(performance.now() - fetched);
      logs.jsonParseRounds.push(timeJsonParse(logText));
      logs.bodyKb = logText.length / 1024;
      logs.textKb = text.length / 1024;
      logs.lines = text.split('\n').length - 1;
      logs.firstLine = text.slice(0, text.indexOf('\n'));
    }
    documents.dispose();
    return { list, health, logs };
  } finally {
    await client.dispose();
    await sim.close();
  }
}

if (require.main === module) {
  void platformBench(Number(process.argv[2] ?? 5)).then(
    (r) => console.log(JSON.stringify(r)),
    (e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    },
  );
}

/** The Import Crews list, reply to quick pick items, in yardsticks (bench/lib/yardstick.ts). */
const LIST_YARDSTICKS = 10;
/** The deployment log, request to the document's text, in parses of its body. */
const LOG_PARSES = 10;

const spread = (values: number[]) => values.map((v) => round(v, 1)).join('/');

/** The bench table's rows for this item (same shape as main.ts's rows). */
export function platformBenchRows(r: PlatformBenchResult) {
  const item = '8 Platform';
  const list = median(r.list.rounds);
  const refresh = median(r.health.rounds);
  const sequential = median(r.health.sequentialRounds);
  const mostInFlight = Math.max(...r.health.maxInFlight, r.health.slowMaxInFlight);
  const limited = Math.max(...r.health.rateLimited, r.health.slowRateLimited);
  const logs = median(r.logs.rounds);
  const logsParse = median(r.logs.jsonParseRounds);
  // Round by round: the machine's load moves both together within a round, not across rounds.
  const logsRatio = median(r.logs.rounds.map((ms, i) => ms / r.logs.jsonParseRounds[i]));
  const ratio = (a: number, b: number) => (b > 0 ? round(a / b, 2) : undefined);
  return [
    {
      item,
      figure: `Import Crews list of ${r.list.deployments} deployments: reply arrived → quick pick items ready (median of ${r.list.rounds.length})`,
      value: round(list, 1),
      unit: 'ms',
      target: `≤ ${LIST_YARDSTICKS}× yardstick`,
      met: list <= LIST_YARDSTICKS * r.list.yardstickMs && r.list.items === r.list.deployments,
      reference: 'yardstick in the same process just before (JSON.parse of a fixed 1 MB, ×4)',
      referenceValue: round(r.list.yardstickMs, 1),
      ratio: ratio(list, r.list.yardstickMs),
      note: `rounds ${spread(r.list.rounds)} ms, JSON.parse of the body ${spread(r.list.jsonParseRounds)} ms; body ${round(r.list.bodyKb, 0)} KB, ${r.list.items} items`,
    },
    {
      item,
      figure: `health refresh of ${r.health.crews} imported crews: most requests in flight (simulator's count, worst of ${r.health.maxInFlight.length + 1})`,
      value: mostInFlight,
      unit: '',
      target: '≤ 4 (MAX_IN_FLIGHT)',
      met: mostInFlight <= 4,
      reference: 'MAX_IN_FLIGHT',
      referenceValue: 4,
      ratio: ratio(mostInFlight, 4),
      note: `replies after ${r.health.latencyMs} ms: rounds ${r.health.maxInFlight.join('/')} (starts are paced at 5 a second); replies after ${r.health.slowLatencyMs} ms: ${r.health.slowMaxInFlight} (the cap holds; ${r.health.slowOnline} of ${r.health.crews} shown online, ${r.health.slowRateLimited} × 429)`,
    },
    {
      item,
      figure: `health refresh of ${r.health.crews} crews: 429 answers (simulator limit ${r.health.rateLimitPerSecond} req/s per token; worst of ${r.health.rateLimited.length + 1})`,
      value: limited,
      unit: '',
      target: '0',
      met: limited === 0 && r.health.online.every((n) => n === r.health.crews) && r.health.slowOnline === r.health.crews,
      reference: 'the same requests one after another',
      referenceValue: Math.max(...r.health.sequentialRateLimited),
      note: `replies after ${r.health.latencyMs} ms: rounds ${r.health.rateLimited.join('/')}, after ${r.health.slowLatencyMs} ms: ${r.health.slowRateLimited}; crews shown online ${r.health.online.join('/')} of ${r.health.crews}; one after another: ${r.health.sequentialRateLimited.join('/')} × 429`,
    },
    {
      item,
      figure: `health refresh of ${r.health.crews} crews: duration (median of ${r.health.rounds.length})`,
      value: round(refresh / 1000, 2),
      unit: 's',
      target: '(info)',
      reference: 'the same 100 status requests one after another',
      referenceValue: round(sequential / 1000, 2),
      ratio: ratio(refresh, sequential),
      note: `rounds ${spread(r.health.rounds.map((x) => x / 1000))} s; one after another ${spread(r.health.sequentialRounds.map((x) => x / 1000))} s`,
    },
    {
      item,
      figure: `${r.logs.lines.toLocaleString('en-US')}-line deployment log: fetch + parse + format → the document's text (median of ${r.logs.rounds.length})`,
      value: round(logs, 1),
      unit: 'ms',
      target: `≤ ${LOG_PARSES}× JSON.parse, every line`,
      met: logsRatio <= LOG_PARSES && r.logs.lines >= 50_000,
      reference: 'JSON.parse of the same body, same round (median)',
      referenceValue: round(logsParse, 1),
      ratio: round(logsRatio, 2),
      note: `rounds ${spread(r.logs.rounds)} ms; the request alone (made and read as text on this thread, outside the rounds) ${spread(r.logs.fetchRounds)} ms; JSON.parse ${spread(r.logs.jsonParseRounds)} ms; body ${round(r.logs.bodyKb, 0)} KB, text ${round(r.logs.textKb, 0)} KB`,
    },
  ];
}
