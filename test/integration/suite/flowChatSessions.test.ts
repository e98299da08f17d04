// @crew-runs-reload-session — the runner gives this file a VS Code of its own and reloads its window.
//
// Issue #38, sessions: a chat is listed under its crew once its first message is sent, and after a window
// reload its row reopens it: the flow's history in the transcript, and a turn still running (here paused for
// approval) followed again, its question answerable. Reopening an open session reveals its panel; Forget Chat
// removes the row only.
import * as assert from 'assert';
import type { ChatPanelInspection } from '../../../src/flowChat/chatCommands';
import type { ChatPageReport } from '../../../src/flowChat/chatProtocol';
import type { ChatSessionNode } from '../../../src/sidebar/chatRows';
import type { CrewsTreeNode } from '../../../src/sidebar/crewsTree';
import { executeCommand, reload, reloadSuite, showCrewRunsView, ui, waitFor } from '../helpers';
import { type Api, removeAllCrews, testApi } from './support/kit';
import { phaseSimulator, type RemoteSimulator } from './support/reloadSim';

const SIM = 'flow-chat-sessions';
const ANSWER = 'Your order left the warehouse this morning and arrives tomorrow.';
const FIRST = 'Where is my order?';
const PAUSED = 'Change the address #approve';

interface Before {
  sessionId: string;
}

