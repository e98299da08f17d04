// The words a language model reads back from the deployment tools (the organization's platform). Plain
// English on purpose. Names, status prose, log lines and error words come from the platform or the crews it
// runs: clipped and fenced as untrusted (chatText.ts), every count capped here. A deployment's token is never
// here: the list the tools read has none (the platform client keeps it to the import). Pure: unit-tested in Node.
import { oneLine } from '../util/inertText';
import { capped, fenceUntrusted, joinCapped, moreNote, RESULT_MAX_CHARS } from './chatText';
import { TOOL } from './toolNames';

/** Deployments listed in one result; the rest are counted. */
export const LISTED_DEPLOYMENTS_MAX = 200;
/** Log lines in one result by default (the latest ones), and the most a call may ask for. */
export const LOG_LINES_DEFAULT = 200;
export const LOG_LINES_MAX = 1000;

export interface DeploymentInfo {
  uuid: string;
  name: string;
  status?: string;
  state: string;
  publicUrl?: string;
  /** The crew it was imported as, when it was. */
  importedAs?: string;
}

export interface LogLineInfo {
  timestamp?: string;
  level?: string;
  message: string;
}

/** A plain id the platform chose, or a note that it is not shown. */
const plainId = (id: string) => (/^[\w.:-]{1,100}$/.test(id) ? id : '(not shown: unusual characters)');

export const NOT_SIGNED_IN_TEXT = 'Not signed in to the CrewAI platform. Nothing was read or sent. The user signs in with the command "Crew Runs: Sign In to CrewAI Platform…" (a personal access token); then call this tool again.';

export function platformProblemText(what: string, message: string, unauthorized: boolean): string {
  const next = unauthorized ? '\nThe personal access token was refused (wrong or expired): the user signs in again with "Crew Runs: Sign In to CrewAI Platform…".' : '';
  return `${what}:\n${fenceUntrusted(oneLine(message, 600), "The platform's answer, in Crew Runs' words")}${next}`;
}

/** `skipped`: every entry of the platform's list left out; `overCap` of them past what Crew Runs reads, the rest unreadable. */
export function deploymentsText(organization: string | undefined, deployments: DeploymentInfo[], skipped: number, overCap = 0): string {
  const where = organization ? ` of the organization ${JSON.stringify(oneLine(organization, 80))}` : '';
  const unreadable = Math.max(0, skipped - overCap);
  const odd = [
    unreadable > 0 ? `${unreadable.toLocaleString('en-US')} entr${unreadable === 1 ? 'y' : 'ies'} of the platform's list could not be read and are left out.` : '',
    overCap > 0 ? `The platform listed ${overCap.toLocaleString('en-US')} more entries after these, past what Crew Runs reads: they are left out (the user sees them all on the platform's dashboard).` : '',
  ]
    .filter(Boolean)
    .join('\n');
  if (deployments.length === 0) {
    return [`No deployments${where}.`, odd].filter(Boolean).join('\n');
  }
  const { shown, more } = capped(deployments, LISTED_DEPLOYMENTS_MAX);
  const lines = shown.map((d) => {
    const imported = d.importedAs ? `imported as crew ${oneLine(d.importedAs, 80)}` : 'not imported';
    return `- ${oneLine(d.name, 80)} — uuid ${plainId(d.uuid)} — ${d.state}${d.status ? ` (${oneLine(d.status, 120)})` : ''} — ${d.publicUrl ?? 'no URL given'} — ${imported}`;
  });
  return joinCapped([
    `${deployments.length.toLocaleString('en-US')} deployment(s)${where}: name, uuid, state (the platform's words), URL, whether imported as a crew of Crew Runs. Use the uuid or the exact name with ${TOOL.deploymentLogs} and ${TOOL.redeploy}; an imported crew is used with the crew tools under its crew name. The user imports others with "Crew Runs: Import Crews…".`,
    odd,
    fenceUntrusted(lines.join('\n'), 'Deployments as the platform lists them'),
    more ? `${moreNote(more, 'deployments')} not listed.` : '',
  ]);
}

