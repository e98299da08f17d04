// The chat panel's page: transcript, composer, the answer appended as it comes (only the new text is added, once
// per animation frame, to the last of the answer's pieces of about 16 KB: neither the transcript nor a long
// answer is laid out again per token). Text only: nothing the flow sends becomes HTML.

import { stepTitle } from './stepTitle';

interface VsCodeApi {
  postMessage(message: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

type Update =
  | { kind: 'text'; text: string }
  | { kind: 'step'; id: string; title: string; detail: string; event?: string; tool?: string }
  | { kind: 'question'; id: string; text: string }
  | { kind: 'questionAnswered'; feedback: string }
  | { kind: 'note'; text: string }
  | { kind: 'mode'; mode: string };

type HostMessage =
  | { type: 'strings'; strings: Record<string, string> }
  | { type: 'user'; text: string }
  | { type: 'history'; messages: { role: 'user' | 'assistant'; text: string; notShown?: number }[]; note?: string }
  | { type: 'answerStart'; again?: boolean }
  | { type: 'update'; update: Update }
  | { type: 'answerEnd'; outcome: { kind: string; answer?: string }; note?: string; restore?: string; check?: boolean }
  | { type: 'checkResult'; note: string }
  | { type: 'check' }
  | { type: 'busy'; reason?: string }
  | { type: 'submit'; text: string }
  | { type: 'feedbackResult'; questionId: string; state: 'sent' | 'refused' | 'uncertain'; note?: string }
  | { type: 'gone' }
  | { type: 'draft'; text: string };

const api = acquireVsCodeApi();
const probe = document.body.dataset.probe === '1';
let strings: Record<string, string> = {};
const t = (key: string) => strings[key] ?? key;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (className) {
    e.className = className;
  }
  if (text !== undefined) {
    e.textContent = text;
  }
  return e;
}

const root = document.getElementById('root') as HTMLElement;
root.textContent = '';
root.removeAttribute('aria-live');
const tools = el('div', 'toolbar');
const openMarkdown = el('button', 'openMarkdown');
openMarkdown.type = 'button';
openMarkdown.addEventListener('click', () => api.postMessage({ type: 'openMarkdown' }));
tools.append(openMarkdown);
const transcript = el('section', 'transcript');
transcript.setAttribute('aria-live', 'polite');
const empty = el('p', 'empty');
transcript.append(empty);
const form = el('div', 'composer');
const input = el('textarea', 'input');
input.rows = 3;
const reason = el('p', 'reason');
reason.hidden = true;
const sendButton = el('button', 'send');
sendButton.type = 'button';
form.append(input, sendButton);
root.append(tools, transcript, reason, form);

interface Entry {
  message: HTMLElement;
  body: HTMLElement;
  /** The text node new text goes to: the last piece's. */
  text: Text;
  steps: HTMLElement;
  raw: string;
  /** Text come since the last frame, not yet on the page. */
  pending: string;
}
let answer: Entry | undefined;
/** The answer of the turn that ended last: taken away when it stayed empty and the chat turned out gone. */
let lastAnswer: Entry | undefined;
/** The flow no longer knows this chat: the composer stays closed, and the page offers the ways on. */
let gone: { box: HTMLElement; text: string; actions: HTMLButtonElement[] } | undefined;

function showGone() {
  empty.remove();
  if (lastAnswer && lastAnswer.raw === '' && !lastAnswer.steps.hasChildNodes() && !lastAnswer.message.querySelector('.note')) {
    lastAnswer.message.remove(); // an empty "Flow" for a message it never took
  }
  gone?.box.remove();
  const box = el('div', 'gone');
  box.setAttribute('role', 'group');
  const words = el('p', 'goneText', t('gone'));
  words.id = 'gone-text';
  box.setAttribute('aria-labelledby', words.id);
  const newChat = el('button', 'newChat', t('newChat'));
  newChat.type = 'button';
  newChat.addEventListener('click', () => api.postMessage({ type: 'newChat', draft: input.value }));
  const forget = el('button', 'forgetChat', t('forgetChat'));
  forget.type = 'button';
  forget.addEventListener('click', () => api.postMessage({ type: 'forget' }));
  const actions = el('div', 'actions');
  actions.append(newChat, forget);
  box.append(words, actions);
  transcript.append(box);
  gone = { box, text: t('gone'), actions: [newChat, forget] };
  following = true;
  input.placeholder = ''; // it no longer invites a message: the line above it says why
  setBusy(t('goneReason'));
  focusIfHere(newChat);
}

/**
 * The answer's entry of the last message whose send was uncertain: its note, Check, and what Check found so far.
 * Check found it: its answer goes here, in its place.
 */
let unsure: { entry: Entry; note?: HTMLElement; check: HTMLButtonElement; found?: HTMLElement; checking: boolean } | undefined;

function offerCheck(entry: Entry, note: HTMLElement | undefined) {
  unsure?.check.remove(); // Only the last uncertain message is checked.
  const check = el('button', 'check', t('check'));
  check.type = 'button';
  const offer = { entry, note, check, checking: false };
  check.addEventListener('click', () => {
    if (!check.disabled) {
      offer.checking = true;
      check.disabled = true;
      api.postMessage({ type: 'check' });
      report();
    }
  });
  entry.message.append(check);
  unsure = offer;
}

/** A piece closes at a line break once it holds this much (layout then touches only the last piece). */
const PIECE_CHARS = 16 * 1024;
/** A piece without a line break closes anyway at this size (a break in the middle of a line, rarely seen). */
const PIECE_MAX_CHARS = 256 * 1024;

function newPiece(entry: Entry): void {
  const piece = el('div', 'piece');
  entry.text = document.createTextNode('');
  piece.append(entry.text);
  entry.body.append(piece);
}

function appendText(entry: Entry, text: string): void {
  while (text) {
    const room = entry.text.length;
    const lineEnd = room >= PIECE_CHARS ? text.indexOf('\n') : room + text.length > PIECE_CHARS ? text.indexOf('\n', PIECE_CHARS - room) : -1;
    if (lineEnd >= 0) {
      entry.text.appendData(text.slice(0, lineEnd + 1));
      text = text.slice(lineEnd + 1);
      newPiece(entry);
    } else if (room + text.length > PIECE_MAX_CHARS) {
      const cut = PIECE_MAX_CHARS - room;
      entry.text.appendData(text.slice(0, cut));
      text = text.slice(cut);
      newPiece(entry);
    } else {
      entry.text.appendData(text);
      text = '';
    }
  }
}

/** Puts the text come since the last frame on the page: one layout per frame, however many tokens. */
function flushPending(): void {
  if (answer && answer.pending) {
    appendText(answer, answer.pending);
    answer.pending = '';
  }
}

let frameQueued = false;
function queueFrame(): void {
  if (frameQueued) {
    return;
  }
  frameQueued = true;
  requestAnimationFrame(() => {
    frameQueued = false;
    flushPending();
    scrollDown();
    report();
  });
}
let lastSent = '';
let busy = false;
/** Why the composer is disabled, as the host said it. */
let busyWhy = '';
/** The stream's trouble while a turn runs (turn.ts `mode`): said where the busy reason is, until text comes again. */
let connection: 'reconnecting' | 'polling' | '' = '';
/** Every connection status the page showed, oldest first (the report's; a status can be shorter than a report's interval). */
const connectionShown: string[] = [];

/** The line above the composer: a question waiting for the user, else the stream's trouble, else why it is busy. */
function showReason() {
  const waiting = [...questions.values()].some((x) => x.state === 'open');
  reason.textContent = waiting ? t('waiting') : busy ? (connection ? t(connection) : busyWhy || t('busy')) : '';
  reason.hidden = reason.textContent === '';
}

function setConnection(mode: string) {
  const next = mode === 'reconnecting' || mode === 'polling' ? mode : '';
  if (next === connection) {
    return;
  }
  connection = next;
  if (next) {
    connectionShown.push(t(next));
  }
  showReason();
}

/** A question of the flow, answered inline (Approve, or feedback text); sent once. */
interface Question {
  id: string;
  text: string;
  state: 'open' | 'sending' | 'answered';
  /** What was sent (`approved` or the feedback text). */
  sent: string;
  box: HTMLElement;
  approve: HTMLButtonElement;
  feedback: HTMLTextAreaElement;
  send: HTMLButtonElement;
  status: HTMLElement;
}
const questions = new Map<string, Question>();

function setQuestionState(q: Question, state: Question['state'], status?: string) {
  q.state = state;
  const open = state === 'open';
  q.approve.disabled = !open;
  q.send.disabled = !open;
  q.feedback.disabled = !open;
  q.box.classList.toggle('answered', state === 'answered');
  q.box.setAttribute('aria-busy', String(state === 'sending'));
  if (status !== undefined) {
    q.status.textContent = status;
    q.status.hidden = status === '';
  }
  showReason();
  report();
}

function answerQuestion(q: Question, feedback: string) {
  if (q.state !== 'open' || feedback.trim() === '') {
    return; // In flight or answered: a second click does nothing.
  }
  q.sent = feedback;
  setQuestionState(q, 'sending', t('sending'));
  q.status.classList.remove('error');
  api.postMessage({ type: 'feedback', questionId: q.id, feedback });
}

function showQuestion(id: string, text: string) {
  if (!answer || questions.has(id)) {
    return;
  }
  const box = el('div', 'question');
  box.setAttribute('role', 'group');
  const heading = el('p', 'asks', t('asks'));
  heading.id = `question-${questions.size}`;
  box.setAttribute('aria-labelledby', heading.id);
  const actions = el('div', 'actions');
  const approve = el('button', 'approve', t('approve'));
  approve.type = 'button';
  const feedback = el('textarea', 'feedback');
  feedback.rows = 2;
  feedback.placeholder = t('feedbackPlaceholder');
  feedback.setAttribute('aria-label', t('feedbackPlaceholder'));
  const send = el('button', 'sendFeedback', t('sendFeedback'));
  send.type = 'button';
  const status = el('p', 'status');
  status.hidden = true;
  status.setAttribute('role', 'status');
  actions.append(approve, feedback, send);
  box.append(heading, el('p', 'questionText', text), actions, status);
  answer.steps.append(box);
  const q: Question = { id, text, state: 'open', sent: '', box, approve, feedback, send, status };
  questions.set(id, q);
  approve.addEventListener('click', () => answerQuestion(q, 'approved'));
  send.addEventListener('click', () => answerQuestion(q, feedback.value));
  feedback.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      answerQuestion(q, feedback.value);
    }
  });
  setQuestionState(q, 'open');
  focusIfHere(approve); // The composer is disabled while the turn runs: the answer is what the user can do now.
}

