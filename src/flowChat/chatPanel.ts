// Chat with Flow: the command and its panel (a webview with the run view's CSP: scripts by nonce only, text
// only — crew words never become HTML). The page gets the answer's new text only, as it comes.

import * as vscode from 'vscode';
import type { Services } from '../services';
import { pickCrew } from '../commands/pickCrew';
import { showError, showInfo } from '../ui/notify';
import { pageHtml } from '../views/webviewPage';
import { inspectChats, sessionApi, startSession } from './chatApi';
import { runTurn, type TurnOutcome, type TurnUpdate } from './turn';

export const CHAT_VIEW_TYPE = 'crewRuns.flowChat';
/** The reference client's cap on a message. */
export const MAX_MESSAGE_CHARS = 32_000;

/** What the host sends the page. */
export type ChatHostMessage =
  | { type: 'strings'; strings: Record<string, string> }
  | { type: 'user'; text: string }
  | { type: 'answerStart' }
  | { type: 'update'; update: TurnUpdate }
  | { type: 'answerEnd'; outcome: TurnOutcome; note?: string }
  | { type: 'busy'; reason?: string }
  | { type: 'submit'; text: string };

/** What the page sends the host. */
export type ChatPageMessage = { type: 'ready' } | { type: 'send'; text: string } | { type: 'copy'; text: string } | { type: 'report'; report: ChatPageReport };

/** What the page shows (tests only, CREW_RUNS_TEST_HOOKS). */
export interface ChatPageReport {
  transcript: string[];
  busy: boolean;
  busyReason: string;
  steps: number;
}

export class FlowChatPanel {
  private busy = false;
  lastReport?: ChatPageReport;
  private readonly reported = new vscode.EventEmitter<ChatPageReport>();
  readonly onDidReport = this.reported.event;
  private readonly abort = new AbortController();

  constructor(
    private readonly services: Services,
    readonly crewUrl: string,
    readonly sessionId: string,
    readonly panel: vscode.WebviewPanel,
  ) {
    const media = vscode.Uri.joinPath(services.context.extensionUri, 'media');
    panel.webview.options = { enableScripts: true, enableCommandUris: false, localResourceRoots: [media] };
    panel.webview.html = pageHtml({
      cspSource: panel.webview.cspSource,
      language: vscode.env.language,
      title: panel.title,
      styles: [panel.webview.asWebviewUri(vscode.Uri.joinPath(media, 'flowChat.css')).toString()],
      script: panel.webview.asWebviewUri(vscode.Uri.joinPath(media, 'dist', 'flowChat.js')).toString(),
      loading: vscode.l10n.t('Loading the chat…'),
      data: { probe: process.env.CREW_RUNS_TEST_HOOKS === '1' ? '1' : '' },
    });
    panel.webview.onDidReceiveMessage((message: ChatPageMessage) => this.onMessage(message));
    panel.onDidDispose(() => this.abort.abort());
  }

  private post(message: ChatHostMessage): void {
    void this.panel.webview.postMessage(message);
  }

  /** As if the user typed `text` and pressed Enter (tests): the page's own submit path. */
  submitFromPage(text: string): void {
    this.post({ type: 'submit', text });
  }

  private onMessage(message: ChatPageMessage): void {
    switch (message.type) {
      case 'ready':
        this.post({
          type: 'strings',
          strings: {
            placeholder: vscode.l10n.t('Message the flow (Enter sends, Shift+Enter for a new line)'),
            busy: vscode.l10n.t('The flow is answering; you can write the next message when it is done.'),
            you: vscode.l10n.t('You'),
            flow: vscode.l10n.t('Flow'),
            copy: vscode.l10n.t('Copy'),
            send: vscode.l10n.t('Send'),
            empty: vscode.l10n.t('Ask the flow something to start the conversation.'),
          },
        });
        this.post({ type: 'busy', reason: this.busy ? vscode.l10n.t('The flow is answering; you can write the next message when it is done.') : undefined });
        return;
      case 'copy':
        void vscode.env.clipboard.writeText(String(message.text));
        return;
      case 'report':
        this.lastReport = message.report;
        this.reported.fire(message.report);
        return;
      case 'send':
        void this.send(String(message.text));
        return;
    }
  }

  private async send(text: string): Promise<void> {
    if (this.busy || text.trim() === '') {
      return;
    }
    if (text.length > MAX_MESSAGE_CHARS) {
      this.post({ type: 'answerEnd', outcome: { kind: 'notSent', error: '' }, note: vscode.l10n.t('The message is {0} characters long; a flow takes at most {1}. Nothing was sent.', text.length, MAX_MESSAGE_CHARS) });
      return;
    }
    this.busy = true;
    this.post({ type: 'busy', reason: vscode.l10n.t('The flow is answering; you can write the next message when it is done.') });
    this.post({ type: 'user', text });
    this.post({ type: 'answerStart' });
    const api = sessionApi(this.services.client, this.crewUrl, this.sessionId);
    const sleep = (ms: number, signal: AbortSignal) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
    let outcome: TurnOutcome;
    try {
      outcome = await runTurn(api, text, (update) => this.post({ type: 'update', update }), { sleep }, this.abort.signal);
    } catch (e) {
      outcome = { kind: 'uncertain', error: e instanceof Error ? e.message : String(e) };
    }
    this.busy = false;
    this.post({ type: 'answerEnd', outcome, note: noteFor(outcome) });
    this.post({ type: 'busy' });
    this.services.log.info(`Chat ${this.sessionId} with ${this.crewUrl}: turn ${outcome.kind}.`);
  }
}

function noteFor(outcome: TurnOutcome): string | undefined {
  switch (outcome.kind) {
    case 'failed':
      return vscode.l10n.t('The flow could not answer: {0}', outcome.error);
    case 'busy':
      return vscode.l10n.t('The flow is still answering an earlier message; your message was not sent. Send it again when that turn is over.');
    case 'notSent':
      return outcome.error ? vscode.l10n.t('The message was not sent: {0}', outcome.error) : undefined;
    case 'uncertain':
      return vscode.l10n.t('It is not known whether the flow got your message ({0}). It was not sent again, so that it is never answered twice; reopen the conversation to check its history.', outcome.error);
    default:
      return undefined;
  }
}

/** The open chat panels (tests read them through the test API). */
export const openChats: FlowChatPanel[] = [];

export function registerFlowChat(services: Services): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('crewRuns.chatWithFlow', async (arg?: unknown) => {
      const crew = await pickCrew(services.crews, arg, vscode.l10n.t('Chat with which flow?'));
      if (!crew) {
        return undefined;
      }
      try {
        const chats = await inspectChats(services.client, crew.url);
        services.chats.set(crew.url, chats);
        if (!chats) {
          void showInfo(vscode.l10n.t('{0} does not offer chat: its /inspect does not say it is a conversational flow.', crew.name));
          return undefined;
        }
        const sessionId = await startSession(services.client, crew.url);
        const panel = vscode.window.createWebviewPanel(CHAT_VIEW_TYPE, vscode.l10n.t('Chat: {0}', crew.name), vscode.ViewColumn.Active, {
          retainContextWhenHidden: true,
          enableFindWidget: true,
        });
        const chat = new FlowChatPanel(services, crew.url, sessionId, panel);
        openChats.push(chat);
        panel.onDidDispose(() => openChats.splice(openChats.indexOf(chat), 1));
        return sessionId;
      } catch (e) {
        void showError(vscode.l10n.t('Could not start a chat with {0}: {1}', crew.name, e instanceof Error ? e.message : String(e)));
        return undefined;
      }
    }),
  ];
}
