// Second workbench windows of a session (bridge requests {type: 'window'}; see WindowRequest in
// helpers/uiBridgeProtocol.ts). A window is one more page of the session's browser context on the
// same server and folder, as when a user opens a second VS Code window: it shares globalState
// (the workbench keeps it in IndexedDB and broadcasts changes between pages), SecretStorage
// (localStorage, keyed with the context's /mint-key answer) and the extension's files on the
// server, and gets an extension host of its own. That host runs the peer agent
// (suite/support/peerAgent.ts) instead of the suite: tests in the first window reach it through
// files in <bridge dir>/windows/<name>/ (suite/support/windows.ts).
import * as fs from 'fs';
import * as path from 'path';
import type { BrowserContext, Page } from 'playwright-core';
import { PEER_READY_FILE, PEER_WINDOWS_DIR, type PeerReady, type WindowResult } from '../helpers/uiBridgeProtocol';

export interface PeerWindowsOptions {
  context: BrowserContext;
  bridgeDir: string;
  /** Compiled peer agent, without .js. */
  agentModule: string;
  /** The workbench URL that runs this test entry (a path without .js) in the window's extension host. */
  workbenchUrl: (testsEntry: string) => string;
  /** Where the window's workbench log goes. */
  logFile: (name: string) => string;
  log: (message: string) => void;
  /** A line shown with the suite's own output. */
  print: (text: string) => void;
}

interface OpenWindow {
  page: Page;
  dir: string;
  log: fs.WriteStream;
}

const POLL_MS = 100;

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until<T>(what: string, timeoutMs: number, probe: () => T | undefined): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`${what} within ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

export class PeerWindows {
  private readonly windows = new Map<string, OpenWindow>();

  constructor(private readonly options: PeerWindowsOptions) {}

  /** The page of an open window. */
  page(name: string): Page {
    const open = this.windows.get(name);
    if (!open) {
      throw new Error(`no window named '${name}' is open`);
    }
    return open.page;
  }

  async open(name: string, timeoutMs: number): Promise<WindowResult> {
    if (!/^[\w-]+$/.test(name)) {
      throw new Error(`window name '${name}' must be plain ([A-Za-z0-9_-])`);
    }
    if (this.windows.has(name)) {
      throw new Error(`window '${name}' is already open`);
    }
    const dir = path.join(this.options.bridgeDir, PEER_WINDOWS_DIR, name);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(path.join(dir, 'requests'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'replies'), { recursive: true });
    // The smoke-test driver calls run() of the module named in the URL: a two-line entry that
    // starts the agent with this window's name and folder.
    const entry = path.join(dir, 'entry');
    fs.writeFileSync(
      `${entry}.js`,
      `"use strict";\nexports.run = () => require(${JSON.stringify(`${this.options.agentModule}.js`)}).runPeerAgent(${JSON.stringify(name)}, ${JSON.stringify(dir)});\n`,
    );

    const page = await this.options.context.newPage();
    const log = fs.createWriteStream(this.options.logFile(name));
    this.windows.set(name, { page, dir, log });
    page.on('pageerror', (error) => log.write(`[pageerror] ${error.stack ?? error.message}\n`));
    // A "leave the page?" prompt at close is answered as the user closing the window would.
    page.on('dialog', (dialog) => void dialog.accept().catch(() => undefined));
    await page.exposeFunction('codeAutomationLog', (level: string, args: unknown) => {
      const text = Array.isArray(args) ? args.map(String).join(' ') : String(args);
      log.write(`[${level}] ${text}\n`);
      if (text.startsWith('[peer ')) {
        this.options.print(`      ${text}`); // The agent's own lines (start, errors) show with the suite's.
      }
    });
    await page.exposeFunction('codeAutomationExit', (code: number) => log.write(`[integration] the agent's run() settled with exit code ${code}\n`));
    this.options.log(`opening window ${name}…`);
    await page.goto(this.options.workbenchUrl(entry), { waitUntil: 'domcontentloaded', timeout: timeoutMs });
    const readyFile = path.join(dir, PEER_READY_FILE);
    await until(`window ${name}: its agent did not start (see ${path.basename(this.options.logFile(name))})`, timeoutMs, () =>
      fs.existsSync(readyFile) ? true : undefined,
    );
    return { peerDir: dir };
  }

  /**
   * Closes the page as a user closes the window (unload handlers run), then waits for its
   * extension host to exit: a closed window must stop polling, as a real one does.
   */
  async close(name: string, timeoutMs: number): Promise<WindowResult> {
    const open = this.windows.get(name);
    if (!open) {
      throw new Error(`no window named '${name}' is open`);
    }
    const ready = JSON.parse(fs.readFileSync(path.join(open.dir, PEER_READY_FILE), 'utf8')) as PeerReady;
    this.windows.delete(name);
    await open.page.close({ runBeforeUnload: true });
    open.log.end();
    await until(`window ${name}: its extension host (pid ${ready.pid}) did not exit after the page closed`, timeoutMs, () =>
      pidAlive(ready.pid) ? undefined : true,
    );
    this.options.log(`window ${name} closed; its extension host (pid ${ready.pid}) exited`);
    return { peerDir: open.dir, exitedPid: ready.pid };
  }

  /** At the end of a session: windows a test left open. */
  async closeAll(): Promise<void> {
    for (const [name, open] of this.windows) {
      this.windows.delete(name);
      await open.page.close().catch(() => undefined);
      open.log.end();
    }
  }
}
