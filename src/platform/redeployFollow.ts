// Following a redeploy (lazy: dist/deployActions.js): the deployment's status every second until the platform says
// online or failed after it was seen to start (redeployWatch.ts), the phase and the time since it was sent on the
// way, and a failed build's first error line on the crew's row and in the notice. "Stop following" (the progress's
// Cancel) stops the progress and the notices only: the redeploy goes on, and so does a quiet follow that keeps the
// row current and frees the send-once mark when it ends.
import * as vscode from 'vscode';
import { showError, showInfo } from '../ui/notify';
import { errorText } from '../util/errorText';
import { formatDuration } from '../util/duration';
import type { PlatformSignIn } from './account';
import type { PaceClock } from './bounded';
import type { DeploymentState } from './parse';
import type { PlatformClient } from './platformClient';
import { type DeploymentHealthEntry, type DeploymentMark, endOf, firstErrorLine, phaseLine, sentenceCase, showsStart, type StatusSeen } from './redeployWatch';

const FOLLOW_EVERY_MS = 1000;
/** A redeploy still not online or failed after this is left to the refreshes. */
export const FOLLOW_FOR_MS = 20 * 60_000;
/** A redeploy the platform has not shown starting after this is not waited for any more. */
export const START_WAIT_MS = 5 * 60_000;

export interface RedeployFollower {
  readonly client: Pick<PlatformClient, 'status' | 'logs'>;
  readonly health: { get(crewUrl: string): DeploymentHealthEntry | undefined; set(crewUrl: string, entry: DeploymentHealthEntry): void };
  readonly log: Pick<vscode.LogOutputChannel, 'warn' | 'info'>;
  readonly clock: PaceClock;
}

export interface FollowOptions {
  /** The deployment just before the redeploy was sent: "online" counts only once the status moved from it. */
  before?: DeploymentMark;
  /** When it was sent (the clock's ms): the elapsed time, and where its build's log lines begin. */
  sentAt?: number;
  /** Frees the redeploy's send-once mark: called once it ended (or was never seen), not while it still builds. */
  release?: () => Promise<void>;
  /** "Stop following": the progress and the notices stop, the redeploy does not. */
  cancellation?: vscode.CancellationToken;
  /** The phase and the elapsed time, after each look at the status. */
  onProgress?: (line: string) => void;
}

export interface FollowedDeployment {
  uuid: string;
  name: string;
  /** The imported crew's URL: its row shows the deployment's state. */
  crewUrl?: string;
}

type Outcome = { end: 'online' | 'failed'; words: string; firstError?: string } | { end: 'unseen'; words?: string } | { end: 'stillDeploying' };

/**
 * Follows until the platform says online or failed after the redeploy was seen to start; resolves with that, or
 * undefined when the user stopped following, it never showed up within START_WAIT_MS or still builds after
 * FOLLOW_FOR_MS. Tells the user how it ended, with the logs one click away, unless they stopped following.
 */
export async function followRedeploy(f: RedeployFollower, signIn: PlatformSignIn, deployment: FollowedDeployment, options: FollowOptions = {}): Promise<DeploymentState | undefined> {
  const sentAt = options.sentAt ?? f.clock.now();
  let quiet = false;
  const following = follow(f, signIn, deployment, options, sentAt, () => quiet).then(async (outcome) => {
    if (outcome.end !== 'stillDeploying') {
      await options.release?.().catch((error: unknown) => f.log.warn(`The redeploy mark of ${deployment.name} could not be freed: ${errorText(error)}`));
    }
    return outcome;
  });
  const stopped = new Promise<'stopped'>((resolve) => {
    if (options.cancellation?.isCancellationRequested) {
      resolve('stopped');
    }
    options.cancellation?.onCancellationRequested(() => resolve('stopped'));
  });
  const first = await Promise.race([following, stopped]);
  if (first === 'stopped') {
    quiet = true;
    const { name, crewUrl } = deployment;
    void showInfo(
      crewUrl
        ? vscode.l10n.t('Stopped following the redeploy of {0}; the redeploy goes on, and its row in the crews view shows where it is.', name)
        : vscode.l10n.t('Stopped following the redeploy of {0}; the redeploy goes on.', name),
    );
    void following.catch((error: unknown) => f.log.warn(`Following the redeploy of ${name}: ${errorText(error)}`));
    return undefined;
  }
  announce(deployment, first, f.clock.now() - sentAt);
  return first.end === 'online' || first.end === 'failed' ? first.end : undefined;
}

