// The run view page's shared ground: the VS Code API, what the host sent (strings, view), the view
// choices that survive a reload (UiState), and text-only DOM helpers. Part of the page bundle.

import type { PageMessage } from './messages';
import { fill, type PageStringKey, type PageStrings } from './pageStrings';
import type { RunView } from './viewModel';

interface VsCodeApi {
  postMessage(message: PageMessage): void;
  getState(): unknown;
  setState(state: UiState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/** What survives the page being hidden or the window reloading: the run and a few view choices, no run data. */
export interface UiState {
  runId: string;
  open?: string[];
  rawOpen?: boolean;
  showAll?: string[];
  scrollY?: number;
}

const api = acquireVsCodeApi();
const runId = document.body.dataset.runId ?? '';

export const page: {
  strings?: PageStrings;
  view?: RunView;
  /** Host clock minus page clock. */
  clockOffset: number;
  /** Tests asked for a report after every render (with the DOM security scan). */
  probe: boolean;
  scan: boolean;
  ui: UiState;
} = { clockOffset: 0, probe: false, scan: false, ui: loadUiState() };
api.setState(page.ui);

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

export function saveUiState(change: Partial<UiState>): void {
  page.ui = { ...page.ui, ...change };
  api.setState(page.ui);
}

export function t(key: PageStringKey, ...args: (string | number)[]): string {
  return fill(page.strings?.[key] ?? key, ...args);
}

/** A string the host may not have (a usage key it has no label for): undefined then. */
export function maybeT(key: string): string | undefined {
  return (page.strings as Record<string, string> | undefined)?.[key];
}

export function post(message: PageMessage): void {
  api.postMessage(message);
}

// ---- DOM helpers (text only) ----

export type Child = Node | string | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: { id?: string; class?: string; title?: string; ariaLabel?: string } = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
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

export function icon(name: string): HTMLElement {
  const span = h('span', { class: `codicon codicon-${name}` });
  span.setAttribute('aria-hidden', 'true');
  return span;
}

export function button(label: string, iconName: string | undefined, onClick: () => void, options: { id?: string; iconOnly?: boolean; class?: string } = {}): HTMLButtonElement {
  const b = h('button', { id: options.id, class: options.class ?? (options.iconOnly ? 'icon-button' : 'button'), title: options.iconOnly ? label : undefined, ariaLabel: options.iconOnly ? label : undefined });
  b.type = 'button';
  if (iconName) {b.append(icon(iconName));}
  if (!options.iconOnly) {b.append(h('span', {}, label));}
  b.addEventListener('click', onClick);
  return b;
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

export function show(element: HTMLElement, visible: boolean): void {
  element.hidden = !visible;
}

export function time(at: number): string {
  return new Date(at).toLocaleTimeString();
}

/** A <details> whose open state survives reloads. */
export function details(id: string, summary: Child[], ...body: Child[]): HTMLDetailsElement {
  const d = h('details', { id }, h('summary', {}, ...summary), ...body);
  if (page.ui.open?.includes(id)) {
    d.open = true;
  }
  d.addEventListener('toggle', () => {
    const open = new Set(page.ui.open ?? []);
    if (d.open) {open.add(id);}
    else {open.delete(id);}
    saveUiState({ open: [...open] });
  });
  return d;
}
