// Issue #51: Import Crews with a keyring that refuses to keep the crews' tokens says so once, and stops: what failed
// for the first crew fails for the rest too, so one error per crew (and a summary after them) told nothing more.
import * as assert from 'node:assert/strict';
import type * as ImportModule from '../../src/platform/importCommand';
import type { ServicesWithPlatform } from '../../src/platform/platformServices';
import { FakeEventEmitter, fakeVscode, requireFreshWith } from './helpers/fakeVscode';

const BASE = 'https://platform.example.com';

/** A quick pick the user accepts as it opens, with what was chosen for them (every deployment not imported yet). */
function acceptingPick() {
  const accepted: (() => void)[] = [];
  const pick = {
    items: [] as unknown[],
    selectedItems: [] as unknown[],
    onDidAccept: (listener: () => void) => (accepted.push(listener), { dispose: () => undefined }),
    onDidHide: () => ({ dispose: () => undefined }),
    show: () => queueMicrotask(() => accepted.forEach((listener) => listener())),
    hide: () => undefined,
    dispose: () => undefined,
  };
  return pick;
}

describe('Import Crews with a keyring that refuses (issue #51)', () => {
  it('says once that the crews could not be saved, and imports nothing more', async () => {
    const shown: { level: string; message: string }[] = [];
    const record = (level: string) => (message: string) => (shown.push({ level, message }), Promise.resolve(undefined));
    const vscode = {
      ...fakeVscode,
      EventEmitter: FakeEventEmitter,
      ProgressLocation: { Notification: 15 },
      workspace: { getConfiguration: () => ({ inspect: () => ({ globalValue: BASE }), get: () => undefined }), onDidChangeConfiguration: () => ({ dispose: () => undefined }) },
      window: {
        ...fakeVscode.window,
        withProgress: (_options: unknown, task: (progress: unknown, token: unknown) => unknown) => task({ report: () => undefined }, { onCancellationRequested: () => ({ dispose: () => undefined }) }),
        createQuickPick: acceptingPick,
        showErrorMessage: record('error'),
        showWarningMessage: record('warning'),
        showInformationMessage: record('info'),
      },
    };
    const [{ importCrews }] = requireFreshWith([require.resolve('../../src/platform/importCommand')], vscode) as [typeof ImportModule];
    const deployments = ['alpha-crew', 'beta-crew', 'gamma-crew'].map((name) => ({ uuid: `dep-${name}`, name, status: 'Crew is Online', state: 'online', publicUrl: `https://${name}.example.com` }));
    const tokenWrites: string[] = [];
    const services = {
      log: { info: () => undefined, warn: () => undefined, error: () => undefined },
      crews: { get: () => undefined, addUserCrew: async () => undefined, setHealth: () => undefined, remove: async () => undefined },
      tokens: {
        set: (url: string) => (tokenWrites.push(url), Promise.reject(new Error('The keyring is locked'))),
        get: async () => undefined,
        has: async () => false,
      },
      platform: {
        account: { current: async () => ({ baseUrl: BASE, token: 'pat-personal-0123456789', organizationName: 'Acme' }), unreadable: () => undefined },
        client: {
          deployments: async () => ({ deployments, skipped: 0 }),
          status: async (_signIn: unknown, uuid: string) => ({ state: 'online', status: 'Crew is Online', publicUrl: deployments.find((d) => d.uuid === uuid)?.publicUrl, token: 'crew-token-0123456789' }),
        },
        imported: { byDeployment: () => undefined, set: async () => undefined },
        health: { refresh: async () => undefined },
      },
    } as unknown as ServicesWithPlatform;

    assert.equal(await importCrews(services), 0);
    assert.deepEqual(tokenWrites, ['https://alpha-crew.example.com'], 'stopped at the first crew');
    assert.deepEqual(shown.map((s) => s.level), ['error'], JSON.stringify(shown));
    assert.match(shown[0].message, /^Could not save the crew Alpha Crew \(The keyring is locked\)\. The 2 deployments after it were not imported\.$/);
  });
});
