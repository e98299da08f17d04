// What a followed redeploy has shown so far, judged from the deployment's status: it counts as started only once
// the status differs from the one before the redeploy (or the deployment time changed), so a platform that still
// says "Crew is Online" just after the request is not taken for a finished rebuild. Also the phase as shown, and a
// failed build's first error line. Pure: no vscode, unit-tested.
import * as l10n from '@vscode/l10n';
import { formatDuration } from '../util/duration';
import type { DeploymentState, LogLine } from './parse';

/** A deployment's state as an imported crew's row shows it (DeploymentHealth). */
export interface DeploymentHealthEntry {
  state: DeploymentState;
  /** The platform's words ("Crew is Online"), or why the state is unknown. */
  words?: string;
  /** A failed redeploy's first build log error line: kept while the platform says the same failed words. */
  firstError?: string;
}

/** The deployment as it was just before the redeploy was sent. */
export interface DeploymentMark {
  status?: string;
  deployedAt?: string;
}

export interface StatusSeen {
  status?: string;
  state: DeploymentState;
  deployedAt?: string;
}

/** The send-once mark of a deployment's redeploy (runTracking/sendOnce.ts). */
export function redeployKey(uuid: string): string {
  return `redeploy:${uuid}`;
}

/**
 * Whether this status shows the redeploy under way or done: other words than before, or a new deployment time.
 * With nothing known of before, only a deploying status (or a deployment time) says so.
 */
export function showsStart(before: DeploymentMark | undefined, now: StatusSeen): boolean {
  if (now.deployedAt !== undefined && before?.deployedAt !== undefined && now.deployedAt !== before.deployedAt) {
    return true;
  }
  if (before?.status === undefined) {
    return now.state === 'deploying';
  }
  return now.status !== undefined && now.status !== before.status;
}

/** How the redeploy ended, once it was seen to start; undefined while it goes on (or has not shown up yet). */
export function endOf(started: boolean, now: StatusSeen): 'online' | 'failed' | undefined {
  return started && (now.state === 'online' || now.state === 'failed') ? now.state : undefined;
}

/**
 * The platform's words in sentence case ("Deploy Enqueued" → "Deploy enqueued"): a capitalised word after the first
 * is lowered; words in capitals or with inner capitals (ERROR, CrewAI) stay as they are.
 */
export function sentenceCase(words: string): string {
  let first = true;
  return words.replace(/\p{L}[\p{L}\p{N}'’-]*/gu, (word) => {
    if (first) {
      first = false;
      return word.charAt(0).toUpperCase() + word.slice(1);
    }
    return /^\p{Lu}[\p{Ll}\p{N}'’-]+$/u.test(word) ? word.toLowerCase() : word;
  });
}

/** The progress line while it is followed: the phase in the platform's words (or that it has not shown up), and the time since it was sent. */
export function phaseLine(started: boolean, status: string | undefined, elapsedMs: number): string {
  const elapsed = formatDuration(elapsedMs);
  if (!started) {
    return status
      ? l10n.t('Waiting for the platform to start it (it still says “{0}”) · {1}', sentenceCase(status), elapsed)
      : l10n.t('Waiting for the platform to start it · {0}', elapsed);
  }
  return status ? l10n.t('{0} · {1}', sentenceCase(status), elapsed) : l10n.t('Deploying · {0}', elapsed);
}

const ERROR_LEVELS = /^(ERROR|ERR|CRITICAL|FATAL|EMERG|ALERT|SEVERE)$/;
const ERROR_WORDS = /\b(error|failed|failure|fatal|exception|traceback)\b/i;
/** How far the platform's clock may be behind this machine's when the build's lines are told from older ones. */
export const LOG_CLOCK_SKEW_MS = 2 * 60_000;

function isErrorLine(line: LogLine): boolean {
  return line.level !== undefined ? ERROR_LEVELS.test(line.level) : ERROR_WORDS.test(line.message);
}

/**
 * The first error line of the build that started at `since` (ms): among the lines stamped from then on (less the
 * clock skew), or every line when none carries a readable time; a line's level decides, its words only without one.
 */
export function firstErrorLine(lines: readonly LogLine[], since?: number): string | undefined {
  let from = 0;
  if (since !== undefined) {
    const stamped = lines.map((l) => (l.timestamp === undefined ? NaN : Date.parse(l.timestamp)));
    if (stamped.some((t) => !Number.isNaN(t))) {
      const index = stamped.findIndex((t) => !Number.isNaN(t) && t >= since - LOG_CLOCK_SKEW_MS);
      from = index < 0 ? lines.length : index;
    }
  }
  for (let i = from; i < lines.length; i++) {
    if (isErrorLine(lines[i]) && lines[i].message.trim()) {
      return lines[i].message.trim();
    }
  }
  return undefined;
}
