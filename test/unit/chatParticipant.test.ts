import * as assert from 'node:assert/strict';
import MarkdownIt from 'markdown-it';
import { safeCrewMarkdown } from '../../src/chat/crewMarkdown';
import type { CrewInfo, InputsOutcome, KickoffOutcome, RunQuery } from '../../src/chat/crewActions';
import { handleChatRequest, type ChatSink, type ParticipantDeps } from '../../src/chat/participant';
import type { Crew } from '../../src/crews/crewConfig';
import { emptyDetails, type RunDetails, type RunRecord } from '../../src/runTracking/model';
import { makeRun } from './chatTools.test';
import type { RunEvent } from '../../src/api/types';
import { DEFAULT_PRICES } from '../../src/runTracking/trace/cost';
import { failedRunEvents } from './chatTraceText.test';

type Part = ['markdown' | 'crewMarkdown' | 'progress', string] | ['button', string, string, unknown[]];

/** A ChatResponseStream stand-in that records every part in order. */
class RecordingSink implements ChatSink {
  readonly parts: Part[] = [];
  markdown(text: string): void {
    this.parts.push(['markdown', text]);
  }
  crewMarkdown(text: string): void {
    this.parts.push(['crewMarkdown', text]);
  }
  progress(text: string): void {
    this.parts.push(['progress', text]);
  }
  button(title: string, command: string, args: unknown[]): void {
    this.parts.push(['button', title, command, args]);
  }
  of(kind: Part[0]): string[] {
    return this.parts.filter((p) => p[0] === kind).map((p) => (p[0] === 'button' ? `${p[1]} → ${p[2]} ${JSON.stringify(p[3])}` : p[1]));
  }
  text(): string {
    return this.parts.map((p) => p[1]).join('\n');
  }
}

const notCancelled = { isCancellationRequested: false, onCancellationRequested: () => ({ dispose: () => undefined }) };

const writer: Crew = { name: 'Writer', url: 'https://writer.example', source: 'user' };
const review: Crew = { name: 'Review *Crew*', url: 'https://review.example', source: 'user' };

/**
 * CrewActions over a script: the inputs each crew takes, and for each kickoff the states the run
 * goes through while a response follows it (the last one is where the wait ends).
 */
