// The words a language model reads back from the crew tools. Plain English on purpose (they are a
// prompt, not UI). Everything a crew or its service controls (input names and descriptions, task and
// agent names, current task, messages, error text) is clipped and goes inside an untrusted fence
// (chatText.ts), never into the tool's own sentences; every count it controls is capped here, where
// it enters, and the result says what was left out ("… 99,900 more inputs"); joinCapped caps the whole.
// Tokens never get here: nothing below reads the token store. Pure (type imports only): unit-tested in plain Node.
import type { InputSpec } from '../api/types';
import type { RunDetails, RunRecord } from '../runTracking/model';
import { capped, fenceUntrusted, joinCapped, LISTED_CREWS_MAX, LISTED_INPUTS_MAX, LISTED_TASKS_MAX, LISTED_VALUES_MAX, moreNote, OUTPUT_BUDGET, pageOf, TASK_EXCERPT } from './chatText';
import { oneLine } from '../util/inertText';
import type { CrewInfo, InputsOutcome, KickoffOutcome } from './crewActions';
import { TOOL } from './toolNames';

/** A name the user or the model chose (crew, run label), quoted; crew-written names are fenced instead. */
const name = (text: string) => JSON.stringify(oneLine(text, 80));

/** A kickoff id (the service chose it) when it is a plain id; anything else is not worth a model's reading. */
export const idText = (id: string) => (/^[\w.:-]{1,100}$/.test(id) ? id : '(not shown: unusual characters)');

/** Names a crew gave (inputs), capped: the fenced list, and outside it how many were left out. */
function namesFenced(names: readonly string[], what: string): string {
  const { shown, more } = capped(names, LISTED_INPUTS_MAX);
  const list = fenceUntrusted(shown.map((n) => oneLine(n, 80)).join(', ') || '(none)', what);
  return more ? `${list}\n${moreNote(more, 'inputs')} not listed.` : list;
}

/** An error or problem in Crew Runs' words, which may quote the crew's service: fenced. */
export function problemFenced(message: string, what = 'What the crew\'s service answered, in Crew Runs\' words'): string {
  return fenceUntrusted(oneLine(message, 600), what);
}

export function crewsText(crews: CrewInfo[], hiddenWorkspaceCrews: number): string {
  const hidden = hiddenWorkspaceCrews > 0 ? `${hiddenWorkspaceCrews} crew(s) from this workspace's settings are not offered: the workspace is not trusted.` : '';
  if (crews.length === 0) {
    return `No crews are configured. The user adds one with the command "Crew Runs: Add Crew…" (or tries the demo crew).${hidden ? `\n${hidden}` : ''}`;
  }
  const sections = crews.map((c) => {
    const token = c.hasToken ? 'token set' : 'NO TOKEN (the user sets it with "Crew Runs: Set Token…")';
    const line = `- ${name(c.name)} — ${c.url} — ${c.source} crew — ${token} — status: ${c.health}`;
    if (!c.inputs) {
      return `${line} — inputs: not read yet (use ${TOOL.describeInputs})`;
    }
    if (!c.inputs.described) {
      return `${line} — inputs: not described by the crew`;
    }
    const names = c.inputs.inputs.map((spec) => spec.name);
    return names.length ? `${line} — ${names.length.toLocaleString('en-US')} input(s):\n${namesFenced(names, 'Input names')}` : `${line} — inputs: (none)`;
  });
  // Hidden workspace crews are said first: the list itself may be capped.
  return joinCapped([[`${crews.length} crew(s):`, hidden].filter(Boolean).join('\n'), ...sections]);
}

export function inputsProblemText(problem: string): string {
  return `Could not read the inputs:\n${problemFenced(problem)}`;
}

export function inputsText(crewName: string, inputs: Extract<InputsOutcome, { ok: true }>): string {
  if (!inputs.described) {
    return `Crew ${name(crewName)} answered but does not describe its inputs. Ask the user which inputs it takes and their values, then call ${TOOL.kickoff} with them by name (text values unless the user says an input takes an object, a list, a number or true/false). Why, as the crew's service said:\n${fenceUntrusted(oneLine(inputs.reason ?? 'no input list', 200), 'Reason')}`;
  }
  if (inputs.specs.length === 0) {
    return `Crew ${name(crewName)} takes no inputs: kick it off with an empty inputs object.`;
  }
  const { shown, more } = capped(inputs.specs, LISTED_INPUTS_MAX);
  const required = new Set(inputs.required);
  const lines = shown.map((spec) => `- ${inputLine(spec, required.has(spec.name))}`);
  return joinCapped([
    `Crew ${name(crewName)} takes ${inputs.specs.length.toLocaleString('en-US')} input(s) (a value is text unless its type below says object, array, integer, number or boolean: then send that JSON value). Each input as the crew describes it:`,
    fenceUntrusted(lines.join('\n'), 'Inputs'),
    more ? `${moreNote(more, 'inputs')} not listed (the first ${LISTED_INPUTS_MAX} are).` : '',
  ]);
}

