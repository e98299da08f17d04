// Shared by the security, hostile-output and bad-input suites: local servers that record whether a
// token reached them (never the token itself), a crew that answers with raw hostile bytes, spies on
// notifications, webview messages and save dialogs, and a scan of every file a VS Code run writes.
import * as fs from 'fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'http';
import type { AddressInfo, Socket } from 'net';
import * as path from 'path';
import * as vscode from 'vscode';

// ---- servers ----

export interface RecordedRequest {
  method: string;
  path: string;
  hasAuthorization: boolean;
  /** Whether the Authorization header contained one of the watched canaries (it is never stored). */
  carriesCanary: boolean;
}

export interface LocalServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

async function serve(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void, canaries: readonly string[]): Promise<LocalServer> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const auth = req.headers.authorization ?? '';
    requests.push({ method: req.method ?? '', path: req.url ?? '', hasAuthorization: auth !== '', carriesCanary: canaries.some((c) => auth.includes(c)) });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => {
      sockets.forEach((s) => s.destroy());
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(body));
}

/**
 * An attacker's server that looks like a crew: it answers every endpoint as a crew would (so a client
 * that sent a token would "succeed") and records whether an Authorization header ever arrived.
 */
export function startRecordingServer(canaries: readonly string[]): Promise<LocalServer> {
  return serve((req, res) => {
    const p = (req.url ?? '').replace(/\?.*$/, '');
    if (p.endsWith('/inputs')) {
      json(res, 200, { inputs: ['topic', 'audience'] });
    } else if (p.endsWith('/kickoff')) {
      json(res, 200, { kickoff_id: 'stolen-kickoff-id' });
    } else if (p.includes('/status/')) {
      json(res, 200, { state: 'RUNNING', status: 'Task is Running' });
    } else {
      json(res, 404, { detail: 'Not Found' });
    }
  }, canaries);
}

export interface HostileCrew extends LocalServer {
  /** Sets the raw /status body for kickoffs whose `topic` input is `topic`. */
  setStatus(topic: string, body: Buffer | string): void;
  /** Kickoffs received: their topic and the kickoff id answered. */
  kickoffs: { topic: string; kickoffId: string }[];
}

/**
 * A crew (live dialect) whose /status answer is raw bytes chosen by the test, per kickoff topic.
 * Requires a bearer token (any) like a real crew; /inputs lists `topic`.
 */
export async function startHostileCrew(): Promise<HostileCrew> {
  const bodies = new Map<string, Buffer | string>();
  const byKickoff = new Map<string, string>();
  const kickoffs: { topic: string; kickoffId: string }[] = [];
  let counter = 0;
  const server = await serve((req, res, body) => {
    if (!req.headers.authorization) {
      json(res, 401, { detail: 'Invalid or missing authentication credentials' });
      return;
    }
    const p = (req.url ?? '').replace(/\?.*$/, '');
    if (p.endsWith('/inputs')) {
      json(res, 200, { inputs: ['topic'] });
    } else if (p.endsWith('/kickoff') && req.method === 'POST') {
      let topic = '';
      try {
        topic = String((JSON.parse(body) as { inputs?: { topic?: unknown } }).inputs?.topic ?? '');
      } catch {
        // A kickoff body that is not JSON: no topic.
      }
      const kickoffId = `hostile-${++counter}-${Date.now()}`;
      byKickoff.set(kickoffId, topic);
      kickoffs.push({ topic, kickoffId });
      json(res, 200, { kickoff_id: kickoffId });
    } else if (p.includes('/status/')) {
      const id = decodeURIComponent(p.slice(p.lastIndexOf('/') + 1));
      const topic = byKickoff.get(id);
      const raw = topic === undefined ? undefined : bodies.get(topic);
      if (raw === undefined) {
        json(res, 200, { state: topic === undefined ? 'NOT FOUND' : 'RUNNING', status: 'Task is Running' });
        return;
      }
      res.statusCode = 200;
      res.setHeader('content-type', 'application/json');
      res.end(raw);
    } else {
      json(res, 404, { detail: 'Not Found' });
    }
  }, []);
  return { ...server, kickoffs, setStatus: (topic, b) => void bodies.set(topic, b) };
}

/** A loopback port nothing listens on (bound, then closed). */
export async function closedPortUrl(): Promise<string> {
  const server = await serve((_req, res) => res.end(), []);
  await server.close();
  return server.url;
}

// ---- spies ----

export interface ShownMessage {
  level: string;
  message: string;
  items: string[];
  detail?: string;
}

type WindowRecord = Record<string, (...args: unknown[]) => unknown>;

/** Records every show*Message call (and passes it on, so it still appears in the notification center). */
export class NotificationSpy implements vscode.Disposable {
  readonly shown: ShownMessage[] = [];
  private readonly originals = new Map<string, (...args: unknown[]) => unknown>();

  constructor() {
    const window = vscode.window as unknown as WindowRecord;
    for (const [name, level] of [
      ['showInformationMessage', 'info'],
      ['showWarningMessage', 'warning'],
      ['showErrorMessage', 'error'],
    ] as const) {
      const original = window[name];
      this.originals.set(name, original);
      window[name] = (...args: unknown[]) => {
        const options = typeof args[1] === 'object' && args[1] !== null && !('title' in (args[1] as object)) ? (args[1] as { detail?: string }) : undefined;
        this.shown.push({
          level,
          message: String(args[0]),
          detail: options?.detail,
          items: args.slice(1).map((a) => (typeof a === 'string' ? a : typeof a === 'object' && a !== null && 'title' in a ? String((a as { title: unknown }).title) : '')).filter(Boolean),
        });
        return original.apply(vscode.window, args);
      };
    }
  }

