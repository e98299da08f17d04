// The page's strings, keyed, as the host translates them (the page has no l10n of its own): the host
// passes vscode.l10n.t and the state labels in, and sends the table in `init`. Pure.

import type { RunState } from '../../api/types';

export { formatDuration } from '../../util/duration';

/** `{0}` style placeholders, as vscode.l10n.t. */
export function fill(template: string, ...args: (string | number)[]): string {
  return template.replace(/\{(\d+)\}/g, (m, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : m));
}

export type Translate = (message: string, ...args: (string | number)[]) => string;

export function pageStrings(t: Translate, state: (s: RunState) => string) {
  return {
    kickoffId: t('Kickoff ID'),
    previousKickoffIds: t('Earlier kickoff IDs: {0}'),
    copyKickoffId: t('Copy kickoff ID'),
    inputs: t('Inputs'),
    noInputs: t('No inputs.'),
    elapsed: t('Elapsed {0}'),
    took: t('Took {0}'),
    progress: t('Progress'),
    progressTasksOf: t('{0} of {1} tasks done'),
    progressStepsOf: t('{0} of {1} steps done'),
    progressTaskN: t('Task {0}'),
    progressStepN: t('Step {0}'),
    currentTask: t('Current task'),
    currentAgent: t('Agent'),
    latestStep: t('Latest agent step'),
    stepThought: t('Thought'),
    stepAction: t('Action'),
    stepTool: t('Tool'),
    stepToolInput: t('Tool input'),
    stepResult: t('Result'),
    taskStarted: t('Started “{0}”'),
    timeline: t('Timeline'),
    tasks: t('Task outputs'),
    tasksHidden: t('{0} more tasks are not shown here; the raw status JSON has what the crew sent.'),
    usageHidden: t('{0} more usage figures are not shown.'),
    taskAttempt: t('attempt {0}'),
    taskAgent: t('by {0}'),
    taskTime: t('{0}s'),
    emptyOutput: t('(empty output)'),
    output: t('Output'),
    noOutputYet: t('No output yet.'),
    copyJson: t('Copy JSON'),
    showingPart: t('Showing {0} of {1} characters.'),
    showAll: t('Show All'),
    rendering: t('Rendering… {0}%'),
    error: t('Error'),
    usage: t('Token usage'),
    'usage.total_tokens': t('Total tokens'),
    'usage.prompt_tokens': t('Prompt tokens'),
    'usage.cached_prompt_tokens': t('Cached prompt tokens'),
    'usage.completion_tokens': t('Completion tokens'),
    'usage.successful_requests': t('Successful requests'),
    feedbackRounds: t('Feedback rounds'),
    approved: t('Approved'),
    sentBack: t('Sent back with feedback'),
    reviewedOutput: t('Reviewed output'),
    feedbackTask: t('on “{0}”'),
    awaitingFeedback: t('This run is waiting for your feedback.'),
    awaitingFeedbackOn: t('This run is waiting for your feedback on “{0}”.'),
    feedbackInferred: t('(The service stopped listing the run, so it is probably waiting for feedback.)'),
    raw: t('Raw status JSON'),
    rawTruncated: t('Showing the first {0} of {1} characters.'),
    noRaw: t('No status received yet.'),
    loading: t('Loading…'),
    actions: t('Run actions'),
    copyOutput: t('Copy Output'),
    saveOutputAs: t('Save Output As…'),
    openOutputInEditor: t('Open Output in Editor'),
    compareOutput: t('Compare with Another Run'),
    runAgain: t('Run Again'),
    giveFeedback: t('Give Feedback'),
    removed: t('This run is no longer in the history.'),
    notWatching: t('Not watching: {0}.'),
    'stop.deadline': t('the watch time ran out (the run may still be going)'),
    'stop.user': t('you stopped watching'),
    'stop.expired': t('the service no longer knows this run'),
    'stop.unauthorized': t('the token was refused'),
    'stop.noToken': t('no token is stored for this crew'),
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