async function follow(f: RedeployFollower, signIn: PlatformSignIn, deployment: FollowedDeployment, options: FollowOptions, sentAt: number, quiet: () => boolean): Promise<Outcome> {
  const { uuid, name, crewUrl } = deployment;
  let started = false;
  let last: StatusSeen | undefined;
  const elapsed = () => f.clock.now() - sentAt;
  options.onProgress?.(phaseLine(false, options.before?.status, 0));
  for (;;) {
    if (elapsed() >= FOLLOW_FOR_MS) {
      return { end: 'stillDeploying' };
    }
    if (!started && elapsed() >= START_WAIT_MS) {
      // The row said "deploying" since it was sent: now what the platform says.
      if (crewUrl && last) {
        f.health.set(crewUrl, { state: last.state, words: last.status });
      }
      return { end: 'unseen', words: last?.status };
    }
    // Slower once nobody watches: the row and the mark only need the end.
    await f.clock.wait(quiet() ? 5 * FOLLOW_EVERY_MS : FOLLOW_EVERY_MS);
    try {
      const status = await f.client.status(signIn, uuid);
      started ||= showsStart(options.before, status);
      last = status;
      const end = endOf(started, status);
      if (end) {
        const words = status.status ?? '';
        const firstError = end === 'failed' ? await readFirstError(f, signIn, deployment, sentAt) : undefined;
        if (crewUrl) {
          f.health.set(crewUrl, { state: end, words: status.status, ...(firstError ? { firstError } : {}) });
        }
        return { end, words, firstError };
      }
      // Before it shows up the row keeps saying "deploying" (set when it was sent), not the old "online".
      if (crewUrl && started) {
        f.health.set(crewUrl, { state: status.state, words: status.status });
      }
    } catch (error) {
      f.log.warn(`Following the redeploy of ${name}: ${errorText(error)}`);
    }
    if (!quiet()) {
      options.onProgress?.(phaseLine(started, last?.status, elapsed()));
    }
  }
}

/** The failed build's first error line, if the log can be read and has one. */
async function readFirstError(f: RedeployFollower, signIn: PlatformSignIn, deployment: FollowedDeployment, sentAt: number): Promise<string | undefined> {
  try {
    const { lines } = await f.client.logs(signIn, deployment.uuid);
    // The log's times are the platform's wall clock; `sentAt` is the follower's clock, the wall clock but in tests.
    const since = Date.now() - (f.clock.now() - sentAt);
    const line = firstErrorLine(lines, since);
    return line && (line.length > 300 ? `${line.slice(0, 299)}…` : line);
  } catch (error) {
    f.log.warn(`The deployment log of ${deployment.name} could not be read after its failed redeploy: ${errorText(error)}`);
    return undefined;
  }
}

/** How a followed redeploy ended, with the logs one click away for an imported crew. */
function announce(deployment: FollowedDeployment, outcome: Outcome, elapsedMs: number): void {
  const { name, crewUrl } = deployment;
  const showLogs = vscode.l10n.t('Show Deployment Logs');
  const logsAction = crewUrl ? [showLogs] : [];
  const open = (choice: string | undefined) => choice === showLogs && void vscode.commands.executeCommand('crewRuns.platform.showLogs', crewUrl);
  switch (outcome.end) {
    case 'online':
      void showInfo(vscode.l10n.t('{0} is online again.', name), ...logsAction).then(open);
      if (crewUrl) {
        // Whether it still does what it should: its test suites in this workspace, if any, are offered (never run unasked).
        void vscode.commands.executeCommand('crewRuns.suites.runForCrew', crewUrl).then(undefined, () => undefined);
      }
      return;
    case 'failed': {
      const words = sentenceCase(outcome.words) || vscode.l10n.t('failed');
      const message = outcome.firstError
        ? vscode.l10n.t('The redeploy of {0} failed: {1} First error in the build log: {2}', name, words, outcome.firstError)
        : vscode.l10n.t('The redeploy of {0} failed: {1}', name, words);
      void showError(message, ...logsAction).then(open);
      return;
    }
    case 'unseen':
      void showInfo(
        outcome.words
          ? vscode.l10n.t('The platform has not shown the redeploy of {0} starting after {1}: it still says “{2}”. It may still be queued, or have run unseen; the deployment logs tell.', name, formatDuration(elapsedMs), sentenceCase(outcome.words))
          : vscode.l10n.t('The platform has not shown the redeploy of {0} starting after {1}. It may still be queued, or have run unseen; the deployment logs tell.', name, formatDuration(elapsedMs)),
        ...logsAction,
      ).then(open);
      return;
    default:
      void showInfo(crewUrl ? vscode.l10n.t('{0} is still deploying; its row in the crews view follows it.', name) : vscode.l10n.t('{0} is still deploying.', name), ...logsAction).then(open);
  }
}
