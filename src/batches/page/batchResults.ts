// The batch results page: one row per input row, sortable (click a header) and filterable (text and
// state). Every cell is set with textContent: CSV cells and crew output never become markup.
import {
  type BatchHostMessage,
  type BatchPageMessage,
  type BatchPageStrings,
  type BatchTable,
  filterRows,
  firstLine,
  type ResultRow,
  type SortKey,
  sortRows,
} from './batchProtocol';

interface VsCodeApi {
  postMessage(message: BatchPageMessage): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const api = acquireVsCodeApi();
const root = document.getElementById('root') as HTMLElement;
let strings: BatchPageStrings | undefined;
let table: BatchTable | undefined;
let sortKey: SortKey = 'row';
let descending = false;
let filterText = '';
let stateFilter = '';

function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, className?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) {
    node.textContent = text;
  }
  if (className) {
    node.className = className;
  }
  return node;
}

/** An estimate in US dollars: cents for large sums, more digits for small ones. */
function usd(amount: number): string {
  return `$${amount.toFixed(amount >= 1 ? 2 : amount >= 0.01 ? 3 : 4)}`;
}

function seconds(ms: number | undefined): string {
  return ms === undefined ? '' : `${(ms / 1000).toFixed(1)} s`;
}

function button(label: string, onClick: (b: HTMLButtonElement) => void, disabled = false): HTMLButtonElement {
  const b = el('button', label);
  b.disabled = disabled;
  b.addEventListener('click', () => onClick(b));
  return b;
}

function render(): void {
  if (!strings || !table) {
    return;
  }
  const started = performance.now();
  const s = strings;
  const t = table;
  root.replaceChildren();
  root.append(el('h1', t.title), el('p', t.progress, 'muted'));

  const toolbar = el('div', undefined, 'toolbar');
  const filter = el('input');
  filter.type = 'search';
  filter.placeholder = s.filter;
  // Wide enough for its hint, in any language: the default width cut it ("Filter rows (inputs, state").
  filter.size = s.filter.length + 2;
  filter.value = filterText;
  filter.id = 'filter';
  filter.addEventListener('input', () => {
    filterText = filter.value;
    renderBody();
  });
  const states = el('select');
  states.id = 'state-filter';
  states.append(new Option(s.allStates, ''));
  for (const key of [...new Set(t.rows.map((r) => r.stateKey))].sort()) {
    const label = t.rows.find((r) => r.stateKey === key)?.state ?? key;
    states.append(new Option(label, key, false, key === stateFilter));
  }
  states.addEventListener('change', () => {
    stateFilter = states.value;
    renderBody();
  });
  toolbar.append(
    filter,
    states,
    button(s.exportJsonl, () => api.postMessage({ type: 'action', action: 'exportJsonl' })),
    button(s.exportCsv, () => api.postMessage({ type: 'action', action: 'exportCsv' })),
    // Disabled once clicked: the next table from the host says whether it may be offered again.
    button(s.rerunFailed, (b) => {
      b.disabled = true;
      api.postMessage({ type: 'action', action: 'rerunFailed' });
    }, !t.canRerunFailed),
    button(s.compare, () => api.postMessage({ type: 'action', action: 'compare' })),
  );
  root.append(toolbar);

  const grid = el('table');
  const head = el('tr');
  // What a user looks for first leads: the row, its state and, when some row has one, why it failed.
  const columns: [SortKey, string][] = [
    ['row', s.row],
    ['state', s.state],
    ...(hasErrors(t) ? [['error', s.error] as [SortKey, string]] : []),
    ...t.inputColumns.map((c): [SortKey, string] => [`input:${c}`, c]),
    ['duration', s.duration],
    ['tokens', s.tokens],
    ['cost', s.cost],
    ['output', s.output],
  ];
  for (const [key, label] of columns) {
    const th = el('th', label + (key === sortKey ? (descending ? ' ▼' : ' ▲') : ''));
    th.tabIndex = 0;
    th.dataset.sort = key;
    const sortBy = () => {
      descending = key === sortKey ? !descending : false;
      sortKey = key;
      render();
    };
    th.addEventListener('click', sortBy);
    th.addEventListener('keydown', (e) => (e.key === 'Enter' || e.key === ' ') && sortBy());
    head.append(th);
  }
  const thead = el('thead');
  thead.append(head);
  const tbody = el('tbody');
  tbody.id = 'rows';
  grid.append(thead, tbody);
  const totals = t.totals;
  const sums = [s.totals.replace('{0}', seconds(totals.durationMs)).replace('{1}', totals.tokens.toLocaleString())];
  if (totals.costUsd !== undefined) {
    sums.push(s.totalsCost.replace('{0}', usd(totals.costUsd)) + (totals.costPartial ? ` ${s.costPartial}` : ''));
  }
  root.append(el('p', '', 'muted shown'), el('p', sums.join(' · '), 'totals'), grid);
  renderBody();
  report(performance.now() - started);
}

