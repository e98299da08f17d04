// Corporate networks: the client must go through the proxy VS Code or the environment names, trust
// an extra CA when told to, and leave hosts in NO_PROXY alone. A local CONNECT proxy and a local
// HTTPS "crew" with a self-signed certificate for crew.test stand in for both.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { CrewClient } from '../../src/api/client';
import { CrewApiError } from '../../src/api/errors';
import { createTransport } from '../../src/api/transport';
import { DEFAULT_NETWORK_SETTINGS, type NetworkSettings } from '../../src/api/transportTypes';

const TOKEN = 'proxy-canary-token-4242';

describe('CrewClient behind a proxy', function () {
  this.timeout(20_000);
  let dir: string;
  let certificate: string;
  let crew: Server;
  let proxy: Server;
  let crewPort: number;
  let proxyUrl: string;
  const sockets = new Set<Socket>();
  const connects: string[] = [];
  const authorizations: (string | undefined)[] = [];
  const proxyAuthorizations: (string | undefined)[] = [];
  const forwarded: string[] = [];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crew-runs-proxy-'));
    // A certificate only this test trusts, for a host name that does not resolve here.
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=crew.test',
      '-addext', 'subjectAltName=DNS:crew.test',
      '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    certificate = fs.readFileSync(path.join(dir, 'cert.pem'), 'utf8');

    crew = createHttpsServer({ key: fs.readFileSync(path.join(dir, 'key.pem')), cert: certificate }, (req, res) => {
      authorizations.push(req.headers.authorization);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ inputs: ['topic'] }));
    });
    crew.on('connection', (s) => sockets.add(s));
    crewPort = await listen(crew);

    // Whatever host a CONNECT names, the tunnel leads to the local crew.
    // A plain http:// request through the proxy (no CONNECT) is recorded with what it carried, then refused.
    proxy = createHttpServer((req, res) => {
      forwarded.push(`${req.url ?? ''} ${req.headers.authorization ?? ''}`);
      res.writeHead(405).end();
    });
    proxy.on('connect', (req, client: Socket, head: Buffer) => {
      connects.push(req.url ?? '');
      proxyAuthorizations.push(req.headers['proxy-authorization']);
      const upstream = connect(crewPort, '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
      sockets.add(client);
      sockets.add(upstream);
    });
    proxy.on('connection', (s) => sockets.add(s));
    proxyUrl = `http://127.0.0.1:${await listen(proxy)}`;
  });

  beforeEach(() => {
    connects.length = 0;
    authorizations.length = 0;
    proxyAuthorizations.length = 0;
    forwarded.length = 0;
  });

  after(async () => {
    sockets.forEach((s) => s.destroy());
    await new Promise((resolve) => crew.close(resolve));
    await new Promise((resolve) => proxy.close(resolve));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function client(settings: Partial<NetworkSettings>, env: NodeJS.ProcessEnv = {}) {
    return new CrewClient({
      getToken: async () => TOKEN,
      getNetworkSettings: () => ({ ...DEFAULT_NETWORK_SETTINGS, connectTimeoutMs: 3000, headersTimeoutMs: 3000, ...settings }),
      createTransport: (s) => createTransport(s, env),
      retry: { attempts: 1 },
    });
  }

  it('tunnels through http.proxy and trusts the extra CA certificate', async () => {
    const c = client({ proxy: proxyUrl, extraCaCertificates: [certificate], proxyAuthorization: 'Basic dXNlcjpwYXNz' });
    assert.deepEqual(await c.getInputs('https://crew.test'), ['topic']);
    assert.deepEqual(connects, ['crew.test:443']);
    assert.deepEqual(authorizations, [`Bearer ${TOKEN}`], 'the token reaches the crew, inside the tunnel');
    assert.deepEqual(proxyAuthorizations, ['Basic dXNlcjpwYXNz'], 'http.proxyAuthorization goes to the proxy');
    await c.dispose();
  });

  it('uses HTTPS_PROXY from the environment when http.proxy is empty', async () => {
    const c = client({ extraCaCertificates: [certificate] }, { HTTPS_PROXY: proxyUrl });
    assert.deepEqual(await c.getInputs('https://crew.test'), ['topic']);
    assert.deepEqual(connects, ['crew.test:443']);
    await c.dispose();
  });

  it('refuses the unknown certificate by default, and says why', async () => {
    const c = client({ proxy: proxyUrl });
    await assert.rejects(c.getInputs('https://crew.test'), (e: unknown) => {
      assert.ok(e instanceof CrewApiError);
      assert.equal(e.kind, 'network');
      assert.match(e.message, /certificate/);
      assert.ok(!e.message.includes(TOKEN));
      return true;
    });
    assert.deepEqual(authorizations, [], 'no token sent over an untrusted connection');
    await c.dispose();
  });

  it('accepts it with http.proxyStrictSSL off', async () => {
    const c = client({ proxy: proxyUrl, proxyStrictSSL: false });
    assert.deepEqual(await c.getInputs('https://crew.test'), ['topic']);
    await c.dispose();
  });

  it('never sends a loopback crew through a proxy, whichever loopback address (issue 14, finding 6)', async () => {
    for (const host of ['127.0.0.2', '127.1.2.3', '127.255.255.254', '::1']) {
      const local = createHttpServer((_req, res) => res.setHeader('content-type', 'application/json').end(JSON.stringify({ inputs: ['local'] })));
      local.on('connection', (s) => sockets.add(s));
      let port: number;
      try {
        port = await listen(local, host);
      } catch {
        console.log(`      (${host} cannot be bound here: skipped)`);
        continue;
      }
      const url = host.includes(':') ? `http://[${host}]:${port}` : `http://${host}:${port}`;
      for (const c of [client({ proxy: proxyUrl }), client({}, { HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl, http_proxy: proxyUrl })]) {
        assert.deepEqual(await c.getInputs(url), ['local'], url);
        await c.dispose();
      }
      await new Promise((resolve) => local.close(resolve));
      assert.deepEqual(forwarded, [], `${url}: the proxy saw no request (and no token)`);
      assert.deepEqual(connects, [], `${url}: no tunnel either`);
    }
  });

  it('http.proxyStrictSSL off concerns the proxy only: a direct TLS connection still checks the certificate (issue 14, finding 8)', async () => {
    const direct = `https://127.0.0.1:${crewPort}`;
    for (const c of [client({ proxyStrictSSL: false }), client({ proxyStrictSSL: false, proxy: proxyUrl }), client({ proxyStrictSSL: false }, { HTTPS_PROXY: proxyUrl, NO_PROXY: '127.0.0.1' })]) {
      await assert.rejects(c.getInputs(direct), (e: unknown) => e instanceof CrewApiError && e.kind === 'network', 'an unverifiable certificate is refused on a direct connection');
      await c.dispose();
    }
    assert.deepEqual(authorizations, [], 'no token sent over an unverified direct connection');
    // The proxy itself may still be trusted loosely: through it, the same crew is reached.
    const viaProxy = client({ proxy: proxyUrl, proxyStrictSSL: false });
    assert.deepEqual(await viaProxy.getInputs('https://crew.test'), ['topic']);
    await viaProxy.dispose();
  });

  it('goes direct for hosts in NO_PROXY', async () => {
    const c = client({ extraCaCertificates: [certificate] }, { HTTPS_PROXY: proxyUrl, NO_PROXY: 'example.org,crew.test' });
    await assert.rejects(c.getInputs('https://crew.test'), (e: unknown) => e instanceof CrewApiError && e.kind === 'network' && /not found/.test(e.message));
    assert.deepEqual(connects, [], 'the proxy was not used');
    await c.dispose();
  });
});

function listen(server: Server, host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve((server.address() as AddressInfo).port));
  });
}
