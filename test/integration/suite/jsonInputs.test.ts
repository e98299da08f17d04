// Issue 33, "any input a crew takes": the Interview Crew of the simulator takes an object with a list
// inside and refuses a string with FastAPI's 422. Started every way the extension starts a run — the
// wizard's JSON step, Kick Off with JSON, input memory and a preset, Run Again, a JSON Lines batch, a
// typed CSV column, the chat tool — the simulator must each time hold an object for that input.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { batchProgress } from '../../../src/batches/core/model';
import { demoCrews, startSimulator, type CrewConfig, type Simulator } from '../../../src/simulator/server';
import { addCrewWithToken, executeCommand, waitFor } from '../helpers';
import {
  type Api,
  clearNotifications,
  closeQuickInput,
  openJsonEditor,
  pickInQuickInput,
  pressInQuickInput,
  type QuickInputKeys,
  removeAllCrews,
  removeRunsOf,
  SLOW,
  testApi,
  typeInQuickInput,
  waitForQuickInput,
  waitForQuickInputClosed,
} from './support/kit';
import { ui } from '../helpers';

const INTERVIEW = { topic: 'Rust', questions_and_answers: [{ question: 'Why ownership?', answer: 'No data races' }, { question: 'And lifetimes?', answer: 'Borrows end' }] };

/** The demo's Interview Crew as served self-hosted (a schema with types), and as the hosted service lists it (names only). */
function crewConfigs(): CrewConfig[] {
  const interview = demoCrews().find((c) => c.id === 'interview-crew');
  assert.ok(interview, 'the simulator has a crew with a structured input');
  return [
    { ...interview, id: 'typed', name: 'Typed', pendingMs: 100 },
    { ...interview, id: 'names', name: 'Names', dialect: 'live', pendingMs: 100 },
  ];
}

const NAMES: Record<string, string> = { typed: 'Typed (json)', names: 'Names (json)' };
const KICK_OFF: QuickInputKeys = { activeItem: 'Kick Off' };

