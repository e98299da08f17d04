// Runner side of the UI bridge: answers requests that tests in the extension host log as
// `@@UI {…}` lines (see helpers/uiBridgeProtocol.ts) by driving the page with Playwright.
import * as fs from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import {
  type FocusLogRequest,
  type FocusLogResult,
  type FramesRequest,
  type NotificationRequest,
  type PressRequest,
  type QuickInputGuard,
  type FramesResult,
  type ReloadRequest,
  type ScreenshotRequest,
  type ScreenshotResult,
  type TextRequest,
  type TextResult,
  type TypeRequest,
  type UiReply,
  type UiRequest,
  UI_REQUEST_MARKER,
} from '../helpers/uiBridgeProtocol';
import type { DemoWindows } from './demoWindows';
import type { PeerWindows } from './windows';

const DEFAULT_WAIT_MS = 5000;

interface BrowserElement {
  innerText: string;
  textContent: string | null;
  getClientRects(): { length: number };
  cloneNode(deep: true): BrowserElement;
  querySelectorAll(selector: string): { forEach(callback: (node: { remove(): void }) => void): void };
}

interface QueryableElement {
  innerText: string;
  value?: string;
  inert?: boolean;
  classList: { contains(name: string): boolean };
  getClientRects(): { length: number };
  contains(other: unknown): boolean;
  querySelector(selector: string): QueryableElement | null;
}

/** What the runner sees of the quick input right before it acts. */
interface QuickInputProbe {
  /** Displayed and not closing. */
  open: boolean;
  text: string;
  /** Keyboard focus is inside it. */
  focused: boolean;
  /** The value of its input box. */
  value?: string;
  /** The box is a password box: its value is never quoted in an error. */
  password?: boolean;
  /** Text of a quick pick's active item. */
  activeItem?: string;
  /** Where the keyboard focus is (what took it, for the error). */
  focus?: string;
}

/** The few browser globals used inside page.evaluate (the runner compiles without the DOM lib). */
interface BrowserGlobals {
  Image: new () => { src: string; naturalWidth: number; naturalHeight: number; decode(): Promise<void> };
  document: {
    body: BrowserElement | null;
    activeElement: unknown;
    querySelectorAll(selector: string): ArrayLike<QueryableElement>;
    createElement(tag: 'canvas'): {
      width: number;
      height: number;
      getContext(kind: '2d'): {
        drawImage(image: unknown, x: number, y: number): void;
        getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
      } | null;
    };
  };
}

/** The little of the DOM that measuring drawn characters needs (the runner compiles without the DOM library). */
interface MeasuredNode {
  parentElement: MeasuredNode | null;
  scrollWidth: number;
  clientWidth: number;
  textContent: string | null;
  getBoundingClientRect(): { right: number; width: number };
}
interface MeasuringDocument {
  createRange(): { setStart(node: MeasuredNode, offset: number): void; setEnd(node: MeasuredNode, offset: number): void; getBoundingClientRect(): { right: number; width: number } };
  createTreeWalker(root: MeasuredNode, show: number): { nextNode(): MeasuredNode | null };
}

/**
 * A line of the page's console for the session's browser-console log. The UI bridge's requests travel on that
 * console, and a `type` request carries the text typed, which may be a token: the log keeps its length only.
 */
export function consoleLogLine(level: string, text: string): string {
  const line = text.includes(UI_REQUEST_MARKER) && text.includes('"type":"type"') ? text.replace(/"text":"((?:[^"\\]|\\.)*)"/, (_all, typed: string) => `"text":"(${(JSON.parse(`"${typed}"`) as string).length} characters typed)"`) : text;
  return `[${level}] ${line}\n`;
}

/**
 * The characters of an element a user sees: those not cut off by an ancestor that hides its overflow (an ellipsis
 * covers the last ones). Run in the page (self-contained: Playwright sends its source).
 */
