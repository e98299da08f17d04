// The @crews chat participant: /run, /status, /runs, /feedback and /why call no language model themselves
// (/why asks the request's model to explain the trace when there is one); anything else goes to the
// request's model with the crew tools when there is one. VS Code itself calls no participant without a
// model ("Language model unavailable"), so the manifest's description says @crews needs one. Free of the
// `vscode` runtime (it talks to a ChatSink and CrewActions), so the handler is unit-tested in Node
// against a recording sink; participantHost.ts adapts it to VS Code's response stream.
import * as l10n from '@vscode/l10n';
import { isFinished, type RunRecord } from '../runTracking/model';
import { escapeMarkdown } from '../util/markdownText';
import { pageOf, parseInputsText } from './chatText';
import { oneLine } from '../util/inertText';
import type { Cancellation, CrewActions } from './crewActions';
import type * as TraceText from './traceText';
import type { TracePricing } from './traceText';

export interface ChatSink {
  /** Our own Markdown; anything from a crew or its service in it is already escaped. */
  markdown(text: string): void;
  /** A crew's own Markdown: rendered untrusted (no command links, no HTML). */
  crewMarkdown(text: string): void;
  progress(text: string): void;
  button(title: string, command: string, args: unknown[]): void;
}

export type ChatCancellation = Cancellation;

export interface ParticipantDeps {
  actions: Pick<CrewActions, 'findCrew' | 'listCrews' | 'readInputs' | 'kickOff' | 'findRun' | 'listRuns' | 'readDetails' | 'readEvents' | 'waitForRun' | 'giveFeedback' | 'current'>;
  /** The state as the tree shows it (ui/format.ts). */
  stateLabel(state: RunRecord['state']): string;
  /** How long a response follows a run before saying how to check again. */
  followMs: number;
  /** Free-form questions, answered by the request's model with the crew tools; absent without a model. */
  askModel?(prompt: string, sink: ChatSink, token: ChatCancellation): Promise<void>;
  /** The user's price table for the trace's estimated cost (settings: crewRuns.trace.*). */
  tracePricing(): TracePricing;
  /**
   * /why: the request's model explains a run from its trace summary (traceText.ts, the crew's words fenced); absent
   * without a model. Resolves false when the model gave no answer (refused, unavailable): the plain summary is shown.
   */
  explainTrace?(summary: string, question: string, sink: ChatSink, token: ChatCancellation): Promise<boolean>;
}

export interface ChatRequestLike {
  command?: string;
  prompt: string;
}

export interface ChatOutcome {
  metadata: { command: string; runId?: string };
}

/** Characters of crew output shown in the chat; the run view has all of it. */
export const CHAT_OUTPUT_BUDGET = 20_000;

const md = (text: string) => escapeMarkdown(oneLine(text, 120));

export async function handleChatRequest(request: ChatRequestLike, sink: ChatSink, token: ChatCancellation, deps: ParticipantDeps): Promise<ChatOutcome> {
  const command = request.command ?? '';
  const prompt = request.prompt.trim();
  switch (command) {
    case 'run':
      return { metadata: { command, runId: await runCommand(prompt, sink, token, deps) } };
    case 'status':
      return { metadata: { command, runId: await statusCommand(prompt, sink, deps) } };
    case 'runs':
      runsCommand(prompt, sink, deps);
      return { metadata: { command } };
    case 'feedback':
      return { metadata: { command, runId: await feedbackCommand(prompt, sink, token, deps) } };
    case 'why':
      return { metadata: { command, runId: await whyCommand(prompt, sink, token, deps) } };
    default:
      if (deps.askModel && prompt) {
        await deps.askModel(prompt, sink, token);
      } else {
        sink.markdown(help());
        if (prompt) {
          // VS Code calls no participant without a model, but one may come without a usable model: say why.
          sink.markdown(`\n\n${l10n.t('A question in your own words needs a language model in the chat; none could be used for this request. The commands above work without one.')}`);
        }
      }
      return { metadata: { command } };
  }
}

