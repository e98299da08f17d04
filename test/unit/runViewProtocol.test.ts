import * as assert from 'node:assert/strict';
import type { RunDetails, RunRecord } from '../../src/runTracking/model';
import { isSafeLink, parsePageMessage } from '../../src/runView/page/messages';
import { FIRST_SEGMENT_TARGET, SEGMENT_TARGET, SegmentCache, segmentContent, segmentText, textKey } from '../../src/runView/page/segments';
import { buildView, FIELD_MAX, FINAL_PREVIEW, MAX_SHOWN_TASKS, MAX_SHOWN_USAGE, outputView, type RunView } from '../../src/runView/page/viewModel';
import { applyPatch, diffViews } from '../../src/runView/page/viewPatch';
import { manyUsageKeys } from '../fixtures/hostileCorpus';

function record(over: Partial<RunRecord> = {}): RunRecord {
  return {
    id: 'run-1',
    revision: 1,
    crewUrl: 'https://crew.example.com',
    crewName: 'Research crew',
    kickoffId: 'k-1',
    previousKickoffIds: [],
    startedAt: 1000,
    updatedAt: 1000,
    state: 'queued',
    watching: true,
    watchSince: 1000,
    needsFeedback: false,
    label: 'llamas',
    kickoffIdSince: 1000,
    seenBySource: false,
    ...over,
  };
}

function details(over: Partial<RunDetails> = {}): RunDetails {
  return { inputs: { topic: 'llamas' }, tasks: [], history: [{ state: 'queued', at: 1000 }], feedbackRounds: [], ...over };
}

function bytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}

