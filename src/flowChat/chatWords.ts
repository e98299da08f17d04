// Flow chat's longer words (a lazy bundle, loaded on first use): the chat page's, sent to it once it is ready;
// what Chat with Flow says of a crew that does not chat.
import * as vscode from 'vscode';

export function chatPageStrings(): Record<string, string> {
  return {
    placeholder: vscode.l10n.t('Message the flow (Enter sends, Shift+Enter for a new line)'),
    busy: vscode.l10n.t('The flow is answering; you can write the next message when it is done.'),
    you: vscode.l10n.t('You'),
    flow: vscode.l10n.t('Flow'),
    copy: vscode.l10n.t('Copy'),
    send: vscode.l10n.t('Send'),
    empty: vscode.l10n.t('Ask the flow something to start the conversation.'),
    asks: vscode.l10n.t('The flow asks you'),
    approve: vscode.l10n.t('Approve'),
    sendFeedback: vscode.l10n.t('Send Feedback'),
    feedbackPlaceholder: vscode.l10n.t('Or tell the flow what to change (Enter sends)'),
    waiting: vscode.l10n.t('The flow waits for your answer to its question above.'),
    sending: vscode.l10n.t('Sending your answer…'),
    approved: vscode.l10n.t('You approved.'),
    answered: vscode.l10n.t('Your feedback was sent: {0}'),
    answeredElsewhere: vscode.l10n.t('The flow has its answer.'),
    openMarkdown: vscode.l10n.t('Open as Markdown'),
    reconnecting: vscode.l10n.t('The connection to the flow dropped; reconnecting to its answer…'),
    polling: vscode.l10n.t('The flow\'s stream could not be reattached; following its answer through the conversation\'s history.'),
    notShown: vscode.l10n.t('{0} more characters of this message are not shown.'),
    check: vscode.l10n.t('Check'),
    // A tool step in words (page/stepTitle.ts), not the flow's event name.
    toolUsed: vscode.l10n.t('Used {0}'),
    toolUsing: vscode.l10n.t('Using {0}'),
    toolFailed: vscode.l10n.t('{0} failed'),
    step: vscode.l10n.t('Step'),
    // The flow no longer knows this chat (it restarted): the words and the ways on.
    gone: vscode.l10n.t(
      'The flow no longer knows this chat: it may have restarted or been redeployed, and forgotten its conversations. Nothing sent here can reach it. Start a new chat to go on (what is in the message box goes along), or forget this one.',
    ),
    goneReason: vscode.l10n.t('This chat can no longer be used.'),
    newChat: vscode.l10n.t('Start a New Chat'),
    forgetChat: vscode.l10n.t('Forget This Chat'),
  };
}

/** Chat with Flow picked a crew that does not chat. In words, never a route's name. */
export function notAChatFlow(crewName: string): string {
  return vscode.l10n.t('{0} did not answer as a chat flow, so there is no conversation to start with it. Chat with Flow talks to CrewAI flows that hold conversations.', crewName);
}
