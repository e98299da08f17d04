// The chat tool (crewRuns_chatWithFlow): one message to a conversational flow, the completed answer back,
// confirmed like kickoff. prepareChat resolves the crew, its token and its /inspect once and always returns a
// confirmation ("nothing will be sent" when it cannot chat); chatConfirmed acts only on that plan: starts a
// session when none was given, runs one turn (flowChat/turn.ts, no webview), and words the outcome for the model
// (chatTurnText): the flow's words fenced as untrusted and capped, the session id to continue with.
// Pure (@vscode/l10n, no `vscode`; the crew client is handed in): unit-tested in plain Node.
import * as l10n from '@vscode/l10n';
import type { Crew } from '../crews/crewConfig';
import { chatMessageKey, type ChatSends, runTurnOnce } from '../flowChat/messageOnce';
import { MAX_MESSAGE_CHARS, type TurnApi, type TurnOutcome } from '../flowChat/turn';
import { oneLine } from '../util/inertText';
import { escapeMarkdown } from '../util/markdownText';
import { fenceUntrusted, joinCapped, moreNote, pageOf } from './chatText';
import { chatConfirmation, nothingToSendConfirmation } from './confirmations';
import type { Cancellation, CrewLookup } from './crewActions';
import { str, type Prepared, type Refusal, type ToolInput } from './effectTools';
import { TOOL } from './toolNames';
import { ambiguousCrewText, problemFenced, unknownCrewText } from './toolResults';

/** Characters of a flow's answer in one result; the rest is counted ("… 1,200 more characters"). */
export const CHAT_ANSWER_MAX = 20_000;
/** Tool steps named per answer (the latest ones). */
export const CHAT_STEPS_MAX = 20;
/** The longest the tool waits for a turn to end. */
export const CHAT_WAIT_MS = 5 * 60_000;
/** A session id as a flow names them (chatApi.ts startSession): it goes into the URL's path. */
const SESSION_ID = /^[A-Za-z0-9._:-]{1,200}$/;

export type ChatPlan = { kind: 'send'; crew: Crew; message: string; sessionId?: string } | Refusal;

export interface ChatToolDeps {
  findCrew(reference: string): CrewLookup;
  hasToken(crewUrl: string): Promise<boolean>;
  /** GET /inspect: whether the crew chats; throws when it cannot be told. */
  chats(crew: Crew, signal?: AbortSignal): Promise<boolean>;
  /** POST /chat/start: the new session's id; throws when none was started. */
  startSession(crew: Crew, signal?: AbortSignal): Promise<string>;
  turnApi(crew: Crew, sessionId: string): TurnApi;
  /** The machine-wide send-once marks (Services.sends): a message whose send may have arrived is never sent again. */
  sends: ChatSends;
  /** An error in plain words (describeError): never a token. */
  describe(error: unknown, crewName: string): string;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** One line per turn for the output channel: the session, the crew's URL and how the turn ended (never a token). */
  log?(line: string): void;
  /**
   * Lists the session under the crew (flowChat/core/chatSessions.ts) once the flow took a message in it, so that the user
   * can reopen it from the Crew Runs view; `message`: the one sent (kept as the first message of a new listing).
   */
  recordSession?(crew: Crew, sessionId: string, message: string): Promise<void>;
}

const quoted = (text: string) => JSON.stringify(oneLine(text, 80));

function refused(text: string, reason: string, invocationMessage: string): Prepared<Refusal> {
  return { plan: { kind: 'refuse', text }, invocationMessage, confirmation: nothingToSendConfirmation(reason) };
}