function drawnText(drawn: unknown): { whole: string; drawn: string } {
  const element = drawn as unknown as MeasuredNode & { innerText: string };
  const document = (globalThis as unknown as { document: MeasuringDocument }).document;
  // The nearest right edge that clips the element: its own box and every ancestor hiding overflow.
  let clip = Infinity;
  for (let node: MeasuredNode | null = element; node; node = node.parentElement) {
    if (node === element || node.scrollWidth > node.clientWidth) {
      clip = Math.min(clip, node.getBoundingClientRect().right);
    }
  }
  const range = document.createRange();
  const walker = document.createTreeWalker(element, 4 /* NodeFilter.SHOW_TEXT */);
  const chars: { char: string; right: number }[] = [];
  let cut = false;
  for (let node = walker.nextNode(); node && !cut; node = walker.nextNode()) {
    const value = node.textContent ?? '';
    for (let i = 0; i < value.length; i++) {
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const box = range.getBoundingClientRect();
      if (box.width > 0 && box.right > clip) {
        cut = true;
        break;
      }
      chars.push({ char: value[i], right: box.right });
    }
    chars.push({ char: ' ', right: 0 });
  }
  // Where the text is cut, its ellipsis (about 10 px) covers the characters just before the edge.
  while (cut && chars.length && chars[chars.length - 1].right > clip - 10) {
    chars.pop();
  }
  return { whole: element.innerText, drawn: chars.map((c) => c.char).join('').replace(/\s+/g, ' ').trim() };
}