reloadSuite('Flow chat sessions (reload)', function (s) {
  this.timeout(180_000);
  let api: Api;
  let sim: RemoteSimulator;
  let crewUrl: string;

  before(async () => {
    api = await testApi();
    sim = await phaseSimulator(s.phase, SIM, { timeScale: 1, crews: [{ id: 'orders', name: 'Orders Flow', kind: 'flow', inputs: [], tasks: [], chat: { tokenIntervalMs: 40, answer: ANSWER } }] }, 'Sessions');
    crewUrl = sim.crew('orders').url;
    await showCrewRunsView();
  });

  after(async () => {
    await executeCommand('workbench.action.closeAllEditors');
    if (api) {
      await removeAllCrews(api);
    }
    await sim?.close();
  });

  /** The session rows under the crew's Chats group, as the tree gives them. */
  async function sessionRows(): Promise<ChatSessionNode[]> {
    const crewNode = ((await api.tree.getChildren()) ?? []).find((n) => n.type === 'crew' && n.crew.url === crewUrl);
    const chats = crewNode ? ((await api.tree.getChildren(crewNode)) ?? []).find((n) => n.type === 'chats') : undefined;
    return chats ? ((await api.tree.getChildren(chats)) ?? []).filter((n): n is ChatSessionNode => n.type === 'chatSession') : [];
  }

  const labelOf = async (node: CrewsTreeNode) => {
    const item = await api.tree.getTreeItem(node);
    return typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
  };

  const panelOf = (sessionId: string) => waitFor(() => api.flowChats().find((c) => c.sessionId === sessionId), { message: `the chat panel of ${sessionId}` });
  const transcript = (chat: ChatPanelInspection) => chat.lastReport()?.transcript ?? [];
  const waitForReport = (chat: ChatPanelInspection, ok: (report: ChatPageReport) => boolean, message: string) =>
    waitFor(() => {
      const report = chat.lastReport();
      return report && ok(report) ? report : undefined;
    }, { message, timeoutMs: 60_000 });

  s.step('a chat is listed under its crew once its first message is sent, not when its panel opens', async function () {
    if (!ui.available()) {
      this.skip();
    }
    const sessionId = await executeCommand<string>('crewRuns.chatWithFlow', crewUrl);
    assert.ok(sessionId, 'a session was started');
    const chat = await panelOf(sessionId);
    await waitForReport(chat, () => true, 'the chat page reporting');
    assert.deepStrictEqual(await sessionRows(), [], 'an open panel without a message is not listed');
    chat.submitFromPage(FIRST);
    await waitForReport(chat, (r) => !r.busy && transcript(chat).length === 2, 'the first turn over');
    const rows = await waitFor(async () => ((await sessionRows()).length === 1 ? sessionRows() : undefined), { message: 'the session listed under the crew' });
    assert.strictEqual(await labelOf(rows[0]), FIRST);
    // A second turn, paused for approval: the window reloads while it waits.
    chat.submitFromPage(PAUSED);
    await waitForReport(chat, (r) => r.questions.length === 1 && r.questions[0].state === 'open', 'the question shown');
    reload.set('before', { sessionId } satisfies Before);
  });

  s.reload('reloads the window while the turn waits for approval');

  s.step('after the reload the row reopens the session: the history in the transcript, the waiting turn followed and answered', async function () {
    if (!ui.available()) {
      this.skip();
    }
    const before = reload.get<Before>('before');
    assert.ok(before, 'phase 0 recorded its session');
    const rows = await waitFor(async () => ((await sessionRows()).length ? sessionRows() : undefined), { message: 'the session listed after the reload' });
    assert.deepStrictEqual(rows.map((n) => n.sessionId), [before.sessionId], 'listed once');
    assert.strictEqual(await labelOf(rows[0]), FIRST, 'still labelled with its first message');
    assert.deepStrictEqual(api.flowChats(), [], 'no chat panel before the row is clicked');
    const item = await api.tree.getTreeItem(rows[0]);
    await executeCommand(item.command!.command, ...(item.command!.arguments ?? []));
    const chat = await panelOf(before.sessionId);
    const asked = await waitForReport(chat, (r) => r.questions.length === 1 && r.questions[0].state === 'open' && r.focused === 'approve', 'the history, then the waiting question, Approve focused');
    assert.deepStrictEqual(asked.transcript.slice(0, 4), [`user: ${FIRST}`, `assistant: ${ANSWER}`, `user: ${PAUSED}`, asked.transcript[3]], 'the conversation so far, from /history');
    assert.ok(asked.busy, 'the turn still runs: the composer waits');
    await ui.press('Enter');
    const done = await waitForReport(chat, (r) => !r.busy && r.questions[0]?.state === 'answered', 'the approved turn over');
    assert.strictEqual(done.transcript.length, 4, 'the answer continued in place, not as a new message');
    assert.match(done.transcript[3], /^assistant: \S.* Approved, applying it now\. \S/, 'the answer went on after the approval');
    assert.strictEqual(done.transcript[3].replace('Approved, applying it now. ', ''), `assistant: ${ANSWER}`, 'nothing twice, nothing missing');
    const posts = (await sim.requests()).filter((e) => e.method === 'POST' && e.path.endsWith('/resume_feedback'));
    assert.strictEqual(posts.length, 1, 'the answer was posted once');
  });

  s.step('a row of an open session reveals its panel instead of opening a second one', async () => {
    const before = reload.get<Before>('before')!;
    const chat = await panelOf(before.sessionId);
    await executeCommand('workbench.action.files.newUntitledFile');
    await waitFor(() => (!chat.panel.active ? true : undefined), { message: 'another editor in front of the chat' });
    const [row] = await sessionRows();
    const item = await api.tree.getTreeItem(row);
    await executeCommand(item.command!.command, ...(item.command!.arguments ?? []));
    await waitFor(() => chat.panel.active || undefined, { message: 'the open chat panel revealed' });
    assert.strictEqual(api.flowChats().length, 1, 'one panel');
  });

  s.step('Forget Chat removes the row only: the conversation stays open, a look-alike argument forgets nothing', async () => {
    const before = reload.get<Before>('before')!;
    await executeCommand('crewRuns.forgetChatSession', { type: 'chatSession', crewUrl, sessionId: before.sessionId });
    assert.strictEqual((await sessionRows()).length, 1, 'a command link cannot forget a session');
    const [row] = await sessionRows();
    await executeCommand('crewRuns.forgetChatSession', row);
    await waitFor(async () => ((await sessionRows()).length === 0 ? true : undefined), { message: 'the row gone' });
    assert.ok(api.flowChats().some((c) => c.sessionId === before.sessionId), 'the panel stays open');
  });
});
