// Extension-host side of the UI bridge (protocol in uiBridgeProtocol.ts): ask the runner's
// Playwright page to type, press keys, take screenshots or read DOM text.
import * as fs from 'fs';
import * as path from 'path';
import {
  type DemoResult,
  type FocusLogRequest,
  type FocusLogResult,
  type FramesResult,
  type QuickInputGuard,
  type ScreenshotResult,
  type TextResult,
  type WindowResult,
  UI_BRIDGE_DIR_ENV,
  UI_REQUEST_MARKER,
  type UiReply,
  type UiRequestBody,
  type UiRequestType,
  type UiResultMap,
} from './uiBridgeProtocol';

/** How long to wait for the runner's answer on top of any wait inside the request itself. */
const REPLY_MARGIN_MS = 15_000;
let requestCounter = 0;

/** True when running under the browser runner, which serves the bridge. */
export function uiBridgeAvailable(): boolean {
  return Boolean(process.env[UI_BRIDGE_DIR_ENV]);
}

async function request<T extends UiRequestType>(body: Extract<UiRequestBody, { type: T }>, waitMs = 0): Promise<UiResultMap[T]> {
  const dir = process.env[UI_BRIDGE_DIR_ENV];
  if (!dir) {
    throw new Error(`UI bridge unavailable: ${UI_BRIDGE_DIR_ENV} is not set (only the browser runner provides it; guard with ui.available())`);
  }
  const id = `ui-${process.pid}-${Date.now()}-${++requestCounter}`;
  const file = path.join(dir, `${id}.json`);
  console.log(`${UI_REQUEST_MARKER}${JSON.stringify({ id, ...body })}`);

  const timeoutMs = waitMs + REPLY_MARGIN_MS;
  const deadline = Date.now() + timeoutMs;
  while (!fs.existsSync(file)) {
    if (Date.now() > deadline) {
      throw new Error(`UI bridge: no reply to '${body.type}' request ${id} within ${timeoutMs} ms (is the runner reading the host's console?)`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const reply = JSON.parse(fs.readFileSync(file, 'utf8')) as UiReply<T>;
  fs.rmSync(file, { force: true });
  if (!reply.ok) {
    throw new Error(`UI bridge: ${reply.error}`);
  }
  return reply.result;
}

export const ui = {
  available: uiBridgeAvailable,

  /**
   * Types into whatever has keyboard focus in the workbench. With `quickInput`, only into the open
   * quick input once it is in that state (see QuickInputGuard): the way to answer a quick input.
   */
  async type(text: string, options: { enter?: boolean; quickInput?: QuickInputGuard & { replace?: boolean }; window?: string } = {}): Promise<void> {
    const { enter, quickInput, window } = options;
    await request<'type'>({ type: 'type', text, enter, quickInput, window }, quickInput ? 4 * (quickInput.timeoutMs ?? 5000) : 0);
  },

  /** Presses a Playwright key chord: "Enter", "Escape", "ArrowDown", "Control+Shift+P"; with `quickInput`, as for type. */
  async press(key: string, options: { quickInput?: QuickInputGuard; window?: string } = {}): Promise<void> {
    await request<'press'>({ type: 'press', key, quickInput: options.quickInput, window: options.window }, options.quickInput?.timeoutMs ?? 0);
  },

  /** Clicks the first visible element matching a CSS selector (it takes the keyboard focus, as a user's click does). */
  async click(selector: string, options: { timeoutMs?: number; window?: string } = {}): Promise<void> {
    await request<'click'>({ type: 'click', selector, timeoutMs: options.timeoutMs, window: options.window }, options.timeoutMs ?? 5000);
  },

  /** Saves test-results/<name>.png (of `selector`'s element, or the page) and measures it. */
  screenshot(name: string, options: { selector?: string; window?: string } = {}): Promise<ScreenshotResult> {
    return request<'screenshot'>({ type: 'screenshot', name, selector: options.selector, window: options.window }, 5000);
  },

  /** innerText of the first element matching a CSS selector, e.g. '.quick-input-widget'. */
  async text(selector: string, options: { timeoutMs?: number; window?: string; visibleOnly?: boolean; hover?: boolean } = {}): Promise<string> {
    const result: TextResult = await request<'text'>({ type: 'text', selector, timeoutMs: options.timeoutMs, window: options.window, visibleOnly: options.visibleOnly, hover: options.hover }, options.timeoutMs ?? 5000);
    return result.text;
  },

  /** innerText of the first element matching `selector` as the page is now (no wait), undefined when none does. */
  async textIfPresent(selector: string, options: { window?: string } = {}): Promise<string | undefined> {
    const result: TextResult = await request<'text'>({ type: 'text', selector, now: true, window: options.window });
    return result.absent ? undefined : result.text;
  },

  /**
   * Every element matching a CSS selector as the page is now (no wait): its innerText (`text`) and the characters of
   * it a user sees (`drawn`, as `visibleOnly` reads them), both read in one look.
   */
  async drawnTexts(selector: string, options: { window?: string } = {}): Promise<{ text: string; drawn: string }[]> {
    const result: TextResult = await request<'text'>({ type: 'text', selector, all: true, visibleOnly: true, window: options.window });
    return (result.texts ?? []).map((text, i) => ({ text, drawn: result.drawn?.[i] ?? '' }));
  },

  /** Body text of the first frame (webviews live in nested iframes) whose text contains `contains`. */
  frameText(contains: string, options: { timeoutMs?: number; window?: string } = {}): Promise<FramesResult> {
    return request<'frames'>({ type: 'frames', contains, timeoutMs: options.timeoutMs, window: options.window }, options.timeoutMs ?? 5000);
  },

  /** With the notification center open: focuses the notification containing `contains` (see NotificationRequest). */
  async focusNotification(contains: string, options: { timeoutMs?: number; window?: string } = {}): Promise<string> {
    const result = await request<'notification'>({ type: 'notification', contains, timeoutMs: options.timeoutMs, window: options.window }, options.timeoutMs ?? 5000);
    return result.text;
  },

  /** Starts recording what gains and loses the keyboard focus in the workbench page, or reads that and stops (see FocusLogRequest). */
  focusLog(action: FocusLogRequest['action'], options: { window?: string } = {}): Promise<FocusLogResult> {
    return request<'focusLog'>({ type: 'focusLog', action, window: options.window }, 5000);
  },

  /** Opens or closes a second window of this server (see WindowRequest; suite/support/windows.ts drives it). */
  window(action: 'open' | 'close', name: string, options: { timeoutMs?: number } = {}): Promise<WindowResult> {
    const timeoutMs = options.timeoutMs ?? 60_000;
    return request<'window'>({ type: 'window', action, name, timeoutMs }, timeoutMs);
  },

  /**
   * Opens, reloads or closes a demo window: `npm run demo`'s own server configuration in a browser
   * of its own (see DemoRequest); drive it with `window: name` on the other requests.
   */
  demo(action: 'open' | 'reload' | 'close', name: string, options: { timeoutMs?: number } = {}): Promise<DemoResult> {
    const timeoutMs = options.timeoutMs ?? 60_000;
    return request<'demo'>({ type: 'demo', action, name, timeoutMs }, timeoutMs);
  },
};

/** Well-known workbench selectors, so tests do not scatter them. */
export const selectors = {
  sideBar: '.part.sidebar',
  panel: '.part.panel',
  quickInput: '.quick-input-widget',
  /** The quick input while open: during its close animation it is still displayed, with the old content. */
  openQuickInput: '.quick-input-widget:visible:not(.quick-input-widget-closing)',
  notifications: '.notifications-toasts',
  statusBar: '.part.statusbar',
} as const;