function message(role: 'user' | 'assistant', text: string) {
  empty.remove();
  const m = el('article', `message ${role}`);
  const head = el('header', 'head');
  head.append(el('span', 'who', role === 'user' ? t('you') : t('flow')));
  const copy = el('button', 'copy', t('copy'));
  copy.type = 'button';
  copy.title = t('copy');
  head.append(copy);
  const steps = el('div', 'steps');
  const body = el('div', 'body');
  const node = document.createTextNode(text);
  body.append(node);
  m.append(head, steps, body);
  transcript.append(m);
  const entry: Entry = { message: m, body, text: node, steps, raw: text, pending: '' };
  if (role === 'assistant') {
    body.textContent = '';
    newPiece(entry);
    appendText(entry, text);
  }
  copy.addEventListener('click', () => api.postMessage({ type: 'copy', text: entry.raw }));
  return entry;
}

/**
 * Whether the page follows the conversation down: true until the user scrolls up, again once back at the bottom.
 * Decided by scrolling, not after each addition: a tall addition (a question box) must not stop the following.
 */
let following = true;
window.addEventListener('scroll', () => {
  following = window.innerHeight + window.scrollY >= document.body.scrollHeight - 80;
});

function scrollDown() {
  if (following) {
    window.scrollTo(0, document.body.scrollHeight);
  }
}

