// Chat with Flow: the panel (a webview with the run view's CSP: scripts by nonce only, text only — crew words never
// become HTML). The page gets the answer's new text only, as it comes.

import * as vscode from 'vscode';
import type { FlowChatServices } from './flowChatServices';
import { CrewApiError } from '../api/errors';
import { describeError } from '../ui/errorMessages';
import { showError } from '../ui/notify';
import { pageHtml } from '../ui/webviewPage';
import { errorText } from '../util/errorText';
import { sendFeedback, sessionApi } from './chatApi';
import type { ChatHostMessage, ChatPageMessage, ChatPageReport } from './chatProtocol';
import type * as ChatWords from './chatWords';
import { answerOnce, chatAnswerKey, chatMessageKey, runTurnOnce } from './messageOnce';
import { transcriptMarkdown, type TranscriptEntry } from './transcriptMarkdown';
import {
  ChatSessionGone,
  clipAnswer,
  type Delivery,
  findDelivery,
  followDelivery,
  followTurn,
  MAX_MESSAGE_CHARS,
  type TurnApi,
  type TurnOutcome,
  type TurnUpdate,
} from './turn';

/** How a panel opens, and what it may ask of the chats around it. */
export interface ChatPanelOptions {
  /** Tests only: told what the page reports, and given the page's own submit path. */
  observer?: ChatPanelObserver;
  /** A listed session reopened: its history is read first. */
  reopened?: boolean;
  /** Text waiting in the composer when the page is ready. */
  draft?: string;
  /** Start a New Chat with the same flow, `draft` in its composer. */
  newChat?(draft: string): void;
}

export class FlowChatPanel {
  private busy = false;
  /** The flow no longer knows the session: nothing is sent here any more. */
  private gone = false;
  private readonly observer?: ChatPanelObserver;
  /** The flow's questions in this panel (turn.ts `question`): whom to answer, and whether an answer is on its way. */
  /** The conversation as this panel showed it, for Open as Markdown. */
  private readonly transcript: TranscriptEntry[] = [];
  private readonly questions = new Map<string, { flowId: string; state: 'open' | 'sending' | 'answered' }>();
  private readonly abort = new AbortController();
  /** A reopened session: its history is loaded (and a turn still running followed) once the page is ready. */
  private historyPending: boolean;
  /**
   * The last message whose send was uncertain, until Check finds it: its text, the history's length before it, and
   * its answer's entry in the transcript (filled in place once found), and its send-once mark (freed once found).
   */
  private unsure?: { message: string; knownMessages?: number; entry: number; key: string };

  constructor(
    private readonly services: FlowChatServices,
    readonly crewUrl: string,
    private readonly crewName: string,
    readonly sessionId: string,
    readonly panel: vscode.WebviewPanel,
    private readonly options: ChatPanelOptions = {},
  ) {
    this.observer = options.observer;
    const observer = options.observer;
    this.historyPending = options.reopened === true;
    const media = vscode.Uri.joinPath(services.context.extensionUri, 'media');
    panel.webview.options = { enableScripts: true, enableCommandUris: false, localResourceRoots: [media] };
    panel.webview.html = pageHtml({
      cspSource: panel.webview.cspSource,
      language: vscode.env.language,
      title: panel.title,
      styles: [panel.webview.asWebviewUri(vscode.Uri.joinPath(media, 'flowChat.css')).toString()],
      script: panel.webview.asWebviewUri(vscode.Uri.joinPath(media, 'dist', 'flowChat.js')).toString(),
      loading: vscode.l10n.t('Loading the chat…'),
      data: { probe: observer ? '1' : '' },
    });
    panel.webview.onDidReceiveMessage((message: ChatPageMessage) => this.onMessage(message));
    panel.onDidDispose(() => this.abort.abort());
    observer?.attached(this, (text) => this.post({ type: 'submit', text }), () => this.post({ type: 'check' }));
  }

  private post(message: ChatHostMessage): void {
    if (this.abort.signal.aborted) {
      return; // The panel is closed (its turn ends after it): the closed webview throws on any use.
    }
    void this.panel.webview.postMessage(message);
  }