/** One input as the crew describes it: required or not, its type, default, allowed values and description (crew text, clipped). */
function inputLine(spec: InputSpec, required: boolean): string {
  const values = capped(spec.enum ?? [], LISTED_VALUES_MAX);
  const parts = [
    required ? 'required' : spec.name === 'id' && spec.required === undefined ? 'optional; for a flow, "id" restores a saved state: leave it out to start fresh' : 'optional',
    ...(spec.type ? [`type ${oneLine(spec.type, 30)}`] : []),
    ...(spec.default !== undefined ? [`default ${JSON.stringify(oneLine(spec.default, 120))}`] : []),
    ...(values.shown.length ? [`one of: ${values.shown.map((v) => JSON.stringify(oneLine(v, 60))).join(', ')}${values.more ? `, ${moreNote(values.more, 'values')}` : ''}`] : []),
  ];
  const description = spec.description ? ` — ${oneLine(spec.description, 300)}` : '';
  return `${oneLine(spec.name, 80)} (${parts.join('; ')})${description}`;
}

export function kickoffText(crewName: string, outcome: KickoffOutcome, waited?: { run: RunRecord; details: RunDetails }): string {
  switch (outcome.kind) {
    case 'missing':
      return joinCapped([
        `Nothing was sent. Crew ${name(crewName)} needs values for the inputs it names below. Ask the user for them, then call ${TOOL.kickoff} again with every input.`,
        namesFenced(outcome.missing, 'Inputs without a value'),
        namesFenced(outcome.names, 'All its inputs'),
      ]);
    case 'unknownInputs':
      return joinCapped([
        `Nothing was sent. Crew ${name(crewName)} does not take some of the inputs given; call ${TOOL.kickoff} again with only its own.`,
        namesFenced(outcome.unknown, 'Inputs it does not take'),
        namesFenced(outcome.names, 'Its inputs'),
      ]);
    case 'problem':
      if (outcome.mayHaveStarted) {
        return `The kickoff of ${name(crewName)} got no answer. The run may or may not have started. Do NOT kick off again (it could run twice); tell the user to check the crew's dashboard and track its kickoff id with "Crew Runs: Track a Kickoff ID…".\n${problemFenced(outcome.message)}`;
      }
      return `${outcome.sent ? 'The kickoff failed' : 'Nothing was sent'}:\n${problemFenced(outcome.message)}`;
    case 'started': {
      const run = waited?.run ?? outcome.run;
      const head = `Kicked off ${name(crewName)}: run id ${run.id}, kickoff id ${idText(run.kickoffId)}. It shows in the Crew Runs view and is checked until it ends.`;
      if (!waited) {
        return `${head}\nCall ${TOOL.getRun} with runId ${run.id} (optionally waitSeconds) to follow it.`;
      }
      return joinCapped([head, ...runSections(run, waited.details, {})]);
    }
  }
}

export interface RunTextOptions {
  offset?: number;
  maxChars?: number;
  /** The run's trace summary (traceText.ts), shown after its state and error. */
  trace?: string;
}

/** State, progress, current task, error, the trace's summary, per-task summaries and one page of the final output. */
export function runText(run: RunRecord, details: RunDetails, options: RunTextOptions): string {
  return joinCapped(runSections(run, details, options));
}