function setBusy(why: string | undefined) {
  if (gone && why === undefined) {
    return; // closed for good: nothing sent here can arrive
  }
  busy = why !== undefined;
  busyWhy = why ?? '';
  input.disabled = busy;
  sendButton.disabled = busy;
  if (unsure && !unsure.checking) {
    unsure.check.disabled = busy; // Checked between turns, as a message is sent.
  }
  if (!busy) {
    connection = '';
  }
  showReason();
  if (!busy) {
    focusIfHere(input);
  }
  report();
}

/**
 * Moves the keyboard within the page only while the page has it: a turn that ends while the user is in an
 * editor or a quick input (Set Token after a 401) must not take the keyboard from there.
 */
function focusIfHere(element: HTMLElement) {
  if (document.hasFocus()) {
    element.focus();
  }
}

function submit() {
  const text = input.value;
  if (busy || text.trim() === '') {
    return;
  }
  lastSent = text;
  input.value = '';
  following = true; // The user's own message: show it and its answer.
  api.postMessage({ type: 'send', text });
}

let reportQueued = false;
let lastReportAt = -Infinity;
/** Tests only: the report carries the whole transcript, so a long answer streaming is reported 4 times a second, not 60. */
const REPORT_EVERY_MS = 250;
function report() {
  if (!probe || reportQueued) {
    return;
  }
  reportQueued = true;
  const wait = lastReportAt + REPORT_EVERY_MS - performance.now();
  const later = (run: () => void) => (wait > 0 ? setTimeout(() => requestAnimationFrame(run), wait) : requestAnimationFrame(run));
  later(() => {
    reportQueued = false;
    lastReportAt = performance.now();
    api.postMessage({
      type: 'report',
      report: {
        transcript: [...transcript.querySelectorAll('.message')].map((m) => `${m.classList.contains('user') ? 'user' : 'assistant'}: ${(m.querySelector('.body') as HTMLElement).textContent ?? ''}`),
        busy,
        busyReason: reason.textContent ?? '',
        steps: transcript.querySelectorAll('details.step').length,
        questions: [...questions.values()].map((q) => ({ text: q.text, state: q.state })),
        focused: document.activeElement?.className ?? '',
        notes: [...transcript.querySelectorAll('.note')].map((n) => n.textContent ?? ''),
        connectionShown: [...connectionShown],
        composer: input.value,
        checkOffered: unsure !== undefined && !unsure.check.disabled,
        stepTitles: [...transcript.querySelectorAll('details.step > summary')].map((s) => s.textContent ?? ''),
        gone: gone?.text ?? '',
        goneActions: gone?.actions.map((b) => b.textContent ?? '') ?? [],
        feedbackButton: feedbackLook(),
        theme: document.body.dataset.vscodeThemeName ?? '',
      },
    });
  });
}