function renderBody(): void {
  if (!strings || !table) {
    return;
  }
  const started = performance.now();
  const t = table;
  const body = document.getElementById('rows');
  if (!body) {
    return;
  }
  const rows = sortRows(filterRows(t.rows, filterText, stateFilter), sortKey, descending);
  const fragment = document.createDocumentFragment();
  const errors = hasErrors(t);
  for (const row of rows) {
    fragment.append(rowElement(row, t.inputColumns, errors));
  }
  body.replaceChildren(fragment);
  const shown = root.querySelector('.shown');
  if (shown) {
    shown.textContent = rows.length ? strings.shown.replace('{0}', String(rows.length)).replace('{1}', String(t.rows.length)) : strings.empty;
  }
  report(performance.now() - started);
}

function hasErrors(t: BatchTable): boolean {
  return t.rows.some((r) => r.error !== undefined);
}

/**
 * A row's reason: its first line, the whole of it on hover, and shown whole in place on a click or Enter
 * (which do not open the row's run, as they do elsewhere in the row).
 */
function errorCell(text: string | undefined): HTMLTableCellElement {
  const cell = el('td', text === undefined ? '' : firstLine(text), 'error');
  if (text === undefined) {
    return cell;
  }
  cell.title = text;
  if (text.trim() === firstLine(text) && text.length <= 80) {
    return cell;
  }
  cell.tabIndex = 0;
  cell.classList.add('expands');
  cell.setAttribute('aria-expanded', 'false');
  cell.setAttribute('aria-description', strings?.errorExpand ?? '');
  const toggle = (e: Event) => {
    e.stopPropagation();
    const open = cell.getAttribute('aria-expanded') !== 'true';
    cell.setAttribute('aria-expanded', String(open));
    cell.classList.toggle('expanded', open);
    cell.textContent = open ? text : firstLine(text);
  };
  cell.addEventListener('click', toggle);
  cell.addEventListener('keydown', (e) => (e.key === 'Enter' || e.key === ' ') && toggle(e));
  return cell;
}

function rowElement(row: ResultRow, inputColumns: string[], errors: boolean): HTMLTableRowElement {
  const tr = el('tr');
  tr.dataset.index = String(row.index);
  tr.dataset.state = row.stateKey;
  tr.append(el('td', String(row.index + 1)));
  const state = el('td', row.state, `state state-${row.stateKey}`);
  if (row.note) {
    state.title = row.note;
  }
  tr.append(state);
  if (errors) {
    tr.append(errorCell(row.error));
  }
  for (const column of inputColumns) {
    const cell = el('td', row.inputs[column] ?? '', 'input');
    cell.title = row.inputs[column] ?? '';
    tr.append(cell);
  }
  tr.append(
    el('td', seconds(row.durationMs), 'number'),
    el('td', row.tokens === undefined ? '' : row.tokens.toLocaleString(), 'number'),
    el('td', row.costUsd === undefined ? '' : usd(row.costUsd), 'number'),
    el('td', row.output ?? '', 'output'),
  );
  if (row.hasRun) {
    tr.classList.add('opens');
    tr.tabIndex = 0;
    const open = () => api.postMessage({ type: 'openRun', index: row.index });
    tr.addEventListener('click', open);
    tr.addEventListener('keydown', (e) => e.key === 'Enter' && open());
  }
  return tr;
}

function report(renderMs: number): void {
  const rowsRendered = document.querySelectorAll('#rows tr').length;
  api.postMessage({ type: 'rendered', report: { rowsRendered, renderMs, sortedBy: `${sortKey}${descending ? ' desc' : ''}`, filter: filterText } });
}

window.addEventListener('message', (event: MessageEvent<BatchHostMessage>) => {
  const message = event.data;
  if (message?.type === 'init') {
    strings = message.strings;
    table = message.table;
    render();
  } else if (message?.type === 'table') {
    table = message.table;
    render();
  }
});

api.postMessage({ type: 'ready' });