  private onMessage(message: ChatPageMessage): void {
    switch (message.type) {
      case 'ready':
        this.ready();
        return;
      case 'copy':
        void vscode.env.clipboard.writeText(String(message.text));
        return;
      case 'report':
        this.observer?.reported(this, message.report);
        return;
      case 'send':
        void this.send(String(message.text));
        return;
      case 'feedback':
        void this.answer(String(message.questionId), String(message.feedback));
        return;
      case 'openMarkdown':
        void this.openAsMarkdown();
        return;
      case 'check':
        void this.check();
        return;
      case 'newChat':
        this.options.newChat?.(typeof message.draft === 'string' ? message.draft.slice(0, MAX_MESSAGE_CHARS) : '');
        return;
      case 'forget':
        void this.forget();
        return;
    }
  }

  /** The page is ready: its words (from a lazy bundle: ./chatWords.ts), then what it shows first. */
  private ready(): void {
    this.post({ type: 'strings', strings: chatWords().chatPageStrings() });
    this.post({ type: 'busy', reason: this.busy ? vscode.l10n.t('The flow is answering; you can write the next message when it is done.') : undefined });
    if (this.options.draft) {
      this.post({ type: 'draft', text: this.options.draft });
    }
    if (this.gone) {
      this.showGone();
    }
    if (this.historyPending) {
      this.historyPending = false;
      void this.loadHistory();
    }
  }

  /** The flow no longer knows this session: said, with the ways on (the composer stays closed). */
  private showGone(): void {
    this.gone = true;
    this.busy = true;
    this.post({ type: 'gone' });
    this.services.log.info(`Chat ${this.sessionId} with ${this.crewUrl}: the flow no longer knows the session.`);
  }

  /** Forget This Chat: off the crew's list (every window's tree), and the panel closed. */
  private async forget(): Promise<void> {
    await this.services.chatSessions.forget(this.crewUrl, this.sessionId).catch((e: unknown) => this.services.log.warn(`Chat ${this.sessionId}: could not forget the session (${String(e)}).`));
    this.panel.dispose();
  }

  private async send(text: string): Promise<void> {
    if (this.busy || this.gone || text.trim() === '') {
      return;
    }
    if (text.length > MAX_MESSAGE_CHARS) {
      this.post({ type: 'answerEnd', outcome: { kind: 'notSent', error: '' }, note: vscode.l10n.t('The message is {0} characters long; a flow takes at most {1}. Nothing was sent.', text.length, MAX_MESSAGE_CHARS) });
      return;
    }
    this.busy = true;
    this.transcript.push({ role: 'user', content: text });
    this.post({ type: 'busy', reason: vscode.l10n.t('The flow is answering; you can write the next message when it is done.') });
    this.post({ type: 'user', text });
    // Listed under the crew (every window's tree) once the flow has, or may have, the message, as the chat tool
    // does: the turn's first update says the flow took it; a refused or busy send lists nothing.
    let listed = false;
    const list = () => {
      if (!listed) {
        listed = true;
        this.list(text);
      }
    };
    // Sent once machine-wide (messageOnce.ts): the same words to this session whose earlier send may have arrived
    // (here, before a reload, in another window, from the chat tool) do not go again.
    const key = chatMessageKey(this.crewUrl, this.sessionId, text);
    const outcome = await this.follow((api, onUpdate, options) => runTurnOnce(this.services.sends, key, api, text, (update) => (list(), onUpdate(update)), options, this.abort.signal));
    const sentNow = outcome.kind !== 'busy' && outcome.kind !== 'notSent' && !(outcome.kind === 'uncertain' && outcome.earlier);
    if (sentNow) {
      list();
    }
    // Only a message the flow did not take goes back in the composer: one that may have arrived is never offered
    // to send again (the flow would answer it twice), nor one being sent already; Check reads the history instead.
    const taken = outcome.kind !== 'notSent' && (outcome.kind !== 'busy' || outcome.sending === true);
    this.endTurn(outcome, taken ? undefined : text);
    if (outcome.kind === 'uncertain') {
      this.unsure = { message: text, knownMessages: outcome.knownMessages, entry: this.transcript.length - 1, key };
    }
  }

