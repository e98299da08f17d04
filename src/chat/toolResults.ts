// The words a language model reads back from the crew tools. Plain English on purpose (they are a
// prompt, not UI); every string from a crew or its service is clipped, and crew output is fenced and
// labelled as untrusted (chatText.ts). Tokens never get here: nothing below reads the token store.
// Pure (type imports only): unit-tested in plain Node.
import type { InputSpec } from '../api/types';
import type { RunDetails, RunRecord } from '../runs/model';
import { fenceUntrusted, OUTPUT_BUDGET, pageOf, TASK_EXCERPT } from './chatText';
import { oneLine } from '../util/inertText';
import type { CrewInfo, InputsOutcome, KickoffOutcome } from './crewActions';
import { TOOL } from './toolNames';

const name = (text: string) => JSON.stringify(oneLine(text, 80));

export function crewsText(crews: CrewInfo[], hiddenWorkspaceCrews: number): string {
  const hidden =
    hiddenWorkspaceCrews > 0 ? `\n${hiddenWorkspaceCrews} crew(s) from this workspace's settings are not offered: the workspace is not trusted.` : '';
  if (crews.length === 0) {
    return `No crews are configured. The user adds one with the command "Crew Runs: Add Crew…" (or tries the demo crew).${hidden}`;
  }
  const lines = crews.map((c) => {
    const inputs = !c.inputs
      ? `inputs: not read yet (use ${TOOL.describeInputs})`
      : !c.inputs.described
        ? 'inputs: not described by the crew'
        : `inputs: ${c.inputs.inputs.length ? c.inputs.inputs.map((spec) => oneLine(spec.name, 60)).join(', ') : '(none)'}`;
    const token = c.hasToken ? 'token set' : 'NO TOKEN (the user sets it with "Crew Runs: Set Token…")';
    return `- ${name(c.name)} — ${c.url} — ${c.source} crew — ${token} — status: ${c.health} — ${inputs}`;
  });
  return `${crews.length} crew(s):\n${lines.join('\n')}${hidden}`;
}

export function inputsText(crewName: string, inputs: Extract<InputsOutcome, { ok: true }>): string {
  if (!inputs.described) {
    return `Crew ${name(crewName)} answered but does not describe its inputs (${oneLine(inputs.reason ?? 'no input list', 200)}). Ask the user which inputs it takes and their values, then call ${TOOL.kickoff} with them by name (all values are text).`;
  }
  if (inputs.specs.length === 0) {
    return `Crew ${name(crewName)} takes no inputs: kick it off with an empty inputs object.`;
  }
  const lines = inputs.specs.map((spec) => `- ${inputLine(spec, inputs.required.includes(spec.name))}`);
  return `Crew ${name(crewName)} takes these inputs (all values are text):\n${lines.join('\n')}`;
}

/** One input as the crew describes it: required or not, its type, default, allowed values and description (crew text, clipped). */
function inputLine(spec: InputSpec, required: boolean): string {
  const parts = [
    required ? 'required' : spec.name === 'id' && spec.required === undefined ? 'optional; for a flow, "id" restores a saved state: leave it out to start fresh' : 'optional',
    ...(spec.type ? [`type ${oneLine(spec.type, 30)}`] : []),
    ...(spec.default !== undefined ? [`default ${JSON.stringify(oneLine(spec.default, 120))}`] : []),
    ...(spec.enum?.length ? [`one of: ${spec.enum.slice(0, 20).map((v) => JSON.stringify(oneLine(v, 60))).join(', ')}`] : []),
  ];
  const description = spec.description ? ` — ${oneLine(spec.description, 300)}` : '';
  return `${oneLine(spec.name, 80)} (${parts.join('; ')})${description}`;
}

