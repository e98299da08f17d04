// The run view page's sections, each filled from the view (and refilled from the part of a patch that
// concerns it). Text only: outputs go through pageOutput.ts.

import { FINAL_STATES } from '../../api/types';
import { byId, type Child, details, h, maybeT, page, show, t, time } from './page';
import { forgetOutput, renderMarkdownInto, renderOutput } from './pageOutput';
import { formatDuration, type PageStringKey } from './pageStrings';
import type { TaskView } from './viewModel';

function fieldList(list: HTMLElement, entries: [string, string | undefined][]): number {
  // Appended one by one: spreading a long list into replaceChildren() overflows the call stack (RangeError).
  list.replaceChildren();
  let count = 0;
  for (const [label, value] of entries) {
    if (value !== undefined && value !== '') {
      list.append(h('dt', {}, label), h('dd', {}, value));
      count++;
    }
  }
  return count;
}

/** Lines of a JSON input shown before it folds. */
const JSON_INPUT_LINES = 12;

/** Structured inputs as indented JSON (the model's text), folded under their first line when long. */
function renderJsonInputs(names: readonly string[]): void {
  if (names.length === 0) {
    return;
  }
  for (const dt of byId('inputsList').querySelectorAll('dt')) {
    const name = dt.textContent ?? '';
    const dd = dt.nextElementSibling;
    if (!names.includes(name) || !(dd instanceof HTMLElement)) {
      continue;
    }
    const text = dd.textContent ?? '';
    const pre = h('pre', { class: 'json-input' }, text);
    const lines = text.split('\n');
    dd.replaceChildren(lines.length > JSON_INPUT_LINES ? details(`input:${name}`, [`${text.replace(/\s+/g, ' ').slice(0, 80)}…`], pre) : pre);
  }
}

