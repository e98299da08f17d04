// A deployment log read into lines (api/logLines.ts) and, on the status reader's thread, from its bytes into its
// document's text (api/logBody.ts): every line of a 50,000-line log, in one pass from its end, each inert and cut,
// the token out of all of it, within a budget that always keeps the last lines.
import * as assert from 'node:assert/strict';
import { REPLY_VALUE_BUDGET } from '../../src/api/jsonBody';
import { readLogLines as readLogLinesOfBody, readLogText } from '../../src/api/logBody';
import { lastLogLines, logLineText, logText, MAX_LOG_LINES, MAX_LOG_TEXT_CHARS, readLogLine, readLogLines } from '../../src/api/logLines';

const TOKEN = 'log-lines-canary-7741';
const bytes = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));
const entries = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ timestamp: '2026-01-02T00:00:00Z', level: ['info', 'warning', 'debug'][i % 3], message: `line ${from + i}` }));

describe('Deployment log lines (#45)', () => {
  it('makes every line of a 50,000-line log, in order, each as its document shows it', () => {
    const body = entries(MAX_LOG_LINES);
    const log = logText(body);
    const lines = log.text.split('\n');
    assert.deepEqual([log.count, lines.length, log.dropped], [MAX_LOG_LINES, MAX_LOG_LINES, 0]);
    assert.equal(lines[0], '2026-01-02T00:00:00Z  INFO   line 0');
    assert.equal(lines[1], '2026-01-02T00:00:00Z  WARNING  line 1');
    assert.equal(lines.at(-1), `2026-01-02T00:00:00Z  WARNING  line ${MAX_LOG_LINES - 1}`);
    // The lines the host reads (a failed redeploy's first error, the chat tool) are the very same.
    assert.deepEqual(lines, readLogLines(body).lines.map(logLineText));
    assert.deepEqual(lastLogLines(body), { lines: readLogLines(body).lines, dropped: 0 });
  });

  it('keeps the last 50,000 lines of a longer log and counts the earlier ones', () => {
    const log = logText(entries(60_000));
    assert.deepEqual([log.count, log.dropped], [MAX_LOG_LINES, 10_000]);
    assert.ok(log.text.startsWith('2026-01-02T00:00:00Z  WARNING  line 10000\n'));
    assert.equal(lastLogLines(entries(60_000)).dropped, 10_000);
  });

  it('reads every shape of entry as the log document did: strings, msg, time and severity, numbers; no line for the rest', () => {
    const body = { data: ['plain', { msg: 'by msg', time: 1767312000, severity: ' err ' }, { level: 'info' }, 5, null, { message: 'bare' }, { message: 'no time', level: 'x' }] };
    assert.deepEqual(logText(body), { text: 'plain\n1767312000  ERR    by msg\nbare\nX      no time', count: 4, dropped: 0 });
    assert.deepEqual(readLogLine({ message: 'm', timestamp: '  ', level: '' }), { timestamp: undefined, level: undefined, message: 'm' });
  });

  it('cuts a long line with an ellipsis (never half a surrogate pair) and keeps every line', () => {
    const log = logText([{ message: `long ${'y'.repeat(1_000_000)}` }, 'short', { msg: `${'z'.repeat(3998)}😀😀` }]);
    const [long, short, pair] = log.text.split('\n');
    assert.equal(log.count, 3);
    assert.equal(long.length, 4000);
    assert.ok(long.endsWith('y…'));
    assert.equal(short, 'short');
    assert.ok(pair.endsWith('z…'), 'never half a surrogate pair');
  });

  it('keeps each entry on one line and inert: no link, no icon, no bidi control', () => {
    const log = logText([{ timestamp: 't\n1', level: 'in\u202efo', message: 'click [here](command:x) $(zap)\r\nnext\u2028line\ttab' }, 'two\nlines']);
    assert.equal(log.count, 2);
    assert.equal(log.text.split('\n').length, 2, 'a message’s line breaks are spaces');
    assert.ok(!/\]\(|\$\(|[\u202e\r\t\u2028]/.test(log.text), JSON.stringify(log.text));
    assert.equal(log.text.split('\n')[1], 'two lines');
  });

  it('reads each level right however many different levels a log sends (it remembers the column of only a few)', () => {
    const body = Array.from({ length: 200 }, (_, i) => ({ level: `l${i % 100}`, message: 'm' }));
    assert.deepEqual(logText(body).text.split('\n'), body.map((e) => `${e.level.toUpperCase().padEnd(5)}  m`));
  });

  it('keeps the last lines that fit in its budget, counts the rest, and never shows no line', () => {
    const ys = 'y'.repeat(5000);
    const long = entries(MAX_LOG_LINES).map((e, i) => ({ ...e, message: `${i} ${ys}` }));
    const log = logText(long);
    const shown = log.text.split('\n');
    assert.ok(log.text.length <= MAX_LOG_TEXT_CHARS);
    assert.equal(shown.length, log.count);
    assert.equal(log.count + log.dropped, MAX_LOG_LINES, 'every line is shown or counted');
    assert.ok(log.count > 1000 && log.count < 3000, `${log.count} lines of some 4,000 characters in 8 M`);
    assert.ok(shown.at(-1)!.includes(`  ${MAX_LOG_LINES - 1} yyy`), 'the last line is there');
    assert.ok(shown[0].includes(`  ${log.dropped} yyy`), 'the lines before it, without a gap');
    const lines = lastLogLines(long);
    assert.deepEqual([lines.lines.length, lines.dropped], [log.count, log.dropped], 'the host’s lines are the same');
    // A budget smaller than one line still shows the last.
    assert.deepEqual(logText(long, 10), { text: shown.at(-1), count: 1, dropped: MAX_LOG_LINES - 1 });
  });
});

describe('Deployment log read on the reader’s thread: bytes to text (#45)', () => {
  it('takes the token out of every field of every line, however the body spells it', () => {
    const escaped = [...TOKEN].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const withControls = [...TOKEN].join('\\u0000');
    const body = `[{"timestamp":"${TOKEN}","level":"${TOKEN}","message":"key ${TOKEN} end"},{"message":"escaped ${escaped}"},{"message":"split ${withControls}"},"${TOKEN}"]`;
    const log = readLogText(bytes(body), TOKEN);
    assert.equal(log.count, 4);
    assert.ok(!log.text.includes(TOKEN) && log.text.includes('key *** end'), log.text);
    assert.ok(!log.text.replace(/[\u0000-\u001f]/g, '').includes(TOKEN));
    // The lines the host reads hold it nowhere either: the whole body is redacted before it is cut into lines.
    assert.ok(!readLogLinesOfBody(bytes(body), TOKEN).lines.some((l) => JSON.stringify(l).includes(TOKEN)));
  });

  it('reads a body past the JSON.parse budget with the bounded reader: the same last lines, the earlier ones counted', () => {
    const body = entries(MAX_LOG_LINES + 20_000).map((e) => ({ ...e, message: `${e.message} ${'w'.repeat(100)}` }));
    const text = JSON.stringify(body);
    assert.ok(text.length > REPLY_VALUE_BUDGET, `${text.length} characters`);
    const read = readLogText(bytes(text), TOKEN);
    assert.deepEqual(read, logText(body));
    assert.equal(read.count + read.dropped, MAX_LOG_LINES + 20_000);
    assert.deepEqual(readLogLinesOfBody(bytes(text), TOKEN), lastLogLines(body));
  });

  it('shows no line for a body that is no JSON or no log, and reads a wrapped one', () => {
    assert.deepEqual(readLogText(bytes('<html>oops</html>'), TOKEN), { text: '', count: 0, dropped: 0 });
    assert.deepEqual(readLogText(bytes(''), TOKEN), { text: '', count: 0, dropped: 0 });
    assert.deepEqual(readLogText(bytes({ status: 'ok' }), TOKEN), { text: '', count: 0, dropped: 0 });
    assert.equal(readLogText(bytes({ logs: entries(3) }), TOKEN).count, 3);
  });
});
