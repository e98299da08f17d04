// Test suites in the Test Explorer (#50), in a real VS Code against the simulator's quick echo crew: a suite file in
// the workspace found and kept current (its problems in the Problems panel), cases run as eval runs with passing,
// failing and erroring results and why, the judge skipped without a model and scored by a stand-in one, a baseline
// comparison naming a regression, the question before a costly run, a paused run going on once the token is set, a
// crew that is not yours, and the JUnit report. Pictures of the Testing view and the summary go to test-results/.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { CrewConfig, Simulator } from '../../../src/simulator/server';
import { startSimulator } from '../../../src/simulator/server';
import type { JudgePrompt } from '../../../src/suites/core/judge';
import type { InspectedResult, SuitesInspection } from '../../../src/suites/suiteInspection';
import { addCrewWithToken, executeCommand, selectors, ui, waitFor } from '../helpers';
import { type Api, answerModal, clearNotifications, flatRows, testApi, treeRows, waitForNotification } from './support/kit';
import { addSimulatorCrews, cleanUp } from './support/monitoring';

const echo: CrewConfig = {
  id: 'suite-echo',
  name: 'Echo',
  kind: 'crew',
  inputs: ['topic', 'tone'],
  pendingMs: 100,
  failWhenInputContains: '#fail',
  failureMessage: 'ValueError: the topic asked the crew to fail (#fail).',
  tasks: [
    { name: 'outline_task', agent: 'Outliner', durationMs: 200, output: 'Outline of a {tone} note about {topic}.' },
    { name: 'summary_task', agent: 'Summarizer', durationMs: 200, output: { json: { topic: '{topic}', tone: '{tone}', summary: 'A {tone} note about {topic}.' } } },
  ],
};

function suiteYaml(crewUrl: string): string {
  return [
    'name: Echo checks',
    `crew: ${crewUrl}`,
    'concurrency: 3',
    'cases:',
    '  - name: writes about its topic',
    '    inputs: { topic: cats, tone: friendly }',
    '    checks:',
    '      contains: [cats, "/a friendly note/i"]',
    '      notContains: dogs',
    '  - name: answers in JSON',
    '    inputs: { topic: tea, tone: calm }',
    '    checks:',
    '      jsonSchema: { type: object, required: [topic, tone, summary] }',
    '      equals: { topic: tea, tone: calm, summary: A calm note about tea. }',
    '  - name: fails when asked to',
    '    inputs: { topic: "anything #fail", tone: calm }',
    '    checks:',
    '      state: failed',
    '      contains: asked the crew to fail',
    '  - name: sounds cheerful',
    '    inputs: { topic: mondays, tone: grumpy }',
    '    checks:',
    '      contains: cheerful',
    '      judge: { criteria: The note sounds cheerful and upbeat., threshold: 0.7 }',
    '  - name: judged twice',
    '    inputs: { topic: cake, tone: sweet }',
    '    repeat: 2',
    '    checks:',
    '      judge: { criteria: The note is about cake., threshold: 0.5 }',
    '  - name: a broken check',
    '    inputs: { topic: bread, tone: plain }',
    '    checks:',
    '      smells: nice',
    '',
  ].join('\n');
}

const lineOf = (text: string, needle: string) => text.split('\n').findIndex((line) => line.includes(needle));

