// VS Code's side of the @crews participant: the response stream as a ChatSink (crew text rendered
// untrusted), l10n, the state labels of the tree, the trace's price settings, free-form questions sent
// to the request's model with the crew tools, and /why's explanation by that model.
import * as vscode from 'vscode';
import type { ChatServices } from './chatServices';
import { stateLabel } from '../ui/format';
import { safeCrewMarkdown } from './crewMarkdown';
import { crewActionsFor } from './crewActions';
import { askModel, explainTrace } from './modelChat';
import { readTraceSettings } from '../runView/traceSettings';
import { handleChatRequest, type ChatSink } from './participant';

/** How long a response follows a run before saying how to check again. */
const FOLLOW_MS = 10 * 60_000;

/** Markdown nobody vouches for: no command links, no HTML, no theme icons. */
export function untrustedMarkdown(text: string): vscode.MarkdownString {
  const markdown = new vscode.MarkdownString(text, false);
  markdown.isTrusted = false;
  markdown.supportHtml = false;
  return markdown;
}

export function createParticipantHandler(services: ChatServices): vscode.ChatRequestHandler {
  const actions = crewActionsFor(services);
  return async (request, _context, stream, token) => {
    const sink: ChatSink = {
      markdown: (text) => stream.markdown(untrustedMarkdown(text)),
      crewMarkdown: (text) => stream.markdown(untrustedMarkdown(safeCrewMarkdown(text))),
      progress: (text) => stream.progress(text), // Markdown: the participant escapes what it puts in.
      button: (title, command, args) => stream.button({ title, command, arguments: args }),
    };
    const model = request.model as vscode.LanguageModelChat | undefined;
    return handleChatRequest({ command: request.command, prompt: request.prompt }, sink, token, {
      actions,
      stateLabel,
      followMs: FOLLOW_MS,
      askModel: model && typeof vscode.lm?.invokeTool === 'function' ? (prompt, out) => askModel(model, request.toolInvocationToken, prompt, out, token) : undefined,
      tracePricing: readTraceSettings,
      explainTrace: model && typeof model.sendRequest === 'function' ? (summary, question, out) => explainTrace(model, summary, question, out, token) : undefined,
    });
  };
}