class FakeActions {
  readonly kickoffs: { crew: string; inputs: Record<string, string> }[] = [];
  readonly feedback: { runId: string; approve: boolean; feedback: string }[] = [];
  readonly runs = new Map<string, RunRecord>();
  readonly details = new Map<string, RunDetails>();
  readonly events = new Map<string, RunEvent[]>();
  constructor(
    private readonly inputs: Record<string, string[]>,
    private readonly script: { states: Partial<RunRecord>[]; details: RunDetails }[],
  ) {}
  findCrew(reference: string) {
    const crew = [writer, review].find((c) => c.name.toLowerCase() === reference.toLowerCase() || c.url === reference);
    return crew ? { kind: 'found' as const, crew } : { kind: 'unknown' as const, known: [writer.name, review.name] };
  }
  async listCrews(): Promise<CrewInfo[]> {
    return [writer, review].map((c) => ({ ...c, hasToken: true, health: 'ready' as const }));
  }
  async readInputs(crew: Crew): Promise<InputsOutcome> {
    const names = this.inputs[crew.url];
    return { ok: true, described: true, specs: names.map((name) => ({ name })), names, required: names };
  }
  async kickOff(crew: Crew, given: Record<string, string>): Promise<KickoffOutcome> {
    const names = this.inputs[crew.url];
    const missing = names.filter((n) => !given[n]);
    if (missing.length) {
      return { kind: 'missing', missing, names };
    }
    this.kickoffs.push({ crew: crew.name, inputs: given });
    const step = this.script.shift();
    assert.ok(step, 'the test scripted this kickoff');
    const run = makeRun({ id: `run-${this.kickoffs.length}`, crewName: crew.name, crewUrl: crew.url, label: Object.values(given)[0], state: 'queued' });
    this.runs.set(run.id, run);
    this.details.set(run.id, step.details);
    this.pending.set(run.id, step.states);
    return { kind: 'started', run };
  }
  private readonly pending = new Map<string, Partial<RunRecord>[]>();
  async waitForRun(runId: string, _ms: number, _token: unknown, onChange?: (run: RunRecord) => void): Promise<RunRecord | undefined> {
    for (const patch of this.pending.get(runId) ?? []) {
      const next = { ...this.runs.get(runId)!, ...patch };
      this.runs.set(runId, next);
      onChange?.(next);
    }
    this.pending.delete(runId);
    return this.runs.get(runId);
  }
  current(run: RunRecord): RunRecord {
    return this.runs.get(run.id) ?? run;
  }
  async readDetails(run: RunRecord): Promise<RunDetails> {
    return this.details.get(run.id) ?? emptyDetails();
  }
  async readEvents(run: RunRecord): Promise<RunEvent[]> {
    return this.events.get(run.id) ?? [];
  }
  findRun(query: RunQuery) {
    const all = [...this.runs.values()].reverse();
    const run = query.runId ? this.runs.get(query.runId) : query.kickoffId || query.crew ? undefined : all[0];
    return run ? { kind: 'found' as const, run } : { kind: 'none' as const, message: 'none' };
  }
  /** Newest (last added) first, as the store lists them. */
  listRuns(filter: { state?: string }): RunRecord[] {
    return [...this.runs.values()].reverse().filter((r) => !filter.state || (filter.state === 'needsFeedback' ? r.needsFeedback : r.state === filter.state));
  }
  async giveFeedback(run: RunRecord, answer: { approve: boolean; feedback: string }) {
    this.feedback.push({ runId: run.id, ...answer });
    const next = { ...run, needsFeedback: false, state: 'running' as const };
    this.runs.set(run.id, next);
    this.pending.set(run.id, [{ state: 'succeeded' }]);
    this.details.set(run.id, { ...emptyDetails(), finalOutput: { kind: 'markdown', text: 'Published.' } });
    return { kind: 'sent' as const, run: next };
  }
}

function deps(actions: FakeActions, askModel?: ParticipantDeps['askModel'], explainTrace?: ParticipantDeps['explainTrace']): ParticipantDeps {
  return {
    actions,
    stateLabel: (s) => (s === 'awaitingFeedback' ? 'needs feedback' : s),
    followMs: 60_000,
    askModel,
    tracePricing: () => ({ prices: DEFAULT_PRICES, modelFor: () => undefined }),
    explainTrace,
  };
}