describe('run view protocol: parsePageMessage', () => {
  it('accepts the known messages with well-typed fields, as fresh objects', () => {
    assert.deepEqual(parsePageMessage({ type: 'ready', extra: 1 }), { type: 'ready' });
    assert.deepEqual(parsePageMessage({ type: 'action', action: 'copyOutput' }), { type: 'action', action: 'copyOutput' });
    assert.deepEqual(parsePageMessage({ type: 'openLink', href: 'https://a.example/' }), { type: 'openLink', href: 'https://a.example/' });
    assert.deepEqual(parsePageMessage({ type: 'loadMore', target: 'final', key: 'k', segment: 2 }), { type: 'loadMore', target: 'final', key: 'k', segment: 2 });
    assert.deepEqual(parsePageMessage({ type: 'loadMore', target: 3, key: 'k', segment: 0 }), { type: 'loadMore', target: 3, key: 'k', segment: 0 });
    assert.deepEqual(parsePageMessage({ type: 'loadMore', target: 'final', key: 'k', segment: 2, deflate: true }), { type: 'loadMore', target: 'final', key: 'k', segment: 2, deflate: true });
    assert.deepEqual(parsePageMessage({ type: 'loadMore', target: 'final', key: 'k', segment: 2, deflate: 'yes' }), { type: 'loadMore', target: 'final', key: 'k', segment: 2 });
    assert.deepEqual(parsePageMessage({ type: 'openTaskOutput', index: 0 }), { type: 'openTaskOutput', index: 0 });
  });

  it('rejects unknown types, unknown actions and wrong field types', () => {
    const bad: unknown[] = [
      null,
      'ready',
      [],
      {},
      { type: 'eval', code: '1' },
      { type: 'action', action: 'executeCommand' },
      { type: 'action', action: 'constructor' },
      { type: 'action' },
      { type: 'openLink', href: 42 },
      { type: 'openLink', href: 'x'.repeat(10_000) },
      { type: 'loadMore', target: 'all', key: 'k', segment: 0 },
      { type: 'loadMore', target: -1, key: 'k', segment: 0 },
      { type: 'loadMore', target: 1.5, key: 'k', segment: 0 },
      { type: 'loadMore', target: 'final', key: 'k', segment: -1 },
      { type: 'loadMore', target: 'final', key: 7, segment: 0 },
      { type: 'openTaskOutput', index: '1' },
      { type: 'rendered', report: { stateText: 'x' } },
      { type: 'rendered' },
    ];
    for (const message of bad) {
      assert.equal(parsePageMessage(message), undefined, JSON.stringify(message)?.slice(0, 80));
    }
  });

  it('accepts a complete report and drops extra fields', () => {
    const report = {
      stateText: 'running',
      message: '',
      elapsedText: '1s',
      progressText: '',
      currentTask: '',
      taskSections: 1,
      hasFinalOutput: false,
      finalOutputTextLength: 0,
      finalOutputComplete: false,
      hasError: false,
      timelineEntries: 2,
      feedbackRounds: 0,
      scriptElements: 0,
      eventHandlerAttributes: 0,
      unsafeElements: 0,
      links: 0,
      unsafeLinks: 0,
      renderMs: 3,
      longestTaskMs: 0,
      messagesHandled: 1,
      markdownMs: 2,
      insertMs: 1,
      waitMs: 0,
      longestPieceMs: 2,
      workerPieces: 0,
      scanMs: 0,
      startup: 'runView.js 5-20; ready 30 ms',
      traceSummary: '2s · 1 tasks',
      traceNotice: '',
      traceRows: 'crew Crew ok',
      traceSelected: '',
      traceSpans: 1,
      traceFailed: 0,
      traceRunning: 0,
    };
    const parsed = parsePageMessage({ type: 'rendered', report: { ...report, injected: '<b>' } });
    assert.deepEqual(parsed, { type: 'rendered', report });
    assert.equal(parsePageMessage({ type: 'rendered', report: { ...report, links: -1 } }), undefined);
    assert.equal(parsePageMessage({ type: 'rendered', report: { ...report, hasError: 'no' } }), undefined);
  });

  it('accepts a trace row\'s details to copy, bounded', () => {
    assert.deepEqual(parsePageMessage({ type: 'copyText', text: '{"name":"search"}', extra: 1 }), { type: 'copyText', text: '{"name":"search"}' });
    assert.equal(parsePageMessage({ type: 'copyText', text: 'x'.repeat(300 * 1024) }), undefined);
    assert.equal(parsePageMessage({ type: 'copyText', text: 42 }), undefined);
    assert.deepEqual(parsePageMessage({ type: 'action', action: 'exportTrace' }), { type: 'action', action: 'exportTrace' });
    assert.deepEqual(parsePageMessage({ type: 'action', action: 'compareTraces' }), { type: 'action', action: 'compareTraces' });
  });
});

describe('run view protocol: isSafeLink', () => {
  it('allows only absolute http(s) URLs', () => {
    for (const ok of ['https://example.com', 'http://example.com/a?b#c', 'HTTPS://EXAMPLE.COM/x', ' https://example.com ']) {
      assert.ok(isSafeLink(ok), ok);
    }
    for (const bad of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      ' javascript:alert(1)',
      'command:workbench.action.terminal.new',
      'vscode://file/etc/passwd',
      'file:///etc/passwd',
      'data:text/html,<script>alert(1)</script>',
      'mailto:a@b.c',
      '//example.com',
      '/relative',
      'example.com',
      'https://',
      'http:/example.com',
      '',
    ]) {
      assert.ok(!isSafeLink(bad), bad);
    }
  });
});