  matching(pattern: RegExp): ShownMessage[] {
    return this.shown.filter((m) => pattern.test(m.message));
  }

  text(): string {
    return this.shown.map((m) => [m.level, m.message, m.detail ?? '', ...m.items].join(' | ')).join('\n');
  }

  dispose(): void {
    const window = vscode.window as unknown as Record<string, unknown>;
    for (const [name, original] of this.originals) {
      window[name] = original;
    }
  }
}

/**
 * Records every message the extension posts to a webview panel created while the spy is active
 * (the tests share the extension's `vscode` object). Messages are kept as JSON text.
 */
export class WebviewMessageSpy implements vscode.Disposable {
  readonly messages: string[] = [];
  readonly htmls: string[] = [];
  private readonly original: typeof vscode.window.createWebviewPanel;

  constructor() {
    const window = vscode.window as unknown as { createWebviewPanel: typeof vscode.window.createWebviewPanel };
    this.original = window.createWebviewPanel;
    window.createWebviewPanel = (...args: Parameters<typeof vscode.window.createWebviewPanel>) => {
      const panel = this.original.apply(vscode.window, args);
      const webview = panel.webview;
      const post = webview.postMessage.bind(webview);
      const messages = this.messages;
      try {
        Object.defineProperty(webview, 'postMessage', {
          configurable: true,
          value: (message: unknown) => {
            messages.push(JSON.stringify(message));
            return post(message);
          },
        });
      } catch {
        // Not patchable: the test sees no messages and says so.
      }
      return panel;
    };
  }

  text(): string {
    return this.messages.join('\n');
  }

  dispose(): void {
    (vscode.window as unknown as { createWebviewPanel: typeof vscode.window.createWebviewPanel }).createWebviewPanel = this.original;
  }
}

/** Answers showSaveDialog with the given file (a save dialog cannot be driven in this harness). */
export function answerSaveDialog(target: vscode.Uri | undefined): vscode.Disposable & { calls: number } {
  const window = vscode.window as unknown as WindowRecord;
  const original = window.showSaveDialog;
  const state = { calls: 0, dispose: () => (window.showSaveDialog = original) };
  window.showSaveDialog = () => {
    state.calls++;
    return Promise.resolve(target);
  };
  return state as vscode.Disposable & { calls: number };
}

// ---- where VS Code keeps things ----

/** `<user-data-dir>` of this run (parent of CREW_RUNS_TEST_LOGS_DIR), when the runner says. */
export function userDataDir(): string | undefined {
  const logs = process.env.CREW_RUNS_TEST_LOGS_DIR;
  return logs ? path.dirname(logs) : undefined;
}

export function filesUnder(root: string): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(root, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const full = path.join(root, entry.name);
    return entry.isDirectory() ? filesUnder(full) : entry.isFile() ? [full] : [];
  });
}

/** Which needles occur in the file's bytes (as UTF-8, and as UTF-16LE, as SQLite may store text). */
export function needlesIn(file: string, needles: readonly string[]): string[] {
  let bytes: Buffer;
  try {
    if (fs.statSync(file).size > 200_000_000) {
      return [];
    }
    bytes = fs.readFileSync(file);
  } catch {
    return []; // Gone meanwhile.
  }
  return needles.filter((n) => bytes.includes(Buffer.from(n, 'utf8')) || bytes.includes(Buffer.from(n, 'utf16le')));
}

export interface ScanResult {
  /** What was scanned, by surface, with file counts. */
  surfaces: Record<string, number>;
  /** `surface: file → needles` for every hit. */
  hits: string[];
}

/** Scans every surface a token must never reach; text surfaces are passed in by the test. */
export function scanSurfaces(needles: readonly string[], files: Record<string, string[]>, texts: Record<string, string>): ScanResult {
  const surfaces: Record<string, number> = {};
  const hits: string[] = [];
  for (const [surface, list] of Object.entries(files)) {
    surfaces[surface] = list.length;
    for (const file of list) {
      const found = needlesIn(file, needles);
      if (found.length) {
        hits.push(`${surface}: ${file} → ${found.map((n) => `${n.slice(0, 8)}…`).join(', ')}`);
      }
    }
  }
  for (const [surface, text] of Object.entries(texts)) {
    surfaces[surface] = text.length;
    const found = needles.filter((n) => text.includes(n));
    if (found.length) {
      const at = text.indexOf(found[0]);
      hits.push(`${surface}: …${text.slice(Math.max(0, at - 60), at).replace(found[0], '<canary>')}<canary>… (${found.length} canaries)`);
    }
  }
  return { surfaces, hits };
}

/** Workspace settings file of the fixture folder. */
export function workspaceSettingsFile(): string | undefined {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  return folder ? path.join(folder, '.vscode', 'settings.json') : undefined;
}

/** The fixture folder is in git: leave no empty .vscode/settings.json behind. */
export function removeEmptyWorkspaceSettings(): void {
  const file = workspaceSettingsFile();
  if (!file || !fs.existsSync(file)) {
    return;
  }
  try {
    const value = JSON.parse(fs.readFileSync(file, 'utf8').trim() || '{}') as Record<string, unknown>;
    if (Object.keys(value).length === 0) {
      fs.rmSync(file);
      if (fs.readdirSync(path.dirname(file)).length === 0) {
        fs.rmdirSync(path.dirname(file));
      }
    }
  } catch {
    // Someone else's settings: leave them.
  }
}
