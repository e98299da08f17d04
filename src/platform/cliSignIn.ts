// The CrewAI CLI's own sign-in (`crewai login`, platform-api.md "The CLI's own sign-in"): its access token and
// expiry, Fernet-encrypted in `tokens.enc` with the key in `secret.key`, and its settings (`enterprise_base_url`,
// `org_uuid`, `org_name`). Read only when the user chooses it in the sign-in flow; the token then goes where a
// pasted one goes (SecretStorage, account.ts), never into settings or logs. Pure Node (no `vscode`): the folders
// come from a home folder, OS and environment passed in, so unit tests use a fake home.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { isPlainObject } from '../util/objects';

export interface CliPaths {
  /** Holds tokens.enc and secret.key. */
  credentialsDir: string;
  settingsFile: string;
}

export interface CliEnvironment {
  home: string;
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
}

/** Replaces the home folder the CLI's files are looked for in (the integration runner points it at an empty folder). */
export const CLI_HOME_ENV = 'CREW_RUNS_CREWAI_HOME';

/** Where the CLI keeps its sign-in on this machine (the folders platform-api.md names). */
export function cliPaths({ home, platform, env }: CliEnvironment = { home: process.env[CLI_HOME_ENV] || os.homedir(), platform: process.platform, env: process.env }): CliPaths {
  const credentialsDir =
    platform === 'win32'
      ? path.win32.join(env.LOCALAPPDATA ?? path.win32.join(home, 'AppData', 'Local'), 'crewai', 'credentials')
      : platform === 'darwin'
        ? path.join(home, 'Library', 'Application Support', 'crewai', 'credentials')
        : path.join(home, '.local', 'share', 'crewai', 'credentials');
  return { credentialsDir, settingsFile: path.join(home, '.config', 'crewai', 'settings.json') };
}

export type CliSignIn =
  | { kind: 'ok'; token: string; expiresAt: Date; baseUrl?: string; organizationId?: string; organizationName?: string }
  | { kind: 'expired'; expiresAt: Date }
  | { kind: 'missing' }
  | { kind: 'unreadable'; reason: string };

/** Whether the CLI's sign-in files exist (nothing is read). */
export async function cliSignInExists(paths: CliPaths): Promise<boolean> {
  try {
    await Promise.all([fs.access(path.join(paths.credentialsDir, 'tokens.enc')), fs.access(path.join(paths.credentialsDir, 'secret.key'))]);
    return true;
  } catch {
    return false;
  }
}

const MAX_FILE = 64 * 1024;

async function readSmall(file: string): Promise<string | undefined> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile() || stat.size > MAX_FILE) {
      return undefined;
    }
    return await fs.readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

const fromBase64Url = (text: string) => Buffer.from(text.trim().replace(/-/g, '+').replace(/_/g, '/'), 'base64');

/** Fernet (the public spec): version 0x80, timestamp, IV, AES-128-CBC ciphertext, HMAC-SHA256 of the rest. */
export function fernetDecrypt(keyText: string, tokenText: string): Buffer {
  const key = fromBase64Url(keyText);
  const data = fromBase64Url(tokenText);
  if (key.length !== 32) {
    throw new Error('the key is not 32 bytes');
  }
  if (data.length < 1 + 8 + 16 + 16 + 32 || data[0] !== 0x80 || (data.length - 57) % 16 !== 0) {
    throw new Error('not a Fernet token');
  }
  const signed = data.subarray(0, data.length - 32);
  const mac = crypto.createHmac('sha256', key.subarray(0, 16)).update(signed).digest();
  if (!crypto.timingSafeEqual(mac, data.subarray(data.length - 32))) {
    throw new Error('the signature does not match the key');
  }
  const decipher = crypto.createDecipheriv('aes-128-cbc', key.subarray(16), data.subarray(9, 25));
  return Buffer.concat([decipher.update(data.subarray(25, data.length - 32)), decipher.final()]);
}

const nonBlank = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() ? value.trim() : undefined);

/** The CLI's sign-in and settings; the reason (never the token) when it cannot be read. */
export async function readCliSignIn(paths: CliPaths, now = new Date()): Promise<CliSignIn> {
  const [encrypted, key] = await Promise.all([readSmall(path.join(paths.credentialsDir, 'tokens.enc')), readSmall(path.join(paths.credentialsDir, 'secret.key'))]);
  if (encrypted === undefined || key === undefined) {
    return { kind: 'missing' };
  }
  let body: unknown;
  try {
    body = JSON.parse(fernetDecrypt(key, encrypted).toString('utf8'));
  } catch (error) {
    return { kind: 'unreadable', reason: error instanceof SyntaxError ? 'its content is not JSON' : error instanceof Error ? error.message : 'unknown' };
  }
  if (!isPlainObject(body)) {
    return { kind: 'unreadable', reason: 'its content is not a JSON object' };
  }
  const token = nonBlank(body.access_token);
  const expiresAt = typeof body.expiration === 'string' ? new Date(body.expiration) : undefined;
  if (!token || /\s/.test(token)) {
    return { kind: 'unreadable', reason: 'it holds no access token' };
  }
  if (!expiresAt || Number.isNaN(expiresAt.getTime())) {
    return { kind: 'unreadable', reason: 'it holds no expiry date' };
  }
  if (expiresAt.getTime() <= now.getTime()) {
    return { kind: 'expired', expiresAt };
  }
  let settings: unknown;
  try {
    settings = JSON.parse((await readSmall(paths.settingsFile)) ?? '{}');
  } catch {
    settings = {};
  }
  const s = isPlainObject(settings) ? settings : {};
  return { kind: 'ok', token, expiresAt, baseUrl: nonBlank(s.enterprise_base_url), organizationId: nonBlank(s.org_uuid), organizationName: nonBlank(s.org_name) };
}
