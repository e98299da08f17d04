// What a crew's "Chats" group and its chat session rows look like in the crews tree: a session's first
// message on one line, how long ago it was last active, and the session in the tooltip.
import * as vscode from 'vscode';
import type { ChatSession } from '../flowChat/core/chatSessions';
import { oneLine } from '../util/inertText';
import { markdownLine } from '../util/markdownText';
import { formatRelative } from '../ui/format';

/** "Chats": a crew's recent chat sessions (flowChat/core/chatSessions.ts), newest first, above its runs. */
export interface ChatsNode {
  readonly type: 'chats';
  readonly crewUrl: string;
}

/** One chat session: a click reopens it (Chat with Flow on that session, its history loaded). */
export interface ChatSessionNode {
  readonly type: 'chatSession';
  readonly crewUrl: string;
  readonly sessionId: string;
}

/** The "Chats" group of a crew listing `count` sessions. */
export function chatsTreeItem(node: ChatsNode, count: number): vscode.TreeItem {
  const item = new vscode.TreeItem(vscode.l10n.t('Chats'), vscode.TreeItemCollapsibleState.Collapsed);
  item.id = `chats:${node.crewUrl}`;
  item.description = String(count);
  item.tooltip = vscode.l10n.t('Your recent conversations with this flow, newest first: click one to reopen it.');
  item.iconPath = new vscode.ThemeIcon('comment-discussion');
  item.contextValue = 'chats';
  return item;
}

/** How long ago a session was last active ("5 min ago"): its row's description, which moves on without a change. */
export function chatSessionAge(session: ChatSession): string {
  return formatRelative(session.lastActivity);
}

/** A session's row (a session no longer listed: "(removed)"). */
export function chatSessionTreeItem(node: ChatSessionNode, session: ChatSession | undefined): vscode.TreeItem {
  if (!session) {
    return new vscode.TreeItem(vscode.l10n.t('(removed)'));
  }
  // The user's own words, but untrusted all the same (a tool's message, another window's file): inert, one line.
  const firstLine = session.firstMessage.split(/\r\n|[\r\n\u2028\u2029]/).find((line) => line.trim() !== '') ?? '';
  const item = new vscode.TreeItem(oneLine(firstLine, 60) || vscode.l10n.t('(empty message)'), vscode.TreeItemCollapsibleState.None);
  item.id = `chatSession:${node.crewUrl}:${node.sessionId}`;
  item.description = chatSessionAge(session);
  item.tooltip = new vscode.MarkdownString(`${markdownLine(oneLine(firstLine, 500))}\n\n${markdownLine(vscode.l10n.t('Session {0}', oneLine(node.sessionId, 200)))}`);
  item.iconPath = new vscode.ThemeIcon('comment');
  item.contextValue = 'chatSession';
  item.command = { command: 'crewRuns.openChatSession', title: vscode.l10n.t('Reopen Chat'), arguments: [node] };
  return item;
}