  /**
   * Check: the history read for the message whose send was uncertain. Found, its answer (or its turn, still
   * running) takes its place; not found, that is said, and Check stays offered. It never sends anything.
   */
  private async check(): Promise<void> {
    const unsure = this.unsure;
    if (this.busy || this.gone || !unsure) {
      return;
    }
    this.busy = true;
    this.post({ type: 'busy', reason: vscode.l10n.t('Reading the conversation\'s history…') });
    const api = sessionApi(this.services.client, this.crewUrl, this.crewName, this.sessionId);
    let delivery: Delivery;
    try {
      delivery = await findDelivery(api, unsure.message, unsure.knownMessages, this.abort.signal);
    } catch (e) {
      if (e instanceof ChatSessionGone) {
        this.busy = false;
        this.showGone();
        return;
      }
      const words = e instanceof CrewApiError ? describeError(e, this.crewName) : e instanceof Error ? e.message : String(e);
      this.checked(vscode.l10n.t('The conversation\'s history could not be read ({0}). It is still not known whether the flow got your message; check again later.', words));
      return;
    }
    if (delivery.kind === 'notListed') {
      this.checked(
        delivery.turnRunning
          ? vscode.l10n.t('The flow is answering a message, and its history does not show yours so far. Check again once it is done.')
          : vscode.l10n.t('The conversation\'s history does not show your message so far. A flow may list it late: check again in a moment.'),
      );
      return;
    }
    this.unsure = undefined;
    void this.services.sends.forget(unsure.key).catch(() => undefined); // It arrived: the same words may go again as a new message.
    this.services.log.info(`Chat ${this.sessionId} with ${this.crewUrl}: the message whose send was uncertain is in the history.`);
    const found = delivery;
    const outcome = await this.follow((turnApi, onUpdate, options) => followDelivery(turnApi, found, onUpdate, options, this.abort.signal), true);
    this.endTurn(outcome, undefined, unsure.entry);
  }

  /** Check did not find the message: said under it; the composer free again. */
  private checked(note: string): void {
    this.busy = false;
    this.post({ type: 'checkResult', note });
    this.post({ type: 'busy' });
  }

  /** Lists the session under its crew; the store keeps the first message it is given. */
  private list(message: string): void {
    void this.services.chatSessions.record(this.crewUrl, this.sessionId, message).catch((e: unknown) => this.services.log.warn(`Chat ${this.sessionId}: could not list the session (${String(e)}).`));
  }

  /** Runs a turn (sent here, or one already running in a reopened session) with the answer shown as it comes. */
  private async follow(
    turn: (api: TurnApi, onUpdate: (update: TurnUpdate) => void, options: { sleep(ms: number, signal: AbortSignal): Promise<void> }) => Promise<TurnOutcome>,
    again = false,
  ): Promise<TurnOutcome> {
    this.post(again ? { type: 'answerStart', again } : { type: 'answerStart' });
    const api = sessionApi(this.services.client, this.crewUrl, this.crewName, this.sessionId);
    const sleep = (ms: number, signal: AbortSignal) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
    const onUpdate = (update: TurnUpdate) => {
      if (update.kind === 'question') {
        this.questions.set(update.id, { flowId: update.flowId ?? this.sessionId, state: 'open' });
      } else if (update.kind === 'questionAnswered') {
        this.questions.forEach((q) => (q.state = 'answered'));
      }
      this.post({ type: 'update', update });
    };
    try {
      return await turn(api, onUpdate, { sleep });
    } catch (e) {
      return { kind: 'uncertain', error: e instanceof Error ? e.message : String(e) };
    }
  }

