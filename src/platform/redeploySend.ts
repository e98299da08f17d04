// Sending a redeploy once machine-wide (lazy: dist/deployActions.js): the send-once mark `redeploy:<uuid>`
// (runTracking/sendOnce.ts) means two windows, a double click or the chat tool never redeploy twice. A mark stands
// for a redeploy still going on while the platform says it deploys, or for START_WAIT_MS after it was sent; the
// follow frees it once the redeploy ended.
import * as vscode from 'vscode';
import { errorText } from '../util/errorText';
import { formatDuration } from '../util/duration';
import { isBlocked, type SendFailure, type SendMark, type SendOnce } from '../runTracking/sendOnce';
import type { PlatformSignIn } from './account';
import type { DeploymentStatus } from './parse';
import type { PlatformClient } from './platformClient';
import { FOLLOW_FOR_MS, START_WAIT_MS } from './redeployFollow';
import { type DeploymentHealthEntry, type DeploymentMark, redeployKey, sentenceCase } from './redeployWatch';

/** What sending a redeploy takes (DeploymentHealth hands it over: this bundle has no classes of its own). */
export interface RedeploySender {
  readonly client: Pick<PlatformClient, 'status' | 'redeploy'>;
  readonly sends: Pick<SendOnce, 'claim' | 'peek' | 'forget'>;
  readonly health: { get(crewUrl: string): DeploymentHealthEntry | undefined };
  readonly log: Pick<vscode.LogOutputChannel, 'info' | 'warn'>;
  /** What a failed redeploy means for sending it again (platformClient.ts redeploySendFailure). */
  sendFailure(error: unknown): SendFailure;
  now(): number;
}

export type RedeploySend =
  | {
      kind: 'sent';
      reply: DeploymentStatus;
      /** The deployment just before it was sent (its status read then, else the row's last words). */
      before?: DeploymentMark;
      sentAt: number;
      /** The reply named no deployment (no uuid, no id): it was accepted, which one started is not known. */
      noId: boolean;
      /** Frees the mark once the redeploy ended (the follow calls it). */
      release(): Promise<void>;
    }
  /** One is on its way or building (from this window or another): nothing was sent. `words`: the platform's, or why. */
  | { kind: 'underWay'; words: string };

/**
 * Whether the redeploy a mark stands for still goes on: the platform says it is deploying, or it was sent less
 * than START_WAIT_MS ago and has not shown up yet. Otherwise it ended (its follow was stopped, or its window closed).
 */
async function underWay(s: RedeploySender, signIn: PlatformSignIn, uuid: string, mark: SendMark): Promise<string | undefined> {
  if (mark.state === 'sending') {
    return vscode.l10n.t('being sent');
  }
  let status: DeploymentStatus | undefined;
  try {
    status = await s.client.status(signIn, uuid);
  } catch (error) {
    s.log.warn(`The status of ${uuid} could not be read before a redeploy: ${errorText(error)}`);
  }
  if (status?.state === 'deploying') {
    return sentenceCase(status.status ?? vscode.l10n.t('deploying'));
  }
  const age = s.now() - mark.at;
  // Unreadable: the platform is not asked blind until the longest follow would have ended.
  return age < (status ? START_WAIT_MS : FOLLOW_FOR_MS) ? vscode.l10n.t('sent {0} ago, not shown by the platform yet', formatDuration(age)) : undefined;
}

/** A redeploy's mark that still stands for one going on, in words; undefined when there is none. */
export async function redeployUnderWay(s: RedeploySender, signIn: PlatformSignIn, uuid: string): Promise<string | undefined> {
  const mark = await s.sends.peek(redeployKey(uuid));
  // A mark left "sending" by a window that is gone is for claim() to judge.
  return mark && mark.state !== 'sending' ? underWay(s, signIn, uuid, mark) : undefined;
}

/** POST the redeploy once machine-wide; throws the platform's error when it was refused or failed. */
export async function sendRedeploy(s: RedeploySender, signIn: PlatformSignIn, deployment: { uuid: string; name: string; crewUrl?: string }): Promise<RedeploySend> {
  const { uuid, name, crewUrl } = deployment;
  const key = redeployKey(uuid);
  let claim = await s.sends.claim(key);
  if (isBlocked(claim)) {
    const words = claim.kind === 'inFlight' ? vscode.l10n.t('being sent') : await underWay(s, signIn, uuid, claim.mark);
    if (words !== undefined) {
      return { kind: 'underWay', words };
    }
    // The one it stands for has ended: this is a new redeploy. Freed only if it is still that mark (another
    // window may have judged it too and claimed meanwhile).
    const still = await s.sends.peek(key);
    if (still && (still.at !== claim.mark.at || still.windowId !== claim.mark.windowId)) {
      return { kind: 'underWay', words: vscode.l10n.t('being sent') };
    }
    await s.sends.forget(key);
    claim = await s.sends.claim(key);
    if (isBlocked(claim)) {
      return { kind: 'underWay', words: vscode.l10n.t('being sent') };
    }
  }
  const held = claim;
  let before: DeploymentMark | undefined;
  try {
    const status = await s.client.status(signIn, uuid);
    before = { status: status.status, deployedAt: status.deployedAt };
  } catch (error) {
    const row = crewUrl ? s.health.get(crewUrl) : undefined;
    before = row?.words && row.state !== 'unknown' && row.state !== 'deploying' ? { status: row.words } : undefined;
    s.log.warn(`The status of ${name} could not be read before its redeploy: ${errorText(error)}`);
  }
  const sentAt = s.now();
  let reply: DeploymentStatus;
  try {
    reply = await s.client.redeploy(signIn, uuid);
  } catch (error) {
    await held.settle(s.sendFailure(error) === 'mayHaveActed' ? 'uncertain' : 'notSent');
    throw error;
  }
  await held.settle('sent');
  const noId = reply.uuid === undefined && reply.deploymentId === undefined;
  s.log.info(`Redeploy of ${name} (${uuid}) requested: ${reply.status ?? 'no status in the reply'}${noId ? '; the reply named no deployment' : ''}.`);
  return { kind: 'sent', reply, before, sentAt, noId, release: () => s.sends.forget(key) };
}
