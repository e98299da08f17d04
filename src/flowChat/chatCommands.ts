// Chat with Flow: the commands that open a chat panel (a new session, or a listed one reopened) and Open Chat as
// Markdown, and what tests may see of the open panels.

import * as vscode from 'vscode';
import type { FlowChatServices } from './flowChatServices';
import type { Crew } from '../crews/crewConfig';
import { CrewApiError } from '../api/errors';
import { describeError } from '../ui/errorMessages';
import { showError, showInfo } from '../ui/notify';
import { inspectChats, startSession } from './chatApi';
import { type ChatPanelObserver, chatWords, FlowChatPanel, offerSetToken } from './chatPanel';
import type { ChatPageReport } from './chatProtocol';
import type * as PickChatFlow from './pickChatFlow';

export const CHAT_VIEW_TYPE = 'crewRuns.flowChat';

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
  services: FlowChatServices,
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
