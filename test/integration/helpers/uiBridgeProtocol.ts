// The UI bridge's wire format, shared by the extension-host side (helpers/ui.ts) and the
// Playwright side (runner/uiBridge.ts). No `vscode` import here: the runner compiles it too.
//
// A test in the extension host asks the page for something by logging ONE line:
//   @@UI {"id":"…","type":"press","key":"Escape"}
// The runner sees the line in `codeAutomationLog`, acts with Playwright and writes the reply as
// `<id>.json` (atomically: write a temp file, then rename) into the directory named by
// CREW_RUNS_UI_BRIDGE_DIR. The host-side helper polls for that file until its deadline.

/** Prefix of a bridge request line in the extension host's console output. */
export const UI_REQUEST_MARKER = '@@UI ';

/** Environment variable (server → extension host) naming the reply directory. */
export const UI_BRIDGE_DIR_ENV = 'CREW_RUNS_UI_BRIDGE_DIR';

/** Line the suite entry logs when mocha starts: the runner prints host output from there on. */
export const SUITE_START_MARKER = '@@SUITE-START';

/** Prefix of the line the suite entry logs with its final mocha counts. */
export const RESULT_MARKER = '@@RESULT ';

// ---- Window reloads (see helpers/reload.ts and the runner's header) ----

/** Environment variable (server → extension host): a directory that survives window reloads, for the phase state. */
export const STATE_DIR_ENV = 'CREW_RUNS_TEST_STATE_DIR';

/** Environment variables (server → extension host) choosing the compiled test files of a session (comma-separated, relative to the suite folder). */
export const ONLY_FILES_ENV = 'CREW_RUNS_TEST_ONLY_FILES';
export const SKIP_FILES_ENV = 'CREW_RUNS_TEST_SKIP_FILES';

/** Environment variable (server → extension host): a regular expression; tests whose full title matches it are left out of the session (ignored when CREW_RUNS_TEST_GREP is set). */
export const SKIP_TESTS_ENV = 'CREW_RUNS_TEST_SKIP_TESTS';

/** Key (Symbol.for) of what the withoutChat session's shim leaves on globalThis (runner/withoutChat.ts, suite/withoutChat.test.ts). */
export const WITHOUT_CHAT_PROBE = 'crewRuns.test.withoutChat';

/** Environment variable (server → extension host): the mocha package the suite entry loads instead of the project's (the floor session's older Node). */
export const MOCHA_DIR_ENV = 'CREW_RUNS_TEST_MOCHA_DIR';

/**
 * A test file containing this text (a comment is enough; tsc keeps comments) reloads the window:
 * the runner gives it a session of its own, after the main one.
 */
export const RELOAD_SESSION_MARKER = '@crew-runs-reload-session';

/**
 * A test file containing this text runs in a session of its own without reloading (e.g. a suite
 * that opens a second window: its extra extension host should not weigh on the other suites).
 */
export const OWN_SESSION_MARKER = '@crew-runs-own-session';

/** Prefix of the line a phase logs with its mocha counts so far, right before it reloads the window. */
export const PHASE_RESULT_MARKER = '@@PHASE-RESULT ';

/**
 * Prefix of the line a phase logs at its end: seconds spent in each test file (relative to the
 * suite folder), which the runner adds up per session and prints, slowest first.
 */
export const FILE_TIMES_MARKER = '@@FILE-TIMES ';

/** Starts the line the suite logs for each failed test (full title, then the error's first line). */
export const FAILURE_MARKER = '      ✖ ';

/** Name of the phase state file in the state directory. */
export const STATE_FILE = 'state.json';

/** Content of the phase state file; written by the extension host, read by the runner for its messages. */
export interface PhaseState {
  /** The phase the next suite start is in (0 before the first reload). */
  phase: number;
  /** One entry per reload: which phase asked for it, from which extension host, when. */
  reloads: { fromPhase: number; pid: number; at: number }[];
  /** What tests before a reload recorded for the tests after it. */
  data: Record<string, unknown>;
}

