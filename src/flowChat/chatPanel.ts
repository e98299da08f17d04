// Chat with Flow: the command and its panel (a webview with the run view's CSP: scripts by nonce only, text
// only — crew words never become HTML). The page gets the answer's new text only, as it comes.

import * as vscode from 'vscode';
import type { Services } from '../services';
import type { Crew } from '../crews/crewConfig';
import { CrewApiError } from '../api/errors';
import { describeError } from '../ui/errorMessages';
import { showError, showInfo } from '../ui/notify';
import { pageHtml } from '../ui/webviewPage';
import { inspectChats, sendFeedback, sessionApi, startSession } from './chatApi';
import type * as ChatWords from './chatWords';
import type * as PickChatFlow from './pickChatFlow';
import { transcriptMarkdown, type TranscriptEntry } from './transcriptMarkdown';
import {
  ChatSendError,
  ChatSessionGone,
  clipAnswer,
  type Delivery,
  findDelivery,
  followDelivery,
  followTurn,
  MAX_MESSAGE_CHARS,
  runTurn,
  type TurnApi,
  type TurnOutcome,
  type TurnUpdate,
} from './turn';

export const CHAT_VIEW_TYPE = 'crewRuns.flowChat';

/** What the host sends the page. */
export type ChatHostMessage =
  | { type: 'strings'; strings: Record<string, string> }
  | { type: 'user'; text: string }
  /** A reopened session's conversation so far (GET /chat/{id}/history), before anything else. */
  | { type: 'history'; messages: { role: 'user' | 'assistant'; text: string; notShown?: number }[]; note?: string }
  /** `again`: the answer of the message whose send was uncertain, found by Check: in that message's place. */
  | { type: 'answerStart'; again?: boolean }
  | { type: 'update'; update: TurnUpdate }
  /**
   * `restore`: the message the flow did not take, back in the composer to send again or not. `check`: the send is
   * uncertain: the page offers Check (the history read for it), never the text back.
   */
  | { type: 'answerEnd'; outcome: TurnOutcome; note?: string; restore?: string; check?: boolean }
  /** What Check found where it did not find the message: said under it, Check offered again. */
  | { type: 'checkResult'; note: string }
  /** Tests only: as if the user pressed Check. */
  | { type: 'check' }
  | { type: 'busy'; reason?: string }
  | { type: 'submit'; text: string }
  /**
   * The answer to a flow's question was sent; or refused (`note` says why; it can be answered again); or its
   * delivery is uncertain (not sent again: the stream shows whether it arrived).
   */
  | { type: 'feedbackResult'; questionId: string; state: 'sent' | 'refused' | 'uncertain'; note?: string }
  /**
   * The flow no longer knows this session (it restarted, or was redeployed): the page says so, closes the
   * composer for good, and offers Start a New Chat and Forget This Chat.
   */
  | { type: 'gone' }
  /** A message to put in the composer (one the chat this one replaces could not send). */
  | { type: 'draft'; text: string };

/** What the page sends the host. */
export type ChatPageMessage =
  | { type: 'ready' }
  | { type: 'send'; text: string }
  | { type: 'copy'; text: string }
  /** Approve (`approved`) or feedback text for the flow's question `questionId`. */
  | { type: 'feedback'; questionId: string; feedback: string }
  | { type: 'openMarkdown' }
  /** Check: read the history for the message whose send was uncertain. */
  | { type: 'check' }
  /** Start a New Chat with the same flow, `draft` (the composer's text) in its composer. */
  | { type: 'newChat'; draft: string }
  /** Forget This Chat: off the crew's list, the panel closed. */
  | { type: 'forget' }
  | { type: 'report'; report: ChatPageReport };

