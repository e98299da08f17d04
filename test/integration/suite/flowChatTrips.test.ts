// Issue #52 ("What a new user still trips over"), findings 8, 10 and 11, in a real VS Code: Chat with Flow's
// picker lists the flows that chat first and names no route; tool steps in words; two chats of one flow told
// apart by their tabs; the demo's approval between two sentences; the Send Feedback button drawn as a button
// in the light and the dark theme (pictures: test-results/chat-trips-question-light.png and -dark.png); a chat
// the flow forgot (a restart) offers Start a New Chat and Forget This Chat, from the keyboard
// (chat-trips-forgotten-light.png and -dark.png).
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { Simulator } from '../../../src/simulator/server';
import { demoCrews, startSimulator } from '../../../src/simulator/server';
import type { ChatPanelInspection } from '../../../src/flowChat/chatCommands';
import type { ChatPageReport } from '../../../src/flowChat/chatProtocol';
import type { ChatSessionNode } from '../../../src/sidebar/chatRows';
import { addCrewWithToken, executeCommand, selectors, showCrewRunsView, ui, waitFor } from '../helpers';
import {
  type Api,
  clearNotifications,
  closeQuickInput,
  inLightAndDark,
  removeAllCrews,
  testApi,
  typeInQuickInput,
  waitForNotification,
  waitForQuickInput,
  waitForQuickInputClosed,
} from './support/kit';

const SLOW = { timeoutMs: 30_000 } as const;
/** A route's name as a user would meet it in a message ("/inspect", "/chat/…/history", "/resume_feedback"). */
const ROUTE = /\/(inspect|kickoff|status|resume|resume_feedback|chat|history|stream|message)\b/;

