// The demo's front door: everything is passed through to its VS Code server, except POST /mint-key, answered here.
//
// Why: VS Code for the Web keeps its secrets (SecretStorage: the crews' tokens, the platform sign-in) in the
// page's local storage, sealed with a key whose server half the workbench asks for at POST <path>/mint-key
// (vs/code/browser/workbench/workbench.ts, ServerKeyedAESCrypto). `code serve-web` and code-server answer that
// route; VS Code's own server, which the demo runs, does not. The workbench then failed to seal, kept every
// secret in memory only, and a reload lost them all: the platform sign-in was gone after one (issue #51), and the
// demo crews came back only because the demo sets their tokens at every start. (The integration runner's own
// windows answer /mint-key in their browser context, which is why no test saw it.) The key half is kept beside
// the demo's user data, as code-server keeps it (`serve-web-key-half`), so the secrets outlive a reload.
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as http from 'http';
import * as net from 'net';

/** The server's half of the secrets' key: 32 bytes made once, then read from `file`. */
function keyHalf(file: string): Buffer {
  try {
    const key = fs.readFileSync(file);
    if (key.length === 32) {
      return key;
    }
  } catch {
    // Not made yet.
  }
  const key = randomBytes(32);
  fs.writeFileSync(file, key, { mode: 0o600 });
  return key;
}

export interface KeyServer {
  close(): Promise<void>;
}

/** Listens on 127.0.0.1:`port`, answers POST …/mint-key with the key half in `keyFile`, passes all else to `targetPort`. */
export async function startKeyServer(options: { port: number; targetPort: number; keyFile: string }): Promise<KeyServer> {
  const key = keyHalf(options.keyFile);
  const upgraded = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    const pathname = (req.url ?? '/').split('?')[0];
    if (req.method === 'POST' && pathname.endsWith('/mint-key')) {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'cache-control': 'no-store' });
      res.end(key);
      return;
    }
    const upstream = http.request({ host: '127.0.0.1', port: options.targetPort, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) {
        res.writeHead(502);
      }
      res.end();
    });
    req.pipe(upstream);
  });
  // The workbench's connections to its server (WebSockets): the request passed on as it came, then both ways.
  server.on('upgrade', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    const upstream = net.connect(options.targetPort, '127.0.0.1', () => {
      const lines = [`${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/${req.httpVersion}`];
      for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
        lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      }
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length) {
        upstream.write(head);
      }
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upgraded.add(socket);
    const end = () => {
      upgraded.delete(socket);
      upstream.destroy();
      socket.destroy();
    };
    upstream.on('error', end);
    upstream.on('close', end);
    socket.on('error', end);
    socket.on('close', end);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of upgraded) {
          socket.destroy();
        }
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
