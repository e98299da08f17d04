// Issue 38, the chat panel under a streaming answer (CREW_RUNS_BENCH_ONLY=chat). The chat page (the production
// bundle's media/dist/flowChat.js and media/flowChat.css) in headless Chromium, fed what chatPanel.ts posts it, by
// the extension's own turn state machine (src/flowChat/turn.ts) reading the simulator's stream over HTTP in this
// process. What it leaves out: the extension host's postMessage hop to a VS Code webview (here the page gets each
// message through one CDP call instead). In the same turn a bare SSE reader (fetch, split on blank lines, nothing
// else) reads the same session's stream: the reference.
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { ensureChromium } from '../test/integration/runner/install';
import { startSimulator } from '../src/simulator/server';
import { type ChatHistory, runTurn, type TurnApi, type TurnUpdate } from '../src/flowChat/turn';
import { median, percentile, round } from './lib/stats';
import { repoRoot } from './bundle';

export interface ChatBench {
  tokens: number;
  /** Simulator write → text in the page's DOM, per token (ms). */
  pageDelaysMs: number[];
  /** Simulator write → the bare reader has the frame, per token (ms). */
  bareDelaysMs: number[];
  big: {
    tokens: number;
    chars: number;
    seconds: number;
    /** Frames per second in the page, per whole second of the stream. */
    fpsPerSecond: number[];
    /** The same page with nothing streaming, 3 s just before: frames per second. */
    idleFps: number[];
    longestFrameMs: number;
    framesOver50Ms: number;
    heapBeforeBytes: number;
    heapAfterBytes: number;
    heapPeakBytes: number;
    answerOk: boolean;
    /** The machine's 1-minute load average after the stream (other work shares its cores). */
    loadAverage: number;
    messages: number;
  };
}

// Page code below runs in the browser (page.evaluate); its globals, for the compiler only.
/* eslint-disable @typescript-eslint/no-explicit-any */
declare const window: any;
declare const document: any;
declare const MutationObserver: any;
declare const requestAnimationFrame: (callback: (t: number) => void) => number;
/* eslint-enable @typescript-eslint/no-explicit-any */

const now = () => performance.timeOrigin + performance.now();

/** When the simulator wrote each marked token frame (`m<n> `), read off its HTTP writes in this process. */
function watchWrites(): { written: Map<number, number>; stop(): void } {
  const written = new Map<number, number>();
  const original = http.ServerResponse.prototype.write;
  http.ServerResponse.prototype.write = function (this: http.ServerResponse, chunk: unknown, ...rest: unknown[]) {
    if (typeof chunk === 'string' && chunk.includes('"type":"token"')) {
      const m = /"content":"m(\d+) /.exec(chunk);
      if (m && !written.has(Number(m[1]))) {
        written.set(Number(m[1]), now());
      }
    }
    return (original as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof original;
  return { written, stop: () => (http.ServerResponse.prototype.write = original) };
}

function sessionApi(base: string, token: string, sessionId: string): TurnApi {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  return {
    async send(message) {
      const r = await fetch(`${base}/chat/${sessionId}/message`, { method: 'POST', headers, body: JSON.stringify({ message, stream: true }) });
      return { kickoffId: ((await r.json()) as { kickoff_id?: string }).kickoff_id };
    },
    async history(): Promise<ChatHistory> {
      const body = (await (await fetch(`${base}/chat/${sessionId}/history`, { headers })).json()) as { messages: ChatHistory['messages']; active_kickoff_id: string | null };
      return { messages: body.messages, activeKickoffId: body.active_kickoff_id };
    },
    async stream(last, signal) {
      const r = await fetch(`${base}/chat/${sessionId}/stream/events?events=*${last ? `&last_event_id=${last}` : ''}`, { headers: { ...headers, accept: 'text/event-stream' }, signal });
      if (!r.ok || !r.body) {
        throw Object.assign(new Error(`HTTP ${r.status}`), { status: r.status });
      }
      const body = r.body.pipeThrough(new TextDecoderStream());
      return body as unknown as AsyncIterable<string>;
    },
  };
}

/** The bare reference: the same stream, split into frames, each marker's arrival time noted. */
async function bareReader(base: string, token: string, sessionId: string, seen: Map<number, number>, signal: AbortSignal): Promise<void> {
  const r = await fetch(`${base}/chat/${sessionId}/stream/events?events=*`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal });
  let buffer = '';
  for await (const chunk of r.body!.pipeThrough(new TextDecoderStream()) as unknown as AsyncIterable<string>) {
    buffer += chunk;
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const m = /"content":"m(\d+) /.exec(buffer.slice(0, end));
      if (m && !seen.has(Number(m[1]))) {
        seen.set(Number(m[1]), now());
      }
      buffer = buffer.slice(end + 2);
    }
  }
}