describe('Flow chat trips (#52)', function () {
  this.timeout(180_000);
  let api: Api;
  let sim: Simulator;
  let flowUrl: string;
  let plainUrl: string;
  const FLOW_ID = 'support-t52';

  before(async function () {
    if (!ui.available()) {
      this.skip(); // Keys, pictures and quick inputs through the browser runner's page.
    }
    api = await testApi();
    const support = demoCrews().find((c) => c.id === 'support-chat-flow');
    assert.ok(support, 'the demo has its chat flow');
    // The crew that does not chat is added first: a picker in the settings' order would offer it first.
    sim = await startSimulator({
      timeScale: 0.2,
      crews: [
        { id: 'plain-t52', name: 'Plain Crew', kind: 'crew', inputs: [], tasks: [] },
        { ...support, id: FLOW_ID, name: 'Support Flow' },
      ],
    });
    plainUrl = sim.crews[0].url;
    flowUrl = sim.crews[1].url;
    await addCrewWithToken({ url: plainUrl, name: 'Plain Crew', token: sim.crews[0].orgToken });
    await addCrewWithToken({ url: flowUrl, name: 'Support Flow', token: sim.crews[1].orgToken });
    await showCrewRunsView();
  });

  afterEach(async () => {
    await closeQuickInput().catch(() => undefined);
    await clearNotifications().catch(() => undefined);
  });

  after(async () => {
    await executeCommand('workbench.action.closeAllEditors');
    if (api) {
      await removeAllCrews(api);
    }
    await sim?.close();
  });

  const reportOf = (chat: ChatPanelInspection, ok: (r: ChatPageReport) => boolean, message: string) =>
    waitFor(() => {
      const r = chat.lastReport();
      return r && ok(r) ? r : undefined;
    }, { message: () => `${message}; the page reported ${JSON.stringify(chat.lastReport())?.slice(0, 600)}`, ...SLOW });
  const openChat = async (): Promise<ChatPanelInspection> => {
    const sessionId = await executeCommand<string>('crewRuns.chatWithFlow', flowUrl);
    assert.ok(sessionId, 'a chat started');
    const chat = await waitFor(() => api.flowChats().find((c) => c.sessionId === sessionId), { message: 'its panel', ...SLOW });
    await reportOf(chat, () => true, 'its page reporting');
    return chat;
  };
  async function sessionRows(): Promise<ChatSessionNode[]> {
    const crewNode = ((await api.tree.getChildren()) ?? []).find((n) => n.type === 'crew' && n.crew.url === flowUrl);
    const chats = crewNode ? ((await api.tree.getChildren(crewNode)) ?? []).find((n) => n.type === 'chats') : undefined;
    return chats ? ((await api.tree.getChildren(chats)) ?? []).filter((n): n is ChatSessionNode => n.type === 'chatSession') : [];
  }

  it('Chat with Flow lists the flows that chat first, the others under a line that says so; picking one of those names no route', async () => {
    const started = executeCommand('crewRuns.chatWithFlow');
    const text = await waitForQuickInput(/did not answer as chat flows/i, 'the picker with the crews that do not chat under their own line');
    // Enter takes a flow that chats: the first row is active once the answers have moved the others down.
    await waitFor(async () => ((await ui.textIfPresent(`${selectors.openQuickInput} .monaco-list-row.focused`))?.startsWith('Support Flow') ? true : undefined), {
      message: 'Support Flow active',
      ...SLOW,
    });
    const shot = await ui.screenshot('chat-trips-picker', { selector: selectors.quickInput });
    console.log(`      screenshot: ${shot.path} (${shot.width}x${shot.height}); the picker reads ${JSON.stringify(text)}`);
    const at = (words: string) => text.indexOf(words);
    assert.ok(at('Support Flow') >= 0 && at('Support Flow') < at('Plain Crew'), `the flow that chats first: ${JSON.stringify(text)}`);
    // The line's label is drawn in the row of the first crew under it (VS Code's separators): after the flow's row.
    assert.ok(text.search(/did not answer as chat flows/i) > at('Support Flow') + 'Support Flow'.length + flowUrl.length, `the line under the flow that chats: ${JSON.stringify(text)}`);
    await typeInQuickInput('Plain Crew', { enter: true, activeItem: 'Plain Crew' });
    await waitForQuickInputClosed();
    const said = await waitForNotification('Plain Crew');
    assert.doesNotMatch(said, ROUTE, `no route named: ${said}`);
    assert.strictEqual(await started, undefined, 'no chat with a crew that does not chat');
  });

  it('two chats of one flow have tabs told apart', async () => {
    const one = await openChat();
    const two = await openChat();
    assert.match(one.panel.title, /Support Flow/);
    assert.match(two.panel.title, /Support Flow/);
    assert.notStrictEqual(one.panel.title, two.panel.title, 'two tabs of the same flow told apart');
    one.panel.dispose();
    two.panel.dispose();
  });

  it('tool steps read in words; the approval comes between two sentences; Send Feedback drawn as a button in light and dark', async () => {
    const chat = await openChat();
    chat.submitFromPage('Can I turn it on for everyone? #approve');
    await reportOf(chat, (r) => r.questions[0]?.state === 'open' && r.focused === 'approve', 'the question asked, Approve focused');
    await inLightAndDark(async (kind) => {
      const theme = vscode.workspace.getConfiguration('workbench').get<string>('colorTheme');
      const shown = await reportOf(chat, (r) => r.feedbackButton !== undefined && r.theme !== '' && theme!.endsWith(r.theme), `the Send Feedback button drawn in ${theme}`);
      const shot = await ui.screenshot(`chat-trips-question-${kind}`);
      console.log(`      screenshot: ${shot.path} (${shot.width}x${shot.height}); ${shown.theme}: Send Feedback ${JSON.stringify(shown.feedbackButton)}`);
      const look = shown.feedbackButton!;
      assert.doesNotMatch(look.border, /rgba?\(0, 0, 0, 0\)|transparent|none|^0px/, `${kind}: Send Feedback has a visible border, as the theme's buttons do (${JSON.stringify(look)})`);
    });
    await ui.press('Enter');
    const done = await reportOf(chat, (r) => !r.busy && r.questions[0]?.state === 'answered' && r.transcript.length === 2, 'the approved turn over');
    assert.ok(!done.stepTitles.some((t) => /_usage_|tool_usage/.test(t)), `no raw event name: ${JSON.stringify(done.stepTitles)}`);
    assert.ok(done.stepTitles.includes('Used search_knowledge_base'), `the tool step in words: ${JSON.stringify(done.stepTitles)}`);
    const answer = done.transcript[1];
    assert.match(answer, /["”]?[.!?]["”]? Approved, applying it now\. [A-Z]/, `the approval between two sentences: ${answer}`);
    chat.panel.dispose();
  });

  it('a chat the flow forgot, reopened from its row: said in plain words, no 404; Forget This Chat from the keyboard removes its row and closes it', async () => {
    const chat = await openChat();
    chat.submitFromPage('Hello there');
    await reportOf(chat, (r) => !r.busy && r.transcript.length === 2, 'the first turn over');
    const rows = await waitFor(async () => ((await sessionRows()).some((n) => n.sessionId === chat.sessionId) ? sessionRows() : undefined), { message: 'the chat listed', ...SLOW });
    const row = rows.find((n) => n.sessionId === chat.sessionId)!;
    chat.panel.dispose();
    assert.ok(sim.forgetChatSessions(FLOW_ID) >= 1, 'the flow restarted: it forgot its chats');
    const item = await api.tree.getTreeItem(row);
    await executeCommand(item.command!.command, ...(item.command!.arguments ?? []));
    const reopened = await waitFor(() => api.flowChats().find((c) => c.sessionId === chat.sessionId), { message: 'the reopened panel', ...SLOW });
    const shown = await reportOf(reopened, (r) => !!r.gone && r.focused === 'newChat', 'the chat said to be forgotten, Start a New Chat focused');
    assert.match(shown.gone, /no longer knows this chat/);
    assert.deepStrictEqual(shown.goneActions, ['Start a New Chat', 'Forget This Chat']);
    assert.ok(!shown.notes.some((n) => /404/.test(n)), `no bare 404: ${JSON.stringify(shown.notes)}`);
    assert.ok(shown.busy, 'the message box is closed: nothing sent here can arrive');
    await inLightAndDark(async (kind) => {
      const theme = vscode.workspace.getConfiguration('workbench').get<string>('colorTheme');
      await reportOf(reopened, (r) => r.theme !== '' && theme!.endsWith(r.theme), `the page drawn in ${theme}`);
      const shot = await ui.screenshot(`chat-trips-forgotten-${kind}`);
      console.log(`      screenshot: ${shot.path} (${shot.width}x${shot.height})`);
    });
    await reportOf(reopened, (r) => r.focused === 'newChat', 'Start a New Chat still focused');
    await ui.press('Tab');
    await reportOf(reopened, (r) => r.focused === 'forgetChat', 'Forget This Chat focused by Tab');
    await ui.press('Enter');
    await waitFor(async () => (!api.flowChats().some((c) => c.sessionId === chat.sessionId) && !(await sessionRows()).some((n) => n.sessionId === chat.sessionId) ? true : undefined), {
      message: 'the panel closed and the row gone',
      ...SLOW,
    });
  });

  it('a message to a chat the flow forgot: not "back in the message box"; Start a New Chat from the keyboard takes the message to a new chat', async () => {
    const chat = await openChat();
    sim.forgetChatSessions(FLOW_ID);
    const posts = () => sim.requestLog.entries.filter((e) => e.method === 'POST' && e.path.endsWith(`/chat/${chat.sessionId}/message`));
    chat.submitFromPage('Is it on now?');
    const shown = await reportOf(chat, (r) => !!r.gone && r.focused === 'newChat', 'the chat said to be forgotten, Start a New Chat focused');
    assert.match(shown.gone, /no longer knows this chat/);
    assert.ok(!shown.notes.some((n) => /message box|404/.test(n)), `no dead end offered: ${JSON.stringify(shown.notes)}`);
    assert.deepStrictEqual(posts().map((e) => e.status), [404], 'sent once');
    const before = new Set(api.flowChats().map((c) => c.sessionId));
    await ui.press('Enter');
    const fresh = await waitFor(() => api.flowChats().find((c) => !before.has(c.sessionId)), { message: 'a new chat with the flow', ...SLOW });
    const ready = await reportOf(fresh, (r) => r.composer === 'Is it on now?' && !r.busy, 'the message waiting in the new chat\'s box');
    assert.strictEqual(ready.transcript.length, 0);
    assert.ok(api.flowChats().every((c) => c.sessionId === fresh.sessionId || c.panel.title !== fresh.panel.title), 'its tab told apart from the others');
    fresh.submitFromPage(ready.composer);
    const answered = await reportOf(fresh, (r) => !r.busy && r.transcript.length === 2, 'the message answered in the new chat');
    assert.match(answered.transcript[1], /^assistant: Thanks for your message: "Is it on now\?"/);
  });
});