/** What the page shows: reported after every render only where the test API is (see FlowChatInspection). */
export interface ChatPageReport {
  transcript: string[];
  busy: boolean;
  busyReason: string;
  steps: number;
  /** The flow's questions: their text and state (`open`, `sending`, `answered`), as shown. */
  questions: { text: string; state: string }[];
  /** The notes shown in plain words (a failed turn, a message not sent), oldest first. */
  notes: string[];
  /** Every status the page showed about the stream (reconnecting, following the history), oldest first. */
  connectionShown: string[];
  /** What the composer holds. */
  composer: string;
  /** Check is offered (and not under way) for a message whose send was uncertain. */
  checkOffered: boolean;
  /** The class of the focused element of the page. */
  focused: string;
  /** The titles of the steps shown, oldest first. */
  stepTitles: string[];
  /** The words shown where the flow no longer knows this chat ('' when not), and the buttons under them. */
  gone: string;
  goneActions: string[];
  /** The last question's Send Feedback button as drawn (computed colours), and the background behind it. */
  feedbackButton?: { background: string; border: string; behind: string };
  /** The name of the theme the page is drawn in ("Dark Modern"). */
  theme: string;
}

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
   * its answer's entry in the transcript (filled in place once found).
   */
  private unsure?: { message: string; knownMessages?: number; entry: number };

  constructor(
    private readonly services: Services,
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
    const outcome = await this.follow((api, onUpdate, options) => runTurn(api, text, (update) => (list(), onUpdate(update)), options, this.abort.signal));
    if (outcome.kind !== 'busy' && outcome.kind !== 'notSent') {
      list();
    }
    // Only a message the flow did not take goes back in the composer: one that may have arrived is never offered
    // to send again (the flow would answer it twice); Check reads the history for it instead.
    const taken = outcome.kind !== 'busy' && outcome.kind !== 'notSent';
    this.endTurn(outcome, taken ? undefined : text);
    if (outcome.kind === 'uncertain') {
      this.unsure = { message: text, knownMessages: outcome.knownMessages, entry: this.transcript.length - 1 };
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

  /** Sends the human's answer to a question once: a second click, or one after it was answered, does nothing. */
  private async answer(questionId: string, feedback: string): Promise<void> {
    const question = this.questions.get(questionId);
    if (!question || question.state !== 'open' || feedback.trim() === '' || feedback.length > MAX_MESSAGE_CHARS) {
      return;
    }
    question.state = 'sending';
    try {
      await sendFeedback(this.services.client, this.crewUrl, question.flowId, feedback, this.abort.signal);
      question.state = 'answered';
      this.post({ type: 'feedbackResult', questionId, state: 'sent' });
    } catch (e) {
      const words = e instanceof Error ? e.message : String(e);
      if (e instanceof ChatSendError && e.kind === 'notSent') {
        question.state = 'open'; // Refused (a 4xx, or never sent): it can be answered again.
        this.post({ type: 'feedbackResult', questionId, state: 'refused', note: vscode.l10n.t('The flow did not take your answer: {0}', words) });
      } else {
        // It may have arrived: never sent twice. The stream (or the history) shows whether the flow goes on.
        this.post({
          type: 'feedbackResult',
          questionId,
          state: 'uncertain',
          note: vscode.l10n.t('It is not known whether the flow got your answer ({0}); it was not sent again. The answer continues here if it did.', words),
        });
      }
    }
    this.services.log.info(`Chat ${this.sessionId} with ${this.crewUrl}: answer to a question ${question.state === 'answered' ? 'sent' : 'not sent'}.`);
  }
}

/** The longer words (dist/chatWords.js), loaded with the first chat page or picked crew that does not chat. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const chatWords = () => require('./chatWords') as typeof ChatWords;

/** The crew refused its token (or has none): says so, with Set Token…. */
async function offerSetToken(words: string, crewUrl: string): Promise<void> {
  const setToken = vscode.l10n.t('Set Token…');
  if ((await showError(words, setToken)) === setToken) {
    await vscode.commands.executeCommand('crewRuns.setToken', crewUrl);
  }
}

/** The server's words as a sentence of their own: a full stop added where they end without one. */
function asSentence(words: string): string {
  const trimmed = words.trim();
  return /[.!?…]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

function noteFor(outcome: TurnOutcome): string | undefined {
  if ((outcome.kind === 'notSent' || outcome.kind === 'failed') && outcome.sessionGone) {
    return undefined; // The page says it, with the ways on (showGone).
  }
  switch (outcome.kind) {
    case 'failed':
      return vscode.l10n.t('The flow could not answer: {0}', outcome.error);
    case 'busy':
      return vscode.l10n.t('The flow is still answering an earlier message; your message was not sent. Send it again when that turn is over.');
    case 'notSent':
      return outcome.error ? vscode.l10n.t('The message was not sent: {0} It is back in the message box.', asSentence(outcome.error)) : undefined;
    case 'uncertain':
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

/** An open chat as tests see it. */
export interface ChatPanelInspection {
  readonly sessionId: string;
  readonly crewUrl: string;
  readonly panel: vscode.WebviewPanel;
  /** What the page last reported. */
  lastReport(): ChatPageReport | undefined;
  /** As if the user typed `text` and pressed Enter. */
  submitFromPage(text: string): void;
  /** As if the user pressed Check under a message whose send was uncertain. */
  checkFromPage(): void;
}

/** What tests may see of the chats: the open panels, each with what its page reports. */
export interface FlowChatInspection {
  panels(): ChatPanelInspection[];
}

/**
 * `activeRunCrew`: the crew of the run whose view is active, for the run view's Chat with Flow. `inspect` (tests
 * only) is given the chats' inspection, and makes every page report what it shows.
 */
export function registerFlowChat(
  services: Services,
  activeRunCrew: () => string | undefined,
  inspect?: (inspection: FlowChatInspection) => void,
  /** The chat session a row of the crews tree stands for (the very node it drew), for Forget Chat. */
  treeSession?: (arg: unknown) => { crewUrl: string; sessionId: string } | undefined,
): vscode.Disposable[] {
  const openChats: FlowChatPanel[] = [];
  const observed = new Map<FlowChatPanel, { submit(text: string): void; check(): void; report?: ChatPageReport }>();
  const observer: ChatPanelObserver | undefined = inspect && {
    attached: (chat, submit, check) => observed.set(chat, { submit, check }),
    reported: (chat, report) => {
      const entry = observed.get(chat);
      if (entry) {
        entry.report = report;
      }
    },
  };
  inspect?.({
    panels: () =>
      openChats.map((chat) => ({
        sessionId: chat.sessionId,
        crewUrl: chat.crewUrl,
        panel: chat.panel,
        lastReport: () => observed.get(chat)?.report,
        submitFromPage: (text: string) => observed.get(chat)?.submit(text),
        checkFromPage: () => observed.get(chat)?.check(),
      })),
  });
  // The run view's title bar offers chat where the run's crew chats (as far as this window has asked it).
  const updateContext = () => {
    const crewUrl = activeRunCrew();
    void vscode.commands.executeCommand('setContext', 'crewRuns.activeRunChats', crewUrl !== undefined && services.chats.chats(crewUrl) === true);
  };
  /** A tab title no open chat has: "Chat: Support Flow", then "Chat: Support Flow #2" beside it, as runs are numbered. */
  const titleFor = (crewName: string): string => {
    const taken = new Set(openChats.map((c) => c.panel.title));
    let title = vscode.l10n.t('Chat: {0}', crewName);
    for (let n = 2; taken.has(title); n++) {
      title = vscode.l10n.t('Chat: {0} #{1}', crewName, n);
    }
    return title;
  };
  const openPanel = (crew: Crew, sessionId: string, options: { reopened?: boolean; draft?: string } = {}): FlowChatPanel => {
    const panel = vscode.window.createWebviewPanel(CHAT_VIEW_TYPE, titleFor(crew.name), vscode.ViewColumn.Active, {
      retainContextWhenHidden: true,
      enableFindWidget: true,
    });
    const newChat = (draft: string) => void start(crew, draft);
    const chat = new FlowChatPanel(services, crew.url, crew.name, sessionId, panel, { observer, newChat, ...options });
    openChats.push(chat);
    panel.onDidDispose(() => {
      openChats.splice(openChats.indexOf(chat), 1);
      observed.delete(chat);
    });
    return chat;
  };
  /** A listed session (a row of the tree, or its crew URL and session id): reopened, or its open panel revealed. */
  const reopen = (arg: unknown): string | undefined => {
    const crewUrl = isObject(arg) && typeof arg.crewUrl === 'string' ? arg.crewUrl : undefined;
    const sessionId = isObject(arg) && typeof arg.sessionId === 'string' ? arg.sessionId : undefined;
    const crew = crewUrl === undefined ? undefined : services.crews.get(crewUrl);
    // Only sessions listed under a configured crew: a command link cannot aim the panel at anything else.
    if (!crew || sessionId === undefined || !services.chatSessions.get(crew.url, sessionId)) {
      void showInfo(vscode.l10n.t('That chat is no longer listed. Start a new one with Chat with Flow.'));
      return undefined;
    }
    const open = openChats.find((c) => c.crewUrl === crew.url && c.sessionId === sessionId);
    if (open) {
      open.panel.reveal();
    } else {
      openPanel(crew, sessionId, { reopened: true });
    }
    return sessionId;
  };
  /** A new session with the crew in a new panel (`draft` in its composer); undefined, said, where it cannot start. */
  const start = async (crew: Crew, draft?: string, askFirst = false): Promise<string | undefined> => {
    try {
      if (askFirst) {
        const chats = await inspectChats(services.client, crew.url);
        services.chats.set(crew.url, chats);
        if (!chats) {
          void showInfo(chatWords().notAChatFlow(crew.name));
          return undefined;
        }
      }
      const sessionId = await startSession(services.client, crew.url);
      openPanel(crew, sessionId, draft ? { draft } : {});
      return sessionId;
    } catch (e) {
      const words = vscode.l10n.t('Could not start a chat with {0}: {1}', crew.name, describeError(e, crew.name));
      if (e instanceof CrewApiError && (e.kind === 'unauthorized' || e.kind === 'noToken')) {
        void offerSetToken(words, crew.url);
      } else {
        void showError(words);
      }
      return undefined;
    }
  };
  const chatWith = async (arg: unknown): Promise<string | undefined> => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { pickChatFlow } = require('./pickChatFlow') as typeof PickChatFlow;
    const crew = await pickChatFlow(services.crews, services.chats, arg, vscode.l10n.t('Chat with which flow?'));
    return crew && start(crew, undefined, true);
  };
  return [
    vscode.commands.registerCommand('crewRuns.chatWithFlow', (arg?: unknown) => chatWith(arg)),
    // From the run view's title bar: the crew of the run on screen.
    vscode.commands.registerCommand('crewRuns.chatWithRunFlow', () => {
      const crewUrl = activeRunCrew();
      return crewUrl === undefined ? chatWith(undefined) : chatWith(crewUrl);
    }),
    // A row of the Chats group under a crew (its click, or the inline action).
    vscode.commands.registerCommand('crewRuns.openChatSession', (arg?: unknown) => reopen(arg)),
    // Removes the row only: the flow keeps the conversation. Only from the tree's own row (never a command link).
    vscode.commands.registerCommand('crewRuns.forgetChatSession', async (arg?: unknown) => {
      const session = treeSession?.(arg);
      if (session) {
        await services.chatSessions.forget(session.crewUrl, session.sessionId);
      }
    }),
    vscode.window.tabGroups.onDidChangeTabs(updateContext),
    services.chats.onDidChange(updateContext),
    vscode.commands.registerCommand('crewRuns.openChatAsMarkdown', async () => {
      const chat = openChats.find((c) => c.panel.active) ?? openChats.at(-1);
      if (!chat) {
        void showInfo(vscode.l10n.t('No chat is open. Chat with a flow first.'));
        return;
      }
      await chat.openAsMarkdown();
    }),
  ];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