function help(): string {
  return [
    l10n.t('Crew Runs answers these commands:'),
    '',
    `- \`/run <crew> name=value …\` — ${l10n.t('kick off a crew and follow the run')}`,
    `- \`/status [run]\` — ${l10n.t('the state and output of a run (the newest by default)')}`,
    `- \`/runs [crew]\` — ${l10n.t('recent runs')}`,
    `- \`/feedback approve\` ${l10n.t('or')} \`/feedback <text>\` — ${l10n.t('answer the run waiting for feedback')}`,
    `- \`/why [run]\` — ${l10n.t('why a run failed or was slow, from its trace (the newest failed run by default)')}`,
  ].join('\n');
}

/** The crew named at the start of the prompt: "quoted", the longest known name, or the first word (a URL). */
function splitCrew(prompt: string, names: string[]): { crew: string; rest: string } {
  const quoted = /^"([^"]+)"\s*/.exec(prompt);
  if (quoted) {
    return { crew: quoted[1], rest: prompt.slice(quoted[0].length) };
  }
  const lower = prompt.toLowerCase();
  const name = names
    .filter((n) => lower.startsWith(n.toLowerCase()) && (prompt.length === n.length || /\s/.test(prompt[n.length])))
    .sort((a, b) => b.length - a.length)[0];
  if (name) {
    return { crew: prompt.slice(0, name.length), rest: prompt.slice(name.length) };
  }
  const word = /^\S+/.exec(prompt)?.[0] ?? '';
  return { crew: word, rest: prompt.slice(word.length) };
}

async function runCommand(prompt: string, sink: ChatSink, token: ChatCancellation, deps: ParticipantDeps): Promise<string | undefined> {
  const { actions } = deps;
  const crews = await actions.listCrews();
  if (!prompt) {
    sink.markdown(`${l10n.t('Which crew? Your crews: {0}.', crews.map((c) => md(c.name)).join(', ') || l10n.t('none yet'))}\n\n${l10n.t('Type e.g. {0}', '`/run <crew> topic="…"`')}`);
    return undefined;
  }
  const { crew: reference, rest } = splitCrew(prompt, crews.map((c) => c.name));
  const lookup = actions.findCrew(reference);
  if (lookup.kind !== 'found') {
    sink.markdown(l10n.t('There is no crew called {0}. Your crews: {1}.', md(reference), crews.map((c) => md(c.name)).join(', ') || l10n.t('none yet')));
    return undefined;
  }
  const crew = lookup.crew;
  const parsed = parseInputsText(rest);
  if (!parsed.ok) {
    sink.markdown(l10n.t('Give the inputs as {0} (quote values with spaces) or as a JSON object.', '`name=value`'));
    return undefined;
  }
  sink.progress(escapeMarkdown(l10n.t('Asking {0} which inputs it needs…', oneLine(crew.name, 80))));
  const outcome = await actions.kickOff(crew, parsed.inputs);
  switch (outcome.kind) {
    case 'missing':
    case 'unknownInputs': {
      const example = outcome.names.map((n) => `${n}=${parsed.inputs[n] && !/\s/.test(parsed.inputs[n]) ? parsed.inputs[n] : '"…"'}`).join(' ');
      const problem =
        outcome.kind === 'missing'
          ? l10n.t('{0} needs a value for: {1}.', md(crew.name), outcome.missing.map(md).join(', '))
          : l10n.t('{0} does not take: {1}. Its inputs are: {2}.', md(crew.name), outcome.unknown.map(md).join(', '), outcome.names.map(md).join(', '));
      sink.markdown(`${problem} ${l10n.t('Nothing was sent.')}\n\n${l10n.t('Send it again with every input, e.g.:')}\n\n\`\`\`\n/run ${crewArgument(crew.name)} ${example.replace(/`/g, "'")}\n\`\`\``);
      return undefined;
    }
    case 'problem':
      sink.markdown(escapeMarkdown(oneLine(outcome.message, 600)));
      if (outcome.mayHaveStarted) {
        sink.markdown(`\n\n${l10n.t('The run may or may not have started: do not kick off again. Check the crew\'s dashboard and track its kickoff ID.')}`);
        sink.button(l10n.t('Track a Kickoff ID…'), 'crewRuns.trackKickoffId', [crew.url]);
      }
      return undefined;
    case 'started':
      sink.markdown(l10n.t('Started {0} on {1}.', `**${md(outcome.run.label)}**`, md(crew.name)) + '\n\n');
      await follow(outcome.run, sink, token, deps);
      return outcome.run.id;
  }
}