export interface SuiteResult {
  passed: number;
  failed: number;
  pending: number;
}

/**
 * The quick input state an action needs, checked by the runner right before it acts (no round trip
 * between the check and the keys). A quick input is open when it is displayed and not in its
 * 150 ms close animation (class quick-input-widget-closing, inert, still showing the old content),
 * and it must hold the keyboard focus.
 */
export interface QuickInputGuard {
  /** The open quick input's text (title, prompt, items, message) contains this … */
  contains?: string;
  /** … and matches this regular expression. */
  matches?: { source: string; flags: string };
  /** The active (focused) item of a quick pick contains this: before a key pressed, or before the Enter after typed text. */
  activeItem?: string;
  /** How long the runner waits for that state (default 5000 ms). */
  timeoutMs?: number;
}

export interface TypeRequest {
  type: 'type';
  /** Act in this window (opened with a `window` request) instead of the test's own. */
  window?: string;
  /** Typed with the keyboard into whatever has focus (e.g. a quick input). */
  text: string;
  /** Press Enter afterwards. */
  enter?: boolean;
  /**
   * Type into the quick input only: wait for `guard`'s state first; with `replace`, clear the box
   * and see it empty; after typing, wait until the box holds the text before any Enter.
   */
  quickInput?: QuickInputGuard & { replace?: boolean };
}

export interface PressRequest {
  type: 'press';
  /** Act in this window (opened with a `window` request) instead of the test's own. */
  window?: string;
  /** A Playwright key chord: "Enter", "Escape", "ArrowDown", "Control+Shift+P". */
  key: string;
  /** Press in the quick input only, once it is in this state. */
  quickInput?: QuickInputGuard;
}

export interface ScreenshotRequest {
  type: 'screenshot';
  /** Act in this window (opened with a `window` request) instead of the test's own. */
  window?: string;
  /** File name without extension; saved as test-results/<name>.png. */
  name: string;
  /** Measure (and clip to) this element instead of the whole page. */
  selector?: string;
}

export interface TextRequest {
  type: 'text';
  /** Act in this window (opened with a `window` request) instead of the test's own. */
  window?: string;
  /** CSS selector; the first match's innerText is returned. */
  selector: string;
  /** How long the runner waits for the selector to appear (default 5000 ms). */
  timeoutMs?: number;
  /**
   * Answers from the page as it is now, without waiting for the selector: `absent` when nothing
   * matches. For "is it there?": a short wait cannot tell "not there" from "the page was slow to answer".
   */
  now?: boolean;
  /**
   * Only the characters a user sees: those not cut off by an ancestor that hides its overflow (an
   * ellipsis covers the last ones). What innerText cannot tell: a tree row's state cut by its icons.
   */
  visibleOnly?: boolean;
  /** Moves the pointer over the element first, as a user does: a tree row then shows its inline actions. */
  hover?: boolean;
  /** Every element matching `selector`, as the page is now (no wait): their texts in `texts`, in order. */
  all?: boolean;
}

export interface FramesRequest {
  type: 'frames';
  /** Act in this window (opened with a `window` request) instead of the test's own. */
  window?: string;
  /** Substring to look for in the body text of the page's frames (webviews are nested iframes). */
  contains: string;
  /** How long the runner keeps looking (default 5000 ms). */
  timeoutMs?: number;
}

export interface ClickRequest {
  type: 'click';
  /** Act in this window (opened with a `window` request) instead of the test's own. */
  window?: string;
  /** Clicks the first visible element matching this CSS selector, as a user's mouse would (it takes the focus). */
  selector: string;
  /** How long the runner waits for the element (default 5000 ms). */
  timeoutMs?: number;
}