describe('JSON inputs', function () {
  this.timeout(180_000);
  let api: Api;
  let sim: Simulator;
  let dir: string;
  const url = (id: string) => sim.crewUrl(id);
  const kickoffs = (id: string) => sim.requestLog.entries.filter((e) => e.crewId === id && e.endpoint === 'kickoff');
  /** The inputs the simulator holds for the newest run of a crew in the store. */
  async function simInputsOfRun(runId: string | undefined): Promise<Record<string, unknown> | undefined> {
    assert.ok(runId, 'a run was started');
    const run = api.runs.get(runId);
    assert.ok(run, 'the run is recorded');
    return sim.getRun(run.kickoffId)?.inputs;
  }

  before(async function () {
    if (!ui.available()) {
      this.skip(); // Drives quick inputs through the browser runner's page.
    }
    api = await testApi();
    sim = await startSimulator({ timeScale: 0.01, crews: crewConfigs() });
    for (const crew of sim.crews) {
      await addCrewWithToken({ url: crew.url, name: NAMES[crew.id], token: crew.orgToken });
    }
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crew-json-inputs-'));
    await clearNotifications();
  });

  async function closeEditors(): Promise<void> {
    for (let i = 0; i < 10 && vscode.window.visibleTextEditors.length > 0; i++) {
      await executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
    await executeCommand('workbench.action.closeAllEditors');
  }

  beforeEach(closeEditors);

  afterEach(async () => {
    await closeQuickInput();
    await clearNotifications();
  });

  after(async () => {
    if (!api) {
      return;
    }
    for (const b of api.batches.store.list().filter((b) => sim.crews.some((c) => c.url === b.crewUrl))) {
      await api.batches.runner.cancel(b.id);
      await api.batches.store.remove(b.id);
    }
    await removeRunsOf(api, sim.crews.map((c) => c.url));
    for (const crew of sim.crews) {
      for (const preset of api.presets.presets(crew.url)) {
        await api.presets.deletePreset(crew.url, preset.name);
      }
    }
    await removeAllCrews(api);
    await closeEditors();
    await sim.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const inputStep = (crew: string, name: string, step: number, total: number) => waitForQuickInput(`Kick Off ${NAMES[crew]}: ${name} (${step}/${total})`);
  const reviewStep = (crew: string, total = 3) => waitForQuickInput(`Kick Off ${NAMES[crew]}: review (${total}/${total})`);

  async function startKickoff(crew: string): Promise<{ done: Promise<string | undefined> }> {
    const done = executeCommand<string | undefined>('crewRuns.kickOff', url(crew));
    return { done };
  }

  it('the wizard: a crew that lists names only takes text until the step is switched to JSON (Ctrl+Alt+J); then the object is sent', async () => {
    const { done } = await startKickoff('names');
    const first = await inputStep('names', 'interview_data', 1, 3);
    assert.doesNotMatch(first, /As JSON/, 'a name alone says nothing of a type: the step takes text');
    await executeCommand('crewRuns.toggleInputJson'); // The step's keybinding's command.
    const jsonStep = await waitForQuickInput(/interview_data \(1\/3\)[\s\S]*As JSON/);
    assert.match(jsonStep, /As JSON/);
    await typeInQuickInput('{"topic": "Rust", "questions_and_answers": [1,]}');
    await waitForQuickInput(/"interview_data" is not valid JSON/);
    await pressInQuickInput('Enter');
    await waitForQuickInput(/interview_data \(1\/3\)[\s\S]*"interview_data" is not valid JSON/); // Not accepted: still the step.
    await closeQuickInput();
    assert.strictEqual(await done, undefined);
    assert.strictEqual(kickoffs('names').length, 0, 'nothing was sent');

    await api.presets.forgetUnfinished(url('names')); // No starting point to choose: straight to the first input.
    const again = executeCommand<string | undefined>('crewRuns.kickOff', url('names'));
    await inputStep('names', 'interview_data', 1, 3);
    await executeCommand('crewRuns.toggleInputJson');
    await waitForQuickInput(/As JSON/);
    await typeInQuickInput(JSON.stringify(INTERVIEW), { enter: true });
    await inputStep('names', 'max_score', 2, 3);
    await executeCommand('crewRuns.toggleInputJson');
    await waitForQuickInput(/max_score \(2\/3\)[\s\S]*As JSON/);
    await typeInQuickInput('7', { enter: true });
    const review = await reviewStep('names');
    assert.match(review, /interview_data\s*\{"topic":"Rust","questions_and_answers":\[/);
    assert.doesNotMatch(review, /object Object/);
    await pressInQuickInput('Enter', KICK_OFF);
    const runId = await again;
    assert.deepStrictEqual(await simInputsOfRun(runId), { interview_data: INTERVIEW, max_score: 7 });
    assert.deepStrictEqual((await api.runs.readDetails(runId!)).inputs, { interview_data: INTERVIEW, max_score: 7 });
  });

  it('the wizard: a crew whose schema says "object" opens the step as JSON with its fields to fill in', async () => {
    const { done } = await startKickoff('typed');
    const step = await inputStep('typed', 'interview_data', 1, 3);
    assert.match(step, /As JSON/);
    await closeQuickInput(); // Escape keeps what the box held: the skeleton, as JSON.
    assert.strictEqual(await done, undefined);
    assert.deepStrictEqual(api.presets.unfinished(url('typed'))?.interview_data, { topic: '', questions_and_answers: [] }, 'the skeleton from the schema');
    await api.presets.forgetUnfinished(url('typed'));
  });

  it('the editor button opens the value in a JSON editor that shows an error at its line and column as it is typed', async () => {
    const { done } = await startKickoff('typed');
    await waitForQuickInput(/interview_data \(1\/3\)[\s\S]*As JSON/);
    await executeCommand('crewRuns.editInputInEditor'); // The step's Ctrl+Alt+E.
    const editor = await waitFor(() => (vscode.window.activeTextEditor?.document.languageId === 'json' ? vscode.window.activeTextEditor : undefined), { message: 'a JSON editor', ...SLOW });
    assert.deepStrictEqual(JSON.parse(editor.document.getText()), { topic: '', questions_and_answers: [] }, 'the skeleton, indented');
    const replaceAll = async (text: string) => {
      const edit = new vscode.WorkspaceEdit();
      edit.replace(editor.document.uri, new vscode.Range(0, 0, editor.document.lineCount, 0), text);
      assert.ok(await vscode.workspace.applyEdit(edit));
    };
    const ours = () => vscode.languages.getDiagnostics(editor.document.uri).filter((d) => d.message.includes('"interview_data"'));
    await replaceAll('{\n  "topic": "Rust"\n  "questions_and_answers": []\n}');
    const [problem] = await waitFor(() => (ours().length > 0 ? ours() : undefined), { message: 'the JSON error shown in the editor', ...SLOW });
    assert.match(problem.message, /"interview_data" is not valid JSON \(line 3, column 3\)/);
    assert.deepStrictEqual([problem.range.start.line, problem.range.start.character], [2, 2]);
    await replaceAll(JSON.stringify(INTERVIEW, undefined, 2));
    await waitFor(() => ours().length === 0, { message: 'the error gone once the JSON is valid', ...SLOW });
    await executeCommand('crewRuns.useInputText');
    await inputStep('typed', 'interview_data', 1, 3);
    await pressInQuickInput('Enter');
    await inputStep('typed', 'max_score', 2, 3);
    await closeQuickInput();
    assert.strictEqual(await done, undefined);
    assert.deepStrictEqual(api.presets.unfinished(url('typed'))?.interview_data, INTERVIEW, 'the edited object, kept as one');
    await api.presets.forgetUnfinished(url('typed'));
  });

  it('the text/JSON switch is remembered per crew and input; a string where the object goes: the crew\'s 422 re-opens only the refused inputs, as JSON, with its words; then the object is sent', async () => {
    const before = api.runs.list(url('names')).length;
    const kickoffsBefore = kickoffs('names').length;
    const { done } = await startKickoff('names');
    await waitForQuickInput(/Enter new values/);
    await pickInQuickInput('Enter new values');
    assert.deepStrictEqual(api.presets.jsonChoices(url('names')), { interview_data: true, max_score: true }, 'the first test\'s switches are remembered for the crew');
    await waitForQuickInput(/interview_data \(1\/3\)[\s\S]*As JSON/); // As switched last time.
    await executeCommand('crewRuns.toggleInputJson');
    await waitForQuickInput(/interview_data \(1\/3\)(?![\s\S]*As JSON)/); // Now text.
    await typeInQuickInput(JSON.stringify(INTERVIEW), { enter: true }); // As text: a JSON string.
    await waitForQuickInput(/max_score \(2\/3\)[\s\S]*As JSON/);
    await executeCommand('crewRuns.toggleInputJson');
    await waitForQuickInput(/max_score \(2\/3\)(?![\s\S]*As JSON)/);
    await typeInQuickInput('7', { enter: true });
    await reviewStep('names');
    await pressInQuickInput('Enter', KICK_OFF);
    const reopened = await waitForQuickInput(/interview_data \(1\/3\)[\s\S]*refused this value: Input should be a valid dictionary/);
    assert.match(reopened, /As JSON/, 'in the JSON editor the crew\'s words call for');
    assert.strictEqual(kickoffs('names').at(-1)?.status, 422);
    assert.strictEqual(api.runs.list(url('names')).length, before, 'no run was recorded');
    await pressInQuickInput('Enter'); // The text typed is the object, now read as JSON.
    await waitForQuickInput(/max_score \(2\/3\)[\s\S]*refused this value: Input should be a valid integer/);
    await pressInQuickInput('Enter');
    await reviewStep('names');
    await pressInQuickInput('Enter', KICK_OFF);
    const runId = await done;
    assert.strictEqual(kickoffs('names').length, kickoffsBefore + 2, 'the refused kickoff, then the one that started');
    assert.deepStrictEqual(await simInputsOfRun(runId), { interview_data: INTERVIEW, max_score: 7 });
  });

  it('Kick Off with the JSON in the active editor keeps the object', async () => {
    const editor = await openJsonEditor(JSON.stringify({ interview_data: INTERVIEW, max_score: 9 }, undefined, 2));
    const { done } = await startKickoff('typed');
    await waitForQuickInput(/Enter new values/);
    await pickInQuickInput('From the JSON in the active editor');
    const review = await reviewStep('typed', 3);
    assert.match(review, /max_score\s*9/);
    await pressInQuickInput('Enter', KICK_OFF);
    const runId = await done;
    assert.deepStrictEqual(await simInputsOfRun(runId), { interview_data: INTERVIEW, max_score: 9 });
    assert.deepStrictEqual(api.presets.lastUsed(url('typed')), { interview_data: INTERVIEW, max_score: 9 }, 'input memory keeps the types');
    await editor.close();
  });

  it('the last used inputs saved as a preset, and the preset kicked off, send the object', async () => {
    const { done: cancelled } = await startKickoff('typed');
    await waitForQuickInput(/Enter new values/);
    await pickInQuickInput('Last used inputs');
    await reviewStep('typed', 3);
    await pickInQuickInput('Save as Preset');
    await waitForQuickInput('Save Inputs as Preset');
    await typeInQuickInput('Rust interview', { enter: true });
    await reviewStep('typed', 3);
    await pickInQuickInput('Cancel');
    assert.strictEqual(await cancelled, undefined);
    assert.deepStrictEqual(api.presets.presets(url('typed')), [{ name: 'Rust interview', inputs: { interview_data: INTERVIEW, max_score: 9 } }]);

    const before = kickoffs('typed').length;
    const managed = executeCommand('crewRuns.managePresets', url('typed'));
    await waitForQuickInput(`Presets of ${NAMES.typed}`);
    await pressInQuickInput('Enter', { activeItem: 'Rust interview' });
    await reviewStep('typed', 3);
    await pressInQuickInput('Enter', KICK_OFF);
    await managed;
    assert.strictEqual(kickoffs('typed').length, before + 1);
    const newest = api.runs.list(url('typed')).sort((a, b) => b.startedAt - a.startedAt)[0];
    assert.deepStrictEqual(await simInputsOfRun(newest.id), { interview_data: INTERVIEW, max_score: 9 });
  });

  it('Run Again sends exactly the values of the earlier run', async () => {
    // Named by the text inside its structured input, not as raw JSON (#52).
    const original = api.runs.list(url('names')).find((r) => r.label === 'Rust');
    assert.ok(original, 'the wizard\'s run');
    const again = executeCommand<string | undefined>('crewRuns.runAgain', { runId: original.id });
    await reviewStep('names');
    await pressInQuickInput('Enter', KICK_OFF);
    assert.deepStrictEqual(await simInputsOfRun(await again), { interview_data: INTERVIEW, max_score: 7 });
  });

  async function runBatch(file: string, rows: number): Promise<Record<string, unknown>[]> {
    const started = executeCommand<string | undefined>('crewRuns.kickOffBatch', { crew: url('typed'), file });
    const label = `Kick Off ${rows} Rows`;
    await waitForQuickInput(label);
    await pressInQuickInput('Enter', { when: label, activeItem: label });
    await waitForQuickInputClosed();
    const batchId = await started;
    assert.ok(batchId, 'the batch started');
    const batch = await waitFor(() => {
      const b = api.batches.store.get(batchId);
      return b && batchProgress(b).finished ? b : undefined;
    }, { message: 'the batch ended', ...SLOW });
    return batch.rows.map((row) => {
      const run = row.runId ? api.runs.get(row.runId) : undefined;
      return (run && sim.getRun(run.kickoffId)?.inputs) ?? { status: row.status, note: row.note };
    });
  }

  it('a JSON Lines batch keeps each row\'s object', async () => {
    const file = path.join(dir, 'interviews.jsonl');
    fs.writeFileSync(file, [{ interview_data: INTERVIEW }, { interview_data: { ...INTERVIEW, topic: 'Go' }, max_score: 5 }].map((row) => JSON.stringify(row)).join('\n') + '\n');
    assert.deepStrictEqual(await runBatch(file, 2), [{ interview_data: INTERVIEW }, { interview_data: { ...INTERVIEW, topic: 'Go' }, max_score: 5 }]);
  });

  it('a CSV column headed "interview_data:json" (and "max_score:number") sends objects and numbers', async () => {
    const file = path.join(dir, 'interviews.csv');
    const cell = (value: unknown) => `"${JSON.stringify(value).replace(/"/g, '""')}"`;
    fs.writeFileSync(file, `interview_data:json,max_score:number\n${cell(INTERVIEW)},4\n${cell({ ...INTERVIEW, topic: 'Zig' })},\n`);
    assert.deepStrictEqual(await runBatch(file, 2), [{ interview_data: INTERVIEW, max_score: 4 }, { interview_data: { ...INTERVIEW, topic: 'Zig' } }]);
  });

  it('the chat kickoff tool sends the object the model gave', async function () {
    if (typeof vscode.lm?.invokeTool !== 'function' || !vscode.lm.tools.some((t) => t.name === 'crewRuns_kickoff')) {
      this.skip(); // A host without the language model API (the withoutChat session).
    }
    const result = await vscode.lm.invokeTool('crewRuns_kickoff', { input: { crew: NAMES.typed, inputs: { interview_data: INTERVIEW, max_score: 3 } }, toolInvocationToken: undefined });
    const text = result.content.map((part) => String((part as { value?: unknown }).value ?? '')).join('');
    const runId = /run id ([0-9a-f-]{36})/.exec(text)?.[1];
    assert.ok(runId, text);
    assert.deepStrictEqual(await simInputsOfRun(runId), { interview_data: INTERVIEW, max_score: 3 });
  });
});