  /** `restore`: the message to put back in the composer (not taken). `entry`: the transcript's entry it fills (Check). */
  private endTurn(outcome: TurnOutcome, restore: string | undefined, entry?: number): void {
    this.busy = false;
    this.questions.forEach((q) => (q.state = 'answered')); // The turn is over: nothing waits for them any more.
    const note = noteFor(outcome);
    const said = { role: 'assistant' as const, content: 'answer' in outcome ? outcome.answer : '', note };
    if (entry !== undefined && entry < this.transcript.length) {
      this.transcript[entry] = said;
    } else {
      this.transcript.push(said);
    }
    this.post({ type: 'answerEnd', outcome, note, restore, ...(outcome.kind === 'uncertain' ? { check: true } : {}) });
    this.post({ type: 'busy' });
    if ((outcome.kind === 'notSent' || outcome.kind === 'failed') && outcome.sessionGone) {
      this.showGone();
    }
    if (outcome.kind === 'notSent' && outcome.needsToken) {
      void offerSetToken(outcome.error, this.crewUrl); // Then Enter sends the message kept in the composer.
    }
    if (outcome.kind !== 'cancelled') {
      void this.services.chatSessions.touch(this.crewUrl, this.sessionId).catch(() => undefined);
    }
    this.services.log.info(`Chat ${this.sessionId} with ${this.crewUrl}: turn ${outcome.kind}.`);
  }

  /**
   * A reopened session: the flow's history (the authoritative transcript) into the page, then, when a turn is
   * still running (`active_kickoff_id`), its answer followed as a sent one is (turn.ts followTurn).
   */
  private async loadHistory(): Promise<void> {
    const api = sessionApi(this.services.client, this.crewUrl, this.crewName, this.sessionId);
    // Nothing is sent before the history is shown: a message would land above the conversation it follows.
    this.busy = true;
    this.post({ type: 'busy', reason: vscode.l10n.t('Reading the conversation so far…') });
    let history;
    try {
      history = await api.history(this.abort.signal);
    } catch (e) {
      this.busy = false;
      if (e instanceof ChatSessionGone) {
        this.post({ type: 'history', messages: [] });
        this.showGone();
        return;
      }
      const words = e instanceof CrewApiError ? describeError(e, this.crewName) : e instanceof Error ? e.message : String(e);
      this.post({ type: 'history', messages: [], note: vscode.l10n.t('The conversation so far could not be read: {0}', words) });
      this.post({ type: 'busy' });
      return;
    }
    // Each message as an answer is shown: at most MAX_ANSWER_CHARS, the rest counted on the page.
    const messages = history.messages.map((m) => {
      const text = clipAnswer(m.content);
      return { role: m.role === 'user' ? ('user' as const) : ('assistant' as const), text, ...(text.length < m.content.length ? { notShown: m.content.length - text.length } : {}) };
    });
    this.transcript.push(...messages.map((m) => ({ role: m.role, content: m.text })));
    this.post({ type: 'history', messages });
    if (history.activeKickoffId === null) {
      this.busy = false;
      this.post({ type: 'busy' });
      return;
    }
    this.post({ type: 'busy', reason: vscode.l10n.t('The flow is answering; you can write the next message when it is done.') });
    // The answer of the running turn comes after the messages known now (the last is its user message).
    const known = history.messages.length;
    const active = history.activeKickoffId;
    const outcome = await this.follow((turnApi, onUpdate, options) => followTurn(turnApi, onUpdate, options, this.abort.signal, known, active));
    this.endTurn(outcome, undefined);
  }