export function kickoffText(crewName: string, outcome: KickoffOutcome, waited?: { run: RunRecord; details: RunDetails }): string {
  switch (outcome.kind) {
    case 'missing':
      return `Nothing was sent. Crew ${name(crewName)} needs values for: ${outcome.missing.map((n) => oneLine(n, 80)).join(', ')}. Ask the user for them, then call ${TOOL.kickoff} again with every input (its inputs: ${outcome.names.map((n) => oneLine(n, 80)).join(', ') || '(none listed)'}).`;
    case 'unknownInputs':
      return `Nothing was sent. Crew ${name(crewName)} does not take the input(s) ${outcome.unknown.map((n) => oneLine(n, 80)).join(', ')}; its inputs are: ${outcome.names.map((n) => oneLine(n, 80)).join(', ')}.`;
    case 'problem':
      if (outcome.mayHaveStarted) {
        return `The kickoff of ${name(crewName)} got no answer: ${oneLine(outcome.message, 500)} The run may or may not have started. Do NOT kick off again (it could run twice); tell the user to check the crew's dashboard and track its kickoff id with "Crew Runs: Track a Kickoff ID…".`;
      }
      return `${outcome.sent ? 'The kickoff failed' : 'Nothing was sent'}: ${oneLine(outcome.message, 500)}`;
    case 'started': {
      const run = waited?.run ?? outcome.run;
      const head = `Kicked off ${name(crewName)}: run id ${run.id}, kickoff id ${run.kickoffId}. It shows in the Crew Runs view and is checked until it ends.`;
      if (!waited) {
        return `${head}\nCall ${TOOL.getRun} with runId ${run.id} (optionally waitSeconds) to follow it.`;
      }
      return `${head}\n\n${runText(run, waited.details, {})}`;
    }
  }
}

export interface RunTextOptions {
  offset?: number;
  maxChars?: number;
}

/** State, progress, current task, error, per-task summaries and one page of the final output. */
export function runText(run: RunRecord, details: RunDetails, options: RunTextOptions): string {
  const lines = [
    `Run ${name(run.label)} of crew ${name(run.crewName)} — run id ${run.id}, kickoff id ${run.kickoffId}`,
    `State: ${run.state}${run.watching ? ' (being checked)' : run.stopReason ? ` (no longer checked: ${run.stopReason})` : ''}`,
    `Started: ${new Date(run.startedAt).toISOString()}${run.finishedAt ? `; finished: ${new Date(run.finishedAt).toISOString()}` : ''}`,
  ];
  const progress = run.progress;
  if (progress && (progress.completed !== undefined || progress.total)) {
    lines.push(`Progress: ${progress.completed ?? 0}${progress.total ? `/${progress.total}` : ''} ${progress.unit}s`);
  }
  if (run.currentTask) {
    lines.push(`Current task: ${oneLine(run.currentTask, 200)}`);
  }
  if (run.message) {
    lines.push(`Service message: ${oneLine(run.message, 300)}`);
  }
  if (run.warning) {
    lines.push(`Last check problem: ${oneLine(run.warning, 300)}`);
  }
  if (run.needsFeedback) {
    // Docs bodies name the paused task only in current_task.
    const task = details.lastSnapshot?.feedback?.taskName ?? run.currentTask;
    lines.push(`WAITING FOR HUMAN FEEDBACK${task ? ` on task ${oneLine(task, 120)}` : ''}: ask the user, then call ${TOOL.giveFeedback} with runId ${run.id} (approve, or feedback text saying what to change).`);
  }
  const sections = [lines.join('\n')];
  if (details.error) {
    sections.push(fenceUntrusted(pageOf(details.error, 0, 2000).text, 'Error reported by the crew'));
  }
  if (details.tasks.length > 0) {
    const tasks = details.tasks.map((t, i) => {
      const excerpt = pageOf(t.output, 0, TASK_EXCERPT);
      const more = excerpt.next !== undefined ? ` (first ${excerpt.end} of ${excerpt.total} characters)` : '';
      return `${i + 1}. ${oneLine(t.name, 120)}${t.agent ? ` — agent ${oneLine(t.agent, 80)}` : ''}${t.attempt ? ` — attempt ${t.attempt}` : ''}${more}\n${fenceUntrusted(excerpt.text, 'Task output')}`;
    });
    sections.push(`Tasks (${details.tasks.length}):\n${tasks.join('\n')}`);
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
  return sections.filter(Boolean).join('\n\n');
}

export function runsText(runs: RunRecord[]): string {
  if (runs.length === 0) {
    return 'No runs match.';
  }
  const lines = runs.map(
    (r) =>
      `- ${name(r.label)} — crew ${name(r.crewName)} — ${r.needsFeedback ? 'needs feedback' : r.state} — started ${new Date(r.startedAt).toISOString()} — run id ${r.id} — kickoff id ${r.kickoffId}`,
  );
  return `${runs.length} run(s), newest first:\n${lines.join('\n')}`;
}

export function unknownCrewText(reference: string, known: string[]): string {
  return `Nothing was sent: there is no crew ${name(reference)}. Known crews: ${known.length ? known.map(name).join(', ') : '(none)'}. Use ${TOOL.listCrews} to see them.`;
}

export function ambiguousCrewText(reference: string, urls: string[]): string {
  return `Nothing was sent: several crews are called ${name(reference)}; name one by its URL: ${urls.join(', ')}.`;
}
