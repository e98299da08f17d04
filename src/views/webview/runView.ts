// The run view page (bundled as an IIFE into media/dist/runView.js). Builds its DOM from the host's
// `init`, applies `update` patches section by section, and never puts untrusted text into innerHTML
// except markdown-it's escaped output. Reports what it rendered after each change (`rendered`).

import { createMarkdown } from './markdown';
import {
  applyPatch,
  fill,
  formatDuration,
  type HostMessage,
  isSafeLink,
  type OutputTarget,
  type OutputView,
  type PageMessage,
  type PageReport,
  type PageStringKey,
  type PageStrings,
  type RunView,
  type TaskView,
  type ViewPatch,
} from './protocol';

interface VsCodeApi {
  postMessage(message: PageMessage): void;
  getState(): unknown;
  setState(state: UiState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/** What survives the page being hidden or the window reloading: the run and a few view choices, no run data. */
interface UiState {
  runId: string;
  open?: string[];
  rawOpen?: boolean;
  showAll?: string[];
  scrollY?: number;
}

const api = acquireVsCodeApi();
const md = createMarkdown();
const root = document.getElementById('root') as HTMLElement;
const runId = document.body.dataset.runId ?? '';

let strings: PageStrings | undefined;
let view: RunView | undefined;
/** Host clock minus page clock. */
let clockOffset = 0;
let messagesHandled = 0;
let renderMs = 0;
let uiState: UiState = loadUiState();
api.setState(uiState);

function loadUiState(): UiState {
  const saved = api.getState() as Partial<UiState> | undefined;
  const state: UiState = { runId };
  if (saved && saved.runId === runId) {
    state.open = Array.isArray(saved.open) ? saved.open.filter((x) => typeof x === 'string').slice(0, 200) : undefined;
    state.rawOpen = saved.rawOpen === true;
    state.showAll = Array.isArray(saved.showAll) ? saved.showAll.filter((x) => typeof x === 'string').slice(0, 200) : undefined;
    state.scrollY = typeof saved.scrollY === 'number' ? saved.scrollY : undefined;
  }
  return state;
}

function saveUiState(change: Partial<UiState>): void {
  uiState = { ...uiState, ...change };
  api.setState(uiState);
}

function t(key: PageStringKey, ...args: (string | number)[]): string {
  return fill(strings?.[key] ?? key, ...args);
}

function post(message: PageMessage): void {
  api.postMessage(message);
}

// ---- DOM helpers (text only) ----

type Child = Node | string | undefined | false;

function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: { id?: string; class?: string; title?: string; ariaLabel?: string } = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (props.id) {element.id = props.id;}
  if (props.class) {element.className = props.class;}
  if (props.title) {element.title = props.title;}
  if (props.ariaLabel) {element.setAttribute('aria-label', props.ariaLabel);}
  for (const child of children) {
    if (child !== undefined && child !== false) {
      element.append(child);
    }
  }
  return element;
}

function icon(name: string): HTMLElement {
  const span = h('span', { class: `codicon codicon-${name}` });
  span.setAttribute('aria-hidden', 'true');
  return span;
}

function button(label: string, iconName: string | undefined, onClick: () => void, options: { id?: string; iconOnly?: boolean; class?: string } = {}): HTMLButtonElement {
  const b = h('button', { id: options.id, class: options.class ?? (options.iconOnly ? 'icon-button' : 'button'), title: options.iconOnly ? label : undefined, ariaLabel: options.iconOnly ? label : undefined });
  b.type = 'button';
  if (iconName) {b.append(icon(iconName));}
  if (!options.iconOnly) {b.append(h('span', {}, label));}
  b.addEventListener('click', onClick);
  return b;
}

function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

function show(element: HTMLElement, visible: boolean): void {
  element.hidden = !visible;
}

function time(at: number): string {
  return new Date(at).toLocaleTimeString();
}

// ---- skeleton ----

function action(name: 'copyOutput' | 'saveOutputAs' | 'openOutputInEditor' | 'compareOutput' | 'runAgain' | 'giveFeedback'): () => void {
  return () => post({ type: 'action', action: name });
}

function details(id: string, summary: Child[], ...body: Child[]): HTMLDetailsElement {
  const d = h('details', { id }, h('summary', {}, ...summary), ...body);
  if (uiState.open?.includes(id)) {
    d.open = true;
  }
  d.addEventListener('toggle', () => {
    const open = new Set(uiState.open ?? []);
    if (d.open) {open.add(id);}
    else {open.delete(id);}
    saveUiState({ open: [...open] });
  });
  return d;
}

function buildSkeleton(): void {
  const toolbar = h(
    'div',
    { id: 'actions', class: 'toolbar', ariaLabel: t('actions') },
    button(t('copyOutput'), 'copy', action('copyOutput'), { id: 'act-copyOutput' }),
    button(t('saveOutputAs'), 'save-as', action('saveOutputAs'), { id: 'act-saveOutputAs' }),
    button(t('openOutputInEditor'), 'go-to-file', action('openOutputInEditor'), { id: 'act-openOutputInEditor' }),
    button(t('compareOutput'), 'diff', action('compareOutput'), { id: 'act-compareOutput' }),
    button(t('runAgain'), 'debug-rerun', action('runAgain'), { id: 'act-runAgain' }),
    button(t('giveFeedback'), 'feedback', action('giveFeedback'), { id: 'act-giveFeedback', class: 'button primary' }),
  );
  toolbar.setAttribute('role', 'toolbar');

  const raw = details('raw', [t('raw')], h('p', { id: 'rawNote', class: 'muted' }), h('pre', { id: 'rawText', class: 'raw' }));
  raw.addEventListener('toggle', () => {
    saveUiState({ rawOpen: raw.open });
    if (raw.open) {requestRaw();}
  });
  if (uiState.rawOpen) {raw.open = true;}

  root.replaceChildren(
    h(
      'header',
      {},
      h('h1', { id: 'title' }),
      h('div', { class: 'status-line' }, h('span', { id: 'badge', class: 'badge' }), h('span', { id: 'elapsed', class: 'muted' })),
      h('p', { id: 'message', class: 'message' }),
      h('p', { id: 'warning', class: 'warning' }, icon('warning'), h('span', { id: 'warningText' })),
      h('p', { id: 'removed', class: 'warning' }, icon('trash'), h('span', {}, t('removed'))),
      h(
        'div',
        { class: 'kickoff' },
        h('span', { class: 'muted' }, t('kickoffId')),
        ' ',
        h('code', { id: 'kickoffId' }),
        button(t('copyKickoffId'), 'copy', () => post({ type: 'action', action: 'copyKickoffId' }), { iconOnly: true, id: 'copyKickoffId' }),
      ),
      h('p', { id: 'previousIds', class: 'muted' }),
    ),
    toolbar,
    h('section', { id: 'feedbackWait', class: 'callout' }, icon('feedback'), h('span', { id: 'feedbackWaitText' })),
    h('section', { id: 'errorSection', class: 'error-section' }, h('h2', {}, icon('error'), ' ', t('error')), h('pre', { id: 'errorText', class: 'error-text' })),
    h(
      'section',
      { id: 'progressSection' },
      h('h2', {}, t('progress')),
      h('div', { class: 'progress-row' }, h('progress', { id: 'progressBar' }), h('span', { id: 'progressText' })),
      h('dl', { id: 'currentList', class: 'fields' }),
    ),
    h('section', { id: 'stepSection' }, h('h2', {}, t('latestStep')), h('dl', { id: 'stepList', class: 'fields' })),
    h(
      'section',
      { id: 'finalSection' },
      h('div', { class: 'section-head' }, h('h2', {}, t('output')), button(t('copyJson'), 'copy', () => post({ type: 'copyFinalJson' }), { id: 'copyJson', class: 'button secondary' })),
      h('p', { id: 'noOutput', class: 'muted' }, t('noOutputYet')),
      h('div', { id: 'final', class: 'output' }),
      h('div', { id: 'finalMore', class: 'more' }),
    ),
    h('section', { id: 'tasksSection' }, h('h2', { id: 'tasksHeading' }, t('tasks')), h('div', { id: 'tasks' }), h('p', { id: 'tasksHidden', class: 'muted' })),
    h('section', { id: 'inputsSection' }, h('h2', {}, t('inputs')), h('dl', { id: 'inputsList', class: 'fields' })),
    h('section', { id: 'usageSection' }, h('h2', {}, t('usage')), h('dl', { id: 'usageList', class: 'fields numbers' })),
    h('section', { id: 'roundsSection' }, h('h2', {}, t('feedbackRounds')), h('ol', { id: 'rounds', class: 'rounds' })),
    h('section', { id: 'timelineSection' }, h('h2', {}, t('timeline')), h('ol', { id: 'timeline', class: 'timeline' })),
    h('section', { id: 'rawSection' }, raw),
  );
}

// ---- sections ----

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

function renderSummary(): void {
  if (!view) {return;}
  const s = view.summary;
  document.title = `${s.crewName}: ${s.label}`;
  byId('title').textContent = `${s.crewName}: ${s.label}`;
  const badge = byId('badge');
  badge.textContent = t(`state.${s.state}` as PageStringKey);
  badge.className = `badge state-${s.state}`;
  byId('message').textContent = s.message ?? '';
  show(byId('message'), Boolean(s.message));
  const warnings = [s.warning, !s.watching && s.stopReason ? t('notWatching', t(`stop.${s.stopReason}` as PageStringKey)) : undefined].filter(Boolean);
  byId('warningText').textContent = warnings.join(' ');
  show(byId('warning'), warnings.length > 0);
  show(byId('removed'), !s.exists);
  byId('kickoffId').textContent = s.kickoffId;
  byId('previousIds').textContent = s.previousKickoffIds.length ? t('previousKickoffIds', s.previousKickoffIds.join(', ')) : '';
  show(byId('previousIds'), s.previousKickoffIds.length > 0);

  const hasOutput = view.final !== null;
  for (const id of ['act-copyOutput', 'act-saveOutputAs', 'act-openOutputInEditor', 'act-compareOutput']) {
    byId<HTMLButtonElement>(id).disabled = !hasOutput || !s.exists;
  }
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
  if (!inputs.length) {byId('inputsList').replaceChildren(h('p', { class: 'muted' }, t('noInputs')));}

  const usage = Object.entries(s.usage ?? {});
  fieldList(byId('usageList'), usage.map(([k, v]) => [k, typeof v === 'number' ? v.toLocaleString() : String(v)]));
  if (s.usageHidden) {
    byId('usageList').append(h('p', { class: 'muted' }, t('usageHidden', s.usageHidden.toLocaleString())));
  }
  show(byId('usageSection'), usage.length > 0);

  show(byId('rawSection'), s.hasRaw);
  renderTasksNote();
  tick();
}

function tick(): void {
  if (!view) {return;}
  const s = view.summary;
  const end = s.finishedAt ?? Date.now() + clockOffset;
  byId('elapsed').textContent = t(s.finishedAt ? 'took' : 'elapsed', formatDuration(end - s.startedAt));
}

function renderHistory(from: number): void {
  if (!view) {return;}
  const list = byId('timeline');
  while (list.children.length > from) {list.lastElementChild?.remove();}
  for (const entry of view.history.slice(list.children.length)) {
    list.append(
      h(
        'li',
        { class: `state-${entry.state}` },
        h('time', {}, time(entry.at)),
        ' ',
        h('span', { class: 'timeline-state' }, t(`state.${entry.state}` as PageStringKey)),
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

function renderTasks(from: number): void {
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
  if (!view) {return;}
  const hidden = view.summary.tasksHidden ?? 0;
  byId('tasksHeading').textContent = view.tasks.length ? `${t('tasks')} (${(view.tasks.length + hidden).toLocaleString()})` : t('tasks');
  byId('tasksHidden').textContent = hidden ? t('tasksHidden', hidden.toLocaleString()) : '';
  show(byId('tasksHidden'), hidden > 0);
  show(byId('tasksSection'), view.tasks.length > 0);
}

function renderFinal(): void {
  if (!view) {return;}
  const body = byId('final');
  const more = byId('finalMore');
  forgetOutput(body);
  const final = view.final;
  show(byId('noOutput'), !final);
  show(byId('copyJson'), final?.kind === 'json');
  if (final) {
    renderOutput('final', final, body, more);
  } else {
    body.replaceChildren();
    more.replaceChildren();
  }
}

function renderRounds(from: number): void {
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
      h('div', {}, h('time', {}, time(round.at)), ' ', h('strong', {}, round.approve ? t('approved') : t('sentBack')), round.taskId ? h('span', { class: 'muted' }, ` · ${t('feedbackTaskId', round.taskId)}`) : undefined),
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

// ---- outputs ----

interface Scan {
  scripts: number;
  handlers: number;
  unsafe: number;
  links: number;
  unsafeLinks: number;
  textLength: number;
}

/** Per output container: what has been rendered into it (scanned once per inserted piece). */
const scans = new WeakMap<Element, Scan>();
/** Per target: loading state of "Show all". */
const loading = new Map<string, { key: string; next: number; count: number; body: HTMLElement; more: HTMLElement; kind: OutputView['kind']; length: number }>();

const UNSAFE_SELECTOR = '[style], style, iframe, object, embed, svg, img, link, meta, form, input, base, frame, frameset, math';

function scanPiece(container: Element, piece: Element): void {
  const scan = scans.get(container) ?? { scripts: 0, handlers: 0, unsafe: 0, links: 0, unsafeLinks: 0, textLength: 0 };
  const all = [piece, ...Array.from(piece.querySelectorAll('*'))];
  for (const element of all) {
    const tag = element.tagName.toLowerCase();
    if (tag === 'script') {scan.scripts++;}
    if (element.matches(UNSAFE_SELECTOR)) {scan.unsafe++;}
    for (const attr of Array.from(element.attributes)) {
      if (attr.name.toLowerCase().startsWith('on')) {scan.handlers++;}
    }
    if (tag === 'a') {
      scan.links++;
      const href = element.getAttribute('href');
      if (href !== null && !isSafeLink(href)) {scan.unsafeLinks++;}
    }
  }
  scan.textLength += piece.textContent?.length ?? 0;
  scans.set(container, scan);
}

function forgetOutput(container: Element | null): void {
  if (container) {
    scans.delete(container);
    for (const [target, state] of loading) {
      if (state.body === container) {loading.delete(target);}
    }
  }
}

function appendPiece(container: HTMLElement, kind: OutputView['kind'], text: string): void {
  let piece: HTMLElement;
  if (kind === 'json') {
    piece = h('pre', { class: 'json' });
    piece.textContent = text;
  } else {
    piece = h('div', { class: 'segment' });
    // markdown-it output: html disabled, links validated (see markdown.ts).
    piece.innerHTML = md.render(text);
  }
  container.append(piece);
  scanPiece(container, piece);
}

function renderMarkdownInto(container: HTMLElement, text: string): void {
  container.replaceChildren();
  scans.delete(container);
  appendPiece(container, 'markdown', text);
}

function targetName(target: OutputTarget): string {
  return target === 'final' ? 'final' : `task-${target}`;
}

function renderOutput(target: OutputTarget, output: OutputView, body: HTMLElement, more: HTMLElement): void {
  body.replaceChildren();
  scans.delete(body);
  loading.delete(targetName(target));
  body.dataset.key = output.key;
  if (output.length === 0) {
    body.append(h('p', { class: 'muted' }, t('emptyOutput')));
  } else {
    appendPiece(body, output.kind, output.preview);
  }
  renderMore(target, output.previewSegments, output, body, more);
  if (output.previewSegments < output.segmentCount && uiState.showAll?.includes(targetName(target))) {
    startShowAll(target, output, body, more);
  }
}

function renderMore(target: OutputTarget, rendered: number, output: OutputView, body: HTMLElement, more: HTMLElement): void {
  if (rendered >= output.segmentCount) {
    more.replaceChildren();
    return;
  }
  const state = loading.get(targetName(target));
  if (state) {
    const percent = Math.floor((rendered / output.segmentCount) * 100);
    more.replaceChildren(h('span', { class: 'muted' }, t('rendering', percent)));
    return;
  }
  const shownChars = scans.get(body)?.textLength ?? 0;
  more.replaceChildren(
    h('span', { class: 'muted' }, t('showingPart', Math.min(shownChars, output.length).toLocaleString(), output.length.toLocaleString()), ' '),
    button(t('showAll'), 'unfold', () => startShowAll(target, output, body, more), { class: 'button secondary' }),
    button(t('openOutputInEditor'), 'go-to-file', target === 'final' ? action('openOutputInEditor') : () => post({ type: 'openTaskOutput', index: target }), { class: 'button secondary' }),
  );
}

function startShowAll(target: OutputTarget, output: OutputView, body: HTMLElement, more: HTMLElement): void {
  const name = targetName(target);
  const showAll = new Set(uiState.showAll ?? []);
  showAll.add(name);
  saveUiState({ showAll: [...showAll] });
  loading.set(name, { key: output.key, next: output.previewSegments, count: output.segmentCount, body, more, kind: output.kind, length: output.length });
  renderMore(target, output.previewSegments, output, body, more);
  post({ type: 'loadMore', target, key: output.key, segment: output.previewSegments });
}

function handleChunk(message: Extract<HostMessage, { type: 'outputChunk' }>): boolean {
  const name = targetName(message.target);
  const state = loading.get(name);
  if (!state || state.key !== message.key || state.next !== message.segment || !state.body.isConnected) {
    return false;
  }
  appendPiece(state.body, state.kind, message.text);
  state.next++;
  const output = { key: state.key, segmentCount: state.count, length: state.length } as OutputView;
  if (message.last || state.next >= state.count) {
    loading.delete(name);
    state.more.replaceChildren();
  } else {
    renderMore(message.target, state.next, output, state.body, state.more);
    // Yield between segments so the page stays responsive while a long output renders.
    setTimeout(() => {
      if (loading.get(name) === state) {
        post({ type: 'loadMore', target: message.target, key: state.key, segment: state.next });
      }
    }, 0);
  }
  return true;
}

// ---- raw JSON ----

let rawStale = true;

function requestRaw(): void {
  if (rawStale) {
    byId('rawNote').textContent = t('loading');
    post({ type: 'requestRaw' });
  }
}

function handleRaw(message: Extract<HostMessage, { type: 'raw' }>): void {
  rawStale = false;
  byId('rawText').textContent = message.text || '';
  byId('rawNote').textContent = !message.text ? t('noRaw') : message.truncated ? t('rawTruncated', message.text.length.toLocaleString(), message.length.toLocaleString()) : '';
  show(byId('rawNote'), Boolean(byId('rawNote').textContent));
}

// ---- report ----

function report(): void {
  if (!view) {return;}
  const total = { scripts: 0, handlers: 0, unsafe: 0, links: 0, unsafeLinks: 0 };
  for (const container of Array.from(document.querySelectorAll('.output'))) {
    const scan = scans.get(container);
    if (scan) {
      total.scripts += scan.scripts;
      total.handlers += scan.handlers;
      total.unsafe += scan.unsafe;
      total.links += scan.links;
      total.unsafeLinks += scan.unsafeLinks;
    }
  }
  const finalBody = byId('final');
  const pageReport: PageReport = {
    stateText: byId('badge').textContent ?? '',
    message: byId('message').textContent ?? '',
    elapsedText: byId('elapsed').textContent ?? '',
    progressText: byId('progressText').textContent ?? '',
    currentTask: view.summary.currentTask ?? '',
    taskSections: byId('tasks').children.length,
    hasFinalOutput: view.final !== null,
    finalOutputTextLength: view.final ? scans.get(finalBody)?.textLength ?? 0 : 0,
    finalOutputComplete: view.final !== null && !loading.has('final') && byId('finalMore').childElementCount === 0,
    hasError: !byId('errorSection').hidden,
    timelineEntries: byId('timeline').children.length,
    feedbackRounds: byId('rounds').children.length,
    scriptElements: total.scripts,
    eventHandlerAttributes: total.handlers,
    unsafeElements: total.unsafe,
    links: total.links,
    unsafeLinks: total.unsafeLinks,
    renderMs: Math.round(renderMs),
    messagesHandled,
  };
  post({ type: 'rendered', report: pageReport });
}

// ---- messages ----

function applyUpdate(patch: ViewPatch): void {
  if (!view) {return;}
  view = applyPatch(view, patch);
  if (patch.set || patch.unset || patch.final !== undefined) {
    renderSummary();
  }
  if (patch.history) {renderHistory(patch.history.from);}
  if (patch.tasks) {renderTasks(patch.tasks.from);}
  if (patch.final !== undefined) {renderFinal();}
  if (patch.feedbackRounds) {renderRounds(patch.feedbackRounds.from);}
  if (patch.set?.updatedAt !== undefined) {
    rawStale = true;
    if (byId<HTMLDetailsElement>('raw').open) {requestRaw();}
  }
}

let restoredScroll = false;

function handle(message: HostMessage): void {
  const started = performance.now();
  let rendered = true;
  switch (message.type) {
    case 'init':
      strings = message.strings;
      view = message.view;
      clockOffset = message.now - Date.now();
      loading.clear();
      rawStale = true;
      buildSkeleton();
      renderSummary();
      renderHistory(0);
      renderTasks(0);
      renderFinal();
      renderRounds(0);
      if (byId<HTMLDetailsElement>('raw').open) {requestRaw();}
      if (!restoredScroll && uiState.scrollY) {
        restoredScroll = true;
        window.scrollTo(0, uiState.scrollY);
      }
      break;
    case 'update':
      clockOffset = message.now - Date.now();
      applyUpdate(message.patch);
      break;
    case 'outputChunk':
      rendered = handleChunk(message);
      break;
    case 'raw':
      handleRaw(message);
      rendered = false;
      break;
    case 'showAll': {
      const final = view?.final;
      if (final && final.previewSegments < final.segmentCount && !loading.has('final')) {
        startShowAll('final', final, byId('final'), byId('finalMore'));
      }
      break;
    }
  }
  messagesHandled++;
  if (rendered) {
    renderMs = performance.now() - started;
    report();
  }
}

window.addEventListener('message', (event: MessageEvent) => {
  const data = event.data as HostMessage | undefined;
  if (data && typeof data === 'object' && typeof data.type === 'string') {
    handle(data);
  }
});

// Links in outputs: never navigate; ask the host, which checks the URL again.
function onLinkActivate(event: MouseEvent): void {
  const target = event.target instanceof Element ? event.target.closest('a') : null;
  if (!target) {return;}
  event.preventDefault();
  const href = target.getAttribute('href');
  if (href && isSafeLink(href) && target.closest('.output')) {
    post({ type: 'openLink', href });
  }
}
document.addEventListener('click', onLinkActivate);
document.addEventListener('auxclick', onLinkActivate);

let scrollTimer: ReturnType<typeof setTimeout> | undefined;
window.addEventListener('scroll', () => {
  clearTimeout(scrollTimer);
  scrollTimer = setTimeout(() => saveUiState({ scrollY: Math.round(window.scrollY) }), 300);
});

setInterval(tick, 1000);
post({ type: 'ready' });
