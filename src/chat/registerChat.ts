// Makes the crews available to the editor's AI: the language model tools and the @crews chat
// participant. Registration is cheap and feature-detected: an editor without `vscode.lm` or
// `vscode.chat` (a fork, an older or web-only build), or one whose registration throws (a stub),
// still activates, shows no error, and keeps the tools and the participant hidden — they are
// contributed with `when` clauses on the context keys set here once registration succeeded, so no
// chat lists a crew tool or @crews that nobody answers. The tools and the handler are made on first use, from a
// bundle of their own (chatHandlers.ts): an editor without chat never loads it.
import * as vscode from 'vscode';
import type { ChatServices } from './chatServices';
import { errorText } from '../util/errorText';
import type * as ChatHandlers from './chatHandlers';
import { TOOL, type ToolName } from './toolNames';

type Tool = vscode.LanguageModelTool<Record<string, unknown>>;

/** Context keys the manifest's `when` clauses of the tools and the participant read. */
const CHAT_CONTEXT = {
  tools: 'crewRuns.chatTools',
  participant: 'crewRuns.chatParticipant',
} as const;

/** The tools' and @crews' code (dist/chat.js), loaded with the first call. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const chatHandlers = () => require('./chatHandlers') as typeof ChatHandlers;

/** @crews' handler: its code loads with the first request. */
export function participantHandler(services: ChatServices): vscode.ChatRequestHandler {
  let handler: vscode.ChatRequestHandler | undefined;
  return (request, context, stream, token) => {
    handler ??= chatHandlers().createParticipantHandler(services);
    return handler(request, context, stream, token);
  };
}

/** Where registration tells what it left out: the log, never a notification (nothing is wrong). */
export interface ChatRegistrationLog {
  info(message: string): void;
  warn(message: string): void;
}

export function registerChat(services: ChatServices, extensionUri: vscode.Uri, log: ChatRegistrationLog): vscode.Disposable[] {
  const disposables: vscode.Disposable[] = [];
  let tools: Record<ToolName, Tool> | undefined;
  const loadTools = () => (tools ??= chatHandlers().createTools(services));

  // `vscode.lm` and `vscode.chat` are typed as always present; another editor may lack them.
  const lm = vscode.lm as typeof vscode.lm | undefined;
  if (typeof lm?.registerTool === 'function') {
    const registered: vscode.Disposable[] = [];
    try {
      for (const name of Object.values(TOOL)) {
        registered.push(
          lm.registerTool<Record<string, unknown>>(name, {
            prepareInvocation: (options, token) => loadTools()[name].prepareInvocation?.(options, token),
            invoke: (options, token) => loadTools()[name].invoke(options, token),
          }),
        );
      }
      disposables.push(...registered);
      setContext(CHAT_CONTEXT.tools, log);
    } catch (error) {
      // Half a tool set would be worse than none: the model would call what is not there.
      registered.forEach((disposable) => disposable.dispose());
      log.warn(`The crew tools for the editor's AI are not available here: ${errorText(error)}`);
    }
  } else {
    log.info("This editor has no language model tools API (vscode.lm): the crew tools for its AI are not offered.");
  }

  const chat = vscode.chat as typeof vscode.chat | undefined;
  if (typeof chat?.createChatParticipant === 'function') {
    try {
      const participant = chat.createChatParticipant('crewRuns.crews', participantHandler(services));
      disposables.push(participant);
      participant.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'icon.png');
      setContext(CHAT_CONTEXT.participant, log);
    } catch (error) {
      log.warn(`The @crews chat participant is not available here: ${errorText(error)}`);
    }
  } else {
    log.info('This editor has no chat API (vscode.chat): the @crews participant is not offered.');
  }
  return disposables;
}

function setContext(key: string, log: ChatRegistrationLog): void {
  void Promise.resolve(vscode.commands.executeCommand('setContext', key, true)).catch((error: unknown) => log.warn(`Could not set ${key}: ${errorText(error)}`));
}
