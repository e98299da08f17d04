import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';
import type * as SimulatorModule from '../simulator/server';
import type { Simulator } from '../simulator/server';
import { isFinished } from '../runTracking/model';
import type { DemoServices } from './crewServices';
import { showInfo } from '../ui/notify';
import { errorText } from '../util/errorText';

/**
 * The port the demo crews listened on last: a crew's identity is its URL, so the demo comes back on the
 * same port after a reload and its runs are found again under their crews.
 */
const DEMO_PORT_KEY = 'crewRuns.demoPort';
/** The demo start whose hello was shown: said once per `npm run demo`, not after every reload. */
const DEMO_WELCOMED_KEY = 'crewRuns.demoWelcomed';

/** What the demo runs: the simulator, and which of its crews are demo crews (the others are platform deployments only). */
interface RunningDemo {
  simulator: Simulator;
  demoCrewIds: ReadonlySet<string>;
}

/**
 * Where the demo crews listen. VS Code running remotely (code-server, Remote-SSH, WSL, Codespaces) forwards
 * every new port a process there listens on at 127.0.0.1, the extension host included, and counts it in the
 * Ports view as an app to open in a browser. On Linux, where it looks (/proc), all of 127.0.0.0/8 is this
 * machine, and VS Code takes only 127.0.0.1 and localhost for it: the demo crews listen on 127.0.0.2 there.
 */
const DEMO_HOSTS = process.platform === 'linux' ? ['127.0.0.2', '127.0.0.1'] : ['127.0.0.1'];

/** This run of `npm run demo` (its server, which outlives reloads), or of the VS Code server otherwise. */
function demoStartId(): string {
  return process.env.CREW_RUNS_DEMO_START ?? `server-${process.ppid}`;
}

/** The built-in simulator, started on demand inside the extension host and stopped on deactivate. */
export class DemoCrews implements vscode.Disposable {
  private simulator?: Promise<RunningDemo>;
  /** Once started: where its platform routes are, and their personal token (the simulator's fixed demo value). */
  private running?: { url: string; token: string };
  private fallbackPort = false;
  private endedEarlier = false;

  private helloShown?: vscode.Disposable;

  /**
   * `hello`: says a text atop the Crew Runs view, where it stays (undefined takes it away). `demoAnswers`: told once
   * the demo's server answers (the platform asks again about the crews imported from it).
   */
  constructor(
    private readonly services: DemoServices,
    private readonly hello: (text: string | undefined) => void = () => undefined,
    private readonly demoAnswers: () => void = () => undefined,
  ) {}

  register(): vscode.Disposable[] {
    return [vscode.commands.registerCommand('crewRuns.tryDemoCrew', () => this.start({ welcome: 'always' }))];
  }

