// The simulator CLI's flags (src/simulator/cliArgs.ts, node:util parseArgs).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseCliArgs, UsageError } from '../../src/simulator/cliArgs';

describe('simulator CLI flags', () => {
  it('defaults to port 8787 and no faults', () => {
    assert.deepEqual(parseCliArgs([]), { port: 8787, faults: {} });
  });

  it('reads every flag, in both --flag value and --flag=value forms', () => {
    const options = parseCliArgs([
      '--port=0', '--host', '::1', '--dialect', 'docs', '--time-scale', '0.1', '--paused-state', 'not_found', '--hide-task-id',
      '--latency', '5', '--cold-start', '7', '--fault-rate', '3', '--fault-kinds', '500, reset', '--stall', '9', '--retry-after', '2', '--seed', '42',
    ]);
    assert.deepEqual(options, {
      port: 0,
      host: '::1',
      dialect: 'docs',
      timeScale: 0.1,
      livePausedState: 'NOT FOUND',
      exposeTaskId: false,
      seed: 42,
      faults: { latencyMs: 5, coldStartMs: 7, readFaultRate: 1, readFaultKinds: ['500', 'reset'], stallMs: 9, retryAfterSeconds: 2 },
    });
  });

  it('reads the event log flags: window, flush lag, log off, old runtime', () => {
    assert.deepEqual(parseCliArgs(['--events-window', '5', '--events-flush=2000', '--no-events', '--old-runtime']), {
      port: 8787,
      statusMaxEvents: 5,
      statusEventFlushMs: 2000,
      statusEvents: false,
      oldRuntime: true,
      faults: {},
    });
  });

  it('--help and -h ask for the usage text', () => {
    assert.equal(parseCliArgs(['--help']), 'help');
    assert.equal(parseCliArgs(['-h']), 'help');
  });

  it('flags win over the config file whatever their order; --rate-limit applies to every crew', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sim-cli-')), 'sim.json');
    fs.writeFileSync(file, JSON.stringify({ dialect: 'selfhosted', timeScale: 5, faults: { latencyMs: 1, stallMs: 2 } }));
    const options = parseCliArgs(['--time-scale', '0.5', '--config', file, '--latency', '3', '--rate-limit', '4']);
    assert.ok(options !== 'help');
    assert.equal(options.dialect, 'selfhosted');
    assert.equal(options.timeScale, 0.5);
    assert.deepEqual(options.faults, { latencyMs: 3, stallMs: 2 });
    assert.ok(options.crews!.length > 0 && options.crews!.every((crew) => crew.rateLimitPerSecond === 4));
  });

  for (const [argv, said] of [
    [['--port=-1'], /--port needs a number >= 0, got -1/],
    [['--port', '-1'], /--port/],
    [['--latency', 'soon'], /--latency needs a number >= 0, got soon/],
    [['--port'], /--port/],
    [['--dialect', 'klingon'], /--dialect must be one of live, docs, selfhosted, got klingon/],
    [['--paused-state', 'ASLEEP'], /PAUSED or NOT_FOUND/],
    [['--fault-kinds', '500,nope'], /Unknown fault kinds: nope/],
    [['--rate-limit', '0'], /--rate-limit needs a number >= 1/],
    [['--events-window', '2.5'], /--events-window needs a whole number, got 2.5/],
    [['--events-flush', 'later'], /--events-flush needs a number >= 0, got later/],
    [['--frobnicate'], /--frobnicate/],
    [['stray'], /stray/],
  ] as const) {
    it(`refuses ${argv.join(' ')} with a usage error that names the problem`, () => {
      assert.throws(() => parseCliArgs([...argv]), (error: unknown) => error instanceof UsageError && said.test(error.message));
    });
  }
});
