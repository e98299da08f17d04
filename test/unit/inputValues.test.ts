import * as assert from 'node:assert/strict';
import { hasValue, inputLine, inputsProblem, inputText, isInputs, MAX_INPUT_DEPTH, parseInputValue, sameValue, valueProblem } from '../../src/api/inputValues';
import { resultsAsCsv, resultsAsJsonl, type ExportedRow } from '../../src/batches/core/export';
import { mapColumns } from '../../src/batches/core/mapping';
import { parseTable } from '../../src/batches/core/tableReader';
import { kickoffConfirmation } from '../../src/chat/confirmations';
import { inputsToSend, isWorthKeeping, missingInputs } from '../../src/kickoff/core/inputSteps';
import { InputPresets } from '../../src/kickoff/core/inputPresets';
import { runLabel } from '../../src/runTracking/model';
import type { SharedValues } from '../../src/util/sharedValues';
import { SegmentCache } from '../../src/runView/page/segments';
import { buildView } from '../../src/runView/page/viewModel';
import { deepJsonText } from '../fixtures/hostileCorpus';

const INTERVIEW = { interview_data: { topic: 'Rust', questions_and_answers: [{ q: 'Why?', a: 'Safety' }, { q: 'How?', a: 'Ownership' }] } };

function memoryStore(): SharedValues {
  const values = new Map<string, string>();
  const get = <T>(key: string) => (values.has(key) ? (JSON.parse(values.get(key)!) as T) : undefined);
  return { get, change: async (key, update) => void values.set(key, JSON.stringify(update(get(key)) ?? null)) };
}