describe('run view protocol: segmentText', () => {
  function join(text: string, kind: 'markdown' | 'json', target: number, max: number): string {
    return segmentText(text, kind, target, max)
      .map((s) => text.slice(s.start, s.end))
      .join('');
  }

  it('keeps a short text in one segment', () => {
    assert.deepEqual(segmentText('hello', 'markdown'), [{ start: 0, end: 5 }]);
  });

  it('covers the text exactly, in order, with segments no longer than max', () => {
    const para = (i: number) => `Paragraph ${i} ${'word '.repeat(i % 37)}\n\n`;
    const text = Array.from({ length: 400 }, (_, i) => para(i)).join('');
    const segments = segmentText(text, 'markdown', 1000, 2000);
    assert.ok(segments.length > 10);
    assert.equal(join(text, 'markdown', 1000, 2000), text);
    let at = 0;
    for (const s of segments) {
      assert.equal(s.start, at);
      assert.ok(s.end - s.start <= 2000);
      at = s.end;
    }
    // Cut at blank lines: every segment but the last ends with an empty line.
    for (const s of segments.slice(0, -1)) {
      assert.ok(text.slice(s.start, s.end).endsWith('\n\n'));
    }
  });

  it('does not cut inside a fenced block when a boundary exists, and reopens a fence it must cut', () => {
    const fence = '```python\n' + 'x = 1\n'.repeat(1000) + '```\n';
    const text = 'intro\n\n' + fence + '\nafter\n';
    const segments = segmentText(text, 'markdown', 1000, 2000);
    assert.ok(segments.length > 1);
    assert.equal(join(text, 'markdown', 1000, 2000), text);
    const reopened = segments.filter((s) => s.prefix !== undefined);
    assert.ok(reopened.length > 0, 'a fence cut in two is reopened');
    for (const s of reopened) {
      assert.equal(s.prefix, '```python\n');
      assert.ok(segmentContent(text, s).startsWith('```python\nx = 1'));
    }
    // The segment after the fence closed needs no prefix.
    assert.equal(segments[segments.length - 1].prefix === undefined || text.slice(segments[segments.length - 1].start).includes('```'), true);
  });

  it('cuts a single huge line anywhere', () => {
    const text = 'a'.repeat(10_000);
    const segments = segmentText(text, 'markdown', 1000, 2000);
    assert.equal(join(text, 'markdown', 1000, 2000), text);
    assert.ok(segments.every((s) => s.end - s.start <= 2000));
  });

  it('cuts JSON text at line ends', () => {
    const text = JSON.stringify({ items: Array.from({ length: 2000 }, (_, i) => ({ i, name: `item ${i}` })) }, null, 2);
    const segments = segmentText(text, 'json', 1000, 2000);
    assert.equal(join(text, 'json', 1000, 2000), text);
    for (const s of segments.slice(0, -1)) {
      assert.equal(text[s.end - 1], '\n');
    }
  });

  it('segments 5 MB whole, each segment starting where the last ended', () => {
    // How fast is the bench's (the run view's Show All of a 5 MB output).
    const text = '## Section\n\nSome text with a [link](https://example.com).\n\n'.repeat(90_000);
    assert.ok(text.length > 5_000_000);
    const segments = segmentText(text, 'markdown');
    assert.equal(segments[0].start, 0);
    segments.slice(1).forEach((s, i) => assert.equal(s.start, segments[i].end, `segment ${i + 1}`));
    assert.equal(segments[segments.length - 1].end, text.length);
  });
});

describe('run view protocol: outputView', () => {
  it('previews about the budget and counts segments', () => {
    const text = 'Line of text for the preview.\n\n'.repeat(300_000);
    const view = outputView(text, 'markdown', FINAL_PREVIEW, new SegmentCache());
    assert.equal(view.length, text.length);
    assert.ok(view.previewSegments >= 1 && view.previewSegments < view.segmentCount);
    assert.ok(view.preview.length <= FINAL_PREVIEW + 300_000);
    assert.ok(text.startsWith(view.preview));
    assert.ok(bytes(view) < 512 * 1024);
  });

  it('a long output opens on a short first segment (its first screen renders fast); short outputs stay whole', () => {
    const long = 'A paragraph of the report, with **bold** words.\n\n'.repeat(100_000);
    const view = outputView(long, 'markdown', FINAL_PREVIEW, new SegmentCache());
    assert.equal(view.previewSegments, 1);
    assert.ok(view.preview.length >= FIRST_SEGMENT_TARGET && view.preview.length < FIRST_SEGMENT_TARGET + 1024, `preview ${view.preview.length}`);
    const rest = segmentText(long, 'markdown').slice(1, -1);
    assert.ok(rest.every((s) => s.end - s.start >= SEGMENT_TARGET), 'the rest in full-size segments');
    const short = 'A paragraph.\n\n'.repeat(4000); // 60 KB
    assert.deepEqual(outputView(short, 'markdown', FINAL_PREVIEW, new SegmentCache()).preview, short);
  });

  it('keys change with the text', () => {
    assert.notEqual(textKey('a'.repeat(10_000)), textKey('a'.repeat(9_999) + 'b'));
    assert.notEqual(textKey('abc'), textKey('abd'));
    assert.equal(textKey('same'), textKey('same'));
  });

  it('keys change with any same-length edit, also between places a sample would look at', () => {
    const text = `_ALPHA123_ report\n\n${'Llamas hum to each other.\n\n'.repeat(2000)}`;
    const key = textKey(text);
    for (const at of [1, 5, 11, 2_000, 20_001, text.length - 100]) {
      const edited = `${text.slice(0, at)}${text[at] === 'Z' ? 'Y' : 'Z'}${text.slice(at + 1)}`;
      assert.equal(edited.length, text.length);
      assert.notEqual(textKey(edited), key, `an edit at ${at}`);
    }
  });
});

