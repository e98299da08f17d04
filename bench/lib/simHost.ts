// Child process that runs the crew simulator, so the bench process's CPU time is the client side
// only (poller + client + store). Driven over IPC by ./simProcess.ts.
//
// Scaled time: the simulator's own durations use its `timeScale`; its per-crew rate limiter,
// however, counts requests in a one-second window of REAL time. The bench patches the limiter (here,
// in this process only; src/ is untouched) so that its window is one SIMULATED second, i.e. a limit
// of 10 req/s means 10 per simulated second, and its Retry-After is in simulated seconds, which the
// client waits out on the same scaled clock.
import { RateLimiter } from '../../src/simulator/faults';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/simulator/server';

interface Request {
  id: number;
  type: 'start' | 'runs' | 'log' | 'updateCrew' | 'platformStats' | 'resetPlatformStats' | 'close';
  options?: SimulatorOptions;
  speed?: number;
  realStart?: number;
  crewId?: string;
  patch?: Record<string, unknown>;
}

let sim: Simulator | undefined;

function patchRateLimiter(speed: number, realStart: number): void {
  const take = RateLimiter.prototype.take;
  RateLimiter.prototype.take = function (limitPerSecond: number, now: number): number {
    return take.call(this, limitPerSecond, realStart + (now - realStart) * speed);
  };
}

async function handle(msg: Request): Promise<unknown> {
  switch (msg.type) {
    case 'start': {
      patchRateLimiter(msg.speed ?? 1, msg.realStart ?? Date.now());
      sim = await startSimulator(msg.options);
      return { crews: sim.crews, origin: sim.origin };
    }
    case 'runs':
      return sim!.listRuns().map((r) => ({ id: r.id, kickoffIds: r.kickoffIds, crewId: r.crewId, createdAt: r.createdAt, finishedAt: r.finishedAt, phase: r.phase }));
    case 'log':
      return sim!.requestLog.entries.map((e) => ({ time: e.time, crewId: e.crewId, endpoint: e.endpoint, status: e.status, fault: e.fault }));
    case 'platformStats':
      return { ...sim!.platform.stats };
    case 'resetPlatformStats':
      sim!.platform.resetStats();
      return true;
    case 'updateCrew':
      sim!.updateCrew(msg.crewId!, msg.patch as never);
      return true;
    case 'close':
      await sim?.close();
      setImmediate(() => process.exit(0));
      return true;
  }
}

process.on('message', (msg: Request) => {
  handle(msg).then(
    (result) => process.send!({ id: msg.id, result }),
    (error: unknown) => process.send!({ id: msg.id, error: error instanceof Error ? error.stack ?? error.message : String(error) }),
  );
});
process.on('disconnect', () => process.exit(0));