export interface NotificationRequest {
  type: 'notification';
  /** Act in this window (opened with a `window` request) instead of the test's own. */
  window?: string;
  /**
   * With the notification center open: moves the keyboard focus in its list to the notification
   * whose text contains this (the newest is not always the one a test means: another may arrive
   * after it), so notification.acceptPrimaryAction acts on that one. Answers with the row's text.
   */
  contains: string;
  /** How long the runner waits for the row (default 5000 ms). */
  timeoutMs?: number;
}

export interface FocusLogRequest {
  type: 'focusLog';
  /** Act in this window (opened with a `window` request) instead of the test's own. */
  window?: string;
  /**
   * The page always records what gains and loses the keyboard focus (focusin/focusout, capture phase) and
   * the keys pressed, its last 200. `start`: marks now; `read`: what came since the mark; `recent`: all it
   * keeps (what a failed test prints).
   */
  action: 'start' | 'read' | 'recent';
}

export interface FocusLogResult {
  entries: {
    event: 'focusin' | 'focusout' | 'keydown';
    element: string;
    inQuickInput: boolean;
    key?: string;
    atMs?: number;
    /** `recent` focusins: the functions on the stack that moved the focus (innermost first). */
    movedBy?: string;
  }[];
}

export interface ReloadRequest {
  type: 'reload';
  /** The phase that asks; the runner expects phase + 1 to start next. */
  phase: number;
  /**
   * 'command' (default): the runner answers, then the test runs workbench.action.reloadWindow, as a
   * user would (the workbench saves its UI state first, so editors and webviews are restored).
   * 'page': the runner reloads the browser page itself, like F5 (the web workbench cannot save its
   * state during unload: only what it saved before, every 5 s while idle, is restored).
   * 'sever': the runner first cuts the page off the server without a goodbye (reload sessions reach
   * the server through a relay; see runner/relay.ts), then reloads it: the old extension host is
   * left waiting for its window, still running, as after a crashed tab or a dropped connection.
   */
  via?: 'command' | 'page' | 'sever';
}

/**
 * A second workbench window on the same server and folder ('open'), as a user opens a second
 * VS Code window: a page in the same browser context, so it shares globalState (IndexedDB, with
 * change broadcasts between pages), SecretStorage (localStorage, the same /mint-key answer) and the
 * extension's storage on the server; it gets its own extension host, which runs the peer agent
 * (helpers/peer.ts) instead of the suite. 'close' closes the page as a user closes the window
 * (unload handlers run) and waits until its extension host process has exited.
 */
export interface WindowRequest {
  type: 'window';
  action: 'open' | 'close';
  /** A plain name ([A-Za-z0-9_-]); its peer directory is <bridge dir>/windows/<name>. */
  name: string;
  /** How long to wait for the page to load or the extension host to exit (default 60000 ms). */
  timeoutMs?: number;
}

/**
 * A demo window: the runner starts a VS Code server in the demo's own configuration (what
 * `npm run demo` starts: no smoke-test driver, so toasts and dialogs show as for a user; the
 * extension installed; the demo crews started by the extension) and opens a page on it in a browser
 * context of its own. No test runs there: requests naming it as `window` drive it from outside.
 * 'reload' reloads its page as F5 does; 'close' closes the page and stops its server.
 */
export interface DemoRequest {
  type: 'demo';
  action: 'open' | 'reload' | 'close';
  /** A plain name ([A-Za-z0-9_-]), used as `window` by the other requests. */
  name: string;
  /** How long to wait for the server and the page (default 60000 ms). */
  timeoutMs?: number;
}

export interface DemoResult {
  /** The workbench URL the demo prints. */
  url: string;
}

export type UiRequestBody = TypeRequest | PressRequest | ClickRequest | ScreenshotRequest | TextRequest | FramesRequest | NotificationRequest | FocusLogRequest | ReloadRequest | WindowRequest | DemoRequest;
export type UiRequestType = UiRequestBody['type'];
export type UiRequest = UiRequestBody & { id: string };

export interface ScreenshotResult {
  /** Absolute path of the saved PNG. */
  path: string;
  bytes: number;
  width: number;
  height: number;
  /** Distinct RGB colours inside the measured region: 1 means blank. */
  distinctColours: number;
}