describe('run view model: what the page says in plain words', () => {
  const cache = new SegmentCache();

  it('drops the "Thought:" CrewAI puts before a thought (the page labels it)', () => {
    const snapshot = { state: 'running' as const, tasks: [], raw: {}, lastStep: { thought: 'Thought: I should look up llamas', tool: 'search' } };
    const view = buildView(record({ state: 'running' }), details({ lastSnapshot: snapshot }), cache);
    assert.equal(view.summary.lastStep?.thought, 'I should look up llamas');
    assert.equal(view.summary.lastStep?.tool, 'search');
  });

  it('hides a server sentence that only repeats the state ("Task is Running" under Running), keeps one that says more', () => {
    const history = [
      { state: 'running' as const, at: 1, message: 'Task is Running' },
      { state: 'failed' as const, at: 2, message: 'Out of credits' },
    ];
    const repeated = buildView(record({ state: 'running', message: 'Task is Running' }), details({ history }), cache);
    assert.equal(repeated.summary.message, undefined);
    assert.deepEqual(repeated.history.map((h) => h.message), [undefined, 'Out of credits']);
    const lagging = buildView(record({ state: 'succeeded', message: 'Task is Running' }), details(), cache);
    assert.equal(lagging.summary.message, 'Task is Running', 'words that differ from the state are the server\'s to say');
  });

  it('says "redoing" the reviewed task after Request Changes, while the crew does it again', () => {
    const tasks = [{ name: 'research_task', output: 'Notes', taskId: 't1' }, { name: 'review_task', output: 'Draft', taskId: 't2' }];
    const progress = { unit: 'task' as const, completed: 1, total: 3 };
    const changes = details({ tasks, feedbackRounds: [{ at: 2000, approve: false, feedback: 'Shorter', taskId: 't2' }] });
    assert.equal(buildView(record({ state: 'running', currentTask: 'review_task', progress }), changes, cache).summary.redoing, 'review_task');
    assert.equal(buildView(record({ state: 'running', currentTask: 'writing_task', progress }), changes, cache).summary.redoing, undefined, 'another task is not a redo');
    assert.equal(buildView(record({ state: 'awaitingFeedback', needsFeedback: true, currentTask: 'review_task' }), changes, cache).summary.redoing, undefined, 'waiting again');
    const approved = details({ tasks, feedbackRounds: [{ at: 2000, approve: true, feedback: '', taskId: 't2' }] });
    assert.equal(buildView(record({ state: 'running', currentTask: 'review_task', progress }), approved, cache).summary.redoing, undefined, 'an approval redoes nothing');
  });

  it('names the reviewed task of a feedback round by its name when a task has that id', () => {
    const d = details({
      tasks: [{ name: 'Research llamas', output: 'Notes', taskId: 'task-7f3a' }],
      feedbackRounds: [
        { at: 2000, approve: false, feedback: 'More', taskId: 'task-7f3a' },
        { at: 3000, approve: true, feedback: '', taskId: 'unknown-id' },
      ],
    });
    const view = buildView(record(), d, cache);
    assert.equal(view.feedbackRounds[0].taskName, 'Research llamas');
    assert.equal(view.feedbackRounds[1].taskName, undefined);
    assert.equal(view.feedbackRounds[1].taskId, 'unknown-id');
  });

  it('carries task changes of the timeline', () => {
    const d = details({ history: [{ state: 'queued', at: 1000 }, { state: 'running', at: 2000 }, { state: 'running', at: 3000, task: 'Write the report' }] });
    const view = buildView(record({ state: 'running' }), d, cache);
    assert.deepEqual(view.history.map((h) => h.task ?? h.state), ['queued', 'running', 'Write the report']);
  });
});

