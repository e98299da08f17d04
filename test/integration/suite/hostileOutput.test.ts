// Issue "Fault and security suite" — hostile crew output, end to end: a local crew answers /status
// with raw bytes chosen here (script tags, event handlers, javascript:/command: links, SVG, CSS,
// 10 MB of text, JSON nested 10,000 levels, deep Markdown, invalid UTF-8). Through the real client,
// poller and store: the run view renders it inert and stays responsive, the crew-run: and
// crew-review: documents show it as plain text, and the tree, the log and the extension survive.
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { CrewRunsTestApi } from '../../../src/testApi';
import type { PageReport } from '../../../src/runView/page/messages';
import { deepJsonText, deepMarkdown, invalidUtf8StatusBody, XSS_CORPUS, XSS_MARKER } from '../../fixtures/hostileCorpus';
import { addCrewWithToken, executeCommand, getExtensionApi, readLog, ui, waitFor, kickOffWithoutReview } from '../helpers';
import { NotificationSpy, startHostileCrew, type HostileCrew } from './support/securityKit';

type Api = CrewRunsTestApi;

const TOKEN = 'hostile-crew-token-0001';
const CREW_NAME = 'Hostile crew';

function assertInert(r: PageReport, what: string): void {
  assert.strictEqual(r.scriptElements, 0, `${what}: no <script> inside output containers`);
  assert.strictEqual(r.eventHandlerAttributes, 0, `${what}: no on* attributes inside output containers`);
  assert.strictEqual(r.unsafeElements, 0, `${what}: no style/img/svg/iframe/... inside output containers`);
  assert.strictEqual(r.unsafeLinks, 0, `${what}: no link that is not http(s)`);
}