export interface TextResult {
  text: string;
  /** A `now` request whose selector matched nothing (text is then empty). */
  absent?: boolean;
  /** An `all` request: the text of each element matched, in the page's order … */
  texts?: string[];
  /** … and, `visibleOnly`, what of each is in sight, read in the same look. */
  drawn?: string[];
}

export interface WindowResult {
  /** The peer directory of the window (requests and replies of its agent). */
  peerDir: string;
  /** On close: the pid of the window's extension host, gone by the time of the answer. */
  exitedPid?: number;
}

export interface FramesResult {
  text: string;
  url: string;
}

/** What each request type answers with. */
export interface UiResultMap {
  type: Record<string, never>;
  press: Record<string, never>;
  click: Record<string, never>;
  screenshot: ScreenshotResult;
  text: TextResult;
  frames: FramesResult;
  notification: TextResult;
  focusLog: FocusLogResult;
  /** Never answered: the extension host that asked is gone once it is served. */
  reload: Record<string, never>;
  window: WindowResult;
  demo: DemoResult;
}

export type UiReply<T extends UiRequestType = UiRequestType> =
  | { id: string; ok: true; result: UiResultMap[T] }
  | { id: string; ok: false; error: string };

const REQUEST_TYPES: readonly UiRequestType[] = ['type', 'press', 'click', 'screenshot', 'text', 'frames', 'notification', 'focusLog', 'reload', 'window', 'demo'];

// ---- Peer windows (helpers/peer.ts; the agent in a second window's extension host) ----

/** Sub-directory of the UI bridge directory holding one folder per peer window. */
export const PEER_WINDOWS_DIR = 'windows';

/** In a peer folder: written by the agent once the extension is active (content: PeerReady). */
export const PEER_READY_FILE = 'ready.json';
/** In a second window's dir: each notification it showed, one JSON line each, written as it was shown. */
export const SHOWN_FILE = 'shown.jsonl';

export interface PeerReady {
  /** The window's extension host process. */
  pid: number;
}

/** A request to the agent: `<peer dir>/requests/<id>.json`; the reply: `<peer dir>/replies/<id>.json`. */
export type PeerRequestBody =
  /** Runs a command in that window; the answer is its JSON-serialisable result. */
  | { type: 'command'; command: string; args: unknown[] }
  /** Kicks off in that window without the review (its test API); the answer is the run id or null. */
  | { type: 'kickOff'; crew: string; inputs: Record<string, string> }
  /** The runs as that window's store has them. */
  | { type: 'runs' }
  /** That window's crews tree: root rows and their children. */
  | { type: 'tree' }
  /** That window's copies of the batches (as its store has them), after re-reading them first when `refresh`, as its 30 s tick does. */
  | { type: 'batches'; refresh: boolean }
  /** Every notification the extension asked for in that window since the agent started. */
  /**
   * From now on, modal warnings in that window are answered with this item (null: dismissed);
   * the workbench refuses to show modal dialogs under the smoke-test driver.
   */
  | { type: 'answerModals'; answer: string | null };
export type PeerRequest = PeerRequestBody & { id: string };

export type PeerReply = { id: string; ok: true; result: unknown } | { id: string; ok: false; error: string };

/** Parses a console line into a request, or undefined when the line is not one. */
export function parseUiRequest(line: string): UiRequest | undefined {
  const start = line.indexOf(UI_REQUEST_MARKER);
  if (start < 0) {
    return undefined;
  }
  try {
    const value: unknown = JSON.parse(line.slice(start + UI_REQUEST_MARKER.length));
    if (typeof value !== 'object' || value === null) {
      return undefined;
    }
    const candidate = value as { id?: unknown; type?: unknown };
    if (typeof candidate.id !== 'string' || !REQUEST_TYPES.includes(candidate.type as UiRequestType)) {
      return undefined;
    }
    return value as UiRequest;
  } catch {
    return undefined;
  }
}
