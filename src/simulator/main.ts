// CLI: `npm run simulator -- [flags]` (or `node dist/simulator-cli.js [flags]`, built by esbuild.js). Starts the simulator on
// loopback, prints each crew's URL and tokens, and stops cleanly on Ctrl+C.

import { readFileSync } from 'node:fs';
import { demoCrews } from './demoCrews';
import { isReadFaultKind } from './faults';
import { startSimulator } from './server';
import { type CrewConfig, DIALECTS, type FaultOptions, type SimulatorOptions } from './types';

const USAGE = `Usage: npm run simulator -- [flags]   (or: node dist/simulator-cli.js [flags])

  --port N             port to listen on (default 8787; 0 = random)
  --host H             address to bind (default 127.0.0.1)
  --dialect D          live (default), docs or selfhosted
  --time-scale N       multiply every simulated duration (0.1 = ten times faster)
  --config FILE        JSON: simulator options ({ crews, faults, dialect, ... }) or an array of crews
  --paused-state S     how live shows a run waiting for feedback: PAUSED (default) or NOT_FOUND
  --hide-task-id       do not reveal the task id of a paused run (the user must paste it)
  --latency MS         added to every response
  --cold-start MS      added to the first request to a crew after it idled
  --fault-rate R       0..1: share of GET /inputs and GET /status answered with a fault
  --fault-kinds K,...  among 500,502html,503,429,reset,malformed,truncated,stall (default all)
  --stall MS           how long a stall holds the answer (default 10000)
  --retry-after S      Retry-After seconds of 429/503 answers (default 1)
  --rate-limit N       requests per second each crew accepts, then 429
  --seed N             seed for fault selection (reproducible runs)
  --help               show this text
`;

class UsageError extends Error {}

function numberFlag(name: string, value: string | undefined, min = 0): number {
  const parsed = Number(value);
  if (value === undefined || value.trim() === '' || !Number.isFinite(parsed) || parsed < min) {
    throw new UsageError(`${name} needs a number >= ${min}, got ${value ?? 'nothing'}`);
  }
  return parsed;
}

function loadConfig(file: string): SimulatorOptions {
  const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
  if (Array.isArray(parsed)) {
    return { crews: parsed as CrewConfig[] };
  }
  if (parsed === null || typeof parsed !== 'object') {
    throw new UsageError(`${file}: expected an object or an array of crews`);
  }
  return parsed as SimulatorOptions;
}

/** Flags win over the config file, whatever their order. */
function parseArgs(argv: string[]): SimulatorOptions | 'help' {
  let fromFile: SimulatorOptions = {};
  const flags: SimulatorOptions = {};
  const faults: FaultOptions = {};
  let rateLimit: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = (): string | undefined => argv[++i];
    switch (flag) {
      case '--help':
      case '-h':
        return 'help';
      case '--port':
        flags.port = numberFlag(flag, value());
        break;
      case '--host':
        flags.host = value();
        break;
      case '--dialect': {
        const dialect = value();
        const known = DIALECTS.find((d) => d === dialect);
        if (known === undefined) {
          throw new UsageError(`--dialect must be one of ${DIALECTS.join(', ')}, got ${dialect ?? 'nothing'}`);
        }
        flags.dialect = known;
        break;
      }
      case '--time-scale':
        flags.timeScale = numberFlag(flag, value());
        break;
      case '--config':
        fromFile = loadConfig(value() ?? '');
        break;
      case '--paused-state': {
        const state = value()?.toUpperCase().replace('_', ' ');
        if (state !== 'PAUSED' && state !== 'NOT FOUND') {
          throw new UsageError('--paused-state must be PAUSED or NOT_FOUND');
        }
        flags.livePausedState = state;
        break;
      }
      case '--hide-task-id':
        flags.exposeTaskId = false;
        break;
      case '--latency':
        faults.latencyMs = numberFlag(flag, value());
        break;
      case '--cold-start':
        faults.coldStartMs = numberFlag(flag, value());
        break;
      case '--fault-rate':
        faults.readFaultRate = Math.min(1, numberFlag(flag, value()));
        break;
      case '--fault-kinds': {
        const kinds = (value() ?? '').split(',').map((kind) => kind.trim());
        const unknown = kinds.filter((kind) => !isReadFaultKind(kind));
        if (unknown.length > 0) {
          throw new UsageError(`Unknown fault kinds: ${unknown.join(', ')}`);
        }
        faults.readFaultKinds = kinds.filter(isReadFaultKind);
        break;
      }
      case '--stall':
        faults.stallMs = numberFlag(flag, value());
        break;
      case '--retry-after':
        faults.retryAfterSeconds = numberFlag(flag, value());
        break;
      case '--rate-limit':
        rateLimit = numberFlag(flag, value(), 1);
        break;
      case '--seed':
        flags.seed = numberFlag(flag, value());
        break;
      default:
        throw new UsageError(`Unknown flag ${flag}`);
    }
  }
  const options: SimulatorOptions = { port: 8787, ...fromFile, ...flags, faults: { ...fromFile.faults, ...faults } };
  if (rateLimit !== undefined) {
    options.crews = (options.crews ?? demoCrews()).map((crew) => ({ ...crew, rateLimitPerSecond: rateLimit }));
  }
  return options;
}

async function main(): Promise<void> {
  let options: SimulatorOptions | 'help';
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (options === 'help') {
    console.log(USAGE);
    return;
  }
  const sim = await startSimulator(options);
  const dialect = options.dialect ?? 'live';
  console.log(`Crew simulator listening on ${sim.origin} (${dialect} dialect, time scale ${options.timeScale ?? 1})\n`);
  for (const crew of sim.crews) {
    console.log(`  ${crew.name} (${crew.kind})`);
    console.log(`    URL:        ${crew.url}`);
    console.log(`    org token:  ${crew.orgToken}`);
    console.log(`    user token: ${crew.userToken}\n`);
  }
  const first = sim.crews[0];
  if (first) {
    console.log(`Try: curl -H "Authorization: Bearer ${first.orgToken}" ${first.url}/inputs\n`);
  }
  console.log('Press Ctrl+C to stop.');

  let stopping = false;
  const stop = (): void => {
    if (stopping) {
      process.exit(1); // a second Ctrl+C: do not wait any longer
    }
    stopping = true;
    void sim.close().then(() => {
      console.log('\nSimulator stopped.');
      process.exit(0);
    });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

void main();
