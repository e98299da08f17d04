// Demo windows of a session (bridge requests {type: 'demo'}; see DemoRequest in
// helpers/uiBridgeProtocol.ts): a VS Code server in the demo's own configuration (demoServer.ts,
// what `npm run demo` starts: no smoke-test driver, the extension installed, CREW_RUNS_DEMO=1) and
// a page on it in a browser context of its own, as a user's browser. No test runs in that window:
// tests drive it from outside with the bridge's keys, DOM text and screenshots (`window: <name>`).
import type { ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { DemoResult } from '../helpers/uiBridgeProtocol';
import type { KeyServer } from './demoKeyServer';
import { startDemoServer } from './demoServer';
import { consoleLogLine } from './uiBridge';
import { freeLoopbackPort, killProcessGroup } from './processes';

export interface DemoWindowsOptions {
  browser: Browser;
  nodeBin: string;
  serverMain: string;
  extensionDir: string;
  /** Each demo gets a folder here (removed with the session). */
  tempDir: string;
  /** Where a demo's server output and workbench console go. */
  logFile: (name: string, kind: 'server' | 'workbench') => string;
  /** Where a demo's own logs (the extension's log among them) are copied when it closes. */
  logsDir: (name: string) => string;
  log: (message: string) => void;
}

interface OpenDemo {
  server: ChildProcess;
  front: KeyServer;
  context: BrowserContext;
  page: Page;
  url: string;
  log: fs.WriteStream;
  demoDir: string;
}

export class DemoWindows {
  private readonly demos = new Map<string, OpenDemo>();

  constructor(private readonly options: DemoWindowsOptions) {}

  has(name: string): boolean {
    return this.demos.has(name);
  }

  page(name: string): Page {
    const demo = this.demos.get(name);
    if (!demo) {
      throw new Error(`no demo window named '${name}' is open`);
    }
    return demo.page;
  }

  async open(name: string, timeoutMs: number): Promise<DemoResult> {
    if (!/^[\w-]+$/.test(name)) {
      throw new Error(`demo window name '${name}' must be plain ([A-Za-z0-9_-])`);
    }
    if (this.demos.has(name)) {
      throw new Error(`demo window '${name}' is already open`);
    }
    const demoDir = path.join(this.options.tempDir, `demo-${name}`);
    fs.rmSync(demoDir, { recursive: true, force: true });
    this.options.log(`starting demo ${name} (the demo's own server configuration)…`);
    let spawned: ChildProcess | undefined;
    let opened: KeyServer | undefined;
    try {
      const { server, url, front } = await startDemoServer({
        nodeBin: this.options.nodeBin,
        serverMain: this.options.serverMain,
        port: await freeLoopbackPort(),
        extensionDir: this.options.extensionDir,
        demoDir,
        env: process.env,
        logFile: this.options.logFile(name, 'server'),
        onSpawn: (child) => (spawned = child),
      });
      opened = front;
      const context = await this.options.browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      const log = fs.createWriteStream(this.options.logFile(name, 'workbench'));
      page.on('console', (message) => log.write(consoleLogLine(message.type(), message.text())));
      page.on('pageerror', (error) => log.write(`[pageerror] ${error.stack ?? error.message}\n`));
      page.on('dialog', (dialog) => void dialog.accept().catch(() => undefined));
      this.demos.set(name, { server, front, context, page, url, log, demoDir });
      await page.goto(url, { waitUntil: 'domcontentloaded', timeout: timeoutMs });
      return { url };
    } catch (error) {
      if (spawned?.pid !== undefined && !this.demos.has(name)) {
        await killProcessGroup(spawned.pid);
        await opened?.close();
      }
      throw error;
    }
  }

  /** Reloads the page as F5 does (same browser context: its storage stays). */
  async reload(name: string, timeoutMs: number): Promise<DemoResult> {
    const demo = this.demos.get(name);
    if (!demo) {
      throw new Error(`no demo window named '${name}' is open`);
    }
    await demo.page.reload({ waitUntil: 'domcontentloaded', timeout: timeoutMs });
    return { url: demo.url };
  }

  async close(name: string): Promise<DemoResult> {
    const demo = this.demos.get(name);
    if (!demo) {
      throw new Error(`no demo window named '${name}' is open`);
    }
    this.demos.delete(name);
    await demo.context.close().catch(() => undefined);
    demo.log.end();
    if (demo.server.pid !== undefined) {
      await killProcessGroup(demo.server.pid);
    }
    await demo.front.close();
    // The extension's log in that window says what it did (the demo folder goes with the session).
    const logs = path.join(demo.demoDir, 'user-data', 'logs');
    if (fs.existsSync(logs)) {
      fs.cpSync(logs, this.options.logsDir(name), { recursive: true });
    }
    this.options.log(`demo ${name} closed`);
    return { url: demo.url };
  }

  async closeAll(): Promise<void> {
    for (const name of [...this.demos.keys()]) {
      await this.close(name);
    }
  }
}