/** The last question's Send Feedback as drawn, and the background behind it (what a user tells a button by). */
function feedbackLook(): { background: string; border: string; behind: string } | undefined {
  const q = [...questions.values()].at(-1);
  if (!q) {
    return undefined;
  }
  const look = getComputedStyle(q.send);
  return { background: look.backgroundColor, border: `${look.borderTopWidth} ${look.borderTopStyle} ${look.borderTopColor}`, behind: getComputedStyle(q.box).backgroundColor };
}

input.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    submit();
  } else if (e.key === 'ArrowUp' && input.value === '' && lastSent) {
    e.preventDefault();
    input.value = lastSent;
  }
});
sendButton.addEventListener('click', submit);
document.addEventListener('focusin', () => report());
if (probe) {
  // A theme change redraws the page without a message: reported, so a test sees the colours it drew.
  const observer = new MutationObserver(() => report());
  observer.observe(document.body, { attributes: true, attributeFilter: ['class', 'data-vscode-theme-name', 'data-vscode-theme-kind'] });
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['style'] }); // the theme's colours
}

window.addEventListener('message', (event: MessageEvent<HostMessage>) => {
  const m = event.data;
  switch (m.type) {
    case 'strings':
      strings = m.strings;
      input.placeholder = t('placeholder');
      input.setAttribute('aria-label', t('placeholder'));
      sendButton.textContent = t('send');
      empty.textContent = t('empty');
      openMarkdown.textContent = t('openMarkdown');
      break;
    case 'submit':
      input.value = m.text;
      submit();
      break;
    case 'user':
      message('user', m.text);
      break;
    case 'history':
      // A reopened session: the conversation so far, as the flow's history has it (text only, like the rest).
      for (const entry of m.messages) {
        const shown = message(entry.role, entry.text);
        if (entry.notShown) {
          shown.message.append(el('p', 'note', t('notShown').replace('{0}', entry.notShown.toLocaleString())));
        }
      }
      if (m.note) {
        transcript.append(el('p', 'note error', m.note));
      }
      following = true;
      break;
    case 'answerStart':
      if (m.again && unsure) {
        // Check found the message: its answer in its place, the note that it may not have arrived gone.
        answer = unsure.entry;
        unsure.note?.remove();
        unsure.check.remove();
        unsure.found?.remove();
        unsure = undefined;
      } else {
        answer = message('assistant', '');
      }
      answer.message.classList.add('streaming');
      break;
    case 'update': {
      const u = m.update;
      if (!answer) {
        break;
      }
      if (u.kind === 'mode') {
        setConnection(u.mode);
        break;
      }
      if (connection === 'reconnecting') {
        setConnection('streaming'); // Something came: the stream is back.
      }
      if (u.kind === 'text') {
        answer.pending += u.text; // on the page at the next frame, with whatever else comes before it
        answer.raw += u.text;
        queueFrame();
        return;
      }
      flushPending(); // Whatever else comes goes after the text before it.
      if (u.kind === 'step') {
        const step = el('details', 'step');
        // In words ("Used search_knowledge_base"), not the flow's event name.
        const title = u.event === undefined ? u.title : stepTitle(u.event, u.tool, { toolUsed: t('toolUsed'), toolUsing: t('toolUsing'), toolFailed: t('toolFailed'), step: t('step') });
        const summary = el('summary', undefined, title);
        step.append(summary, el('div', 'detail', u.detail));
        answer.steps.append(step);
      } else if (u.kind === 'question') {
        showQuestion(u.id, u.text);
      } else if (u.kind === 'questionAnswered') {
        for (const q of questions.values()) {
          if (q.state !== 'answered') {
            setQuestionState(q, 'answered', q.status.textContent && q.state === 'sending' ? undefined : t('answeredElsewhere'));
          }
        }
      } else if (u.kind === 'note') {
        answer.steps.append(el('p', 'note', u.text));
      }
      break;
    }
    case 'answerEnd':
      setConnection('');
      for (const q of questions.values()) {
        if (q.state !== 'answered') {
          setQuestionState(q, 'answered'); // The turn is over: nothing waits for an answer any more.
        }
      }
      if (answer) {
        flushPending();
        answer.message.classList.remove('streaming');
        const final = m.outcome.answer;
        // The history is the truth: a streamed text that differs (chunks buffered by a proxy) is replaced once.
        if (m.outcome.kind === 'completed' && typeof final === 'string' && final !== answer.raw) {
          answer.body.textContent = '';
          newPiece(answer);
          appendText(answer, final);
          answer.raw = final;
        }
        const note = m.note ? el('p', 'note error', m.note) : undefined;
        if (note) {
          answer.message.append(note);
        }
        if (m.check) {
          offerCheck(answer, note);
        }
        lastAnswer = answer;
        answer = undefined;
      } else if (m.note) {
        transcript.append(el('p', 'note error', m.note));
      }
      // Not taken: the text is back where it was typed, unless something new was typed since (never one that may have arrived).
      if (m.restore !== undefined && input.value === '') {
        input.value = m.restore;
      }
      break;
    case 'busy':
      setBusy(m.reason);
      break;
    case 'gone':
      showGone();
      break;
    case 'draft':
      if (input.value === '') {
        input.value = m.text;
      }
      break;
    case 'checkResult':
      if (unsure) {
        if (!unsure.found) {
          unsure.found = el('p', 'note');
          unsure.found.setAttribute('role', 'status');
          unsure.entry.message.append(unsure.found);
        }
        unsure.found.textContent = m.note;
        unsure.checking = false;
        unsure.check.disabled = busy;
      }
      break;
    case 'check':
      unsure?.check.click();
      break;
    case 'feedbackResult': {
      const q = questions.get(m.questionId);
      if (!q) {
        break;
      }
      if (m.state === 'sent') {
        setQuestionState(q, 'answered', q.sent === 'approved' ? t('approved') : t('answered').replace('{0}', q.sent));
      } else {
        q.status.classList.add('error');
        setQuestionState(q, m.state === 'refused' ? 'open' : 'sending', m.note ?? '');
        if (m.state === 'refused') {
          focusIfHere(q.approve);
        }
      }
      break;
    }
  }
  scrollDown();
  report();
});

api.postMessage({ type: 'ready' });