  /** The conversation so far in an untitled Markdown document, the flow's words fenced (transcriptMarkdown.ts). */
  async openAsMarkdown(): Promise<vscode.TextEditor> {
    const content = transcriptMarkdown(
      { title: vscode.l10n.t('Chat with {0}', this.crewName), you: vscode.l10n.t('You'), flow: vscode.l10n.t('Flow') },
      this.transcript,
    );
    const document = await vscode.workspace.openTextDocument({ language: 'markdown', content });
    return vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside });
  }

  /**
   * Sends the human's answer to a question once: a second click, or one after it was answered, does nothing here, and
   * its mark (messageOnce.ts answerOnce) keeps another window showing the same question from sending one too.
   */
  private async answer(questionId: string, feedback: string): Promise<void> {
    const question = this.questions.get(questionId);
    if (!question || question.state !== 'open' || feedback.trim() === '' || feedback.length > MAX_MESSAGE_CHARS) {
      return;
    }
    question.state = 'sending';
    const key = chatAnswerKey(this.crewUrl, this.sessionId, question.flowId, questionId);
    const outcome = await answerOnce(this.services.sends, key, () => sendFeedback(this.services.client, this.crewUrl, question.flowId, feedback, this.abort.signal));
    switch (outcome.kind) {
      case 'sent':
        question.state = 'answered';
        this.post({ type: 'feedbackResult', questionId, state: 'sent' });
        break;
      case 'refused':
        question.state = 'open'; // Refused (a 4xx, or never sent): it can be answered again.
        this.post({ type: 'feedbackResult', questionId, state: 'refused', note: vscode.l10n.t('The flow did not take your answer: {0}', errorText(outcome.error)) });
        break;
      case 'uncertain':
        // It may have arrived: never sent twice. The stream (or the history) shows whether the flow goes on.
        this.post({
          type: 'feedbackResult',
          questionId,
          state: 'uncertain',
          note: vscode.l10n.t('It is not known whether the flow got your answer ({0}); it was not sent again. The answer continues here if it did.', errorText(outcome.error)),
        });
        break;
      case 'answeredElsewhere':
        this.post({
          type: 'feedbackResult',
          questionId,
          state: 'uncertain',
          note: outcome.uncertain
            ? vscode.l10n.t('An answer to this question may already have reached the flow (from another window, or before a reload); this one was not sent. The answer continues here if it did.')
            : vscode.l10n.t('This question was answered already (in another window, or before a reload); your answer was not sent. The flow goes on here.'),
        });
        break;
    }
    this.services.log.info(`Chat ${this.sessionId} with ${this.crewUrl}: answer to a question ${outcome.kind === 'sent' ? 'sent' : `not sent (${outcome.kind})`}.`);
  }
}

/** The longer words (dist/chatWords.js), loaded with the first chat page or picked crew that does not chat. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const chatWords = () => require('./chatWords') as typeof ChatWords;

/** The crew refused its token (or has none): says so, with Set Token…. */
export async function offerSetToken(words: string, crewUrl: string): Promise<void> {
  const setToken = vscode.l10n.t('Set Token…');
  if ((await showError(words, setToken)) === setToken) {
    await vscode.commands.executeCommand('crewRuns.setToken', crewUrl);
  }
}

/** The server's words as a sentence of their own: a full stop added where they end without one. */
function asSentence(words: string): string {
  const trimmed = words.trim();
  return /[.!?\u2026]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

function noteFor(outcome: TurnOutcome): string | undefined {
  if ((outcome.kind === 'notSent' || outcome.kind === 'failed') && outcome.sessionGone) {
    return undefined; // The page says it, with the ways on (showGone).
  }
  switch (outcome.kind) {
    case 'failed':
      return vscode.l10n.t('The flow could not answer: {0}', outcome.error);
    case 'busy':
      if (outcome.sending) {
        return vscode.l10n.t('This message is being sent already (from this window or another); it was not sent again.');
      }
      return vscode.l10n.t('The flow is still answering an earlier message; your message was not sent. Send it again when that turn is over.');
    case 'notSent':
      return outcome.error ? vscode.l10n.t('The message was not sent: {0} It is back in the message box.', asSentence(outcome.error)) : undefined;
    case 'uncertain':
      if (outcome.earlier) {
        return vscode.l10n.t(
          'This message was sent before, and that send may have reached the flow. It was not sent again, so that it is never answered twice. Check reads the conversation\'s history for it.',
        );
      }
      return vscode.l10n.t(
        'Your message may have reached the flow: the send failed in a way that does not say ({0}). It was not sent again, so that it is never answered twice. Check reads the conversation\'s history for it.',
        outcome.error,
      );
    default:
      return undefined;
  }
}

/** Told what each chat page reports (the test API only). */
export interface ChatPanelObserver {
  /** `submit`: as if the user typed the text and pressed Enter: the page's own submit path; `check`: pressed Check. */
  attached(chat: FlowChatPanel, submit: (text: string) => void, check: () => void): void;
  reported(chat: FlowChatPanel, report: ChatPageReport): void;
}