export async function prepareChat(deps: ChatToolDeps, input: ToolInput, signal?: AbortSignal): Promise<Prepared<ChatPlan>> {
  const reference = str(input, 'crew') ?? '';
  const lookup = deps.findCrew(reference);
  const looking = l10n.t('Looking for crew {0}…', escapeMarkdown(oneLine(reference, 80)));
  if (lookup.kind === 'unknown') {
    return refused(unknownCrewText(reference, lookup.known), l10n.t('There is no crew {0}.', oneLine(reference, 80)), looking);
  }
  if (lookup.kind === 'ambiguous') {
    return refused(ambiguousCrewText(reference, lookup.matches.map((c) => c.url)), l10n.t('Several crews are called {0}.', oneLine(reference, 80)), looking);
  }
  const crew = lookup.crew;
  const message = typeof input.message === 'string' ? input.message : '';
  if (!message.trim()) {
    return refused('Nothing was sent: "message" is empty. Call again with the text to send to the flow.', l10n.t('The message is empty.'), looking);
  }
  if (message.length > MAX_MESSAGE_CHARS) {
    return refused(
      `Nothing was sent: the message is ${message.length.toLocaleString('en-US')} characters long; a flow takes at most ${MAX_MESSAGE_CHARS.toLocaleString('en-US')}. Shorten it and call again.`,
      l10n.t('The message is {0} characters long; a flow takes at most {1}.', message.length, MAX_MESSAGE_CHARS),
      looking,
    );
  }
  const given = input.sessionId;
  const sessionId = typeof given === 'string' && given.trim() ? given.trim() : undefined;
  if ((given !== undefined && given !== null && typeof given !== 'string') || (sessionId !== undefined && !SESSION_ID.test(sessionId))) {
    return refused(
      `Nothing was sent: "sessionId" must be a session id as ${TOOL.chatWithFlow} returned it (letters, digits, . _ : -), or left out to start a new conversation.`,
      l10n.t('The session id is not one a flow gives.'),
      looking,
    );
  }
  if (!(await deps.hasToken(crew.url))) {
    return refused(
      `Nothing was sent: crew ${quoted(crew.name)} has no API token. Tell the user to set it with "Crew Runs: Set Token…", then call again.`,
      l10n.t('{0} has no API token.', oneLine(crew.name, 80)),
      looking,
    );
  }
  let chats: boolean;
  try {
    chats = await deps.chats(crew, signal);
  } catch (error) {
    const words = deps.describe(error, crew.name);
    return refused(`Nothing was sent: Crew Runs could not ask crew ${quoted(crew.name)} whether it chats (GET /inspect):\n${problemFenced(words)}`, l10n.t('Could not ask {0} whether it chats.', oneLine(crew.name, 80)), looking);
  }
  if (!chats) {
    return refused(
      `Nothing was sent: crew ${quoted(crew.name)} is not a conversational flow (its /inspect does not say it chats). Use ${TOOL.kickoff} to run it instead.`,
      l10n.t('{0} did not answer as a chat flow: run it with Kick Off instead.', oneLine(crew.name, 80)),
      looking,
    );
  }
  return {
    plan: { kind: 'send', crew, message, ...(sessionId ? { sessionId } : {}) },
    invocationMessage: l10n.t('Sending a message to {0}…', escapeMarkdown(oneLine(crew.name, 80))),
    confirmation: chatConfirmation(crew, sessionId, message),
  };
}

/** How the tool's wait ended when the turn did not: cancelled by the user, out of time, or a question for a human. */
export type ChatStop = { kind: 'cancelled' } | { kind: 'timeout'; ms: number } | { kind: 'question'; text: string };

export interface ChatTurnResult {
  sessionId: string;
  /** The session was started by this call. */
  newSession: boolean;
  outcome: TurnOutcome;
  steps: string[];
  stop?: ChatStop;
}

/** Sends the confirmed message on the confirmed crew only; never twice. The text for the model. */
export async function chatConfirmed(deps: ChatToolDeps, plan: ChatPlan | undefined, token?: Cancellation, waitMs = CHAT_WAIT_MS): Promise<string> {
  if (!plan) {
    return `Nothing was sent: this call was not confirmed by the user. Call ${TOOL.chatWithFlow} again.`;
  }
  if (plan.kind === 'refuse') {
    return plan.text;
  }
  const { crew } = plan;
  const now = deps.findCrew(crew.url);
  if (now.kind !== 'found' || now.crew.url !== crew.url || now.crew.name !== crew.name) {
    return `Nothing was sent: crew ${quoted(crew.name)} was removed or changed since the user confirmed. Call ${TOOL.listCrews}, then ${TOOL.chatWithFlow} again.`;
  }
  const abort = new AbortController();
  let stop: ChatStop | undefined;
  const stopWith = (why: ChatStop) => {
    stop ??= why;
    abort.abort();
  };
  const cancelled = token?.onCancellationRequested(() => stopWith({ kind: 'cancelled' }));
  const timer = setTimeout(() => stopWith({ kind: 'timeout', ms: waitMs }), waitMs);
  try {
    if (token?.isCancellationRequested) {
      return 'Nothing was sent: the call was cancelled.';
    }
    let sessionId = plan.sessionId;
    if (!sessionId) {
      try {
        sessionId = await deps.startSession(crew, abort.signal);
      } catch (error) {
        return `Nothing was sent: Crew Runs could not start a chat session with ${quoted(crew.name)}:\n${problemFenced(deps.describe(error, crew.name))}`;
      }
    }
    const steps: string[] = [];
    let outcome: TurnOutcome;
    try {
      outcome = await runTurnOnce(
        deps.sends,
        chatMessageKey(crew.url, sessionId, plan.message),
        deps.turnApi(crew, sessionId),
        plan.message,
        (update) => {
          if (update.kind === 'step') {
            steps.push(update.title);
          } else if (update.kind === 'question') {
            // A human answers it, never the model: the tool stops waiting and says so.
            stopWith({ kind: 'question', text: update.text });
          }
        },
        { sleep: deps.sleep },
        abort.signal,
      );
    } catch (error) {
      outcome = { kind: 'uncertain', error: deps.describe(error, crew.name) };
    }
    deps.log?.(`Chat tool: session ${sessionId} with ${crew.url}: turn ${outcome.kind}${stop ? ` (${stop.kind})` : ''}.`);
    if (outcome.kind !== 'notSent' && outcome.kind !== 'busy' && !(outcome.kind === 'uncertain' && outcome.earlier)) {
      // The flow has (or may have) the message: the user can reopen the conversation from the crew's Chats.
      await deps.recordSession?.(crew, sessionId, plan.message).catch(() => undefined);
    }
    return chatTurnText(crew.name, { sessionId, newSession: !plan.sessionId, outcome, steps, stop });
  } finally {
    clearTimeout(timer);
    cancelled?.dispose();
  }
}

