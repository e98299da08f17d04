import * as vscode from 'vscode';
import { readFileSync } from 'node:fs';
import { readNumberSetting } from '../util/crewRunsSettings';
import { DEFAULT_NETWORK_SETTINGS, type NetworkSettings } from './transportTypes';
import { errorText } from '../util/errorText';

/**
 * undici does not go through VS Code's proxy support, so VS Code's own proxy settings are read
 * here and handed to undici's proxy agent. Read when a transport is built, not at activation.
 */
export function readNetworkSettings(log: vscode.LogOutputChannel): NetworkSettings {
  const http = vscode.workspace.getConfiguration('http');
  const crewRuns = vscode.workspace.getConfiguration('crewRuns');
  const timeoutSeconds = readNumberSetting(crewRuns, 'requestTimeoutSeconds', vscode.workspace.isTrusted);
  const extraCaCertificates: string[] = [];
  for (const file of crewRuns.get<string[]>('extraCaCertificates', [])) {
    try {
      extraCaCertificates.push(readFileSync(file, 'utf8'));
    } catch (error) {
      log.warn(`Could not read the CA certificate file ${file}: ${errorText(error)}`);
    }
  }
  return {
    ...DEFAULT_NETWORK_SETTINGS,
    proxy: http.get<string>('proxy') || undefined,
    proxyStrictSSL: http.get<boolean>('proxyStrictSSL', true),
    proxyAuthorization: http.get<string | null>('proxyAuthorization') ?? undefined,
    extraCaCertificates,
    headersTimeoutMs: timeoutSeconds * 1000,
    bodyTimeoutMs: timeoutSeconds * 1000,
    // A slow start and a slow body each get the time limit; together, twice that.
    totalTimeoutMs: timeoutSeconds * 2000,
  };
}

export function affectsNetworkSettings(e: vscode.ConfigurationChangeEvent): boolean {
  return ['http.proxy', 'http.proxyStrictSSL', 'http.proxyAuthorization', 'crewRuns.extraCaCertificates', 'crewRuns.requestTimeoutSeconds'].some((s) =>
    e.affectsConfiguration(s),
  );
}