describe('Input values as JSON', () => {
  it('shows text as it is and anything else as JSON, never [object Object]', () => {
    assert.equal(inputText('a "b"\nc'), 'a "b"\nc');
    assert.equal(inputText(42), '42');
    assert.equal(inputText(INTERVIEW.interview_data), JSON.stringify(INTERVIEW.interview_data, undefined, 2));
    assert.equal(inputLine(INTERVIEW.interview_data), '{"topic":"Rust","questions_and_answers":[{"q":"Why?","a":"Safety"},{"q":"How?","a":"Ownership"}]}');
    assert.equal(inputLine(false), 'false');
    assert.equal(inputLine(null), 'null');
    assert.doesNotMatch(runLabel(INTERVIEW, 0), /object Object/);
    // A structured input names the run by its first text inside, never as raw JSON (#52).
    assert.equal(runLabel(INTERVIEW, 0), 'Rust');
    assert.equal(runLabel({ rows: [[], { notes: ['', '  ', 'Second look'] }] }, 0), 'Second look');
    assert.equal(runLabel({ settings: { depth: 3, strict: true } }, new Date(2026, 10, 28, 9, 5).getTime()), 'Run of 2026-11-28 09:05', 'no text inside: the time');
    assert.equal(runLabel({ settings: { depth: 3 }, topic: 'After it' }, 0), 'After it', 'an input with text after it names the run');
  });

  it('counts a value as given unless it is empty text or null; 0 and false are values', () => {
    assert.deepEqual([hasValue(''), hasValue('  '), hasValue(null), hasValue(undefined)], [false, false, false, false]);
    assert.deepEqual([hasValue(0), hasValue(false), hasValue([]), hasValue({}), hasValue('x')], [true, true, true, true, true]);
    const specs = [{ name: 'count', required: true }, { name: 'flag', required: true }, { name: 'data', required: true }];
    assert.deepEqual(missingInputs(specs, { count: 0, flag: false, data: null }), ['data']);
    assert.deepEqual(inputsToSend(specs, { count: 0, flag: false, data: { a: [1] } }), { count: 0, flag: false, data: { a: [1] } });
    assert.ok(sameValue({ a: [1] }, { a: [1] }) && !sameValue({ a: [1] }, { a: [2] }) && !sameValue('1', 1));
    assert.ok(isWorthKeeping({ data: { a: 1 } }, { data: '' }) && !isWorthKeeping({ data: { a: 1 } }, { data: { a: 1 } }));
  });

  it('refuses, by name, a value that is too long, nested too deeply or no JSON value, without recursing', () => {
    assert.equal(valueProblem('x', 'y'.repeat(1_000_000)), undefined, 'the old text limit still fits');
    assert.match(valueProblem('topic', 'y'.repeat(1_000_001))?.message ?? '', /"topic" is too long/);
    assert.match(valueProblem('items', Array.from({ length: 300_000 }, () => 'abcd'))?.message ?? '', /"items" is too long/);
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) {
      deep = { a: deep };
    }
    assert.equal(valueProblem('deep', deep)?.kind, 'tooDeep');
    assert.match(valueProblem('deep', deep)?.message ?? '', /"deep" is nested too deeply/);
    assert.equal(valueProblem('n', Number.NaN)?.kind, 'notJson');
    assert.equal(valueProblem('f', () => 1)?.kind, 'notJson');
    assert.equal(valueProblem('u', { a: undefined })?.kind, 'notJson');
    assert.equal(inputsProblem({ ok: INTERVIEW, bad: Infinity })?.message.includes('"bad"'), true);
    assert.ok(isInputs(INTERVIEW) && !isInputs([INTERVIEW]) && !isInputs({ a: new Date() }));
    let edge: unknown = 1;
    for (let i = 0; i < MAX_INPUT_DEPTH; i++) {
      edge = [edge];
    }
    assert.equal(valueProblem('edge', edge), undefined, `${MAX_INPUT_DEPTH} levels are fine`);
  });

  it('parses typed JSON for one input, saying the line and column of an error', () => {
    assert.deepEqual(parseInputValue('x', ' {"a": [1, true, null]} '), { ok: true, value: { a: [1, true, null] } });
    assert.deepEqual(parseInputValue('x', '"text"'), { ok: true, value: 'text' });
    const bad = parseInputValue('interview', '{\n  "topic": "Rust"\n  "questions": [1, 2]\n}');
    assert.ok(!bad.ok);
    assert.equal(bad.line, 3);
    assert.equal(bad.column, 3);
    assert.match(bad.message, /"interview" is not valid JSON \(line 3, column 3\)/);
    const unplaced = parseInputValue('interview', '{"a": [1, 2,]}');
    assert.ok(!unplaced.ok && /"interview" is not valid JSON/.test(unplaced.message), 'said even where V8 gives no position');
    const cut = parseInputValue('x', '{"a": [1');
    assert.ok(!cut.ok && cut.line === 1 && cut.column === 9, JSON.stringify(cut));
    const deep = parseInputValue('deep', deepJsonText(10_000));
    assert.ok(!deep.ok && /nested too deeply/.test(deep.message));
    const huge = parseInputValue('huge', `"${'x'.repeat(10_000_000)}"`);
    assert.ok(!huge.ok && /"huge" is too long/.test(huge.message), 'refused by its size before parsing');
  });
});

