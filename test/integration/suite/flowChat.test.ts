// @crew-runs-own-session — Chat with Flow streams for seconds per turn; its own session keeps `main` short.
//
// Issue 38: start a session, a streamed answer (text visible before the turn ends), a tool step, a stream cut
// mid-answer resumed with no text twice or missing, a 409 while busy said in plain words.
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { Simulator } from '../../../src/simulator/server';
import { startSimulator } from '../../../src/simulator/server';
import type { ChatPanelInspection } from '../../../src/flowChat/chatCommands';
import type { ChatPageReport } from '../../../src/flowChat/chatProtocol';
import { addCrewWithToken, executeCommand, kickOffWithoutReview, selectors, ui, waitFor } from '../helpers';
import {
  acceptNotification,
  type Api,
  clearNotifications,
  crewRows,
  pressInQuickInput,
  removeAllCrews,
  testApi,
  typeInQuickInput,
  waitForNotification,
  waitForQuickInput,
} from './support/kit';

const ANSWER =
  'Streaming answers arrive word by word. This one is long enough to be seen half written, with a tool step in the ' +
  'middle and a clean ending that the history confirms once the turn is over.';

describe('Flow chat', function () {
  this.timeout(120_000);
  let api: Api;
  let sim: Simulator;
  let crewUrl: string;
  let chat: ChatPanelInspection;

  const report = (): ChatPageReport | undefined => chat.lastReport();
  const assistantTexts = () => (report()?.transcript ?? []).filter((line) => line.startsWith('assistant: ')).map((line) => line.slice('assistant: '.length));
  const settled = (count: number, message: string) =>
    waitFor(() => (report() && !report()!.busy && assistantTexts().length === count ? report() : undefined), { message, timeoutMs: 60_000 });

  before(async () => {
    api = await testApi();
    sim = await startSimulator({
      crews: [
        { id: 'chatty', name: 'Chatty Flow', kind: 'flow', inputs: [], tasks: [], chat: { tokenIntervalMs: 60, answer: ANSWER } },
        { id: 'plain', name: 'Plain Crew', kind: 'crew', inputs: [], tasks: [] },
      ],
    });
    const served = sim.crews[0];
    crewUrl = served.url;
    await addCrewWithToken({ url: crewUrl, name: served.name, token: served.orgToken });
    await addCrewWithToken({ url: sim.crews[1].url, name: sim.crews[1].name, token: sim.crews[1].orgToken });
    await api.crews.addUserCrew('Tokenless Flow', `${sim.crews[1].url.replace(/\/plain$/, '')}/tokenless`);
  });

  after(async () => {
    await executeCommand('workbench.action.closeAllEditors');
    if (api) {
      await removeAllCrews(api);
    }
    await sim?.close();
  });

  it('the tree offers Chat with Flow only where GET /inspect says the crew chats, asking each crew once', async () => {
    const inspects = (id: string) => sim.requestLog.entries.filter((e) => e.path === `/${id}/inspect`).length;
    await executeCommand('crewRuns.crews.focus');
    const rows = await waitFor(
      async () => {
        const all = await crewRows(api);
        return inspects('plain') === 1 && all.some((r) => r.url === crewUrl && / chats\b/.test(r.contextValue)) ? all : undefined;
      },
      { message: 'the chat flow offering chat once both crews were asked' },
    );
    const row = (name: string) => rows.find((r) => r.label === name)?.contextValue ?? '';
    assert.match(row('Chatty Flow'), /^crew .*\bhasToken chats$/);
    assert.doesNotMatch(row('Plain Crew'), /\bchats\b/, 'a 404 from /inspect: no chat');
    assert.strictEqual(row('Tokenless Flow'), 'crew source-user health-noToken noToken', 'without a token: not asked, not offered');
    await crewRows(api); // Drawn again: the answers are remembered.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepStrictEqual([inspects('chatty'), inspects('plain'), inspects('tokenless')], [1, 1, 0]);

    const node = (await api.tree.getChildren())!.find((n) => n.type === 'crew' && n.crew.url === crewUrl)!;
    await api.treeView.reveal(node, { select: true, focus: true });
    const shot = await ui.screenshot('flow-chat-tree-row', { selector: selectors.sideBar });
    console.log(`      screenshot: ${shot.path} (${shot.width}x${shot.height}, ${shot.distinctColours} colours)`);

    // Refresh asks again as the crews are drawn (a redeploy may have changed what a deployment does).
    await executeCommand('crewRuns.refresh');
    await waitFor(async () => (await crewRows(api), inspects('chatty') === 2 && inspects('plain') === 2 ? true : undefined), { message: 'asked again after Refresh' });
  });

  it('starts a session and streams the answer token by token, with a tool step', async () => {
    const sessionId = await executeCommand<string>('crewRuns.chatWithFlow', crewUrl);
    assert.ok(sessionId, 'a session was started');
    chat = await waitFor(() => api.flowChats().find((c) => c.sessionId === sessionId), { message: 'the chat panel' });
    await waitFor(() => report(), { message: 'the chat page reporting' });
    chat.submitFromPage('What is new?');
    const midStream = await waitFor(
      () => {
        const text = assistantTexts()[0];
        return report()?.busy && text && text.length > 10 && text.length < ANSWER.length ? report() : undefined;
      },
      { message: 'part of the answer shown while the turn still runs' },
    );
    assert.match(midStream.busyReason, /answering/, 'the composer says why it is disabled');
    const shot = await ui.screenshot('flow-chat-mid-stream');
    console.log(`      screenshot: ${shot.path} (${shot.width}x${shot.height}, ${shot.distinctColours} colours)`);
    const done = await settled(1, 'the turn over');
    assert.strictEqual(assistantTexts()[0], ANSWER);
    assert.ok(done.steps >= 1, 'the tool event is shown as a step');
    assert.deepStrictEqual(done.connectionShown, [], 'a stream that never broke: nothing said about the connection');
  });

  it('resumes a stream cut mid-answer: nothing twice, nothing missing', async () => {
    chat.submitFromPage('Again please #drop');
    const done = await settled(2, 'the second turn over');
    assert.strictEqual(assistantTexts()[1], ANSWER);
    // While it waited to reattach, the line above the composer said so; the turn over, it is gone.
    assert.ok(done.connectionShown.some((s) => /dropped; reconnecting/.test(s)), done.connectionShown.join(' | '));
    assert.strictEqual(done.busyReason, '');
    const streams = sim.requestLog.entries.filter((e) => e.path.endsWith(`/chat/${chat.sessionId}/stream/events`));
    assert.ok(streams.length >= 3, `the cut stream was reattached (${streams.length} stream requests in both turns)`);
  });

  it('the session is listed under its crew once its first message is sent; its row reveals the open panel, not a second one', async () => {
    const crewNode = (await api.tree.getChildren())!.find((n) => n.type === 'crew' && n.crew.url === crewUrl)!;
    const rows = await waitFor(
      async () => {
        const chatsNode = ((await api.tree.getChildren(crewNode)) ?? []).find((n) => n.type === 'chats');
        const sessions = chatsNode ? ((await api.tree.getChildren(chatsNode)) ?? []) : [];
        return sessions.length ? { chatsNode: chatsNode!, sessions } : undefined;
      },
      { message: 'a Chats group with the session under the crew' },
    );
    assert.strictEqual(rows.sessions.length, 1, 'one session, listed once though two messages were sent');
    const row = await api.tree.getTreeItem(rows.sessions[0]);
    assert.strictEqual(row.label, 'What is new?', 'labelled with its first message');
    assert.match(String(row.description), /now|min ago/);
    // The tooltip's Markdown escapes every punctuation mark of crew and user text (#47): read it as it renders.
    const tooltipText = (row.tooltip as vscode.MarkdownString).value.replace(/\\([!-/:-@[-`{-~])/g, '$1');
    assert.ok(tooltipText.includes(chat.sessionId), `the session id in the tooltip: ${tooltipText}`);
    assert.strictEqual(row.contextValue, 'chatSession');
    const other = await executeCommand('workbench.action.files.newUntitledFile').then(() => vscode.window.activeTextEditor);
    assert.ok(other && !chat.panel.active, 'another editor in front of the chat');
    await executeCommand(row.command!.command, ...(row.command!.arguments ?? []));
    await waitFor(() => chat.panel.active || undefined, { message: 'the open chat panel revealed' });
    assert.strictEqual(api.flowChats().filter((c) => c.sessionId === chat.sessionId).length, 1, 'no second panel on the same session');
    const untitled = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.scheme === 'untitled');
    await vscode.window.tabGroups.close(untitled, true);
    assert.ok(chat.panel.visible, 'the chat stays open');
  });

  const feedbackPosts = () => sim.requestLog.entries.filter((e) => e.method === 'POST' && e.path.endsWith('/resume_feedback'));
  const openQuestion = (count: number) =>
    waitFor(() => (report()?.questions.length === count && report()!.questions[count - 1].state === 'open' && report()!.focused === 'approve' ? report() : undefined), {
      message: `question ${count} shown, Approve focused`,
    });

  it('a pause for approval: the question inline, Approve from the keyboard, sent once, the answer goes on in place', async function () {
    if (!ui.available()) {
      this.skip(); // Keys through the browser runner's page.
    }
    chat.submitFromPage('Apply it #approve');
    const asked = await openQuestion(1);
    assert.deepStrictEqual(asked.questions.map((q) => q.text), ['May I apply this change to your workspace?']);
    assert.match(asked.busyReason, /waits for your answer/);
    assert.ok(asked.busy, 'the composer stays disabled while the turn waits');
    const shot = await ui.screenshot('flow-chat-question');
    console.log(`      screenshot: ${shot.path} (${shot.width}x${shot.height}, ${shot.distinctColours} colours)`);
    await ui.press('Enter');
    await ui.press('Enter'); // A second press while the first is on its way does nothing.
    await ui.press('Space');
    await settled(3, 'the approved turn over');
    assert.strictEqual(feedbackPosts().length, 1, 'the answer was posted once');
    assert.deepStrictEqual(feedbackPosts()[0].status, 200);
    assert.match(assistantTexts()[2], /\S Approved, applying it now\. \S/, 'the answer continued in place');
    assert.strictEqual(assistantTexts()[2].replace('Approved, applying it now. ', ''), ANSWER, 'nothing twice, nothing missing');
    assert.deepStrictEqual(report()!.questions.map((q) => q.state), ['answered']);
  });

  it('Send Feedback: text typed under the question goes to the flow, which takes it into account', async function () {
    if (!ui.available()) {
      this.skip();
    }
    chat.submitFromPage('Apply it too #approve');
    await openQuestion(2);
    await ui.press('Tab');
    await waitFor(() => (report()?.focused === 'feedback' ? true : undefined), { message: 'the feedback box focused by Tab' });
    await ui.type('Only for the admins', { enter: true });
    await settled(4, 'the turn with feedback over');
    assert.strictEqual(feedbackPosts().length, 2, 'one more answer posted');
    assert.match(assistantTexts()[3], /Understood, I will take this into account: Only for the admins\. /);
    const shot = await ui.screenshot('flow-chat-feedback-sent');
    console.log(`      screenshot: ${shot.path} (${shot.width}x${shot.height}, ${shot.distinctColours} colours)`);
  });

  it('a turn that ends while the keyboard is elsewhere leaves it there: the chat page takes no focus', async function () {
    if (!ui.available()) {
      this.skip(); // What holds the keyboard is seen in the browser runner's page.
    }
    // The user moved on (here: a quick pick) before the turn ended. A page that focused its composer at the
    // end of a turn took the keyboard from whatever the user was in: the Set Token pick after a 401, on a busy machine.
    const elsewhere = vscode.window.showQuickPick(['Stay here'], { title: 'Somewhere else', ignoreFocusOut: true });
    await waitForQuickInput('Somewhere else');
    chat.submitFromPage('One more, while I look elsewhere');
    await settled(5, 'the turn over');
    // The runner presses the key only once the quick pick holds the keyboard focus, and says who has it if not.
    await pressInQuickInput('Escape', { when: 'Somewhere else' });
    assert.strictEqual(await elsewhere, undefined);
  });

  it('a session busy with another turn (409) is said in plain words, and nothing is resent', async () => {
    // Another client of the same session starts a turn first.
    const busy = await fetch(`${crewUrl}/chat/${chat.sessionId}/message`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sim.crews[0].orgToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'from elsewhere', stream: true }),
    });
    assert.strictEqual(busy.status, 200);
    const before = sim.requestLog.entries.filter((e) => e.method === 'POST' && e.path.endsWith('/message')).length;
    chat.submitFromPage('Mine too');
    await waitFor(() => (report() && !report()!.busy && report()!.transcript.includes('user: Mine too') ? true : undefined), { message: 'the refused turn over' });
    const posts = sim.requestLog.entries.filter((e) => e.method === 'POST' && e.path.endsWith('/message'));
    assert.strictEqual(posts.length - before, 1, 'the message was posted once');
    assert.strictEqual(posts.at(-1)?.status, 409);
  });

  /** Until the session has no turn running (the 409 test's other client started one). */
  const idle = () =>
    waitFor(
      async () => {
        const history = await fetch(`${crewUrl}/chat/${chat.sessionId}/history`, { headers: { authorization: `Bearer ${sim.crews[0].orgToken}` } });
        return ((await history.json()) as { active_kickoff_id: string | null }).active_kickoff_id === null ? true : undefined;
      },
      { message: 'no turn running in the session', timeoutMs: 30_000 },
    );
  const messagePosts = () => sim.requestLog.entries.filter((e) => e.method === 'POST' && e.path.endsWith(`/chat/${chat.sessionId}/message`));
  const turnOver = (text: string, note: RegExp, message: string) =>
    waitFor(() => (report() && !report()!.busy && report()!.transcript.includes(`user: ${text}`) && report()!.notes.some((n) => note.test(n)) ? report() : undefined), { message });

  it('a 5xx on send (issue 46): sent once, said with the server\'s words as a message that may have arrived: not put back, and Check reads the history', async () => {
    await idle();
    const before = messagePosts().length;
    chat.submitFromPage('Summarise the ticket #500');
    const shown = await turnOver('Summarise the ticket #500', /server error \(500\)/, 'the uncertain send said');
    const note = shown.notes.at(-1)!;
    assert.match(note, /Simulated: the chat service could not queue the message/, 'the server\'s words');
    assert.match(note, /may have reached the flow/);
    assert.doesNotMatch(note, /was not sent:|message box/, 'never said as not sent, never a resend invited');
    assert.strictEqual(shown.composer, '', 'not put back in the composer: it may have arrived');
    assert.ok(shown.checkOffered, 'Check offered');
    chat.checkFromPage();
    const checked = await waitFor(() => (report()?.checkOffered && report()!.notes.some((n) => /does not show your message so far/.test(n)) ? report() : undefined), {
      message: 'Check said the history does not show it, and is offered again',
    });
    assert.strictEqual(checked.composer, '');
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepStrictEqual(messagePosts().slice(before).map((e) => e.status), [500], 'posted once, never again');
    const shot = await ui.screenshot('flow-chat-send-500');
    console.log(`      screenshot: ${shot.path} (${shot.width}x${shot.height}, ${shot.distinctColours} colours)`);
  });

  it('the same message sent again after its send was uncertain (issue 46): not posted again; said that it may have reached the flow, and Check offered', async () => {
    await idle();
    const text = 'Close the ticket #500';
    const before = messagePosts().length;
    chat.submitFromPage(text);
    await turnOver(text, /may have reached the flow/, 'the uncertain send said');
    const notes = report()!.notes.length;
    // Typed again and sent, as a user who did not see it arrive would.
    chat.submitFromPage(text);
    const shown = await waitFor(
      () => (report() && !report()!.busy && report()!.transcript.filter((line) => line === `user: ${text}`).length === 2 && report()!.notes.length > notes ? report() : undefined),
      { message: 'the second send said' },
    );
    assert.match(shown.notes.at(-1)!, /may have reached the flow/);
    assert.match(shown.notes.at(-1)!, /not sent again/);
    assert.doesNotMatch(shown.notes.at(-1)!, /was not sent:|message box/, 'never a resend invited');
    assert.ok(shown.checkOffered, 'Check offered');
    assert.strictEqual(shown.composer, '');
    assert.deepStrictEqual(messagePosts().slice(before).map((e) => e.status), [500], 'posted once');
    const shot = await ui.screenshot('flow-chat-sent-again');
    console.log(`      screenshot: ${shot.path} (${shot.width}x${shot.height}, ${shot.distinctColours} colours)`);
  });

  it('a send whose reply was lost while the flow took it, listed late and trimmed (issue 46): never put back, never resent; Check shows its answer in its place', async () => {
    const text = 'Book the room for Friday #late ';
    const before = messagePosts().length;
    chat.submitFromPage(text);
    const shown = await turnOver(text, /may have reached the flow/, 'the uncertain send said');
    assert.match(shown.notes.at(-1)!, /502/);
    assert.strictEqual(shown.composer, '', 'not put back in the composer');
    assert.ok(shown.checkOffered, 'Check offered');
    // The flow lists it a moment later, trimmed; Check then finds it.
    await waitFor(
      async () => {
        const history = await fetch(`${crewUrl}/chat/${chat.sessionId}/history`, { headers: { authorization: `Bearer ${sim.crews[0].orgToken}` } });
        return ((await history.json()) as { messages: { content: string }[] }).messages.some((m) => m.content === text.trim()) ? true : undefined;
      },
      { message: 'the flow listed the message' },
    );
    chat.checkFromPage();
    const answered = await waitFor(
      () => {
        const r = report();
        const at = r?.transcript.indexOf(`user: ${text}`) ?? -1;
        return r && !r.busy && at >= 0 && r.transcript[at + 1] === `assistant: ${ANSWER}` ? r : undefined;
      },
      { message: 'its answer in its place' },
    );
    assert.ok(!answered.checkOffered, 'nothing left to check');
    assert.ok(!answered.notes.some((n) => /Friday/.test(n) || /502/.test(n)), 'the note that it may not have arrived is gone');
    assert.strictEqual(answered.composer, '');
    assert.deepStrictEqual(messagePosts().slice(before).map((e) => e.status), [502], 'posted once');
  });

  it('a 401 on send offers Set Token; with the token set, the kept text is sent', async function () {
    if (!ui.available()) {
      this.skip(); // The notification's action and the token box through the browser runner's page.
    }
    await clearNotifications();
    await addCrewWithToken({ url: crewUrl, name: 'Chatty Flow', token: 'not-the-token-0123456789' });
    const before = messagePosts().length;
    chat.submitFromPage('Are you there?');
    const shown = await turnOver('Are you there?', /rejected the token \(401\)/, 'the 401 said in the chat');
    assert.strictEqual(shown.composer, 'Are you there?');
    await waitForNotification('Chatty Flow rejected the token (401)');
    await acceptNotification('Chatty Flow rejected the token (401)');
    await waitForQuickInput('Set Token for Chatty Flow');
    await pressInQuickInput('Enter', { activeItem: 'Organization Bearer Token' });
    await waitForQuickInput('Paste the token');
    await typeInQuickInput(sim.crews[0].orgToken, { enter: true });
    await waitForNotification('The token of Chatty Flow was saved.');
    await clearNotifications();
    chat.submitFromPage(shown.composer);
    const answered = await waitFor(
      () => {
        const lines = report()?.transcript ?? [];
        return !report()!.busy && lines.filter((l) => l === 'user: Are you there?').length === 2 && lines.at(-1) === `assistant: ${ANSWER}` ? report() : undefined;
      },
      { message: 'the kept message answered', timeoutMs: 60_000 },
    );
    assert.strictEqual(answered.composer, '');
    assert.deepStrictEqual(messagePosts().slice(before).map((e) => e.status), [401, 200]);
  });

  it('a turn_failed frame: the reason shown in plain words', async () => {
    chat.submitFromPage('Break please #fail');
    const shown = await turnOver('Break please #fail', /could not answer/, 'the failed turn said');
    assert.match(shown.notes.at(-1)!, /^The flow could not answer: Simulated failure: the flow raised ValueError in handle_turn$/);
    assert.strictEqual(shown.composer, '', 'the flow took the message: nothing to send again');
  });

  it('a new session whose first message the flow refused is not listed; the first message it took labels it', async () => {
    const sessionId = await executeCommand<string>('crewRuns.chatWithFlow', crewUrl);
    const fresh = await waitFor(() => api.flowChats().find((c) => c.sessionId === sessionId), { message: 'the new chat panel' });
    await waitFor(() => fresh.lastReport(), { message: 'the new chat page reporting' });
    const listed = async () => {
      const crewNode = (await api.tree.getChildren())!.find((n) => n.type === 'crew' && n.crew.url === crewUrl)!;
      const chatsNode = ((await api.tree.getChildren(crewNode)) ?? []).find((n) => n.type === 'chats');
      const rows = chatsNode ? ((await api.tree.getChildren(chatsNode)) ?? []) : [];
      return rows.filter((n) => n.type === 'chatSession' && n.sessionId === sessionId);
    };
    fresh.submitFromPage('Not taken #refuse');
    await waitFor(() => (fresh.lastReport()?.notes.some((n) => /not sent/.test(n)) && !fresh.lastReport()?.busy ? true : undefined), { message: 'the refused send said' });
    fresh.submitFromPage('Taken this time');
    await waitFor(() => (fresh.lastReport()?.transcript.some((l) => l.startsWith(`assistant: ${ANSWER.slice(0, 20)}`)) && !fresh.lastReport()?.busy ? true : undefined), {
      message: 'the second message answered',
      timeoutMs: 60_000,
    });
    const rows = await waitFor(async () => ((await listed()).length ? listed() : undefined), { message: 'the session listed' });
    assert.strictEqual(rows.length, 1);
    // Listed once, by the message the flow took: the refused one was never its first message.
    assert.strictEqual((await api.tree.getTreeItem(rows[0])).label, 'Taken this time', 'labelled with the first message the flow took');
    fresh.panel.dispose();
  });

  it('Open Chat as Markdown: the conversation in an untitled Markdown document, each message fenced', async () => {
    chat.panel.reveal();
    await waitFor(() => (chat.panel.active ? true : undefined), { message: 'the chat panel active' });
    await executeCommand('crewRuns.openChatAsMarkdown');
    const editor = await waitFor(() => {
      const active = vscode.window.activeTextEditor;
      return active?.document.isUntitled && active.document.languageId === 'markdown' ? active : undefined;
    }, { message: 'an untitled Markdown editor' });
    const text = editor.document.getText();
    assert.ok(text.startsWith('# Chat with Chatty Flow\n'), text.slice(0, 80));
    assert.ok(text.includes('**You**\n\n```text\nWhat is new?\n```'), 'the first message, fenced');
    assert.ok(text.includes(`**Flow**\n\n\`\`\`text\n${ANSWER}\n\`\`\``), 'the first answer as the history gave it, fenced');
    assert.ok(text.includes('Understood, I will take this into account: Only for the admins.'), 'the answer that went on after feedback');
    assert.ok(text.includes('_The flow is still answering an earlier message; your message was not sent\\. '), 'the note of the refused message, escaped');
    const shot = await ui.screenshot('flow-chat-markdown');
    console.log(`      screenshot: ${shot.path} (${shot.width}x${shot.height}, ${shot.distinctColours} colours)`);
    await executeCommand('workbench.action.revertAndCloseActiveEditor');
  });

  it('the run view of a run on a crew that chats offers Chat with Flow for that crew; a crew that does not, offers none', async () => {
    const plainUrl = sim.crews[1].url;
    for (const url of [crewUrl, plainUrl]) {
      const runId = await kickOffWithoutReview<string>({ crew: url, inputs: {} });
      assert.ok(runId, `a run on ${url}`);
      await executeCommand('crewRuns.openRun', { runId });
      await waitFor(() => (api.panels.activeRunId() === runId ? true : undefined), { message: 'its run view active' });
      const chatsBefore = api.flowChats().length;
      const sessionId = await executeCommand<string | undefined>('crewRuns.chatWithRunFlow');
      if (url === crewUrl) {
        assert.ok(sessionId, 'a chat with the run’s crew started, without asking which crew');
        assert.strictEqual(api.flowChats().find((c) => c.sessionId === sessionId)?.crewUrl, crewUrl);
      } else {
        assert.strictEqual(sessionId, undefined, 'no chat: the crew does not offer one');
        assert.strictEqual(api.flowChats().length, chatsBefore);
      }
      await executeCommand('workbench.action.closeAllEditors');
    }
  });

  it('closing the panel while the flow answers ends the turn quietly: nothing is posted to the closed page', async () => {
    const sessionId = await executeCommand<string>('crewRuns.chatWithFlow', crewUrl);
    const closing = await waitFor(() => api.flowChats().find((c) => c.sessionId === sessionId), { message: 'the chat panel' });
    await waitFor(() => closing.lastReport(), { message: 'the chat page reporting' });
    const rejections: string[] = [];
    const onRejection = (reason: unknown) => rejections.push(String(reason));
    process.on('unhandledRejection', onRejection);
    try {
      closing.submitFromPage('Tell me everything');
      await waitFor(() => (closing.lastReport()?.busy && (closing.lastReport()?.transcript.at(-1) ?? '').length > 'assistant: '.length ? true : undefined), { message: 'the answer streaming' });
      closing.panel.dispose();
      // A negative check needs a window: the turn ends within moments of the close (its stream is aborted).
      await new Promise((resolve) => setTimeout(resolve, 3000));
      assert.deepStrictEqual(rejections.filter((r) => /disposed/i.test(r)), [], 'no "Webview is disposed" from the turn ending');
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });
});
