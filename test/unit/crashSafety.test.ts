// Crash safety of the persisted runs: a real child process (helpers/crashWriter.ts) writes large run
// details through RunStore in a loop and is killed with SIGKILL at random moments, many times. After
// every kill a fresh RunStore must load the run records, and every details file must be a complete JSON of
// some generation (the old or the new one, never a mix, never older than seen before), or absent
// for a run never written.
import * as assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Logger } from '../../src/util/logger';
import { RunStore, type StoredDetails } from '../../src/runTracking/runStore';
import { fileKv, outputFor, parseMessage } from './helpers/crashWriter';

const WRITER = path.join(__dirname, 'helpers', 'crashWriter.js');
const RUNS = 4;
const BYTES = 300_000;
const ROUNDS = 20;
/** Kills go on past ROUNDS, up to this many, until one has landed in the middle of a write (a random moment may miss). */
const MAX_ROUNDS = 60;

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: () => undefined, warn: (m) => lines.push(m), error: (m) => lines.push(m) };
}

function startWriter(storageDir: string, kvFile: string, runs: number): ChildProcess {
  return spawn(process.execPath, [WRITER, storageDir, kvFile, String(runs), String(BYTES)], { stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Resolves once the writer printed `ready` (its first complete write), with its stderr for errors. */
function whenReady(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`the writer did not get ready within 20 s: ${err}`)), 20_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the writer exited before it was ready (${signal ?? code}): ${err}`));
    });
  });
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  process.kill(child.pid!, 'SIGKILL');
  assert.equal(await exited, 'SIGKILL', 'the writer was still writing when it was killed');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** [generation, the one before] of a complete details file; throws when the file is torn or mixed. */
function generationOf(details: StoredDetails, runId: string): [number, number] {
  assert.equal(details.runId, runId);
  if (!details.finalOutput) {
    // Added, never updated: the details of a new run.
    assert.deepEqual([details.tasks, details.history.map((h) => h.state)], [[], ['queued']], `the new-run details of ${runId}`);
    return [0, 0];
  }
  const text = details.finalOutput.text;
  const generation = Number(/^generation (\d+); /.exec(text)?.[1]);
  assert.ok(Number.isInteger(generation), `a final output naming its generation in ${runId}`);
  assert.equal(text, outputFor(generation, BYTES), `the whole final output of generation ${generation}`);
  assert.equal(details.tasks.at(-1)?.output, outputFor(generation, BYTES), 'the task output of the same generation');
  const [named, previous] = parseMessage(details.lastSnapshot?.message);
  assert.equal(named, generation, 'the snapshot of the same generation');
  return [generation, previous];
}

describe('Crash safety (SIGKILL while writing)', function () {
  this.timeout(180_000);
  let dir: string;
  let storageDir: string;
  let kvFile: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crew-runs-crash-'));
    storageDir = path.join(dir, 'storage');
    kvFile = path.join(dir, 'globalState.json');
  });

  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it(`keeps every run record and details file whole over ${ROUNDS} kills mid-write of ${BYTES / 1000} kB details`, async () => {
    const seen = new Map<string, number>();
    let roundsWithLeftovers = 0;
    let indexLags = 0;
    let round = 0;
    for (; round < ROUNDS || (roundsWithLeftovers === 0 && round < MAX_ROUNDS); round++) {
      const writer = startWriter(storageDir, kvFile, RUNS);
      await whenReady(writer);
      await sleep(5 + Math.floor(Math.random() * 120));
      await kill(writer);

      // Every run's record file is there (each parses: a fresh store loads them without a complaint).
      const records = fs.readdirSync(path.join(storageDir, 'records')).filter((name) => name.endsWith('.json'));
      assert.equal(records.length, RUNS, `round ${round}: every run's record`);
      const runsDir = path.join(storageDir, 'runs');
      const leftovers = fs.readdirSync(runsDir).filter((name) => name.endsWith('.tmp'));
      if (leftovers.length > 0) {
        roundsWithLeftovers++;
      }
      const logger = recordingLogger();
      const store = new RunStore(fileKv(kvFile), storageDir, logger, { maxRunsPerCrew: 1000 });
      await store.load();
      assert.equal(store.list().length, RUNS);

      for (const run of store.list()) {
        const file = path.join(runsDir, `${run.id}.json`);
        const [generation, previous] = generationOf(JSON.parse(fs.readFileSync(file, 'utf8')) as StoredDetails, run.id);
        // What the store reads is the same complete file.
        const details = await store.readDetails(run.id);
        assert.equal(details.finalOutput?.text.length ?? 0, generation === 0 ? 0 : BYTES);
        // Never older than a generation seen before (a rename never goes back).
        assert.ok(generation >= (seen.get(run.id) ?? 0), `round ${round}: ${run.id} went back from ${seen.get(run.id)} to ${generation}`);
        seen.set(run.id, generation);
        // The record is written after the details: it never names a generation the details file lacks.
        // It may lag by the writes a kill cut short between the two files (one per kill, possibly
        // the same run's twice in a row), so only "not ahead" holds across files.
        const [indexed] = parseMessage(run.message);
        assert.ok(indexed <= generation, `round ${round}: record at ${indexed}, ahead of the details at ${generation} (after ${previous})`);
        if (indexed !== generation) {
          indexLags++;
        }
      }
      // Only run details and temp files of interrupted writes are in the folder.
      for (const name of fs.readdirSync(runsDir)) {
        assert.match(name, /^[0-9a-f-]{36}\.json(\.\d+-[0-9a-f]{8}\.tmp)?$/, `unexpected file ${name}`);
      }
      assert.deepEqual(logger.lines, [], `round ${round}: the fresh store logged no problem`);
    }
    console.log(`      ${round} kills; ${roundsWithLeftovers} left a temp file of a write cut short; ${indexLags} times a record lagged its details`);
    assert.ok(roundsWithLeftovers > 0, 'at least one kill landed in the middle of a write');
  });

  it('has a complete details file for every run recorded, and none for a run never written, when killed while adding runs', async () => {
    for (let round = 0; round < 8; round++) {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(dir, { recursive: true });
      // Many runs: it is still adding them when killed (each add writes details, then the record).
      const writer = startWriter(storageDir, kvFile, 500);
      await new Promise<void>((resolve, reject) => {
        const timer = setInterval(() => {
          const records = path.join(storageDir, 'records');
          if (fs.existsSync(records) && fs.readdirSync(records).some((name) => /^[0-9a-f-]{36}\.json$/.test(name))) {
            clearInterval(timer);
            resolve();
          }
        }, 2);
        writer.once('exit', (code) => {
          clearInterval(timer);
          reject(new Error(`the writer exited (${code})`));
        });
      });
      await sleep(Math.floor(Math.random() * 40));
      await kill(writer);

      const store = new RunStore(fileKv(kvFile), storageDir, recordingLogger(), { maxRunsPerCrew: 1000 });
      await store.load();
      const ids = new Set(store.list().map((r) => r.id));
      assert.ok(ids.size > 0 && ids.size < 500, `killed while adding (${ids.size} runs recorded)`);
      const runsDir = path.join(storageDir, 'runs');
      const files = fs.readdirSync(runsDir).filter((name) => name.endsWith('.json'));
      for (const id of ids) {
        const details = JSON.parse(fs.readFileSync(path.join(runsDir, `${id}.json`), 'utf8')) as StoredDetails;
        assert.equal(details.runId, id);
        assert.deepEqual(details.history.map((h) => h.state), ['queued']);
      }
      // At most the one run whose details were written when the record write was cut short.
      const orphans = files.filter((name) => !ids.has(name.replace(/\.json$/, '')));
      assert.ok(orphans.length <= 1, `details of runs never recorded: ${orphans.join(', ')}`);
      for (const orphan of orphans) {
        JSON.parse(fs.readFileSync(path.join(runsDir, orphan), 'utf8')); // Complete all the same.
      }
    }
  });

  it('saves a run that ends with no warning left from failed checks: nothing stale survives a crash right after', async () => {
    const kv = fileKv(kvFile);
    const store = new RunStore(kv, storageDir, recordingLogger());
    await store.load();
    const run = await store.add({ crewUrl: 'https://crash.example.com', crewName: 'Crash', kickoffId: 'k-warn', inputs: {} });
    await store.setWarning(run.id, 'Last status check failed (server, HTTP 500); retrying.');
    await store.applyPolled(run.id, undefined, { state: 'succeeded', tasks: [], raw: {}, finalOutput: { kind: 'markdown', text: 'done' } });
    // The window goes now, before the poller's own "clear the warning" write: what was saved is all there is.
    const after = new RunStore(fileKv(kvFile), storageDir, recordingLogger());
    await after.load();
    assert.equal(after.get(run.id)?.state, 'succeeded');
    assert.equal(after.get(run.id)?.warning, undefined, 'a finished run is never polled again: a stale warning would stay forever');
  });
});