describe('Structured inputs on every path', () => {
  it('presets and input memory keep each value with its type', async () => {
    const presets = new InputPresets(memoryStore());
    await presets.rememberLastUsed('https://c', { ...INTERVIEW, count: 3, flag: false });
    assert.deepEqual(presets.lastUsed('https://c'), { ...INTERVIEW, count: 3, flag: false });
    await presets.savePreset('https://c', { name: 'p', inputs: INTERVIEW });
    assert.deepEqual(presets.presets('https://c'), [{ name: 'p', inputs: INTERVIEW }]);
    assert.deepEqual(presets.jsonChoices('https://c'), {});
    await presets.rememberJsonChoices('https://c', { data: true, topic: false });
    await presets.rememberJsonChoices('https://c', { data: false });
    assert.deepEqual(presets.jsonChoices('https://c'), { data: false, topic: false }, 'each input\'s latest switch, per crew');
    assert.deepEqual(presets.jsonChoices('https://other'), {});
    await presets.rememberUnfinished('https://c', { big: { text: 'x'.repeat(40_000) }, small: [1] });
    assert.deepEqual(presets.unfinished('https://c'), { small: [1] }, 'a value too large for global state is left out, as text is');
  });

  it('the run view shows structured inputs as indented JSON and says which they are', () => {
    const record = { id: 'r', revision: 1, crewUrl: 'https://c', crewName: 'C', kickoffId: 'k', previousKickoffIds: [], startedAt: 0, updatedAt: 0, state: 'running', watching: true, watchSince: 0, needsFeedback: false, label: 'l', kickoffIdSince: 0, seenBySource: true } as const;
    const view = buildView({ ...record, previousKickoffIds: [] }, { inputs: { ...INTERVIEW, topic: 'plain' }, tasks: [], history: [], feedbackRounds: [] }, new SegmentCache());
    assert.equal(view.summary.inputs.interview_data, JSON.stringify(INTERVIEW.interview_data, undefined, 2));
    assert.equal(view.summary.inputs.topic, 'plain');
    assert.deepEqual(view.summary.jsonInputs, ['interview_data']);
  });

  it('the chat confirmation shows the structure on one line', () => {
    const confirmation = kickoffConfirmation({ name: 'C', url: 'https://c' }, INTERVIEW);
    assert.equal(confirmation.lines[0][0], 'interview_data');
    assert.match(confirmation.lines[0][1], /^\{"topic":"Rust","questions_and_answers":\[\{"q":"Why\?"/);
  });

  it('batches: JSON Lines keep types; CSV cells are text unless the header says :json, :number or :boolean', () => {
    const lines = parseTable(`${JSON.stringify({ ...INTERVIEW, n: 2 })}\n`, 'jsonl');
    assert.deepEqual(lines.rows, [{ ...INTERVIEW, n: 2 }]);
    const csv = parseTable('topic,interview_data:json,count:number,draft : boolean,note:text\n"AI","{""topic"": ""Rust"", ""q"": [1]}",3,yes,x:y\n"42",,,,\nb,{oops,1,no,\nc,[],x,true,\nd,null,1,maybe,', 'csv');
    assert.deepEqual(csv.columns, ['topic', 'interview_data', 'count', 'draft', 'note:text']);
    assert.deepEqual(csv.rows, [
      { topic: 'AI', interview_data: { topic: 'Rust', q: [1] }, count: 3, draft: true, 'note:text': 'x:y' },
      { topic: '42', interview_data: '', count: '', draft: '', 'note:text': '' },
    ]);
    assert.deepEqual(
      csv.problems.map((p) => p.line),
      [4, 5, 6],
    );
    assert.match(csv.problems[0].message, /"interview_data" is not valid JSON/);
    assert.match(csv.problems[1].message, /"count" is not a number/);
    assert.match(csv.problems[2].message, /"draft" is not true or false/);
    const mapped = mapColumns(csv.columns, csv.rows, [{ name: 'interview_data', required: true }, { name: 'count', required: false }]);
    assert.deepEqual(mapped.inputs[0], { interview_data: { topic: 'Rust', q: [1] }, count: 3 });
    assert.deepEqual(mapped.problems, [{ row: 1, missing: ['interview_data'] }]);
  });

  it('batch exports keep structured inputs: JSON Lines as JSON, CSV under a name:json header that reads back', () => {
    const rows: ExportedRow[] = [
      { row: 1, inputs: { topic: 'AI', interview_data: INTERVIEW.interview_data }, state: 'succeeded', kickoff_id: 'k1', output: 'o', error: '' },
      { row: 2, inputs: { topic: 'B', interview_data: 'as text' }, state: 'failed', kickoff_id: 'k2', output: '', error: 'e' },
    ];
    const jsonl = resultsAsJsonl(rows).trim().split('\n').map((line) => JSON.parse(line) as { inputs: unknown });
    assert.deepEqual(jsonl[0].inputs, rows[0].inputs);
    const csv = resultsAsCsv(rows, ['topic', 'interview_data']);
    assert.doesNotMatch(csv, /object Object/);
    assert.match(csv.split('\r\n')[0], /^row,topic,interview_data:json,state/);
    const back = parseTable(csv, 'csv');
    assert.deepEqual(back.rows.map((r) => [r.topic, r.interview_data]), [['AI', INTERVIEW.interview_data], ['B', 'as text']]);
  });
});