describe('Test suites in the Test Explorer (#50)', function () {
  this.timeout(120_000);
  let api: Api;
  let suites: SuitesInspection;
  let sim: Simulator;
  let crew: { url: string; name: string };
  let token: string;
  let dir: string;
  let file: vscode.Uri;
  let text: string;
  let key: string;
  const prompts: JudgePrompt[] = [];

  /** The results reported since `from`, by the item's last id. */
  const resultsSince = (from: number): Map<string, InspectedResult> => new Map(suites.results().slice(from).map((r) => [r.path.at(-1)!, r]));

  before(async () => {
    api = await testApi();
    sim = await startSimulator({ timeScale: 1, dialect: 'live', crews: [echo] });
    crew = (await addSimulatorCrews(api as never, sim, 'Suite'))[echo.id];
    token = sim.crews[0].orgToken;
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    assert.ok(root, 'the harness opens a folder');
    dir = path.join(root, 'suites-it');
    fs.mkdirSync(dir, { recursive: true });
    text = suiteYaml(crew.url);
    fs.writeFileSync(path.join(dir, 'echo.crew-suite.yaml'), text);
    file = vscode.Uri.file(path.join(dir, 'echo.crew-suite.yaml'));
    key = file.toString();
    suites = await api.suites();
  });

  after(async () => {
    suites?.setJudge('editor');
    await executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(dir, { recursive: true, force: true });
    const runIds = api ? api.runs.list().filter((run) => run.crewUrl === crew?.url).map((run) => run.id) : [];
    await cleanUp(api, runIds);
    await sim?.close();
  });

  it('finds the suite in the Testing view: a suite, its cases and repeats at their lines; its problems in the Problems panel; kept current as it is edited', async () => {
    const items = await waitFor(async () => (await suites.items()).find((item) => item.id === key && item.children.length === 6), { message: 'the suite and its six cases are in the Testing view', timeoutMs: 30_000 });
    assert.equal(items.label, 'Echo checks');
    assert.equal(items.description, crew.url);
    assert.deepEqual(
      items.children.map((c) => [c.label, c.lines?.[0]]),
      ['writes about its topic', 'answers in JSON', 'fails when asked to', 'sounds cheerful', 'judged twice', 'a broken check'].map((name) => [name, lineOf(text, `- name: ${name}`)]),
      'each case at its line, for the gutter\'s ▶',
    );
    assert.deepEqual(items.children[4].children.map((c) => c.label), ['#1', '#2'], 'a case repeated twice has a run of its own per repeat');
    const problems = await waitFor(() => vscode.languages.getDiagnostics(file).filter((d) => /smells/.test(d.message)), { message: 'the unknown check is in the Problems panel' });
    assert.equal(problems[0].range.start.line, lineOf(text, 'smells: nice'), `at its line: ${problems[0].message}`);

    // Typed in an editor, unsaved: the Testing view follows.
    const document = await vscode.workspace.openTextDocument(file);
    const editor = await vscode.window.showTextDocument(document);
    await editor.edit((edit) => edit.insert(new vscode.Position(document.lineCount, 0), '  - name: typed just now\n    inputs: { topic: soup, tone: warm }\n'));
    await waitFor(async () => (await suites.items()).find((item) => item.id === key)?.children.some((c) => c.label === 'typed just now'), { message: 'a case typed in the editor appears' });
    await executeCommand('workbench.action.files.revert');
    await waitFor(async () => (await suites.items()).find((item) => item.id === key)?.children.length === 6, { message: 'the unsaved case goes with the edit' });
  });

  it('runs cases as eval runs: passed, failed with why at the check\'s line, skipped when only a judge and no model', async () => {
    suites.setJudge(undefined);
    const from = suites.results().length;
    await suites.run([
      [key, 'writes about its topic'],
      [key, 'answers in JSON'],
      [key, 'sounds cheerful'],
      [key, 'judged twice'],
    ]);
    const results = resultsSince(from);
    assert.deepEqual(
      ['writes about its topic', 'answers in JSON', 'sounds cheerful', 'judged twice #1', 'judged twice #2'].map((id) => results.get(id)?.state),
      ['passed', 'passed', 'failed', 'skipped', 'skipped'],
      JSON.stringify([...results.values()], null, 1),
    );
    assert.ok(results.get('judged twice #2')!.output.some((line) => /^– judged twice #2 — skipped/.test(line)));
    assert.ok(results.get('judged twice #2')!.output.some((line) => /\[skipped\] judge: Skipped: no language model\./.test(line)));
    const cheerful = results.get('sounds cheerful')!;
    const contains = cheerful.messages.find((m) => m.text.startsWith('contains:'));
    assert.ok(contains, JSON.stringify(cheerful.messages));
    assert.match(contains.text, /^contains: Expected the output to contain "cheerful"; it does not\.\n\nThe output:\n[^]*A grumpy note about mondays/);
    assert.equal(contains.line, lineOf(text, 'contains: cheerful'), 'at the check');
    assert.equal(contains.contextValue, 'crewRuns.suiteResult', 'Open Run is on the message');
    assert.ok(cheerful.output.some((line) => /\[skipped\] judge: Skipped: no language model\./.test(line)), cheerful.output.join('\n'));
    assert.ok(results.get('writes about its topic')!.output.some((line) => /^✔ writes about its topic — passed · [\d.]+ s · [\d,]+ tokens/.test(line)), results.get('writes about its topic')!.output.join('\n'));
    assert.ok((results.get('answers in JSON')!.durationMs ?? 0) > 0, 'a duration');
    assert.ok(suites.runOutput().some((line) => /No language model: the judge checks are skipped/.test(line)));

    // The runs are the extension's own: in the crews tree, marked as eval, their end read (the history cap may take them).
    const evalRuns = api.runs.list(crew.url).filter((run) => run.batch?.suite);
    assert.equal(evalRuns.length, 5);
    assert.ok(evalRuns.every((run) => !run.batch?.awaitingEnd));
    const rows = flatRows(await treeRows(api)).filter((row) => row.type === 'run' && evalRuns.some((run) => run.id === row.id));
    assert.equal(rows.length, 5);
    // "eval" follows the state; the age only where the whole name fits with it (#52: the row is never cut).
    assert.ok(rows.every((row) => /^succeeded · eval( · |$)/.test(row.description)), rows.map((row) => row.description).join(' | '));
  });

  it('scores judge checks with a stand-in model: the crew\'s output fenced as untrusted, passed and failed against the threshold', async () => {
    suites.setJudge(async (prompt) => {
      prompts.push(prompt);
      return prompt.material.includes('mondays') ? '{"score": 0.2, "reason": "It sounds grumpy."}' : '{"score": 0.9, "reason": "It is about cake."}';
    });
    const from = suites.results().length;
    await suites.run([
      [key, 'judged twice'],
      [key, 'sounds cheerful'],
    ]);
    const results = resultsSince(from);
    assert.equal(results.get('judged twice #1')?.state, 'passed');
    assert.equal(results.get('judged twice #2')?.state, 'passed');
    assert.ok(results.get('judged twice #1')!.output.some((line) => /\[passed\] judge: The judge scored 0\.9 \(at least 0\.5\): It is about cake\./.test(line)));
    const judge = results.get('sounds cheerful')!.messages.find((m) => m.text.startsWith('judge:'));
    assert.match(judge?.text ?? '', /The judge scored 0\.2, below 0\.7: It sounds grumpy\./);
    assert.equal(judge?.line, lineOf(text, 'judge: { criteria: The note sounds cheerful'));
    assert.equal(prompts.length, 3);
    assert.match(prompts[0].instructions, /UNTRUSTED DATA/);
    assert.match(prompts[0].material, /```+untrusted-output\n/);
  });

  it('compares a run with the pinned baseline and names the regression; the summary in the Markdown preview', async () => {
    await executeCommand('crewRuns.suites.pinBaseline', suites.item([key]));
    await waitForNotification(/Suite "Echo checks": its run of .* is the baseline now/);
    await clearNotifications();
    suites.setJudge(async () => '{"score": 0.3, "reason": "Hardly about cake."}');
    const from = suites.results().length;
    await suites.run([[key, 'judged twice']]);
    assert.equal(resultsSince(from).get('judged twice #1')?.state, 'failed');
    const summary = (suites.lastSummary() ?? '').replace(/\\(.)/g, '$1'); // Markdown: the crew's and the cases' words escaped.
    assert.match(summary, /2 went from pass to fail: "judged twice #1", "judged twice #2"\./, summary);
    assert.match(summary, /2 judge scores dropped/);
    assert.match(summary, /Compared with the pinned baseline/);
    assert.ok(suites.runOutput().some((line) => /^Compared with the pinned baseline of .*: 2 went from pass to fail/.test(line)), suites.runOutput().join('\n'));
    await waitForNotification(/Suite "Echo checks": 2 went from pass to fail: "judged twice #1", "judged twice #2"\./);
    await clearNotifications();

    await executeCommand('crewRuns.suites.showSummary', suites.item([key]));
    if (ui.available()) {
      await waitFor(() => ui.frameText('went from pass to fail').then((frame) => frame.text, () => undefined), { message: 'the summary in the Markdown preview', timeoutMs: 15_000 });
      await ui.screenshot('suites-baseline-summary', { selector: '.part.editor' });
    }
    await executeCommand('workbench.action.closeAllEditors');
  });

  it('asks before a costly run, saying how many runs and about how many tokens; then runs them all', async () => {
    suites.setJudge(async () => '{"score": 0.8, "reason": "Fine."}');
    const declined = answerModal(undefined);
    let from = suites.results().length;
    try {
      await suites.run([[key]]);
    } finally {
      declined.dispose();
    }
    assert.equal(declined.calls.length, 1);
    assert.equal(declined.calls[0].message, 'This test run starts 7 runs of your crews.');
    assert.match(declined.calls[0].detail ?? '', /^Suite "Echo checks": 7 runs of Suite Echo, about [\d,]+ tokens \(its recent runs used about [\d,]+ each\)\.$/);
    assert.deepEqual(declined.calls[0].items, ['Start 7 Runs']);
    const skipped = [...resultsSince(from).values()];
    assert.equal(skipped.length, 7);
    assert.ok(skipped.every((r) => r.state === 'skipped' && r.output[0] === 'Not run: you chose not to start 7 runs.'), JSON.stringify(skipped));

    // The Testing view in front while the suite runs: its runs must not pull the side bar to the Crew Runs view.
    await executeCommand('workbench.view.testing.focus');
    const testingTitle = '.part.sidebar .composite.title';
    if (ui.available()) {
      await waitFor(() => ui.textIfPresent(testingTitle).then((t) => t?.toUpperCase().includes('TESTING')), { message: 'the Testing view in the side bar' });
    }
    const accepted = answerModal('Start 7 Runs');
    from = suites.results().length;
    try {
      await suites.run([[key]]);
    } finally {
      accepted.dispose();
    }
    await api.inspection.revealer.whenIdle();
    if (ui.available()) {
      const title = await ui.textIfPresent(testingTitle);
      assert.ok(title?.toUpperCase().includes('TESTING'), `the side bar shows ${JSON.stringify(title)}`);
    }
    const states = [...resultsSince(from).entries()].map(([id, r]) => `${id}: ${r.state}`);
    assert.deepEqual(states.sort(), ['a broken check: errored', 'answers in JSON: passed', 'fails when asked to: passed', 'judged twice #1: passed', 'judged twice #2: passed', 'sounds cheerful: failed', 'writes about its topic: passed']);
    // Its only check could not be read: an error that says which and why, never a pass on the implicit state check.
    const broken = resultsSince(from).get('a broken check');
    assert.match(broken?.messages.map((m) => m.text).join('\n') ?? '', /The check "smells" was not run: Unknown check type "smells"/);

    if (ui.available()) {
      await vscode.window.showTextDocument(file);
      for (const id of ['judged twice #2', undefined]) {
        await executeCommand('vscode.revealTestInExplorer', suites.item(id ? [key, 'judged twice', id] : [key, 'a broken check']));
      }
      await waitFor(() => ui.textIfPresent(selectors.sideBar).then((t) => t?.includes('judged twice')), { message: 'the Testing view lists the cases' });
      // The README's picture, the Testing view alone (npm run screenshots copies it to docs/images/: the package has a
      // size limit); the whole window, with the suite's gutter, beside it in test-results/.
      await ui.screenshot('readme-test-suites', { selector: selectors.sideBar });
      await ui.screenshot('suites-test-explorer');
    }
  });

  it('pauses with the rest queued when the crew has no token, and goes on once the token is set', async () => {
    suites.setJudge(undefined);
    await api.forgetToken(crew.url);
    const from = suites.results().length;
    const running = suites.run([
      [key, 'writes about its topic'],
      [key, 'answers in JSON'],
    ]);
    await waitForNotification(/Suite "Echo checks" is paused: .*no token.* Its cases not sent yet wait/);
    assert.ok(suites.runOutput().some((line) => /^Paused: .*they go on once the crew has a token it takes\./.test(line)));
    assert.equal(resultsSince(from).size, 0, 'nothing lost, nothing failed: the cases wait');
    await addCrewWithToken({ url: crew.url, name: crew.name, token });
    await running;
    const results = resultsSince(from);
    assert.deepEqual([results.get('writes about its topic')?.state, results.get('answers in JSON')?.state], ['passed', 'passed']);
    await clearNotifications();
  });

  it('a suite naming a crew that is not yours: one clear error with Add Crew…, nothing sent', async () => {
    const stranger = path.join(dir, 'stranger.crew-suite.yaml');
    fs.writeFileSync(stranger, 'name: Stranger\ncrew: https://stranger.example\ncases:\n  - name: one\n    inputs: { topic: x }\n');
    const strangerKey = vscode.Uri.file(stranger).toString();
    await waitFor(async () => (await suites.items()).some((item) => item.id === strangerKey), { message: 'the second suite is found' });
    const from = suites.results().length;
    await suites.run([[strangerKey]]);
    const result = resultsSince(from).get('one');
    assert.equal(result?.state, 'errored');
    assert.match(result?.messages[0]?.text ?? '', /https:\/\/stranger\.example, which is not one of your crews/);
    const notice = await waitForNotification(/which is not one of your crews/);
    assert.match(notice, /Add Crew…/);
    await clearNotifications();
    fs.rmSync(stranger);
  });

  it('exports the last run as JUnit XML and its Markdown summary; Open Run opens a case\'s run; offers to run a redeployed crew\'s suite', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'suite-report-'));
    const target = vscode.Uri.file(path.join(out, 'echo.junit.xml'));
    const window = vscode.window as unknown as Record<string, unknown>;
    const original = window.showSaveDialog;
    window.showSaveDialog = async () => target;
    try {
      await executeCommand('crewRuns.suites.exportReport', suites.item([key]));
    } finally {
      window.showSaveDialog = original;
    }
    const xml = fs.readFileSync(target.fsPath, 'utf8');
    assert.match(xml, /<testsuite name="Echo checks" tests="2" failures="0"/);
    assert.match(xml, /<testcase name="writes about its topic" classname="Echo checks"/);
    const markdown = fs.readFileSync(path.join(out, 'echo.md'), 'utf8');
    assert.match(markdown, /^## Suite Echo checks/);
    fs.rmSync(out, { recursive: true, force: true });
    await clearNotifications();

    // Open Run, as the result message's button hands it the test: the case's run of the last suite run, in its view.
    const newest = api.runs.list(crew.url).find((run) => run.batch?.suite && run.batch.source === 'Echo checks › writes about its topic');
    assert.ok(newest, 'the case\'s newest run');
    await executeCommand('crewRuns.suites.openRun', { test: suites.item([key, 'writes about its topic']), message: {} });
    await waitFor(() => api.panels.inspect(newest.id), { message: 'the case\'s run opens in its view' });
    await executeCommand('workbench.action.closeAllEditors');

    assert.equal(await executeCommand('crewRuns.suites.runForCrew', crew.url), true);
    await waitForNotification(/Suite Echo was redeployed\. Run its test suite "Echo checks" \(7 runs\)/);
    assert.equal(await executeCommand('crewRuns.suites.runForCrew', 'https://not-a-crew.example'), false, 'no suite, no offer');
    await clearNotifications();
  });
});
