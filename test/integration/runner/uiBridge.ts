// Runner side of the UI bridge: answers requests that tests in the extension host log as
// `@@UI {…}` lines (see helpers/uiBridgeProtocol.ts) by driving the page with Playwright.
import * as fs from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import {
  type FramesRequest,
  type FramesResult,
  type ReloadRequest,
  type ScreenshotRequest,
  type ScreenshotResult,
  type TextRequest,
  type TextResult,
  type UiReply,
  type UiRequest,
} from '../helpers/uiBridgeProtocol';

const DEFAULT_WAIT_MS = 5000;

interface BrowserElement {
  innerText: string;
  textContent: string | null;
  getClientRects(): { length: number };
  cloneNode(deep: true): BrowserElement;
  querySelectorAll(selector: string): { forEach(callback: (node: { remove(): void }) => void): void };
}

/** The few browser globals used inside page.evaluate (the runner compiles without the DOM lib). */
interface BrowserGlobals {
  Image: new () => { src: string; naturalWidth: number; naturalHeight: number; decode(): Promise<void> };
  document: {
    body: BrowserElement | null;
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

export class UiBridge {
  /** Requests are served one at a time so keyboard input never interleaves. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly page: Page,
    private readonly replyDir: string,
    private readonly resultsDir: string,
    /** Serves `reload` requests (the runner reloads the page and expects the next phase). */
    private readonly onReload?: (request: ReloadRequest) => Promise<void>,
  ) {}

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
    switch (request.type) {
      case 'type':
        await this.page.keyboard.type(request.text, { delay: 10 });
        if (request.enter) {
          await this.page.keyboard.press('Enter');
        }
        return {};
      case 'press':
        await this.page.keyboard.press(request.key);
        return {};
      case 'screenshot':
        return this.screenshot(request);
      case 'text':
        return this.text(request);
      case 'frames':
        return this.frames(request);
      case 'reload':
        if (!this.onReload) {
          throw new Error('this runner session cannot reload the window');
        }
        await this.onReload(request);
        return {};
    }
  }

  private async screenshot(request: ScreenshotRequest): Promise<ScreenshotResult> {
    if (!/^[\w.-]+$/.test(request.name)) {
      throw new Error(`screenshot name '${request.name}' must be a plain file name`);
    }
    fs.mkdirSync(this.resultsDir, { recursive: true });
    const file = path.join(this.resultsDir, `${request.name}.png`);
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
    const locator = this.page.locator(request.selector).first();
    await locator.waitFor({ state: 'attached', timeout: request.timeoutMs ?? DEFAULT_WAIT_MS });
    return { text: await locator.innerText() };
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
