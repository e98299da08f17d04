// The platform URL: a user (or remote machine) setting only. A workspace can never point the personal token
// elsewhere: the manifest scopes the setting to the machine, and this reads the user's value even so.
import * as vscode from 'vscode';
import { normaliseCrewUrl, type CrewUrlProblem } from '../api/url';

export const PLATFORM_URL_SETTING = 'crewRuns.platform.url';
export const DEFAULT_PLATFORM_URL = 'https://app.crewai.com';

export type PlatformUrl = { ok: true; url: string } | { ok: false; problem: CrewUrlProblem; value: string };

/** The normalised platform base URL from the user's settings (never a workspace's). */
export function readPlatformUrl(): PlatformUrl {
  const inspected = vscode.workspace.getConfiguration().inspect<unknown>(PLATFORM_URL_SETTING);
  const value = typeof inspected?.globalValue === 'string' && inspected.globalValue.trim() ? inspected.globalValue : DEFAULT_PLATFORM_URL;
  const result = normaliseCrewUrl(value);
  return result.ok ? result : { ok: false, problem: result.problem, value };
}

/** The deployment's page in the web app. */
export function dashboardUrl(platformUrl: string, uuid: string): string {
  return `${platformUrl}/crewai_plus/deployments/${encodeURIComponent(uuid)}`;
}

/** Where a personal access token is created (Settings → Account → Personal Access Token). */
export function tokenSettingsUrl(platformUrl: string): string {
  return `${platformUrl}/crewai_plus/settings/account`;
}