describe('Hostile output', function () {
  this.timeout(240_000);
  let api: Api;
  let crew: HostileCrew;
  let crewUrl: string;
  let spy: NotificationSpy;
  const runIds: string[] = [];

  before(async () => {
    const exported = await getExtensionApi<Api | undefined>();
    assert.ok(exported?.panels && exported.runs, 'the test API is exported (CREW_RUNS_TEST_HOOKS=1)');
    api = exported;
    spy = new NotificationSpy();
    crew = await startHostileCrew();
    crewUrl = `${crew.url}/hostile`;
    await addCrewWithToken({ url: crewUrl, name: CREW_NAME, token: TOKEN });
  });

  afterEach(async () => {
    await executeCommand('workbench.action.closeAllEditors');
    await executeCommand('notifications.clearAll');
  });

  after(async () => {
    spy?.dispose();
    if (api) {
      for (const id of runIds) {
        await api.poller.stopWatching(id).catch(() => undefined);
        await api.runs.remove(id).catch(() => undefined);
      }
      if (crewUrl && api.crews.get(crewUrl)) {
        await api.forgetToken(crewUrl);
        const setting = vscode.workspace.getConfiguration().inspect<{ url: string }[]>('crewRuns.crews')?.globalValue ?? [];
        const rest = setting.filter((c) => c.url !== crewUrl);
        await vscode.workspace.getConfiguration().update('crewRuns.crews', rest.length ? rest : undefined, vscode.ConfigurationTarget.Global);
      }
    }
    await crew?.close();
  });

  /** Kicks off with `topic`; the crew answers every /status of that run with `body`. */
  async function runWith(topic: string, body: Buffer | string, until: (run: NonNullable<ReturnType<Api['runs']['get']>>) => boolean = (r) => r.state === 'succeeded') {
    crew.setStatus(topic, body);
    const runId = await kickOffWithoutReview<string | undefined>({ crew: crewUrl, inputs: { topic } });
    assert.ok(runId, `the kickoff of ${topic} started a run (notifications: ${spy.text().slice(-300)})`);
    runIds.push(runId);
    const run = await waitFor(() => {
      const r = api.runs.get(runId);
      return r && until(r) ? r : undefined;
    }, { message: `run ${topic} to reach its state (now ${JSON.stringify(api.runs.get(runId)?.state)}, warning ${JSON.stringify(api.runs.get(runId)?.warning)})`, timeoutMs: 90_000, intervalMs: 200 });
    await api.poller.stopWatching(runId).catch(() => undefined);
    return run;
  }

  function waitForReport(runId: string, check: (r: PageReport) => boolean, message: string, timeoutMs = 30_000): Promise<PageReport> {
    return waitFor(() => {
      const r = api.panels.inspect(runId)?.pageReport;
      return r && check(r) ? r : undefined;
    }, { message: `${message} (last report: ${JSON.stringify(api.panels.inspect(runId)?.pageReport)?.slice(0, 400)})`, timeoutMs });
  }

  /** A small change after the hostile render is still handled by the page, quickly. */
  async function assertResponsive(runId: string): Promise<number> {
    const before = api.panels.inspect(runId)!.pageReport!.messagesHandled;
    const started = Date.now();
    await api.runs.setWarning(runId, `small change ${started}`);
    await waitForReport(runId, (r) => r.messagesHandled > before, 'the page handling a small update', 10_000);
    return Date.now() - started;
  }

  async function documentText(uri: vscode.Uri): Promise<string> {
    const document = await vscode.workspace.openTextDocument(uri);
    return document.getText();
  }

  it('script tags, event handlers, javascript:/command: links, SVG and CSS in outputs are rendered inert and shown as text', async () => {
    const body = JSON.stringify({
      state: 'SUCCESS',
      status: '<img src=x onerror=alert("status")>',
      result: XSS_CORPUS,
      tasks_output: [{ name: '<script>alert("task name")</script>', agent: '<b onmouseover=alert(1)>agent</b>', description: '[x](command:workbench.action.quit)', raw: XSS_CORPUS }],
      last_step: { thought: '<svg onload=alert(1)>', tool: '<script>', result: '[js](javascript:alert(1))' },
    });
    const run = await runWith('xss', body);
    await executeCommand('crewRuns.openRun', { runId: run.id });
    const r = await waitForReport(run.id, (x) => x.hasFinalOutput && x.taskSections === 1, 'the final output and the task section');
    assertInert(r, 'XSS corpus');
    assert.ok(r.links >= 2, `the safe https links are links (${r.links})`);
    assert.ok(r.finalOutputTextLength > XSS_CORPUS.length / 2, 'the corpus is shown as text');
    const html = api.panels.inspect(run.id)!.html;
    assert.ok(!html.includes(XSS_MARKER), 'no output in the HTML itself: it travels as data in messages');
    console.log(`      small update after the corpus handled in ${await assertResponsive(run.id)} ms`);
    if (ui.available()) {
      const frame = await ui.frameText(XSS_MARKER, { timeoutMs: 10_000 });
      assert.match(frame.text, /<script>window\.parent\.postMessage\("pwned-by-hostile-corpus"/, 'the script tag is visible as text');
      assert.match(frame.text, /<img src=x onerror=alert\("status"\)>/, 'the status message is text');
    }

    // The documents show exactly the text.
    assert.strictEqual(await documentText(vscode.Uri.from({ scheme: 'crew-run', path: `/${run.id}/output.md` })), XSS_CORPUS);
    assert.strictEqual(await documentText(vscode.Uri.from({ scheme: 'crew-run', path: `/${run.id}/task-1.md` })), XSS_CORPUS);
    assert.strictEqual(JSON.parse(await documentText(vscode.Uri.from({ scheme: 'crew-run', path: `/${run.id}/output.json` }))), XSS_CORPUS);
    await executeCommand('crewRuns.openOutputInEditor', { runId: run.id });
    const editor = await waitFor(() => vscode.window.activeTextEditor?.document.uri.scheme === 'crew-run' && vscode.window.activeTextEditor, { message: 'the output editor' });
    assert.strictEqual(editor.document.getText(), XSS_CORPUS);
  });

  it('a review of hostile output (crew-review:) shows it as plain text, with an untrusted thread', async () => {
    const body = JSON.stringify({
      state: 'PAUSED',
      status: 'Waiting for human input',
      last_executed_task: { id: 'task-hostile-1', name: '<script>alert("task")</script>*bold*[x](command:workbench.action.quit)', output: XSS_CORPUS, agent: '<img src=x onerror=alert(1)>' },
    });
    const run = await runWith('review', body, (r) => r.needsFeedback);
    await executeCommand('crewRuns.giveFeedback', { runId: run.id });
    const review = api.reviews.openReviewOf(run.id);
    assert.ok(review, 'a review is open');
    const document = await waitFor(() => vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'crew-review' && d.uri.path.startsWith(`/${run.id}/`)), { message: 'the review document' });
    const text = document.getText();
    assert.ok(text.includes(XSS_CORPUS), 'the output is in the review document verbatim');
    const [first] = review.thread.comments;
    const bodyOf = first.body;
    assert.ok(bodyOf instanceof vscode.MarkdownString, 'the thread opens with a Markdown comment');
    assert.ok(!bodyOf.isTrusted, 'the comment Markdown is not trusted (no command links)');
    assert.ok(!bodyOf.supportHtml, 'the comment Markdown renders no HTML');
    assert.doesNotMatch(bodyOf.value, /<script>|\]\(command:/, `the task name is escaped in the comment: ${bodyOf.value}`);
    await executeCommand('crewRuns.openRun', { runId: run.id });
    const r = await waitForReport(run.id, (x) => x.stateText.length > 0 && x.taskSections >= 1, 'the paused run view');
    assertInert(r, 'paused run');
  });

  it('10 MB of hostile text: a preview renders inert, messages stay small, the page stays responsive', async () => {
    const paragraph = '<img src=x onerror=alert(1)> **bold** [js](javascript:alert(1)) <script>alert(2)</script> [ok](https://example.com/p)\n\n';
    const text = `# Big hostile report\n\n${paragraph.repeat(Math.ceil((10 * 1024 * 1024) / paragraph.length))}`;
    const run = await runWith('big', JSON.stringify({ state: 'SUCCESS', status: null, result: text }));
    await executeCommand('crewRuns.openRun', { runId: run.id });
    const r = await waitForReport(run.id, (x) => x.hasFinalOutput, 'the preview of the 10 MB output', 60_000);
    assertInert(r, '10 MB');
    assert.ok(!r.finalOutputComplete, 'a preview, not all of it');
    const inspection = api.panels.inspect(run.id)!;
    assert.ok(inspection.maxMessageBytes < 1024 * 1024, `no message near the output's size (${inspection.maxMessageBytes} bytes)`);
    const ms = await assertResponsive(run.id);
    console.log(`      10 MB: preview rendered in ${r.renderMs} ms; small update handled in ${ms} ms; largest message ${inspection.maxMessageBytes} bytes`);
    const doc = await documentText(vscode.Uri.from({ scheme: 'crew-run', path: `/${run.id}/output.md` }));
    assert.strictEqual(doc.length, text.length, 'the document holds all of it');
  });

  for (const variant of ['result', 'result_json'] as const) {
    it(`JSON nested 10,000 levels deep (${variant}) is shown as text, stored, and rendered inert`, async () => {
      const deep = deepJsonText(10_000);
      const raw = variant === 'result' ? `{"state":"SUCCESS","status":null,"result":${JSON.stringify(deep)}}` : `{"state":"SUCCESS","status":null,"result_json":${deep}}`;
      const run = await runWith(`deep-${variant}`, raw);
      const details = await api.runs.readDetails(run.id);
      assert.ok(details.finalOutput, 'the run has a final output');
      assert.notStrictEqual(details.finalOutput.text, '[object Object]');
      assert.ok(details.finalOutput.text.startsWith('{'), 'the output is the JSON text');
      await api.runs.flush();
      const doc = await documentText(vscode.Uri.from({ scheme: 'crew-run', path: `/${run.id}/output.json` }));
      assert.ok(doc.startsWith('{') && doc.length > 1000, `the output.json document shows the JSON (${doc.length} characters)`);
      if (variant === 'result') {
        assert.strictEqual(doc, deep, 'the source text is kept as is');
      }
      await executeCommand('crewRuns.openRun', { runId: run.id });
      const r = await waitForReport(run.id, (x) => x.hasFinalOutput, 'the deep JSON output');
      assertInert(r, 'deep JSON');
      await assertResponsive(run.id);
    });
  }

  it('deeply nested Markdown renders without hanging the page', async () => {
    const text = deepMarkdown(10_000);
    const run = await runWith('deep-md', JSON.stringify({ state: 'SUCCESS', status: null, result: text }));
    await executeCommand('crewRuns.openRun', { runId: run.id });
    const r = await waitForReport(run.id, (x) => x.hasFinalOutput, 'the deep Markdown output');
    assertInert(r, 'deep Markdown');
    await assertResponsive(run.id);
    assert.strictEqual(await documentText(vscode.Uri.from({ scheme: 'crew-run', path: `/${run.id}/output.md` })), text);
  });

  it('invalid UTF-8 becomes U+FFFD; the words around it are kept in the view and the documents', async () => {
    const run = await runWith('utf8', invalidUtf8StatusBody());
    const doc = await documentText(vscode.Uri.from({ scheme: 'crew-run', path: `/${run.id}/output.md` }));
    assert.match(doc, /^start-of-output .*word0.*word4 end-of-output$/s);
    assert.ok(doc.includes('\uFFFD'), 'replacement characters stand in for the invalid bytes');
    await executeCommand('crewRuns.openRun', { runId: run.id });
    const r = await waitForReport(run.id, (x) => x.hasFinalOutput, 'the output with invalid UTF-8');
    assertInert(r, 'invalid UTF-8');
    if (ui.available()) {
      const frame = await ui.frameText('end-of-output', { timeoutMs: 10_000 });
      assert.match(frame.text, /start-of-output .*end-of-output/s);
    }
  });

  it('after all of it, the tree, the log and the crew still work', async () => {
    const nodes = await api.tree.getChildren({ type: 'crew', crew: api.crews.get(crewUrl)! } as never);
    const items = await Promise.all(nodes.map((n) => api.tree.getTreeItem(n)));
    assert.ok(items.length >= runIds.length - 1, `the crew lists its runs (${items.length})`);
    for (const item of items) {
      const label = typeof item.label === 'string' ? item.label : item.label?.label ?? '';
      assert.ok(label.length > 0 && label.length < 500, `a short label: ${label.slice(0, 80)}`);
    }
    const log = await readLog();
    assert.match(log, new RegExp(`\\[${CREW_NAME} · `), 'the log has lines about the hostile runs');
    // Final outputs are logged as plain text, capped: the 10 MB one is cut.
    assert.match(log, /more characters: open the run to see all/, 'the 10 MB output was cut in the log');
    assert.ok(log.length < 3 * 1024 * 1024, `the log did not take the 10 MB output whole (${log.length} characters)`);
    assert.strictEqual(await executeCommand('crewRuns.checkConnection', crewUrl), true, 'the crew can still be used');
    assert.deepStrictEqual(spy.matching(/Something went wrong|Crew Runs: /), [], `no unexpected error notification: ${spy.text().slice(-500)}`);
  });
});