/** The flow's words (answer, partial answer, failure), fenced and capped: "… 1,200 more characters not shown". */
function answerFenced(answer: string, what: string): string {
  const page = pageOf(answer, 0, CHAT_ANSWER_MAX);
  const fenced = fenceUntrusted(page.text, what);
  return page.next === undefined ? fenced : `${fenced}\n${moreNote(page.total - page.end, 'characters')} of the answer not shown (capped at ${CHAT_ANSWER_MAX.toLocaleString('en-US')}).`;
}

function stepsFenced(steps: string[]): string {
  if (steps.length === 0) {
    return '';
  }
  const first = Math.max(0, steps.length - CHAT_STEPS_MAX);
  const list = fenceUntrusted(steps.slice(first).map((s) => `- ${oneLine(s, 120)}`).join('\n'), 'Tool steps the flow reported in this turn');
  return first > 0 ? `${moreNote(first, 'earlier steps')} not listed.\n${list}` : list;
}

export function chatTurnText(crewName: string, result: ChatTurnResult): string {
  const { sessionId, outcome, stop } = result;
  const crew = quoted(crewName);
  const session = `session id ${sessionId}${result.newSession ? ' (a new session)' : ''}`;
  const cont = `To continue this conversation, call ${TOOL.chatWithFlow} again with sessionId "${sessionId}".`;
  const partial = 'answer' in outcome && outcome.answer ? answerFenced(outcome.answer, 'The answer so far') : '';
  if (stop?.kind === 'question' && outcome.kind === 'cancelled') {
    return joinCapped([
      `${crew} paused this turn to ask a human for approval (${session}). Crew Runs does not answer it for the model: tell the user that a human must answer it in Crew Runs' Chat with Flow: this session is listed under the crew in the Crew Runs view (its "Chats" group, labelled with this message); opening it there reopens this session, shows the conversation, follows the running turn and offers the question's answer. Until it is answered, this session takes no new message.`,
      stop.text ? fenceUntrusted(oneLine(stop.text, 2000), 'The flow\'s question') : '',
      stepsFenced(result.steps),
      partial,
    ]);
  }
  switch (outcome.kind) {
    case 'completed':
      return joinCapped([`${crew} answered (${session}). ${cont}`, stepsFenced(result.steps), answerFenced(outcome.answer, 'The flow\'s answer')]);
    case 'failed':
      return joinCapped([`The turn failed: ${crew} could not answer this message (${session}). ${cont}`, fenceUntrusted(oneLine(outcome.error, 2000), 'What the flow said'), stepsFenced(result.steps), partial]);
    case 'busy':
      if (outcome.sending) {
        return `Nothing was sent: this same message is being sent to ${crew} in ${session} already (another window or call). Do NOT send it again; call ${TOOL.chatWithFlow} with a new message once its turn is over.`;
      }
      return `Nothing was sent: ${crew} is still answering an earlier message in ${session} (one turn at a time). Wait, then call ${TOOL.chatWithFlow} again with the same sessionId.`;
    case 'notSent':
      return `Nothing was sent: ${crew} did not take the message (${session}).${outcome.needsToken ? ' Tell the user to set its token with "Crew Runs: Set Token…".' : ''}\n${problemFenced(outcome.error)}`;
    case 'uncertain':
      if (outcome.earlier) {
        return `The message may have been sent to ${crew} (${session}) already: an earlier send of this same message could not tell whether ${crew} received it. It was NOT sent again. Do NOT send it again, in this session or a new one: the flow would answer it twice. Tell the user that it may have arrived; they can reopen the conversation from the crew's "Chats" in the Crew Runs view, where Check reads its history.`;
      }
      return `The message may have been sent to ${crew} (${session}): Crew Runs could not tell whether ${crew} received the message, and the conversation's history does not show it so far (a flow may list it late). It was NOT sent again. Do NOT send it again, in this session or a new one: the flow would answer it twice. Tell the user that it may have arrived; they can reopen the conversation from the crew's "Chats" in the Crew Runs view, where Check reads its history.\n${problemFenced(outcome.error)}`;
    case 'cancelled':
      if (stop?.kind === 'timeout') {
        return joinCapped([
          `${crew} did not finish its answer within ${Math.round(stop.ms / 1000).toLocaleString('en-US')} seconds (${session}); the message was sent and the turn may still be running. Do not send it again; a new message to this session gets "busy" until the turn ends.`,
          stepsFenced(result.steps),
          partial,
        ]);
      }
      return joinCapped([`Cancelled: Crew Runs stopped waiting for ${crew} (${session}). The message was sent, and the flow may still be answering it.`, stepsFenced(result.steps), partial]);
  }
}
