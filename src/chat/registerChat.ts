// Makes the crews available to the editor's AI: the language model tools and the @crews chat
// participant. Registration is cheap and feature-detected (editors without `vscode.lm` or
// `vscode.chat` still activate); the implementations load on first use. Registered by activate()
// itself (a tool call may be what activates the extension); the services come with the core.
import * as vscode from 'vscode';
import type { Services } from '../services';
import { TOOL, type ToolName } from './toolNames';

type Tool = vscode.LanguageModelTool<Record<string, unknown>>;

export function registerChat(services: Promise<Services>, extensionUri: vscode.Uri): vscode.Disposable[] {
  const disposables: vscode.Disposable[] = [];
  let tools: Promise<Record<ToolName, Tool>> | undefined;
  const loadTools = () => (tools ??= Promise.all([services, import('./chatImpl')]).then(([s, m]) => m.createTools(s, m.chatKit)));

  // `vscode.lm` is typed as always present; an older or different editor may not have it.
  const lm = (vscode as Partial<typeof vscode>).lm;
  if (typeof lm?.registerTool === 'function') {
    for (const name of Object.values(TOOL)) {
      disposables.push(
        lm.registerTool<Record<string, unknown>>(name, {
          prepareInvocation: async (options, token) => (await loadTools())[name].prepareInvocation?.(options, token),
          invoke: async (options, token) => (await loadTools())[name].invoke(options, token),
        }),
      );
    }
  }
  const chat = (vscode as Partial<typeof vscode>).chat;
  if (typeof chat?.createChatParticipant === 'function') {
    let handler: Promise<vscode.ChatRequestHandler> | undefined;
    const participant = chat.createChatParticipant('crewRuns.crews', async (request, context, stream, token) => {
      handler ??= Promise.all([services, import('./chatImpl')]).then(([s, m]) => m.createParticipantHandler(s, m.chatKit));
      return (await handler)(request, context, stream, token);
    });
    participant.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'icon.png');
    disposables.push(participant);
  }
  return disposables;
}
