// Window reloads in the middle of a suite (extension-host side; the runner's header explains the whole
// design). A reload kills this extension host and starts a new one that runs the suite entry again:
// each run is a "phase" (0 before the first reload). The phase number and what tests want to hand
// over live in a state file in CREW_RUNS_TEST_STATE_DIR, which the runner keeps across reloads.
//
// A suite that reloads:
//
//   // @crew-runs-reload-session   ← this marker (anywhere in the file) gives it a session of its own
//   reloadSuite('Reload', function (s) {
//     before(...)                               // runs in every phase
//     s.step('starts a run', async () => { reload.set('runId', id); });           // phase 0
//     s.reload('reloads the window with the run in flight');                       // phase 0 → 1
//     s.step('finds the run again', async () => { const id = reload.get('runId'); }); // phase 1
//     after(...)                                // runs once, at the end of the last phase
//   });
//
// In phase N only the steps of phase N are defined (earlier ones ran in an earlier extension host);
// the reload step is the last test of phase N and reports as passed in phase N+1 once the new host
// is seen. `before`/`beforeEach` hooks run in every phase; `after` hooks only run in the last one.
// Without the browser runner (e.g. the electron route) every step is skipped.
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  PHASE_RESULT_MARKER,
  type PhaseState,
  type ReloadRequest,
  STATE_DIR_ENV,
  STATE_FILE,
  type SuiteResult,
  UI_BRIDGE_DIR_ENV,
  UI_REQUEST_MARKER,
} from './uiBridgeProtocol';

let statsProvider: (() => SuiteResult) | undefined;

/** The suite entry tells how to read mocha's counts so far (logged before a reload cuts the phase short). */
export function setPhaseStatsProvider(provider: () => SuiteResult): void {
  statsProvider = provider;
}

function stateFile(): string | undefined {
  const dir = process.env[STATE_DIR_ENV];
  return dir ? path.join(dir, STATE_FILE) : undefined;
}

function readState(): PhaseState {
  const file = stateFile();
  if (file && fs.existsSync(file)) {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as PhaseState;
  }
  return { phase: 0, reloads: [], data: {} };
}

function writeState(state: PhaseState): void {
  const file = stateFile();
  if (!file) {
    throw new Error(`reload: ${STATE_DIR_ENV} is not set (only the browser runner provides it; guard with reload.available())`);
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // Atomic: a host killed mid-write never leaves a torn state file for the next phase.
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(state, null, 2));
  fs.renameSync(`${file}.tmp`, file);
}

export const reload = {
  /** True under the browser runner in a session of its own (the state dir and the UI bridge exist). */
  available(): boolean {
    return Boolean(process.env[STATE_DIR_ENV] && process.env[UI_BRIDGE_DIR_ENV]);
  },

  /** 0 before the first reload, then 1, 2, … */
  phase(): number {
    return readState().phase;
  },

  /** The directory kept across reloads (for files a suite wants to keep, e.g. a simulator's address). */
  stateDir(): string | undefined {
    return process.env[STATE_DIR_ENV];
  },

  /** A value recorded by an earlier phase (or this one). */
  get<T>(key: string): T | undefined {
    return readState().data[key] as T | undefined;
  },

  /** Records a JSON value for the phases after the next reload (written at once). */
  set(key: string, value: unknown): void {
    const state = readState();
    state.data[key] = value;
    writeState(state);
  },

  /** The reloads so far (which phase asked, from which extension host process, when). */
  history(): PhaseState['reloads'] {
    return readState().reloads;
  },

  /**
   * Reloads the window: records the next phase, logs this phase's counts, tells the runner, then
   * runs Developer: Reload Window (or, with via 'page', has the runner reload the page like F5; see
   * ReloadRequest). Never resolves: this extension host ends with the page.
   */
  async window(options: { via?: ReloadRequest['via'] } = {}): Promise<never> {
    if (!reload.available()) {
      throw new Error(`reload: unavailable (needs the browser runner's ${STATE_DIR_ENV} and ${UI_BRIDGE_DIR_ENV})`);
    }
    const state = readState();
    const phase = state.phase;
    state.reloads.push({ fromPhase: phase, pid: process.pid, at: Date.now() });
    state.phase = phase + 1;
    writeState(state);
    const stats = statsProvider?.() ?? { passed: 0, failed: 0, pending: 0 };
    console.log(`${PHASE_RESULT_MARKER}${JSON.stringify({ ...stats, phase })}`);
    const id = `reload-${process.pid}-${phase}`;
    const via = options.via ?? 'command';
    console.log(`${UI_REQUEST_MARKER}${JSON.stringify({ id, type: 'reload', phase, via })}`);
    if (via === 'command') {
      // The runner must know before the page goes: it then ignores the old page's exit.
      const reply = path.join(process.env[UI_BRIDGE_DIR_ENV] ?? '', `${id}.json`);
      const deadline = Date.now() + 15_000;
      while (!fs.existsSync(reply)) {
        if (Date.now() > deadline) {
          throw new Error(`reload: the runner did not acknowledge request ${id} within 15 s`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      fs.rmSync(reply, { force: true });
      // Never settle, even when the command fails as the window goes: a failed step would let mocha
      // run on into the `after` hooks of this phase, which then tear down what the next phase needs.
      await Promise.resolve(vscode.commands.executeCommand('workbench.action.reloadWindow')).catch((error: unknown) =>
        console.log(`      (reload command: ${error instanceof Error ? error.message : String(error)})`),
      );
    }
    return new Promise<never>(() => undefined);
  },
};

export interface ReloadSteps {
  /** A test of the current phase (the phase grows by one at every `reload`). */
  step(title: string, fn: (this: Mocha.Context) => Promise<unknown> | void): void;
  /** The window reloads here; the step passes in the next phase once a new extension host runs it. */
  reload(title: string, options?: { via?: ReloadRequest['via'] }): void;
  /** The phase this extension host is in. */
  readonly phase: number;
}

/** A `describe` whose steps are spread over window reloads (see the header). */
export function reloadSuite(title: string, body: (this: Mocha.Suite, steps: ReloadSteps) => void): Mocha.Suite {
  return describe(title, function () {
    const available = reload.available();
    const current = available ? reload.phase() : 0;
    let segment = 0;
    const steps: ReloadSteps = {
      phase: current,
      step(stepTitle, fn) {
        if (!available) {
          it.skip(stepTitle, fn);
        } else if (segment === current) {
          it(stepTitle, fn);
        }
      },
      reload(stepTitle, options) {
        const from = segment++;
        if (!available) {
          it.skip(stepTitle);
        } else if (from === current) {
          it(stepTitle, async function () {
            this.timeout(0); // Ends with this extension host.
            await reload.window(options);
          });
        } else if (from + 1 === current) {
          it(stepTitle, function () {
            const last = reload.history().at(-1);
            if (!last || last.fromPhase !== from) {
              throw new Error(`no reload from phase ${from} was recorded (${JSON.stringify(reload.history())})`);
            }
            if (last.pid === process.pid) {
              throw new Error(`still the extension host that asked for the reload (pid ${process.pid})`);
            }
            console.log(`      (extension host ${last.pid} → ${process.pid}, phase ${from} → ${current} in ${((Date.now() - last.at) / 1000).toFixed(1)} s)`);
          });
        }
      },
    };
    body.call(this, steps);
  });
}
