// A second VS Code window for tests (runner/windows.ts opens it): its own extension host on the
// same server and folder, sharing globalState, secrets and the extension's storage with the test's
// window. A test drives it through its agent (peerAgent.ts) — commands, its run store, its tree,
// the notifications it showed — and through its page (ui.text / ui.screenshot with `window`).
import * as fs from 'fs';
import * as path from 'path';
import { ui, waitFor } from '../../helpers';
import { SHOWN_FILE, type PeerReply, type PeerRequestBody } from '../../helpers/uiBridgeProtocol';
import type { Batch } from '../../../../src/batches/core/model';
import type { RunSummary, TreeRow } from './kit';
import type { ShownMessage } from './monitoring';

let counter = 0;

export class PeerWindow {
  private constructor(
    readonly name: string,
    private readonly dir: string,
  ) {}

  /** Opens a second window and waits until its agent has the extension active. */
  static async open(name: string): Promise<PeerWindow> {
    const { peerDir } = await ui.window('open', name, { timeoutMs: 120_000 });
    return new PeerWindow(name, peerDir);
  }

  /** Closes it as a user closes a window; resolves once its extension host has exited. */
  async close(): Promise<void> {
    await ui.window('close', this.name, { timeoutMs: 60_000 });
  }

  private async request<T>(body: PeerRequestBody, timeoutMs = 30_000): Promise<T> {
    const id = `peer-${process.pid}-${Date.now()}-${++counter}`;
    const file = path.join(this.dir, 'requests', `${id}.json`);
    fs.writeFileSync(`${file}.tmp`, JSON.stringify({ id, ...body }));
    fs.renameSync(`${file}.tmp`, file);
    const replyFile = path.join(this.dir, 'replies', `${id}.json`);
    await waitFor(() => fs.existsSync(replyFile), { message: `window ${this.name} to answer '${body.type}'`, timeoutMs, intervalMs: 50 });
    const reply = JSON.parse(fs.readFileSync(replyFile, 'utf8')) as PeerReply;
    fs.rmSync(replyFile, { force: true });
    if (!reply.ok) {
      throw new Error(`window ${this.name}: ${reply.error}`);
    }
    return reply.result as T;
  }

  /** Runs a command in that window (arguments and result as JSON). */
  command<T = unknown>(command: string, ...args: unknown[]): Promise<T> {
    return this.request<T>({ type: 'command', command, args }, 60_000);
  }

  /** Kicks off without the review, through that window's test API. */
  kickOff(crew: string, inputs: Record<string, string>): Promise<string | null> {
    return this.request<string | null>({ type: 'kickOff', crew, inputs }, 60_000);
  }

  runs(): Promise<RunSummary[]> {
    return this.request<RunSummary[]>({ type: 'runs' });
  }

  async run(id: string): Promise<RunSummary | undefined> {
    return (await this.runs()).find((run) => run.id === id);
  }

  tree(): Promise<TreeRow[]> {
    return this.request<TreeRow[]>({ type: 'tree' });
  }

  /** That window's copies of the batches; `refresh`: re-read from disk first, as the window does every 30 s. */
  batches(options: { refresh?: boolean } = {}): Promise<Batch[]> {
    return this.request<Batch[]>({ type: 'batches', refresh: options.refresh === true });
  }

  /** The notifications the extension asked for in that window since it opened. */
  /** The notifications this window showed, read from the file its agent writes as each is shown: complete even
   *  after the window closed (a notice shown while it was closing counts). */
  messages(): Promise<ShownMessage[]> {
    const file = path.join(this.dir, SHOWN_FILE);
    const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n') : [];
    // Only lines that end with their newline are whole (the last may be half written at this moment).
    return Promise.resolve(lines.slice(0, -1).map((line) => JSON.parse(line) as ShownMessage));
  }

  /** From now on that window answers modal warnings with `answer` (undefined: dismissed). */
  async answerModals(answer: string | undefined): Promise<void> {
    await this.request({ type: 'answerModals', answer: answer ?? null });
  }

  /** innerText of an element of that window's page (e.g. selectors.statusBar). */
  text(selector: string, options: { timeoutMs?: number } = {}): Promise<string> {
    return ui.text(selector, { ...options, window: this.name });
  }

  screenshot(name: string, options: { selector?: string } = {}) {
    return ui.screenshot(name, { ...options, window: this.name });
  }
}
