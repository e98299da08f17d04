// Following a redeploy (#51): "online" only once the redeploy was seen to start. A platform that still says
// "Crew is Online" just after the POST (the rebuild not begun yet) must not be announced online at once.
import * as assert from 'node:assert/strict';
import Module from 'node:module';
import type * as HealthModule from '../../src/platform/deploymentHealth';
import type { DeploymentStatus } from '../../src/platform/parse';

interface Notice {
  kind: 'info' | 'error';
  message: string;
}

function fakeVscode(notices: Notice[]) {
  class Emitter {
    private listeners: (() => void)[] = [];
    event = (l: () => void) => (this.listeners.push(l), { dispose: () => undefined });
    fire = () => this.listeners.forEach((l) => l());
    dispose = () => undefined;
  }
  const t = (message: string, ...args: unknown[]) => message.replace(/\{(\d+)\}/g, (m, i: string) => (args[Number(i)] === undefined ? m : String(args[Number(i)])));
  return {
    EventEmitter: Emitter,
    Disposable: { from: (...items: { dispose(): void }[]) => ({ dispose: () => items.forEach((i) => i.dispose()) }) },
    window: {
      onDidChangeWindowState: () => ({ dispose: () => undefined }),
      showInformationMessage: async (message: string) => (notices.push({ kind: 'info', message }), undefined),
      showErrorMessage: async (message: string) => (notices.push({ kind: 'error', message }), undefined),
      showWarningMessage: async () => undefined,
    },
    commands: { executeCommand: async () => undefined },
    l10n: { t },
  };
}

/** A cancellation the test pulls itself, as "stop following" does. */
function cancellation() {
  const listeners: (() => void)[] = [];
  const token = {
    isCancellationRequested: false,
    onCancellationRequested: (l: () => void) => (listeners.push(l), { dispose: () => undefined }),
  };
  return { token, cancel: () => ((token.isCancellationRequested = true), listeners.forEach((l) => l())) };
}

describe('following a redeploy', function () {
  const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const load = loader._load;
  const notices: Notice[] = [];
  let DeploymentHealth: typeof HealthModule.DeploymentHealth;

  before(() => {
    const vscode = fakeVscode(notices);
    loader._load = function (request: string, ...rest: unknown[]) {
      return request === 'vscode' ? vscode : load.call(this, request, ...rest);
    };
    // Loaded afresh with this fake: an earlier suite may have loaded them with a fake that shows no notices.
    for (const file of Object.keys(require.cache).filter((f) => /[\\/]src[\\/](platform|ui)[\\/]/.test(f))) {
      delete require.cache[file];
    }
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    DeploymentHealth = (require('../../src/platform/deploymentHealth') as typeof HealthModule).DeploymentHealth;
  });
  after(() => {
    loader._load = load;
  });
  beforeEach(() => notices.splice(0));

  function healthWith(statuses: (call: number) => DeploymentStatus, onCall?: (call: number) => void) {
    let calls = 0;
    const client = {
      status: async () => {
        calls += 1;
        onCall?.(calls);
        return statuses(calls);
      },
      logs: async () => ({ lines: [], dropped: 0, unread: 0 }),
    };
    const imported = { list: () => [], onDidChange: () => ({ dispose: () => undefined }) };
    const account = { current: async () => undefined, onDidChange: () => ({ dispose: () => undefined }) };
    const health = new DeploymentHealth(account as never, imported as never, client as never, { warn: () => undefined, info: () => undefined } as never);
    return { health, calls: () => calls };
  }

  it('does not announce online while the status stays "Crew is Online" as it was before the redeploy', async () => {
    const stop = cancellation();
    const { health, calls } = healthWith(
      () => ({ status: 'Crew is Online', state: 'online' }),
      (call) => call === 3 && stop.cancel(),
    );
    try {
      const signIn = { baseUrl: 'https://app.crewai.com', token: 'pat_x' };
      const ended = await health.followRedeploy(signIn, { uuid: 'dep-1', name: 'Research', crewUrl: 'https://research.example' }, stop.token as never);
      assert.equal(ended, undefined, 'the redeploy was never seen starting, so it is not "online again"');
      assert.ok(calls() >= 3, `asked ${calls()} times`);
      assert.ok(!notices.some((n) => /online again/.test(n.message)), JSON.stringify(notices));
    } finally {
      health.dispose();
    }
  });
});
