// Issue 49: the trace comparison's text. It quotes crew text (crew, run, task, agent, tool and model names): rendered
// as VS Code's Markdown preview renders (HTML and bare links on), none of it may format, link, embed or add a row.
import * as assert from 'node:assert/strict';
import MarkdownIt from 'markdown-it';
import type { RunEvent } from '../../src/api/types';
import { compareTraces } from '../../src/runTracking/trace/traceCompare';
import { buildTrace } from '../../src/runTracking/trace/traceModel';
import { type ComparedRun, comparisonMarkdown } from '../../src/runView/traceComparisonMarkdown';

/** Crew text that would format, link, embed or add rows and headings if it were Markdown (each under the 80 characters shown). */
const LINKS = '[x](command:workbench.action.quit) https://evil.example www.evil.example';
const HTML = '<img src=x onerror=alert(1)> &lt;b&gt; <script>1</script>';
const FORMAT = '`code` **bold** _em_ | cell\n# heading';

function spans(toolMs: number, tool = 'search') {
  let n = 0;
  let at = 1_000;
  const events: RunEvent[] = [];
  const ev = (type: string, fields: Partial<RunEvent> = {}, ms = 0): string => {
    const id = `e${++n}`;
    at += ms;
    events.push({ key: `id:${id}`, id, type, at, ...fields });
    return id;
  };
  const who = { taskId: 'T', taskName: LINKS, agentId: 'A', agentRole: HTML };
  const crew = ev('crew_kickoff_started');
  const task = ev('task_started', { ...who, parentId: crew });
  const agent = ev('agent_execution_started', { ...who, parentId: task });
  const call = ev('tool_usage_started', { ...who, parentId: agent, toolName: tool });
  ev('tool_usage_finished', { ...who, startedId: call, toolName: tool }, toolMs);
  ev('agent_execution_completed', { ...who, startedId: agent });
  ev('task_completed', { ...who, startedId: task });
  ev('crew_kickoff_completed', { startedId: crew });
  return buildTrace(events, true, at).spans;
}

const run = (label: string, more: Partial<ComparedRun> = {}): ComparedRun => ({ crewName: HTML, label, started: '1 Oct 2026, 10:00', state: 'succeeded', ...more });

/** VS Code's preview: markdown-it with raw HTML and bare links on. */
const render = (markdown: string) => new MarkdownIt({ html: true, linkify: true }).render(markdown);
/** The text as read, escapes dropped. */
const plain = (markdown: string) => markdown.replace(/\\(.)/g, '$1');

describe('trace comparison text (issue 49)', () => {
  it('crew text shows as itself: no link, no HTML, no formatting, no extra row or heading', () => {
    const markdown = comparisonMarkdown(run(FORMAT), run(LINKS), compareTraces(spans(100), spans(2_000, FORMAT)));
    const html = render(markdown);
    assert.doesNotMatch(html, /<a\b|<img\b|<script\b|<code\b|<em\b|<h3\b/, html);
    assert.doesNotMatch(html, /<h1>[^<]*heading/);
    assert.equal((html.match(/<h1>/g) ?? []).length, 1, 'our heading only');
    const rows = (html.match(/<tr>/g) ?? []).length;
    // Runs 1 + 4, totals 1 + 6, changed steps 1 + 5 (crew, task, agent slower; a tool call added, one missing), all steps 1 + 5.
    assert.equal(rows, 24, markdown);
    assert.ok(html.includes('&lt;img src=x onerror=alert(1)&gt;'), 'the tag shows as text');
    assert.ok(html.includes('&amp;lt;b&amp;gt;'), 'an entity shows as written');
    assert.ok(html.includes('https://evil.example'), 'the address shows, as text');
    for (const table of html.split('<table>').slice(1)) {
      const widths = [...table.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) => (row[1].match(/<t[dh]\b/g) ?? []).length);
      assert.equal(new Set(widths).size, 1, `every row of a table as wide as its head: ${widths.join(',')}`);
    }
  });

  it('says plainly when a run has no trace, and why', () => {
    const off = plain(comparisonMarkdown(run('A', { noEvents: 'off' }), run('B'), undefined));
    assert.match(off, /A \(A\) has no trace: its crew’s runtime sends no event log/);
    assert.match(off, /CREWAI_STATUS_EVENTS=true/);
    assert.match(off, /newer crewai/);
    assert.doesNotMatch(off, /Changed steps|All steps/);
    assert.match(plain(comparisonMarkdown(run('A'), run('B', { noEvents: 'none' }), undefined)), /B \(B\) has no trace: it reported no events\./);
  });

  it('lists the changes, then every step, with deltas and verdicts', () => {
    const markdown = plain(comparisonMarkdown(run('A'), run('B'), compareTraces(spans(100), spans(2_000))));
    assert.match(markdown, /\*\*Changes:\*\* 4 slower\n/, 'the tool call and the steps it is in');
    assert.match(markdown, /## Changed steps[\s\S]*## All steps/);
    assert.match(markdown, /\| (·\u2002){3}search \| Tool call \| 100 ms \| 2s \| \+1\.9s \| — \| — \| — \| \*\*▲ slower\*\* \|/);
    assert.match(plain(comparisonMarkdown(run('A'), run('B'), compareTraces(spans(100), spans(100)))), /\*\*No step changed\.\*\*/);
  });
});