describe('@crews participant', () => {
  it('/run asks for the inputs that are missing and sends nothing', async () => {
    const actions = new FakeActions({ [writer.url]: ['topic', 'audience'] }, []);
    const sink = new RecordingSink();
    const outcome = await handleChatRequest({ command: 'run', prompt: 'writer topic=agents' }, sink, notCancelled, deps(actions));
    assert.equal(actions.kickoffs.length, 0);
    assert.equal(outcome.metadata.runId, undefined);
    assert.match(sink.of('markdown').join(''), /Writer needs a value for: audience\. Nothing was sent\.[\s\S]*```\n\/run Writer topic=agents audience="…"\n```/);
  });

  it('/run follows a run that waits for feedback: progress, the output to review, Give Feedback and Open Run', async () => {
    const details: RunDetails = { ...emptyDetails(), lastSnapshot: { state: 'awaitingFeedback', tasks: [], raw: {}, feedback: { taskName: 'review_task', output: 'Draft with [a link](command:workbench.action.terminal.new)' } } };
    const actions = new FakeActions({ [review.url]: ['topic'] }, [
      {
        states: [
          { state: 'running', progress: { unit: 'task', completed: 1, total: 3 }, currentTask: 'draft_task' },
          { state: 'running', progress: { unit: 'task', completed: 1, total: 3 }, currentTask: 'draft_task' },
          { state: 'awaitingFeedback', needsFeedback: true, currentTask: 'review_task' },
        ],
        details,
      },
    ]);
    const sink = new RecordingSink();
    const outcome = await handleChatRequest({ command: 'run', prompt: '"Review *Crew*" topic="AI tools"' }, sink, notCancelled, deps(actions));
    assert.deepEqual(actions.kickoffs, [{ crew: 'Review *Crew*', inputs: { topic: 'AI tools' } }]);
    assert.equal(outcome.metadata.runId, 'run-1');
    // Progress renders Markdown: crew and task names are escaped (no emphasis, no autolink).
    assert.deepEqual(sink.of('progress'), [
      'Asking Review \\*Crew\\* which inputs it needs…',
      'AI tools\\: queued',
      'AI tools\\: running 1/3 · draft\\_task',
      'AI tools\\: needs feedback 1/3 · review\\_task',
    ]);
    const markdown = sink.of('markdown').join('');
    assert.match(markdown, /Started \*\*AI tools\*\* on Review \\\*Crew\\\*\./, 'the crew name is escaped');
    assert.match(markdown, /waiting for your feedback on review\\_task\./);
    assert.deepEqual(sink.of('crewMarkdown'), ['Draft with [a link](command:workbench.action.terminal.new)'], 'the output to review goes out as crew (untrusted) Markdown');
    assert.deepEqual(sink.of('button'), ['Give Feedback → crewRuns.giveFeedback [{"runId":"run-1"}]', 'Open Run → crewRuns.openRun [{"runId":"run-1"}]']);

    const answered = new RecordingSink();
    await handleChatRequest({ command: 'feedback', prompt: 'approve' }, answered, notCancelled, deps(actions));
    assert.deepEqual(actions.feedback, [{ runId: 'run-1', approve: true, feedback: '' }]);
    assert.match(answered.of('markdown').join(''), /^Approved \*\*AI tools\*\*: the run goes on\./);
    assert.deepEqual(answered.of('crewMarkdown'), ['Published.']);
  });

  it('/run shows a failed run with its error as inert text and Open Run', async () => {
    const actions = new FakeActions({ [writer.url]: ['topic'] }, [
      { states: [{ state: 'running' }, { state: 'failed', finishedAt: 1 }], details: { ...emptyDetails(), error: "ValueError: ``` [x](command:y) in 'write'" } },
    ]);
    const sink = new RecordingSink();
    await handleChatRequest({ command: 'run', prompt: 'Writer topic=x' }, sink, notCancelled, deps(actions));
    const markdown = sink.of('markdown').join('');
    assert.match(markdown, /\*\*x\*\* · Writer: failed\./);
    assert.match(markdown, /````text\nValueError: ``` \[x\]\(command:y\) in 'write'\n````/, 'the error sits in a fence its backticks cannot close');
    assert.deepEqual(sink.of('crewMarkdown'), []);
    assert.deepEqual(sink.of('button'), ['Open Run → crewRuns.openRun [{"runId":"run-1"}]']);
  });

  it('/status, /runs and /feedback work without a model; other questions go to the model when there is one', async () => {
    const actions = new FakeActions({ [writer.url]: ['topic'] }, [{ states: [{ state: 'succeeded' }], details: { ...emptyDetails(), finalOutput: { kind: 'markdown', text: '# Done' } } }]);
    await handleChatRequest({ command: 'run', prompt: 'Writer topic=first' }, new RecordingSink(), notCancelled, deps(actions));
    const status = new RecordingSink();
    await handleChatRequest({ command: 'status', prompt: '' }, status, notCancelled, deps(actions));
    assert.match(status.of('markdown')[0], /^\*\*first\*\* · Writer: succeeded\./);
    assert.deepEqual(status.of('crewMarkdown'), ['# Done']);
    const runs = new RecordingSink();
    await handleChatRequest({ command: 'runs', prompt: '' }, runs, notCancelled, deps(actions));
    assert.match(runs.of('markdown')[0], /^- \*\*first\*\* · Writer · succeeded · 2026-01-01 00:00$/);
    const feedback = new RecordingSink();
    await handleChatRequest({ command: 'feedback', prompt: 'approve' }, feedback, notCancelled, deps(actions));
    assert.deepEqual(feedback.of('markdown'), ['No run is waiting for feedback.']);

    const help = new RecordingSink();
    await handleChatRequest({ prompt: 'what can you do?' }, help, notCancelled, deps(actions));
    assert.match(help.of('markdown')[0], /^Crew Runs answers these commands:/);
    const asked: string[] = [];
    await handleChatRequest({ prompt: 'run the writer on agents' }, new RecordingSink(), notCancelled, deps(actions, async (prompt) => void asked.push(prompt)));
    assert.deepEqual(asked, ['run the writer on agents']);
  });

  // #52: a question in words without a model got the list of commands, and nothing said why.
  it('a question in words without a model says plainly that it needs one, after the commands that work without', async () => {
    const actions = new FakeActions({ [writer.url]: ['topic'] }, []);
    const asked = new RecordingSink();
    await handleChatRequest({ prompt: 'why did my last run fail?' }, asked, notCancelled, deps(actions));
    assert.match(asked.of('markdown')[0], /^Crew Runs answers these commands:/);
    assert.match(asked.text(), /A question in your own words needs a language model in the chat; none could be used for this request\. The commands above work without one\./);
    const bare = new RecordingSink();
    await handleChatRequest({ prompt: '' }, bare, notCancelled, deps(actions));
    assert.doesNotMatch(bare.text(), /language model/, 'nothing asked in words: only the commands');
  });
});

describe('@crews /why', () => {
  /** A failed run with a trace, a newer succeeded one without, and an older failed one. */
  function runs(): FakeActions {
    const actions = new FakeActions({}, []);
    const add = (id: string, patch: Partial<RunRecord>, details: RunDetails, events: RunEvent[] = []) => {
      actions.runs.set(id, makeRun({ id, kickoffId: `k-${id}`, watching: false, ...patch }));
      actions.details.set(id, details);
      actions.events.set(id, events);
    };
    add('old-failed', { label: 'old', state: 'failed', finishedAt: Date.UTC(2026, 0, 1) + 1000 }, { ...emptyDetails(), error: 'old error' });
    add('failed', { label: 'scraping *news*', state: 'failed', finishedAt: Date.UTC(2026, 0, 1) + 12_000 }, { ...emptyDetails(), error: 'Tool failed' }, failedRunEvents());
    add('ok', { label: 'fine', state: 'succeeded', finishedAt: Date.UTC(2026, 0, 1) + 3000 }, emptyDetails());
    return actions;
  }

  it('without a model explains the newest failed run from its trace, as escaped Markdown, with Open Run', async () => {
    const sink = new RecordingSink();
    const outcome = await handleChatRequest({ command: 'why', prompt: '' }, sink, notCancelled, deps(runs()));
    assert.equal(outcome.metadata.runId, 'failed');
    const markdown = sink.of('markdown').join('');
    assert.match(markdown, /^\*\*scraping \\\*news\\\*\*\* · Writer: failed\.\n\n\*\*Trace:\*\* 9\.7s · 1 task · 1 agent · 2 model calls · 1 tool call · 4 errors\n/);
    assert.match(markdown, /\*\*Failing step:\*\* tool call \*\*scrape\*\* in task research · 4\.5s\n\n```text\nHTTP 503 from example\.com\n```/);
    assert.match(markdown, /\*\*Slowest steps\*\*\n\n1\. tool call \*\*scrape\*\*/);
    assert.match(markdown, /estimated cost about \$0\.0060 \(an estimate from list prices, not a bill\)/);
    assert.doesNotMatch(markdown, /The run’s error/, 'the failing step says it: the run\'s error is not repeated');
    assert.deepEqual(sink.of('crewMarkdown'), []);
    assert.deepEqual(sink.of('button'), ['Open Run → crewRuns.openRun [{"runId":"failed"}]']);
  });

  it('takes the run the prompt names, and says in one line when it has no events (with its error)', async () => {
    const sink = new RecordingSink();
    const outcome = await handleChatRequest({ command: 'why', prompt: 'old-failed' }, sink, notCancelled, deps(runs()));
    assert.equal(outcome.metadata.runId, 'old-failed');
    const markdown = sink.of('markdown').join('');
    assert.match(markdown, /\n\nNo trace: this run’s crew reported no event log\. Redeploy the crew on a newer crewai \(1\.15\.21 and older send none\), or set CREWAI_STATUS_EVENTS=true in its environment variables\.\n\n/);
    assert.match(markdown, /The run’s error:\n\n```text\nold error\n```/);
    const byLabel = new RecordingSink();
    assert.equal((await handleChatRequest({ command: 'why', prompt: 'FINE' }, byLabel, notCancelled, deps(runs()))).metadata.runId, 'ok');
    const question = new RecordingSink();
    assert.equal((await handleChatRequest({ command: 'why', prompt: 'so slow?' }, question, notCancelled, deps(runs()))).metadata.runId, 'failed');
    assert.match(question.of('markdown')[0], /^_No run matches so slow\?: here is the newest failed run\._/);
    const none = new RecordingSink();
    await handleChatRequest({ command: 'why', prompt: '' }, none, notCancelled, deps(new FakeActions({}, [])));
    assert.deepEqual(none.of('markdown'), ['No finished run to explain yet. Start one with `/run`.']);
  });

  it('with a model asks it to explain the fenced summary and shows its answer as untrusted Markdown; the plain summary when it gives none', async () => {
    const asked: { summary: string; question: string }[] = [];
    const explain: ParticipantDeps['explainTrace'] = async (summary, question, sink) => {
      asked.push({ summary, question });
      sink.crewMarkdown('The **scrape** tool got HTTP 503.');
      return true;
    };
    const sink = new RecordingSink();
    await handleChatRequest({ command: 'why', prompt: 'why did it break' }, sink, notCancelled, deps(runs(), undefined, explain));
    assert.equal(asked.length, 1);
    assert.equal(asked[0].question, 'why did it break', 'a prompt that names no run is the user\'s question');
    assert.match(asked[0].summary, /^Run "scraping \*news\*" of crew "Writer": failed, ran 12s\.\n\nThe run's error[^\n]*\(untrusted[^\n]*\n```text\nTool failed\n```\n\nTrace \(built from 12 events/);
    assert.match(asked[0].summary, /\n```text\nFailing step: tool call scrape \(in task research\), after 4\.5s\nIts error: HTTP 503 from example\.com\n/);
    assert.deepEqual(sink.of('crewMarkdown'), ['The **scrape** tool got HTTP 503.']);
    assert.doesNotMatch(sink.of('markdown').join(''), /\*\*Trace:\*\*/, 'no plain summary besides the model\'s answer');
    assert.deepEqual(sink.of('button'), ['Open Run → crewRuns.openRun [{"runId":"failed"}]']);

    const silent = new RecordingSink();
    await handleChatRequest({ command: 'why', prompt: 'failed' }, silent, notCancelled, deps(runs(), undefined, async () => false));
    assert.match(silent.of('markdown').join(''), /\*\*Trace:\*\* 9\.7s/, 'the model gave nothing: the plain summary');
  });
});