function crewArgument(name: string): string {
  return /\s/.test(name) ? `"${oneLine(name, 80).replace(/"/g, '')}"` : oneLine(name, 80);
}

/** Streams progress until the run ends, waits for feedback, the follow time passes or the user stops. */
async function follow(run: RunRecord, sink: ChatSink, token: ChatCancellation, deps: ParticipantDeps): Promise<void> {
  let last = '';
  const report = (r: RunRecord) => {
    const line = progressLine(r, deps);
    if (line !== last) {
      last = line;
      sink.progress(escapeMarkdown(line)); // Progress renders Markdown: names show as themselves.
    }
  };
  report(run);
  const settled = (await deps.actions.waitForRun(run.id, deps.followMs, token, report)) ?? deps.actions.current(run);
  await showRun(settled, sink, deps);
}

function progressLine(run: RunRecord, { stateLabel }: ParticipantDeps): string {
  const progress = run.progress?.total ? ` ${run.progress.completed ?? 0}/${run.progress.total}` : '';
  const task = run.currentTask ? ` · ${oneLine(run.currentTask, 80)}` : '';
  return l10n.t('{0}: {1}{2}{3}', oneLine(run.label, 60), stateLabel(run.state), progress, task);
}

/** A run as it is now: state, and the output to review, the final output or the error; with buttons. */
async function showRun(run: RunRecord, sink: ChatSink, deps: ParticipantDeps): Promise<void> {
  const { actions } = deps;
  const details = await actions.readDetails(run);
  const title = `**${md(run.label)}** · ${md(run.crewName)}`;
  if (run.needsFeedback) {
    const task = details.lastSnapshot?.feedback?.taskName ?? run.currentTask;
    sink.markdown(`${title}: ${task ? l10n.t('waiting for your feedback on {0}.', md(task)) : l10n.t('waiting for your feedback.')}\n\n`);
    const review = details.lastSnapshot?.feedback?.output ?? details.tasks[details.tasks.length - 1]?.output;
    if (review) {
      crewOutput(review, sink);
    }
    sink.markdown(`\n\n${l10n.t('Answer with {0} or {1}, or review it in the editor:', '`/feedback approve`', '`/feedback <what to change>`')}\n\n`);
    sink.button(l10n.t('Give Feedback'), 'crewRuns.giveFeedback', [{ runId: run.id }]);
    sink.button(l10n.t('Open Run'), 'crewRuns.openRun', [{ runId: run.id }]);
    return;
  }
  if (run.state === 'failed' || run.state === 'cancelled') {
    sink.markdown(`${title}: ${md(deps.stateLabel(run.state))}.\n\n`);
    if (details.error) {
      const error = pageOf(details.error, 0, 2000).text;
      const fence = '`'.repeat(Math.max(3, ...[...error.matchAll(/`+/g)].map((m) => m[0].length + 1)));
      sink.markdown(`${fence}text\n${error}\n${fence}\n\n`);
    }
  } else if (run.state === 'succeeded') {
    sink.markdown(`${title}: ${md(deps.stateLabel(run.state))}.\n\n`);
    if (details.finalOutput) {
      crewOutput(details.finalOutput.kind === 'json' ? `\`\`\`json\n${details.finalOutput.text}\n\`\`\`` : details.finalOutput.text, sink);
    }
  } else {
    sink.markdown(`${title}: ${md(progressLine(run, deps))}. ${l10n.t('Still going: ask {0} later, or open the run.', '`/status`')}\n\n`);
  }
  sink.button(l10n.t('Open Run'), 'crewRuns.openRun', [{ runId: run.id }]);
}

function crewOutput(text: string, sink: ChatSink): void {
  const page = pageOf(text, 0, CHAT_OUTPUT_BUDGET);
  sink.crewMarkdown(page.text);
  if (page.next !== undefined) {
    sink.markdown(`\n\n_${l10n.t('(First {0} of {1} characters: open the run for the rest.)', page.end, page.total)}_\n\n`);
  }
}

async function statusCommand(prompt: string, sink: ChatSink, deps: ParticipantDeps): Promise<string | undefined> {
  const run = findRunByText(prompt, deps);
  if (!run) {
    sink.markdown(prompt ? l10n.t('No run matches {0}.', md(prompt)) : l10n.t('No runs yet. Start one with {0}.', '`/run`'));
    return undefined;
  }
  await showRun(deps.actions.current(run), sink, deps);
  return run.id;
}

/** A run id, a kickoff id, a crew (its newest run) or a run's label; the newest run when empty. */
function findRunByText(text: string, { actions }: ParticipantDeps): RunRecord | undefined {
  const query = text.trim();
  for (const attempt of [{ runId: query }, { kickoffId: query }, { crew: query }]) {
    const found = query ? actions.findRun(attempt) : actions.findRun({});
    if (found.kind === 'found') {
      return found.run;
    }
  }
  return actions.listRuns({ limit: 100 }).find((r) => r.label.toLowerCase() === query.toLowerCase());
}

function runsCommand(prompt: string, sink: ChatSink, { actions, stateLabel }: ParticipantDeps): void {
  const runs = actions.listRuns({ crew: prompt || undefined, limit: 20 });
  if (runs.length === 0) {
    sink.markdown(l10n.t('No runs yet. Start one with {0}.', '`/run`'));
    return;
  }
  const lines = runs.map((r) => `- **${md(r.label)}** · ${md(r.crewName)} · ${md(r.needsFeedback ? l10n.t('needs feedback') : stateLabel(r.state))} · ${new Date(r.startedAt).toISOString().replace('T', ' ').slice(0, 16)}`);
  sink.markdown(lines.join('\n'));
}

async function feedbackCommand(prompt: string, sink: ChatSink, token: ChatCancellation, deps: ParticipantDeps): Promise<string | undefined> {
  const { actions } = deps;
  const waiting = actions.listRuns({ state: 'needsFeedback', limit: 20 });
  if (waiting.length === 0) {
    sink.markdown(l10n.t('No run is waiting for feedback.'));
    return undefined;
  }
  if (!prompt || waiting.length > 1) {
    sink.markdown(
      `${waiting.length > 1 && prompt ? l10n.t('Several runs wait for feedback; answer one in its review:') : l10n.t('Waiting for your feedback:')}\n\n${waiting.map((r) => `- **${md(r.label)}** · ${md(r.crewName)}`).join('\n')}\n\n`,
    );
    for (const run of waiting) {
      sink.button(l10n.t('Give Feedback: {0}', oneLine(run.label, 40)), 'crewRuns.giveFeedback', [{ runId: run.id }]);
    }
    return undefined;
  }
  const run = waiting[0];
  const approve = /^approve\b/i.test(prompt);
  const feedback = approve ? prompt.replace(/^approve\b[\s:,-]*/i, '') : prompt;
  const outcome = await actions.giveFeedback(run, { approve, feedback });
  if (outcome.kind === 'problem') {
    sink.markdown(escapeMarkdown(oneLine(outcome.message, 600)));
    sink.button(l10n.t('Give Feedback'), 'crewRuns.giveFeedback', [{ runId: run.id }]);
    return run.id;
  }
  sink.markdown(`${approve ? l10n.t('Approved {0}: the run goes on.', `**${md(run.label)}**`) : l10n.t('Sent your feedback on {0}: the crew redoes the task.', `**${md(run.label)}**`)}\n\n`);
  await follow(outcome.run, sink, token, deps);
  return run.id;
}

/**
 * /why: a run explained from its trace: by the request's model when there is one (the summary as fenced data),
 * else the summary itself as Markdown. The run: one the prompt names (run id, kickoff id, label or crew), else the
 * newest failed run, else the newest finished one.
 */
async function whyCommand(prompt: string, sink: ChatSink, token: ChatCancellation, deps: ParticipantDeps): Promise<string | undefined> {
  const { actions } = deps;
  const named = prompt ? namedRun(prompt, deps) : undefined;
  const found = named ?? runToExplain(deps);
  if (!found) {
    sink.markdown(l10n.t('No finished run to explain yet. Start one with {0}.', '`/run`'));
    return undefined;
  }
  const run = actions.current(found);
  if (prompt && !named) {
    const note = run.state === 'failed' ? l10n.t('No run matches {0}: here is the newest failed run.', md(prompt)) : l10n.t('No run matches {0}: here is the newest finished run.', md(prompt));
    sink.markdown(`_${note}_\n\n`);
  }
  sink.progress(escapeMarkdown(l10n.t('Reading the trace of {0}…', oneLine(run.label, 60))));
  const [details, events] = await Promise.all([actions.readDetails(run), actions.readEvents(run)]);
  const pricing = deps.tracePricing();
  const model = pricing.modelFor({ url: run.crewUrl, name: run.crewName });
  sink.markdown(`**${md(run.label)}** · ${md(run.crewName)}: ${md(deps.stateLabel(run.state))}.\n\n`);
  // The trace's text loads with the first /why (its own bundle, esbuild.js): activation does not pay for it.
  const { traceFacts, traceSummaryMarkdown, traceSummaryText, whyData } = require('./traceText') as typeof TraceText;
  let explained = false;
  if (deps.explainTrace && (events.length > 0 || details.error)) {
    const summary = whyData(run, details, traceSummaryText(run, details, events, pricing.prices, model));
    explained = await deps.explainTrace(summary, named ? '' : prompt, sink, token);
  }
  if (!explained) {
    const facts = traceFacts(run, details, events, pricing.prices, model);
    sink.markdown(`${traceSummaryMarkdown(facts, run)}\n\n`);
    if (details.error && (facts.kind === 'noEvents' || !facts.failing)) {
      // The failure is not in the trace: the run's own error says what is known.
      const error = pageOf(details.error, 0, 2000).text;
      const fence = '`'.repeat(Math.max(3, ...[...error.matchAll(/`+/g)].map((m) => m[0].length + 1)));
      sink.markdown(`${l10n.t('The run’s error:')}\n\n${fence}text\n${error}\n${fence}\n\n`);
    }
  }
  sink.button(l10n.t('Open Run'), 'crewRuns.openRun', [{ runId: run.id }]);
  return run.id;
}

/** The run the prompt names: a run id, a kickoff id or a label (whole, or a word of it), else a crew's run to explain. */
function namedRun(prompt: string, deps: ParticipantDeps): RunRecord | undefined {
  const { actions } = deps;
  const words = prompt.split(/\s+/).map((word) => word.replace(/^\W+|\W+$/g, ''));
  for (const query of [prompt, ...words.filter((word) => word.length >= 6 && word !== prompt)]) {
    for (const attempt of [{ runId: query }, { kickoffId: query }]) {
      const found = actions.findRun(attempt);
      if (found.kind === 'found') {
        return found.run;
      }
    }
  }
  const lower = prompt.toLowerCase();
  const byLabel = actions.listRuns({ limit: 100 }).find((r) => r.label.toLowerCase() === lower);
  return byLabel ?? (actions.findCrew(prompt).kind === 'found' ? (runToExplain(deps, prompt) ?? actions.listRuns({ crew: prompt, limit: 1 })[0]) : undefined);
}

/** The newest failed run (of a crew), else the newest finished one. */
function runToExplain({ actions }: ParticipantDeps, crew?: string): RunRecord | undefined {
  return actions.listRuns({ crew, state: 'failed', limit: 1 })[0] ?? actions.listRuns({ crew, limit: 100 }).find(isFinished);
}
