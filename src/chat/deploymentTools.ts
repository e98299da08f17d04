// The deployment tools (the organization's platform): List Deployments and Deployment Logs read only;
// Redeploy acts only on what its confirmation showed (as kickoff and feedback do, effectTools.ts). They use the
// sign-in the user made ("Crew Runs: Sign In to CrewAI Platform…") and never ask for one: a model cannot start a
// sign-in. The personal token stays in the platform client's requests; no result, message or log carries it.
import * as l10n from '@vscode/l10n';
import type { ChatServices } from './chatServices';
import { errorText } from '../util/errorText';
import { oneLine } from '../util/inertText';
import { escapeMarkdown } from '../util/markdownText';
import { nothingToSendConfirmation, redeployConfirmation } from './confirmations';
import { ConfirmedPlans, str, type Prepared, type ToolInput } from './effectTools';
import {
  ambiguousDeploymentText,
  type DeploymentInfo,
  deploymentsText,
  LOG_LINES_DEFAULT,
  LOG_LINES_MAX,
  logsText,
  NOT_SIGNED_IN_TEXT,
  platformProblemText,
  redeployedText,
  redeployUnderWayText,
  unknownDeploymentText,
} from './deploymentText';
import { TOOL } from './toolNames';

type Platform = ChatServices['platform'];
type SignIn = NonNullable<Awaited<ReturnType<Platform['account']['current']>>>;

type Found = { kind: 'found'; signIn: SignIn; deployment: DeploymentInfo } | { kind: 'problem'; text: string };
export type RedeployPlan = { kind: 'send'; signIn: SignIn; deployment: DeploymentInfo } | { kind: 'refuse'; text: string };

const isUnauthorized = (error: unknown) => (error as { kind?: unknown } | undefined)?.kind === 'unauthorized';

export interface DeploymentTools {
  listDeployments(signal?: AbortSignal): Promise<string>;
  deploymentLogs(input: ToolInput, signal?: AbortSignal): Promise<string>;
  prepareRedeploy(input: ToolInput): Promise<Prepared<RedeployPlan>>;
  redeployConfirmed(input: ToolInput): Promise<string>;
}

type DeploymentList = Awaited<ReturnType<ChatServices['platform']['client']['deployments']>>['deployments'];