describe('run view protocol: buildView and diffViews', () => {
  const cache = new SegmentCache();

  function roundTrip(prev: RunView, next: RunView): void {
    const patch = diffViews(prev, next);
    if (!patch) {
      assert.deepEqual(prev, next);
      return;
    }
    assert.deepEqual(applyPatch(prev, patch), next);
  }

  it('sends nothing when nothing changed', () => {
    const a = buildView(record(), details(), cache);
    const b = buildView(record(), details(), cache);
    assert.equal(diffViews(a, b), undefined);
  });

  it('sends only the changed summary keys, and unsets the cleared ones', () => {
    const a = buildView(record({ state: 'running', message: 'Task is Running', currentTask: 'research' }), details(), cache);
    const b = buildView(record({ state: 'running', message: 'Still running', updatedAt: 2000 }), details(), cache);
    const patch = diffViews(a, b);
    assert.deepEqual(patch, { set: { message: 'Still running', updatedAt: 2000 }, unset: ['currentTask'] });
    roundTrip(a, b);
  });

  it('appends new tasks, history entries and feedback rounds without resending old ones', () => {
    const big = 'x'.repeat(50_000);
    const d1 = details({ tasks: [{ name: 't1', output: big }], history: [{ state: 'queued', at: 1 }, { state: 'running', at: 2 }] });
    const d2 = details({
      tasks: [{ name: 't1', output: big }, { name: 't2', output: 'second' }],
      history: [...d1.history, { state: 'awaitingFeedback', at: 3 }],
      feedbackRounds: [{ at: 4, approve: false, feedback: 'more llamas', taskId: 'tid', output: 'second' }],
    });
    const a = buildView(record({ state: 'running' }), d1, cache);
    const b = buildView(record({ state: 'awaitingFeedback', needsFeedback: true }), d2, cache);
    const patch = diffViews(a, b)!;
    assert.equal(patch.tasks?.from, 1);
    assert.equal(patch.tasks?.items.length, 1);
    assert.equal(patch.history?.from, 2);
    assert.equal(patch.feedbackRounds?.from, 0);
    assert.ok(bytes(patch) < 2000, `patch is small (${bytes(patch)} bytes)`);
    roundTrip(a, b);
  });

  it('replaces the task list from the first difference when a complete list reorders it', () => {
    const d1 = details({ tasks: [{ name: 'b', output: '2' }, { name: 'a', output: '1' }] });
    const d2 = details({ tasks: [{ name: 'a', output: '1' }, { name: 'b', output: '2' }] });
    const a = buildView(record(), d1, cache);
    const b = buildView(record(), d2, cache);
    assert.equal(diffViews(a, b)?.tasks?.from, 0);
    roundTrip(a, b);
  });

  it('sends the final output once, and again only when it changes', () => {
    const final = { kind: 'markdown' as const, text: '# Done\n\nAll good.' };
    const a = buildView(record({ state: 'running' }), details(), cache);
    const b = buildView(record({ state: 'succeeded', finishedAt: 5000 }), details({ finalOutput: final }), cache);
    const c = buildView(record({ state: 'succeeded', finishedAt: 5000, updatedAt: 6000 }), details({ finalOutput: { ...final } }), cache);
    assert.ok(diffViews(a, b)?.final);
    assert.equal(diffViews(b, c)?.final, undefined);
    roundTrip(a, b);
    roundTrip(b, c);
  });

  it('keeps every message small with a 5 MB final output', () => {
    const text = 'A paragraph of the final report, long enough to matter.\n\n'.repeat(90_000);
    const v = buildView(record({ state: 'succeeded' }), details({ finalOutput: { kind: 'markdown', text } }), cache);
    assert.ok(text.length > 5_000_000);
    assert.ok(bytes(v) < 400 * 1024, `init view is ${bytes(v)} bytes`);
  });

  it('cuts long agent step fields and drops empty ones', () => {
    const v = buildView(
      record({ state: 'running' }),
      details({ lastSnapshot: { state: 'running', tasks: [], raw: {}, lastStep: { thought: '', tool: 'search', result: 'r'.repeat(FIELD_MAX * 2) } } }),
      cache,
    );
    assert.equal(v.summary.lastStep?.thought, undefined);
    assert.equal(v.summary.lastStep?.tool, 'search');
    assert.ok((v.summary.lastStep?.result?.length ?? 0) <= FIELD_MAX + 1);
  });

  it('round-trips random sequences of changes', () => {
    let prev = buildView(record(), details(), cache);
    const states = ['queued', 'running', 'awaitingFeedback', 'running', 'succeeded'] as const;
    const tasks: { name: string; output: string }[] = [];
    const history: { state: (typeof states)[number]; at: number }[] = [];
    for (let i = 0; i < 40; i++) {
      if (i % 3 === 0) {tasks.push({ name: `t${i}`, output: `out ${i}` });}
      if (i % 5 === 0) {history.push({ state: states[(i / 5) % states.length], at: i });}
      if (i % 11 === 0 && tasks.length > 1) {tasks.reverse();}
      const next = buildView(
        record({ state: states[i % states.length], message: i % 2 ? `m${i}` : undefined, progress: i % 4 ? { unit: 'task', completed: i, total: i % 3 ? 40 : null } : undefined }),
        details({ tasks: [...tasks], history: [...history], finalOutput: i > 30 ? { kind: 'json', text: `{"i": ${i}}`, json: { i } } : undefined }),
        cache,
      );
      roundTrip(prev, next);
      prev = next;
    }
  });
});

