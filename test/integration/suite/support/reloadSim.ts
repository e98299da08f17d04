// The crew simulator for suites that reload the window: an in-process simulator would die with the
// extension host, so this one runs in a detached process of its own (reloadSimProcess.ts) and is
// reached over HTTP. Phase 0 starts it; later phases connect to it by name through the state dir.
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import type { CrewConfig, FaultOptions, RequestLogEntry, RunInfo, ServedCrew, SimulatorOptions } from '../../../../src/simulator/server';
import { addCrewWithToken, reload, waitFor } from '../../helpers';

interface SimInfo {
  pid: number;
  origin: string;
  control: string;
  crews: ServedCrew[];
}

export class RemoteSimulator {
  constructor(private readonly info: SimInfo) {}

  get origin(): string {
    return this.info.origin;
  }

  get pid(): number {
    return this.info.pid;
  }

  get crews(): readonly ServedCrew[] {
    return this.info.crews;
  }

  crew(id: string): ServedCrew {
    const crew = this.info.crews.find((c) => c.id === id);
    if (!crew) {
      throw new Error(`the simulator serves no crew ${id}`);
    }
    return crew;
  }

  async getRun(kickoffId: string): Promise<RunInfo | undefined> {
    const response = await fetch(`${this.info.control}/runs/${encodeURIComponent(kickoffId)}`);
    return response.status === 404 ? undefined : ((await response.json()) as RunInfo);
  }

  async listRuns(): Promise<RunInfo[]> {
    return (await (await fetch(`${this.info.control}/runs`)).json()) as RunInfo[];
  }

  /** Every request the simulator answered (from index `from` on). */
  async requests(from = 0): Promise<RequestLogEntry[]> {
    return (await (await fetch(`${this.info.control}/requests?from=${from}`)).json()) as RequestLogEntry[];
  }

  async setFaults(faults: FaultOptions): Promise<void> {
    await this.post('faults', faults);
  }

  async updateCrew(crewId: string, patch: Partial<Omit<CrewConfig, 'id'>>): Promise<void> {
    await this.post(`crews/${encodeURIComponent(crewId)}`, patch);
  }

  async close(): Promise<void> {
    await this.post('close', {}).catch(() => undefined); // It may be gone already.
  }

  private async post(route: string, body: unknown): Promise<unknown> {
    const response = await fetch(`${this.info.control}/${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) {
      throw new Error(`simulator control ${route}: HTTP ${response.status} ${await response.text()}`);
    }
    return response.json();
  }
}

function files(name: string) {
  const dir = reload.stateDir();
  if (!dir) {
    throw new Error('a detached simulator needs the state dir of a reload session');
  }
  return {
    dir,
    config: path.join(dir, `sim-${name}.config.json`),
    info: path.join(dir, `sim-${name}.json`),
    log: path.join(dir, `sim-${name}.log`),
  };
}

/** Starts a simulator in a detached process that survives window reloads; `name` finds it again. */
export async function startDetachedSimulator(name: string, options: SimulatorOptions): Promise<RemoteSimulator> {
  const where = files(name);
  fs.rmSync(where.info, { force: true });
  fs.writeFileSync(where.config, JSON.stringify({ options, infoFile: where.info, watchDir: where.dir }));
  const script = path.join(__dirname, 'reloadSimProcess.js');
  const out = fs.openSync(where.log, 'a');
  // process.execPath is the server's Node. Its own process group: the extension host's end is not its end.
  const child = spawn(process.execPath, [script, where.config], { detached: true, stdio: ['ignore', out, out], env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } });
  fs.closeSync(out);
  child.unref();
  await waitFor(() => fs.existsSync(where.info) || child.exitCode !== null, { message: `the simulator ${name} to listen`, timeoutMs: 20_000 });
  if (!fs.existsSync(where.info)) {
    throw new Error(`the simulator ${name} exited (${child.exitCode}): ${fs.readFileSync(where.log, 'utf8')}`);
  }
  return connectSimulator(name);
}

/** The simulator an earlier phase started. */
export function connectSimulator(name: string): RemoteSimulator {
  const where = files(name);
  if (!fs.existsSync(where.info)) {
    throw new Error(`no simulator ${name} was started in an earlier phase (${where.info} is missing)`);
  }
  return new RemoteSimulator(JSON.parse(fs.readFileSync(where.info, 'utf8')) as SimInfo);
}

/**
 * The simulator of a reload suite: phase 0 starts it and adds each crew it serves, with its token, as
 * "<prefix> <crew name>"; later phases connect to it.
 */
export async function phaseSimulator(phase: number, name: string, options: SimulatorOptions, prefix: string): Promise<RemoteSimulator> {
  if (phase > 0) {
    return connectSimulator(name);
  }
  const sim = await startDetachedSimulator(name, options);
  for (const served of sim.crews) {
    await addCrewWithToken({ url: served.url, name: `${prefix} ${served.name}`, token: served.orgToken });
  }
  return sim;
}