export class UiBridge {
  /** Requests are served one at a time so keyboard input never interleaves. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    /** The test's own window. */
    private readonly mainPage: Page,
    private readonly replyDir: string,
    private readonly resultsDir: string,
    /** Serves `reload` requests (the runner reloads the page and expects the next phase). */
    private readonly onReload?: (request: ReloadRequest) => Promise<void>,
    /** Serves `window` requests, and the pages of requests naming a window. */
    private readonly windows?: PeerWindows,
    /** Serves `demo` requests, and the pages of requests naming a demo window. */
    private readonly demos?: DemoWindows,
  ) {
    this.page = mainPage;
  }

  /** The page of the request being served (requests are served one at a time). */
  private page: Page;

  private pageFor(window: string | undefined): Page {
    if (window === undefined) {
      return this.mainPage;
    }
    if (this.demos?.has(window)) {
      return this.demos.page(window);
    }
    if (!this.windows) {
      throw new Error('this runner session cannot open windows');
    }
    return this.windows.page(window);
  }

  handle(request: UiRequest): void {
    this.queue = this.queue.then(() => this.serve(request));
  }

  /** Resolves once every request seen so far has been answered. */
  idle(): Promise<void> {
    return this.queue;
  }

  private async serve(request: UiRequest): Promise<void> {
    let reply: UiReply;
    try {
      reply = { id: request.id, ok: true, result: await this.act(request) } as UiReply;
    } catch (error) {
      const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
      reply = { id: request.id, ok: false, error: `${request.type}: ${message}` };
    }
    const file = path.join(this.replyDir, `${request.id}.json`);
    try {
      // Rename is atomic: the host never reads a half-written reply.
      fs.writeFileSync(`${file}.tmp`, JSON.stringify(reply));
      fs.renameSync(`${file}.tmp`, file);
    } catch (error) {
      console.error(`[integration] could not write UI bridge reply ${file}: ${String(error)}`);
    }
  }

  private async act(request: UiRequest): Promise<unknown> {
    if (request.type === 'window') {
      if (!this.windows) {
        throw new Error('this runner session cannot open windows');
      }
      const timeoutMs = request.timeoutMs ?? 60_000;
      return request.action === 'open' ? this.windows.open(request.name, timeoutMs) : this.windows.close(request.name, timeoutMs);
    }
    if (request.type === 'demo') {
      if (!this.demos) {
        throw new Error('this runner session cannot open demo windows');
      }
      const timeoutMs = request.timeoutMs ?? 60_000;
      return request.action === 'open'
        ? this.demos.open(request.name, timeoutMs)
        : request.action === 'reload'
          ? this.demos.reload(request.name, timeoutMs)
          : this.demos.close(request.name);
    }
    this.page = request.type === 'reload' ? this.mainPage : this.pageFor(request.window);
    switch (request.type) {
      case 'type':
        if (request.quickInput) {
          await this.typeInQuickInput(request, request.quickInput);
          return {};
        }
        await this.page.keyboard.type(request.text, { delay: 10 });
        if (request.enter) {
          await this.page.keyboard.press('Enter');
        }
        return {};
      case 'press':
        if (request.quickInput) {
          await this.pressInQuickInput(request, request.quickInput);
          return {};
        }
        await this.page.keyboard.press(request.key);
        return {};
      case 'click':
        await this.page.locator(`${request.selector} >> visible=true`).first().click({ timeout: request.timeoutMs ?? DEFAULT_WAIT_MS });
        return {};
      case 'screenshot':
        return this.screenshot(request);
      case 'text':
        return this.text(request);
      case 'frames':
        return this.frames(request);
      case 'notification':
        return this.focusNotification(request);
      case 'focusLog':
        return this.focusLog(request);
      case 'reload':
        if (!this.onReload) {
          throw new Error('this runner session cannot reload the window');
        }
        await this.onReload(request);
        return {};
    }
  }

  /**
   * What gained and lost the keyboard focus in the workbench page, and the keys pressed, as the page's recorder
   * (main.ts, recordFocusAndKeys) keeps them: `start` marks now, `read` answers what came since, `recent` all it keeps.
   */
  private focusLog(request: FocusLogRequest): Promise<FocusLogResult> {
    return this.page.evaluate((action) => {
      const page = globalThis as unknown as { crewRunsRecentFocus?: (FocusLogResult['entries'][number] & { seq: number })[]; crewRunsFocusMark?: number };
      const recorded = page.crewRunsRecentFocus ?? [];
      const last = recorded.at(-1)?.seq ?? 0;
      if (action === 'start') {
        page.crewRunsFocusMark = last;
        return { entries: [] };
      }
      const since = action === 'read' ? (page.crewRunsFocusMark ?? last) : 0;
      return { entries: recorded.filter((entry) => entry.seq > since).map(({ seq: _seq, ...entry }) => entry) };
    }, request.action);
  }

  /** The open quick input as the page has it now. */
  private probeQuickInput(): Promise<QuickInputProbe> {
    return this.page.evaluate(() => {
      const { document } = globalThis as unknown as BrowserGlobals;
      const widget = Array.from(document.querySelectorAll('.quick-input-widget')).find(
        (element) => element.getClientRects().length > 0 && !element.classList.contains('quick-input-widget-closing') && !element.inert,
      );
      const active = document.activeElement as { tagName?: string; className?: unknown; getAttribute?(name: string): string | null } | null;
      const focus = active?.tagName
        ? `${active.tagName.toLowerCase()}.${String(active.className).trim().split(/\s+/).slice(0, 3).join('.')} ${JSON.stringify(active.getAttribute?.('aria-label') ?? '')}`
        : 'nothing';
      if (!widget) {
        return { open: false, text: '', focused: false, focus };
      }
      return {
        open: true,
        focus,
        text: widget.innerText,
        focused: document.activeElement !== null && widget.contains(document.activeElement),
        value: widget.querySelector('.quick-input-box input')?.value,
        password: widget.querySelector('.quick-input-box input[type="password"]') !== null,
        activeItem: widget.querySelector('.monaco-list-row.focused')?.innerText,
      };
    });
  }

  /**
   * Waits until the quick input is open, focused and in `guard`'s state, and `extra` (if given)
   * holds; throws with what it showed last.
   */
  private async waitForQuickInput(guard: QuickInputGuard, what: string, extra?: (probe: QuickInputProbe) => string | undefined): Promise<QuickInputProbe> {
    const deadline = Date.now() + (guard.timeoutMs ?? DEFAULT_WAIT_MS);
    const pattern = guard.matches ? new RegExp(guard.matches.source, guard.matches.flags) : undefined;
    for (;;) {
      const probe = await this.probeQuickInput();
      const problem = !probe.open
        ? `no quick input is open (the keyboard focus is on ${probe.focus ?? 'nothing'})`
        : guard.contains !== undefined && !probe.text.includes(guard.contains)
          ? `it does not show ${JSON.stringify(guard.contains)}`
          : pattern && !pattern.test(probe.text)
            ? `it does not match ${String(pattern)}`
            : !probe.focused
              ? `it does not have the keyboard focus (${probe.focus ?? 'nothing'} has it)`
              : extra?.(probe);
      if (problem === undefined) {
        return probe;
      }
      if (Date.now() > deadline) {
        const shown = probe.open ? `; it showed ${JSON.stringify(probe.text.slice(0, 300))}, value ${probe.password ? `(${probe.value?.length ?? 0} characters of a password)` : JSON.stringify(probe.value)}, active item ${JSON.stringify(probe.activeItem)}` : '';
        throw new Error(`${what}: ${problem}${shown}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  private activeItemProblem(guard: QuickInputGuard, probe: QuickInputProbe): string | undefined {
    return guard.activeItem !== undefined && !(probe.activeItem ?? '').includes(guard.activeItem)
      ? `its active item is ${JSON.stringify(probe.activeItem)}, not ${JSON.stringify(guard.activeItem)}`
      : undefined;
  }

  private async pressInQuickInput(request: PressRequest, guard: QuickInputGuard): Promise<void> {
    await this.waitForQuickInput(guard, `before pressing ${request.key}`, (probe) => this.activeItemProblem(guard, probe));
    await this.page.keyboard.press(request.key);
  }

  private async typeInQuickInput(request: TypeRequest, guard: QuickInputGuard & { replace?: boolean }): Promise<void> {
    await this.waitForQuickInput({ ...guard, activeItem: undefined }, 'before typing');
    if (guard.replace) {
      await this.page.keyboard.press('Control+a');
      await this.page.keyboard.press('Backspace');
      await this.waitForQuickInput({ ...guard, activeItem: undefined }, 'clearing the box', (probe) => (probe.value ? `its box still holds ${JSON.stringify(probe.value)}` : undefined));
    }
    await this.page.keyboard.type(request.text, { delay: 10 });
    // A prefilled value is selected when the box opens, so typing replaces it; else it appends.
    await this.waitForQuickInput({ ...guard, contains: undefined, matches: undefined, activeItem: undefined }, 'after typing', (probe) =>
      (guard.replace ? probe.value === request.text : probe.value?.endsWith(request.text))
        ? undefined
        : `its box does not end with the ${request.text.length} characters typed (it holds ${probe.value?.length ?? 0})`,
    );
    if (request.enter) {
      await this.waitForQuickInput({ ...guard, contains: undefined, matches: undefined }, 'before pressing Enter', (probe) => this.activeItemProblem(guard, probe));
      await this.page.keyboard.press('Enter');
    }
  }

  /** Moves the notification center's focus to the row containing `contains` (from the newest down). */
  private async focusNotification(request: NotificationRequest): Promise<TextResult> {
    const deadline = Date.now() + (request.timeoutMs ?? DEFAULT_WAIT_MS);
    let moves = 0;
    for (;;) {
      const last = await this.page.evaluate(() => {
        const { document } = globalThis as unknown as BrowserGlobals;
        const center = Array.from(document.querySelectorAll('.notifications-center')).find((element) => element.getClientRects().length > 0);
        const rows = center ? Array.from(document.querySelectorAll('.notifications-center .monaco-list-row')) : [];
        return {
          rows: rows.map((row) => row.innerText),
          focused: rows.find((row) => row.classList.contains('focused'))?.innerText,
          hasFocus: center !== undefined && center.contains(document.activeElement),
        };
      });
      if (last.hasFocus && last.focused?.includes(request.contains)) {
        return { text: last.focused };
      }
      if (last.hasFocus && last.rows.some((row) => row.includes(request.contains)) && moves < 2 * last.rows.length) {
        // From the top (newest) down to the row; the list is short.
        await this.page.keyboard.press(moves === 0 ? 'Home' : 'ArrowDown');
        moves++;
        continue;
      }
      if (Date.now() > deadline) {
        throw new Error(
          `no notification containing ${JSON.stringify(request.contains)} could be focused (center ${last.hasFocus ? 'focused' : 'not focused'}; rows ${JSON.stringify(last.rows.map((row) => row.slice(0, 120)))})`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  private async screenshot(request: ScreenshotRequest): Promise<ScreenshotResult> {
    if (!/^[\w.-]+$/.test(request.name)) {
      throw new Error(`screenshot name '${request.name}' must be a plain file name`);
    }
    fs.mkdirSync(this.resultsDir, { recursive: true });
    const file = path.join(this.resultsDir, `${request.name}.png`);
    // A pointer left over a row by an earlier click draws its tooltip over what the picture shows: it leaves first.
    await this.page.mouse.move(0, 0);
    await this.page.locator('.workbench-hover-container:visible, .monaco-hover:visible').first().waitFor({ state: 'hidden', timeout: DEFAULT_WAIT_MS }).catch(() => undefined);
    const png = request.selector
      ? await this.page.locator(request.selector).first().screenshot({ path: file, timeout: DEFAULT_WAIT_MS })
      : await this.page.screenshot({ path: file, fullPage: true });
    const measure = await this.measure(png);
    return { path: file, bytes: png.length, ...measure };
  }

  /** Decodes the PNG with the page's own canvas (no image library needed) and counts colours. */
  private measure(png: Buffer): Promise<{ width: number; height: number; distinctColours: number }> {
    return this.page.evaluate(async (base64: string) => {
      const { Image, document } = globalThis as unknown as BrowserGlobals;
      const image = new Image();
      image.src = `data:image/png;base64,${base64}`;
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = image.naturalWidth;
      canvas.height = image.naturalHeight;
      const context = canvas.getContext('2d');
      if (!context) {
        throw new Error('no 2d canvas context');
      }
      context.drawImage(image, 0, 0);
      const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
      const colours = new Set<number>();
      for (let i = 0; i < pixels.length; i += 4) {
        colours.add((pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2]);
      }
      return { width: canvas.width, height: canvas.height, distinctColours: colours.size };
    }, png.toString('base64'));
  }

  private async text(request: TextRequest): Promise<TextResult> {
    if (request.all) {
      const found = await this.page.locator(request.selector).all();
      const texts: string[] = [];
      const drawn: string[] = [];
      for (const element of found) {
        // Both read in one look, so a row redrawn between two reads cannot make them differ.
        const read = request.visibleOnly ? await element.evaluate(drawnText) : { whole: await element.innerText(), drawn: '' };
        texts.push(read.whole);
        drawn.push(read.drawn);
      }
      return { text: texts.join('\n'), texts, drawn: request.visibleOnly ? drawn : undefined };
    }
    if (request.now) {
      // evaluateAll does not wait for a match: one look at the page as it is.
      const text = await this.page.locator(request.selector).evaluateAll((found) => (found.length ? (found[0] as unknown as { innerText: string }).innerText : undefined));
      return text === undefined ? { text: '', absent: true } : { text };
    }
    const locator = this.page.locator(request.selector).first();
    await locator.waitFor({ state: 'attached', timeout: request.timeoutMs ?? DEFAULT_WAIT_MS });
    if (request.hover) {
      // A hover left open by an earlier one would cover the element: the pointer leaves first, and it goes.
      await this.page.mouse.move(0, 0);
      await this.page.locator('.workbench-hover-container:visible, .monaco-hover:visible').first().waitFor({ state: 'hidden', timeout: DEFAULT_WAIT_MS }).catch(() => undefined);
      await locator.hover({ timeout: request.timeoutMs ?? DEFAULT_WAIT_MS });
    }
    if (!request.visibleOnly) {
      return { text: await locator.innerText() };
    }
    return { text: (await locator.evaluate(drawnText)).drawn };
  }

  private async frames(request: FramesRequest): Promise<FramesResult> {
    const deadline = Date.now() + (request.timeoutMs ?? DEFAULT_WAIT_MS);
    for (;;) {
      for (const frame of this.page.frames()) {
        if (frame === this.page.mainFrame()) {
          continue;
        }
        let text: string;
        try {
          text = await frame.evaluate(() => {
            const body = (globalThis as unknown as BrowserGlobals).document.body;
            if (!body) {
              return '';
            }
            if (body.getClientRects().length > 0) {
              return body.innerText;
            }
            // innerText of a frame that is not rendered (VS Code's hidden helper iframes) falls
            // back to textContent, scripts included: drop those so they never match.
            const copy = body.cloneNode(true);
            copy.querySelectorAll('script, style, template, noscript').forEach((node) => node.remove());
            return copy.textContent ?? '';
          });
        } catch {
          continue; // A frame that navigated or detached meanwhile.
        }
        if (text.includes(request.contains)) {
          return { text, url: frame.url() };
        }
      }
      if (Date.now() > deadline) {
        throw new Error(`no frame's text contains ${JSON.stringify(request.contains)} (${this.page.frames().length} frames)`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
