// The page's strings, keyed, as the host translates them (the page has no l10n of its own): the host
// calls pageStrings() with the state labels and sends the table in `init`. Pure. The page imports only
// fill/formatDuration/types from here; @vscode/l10n has no side effects, so its bundle leaves it out.

import * as l10n from '@vscode/l10n';
import type { RunState } from '../../api/types';

export { formatDuration } from '../../util/duration';

/** `{0}` style placeholders, as vscode.l10n.t. */
export function fill(template: string, ...args: (string | number)[]): string {
  return template.replace(/\{(\d+)\}/g, (m, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : m));
}

export function pageStrings(state: (s: RunState) => string) {
  return {
    kickoffId: l10n.t('Kickoff ID'),
    previousKickoffIds: l10n.t('Earlier kickoff IDs: {0}'),
    copyKickoffId: l10n.t('Copy kickoff ID'),
    inputs: l10n.t('Inputs'),
    noInputs: l10n.t('No inputs.'),
    elapsed: l10n.t('Elapsed {0}'),
    took: l10n.t('Took {0}'),
    progress: l10n.t('Progress'),
    progressTasksOf: l10n.t('{0} of {1} tasks done'),
    progressStepsOf: l10n.t('{0} of {1} steps done'),
    progressTaskN: l10n.t('Task {0}'),
    redoingTask: l10n.t('Redoing “{0}” with your feedback'),
    progressStepN: l10n.t('Step {0}'),
    currentTask: l10n.t('Current task'),
    currentAgent: l10n.t('Agent'),
    latestStep: l10n.t('Latest agent step'),
    stepThought: l10n.t('Thought'),
    stepAction: l10n.t('Action'),
    stepTool: l10n.t('Tool'),
    stepToolInput: l10n.t('Tool input'),
    stepResult: l10n.t('Result'),
    taskStarted: l10n.t('Started “{0}”'),
    timeline: l10n.t('Timeline'),
    tasks: l10n.t('Task outputs'),
    tasksHidden: l10n.t('{0} more tasks are not shown.'),
    historyHidden: l10n.t('… {0} earlier entries are not kept.'),
    usageHidden: l10n.t('{0} more usage figures are not shown.'),
    taskAttempt: l10n.t('attempt {0}'),
    taskAgent: l10n.t('by {0}'),
    taskTime: l10n.t('{0}s'),
    emptyOutput: l10n.t('(empty output)'),
    output: l10n.t('Output'),
    noOutputYet: l10n.t('No output yet.'),
    copyJson: l10n.t('Copy JSON'),
    showingPart: l10n.t('Showing {0} of {1} characters.'),
    showAll: l10n.t('Show All'),
    rendering: l10n.t('Rendering… {0}%'),
    error: l10n.t('Error'),
    usage: l10n.t('Token usage'),
    'usage.total_tokens': l10n.t('Total tokens'),
    'usage.prompt_tokens': l10n.t('Prompt tokens'),
    'usage.cached_prompt_tokens': l10n.t('Cached prompt tokens'),
    'usage.completion_tokens': l10n.t('Completion tokens'),
    'usage.successful_requests': l10n.t('Successful requests'),
    feedbackRounds: l10n.t('Feedback rounds'),
    approved: l10n.t('Approved'),
    sentBack: l10n.t('Sent back with feedback'),
    reviewedOutput: l10n.t('Reviewed output'),
    feedbackTask: l10n.t('on “{0}”'),
    awaitingFeedback: l10n.t('This run is waiting for your feedback.'),
    awaitingFeedbackOn: l10n.t('This run is waiting for your feedback on “{0}”.'),
    feedbackInferred: l10n.t('(The service stopped listing the run, so it is probably waiting for feedback.)'),
    raw: l10n.t('Raw status JSON'),
    rawTruncated: l10n.t('Showing the first {0} of {1} characters.'),
    noRaw: l10n.t('No status received yet.'),
    loading: l10n.t('Loading…'),
    actions: l10n.t('Run actions'),
    copyOutput: l10n.t('Copy Output'),
    saveOutputAs: l10n.t('Save Output As…'),
    openOutputInEditor: l10n.t('Open Output in Editor'),
    compareOutput: l10n.t('Compare with Another Run'),
    runAgain: l10n.t('Run Again'),
    giveFeedback: l10n.t('Give Feedback'),
    removed: l10n.t('This run is no longer in the history.'),
    notWatching: l10n.t('Not watching: {0}.'),
    'stop.deadline': l10n.t('the watch time ran out (the run may still be going)'),
    'stop.user': l10n.t('you stopped watching'),
    'stop.expired': l10n.t('the service no longer knows this run'),
    'stop.unauthorized': l10n.t('the token was refused'),
    'stop.noToken': l10n.t('no token is stored for this crew'),
    'state.queued': state('queued'),
    'state.running': state('running'),
    'state.awaitingFeedback': state('awaitingFeedback'),
    'state.succeeded': state('succeeded'),
    'state.failed': state('failed'),
    'state.cancelled': state('cancelled'),
    'state.notFound': state('notFound'),
    'state.unknown': state('unknown'),
  };
}

export type PageStrings = ReturnType<typeof pageStrings>;
export type PageStringKey = keyof PageStrings;