describe('run view protocol: huge runs (issue 14, finding 3)', () => {
  it('20,000 tasks: the view carries the first MAX_SHOWN_TASKS and says how many are hidden', () => {
    const tasks = Array.from({ length: 20_000 }, (_, i) => ({ name: `task ${i}`, output: `out ${i}` }));
    const view = buildView(record(), details({ tasks }), new SegmentCache());
    assert.equal(view.tasks.length, MAX_SHOWN_TASKS);
    assert.equal(view.summary.tasksHidden, 20_000 - MAX_SHOWN_TASKS);
    assert.equal(view.tasks[0].name, 'task 0');
    const small = buildView(record(), details({ tasks: tasks.slice(0, 3) }), new SegmentCache());
    assert.equal(small.summary.tasksHidden, undefined);
  });

  it('usage_metrics with 100,000 keys: the view carries the first MAX_SHOWN_USAGE and says how many are hidden', () => {
    const usage = manyUsageKeys(100_000);
    const view = buildView(record(), details({ lastSnapshot: { state: 'running', rawState: 'RUNNING', tasks: [], usage, raw: {} } as RunDetails['lastSnapshot'] }), new SegmentCache());
    assert.equal(Object.keys(view.summary.usage ?? {}).length, MAX_SHOWN_USAGE);
    assert.equal(view.summary.usageHidden, 100_000 - MAX_SHOWN_USAGE);
    assert.ok(bytes(view) < 100_000, `the view is ${bytes(view)} bytes`);
  });
});