async function openPage(page: Page, builtDir: string): Promise<void> {
  await page.setContent('<!DOCTYPE html><html><head></head><body data-probe=""><div id="root"></div></body></html>');
  await page.addStyleTag({ path: path.join(repoRoot, 'media', 'flowChat.css') });
  await page.evaluate(() => {
    const w = window as unknown as Record<string, unknown>;
    w.toHost = [];
    w.acquireVsCodeApi = () => ({ postMessage: (m: unknown) => (w.toHost as unknown[]).push(m) });
  });
  await page.addScriptTag({ path: path.join(builtDir, 'media', 'dist', 'flowChat.js') });
  await post(page, { type: 'strings', strings: { you: 'You', flow: 'Flow', copy: 'Copy', send: 'Send', busy: 'The flow is answering.' } });
}

const post = (page: Page, message: unknown) => page.evaluate((m) => window.postMessage(m, '*'), message);

/** One turn as chatPanel.ts runs it: the page told what it would be told, turn.ts following the stream. */
async function panelTurn(page: Page, api: TurnApi, text: string): Promise<{ messages: number }> {
  let messages = 0;
  let chain = Promise.resolve();
  const send = (m: unknown) => {
    messages++;
    chain = chain.then(() => post(page, m));
  };
  send({ type: 'busy', reason: 'The flow is answering.' });
  send({ type: 'user', text });
  send({ type: 'answerStart' });
  const outcome = await runTurn(api, text, (update: TurnUpdate) => send({ type: 'update', update }), { sleep: (ms) => new Promise((r) => setTimeout(r, ms)) }, new AbortController().signal);
  send({ type: 'answerEnd', outcome });
  send({ type: 'busy' });
  await chain;
  return { messages };
}