  /**
   * Starts the simulator (once) and adds its crews as demo crews; returns their URLs. Asked for (Try the
   * Demo Crews), the hello is a notification, the command's answer. Started by itself (`npm run demo`, and
   * again at each reload), it is said once per demo start (`demoStart`, by default this one), atop the Crew
   * Runs view, where it stays until a run is kicked off: a notification would go by itself within seconds.
   */
  async start(options: { welcome: 'always' | 'once'; demoStart?: string } = { welcome: 'once' }): Promise<string[]> {
    const { simulator, demoCrewIds } = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Starting the demo crews on this machine…') },
      () => this.ensureStarted(),
    );
    await this.endRunsOfEarlierDemo(simulator);
    const demoCrews = simulator.crews.filter((c) => demoCrewIds.has(c.id));
    for (const crew of simulator.crews) {
      if (demoCrewIds.has(crew.id)) {
        await this.services.tokens.set(crew.url, crew.orgToken, 'organization');
        this.services.crews.addDemoCrew({ url: crew.url, name: crew.name });
        this.services.crews.setHealth(crew.url, 'ready');
      } else if (this.services.crews.get(crew.url)) {
        // A deployment of the demo's platform imported earlier: this server drew its token anew, as for the demo crews.
        await this.services.tokens.set(crew.url, crew.orgToken, 'organization');
      }
    }
    this.running = { url: simulator.origin, token: simulator.platform.token };
    this.services.log.info(`Demo crews running at ${simulator.origin}: ${demoCrews.map((c) => c.name).join(', ')}.`);
    this.services.log.info(`The demo also serves the CrewAI platform routes at ${simulator.origin}: Sign In to CrewAI Platform… offers them.`);
    // Crews imported from it earlier are asked about now that it answers (the refresh at activation came too early).
    this.demoAnswers();
    const text = vscode.l10n.t('The demo crews run on this machine; nothing leaves it. Kick one off to see a run.');
    // The Crew Runs view comes to the front with the hello only: after a reload the user is already at work
    // (moving the focus then closed a command palette they had just opened).
    if (options.welcome === 'always') {
      await vscode.commands.executeCommand('crewRuns.crews.focus');
      this.sayHello(undefined); // Said now, as the command's answer: once is enough.
      const kickOff = vscode.l10n.t('Kick Off…');
      void showInfo(text, kickOff).then((choice) => choice === kickOff && vscode.commands.executeCommand('crewRuns.kickOff'));
    } else if (await this.firstOfThisDemo(options.demoStart ?? demoStartId())) {
      await vscode.commands.executeCommand('crewRuns.crews.focus');
      this.sayHello(text);
    }
    return demoCrews.map((c) => c.url);
  }

  /** The demo's platform while the demo crews run in this window (Sign In offers it). */
  platform(): { url: string; token: string } | undefined {
    return this.running;
  }

  private sayHello(text: string | undefined): void {
    this.helloShown?.dispose();
    this.helloShown = undefined;
    this.hello(text);
    if (text !== undefined) {
      // Its work is done once a run is kicked off.
      this.helloShown = this.services.runs.onDidAdd(() => this.sayHello(undefined));
    }
  }

  /** Whether this demo start has not said hello yet (and notes that it now has). */
  private async firstOfThisDemo(demoStart: string): Promise<boolean> {
    let first = false;
    await this.services.shared
      .change<string | boolean>(DEMO_WELCOMED_KEY, (welcomed) => ((first = welcomed !== demoStart), demoStart))
      .catch((e: unknown) => this.services.log.warn(`Demo: could not note the welcome (${errorText(e)})`));
    return first;
  }

  async dispose(): Promise<void> {
    this.sayHello(undefined);
    const simulator = this.simulator;
    this.simulator = undefined;
    this.running = undefined;
    this.endedEarlier = false; // A later start serves none of this server's runs.
    this.fallbackPort = false;
    const running = (await simulator?.catch(() => undefined))?.simulator;
    if (running) {
      // Its crews go with it: a row left behind would point at a server that is gone.
      for (const crew of running.crews) {
        const listed = this.services.crews.get(crew.url);
        await (listed?.source === 'demo' ? this.services.crews.remove(listed) : this.services.tokens.delete(crew.url)).then(undefined, () => undefined);
      }
      await running.close();
    }
  }

  /**
   * This simulator starts empty: runs an earlier demo server (before a reload) had going are gone with it.
   * They end honestly ("ended with the demo") rather than wait, or read as waiting for feedback, forever.
   * Only when this server took the remembered port: then no other window's demo serves those runs.
   */
  private async endRunsOfEarlierDemo(simulator: Simulator): Promise<void> {
    if (this.fallbackPort || this.endedEarlier) {
      return;
    }
    this.endedEarlier = true;
    const urls = new Set(simulator.crews.map((c) => c.url));
    const message = 'Ended with the demo: the demo crews stopped (the window was closed or reloaded) while this run was going.';
    for (const run of this.services.runs.list().filter((r) => urls.has(r.crewUrl) && !isFinished(r) && r.stopReason !== 'expired')) {
      await this.services.runs.markExpired(run.id, message).catch((e: unknown) => this.services.log.warn(`Run ${run.id}: ${String(e)}`));
    }
  }

  private ensureStarted(): Promise<RunningDemo> {
    if (!this.simulator) {
      this.simulator = (async () => {
        // Loaded only now (dist/simulator.js): activation never pays for it.
        const { startSimulator, demoCrews, demoPlatformOnlyCrews } = require('../simulator/server') as typeof SimulatorModule;
        const tokenFor = () => randomBytes(24).toString('base64url');
        const local = demoCrews();
        const demoCrewIds = new Set(local.map((c) => c.id));
        // Its platform lists every crew it serves: the demo crews, and deployments that are no crew here yet.
        const served = [...local, ...demoPlatformOnlyCrews()];
        const start = async (port: number): Promise<RunningDemo> => {
          for (const [i, host] of DEMO_HOSTS.entries()) {
            try {
              return { simulator: await startSimulator({ host, port, crews: served.map((crew) => ({ ...crew, orgToken: tokenFor(), userToken: tokenFor() })) }), demoCrewIds };
            } catch (error) {
              // A system without that loopback address: the next one.
              if ((error as NodeJS.ErrnoException).code !== 'EADDRNOTAVAIL' || i === DEMO_HOSTS.length - 1) {
                throw error;
              }
            }
          }
          throw new Error('No host to listen on.');
        };
        const remembered = this.services.shared.get<number>(DEMO_PORT_KEY);
        if (remembered) {
          try {
            return await start(remembered);
          } catch (error) {
            // Taken (another window's demo, or another program): a new port, and the earlier runs stay as they are.
            this.services.log.info(`Demo port ${remembered} is in use (${errorText(error)}); the demo starts on another port.`);
            this.fallbackPort = true;
          }
        }
        const demo = await start(0);
        if (!remembered) {
          await this.services.shared.change<number>(DEMO_PORT_KEY, (port) => port ?? demo.simulator.port);
        }
        return demo;
      })();
      this.simulator.catch((error) => {
        this.simulator = undefined;
        this.services.log.error(`The demo crews could not start: ${errorText(error)}`);
      });
    }
    return this.simulator;
  }
}
