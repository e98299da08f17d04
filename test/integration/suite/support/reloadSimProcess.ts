// Child process of reloadSim.ts: the crew simulator in a process of its own, so it outlives the
// extension hosts a window reload replaces. Started detached with one argument, a JSON file:
//   { "options": SimulatorOptions, "infoFile": "<where to write the address>", "watchDir": "<dir>" }
// It writes infoFile ({ pid, origin, control, crews }) once listening, and serves a small control
// API on a second loopback port:
//   GET  /runs           listRuns()            GET  /runs/<kickoffId>  getRun() (404 when unknown)
//   GET  /requests?from=N  requestLog entries from index N
//   POST /faults         setFaults(body)       POST /crews/<id>        updateCrew(id, body)
//   POST /close          closes the simulator and exits
// It exits by itself when watchDir disappears (the runner removed its temp folder) or after 60 min.
import * as fs from 'fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'http';
import * as path from 'path';
import { startSimulator, type FaultOptions, type CrewConfig, type SimulatorOptions } from '../../../../src/simulator/server';

interface ChildConfig {
  options: SimulatorOptions;
  infoFile: string;
  watchDir: string;
}

const MAX_LIFETIME_MS = 60 * 60_000;

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text ? JSON.parse(text) : {});
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
    req.on('error', reject);
  });
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body ?? null);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) });
  res.end(payload);
}

async function main(): Promise<void> {
  const config = JSON.parse(fs.readFileSync(process.argv[2], 'utf8')) as ChildConfig;
  const sim = await startSimulator(config.options);
  let exiting = false;
  const exit = async (code: number) => {
    if (exiting) {
      return;
    }
    exiting = true;
    await sim.close().catch(() => undefined);
    process.exit(code);
  };

  const control = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://control.invalid');
      const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
      try {
        if (req.method === 'GET' && parts[0] === 'runs' && parts.length === 1) {
          return reply(res, 200, sim.listRuns());
        }
        if (req.method === 'GET' && parts[0] === 'runs' && parts.length === 2) {
          const info = sim.getRun(parts[1]);
          return reply(res, info ? 200 : 404, info ?? { error: 'unknown kickoff id' });
        }
        if (req.method === 'GET' && parts[0] === 'requests') {
          return reply(res, 200, sim.requestLog.entries.slice(Number(url.searchParams.get('from') ?? 0)));
        }
        if (req.method === 'POST' && parts[0] === 'faults') {
          sim.setFaults((await readBody(req)) as FaultOptions);
          return reply(res, 200, sim.faults);
        }
        if (req.method === 'POST' && parts[0] === 'crews' && parts.length === 2) {
          return reply(res, 200, sim.updateCrew(parts[1], (await readBody(req)) as Partial<CrewConfig>));
        }
        if (req.method === 'POST' && parts[0] === 'close') {
          reply(res, 200, {});
          res.once('finish', () => void exit(0));
          return;
        }
        reply(res, 404, { error: `no ${req.method} ${url.pathname}` });
      } catch (error) {
        reply(res, 500, { error: error instanceof Error ? error.message : String(error) });
      }
    })();
  });
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
  const address = control.address();
  const controlPort = typeof address === 'object' && address ? address.port : 0;

  const info = { pid: process.pid, origin: sim.origin, control: `http://127.0.0.1:${controlPort}`, crews: sim.crews };
  fs.writeFileSync(`${config.infoFile}.tmp`, JSON.stringify(info, null, 2));
  fs.renameSync(`${config.infoFile}.tmp`, config.infoFile);
  console.log(`simulator ${sim.origin}, control ${info.control}`);

  const started = Date.now();
  setInterval(() => {
    if (!fs.existsSync(config.watchDir) || Date.now() - started > MAX_LIFETIME_MS) {
      console.log(`exiting: ${fs.existsSync(config.watchDir) ? 'lifetime over' : `${path.basename(config.watchDir)} is gone`}`);
      void exit(0);
    }
  }, 2000).unref();
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.on(signal, () => {
      console.log(`exiting: ${signal}`);
      void exit(0);
    });
  }
  process.on('exit', (code) => console.log(`exit ${code}`));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