function runSections(run: RunRecord, details: RunDetails, options: RunTextOptions): string[] {
  const lines = [
    `Run ${name(run.label)} of crew ${name(run.crewName)} — run id ${run.id}, kickoff id ${idText(run.kickoffId)}`,
    `State: ${run.state}${run.watching ? ' (being checked)' : run.stopReason ? ` (no longer checked: ${run.stopReason})` : ''}`,
    `Started: ${new Date(run.startedAt).toISOString()}${run.finishedAt ? `; finished: ${new Date(run.finishedAt).toISOString()}` : ''}`,
  ];
  const progress = run.progress;
  if (progress && (progress.completed !== undefined || progress.total)) {
    lines.push(`Progress: ${Number(progress.completed ?? 0)}${progress.total ? `/${Number(progress.total)}` : ''} ${progress.unit}s`);
  }
  if (run.needsFeedback) {
    lines.push(`WAITING FOR HUMAN FEEDBACK (the paused task is named in the crew's status below): ask the user, then call ${TOOL.giveFeedback} with runId ${run.id} (approve, or feedback text saying what to change).`);
  }
  // Docs bodies name the paused task only in current_task.
  const pausedTask = run.needsFeedback ? (details.lastSnapshot?.feedback?.taskName ?? run.currentTask) : undefined;
  const status = [
    ...(run.currentTask ? [`Current task: ${oneLine(run.currentTask, 200)}`] : []),
    ...(pausedTask ? [`Task waiting for feedback: ${oneLine(pausedTask, 120)}`] : []),
    ...(run.message ? [`Service message: ${oneLine(run.message, 300)}`] : []),
    ...(run.warning ? [`Last check problem: ${oneLine(run.warning, 300)}`] : []),
  ];
  const sections = [lines.join('\n')];
  if (status.length) {
    sections.push(fenceUntrusted(status.join('\n'), 'The crew\'s status'));
  }
  if (details.error) {
    sections.push(fenceUntrusted(pageOf(details.error, 0, 2000).text, 'Error reported by the crew'));
  }
  if (options.trace) {
    sections.push(options.trace);
  }
  if (details.tasks.length > 0) {
    const total = details.tasks.length;
    const first = Math.max(0, total - LISTED_TASKS_MAX);
    const tasks = details.tasks.slice(first).map((t, i) => {
      const excerpt = pageOf(t.output, 0, TASK_EXCERPT);
      const more = excerpt.next !== undefined ? `, first ${excerpt.end} of ${excerpt.total} characters of its output` : '';
      const attempt = t.attempt ? `, attempt ${Number(t.attempt)}` : '';
      const text = [`Task: ${oneLine(t.name, 120)}`, ...(t.agent ? [`Agent: ${oneLine(t.agent, 80)}`] : []), 'Output:', excerpt.text].join('\n');
      return fenceUntrusted(text, `Task ${first + i + 1} of ${total}${attempt}${more}`);
    });
    const left = first ? `\n${moreNote(first, 'tasks')} before these are not shown (the run view has them all).` : '';
    sections.push(`Tasks (${total.toLocaleString('en-US')}):${left}\n${tasks.join('\n')}`);
  }
  if (run.needsFeedback && details.lastSnapshot?.feedback?.output) {
    sections.push(fenceUntrusted(pageOf(details.lastSnapshot.feedback.output, 0, options.maxChars ?? OUTPUT_BUDGET).text, 'Output waiting for review'));
  }
  const output = details.finalOutput;
  if (output) {
    const page = pageOf(output.text, options.offset ?? 0, options.maxChars ?? OUTPUT_BUDGET);
    const where =
      page.start === 0 && page.next === undefined
        ? `Final output (${output.kind}, ${page.total} characters)`
        : `Final output (${output.kind}), characters ${page.start}–${page.end} of ${page.total}`;
    sections.push(fenceUntrusted(page.text, where));
    sections.push(
      page.next !== undefined
        ? `More output follows: call ${TOOL.getRun} with runId ${run.id} and offset ${page.next} for the next part.`
        : page.start > 0
          ? 'This is the end of the final output.'
          : '',
    );
  } else if (!run.needsFeedback && run.state === 'succeeded') {
    sections.push('The crew sent no final output.');
  }
  return sections.filter(Boolean);
}

export function runsText(runs: RunRecord[]): string {
  if (runs.length === 0) {
    return 'No runs match.';
  }
  const lines = runs.map(
    (r) =>
      `- ${name(r.label)} — crew ${name(r.crewName)} — ${r.needsFeedback ? 'needs feedback' : r.state} — started ${new Date(r.startedAt).toISOString()} — run id ${r.id} — kickoff id ${idText(r.kickoffId)}`,
  );
  return `${runs.length} run(s), newest first:\n${lines.join('\n')}`;
}

export function unknownCrewText(reference: string, known: string[]): string {
  const { shown, more } = capped(known, LISTED_CREWS_MAX);
  const list = shown.length ? `${shown.map(name).join(', ')}${more ? `, ${moreNote(more, 'crews')}` : ''}` : '(none)';
  return `Nothing was sent: there is no crew ${name(reference)}. Known crews: ${list}. Use ${TOOL.listCrews} to see them.`;
}

export function ambiguousCrewText(reference: string, urls: string[]): string {
  const { shown, more } = capped(urls, LISTED_CREWS_MAX);
  return `Nothing was sent: several crews are called ${name(reference)}; name one by its URL: ${shown.map((u) => oneLine(u, 200)).join(', ')}${more ? `, ${moreNote(more, 'crews')}` : ''}.`;
}
