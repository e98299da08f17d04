// Issue #51: a keyring that fails (VS Code's SecretStorage throwing: a locked or missing system keyring) is one clear
// error where the user acted, never a rejection left unhandled (a timer, an event, VS Code's accounts menu ask for
// the sign-in too), and never a silent nothing after the user typed a token.
import * as assert from 'node:assert/strict';
import type * as AccountModule from '../../src/platform/account';
import type * as AuthModule from '../../src/platform/authProvider';
import type * as SessionModule from '../../src/platform/platformSession';
import type { ServicesWithPlatform } from '../../src/platform/platformServices';
import { FakeEventEmitter, fakeVscode, requireFreshWith, stubModule } from './helpers/fakeVscode';

const BASE = 'https://platform.example.com';
const TOKEN = 'pat-KEYRINGcanary-0123456789';

/** SecretStorage whose keyring refuses everything; `fire` announces a change as another window's write would. */
class FailingSecrets {
  private readonly changed = new FakeEventEmitter<{ key: string }>();
  readonly onDidChange = this.changed.event;
  get = () => Promise.reject(new Error('The keyring is locked'));
  store = () => Promise.reject(new Error('The keyring is locked'));
  delete = () => Promise.reject(new Error('The keyring is locked'));
  keys = () => Promise.reject(new Error('The keyring is locked'));
  fire(key: string): void {
    this.changed.fire({ key });
  }
}

let restoreSignIn: (() => void) | undefined;

function load() {
  const errors: string[] = [];
  const asked: number[] = [];
  const vscode = {
    ...fakeVscode,
    EventEmitter: FakeEventEmitter,
    workspace: {
      getConfiguration: () => ({ inspect: () => ({ globalValue: BASE }), get: () => undefined }),
      onDidChangeConfiguration: () => ({ dispose: () => undefined }),
    },
    window: {
      ...fakeVscode.window,
      showErrorMessage: (message: string) => (errors.push(message), Promise.resolve(undefined)),
      showWarningMessage: () => Promise.resolve(undefined),
      showInformationMessage: () => Promise.resolve(undefined),
    },
  };
  // The sign-in flow (its own bundle, required on the first sign-in) answered: the user typed a token and picked the organization.
  restoreSignIn = stubModule(require.resolve('../../src/platform/signIn'), {
    askSignIn: () => (asked.push(1), Promise.resolve({ baseUrl: BASE, token: TOKEN, organizationId: 'org-1', organizationName: 'Acme' })),
  });
  const [account, auth, session] = requireFreshWith(
    [require.resolve('../../src/platform/account'), require.resolve('../../src/platform/authProvider'), require.resolve('../../src/platform/platformSession')],
    vscode,
  ) as [typeof AccountModule, typeof AuthModule, typeof SessionModule];
  const secrets = new FailingSecrets();
  const platformAccount = new account.PlatformAccount(secrets as never);
  const provider = new auth.CrewAIAuthenticationProvider(platformAccount, {} as never);
  const services = { platform: { account: platformAccount, auth: provider } } as unknown as ServicesWithPlatform;
  return { errors, asked, secrets, account: platformAccount, provider, session, services };
}

/** Lets every promise already settled run its handlers (no clock: the work here needs no timer). */
async function settledHandlers(): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('A keyring that fails (issue #51)', () => {
  let unhandled: unknown[];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  let mochaListeners: NodeJS.UnhandledRejectionListener[];

  beforeEach(() => {
    unhandled = [];
    // Counted here rather than by mocha, which would fail whichever test runs when one arrives.
    mochaListeners = process.listeners('unhandledRejection');
    process.removeAllListeners('unhandledRejection');
    process.on('unhandledRejection', onUnhandled);
  });

  afterEach(() => {
    restoreSignIn?.();
    restoreSignIn = undefined;
    process.off('unhandledRejection', onUnhandled);
    for (const listener of mochaListeners) {
      process.on('unhandledRejection', listener);
    }
  });

  it('reads as signed out, never as a rejection, and keeps why for the user', async () => {
    const { account } = load();
    assert.equal(await account.current(), undefined);
    assert.match(account.unreadable()?.message ?? '', /secret storage \(the system keyring\) failed: The keyring is locked/);
  });

  it('leaves no rejection unhandled when another window’s change arrives or VS Code asks for the sessions', async () => {
    const { secrets, provider } = load();
    secrets.fire(`crewRuns.platformToken:${BASE}`);
    await settledHandlers();
    assert.deepEqual(unhandled.map(String), []);
    assert.deepEqual(await provider.getSessions(), []);
  });

  it('says once that the token typed could not be kept, never silently, and never shows the token', async () => {
    const { errors, provider, session, services } = load();
    await assert.rejects(provider.createSession());
    assert.equal(errors.length, 1, JSON.stringify(errors));
    assert.match(errors[0], /Could not keep your personal access token, so you are not signed in\. .*secret storage .*The keyring is locked/);
    assert.ok(!errors[0].includes(TOKEN));
    // The command's way in says nothing more: the one error was said where it happened.
    assert.equal(await session.signInNow(services), false);
    assert.equal(errors.length, 2, 'the second try says it again, once');
    await settledHandlers();
    assert.deepEqual(unhandled, []);
  });

  it('a command that needs the sign-in says the keyring failed, once, and asks for no token it could not keep', async () => {
    const { errors, asked, session, services } = load();
    assert.equal(await session.signedIn(services), undefined);
    assert.equal(asked.length, 0, 'no token asked for');
    assert.equal(errors.length, 1, JSON.stringify(errors));
    assert.match(errors[0], /Could not read your CrewAI sign-in\. .*The keyring is locked/);
  });
});