/** `builtDir`: the bench's production build (bundle.ts): the page script as users get it, on a fresh clone too. */
export async function chatStreamBench(builtDir: string, tokens = 200, bigTokens = 200_000): Promise<ChatBench> {
  const sim = await startSimulator({
    crews: [
      { id: 'paced', name: 'Paced', kind: 'flow', inputs: [], tasks: [], chat: { tokenIntervalMs: 25, answer: Array.from({ length: tokens }, (_, i) => `m${i} `).join('') } },
      // 200,000 tokens of ~6 characters, 100 frames to a pause of 1 ms: a fast model (~60,000 tokens a second at most).
      { id: 'big', name: 'Big', kind: 'flow', inputs: [], tasks: [], chat: { tokenIntervalMs: 1, burst: 100, answer: Array.from({ length: bigTokens }, (_, i) => (i % 20 === 19 ? 'word.\n' : 'word ')).join('') } },
    ],
  });
  const browser = await chromium.launch({
    executablePath: await ensureChromium(),
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--enable-precise-memory-info', '--js-flags=--expose-gc'],
  });
  const writes = watchWrites();
  try {
    const start = async (crew: (typeof sim.crews)[number]) => {
      const r = await fetch(`${crew.url}/chat/start`, { method: 'POST', headers: { authorization: `Bearer ${crew.orgToken}` } });
      return ((await r.json()) as { session_id: string }).session_id;
    };

    // Token to DOM: each marker's first appearance in the answer's text, seen by a MutationObserver.
    const page = await browser.newPage({ viewport: { width: 900, height: 700 } });
    await openPage(page, builtDir);
    await page.evaluate(() => {
      const w = window as unknown as { shown: Record<number, number> };
      w.shown = {};
      new MutationObserver(() => {
        const bodies = document.querySelectorAll('.message.assistant .body');
        const text = bodies[bodies.length - 1]?.textContent ?? '';
        const re = /m(\d+) /g;
        const tail = text.slice(-200);
        let m;
        while ((m = re.exec(tail))) {
          w.shown[Number(m[1])] ??= performance.timeOrigin + performance.now();
        }
      }).observe(document.body, { subtree: true, characterData: true, childList: true });
    });
    const paced = sim.crews[0];
    const sessionId = await start(paced);
    const bare = new Map<number, number>();
    const bareAbort = new AbortController();
    const api = sessionApi(paced.url, paced.orgToken, sessionId);
    const send = api.send.bind(api);
    let bareDone: Promise<void> = Promise.resolve();
    api.send = async (m, s) => {
      const r = await send(m, s);
      bareDone = bareReader(paced.url, paced.orgToken, sessionId, bare, bareAbort.signal).catch(() => undefined);
      return r;
    };
    await panelTurn(page, api, 'count');
    await bareDone;
    const shown = await page.evaluate(() => (window as unknown as { shown: Record<number, number> }).shown);
    const pageDelaysMs: number[] = [];
    const bareDelaysMs: number[] = [];
    for (const [n, at] of writes.written) {
      if (shown[n] !== undefined) {
        pageDelaysMs.push(shown[n] - at);
      }
      if (bare.has(n)) {
        bareDelaysMs.push(bare.get(n)! - at);
      }
    }
    await page.close();

    // 200,000 tokens: frame gaps (requestAnimationFrame) in the page, its heap before, during and after.
    const bigPage = await browser.newPage({ viewport: { width: 900, height: 700 } });
    await openPage(bigPage, builtDir);
    const heap = () => bigPage.evaluate(() => {
      (window as unknown as { gc?: () => void }).gc?.();
      return (performance as unknown as { memory: { usedJSHeapSize: number } }).memory.usedJSHeapSize;
    });
    const heapBeforeBytes = await heap();
    // The reference: the same page's frame rate with nothing streaming, on this machine, just before.
    const idleFps = await bigPage.evaluate(
      () =>
        new Promise<number[]>((resolve) => {
          const times: number[] = [];
          const tick = (t: number) => {
            times.push(t);
            if (t - times[0] < 3000) {
              requestAnimationFrame(tick);
            } else {
              resolve([0, 1000, 2000].map((s) => times.filter((x) => x >= times[0] + s && x < times[0] + s + 1000).length));
            }
          };
          requestAnimationFrame(tick);
        }),
    );
    await bigPage.evaluate(() => {
      const w = window as unknown as { frames_: number[]; peak: number; stopFrames: boolean };
      w.frames_ = [];
      w.peak = 0;
      w.stopFrames = false;
      const tick = (t: number) => {
        w.frames_.push(t);
        w.peak = Math.max(w.peak, (performance as unknown as { memory: { usedJSHeapSize: number } }).memory.usedJSHeapSize);
        if (!w.stopFrames) {
          requestAnimationFrame(tick);
        }
      };
      requestAnimationFrame(tick);
    });
    const big = sim.crews[1];
    const started = now();
    const { messages } = await panelTurn(bigPage, sessionApi(big.url, big.orgToken, await start(big)), 'a long one');
    const seconds = (now() - started) / 1000;
    const frames = await bigPage.evaluate(() => {
      const w = window as unknown as { frames_: number[]; peak: number; stopFrames: boolean };
      w.stopFrames = true;
      return { times: w.frames_, peak: w.peak };
    });
    const answer = await bigPage.evaluate(() => document.querySelector('.message.assistant .body')?.textContent ?? '');
    const heapAfterBytes = await heap();
    const t = frames.times;
    const gaps = t.slice(1).map((x, i) => x - t[i]);
    const fpsPerSecond: number[] = [];
    for (let s = t[0]; s + 1000 <= t[t.length - 1]; s += 1000) {
      fpsPerSecond.push(t.filter((x) => x >= s && x < s + 1000).length);
    }
    const expected = Array.from({ length: bigTokens }, (_, i) => (i % 20 === 19 ? 'word.\n' : 'word ')).join('');
    await bigPage.close();
    return {
      tokens,
      pageDelaysMs,
      bareDelaysMs,
      big: {
        tokens: bigTokens,
        chars: answer.length,
        seconds,
        fpsPerSecond,
        idleFps,
        longestFrameMs: round(Math.max(...gaps), 1),
        framesOver50Ms: gaps.filter((g) => g > 50).length,
        heapBeforeBytes,
        heapAfterBytes,
        heapPeakBytes: frames.peak,
        answerOk: answer === expected,
        loadAverage: round(os.loadavg()[0], 1),
        messages,
      },
    };
  } finally {
    writes.stop();
    await browser.close().catch(() => undefined);
    await sim.close();
  }
}

