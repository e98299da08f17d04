// The CrewAI CLI's sign-in (#37): found under a fake home folder for each OS, its Fernet-encrypted token read
// with its expiry, an expired one said as expired (without the token), the CLI settings' platform URL and
// organization honoured, and a damaged or foreign file said as unreadable.
import * as assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cliPaths, cliSignInExists, fernetDecrypt, readCliSignIn } from '../../src/platform/cliSignIn';
import { base64Url as b64url, writeCliSignIn } from '../fixtures/crewaiCli';

describe('The CrewAI CLI sign-in', () => {
  let home: string;
  const key = crypto.randomBytes(32);
  const linux = () => cliPaths({ home, platform: 'linux', env: {} });

  function writeCli(body: object, settings?: object, paths = linux()): void {
    writeCliSignIn(paths, key, body, settings);
  }


  beforeEach(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'crew-runs-cli-home-'));
  });
  afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

  it('looks in the folders the CLI uses on each OS', () => {
    assert.equal(cliPaths({ home: '/h', platform: 'linux', env: {} }).credentialsDir, path.join('/h', '.local', 'share', 'crewai', 'credentials'));
    assert.equal(cliPaths({ home: '/h', platform: 'darwin', env: {} }).credentialsDir, path.join('/h', 'Library', 'Application Support', 'crewai', 'credentials'));
    assert.equal(cliPaths({ home: 'C:\\Users\\a', platform: 'win32', env: { LOCALAPPDATA: 'C:\\Users\\a\\AppData\\Local' } }).credentialsDir, 'C:\\Users\\a\\AppData\\Local\\crewai\\credentials');
    assert.equal(cliPaths({ home: '/h', platform: 'linux', env: {} }).settingsFile, path.join('/h', '.config', 'crewai', 'settings.json'));
  });

  it('is not offered without the CLI files, and reads nothing then', async () => {
    assert.equal(await cliSignInExists(linux()), false);
    assert.deepEqual(await readCliSignIn(linux()), { kind: 'missing' });
  });

  it('reads the token, its expiry and the CLI settings’ platform URL and organization', async () => {
    const expiration = new Date(Date.now() + 3600_000).toISOString();
    writeCli({ access_token: 'eyJ.cli.jwt', expiration }, { enterprise_base_url: 'https://crewai.acme.internal', org_uuid: 'org-1', org_name: 'Acme' });
    assert.equal(await cliSignInExists(linux()), true);
    assert.deepEqual(await readCliSignIn(linux()), { kind: 'ok', token: 'eyJ.cli.jwt', expiresAt: new Date(expiration), baseUrl: 'https://crewai.acme.internal', organizationId: 'org-1', organizationName: 'Acme' });
  });

  it('without CLI settings: no platform URL or organization of its own', async () => {
    writeCli({ access_token: 'eyJ.cli.jwt', expiration: new Date(Date.now() + 60_000).toISOString() });
    const read = await readCliSignIn(linux());
    assert.equal(read.kind, 'ok');
    assert.equal(read.kind === 'ok' && (read.baseUrl ?? read.organizationId), undefined);
  });

  it('says an expired sign-in is expired, without its token', async () => {
    writeCli({ access_token: 'eyJ.old', expiration: '2020-01-01T00:00:00Z' });
    const read = await readCliSignIn(linux());
    assert.deepEqual(read, { kind: 'expired', expiresAt: new Date('2020-01-01T00:00:00Z') });
    assert.ok(!JSON.stringify(read).includes('eyJ.old'));
  });

  it('a file signed with another key, or damaged, is unreadable', async () => {
    writeCli({ access_token: 'x', expiration: new Date(Date.now() + 60_000).toISOString() });
    const dir = linux().credentialsDir;
    fs.writeFileSync(path.join(dir, 'secret.key'), b64url(crypto.randomBytes(32)));
    assert.deepEqual(await readCliSignIn(linux()), { kind: 'unreadable', reason: 'the signature does not match the key' });
    fs.writeFileSync(path.join(dir, 'tokens.enc'), 'not fernet');
    assert.equal((await readCliSignIn(linux())).kind, 'unreadable');
    assert.throws(() => fernetDecrypt('short', 'gAAAA'), /32 bytes/);
  });
});
