// Reading back what the extension logged to its "Crew Runs" LogOutputChannel, and the extension
// host's own log. Log files are the robust source: a LogOutputChannel is written to
// `<extension log folder>/<channel name>.log` (the folder of context.logUri).
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { EXTENSION_ID, getExtensionApi } from './extension';
import { waitFor, type WaitForOptions } from './waitFor';

export const LOG_CHANNEL_NAME = 'Crew Runs';

/** Set by the browser runner: the server's logs folder (<user-data-dir>/logs). */
const LOGS_DIR_ENV = 'CREW_RUNS_TEST_LOGS_DIR';

function filesUnder(root: string, accept: (file: string) => boolean): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(root, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const full = path.join(root, entry.name);
    return entry.isDirectory() ? filesUnder(full, accept) : accept(full) ? [full] : [];
  });
}

function newest(files: string[]): string | undefined {
  return files.map((file) => ({ file, mtime: fs.statSync(file).mtimeMs })).sort((a, b) => b.mtime - a.mtime)[0]?.file;
}

/**
 * Path of the channel's log file, or undefined when it cannot be located. The test API may expose
 * the log folder (`logUri`); otherwise the runner's logs folder is searched.
 */
export async function channelLogFile(): Promise<string | undefined> {
  const api = await getExtensionApi<{ logUri?: unknown } | undefined>();
  if (api?.logUri instanceof vscode.Uri) {
    return path.join(api.logUri.fsPath, `${LOG_CHANNEL_NAME}.log`);
  }
  const root = process.env[LOGS_DIR_ENV];
  if (!root) {
    return undefined;
  }
  return newest(filesUnder(root, (file) => path.basename(file) === `${LOG_CHANNEL_NAME}.log` && path.basename(path.dirname(file)) === EXTENSION_ID));
}

/**
 * Everything the extension has written to its "Crew Runs" log channel so far ('' before the
 * first line). Falls back to the channel's output document when no log file can be located.
 */
export async function readLog(): Promise<string> {
  const file = await channelLogFile();
  if (file) {
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  }
  if (process.env[LOGS_DIR_ENV]) {
    return ''; // The channel creates its file with its first line.
  }
  const document = vscode.workspace.textDocuments.find(
    (doc) => doc.uri.scheme === 'output' && doc.uri.path.includes(LOG_CHANNEL_NAME),
  );
  if (document) {
    return document.getText();
  }
  throw new Error(`cannot locate the '${LOG_CHANNEL_NAME}' log: no log file under ${LOGS_DIR_ENV} and no output document (run crewRuns.showLog first)`);
}

/** Waits until the channel's log contains `expected`; returns the whole log. */
export function waitForLog(expected: string | RegExp, options: WaitForOptions = {}): Promise<string> {
  return waitFor(
    async () => {
      const text = await readLog();
      return (typeof expected === 'string' ? text.includes(expected) : expected.test(text)) ? text : undefined;
    },
    { message: `log line matching ${String(expected)}`, ...options },
  );
}

/** The extension host's own log (remoteexthost.log; activation errors land here), or undefined when not found. */
export function readExtensionHostLog(): string | undefined {
  const root = process.env[LOGS_DIR_ENV];
  if (!root) {
    return undefined;
  }
  const file = newest(filesUnder(root, (f) => /exthost\d*\.log$/.test(path.basename(f))));
  return file ? fs.readFileSync(file, 'utf8') : undefined;
}

/**
 * Every "Crew Runs" channel log file under the runner's logs folder, oldest first: a window reload
 * starts a new log folder, so a suite that reloads finds each window's lines in its own file.
 */
export function channelLogFiles(): string[] {
  const root = process.env[LOGS_DIR_ENV];
  if (!root) {
    return [];
  }
  return filesUnder(root, (file) => path.basename(file) === `${LOG_CHANNEL_NAME}.log` && path.basename(path.dirname(file)) === EXTENSION_ID)
    .map((file) => ({ file, mtime: fs.statSync(file).mtimeMs }))
    .sort((a, b) => a.mtime - b.mtime)
    .map((entry) => entry.file);
}

/** The channel's lines of every window so far (see channelLogFiles), oldest window first. */
export function readAllLogs(): string {
  return channelLogFiles()
    .map((file) => fs.readFileSync(file, 'utf8'))
    .join('\n');
}

/** Every extension host log so far (one per extension host: reloads add some), oldest first. */
export function readExtensionHostLogs(): { file: string; text: string }[] {
  const root = process.env[LOGS_DIR_ENV];
  if (!root) {
    return [];
  }
  return filesUnder(root, (f) => /exthost\d*\.log$/.test(path.basename(f)))
    .map((file) => ({ file, mtime: fs.statSync(file).mtimeMs }))
    .sort((a, b) => a.mtime - b.mtime)
    .map(({ file }) => ({ file, text: fs.readFileSync(file, 'utf8') }));
}