export function chatBenchRows(b: ChatBench) {
  const item = '9 Chat';
  const spread = (v: number[]) => `p10 ${round(percentile(v, 10), 1)} / p90 ${round(percentile(v, 90), 1)} / max ${round(Math.max(...v), 1)} ms`;
  const page = median(b.pageDelaysMs);
  const bare = median(b.bareDelaysMs);
  const minFps = Math.min(...b.big.fpsPerSecond);
  // Text reaches the DOM once per animation frame: the frame is this row's unit on any machine.
  const frameMs = 1000 / median(b.big.idleFps);
  const mb = (bytes: number) => round(bytes / 1048576, 1);
  return [
    {
      item,
      figure: `token to DOM: the simulator writes a token frame → its text in the chat page's DOM (median of ${b.pageDelaysMs.length} tokens 25 ms apart)`,
      value: round(page, 1),
      unit: 'ms',
      target: '≤ 2 frames',
      met: page <= 2 * frameMs,
      reference: "the page's frame, idle, same run (1000 / median idle fps)",
      referenceValue: round(frameMs, 1),
      ratio: round(page / frameMs, 2),
      note: `page ${spread(b.pageDelaysMs)}; a bare SSE reader of the same stream ${spread(b.bareDelaysMs)} (median ${round(bare, 1)} ms); the page is fed through one CDP call per message, not VS Code's webview postMessage`,
    },
    {
      item,
      figure: `a ${b.big.tokens.toLocaleString('en')}-token answer (${mb(b.big.chars)} MB) streamed: the page's slowest second, frames per second`,
      value: minFps,
      unit: 'fps',
      // Half the page's own idle rate (30 of 60 fps on an idle machine): what a loaded machine does to frames, it does to both.
      target: '≥ 0.5× reference, heap bounded',
      met: minFps >= 0.5 * Math.min(...b.big.idleFps) && b.big.answerOk && b.big.heapAfterBytes < b.big.heapBeforeBytes + 16 * b.big.chars + 8 * 1048576,
      reference: 'the same page idle just before, slowest of 3 s',
      referenceValue: Math.min(...b.big.idleFps),
      ratio: round(minFps / Math.min(...b.big.idleFps), 2),
      note: `${round(b.big.seconds, 1)} s of streaming, ${b.big.messages} messages to the page; per second ${b.big.fpsPerSecond.join('/')} fps (median ${median(b.big.fpsPerSecond)}; idle before ${b.big.idleFps.join('/')}); longest frame ${b.big.longestFrameMs} ms, ${b.big.framesOver50Ms} frames over 50 ms; JS heap before ${mb(b.big.heapBeforeBytes)} MB, peak ${mb(b.big.heapPeakBytes)} MB, after (GC) ${mb(b.big.heapAfterBytes)} MB; the answer on the page ${b.big.answerOk ? 'whole' : 'NOT whole'}; load average ${b.big.loadAverage} on ${os.cpus().length} cores`,
    },
  ];
}