export function deploymentToolsFor(services: ChatServices): DeploymentTools {
  const platform = services.platform;
  const plans = new ConfirmedPlans<RedeployPlan>();

  /** The organization's deployments, each with the crew it was imported as. */
  async function deployments(signIn: SignIn, signal?: AbortSignal): Promise<{ list: DeploymentInfo[]; skipped: number; overCap: number }> {
    // `overCap` (platform/parse.ts: how many of `skipped` are past what is read) is there whatever the client's type says.
    const listed: { deployments: DeploymentList; skipped: number; overCap?: number } = await platform.client.deployments(signIn, signal);
    const { deployments: list, skipped } = listed;
    const crews = services.crews.list();
    return {
      skipped,
      overCap: listed.overCap ?? 0,
      list: list.map((d) => {
        const imported = platform.imported.byDeployment(signIn.baseUrl, d.uuid);
        const crew = imported && crews.find((c) => c.url === imported.crewUrl);
        return { uuid: d.uuid, name: d.name, status: d.status, state: d.state, publicUrl: d.publicUrl, importedAs: crew?.name };
      }),
    };
  }

  /** One deployment by uuid, exact name (case-insensitive), or the name or URL of the crew it was imported as. */
  async function find(reference: string, signal?: AbortSignal): Promise<Found> {
    const signIn = await platform.account.current();
    if (!signIn) {
      return { kind: 'problem', text: NOT_SIGNED_IN_TEXT };
    }
    let list: DeploymentInfo[];
    try {
      list = (await deployments(signIn, signal)).list;
    } catch (error) {
      return { kind: 'problem', text: platformProblemText('Nothing was done: could not list the deployments', errorText(error), isUnauthorized(error)) };
    }
    const wanted = reference.trim().toLowerCase();
    const crew = services.crews.list().find((c) => c.url === reference.trim() || c.name.toLowerCase() === wanted);
    const importedUuid = crew && platform.imported.get(crew.url)?.uuid;
    const byUuid = list.filter((d) => d.uuid === reference.trim() || d.uuid === importedUuid);
    const matches = byUuid.length ? byUuid : list.filter((d) => d.name.toLowerCase() === wanted);
    if (matches.length === 1) {
      return { kind: 'found', signIn, deployment: matches[0] };
    }
    return {
      kind: 'problem',
      text: matches.length ? ambiguousDeploymentText(reference, matches.map((d) => d.uuid)) : unknownDeploymentText(reference, list.map((d) => d.name)),
    };
  }

  return {
    async listDeployments(signal) {
      const signIn = await platform.account.current();
      if (!signIn) {
        return NOT_SIGNED_IN_TEXT;
      }
      try {
        const { list, skipped, overCap } = await deployments(signIn, signal);
        return deploymentsText(signIn.organizationName, list, skipped, overCap);
      } catch (error) {
        return platformProblemText('Could not list the deployments', errorText(error), isUnauthorized(error));
      }
    },

    async deploymentLogs(input, signal) {
      const reference = str(input, 'deployment') ?? '';
      const found = await find(reference, signal);
      if (found.kind !== 'found') {
        return found.text;
      }
      const requested = typeof input.maxLines === 'number' && Number.isFinite(input.maxLines) ? Math.floor(input.maxLines) : LOG_LINES_DEFAULT;
      try {
        const { lines, dropped } = await platform.client.logs(found.signIn, found.deployment.uuid, signal);
        return logsText(found.deployment.name, lines, dropped, Math.min(Math.max(1, requested), LOG_LINES_MAX));
      } catch (error) {
        return platformProblemText('Could not read the deployment log', errorText(error), isUnauthorized(error));
      }
    },

    async prepareRedeploy(input) {
      const reference = str(input, 'deployment') ?? '';
      const found = await find(reference);
      let prepared: Prepared<RedeployPlan>;
      if (found.kind !== 'found') {
        prepared = {
          plan: { kind: 'refuse', text: found.text },
          invocationMessage: l10n.t('Looking for deployment {0}…', escapeMarkdown(oneLine(reference, 80))),
          confirmation: nothingToSendConfirmation(l10n.t('There is no single deployment {0} to redeploy, or the platform could not be asked.', oneLine(reference, 80))),
        };
      } else {
        const { signIn, deployment } = found;
        prepared = {
          plan: { kind: 'send', signIn, deployment },
          invocationMessage: l10n.t('Redeploying {0}…', escapeMarkdown(oneLine(deployment.name, 80))),
          confirmation: redeployConfirmation(deployment, { baseUrl: signIn.baseUrl, organization: signIn.organizationName ?? signIn.organizationId }),
        };
      }
      plans.remember(input, prepared.plan);
      return prepared;
    },

    async redeployConfirmed(input) {
      const plan = plans.take(input);
      if (!plan) {
        return `Nothing was sent: this call was not confirmed by the user. Call ${TOOL.redeploy} again.`;
      }
      if (plan.kind === 'refuse') {
        return plan.text;
      }
      const { signIn, deployment } = plan;
      const now = await platform.account.current();
      if (!now || now.baseUrl !== signIn.baseUrl || now.organizationId !== signIn.organizationId) {
        return `Nothing was sent: the sign-in or organization changed since the user confirmed. Call ${TOOL.listDeployments}, then ${TOOL.redeploy} again.`;
      }
      const imported = platform.imported.byDeployment(now.baseUrl, deployment.uuid);
      let sent;
      try {
        // Once machine-wide, as the command sends it: a redeploy under way (any window) is not sent again.
        sent = await platform.health.sendRedeploy(now, { uuid: deployment.uuid, name: deployment.name, crewUrl: imported?.crewUrl });
      } catch (error) {
        return platformProblemText('The redeploy was not accepted', errorText(error), isUnauthorized(error));
      }
      if (sent.kind === 'underWay') {
        return redeployUnderWayText(deployment.name, sent.words);
      }
      const reply = sent.reply;
      services.log.info(`Redeploy of ${deployment.name} (${deployment.uuid}) requested by a chat tool the user confirmed: ${reply.status ?? 'no status in the reply'}.`);
      let tokenSaved = false;
      if (imported) {
        platform.health.set(imported.crewUrl, { state: 'deploying', words: reply.status ?? l10n.t('redeploy requested') });
        if (reply.token && (!reply.publicUrl || reply.publicUrl === imported.crewUrl) && reply.token !== (await services.tokens.get(imported.crewUrl))) {
          await services.tokens.set(imported.crewUrl, reply.token, 'organization');
          tokenSaved = true;
        }
      }
      const moved = imported && reply.publicUrl && reply.publicUrl !== imported.crewUrl ? reply.publicUrl : undefined;
      // Followed in the background like the command's redeploy: the crew's row, then a notice when it ends.
      void platform.health.followRedeploy(now, { uuid: deployment.uuid, name: deployment.name, crewUrl: imported?.crewUrl }, { before: sent.before, sentAt: sent.sentAt, release: sent.release });
      return redeployedText(deployment.name, reply.status, moved, tokenSaved);
    },
  };
}