describe('crew Markdown in the chat', () => {
  it('keeps http(s) links and turns command links and images into text', () => {
    assert.equal(safeCrewMarkdown('[docs](https://crewai.com)'), '[docs](https://crewai.com)');
    assert.equal(safeCrewMarkdown('[run](command:workbench.action.terminal.new "t")'), '\\[run\\]\\(command\\:workbench\\.action\\.terminal\\.new "t"\\)');
    assert.equal(safeCrewMarkdown('![pixel](https://evil.example/p.png)'), 'pixel (https\\://evil\\.example/p\\.png)');
    assert.equal(safeCrewMarkdown('[x]: command:foo'), '\\[x\\]\\: command\\:foo');
    assert.equal(safeCrewMarkdown('<command:foo>'), '\\<command\\:foo\\>');
  });

  it('keeps the structure it can write safely: headings, lists, task boxes, quotes, tables, code, emphasis', () => {
    const markdown = '# Report\n\n- [x] done\n- **bold** and `code`\n  - nested\n\n> quoted\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n```js\nx ```` y\n```\n\nSee https://crewai.com &amp; _more_';
    assert.equal(
      safeCrewMarkdown(markdown),
      '# Report\n\n- ☑ done\n- **bold** and `code`\n  - nested\n\n> quoted\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\n`````js\nx ```` y\n`````\n\nSee [https\\://crewai\\.com](https://crewai.com) \\& *more*',
    );
  });
});

