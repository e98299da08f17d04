// The CI step that redeploys a crew through the platform's documented deployment API (platform-api.md, "The
// deployment API for automation"): `POST /crewai_plus/api/v1/deployments/{numeric id}/redeploy` with a personal
// access token read from a CI secret, never the user's own token. Pure: no vscode, unit-tested.
//
// The deployment's name and the platform URL are the platform's and the settings' words: neither may break out of
// the YAML or the shell line, nor reach GitHub's expression engine (`${{ … }}` is evaluated in names and scripts).
import * as l10n from '@vscode/l10n';
import { normaliseCrewUrl } from '../api/url';

export type CiStepFormat = 'githubActions' | 'curl';

export const DEFAULT_CI_SECRET = 'CREWAI_PAT';

/**
 * What runs the crew's test suite once the redeploy is online: added after the redeploy when the crew has one.
 * `run` is the suite runner's own shell lines (trusted: Crew Runs writes them); `name` is shown and made inert.
 */
export interface CiSuiteStep {
  name: string;
  run: readonly string[];
}

export interface CiRedeployStepInput {
  format: CiStepFormat;
  /** The platform's base URL (the imported crew's `platformUrl`). */
  platformUrl: string;
  /** The deployment's numeric id (not the uuid of the `/crews/{uuid}` routes). */
  deploymentId: string;
  /** The deployment's name on the platform, for the step's name and comments. */
  deploymentName: string;
  /** The CI secret holding a personal access token (default CREWAI_PAT). */
  secretName?: string;
  suite?: CiSuiteStep;
}

/** A numeric deployment id as the deployment API takes it (`103671`). */
export function isDeploymentId(value: string): boolean {
  return /^[0-9]{1,20}$/.test(value);
}

/** A CI secret name GitHub accepts (letters, digits, `_`; not starting with a digit or GITHUB_). */
export function isSecretName(value: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]{0,99}$/.test(value) && !/^GITHUB_/i.test(value);
}

/**
 * The redeploy route, every character outside a conservative set percent-encoded: no quote, `$`, backtick, brace,
 * space or line break can reach the shell line or the YAML, whatever the URL setting holds.
 */
export function redeployRoute(platformUrl: string, deploymentId: string): string {
  const base = normaliseCrewUrl(platformUrl);
  if (!base.ok) {
    throw new Error(`The platform URL is not usable (${base.problem}).`);
  }
  if (!isDeploymentId(deploymentId)) {
    throw new Error('A deployment id is a number.');
  }
  const url = `${base.url}/crewai_plus/api/v1/deployments/${deploymentId}/redeploy`;
  return url.replace(/[^A-Za-z0-9\-._~:/%@[\]]/g, (c) =>
    Array.from(new TextEncoder().encode(c), (b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
}

/**
 * Platform words on one line with no way out: controls and line breaks become spaces, `${` loses its meaning
 * (`$ {`: GitHub evaluates `${{ … }}` even in a step's name), and it is cut to `max`.
 */
export function inertCiText(text: string, max = 120): string {
  const line = text
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g, ' ')
    .replace(/\$\{/g, '$ {')
    .replace(/\s+/g, ' ')
    .trim();
  return line.length > max ? `${line.slice(0, max - 1).trimEnd()}…` : line;
}

/** Text as `# ` comment lines of at most about `width` characters, cut between words. */
function comment(text: string, width = 100): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of inertCiText(text, 1000).split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(`# ${line}`);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  return line ? [...lines, `# ${line}`] : lines;
}

/** A YAML double-quoted scalar: JSON's string escapes are YAML's. */
function yamlString(text: string): string {
  return JSON.stringify(text);
}

/** The step (or line) as text, ending with a newline. Throws when the URL, id or secret name is not usable. */
export function ciRedeployStep(input: CiRedeployStepInput): string {
  const secret = input.secretName ?? DEFAULT_CI_SECRET;
  if (!isSecretName(secret)) {
    throw new Error('A CI secret name is letters, digits and underscores.');
  }
  const route = redeployRoute(input.platformUrl, input.deploymentId);
  const name = inertCiText(input.deploymentName);
  const about = comment(l10n.t('Redeploys the CrewAI deployment “{0}” (id {1}) through the deployment API.', name, input.deploymentId));
  const secretLines = comment(
    l10n.t('Create the CI secret {0}: a personal access token (pat_…) with the manage_settings permission, made in the platform under Settings → Account → Personal Access Token. Never paste the token itself here.', secret),
  );
  const curl = ['curl --fail-with-body -sS -X POST', `-H "Authorization: Bearer $${secret}"`, `-H 'Content-Type: application/json'`, `'${route}'`];
  const suite = input.suite;
  const suiteName = suite && inertCiText(suite.name);
  const suiteLines = suite ? suite.run.flatMap((line) => line.split(/\r\n|[\r\n\u2028\u2029]/)).filter((line) => line.trim()) : [];
  const suiteComment = suiteName ? comment(l10n.t('Then runs the test suite “{0}” against the redeployed crew.', suiteName)) : [];
  if (input.format === 'curl') {
    const lines = [...about, ...secretLines, curl.join(' ')];
    if (suiteName && suiteLines.length) {
      lines.push(...suiteComment, ...suiteLines);
    }
    return `${lines.join('\n')}\n`;
  }
  const lines = [
    ...about,
    ...secretLines,
    `- name: ${yamlString(inertCiText(l10n.t('Redeploy {0} on CrewAI', name), 200))}`,
    '  env:',
    `    ${secret}: \${{ secrets.${secret} }}`,
    '  run: |',
    ...curl.map((part, i) => `    ${i ? '  ' : ''}${part}${i < curl.length - 1 ? ' \\' : ''}`),
  ];
  if (suiteName && suiteLines.length) {
    lines.push(...suiteComment, `- name: ${yamlString(inertCiText(l10n.t('Test suite {0}', suiteName), 200))}`, '  run: |', ...suiteLines.map((line) => `    ${line}`));
  }
  return `${lines.join('\n')}\n`;
}
