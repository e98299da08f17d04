// The simulator CLI's flags (node:util parseArgs), as SimulatorOptions. Pure apart from reading --config.

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { errorText } from '../util/errorText';
import { isPlainObject, withoutUndefined } from '../util/objects';
import { demoCrews } from './demoCrews';
import { isReadFaultKind } from './faults';
import { type CrewConfig, DIALECTS, type FaultOptions, type SimulatorOptions } from './types';

export const USAGE = `Usage: npm run simulator -- [flags]   (or: node dist/simulator-cli.js [flags])

  --port N             port to listen on (default 8787; 0 = random)
  --host H             address to bind (default 127.0.0.1)
  --dialect D          live (default), docs or selfhosted
  --time-scale N       multiply every simulated duration (0.1 = ten times faster)
  --config FILE        JSON: simulator options ({ crews, faults, dialect, ... }) or an array of crews
  --paused-state S     how live shows a run waiting for feedback: PAUSED (default) or NOT_FOUND
  --hide-task-id       do not reveal the task id of a paused run (the user must paste it)
  --events-window N    a live status lists only the newest N events of its run (default 1000)
  --events-flush MS    a live status lists an event only MS simulated ms after it happened (default 0)
  --no-events          live statuses carry no event log (its fields null, as with CREWAI_STATUS_EVENTS off)
  --old-runtime        live crews answer as on crewai <= 1.15.21: event log and progress null
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

/** A flag the user got wrong: said with the usage text, exit code 2. */
export class UsageError extends Error {}

const FLAGS = {
  port: { type: 'string' },
  host: { type: 'string' },
  dialect: { type: 'string' },
  'time-scale': { type: 'string' },
  config: { type: 'string' },
  'paused-state': { type: 'string' },
  'hide-task-id': { type: 'boolean' },
  'events-window': { type: 'string' },
  'events-flush': { type: 'string' },
  'no-events': { type: 'boolean' },
  'old-runtime': { type: 'boolean' },
  latency: { type: 'string' },
  'cold-start': { type: 'string' },
  'fault-rate': { type: 'string' },
  'fault-kinds': { type: 'string' },
  stall: { type: 'string' },
  'retry-after': { type: 'string' },
  'rate-limit': { type: 'string' },
  seed: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function numberFlag(name: string, value: string | undefined, min = 0): number | undefined {
  if (value === undefined) {
    return undefined;
  }
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed) || parsed < min) {
    throw new UsageError(`--${name} needs a number >= ${min}, got ${value || 'nothing'}`);
  }
  return parsed;
}

function integerFlag(name: string, value: string | undefined): number | undefined {
  const parsed = numberFlag(name, value);
  if (parsed !== undefined && !Number.isInteger(parsed)) {
    throw new UsageError(`--${name} needs a whole number, got ${value}`);
  }
  return parsed;
}

function loadConfig(file: string): SimulatorOptions {
  const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
  if (Array.isArray(parsed)) {
    return { crews: parsed as CrewConfig[] };
  }
  if (!isPlainObject(parsed)) {
    throw new UsageError(`${file}: expected an object or an array of crews`);
  }
  return parsed as SimulatorOptions;
}

function dialectFlag(value: string | undefined): SimulatorOptions['dialect'] {
  if (value === undefined) {
    return undefined;
  }
  const known = DIALECTS.find((d) => d === value);
  if (known === undefined) {
    throw new UsageError(`--dialect must be one of ${DIALECTS.join(', ')}, got ${value || 'nothing'}`);
  }
  return known;
}

function pausedStateFlag(value: string | undefined): SimulatorOptions['livePausedState'] {
  if (value === undefined) {
    return undefined;
  }
  const state = value.toUpperCase().replace('_', ' ');
  if (state !== 'PAUSED' && state !== 'NOT FOUND') {
    throw new UsageError('--paused-state must be PAUSED or NOT_FOUND');
  }
  return state;
}

function faultKindsFlag(value: string | undefined): FaultOptions['readFaultKinds'] {
  if (value === undefined) {
    return undefined;
  }
  const kinds = value.split(',').map((kind) => kind.trim());
  const unknown = kinds.filter((kind) => !isReadFaultKind(kind));
  if (unknown.length > 0) {
    throw new UsageError(`Unknown fault kinds: ${unknown.join(', ')}`);
  }
  return kinds.filter(isReadFaultKind);
}

function readFlags(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: FLAGS, strict: true, allowPositionals: false }).values;
  } catch (error) {
    // node:util names the flag ("Unknown option '--x'", "Option '--port <value>' argument missing").
    throw new UsageError(errorText(error));
  }
}

/** Flags win over the config file, whatever their order (a flag not given never hides the file's value). */
export function parseCliArgs(argv: string[]): SimulatorOptions | 'help' {
  const values = readFlags(argv);
  if (values.help) {
    return 'help';
  }
  const fromFile = values.config === undefined ? {} : loadConfig(values.config);
  const flags: SimulatorOptions = withoutUndefined({
    port: numberFlag('port', values.port),
    host: values.host,
    dialect: dialectFlag(values.dialect),
    timeScale: numberFlag('time-scale', values['time-scale']),
    livePausedState: pausedStateFlag(values['paused-state']),
    exposeTaskId: values['hide-task-id'] ? false : undefined,
    statusMaxEvents: integerFlag('events-window', values['events-window']),
    statusEventFlushMs: numberFlag('events-flush', values['events-flush']),
    statusEvents: values['no-events'] ? false : undefined,
    oldRuntime: values['old-runtime'] ? true : undefined,
    seed: numberFlag('seed', values.seed),
  });
  const faultRate = numberFlag('fault-rate', values['fault-rate']);
  const faults: FaultOptions = withoutUndefined({
    latencyMs: numberFlag('latency', values.latency),
    coldStartMs: numberFlag('cold-start', values['cold-start']),
    readFaultRate: faultRate === undefined ? undefined : Math.min(1, faultRate),
    readFaultKinds: faultKindsFlag(values['fault-kinds']),
    stallMs: numberFlag('stall', values.stall),
    retryAfterSeconds: numberFlag('retry-after', values['retry-after']),
  });
  const rateLimit = numberFlag('rate-limit', values['rate-limit'], 1);
  const options: SimulatorOptions = { port: 8787, ...fromFile, ...flags, faults: { ...fromFile.faults, ...faults } };
  if (rateLimit !== undefined) {
    options.crews = (options.crews ?? demoCrews()).map((crew) => ({ ...crew, rateLimitPerSecond: rateLimit }));
  }
  return options;
}