export function renderSummary(): void {
  const view = page.view;
  if (!view) {return;}
  const s = view.summary;
  document.title = `${s.crewName}: ${s.label}`;
  byId('title').textContent = `${s.crewName}: ${s.label}`;
  const badge = byId('badge');
  badge.textContent = t(`state.${s.state}` as PageStringKey);
  badge.className = `badge state-${s.state}`;
  byId('message').textContent = s.message ?? '';
  // A run waiting for feedback: the banner below says so, with the task; the server's "Waiting for…" would say it twice.
  show(byId('message'), Boolean(s.message) && !s.needsFeedback);
  const warnings = [s.warning, !s.watching && s.stopReason ? t('notWatching', t(`stop.${s.stopReason}` as PageStringKey)) : undefined].filter(Boolean);
  byId('warningText').textContent = warnings.join(' ');
  show(byId('warning'), warnings.length > 0);
  show(byId('removed'), !s.exists);
  byId('kickoffId').textContent = s.kickoffId;
  byId('previousIds').textContent = s.previousKickoffIds.length ? t('previousKickoffIds', s.previousKickoffIds.join(', ')) : '';
  show(byId('previousIds'), s.previousKickoffIds.length > 0);

  // Buttons for an output appear with it: four greyed-out ones only said "nothing here" four times.
  const hasOutput = view.final !== null;
  for (const id of ['act-copyOutput', 'act-saveOutputAs', 'act-openOutputInEditor', 'act-compareOutput']) {
    show(byId(id), hasOutput);
    byId<HTMLButtonElement>(id).disabled = !s.exists;
  }
  renderOutputPlace();
  byId<HTMLButtonElement>('act-runAgain').disabled = !s.exists;
  byId<HTMLButtonElement>('copyKickoffId').disabled = !s.exists;
  show(byId('act-giveFeedback'), s.needsFeedback && s.exists);

  show(byId('feedbackWait'), s.needsFeedback);
  byId('feedbackWaitText').textContent = [
    s.feedbackTask ? t('awaitingFeedbackOn', s.feedbackTask) : t('awaitingFeedback'),
    s.feedbackInferred ? t('feedbackInferred') : '',
  ].filter(Boolean).join(' ');

  byId('errorText').textContent = s.error ?? '';
  show(byId('errorSection'), Boolean(s.error));

  // Progress: a bar only when the total is known.
  const p = s.progress;
  const bar = byId<HTMLProgressElement>('progressBar');
  let progressText = '';
  if (p && typeof p.total === 'number' && p.total > 0) {
    bar.max = p.total;
    bar.value = Math.min(p.total, p.completed ?? 0);
    show(bar, true);
    progressText = t(p.unit === 'step' ? 'progressStepsOf' : 'progressTasksOf', p.completed ?? 0, p.total);
  } else {
    show(bar, false);
    if (p && typeof p.completed === 'number') {
      progressText = t(p.unit === 'step' ? 'progressStepN' : 'progressTaskN', p.completed + 1);
    }
  }
  // After Request Changes the count goes back a task: say what is being done again instead.
  if (s.redoing !== undefined) {
    progressText = t('redoingTask', s.redoing);
  }
  byId('progressText').textContent = progressText;
  const currentCount = fieldList(byId('currentList'), [
    [t('currentTask'), s.currentTask ?? p?.current],
    [t('currentAgent'), s.currentAgent],
  ]);
  show(byId('progressSection'), Boolean(progressText) || currentCount > 0);

  const step = s.lastStep ?? {};
  const stepCount = fieldList(byId('stepList'), [
    [t('stepThought'), step.thought],
    [t('stepAction'), step.action],
    [t('stepTool'), step.tool],
    [t('stepToolInput'), step.toolInput],
    [t('stepResult'), step.result],
  ]);
  show(byId('stepSection'), stepCount > 0);

  const inputs = Object.entries(s.inputs);
  fieldList(byId('inputsList'), inputs.map(([k, v]) => [k, String(v)]));
  renderJsonInputs(s.jsonInputs ?? []);
  if (!inputs.length) {byId('inputsList').replaceChildren(h('p', { class: 'muted' }, t('noInputs')));}

  const usage = Object.entries(s.usage ?? {});
  fieldList(byId('usageList'), usage.map(([k, v]) => [maybeT(`usage.${k}`) ?? k, typeof v === 'number' ? v.toLocaleString() : String(v)]));
  if (s.usageHidden) {
    byId('usageList').append(h('p', { class: 'muted' }, t('usageHidden', s.usageHidden.toLocaleString())));
  }
  show(byId('usageSection'), usage.length > 0);

  byId('historyHidden').textContent = s.historyHidden ? t('historyHidden', s.historyHidden.toLocaleString()) : '';
  show(byId('historyHidden'), (s.historyHidden ?? 0) > 0);

  show(byId('rawSection'), s.hasRaw);
  renderTasksNote();
  tick();
}

export function tick(): void {
  const view = page.view;
  if (!view) {return;}
  const s = view.summary;
  const end = s.finishedAt ?? Date.now() + page.clockOffset;
  byId('elapsed').textContent = t(s.finishedAt ? 'took' : 'elapsed', formatDuration(end - s.startedAt));
}

export function renderHistory(from: number): void {
  const view = page.view;
  if (!view) {return;}
  const list = byId('timeline');
  while (list.children.length > from) {list.lastElementChild?.remove();}
  for (const entry of view.history.slice(list.children.length)) {
    // A task change (the state unchanged) reads as the task's name; a state change as the state.
    const what = entry.task !== undefined ? h('span', { class: 'timeline-task' }, t('taskStarted', entry.task)) : h('span', { class: 'timeline-state' }, t(`state.${entry.state}` as PageStringKey));
    list.append(
      h(
        'li',
        { class: entry.task !== undefined ? 'task-change' : `state-${entry.state}` },
        h('time', {}, time(entry.at)),
        ' ',
        what,
        entry.message ? h('span', { class: 'muted' }, ` — ${entry.message}`) : undefined,
      ),
    );
  }
  show(byId('timelineSection'), view.history.length > 0);
}

