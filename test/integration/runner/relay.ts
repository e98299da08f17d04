// A TCP relay between the browser and a reload session's VS Code server, so that a test can cut a
// window off the way a crashed tab, a closed laptop or a dropped network does (ReloadRequest via
// 'sever'): every connection of the page is dropped without a goodbye, and the old page's attempts
// to reconnect are refused. Its extension host never hears "terminate": it waits for its window for
// the server's reconnection grace time (hours), still running the extension. The reloaded page then
// connects afresh, with new connection tokens, and gets a new extension host.
import * as net from 'net';

interface Relayed {
  client: net.Socket;
  upstream: net.Socket;
}

export class Relay {
  private readonly connections = new Set<Relayed>();
  /** Reconnection tokens of severed connections: the page that held them must not come back. */
  private readonly severed = new Set<string>();
  private readonly tokens = new Map<Relayed, string>();

  private readonly server: net.Server;
  private listeningPort = 0;

  private constructor(targetPort: number) {
    this.server = net.createServer((client) => this.accept(client, targetPort));
  }

  /** Where the browser connects. */
  get port(): number {
    return this.listeningPort;
  }

  static async start(targetPort: number): Promise<Relay> {
    const relay = new Relay(targetPort);
    relay.listeningPort = await new Promise<number>((resolve, reject) => {
      relay.server.once('error', reject);
      relay.server.listen(0, '127.0.0.1', () => resolve((relay.server.address() as net.AddressInfo).port));
    });
    return relay;
  }

  /** Drops every connection at once; returns how many there were. */
  sever(): number {
    const count = this.connections.size;
    for (const connection of this.connections) {
      const token = this.tokens.get(connection);
      if (token) {
        this.severed.add(token);
      }
      connection.client.destroy();
      connection.upstream.destroy();
    }
    this.connections.clear();
    return count;
  }

  close(): void {
    this.sever();
    this.server.close();
  }

  private accept(client: net.Socket, targetPort: number): void {
    client.on('error', () => undefined);
    client.once('data', (first: Buffer) => {
      // The workbench's WebSocket requests carry `reconnectionToken=…` (with `reconnection=true` on a retry).
      const token = /[?&]reconnectionToken=([^&\s]+)/.exec(first.toString('latin1', 0, Math.min(first.length, 2048)))?.[1];
      if (token && this.severed.has(token)) {
        client.destroy();
        return;
      }
      const upstream = net.connect(targetPort, '127.0.0.1');
      const connection: Relayed = { client, upstream };
      this.connections.add(connection);
      if (token) {
        this.tokens.set(connection, token);
      }
      const forget = () => {
        this.connections.delete(connection);
        this.tokens.delete(connection);
      };
      const drop = () => {
        client.destroy();
        upstream.destroy();
        forget();
      };
      upstream.on('error', drop);
      client.on('error', drop);
      // A side that closes cleanly: the other gets what is still buffered, then the end (pipe does
      // that); destroying it here could lose the last bytes, e.g. the workbench's "terminate".
      upstream.on('close', () => (client.end(), forget()));
      client.on('close', () => (upstream.end(), forget()));
      upstream.write(first);
      client.pipe(upstream);
      upstream.pipe(client);
    });
  }
}