export function unknownDeploymentText(reference: string, known: string[]): string {
  const { shown, more } = capped(known, 50);
  const names = shown.length ? fenceUntrusted(shown.map((n) => oneLine(n, 80)).join('\n'), 'Deployment names') : '(none)';
  return `Nothing was done: there is no deployment ${JSON.stringify(oneLine(reference, 80))} in the organization. Call ${TOOL.listDeployments}. Known deployments:\n${names}${more ? `\n${moreNote(more, 'deployments')}` : ''}`;
}

export function ambiguousDeploymentText(reference: string, uuids: string[]): string {
  return `Nothing was done: several deployments are called ${JSON.stringify(oneLine(reference, 80))}; name one by its uuid: ${uuids.map(plainId).join(', ')}.`;
}

/** Characters of one log line's message in a result: a long line is clipped, never the reason no line shows. */
export const LOG_LINE_CHARS = 300;
/** Characters of log lines in one result: the newest that fit, under the whole result's cap with room for the rest. */
const LOG_TEXT_BUDGET = RESULT_MAX_CHARS - 4_000;

/** The latest `max` lines of a deployment's log (as many of them as fit), fenced, each clipped; older lines counted. */
export function logsText(name: string, lines: LogLineInfo[], dropped: number, max: number): string {
  if (lines.length === 0) {
    return `The deployment ${JSON.stringify(oneLine(name, 80))} has no log lines${dropped ? ` (${dropped.toLocaleString('en-US')} unreadable lines left out)` : ''}.`;
  }
  // Newest first, until the budget: a log of long lines shows fewer lines, never none.
  const shown: string[] = [];
  let size = 0;
  let cut = false;
  for (let i = lines.length - 1; i >= Math.max(0, lines.length - max); i--) {
    const l = lines[i];
    const line = [l.timestamp ? oneLine(l.timestamp, 40) : '', l.level ? oneLine(l.level, 12).toUpperCase() : '', oneLine(l.message, LOG_LINE_CHARS)].filter(Boolean).join(' ');
    size += line.length + 1;
    if (size > LOG_TEXT_BUDGET && shown.length > 0) {
      break;
    }
    cut ||= l.message.length > LOG_LINE_CHARS;
    shown.push(line);
  }
  shown.reverse();
  const older = lines.length - shown.length + dropped;
  return joinCapped([
    `Deployment log of ${JSON.stringify(oneLine(name, 80))}: the latest ${shown.length.toLocaleString('en-US')} line(s), oldest first.${older ? ` ${moreNote(older, 'lines')} before them are not shown (the user opens them all with "Crew Runs: Show Deployment Logs").` : ''}${cut ? ` Lines longer than ${LOG_LINE_CHARS} characters are cut (…).` : ''}`,
    fenceUntrusted(shown.join('\n'), 'Deployment log lines (written by the platform and the crew)'),
  ]);
}

/** A redeploy already going on (any window): nothing was sent. */
export function redeployUnderWayText(name: string, words: string): string {
  return [
    `Nothing was sent: a redeploy of ${JSON.stringify(oneLine(name, 80))} is already under way. Do not redeploy it again while it is deploying; call ${TOOL.listDeployments} to see where it is.`,
    fenceUntrusted(oneLine(words, 200), 'Where it is'),
  ].join('\n');
}

export function redeployedText(name: string, status: string | undefined, urlChanged: string | undefined, tokenSaved: boolean): string {
  return [
    `Redeploy of ${JSON.stringify(oneLine(name, 80))} requested; the platform rebuilds and restarts it (this takes minutes).`,
    status ? fenceUntrusted(oneLine(status, 200), "The platform's status") : '',
    tokenSaved ? "The platform gave a new bearer token for the crew; Crew Runs saved it (it is not shown)." : '',
    // The platform's URL is its words too: fenced, never part of our sentence.
    urlChanged ? `The platform now gives another URL for it (below): the user runs "Crew Runs: Import Crews…" to use it.\n${fenceUntrusted(oneLine(urlChanged, 200), "The deployment's new URL, as the platform gives it")}` : '',
    `Crew Runs follows it and tells the user when it is online again or has failed (an imported crew's row shows its deployment health meanwhile); call ${TOOL.listDeployments} or ${TOOL.deploymentLogs} to see where it is. Do not redeploy again while it is deploying.`,
  ]
    .filter(Boolean)
    .join('\n');
}