/**
 * Every link and image a CommonMark reader finds in `markdown` (images on, and any scheme that is not a
 * script: as lax as a renderer can be), so a neutralised text is checked by parsing, not by its look.
 */
function linksAndImages(markdown: string): string[] {
  const found: string[] = [];
  const walk = (tokens: ReturnType<InstanceType<typeof MarkdownIt>['parse']>) => {
    for (const token of tokens) {
      if (token.type === 'image') {
        found.push(`image ${token.attrGet('src')}`);
      } else if (token.type === 'link_open') {
        found.push(`link ${token.attrGet('href')}`);
      }
      walk(token.children ?? []);
    }
  };
  const reader = new MarkdownIt({ linkify: true });
  reader.validateLink = () => true;
  walk(reader.parse(markdown, {}));
  return found;
}

describe('crew Markdown in the chat: the bypasses of a pattern-matching filter', () => {
  const bypasses = {
    'image with a single-quoted title': "![pixel](https://evil.example/p.png 'title')",
    'image with a parenthesised title': '![pixel](https://evil.example/p.png (title))',
    'image with nested brackets': '![a [nested] pixel](https://evil.example/p.png)',
    'reference-style image': '![pixel][p]\n\n[p]: https://evil.example/p.png',
    'collapsed reference image': '![p][]\n\n[p]: https://evil.example/p.png "t"',
    'command link with a single-quoted title': "[run](command:workbench.action.terminal.new 'title')",
    'command link with nested brackets': '[run [it]](command:workbench.action.terminal.new)',
    'command link by reference': '[run][c]\n\n[c]: command:workbench.action.terminal.new',
    'command link in angle brackets with spaces': '[run](<command:workbench.action.terminal.new x>)',
    'image inside a link': '[![pixel](https://evil.example/p.png)](https://crewai.com)',
  };
  for (const [name, markdown] of Object.entries(bypasses)) {
    it(`${name} becomes text`, () => {
      assert.ok(linksAndImages(markdown).some((l) => l.startsWith('image') || l.includes('command:')), 'the case is a real image or command link');
      const neutral = safeCrewMarkdown(markdown);
      assert.deepEqual(linksAndImages(neutral).filter((l) => !/^link https:\/\/crewai\.com\/?$/.test(l)), [], neutral);
    });
  }

  it('keeps http(s) links and the Markdown around them', () => {
    const neutral = safeCrewMarkdown('# Report\n\nSee **the [docs](https://crewai.com)**.');
    assert.deepEqual(linksAndImages(neutral), ['link https://crewai.com']);
    assert.match(neutral, /^# Report\n/);
  });
});
