import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';
import type * as SimulatorModule from '../simulator/server';
import type { Simulator } from '../simulator/server';
import type { Services } from '../services';
import { showInfo } from '../views/notify';

/** The built-in simulator, started on demand inside the extension host and stopped on deactivate. */
export class DemoCrews implements vscode.Disposable {
  private simulator?: Promise<Simulator>;

  constructor(private readonly services: Services) {}

  register(): vscode.Disposable[] {
    return [vscode.commands.registerCommand('crewRuns.tryDemoCrew', () => this.start())];
  }

  /** Starts the simulator (once) and adds its crews as demo crews; returns their URLs. */
  async start(): Promise<string[]> {
    const simulator = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Starting the demo crews on this machine…') },
      () => this.ensureStarted(),
    );
    for (const crew of simulator.crews) {
      await this.services.tokens.set(crew.url, crew.orgToken, 'organization');
      this.services.crews.addDemoCrew({ url: crew.url, name: crew.name });
      this.services.crews.setHealth(crew.url, 'ready');
    }
    this.services.log.info(`Demo crews running at ${simulator.origin}: ${simulator.crews.map((c) => c.name).join(', ')}.`);
    await vscode.commands.executeCommand('crewRuns.crews.focus');
    const kickOff = vscode.l10n.t('Kick Off…');
    void showInfo(vscode.l10n.t('The demo crews run on this machine; nothing leaves it. Kick one off to see a run.'), kickOff).then((choice) => choice === kickOff && vscode.commands.executeCommand('crewRuns.kickOff'));
    return simulator.crews.map((c) => c.url);
  }

  async dispose(): Promise<void> {
    const simulator = this.simulator;
    this.simulator = undefined;
    const running = await simulator?.catch(() => undefined);
    if (running) {
      for (const crew of running.crews) {
        await this.services.tokens.delete(crew.url).then(undefined, () => undefined);
      }
      await running.close();
    }
  }

  private ensureStarted(): Promise<Simulator> {
    if (!this.simulator) {
      this.simulator = (async () => {
        // Loaded only now (dist/simulator.js): activation never pays for it.
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const { startSimulator, demoCrews } = require('../simulator/server') as typeof SimulatorModule;
        const tokenFor = () => randomBytes(24).toString('base64url');
        return startSimulator({
          host: '127.0.0.1',
          port: 0,
          crews: demoCrews().map((crew) => ({ ...crew, orgToken: tokenFor(), userToken: tokenFor() })),
        });
      })();
      this.simulator.catch((error) => {
        this.simulator = undefined;
        this.services.log.error(`The demo crews could not start: ${error instanceof Error ? error.message : String(error)}`);
      });
    }
    return this.simulator;
  }
}