function taskTitle(task: TaskView, index: number): Child[] {
  const meta = [
    task.agent ? t('taskAgent', task.agent) : '',
    task.attempt && task.attempt > 1 ? t('taskAttempt', task.attempt) : '',
    typeof task.executionTime === 'number' ? t('taskTime', Math.round(task.executionTime * 10) / 10) : '',
  ].filter(Boolean);
  return [h('span', { class: 'task-name' }, `${index + 1}. ${task.name}`), meta.length ? h('span', { class: 'muted' }, ` · ${meta.join(' · ')}`) : undefined];
}

export function renderTasks(from: number): void {
  const view = page.view;
  if (!view) {return;}
  const list = byId('tasks');
  while (list.children.length > from) {
    const last = list.lastElementChild as HTMLElement;
    forgetOutput(last.querySelector('.output'));
    last.remove();
  }
  view.tasks.slice(list.children.length).forEach((task, i) => {
    const index = from + i;
    const body = h('div', { id: `task-output-${index}`, class: 'output' });
    const more = h('div', { id: `task-more-${index}`, class: 'more' });
    list.append(details(`task-${index}`, taskTitle(task, index), task.description ? h('p', { class: 'muted task-description' }, task.description) : undefined, body, more));
    renderOutput(index, task.output, body, more);
  });
  renderTasksNote();
}

/** The heading counts every task; a note says how many the page leaves out. */
function renderTasksNote(): void {
  const view = page.view;
  if (!view) {return;}
  const hidden = view.summary.tasksHidden ?? 0;
  byId('tasksHeading').textContent = view.tasks.length ? `${t('tasks')} (${(view.tasks.length + hidden).toLocaleString()})` : t('tasks');
  byId('tasksHidden').textContent = hidden ? t('tasksHidden', hidden.toLocaleString()) : '';
  show(byId('tasksHidden'), hidden > 0);
  show(byId('tasksSection'), view.tasks.length > 0);
}

export function renderFinal(): void {
  const view = page.view;
  if (!view) {return;}
  const body = byId('final');
  const more = byId('finalMore');
  forgetOutput(body);
  const final = view.final;
  renderOutputPlace();
  show(byId('copyJson'), final?.kind === 'json');
  if (final) {
    renderOutput('final', final, body, more);
  } else {
    body.replaceChildren();
    more.replaceChildren();
  }
}

/** "No output yet." while output may still come; a run that ended without any has no Output section. */
function renderOutputPlace(): void {
  const view = page.view;
  if (!view) {return;}
  show(byId('noOutput'), !view.final);
  show(byId('finalSection'), view.final !== null || !FINAL_STATES.has(view.summary.state));
}

export function renderRounds(from: number): void {
  const view = page.view;
  if (!view) {return;}
  const list = byId('rounds');
  while (list.children.length > from) {
    const last = list.lastElementChild as HTMLElement;
    forgetOutput(last.querySelector('.output'));
    last.remove();
  }
  view.feedbackRounds.slice(list.children.length).forEach((round, i) => {
    const index = from + i;
    const item = h(
      'li',
      {},
      h('div', {}, h('time', {}, time(round.at)), ' ', h('strong', {}, round.approve ? t('approved') : t('sentBack')), roundTask(round.taskName, round.taskId)),
      round.feedback ? h('p', { class: 'feedback-text' }, round.feedback) : undefined,
    );
    if (round.output) {
      const out = h('div', { class: 'output' });
      item.append(details(`round-${index}`, [t('reviewedOutput')], out));
      renderMarkdownInto(out, round.output + (round.outputTruncated ? '\n\n…' : ''));
    }
    list.append(item);
  });
  show(byId('roundsSection'), view.feedbackRounds.length > 0);
}


/** The reviewed task by its name (its id as a tooltip); by its id only when the run has no task of that id. */
function roundTask(name: string | undefined, id: string): HTMLElement | undefined {
  if (!name && !id) {
    return undefined;
  }
  return h('span', { class: 'muted', title: id || undefined }, ` · ${t('feedbackTask', name || id)}`);
}
