// Issue #47: every tooltip that carries crew or user text renders that text as text — no link of any scheme
// (`<command:…>` autolinks, bare URLs, `www.`, e-mail addresses, `[x](y)`), no image, no HTML, no icon. The
// tooltips are built as the extension builds them (a `vscode` whose MarkdownString appends exactly as VS Code's),
// then rendered by markdown-it with linkify and raw HTML on: stricter than VS Code's hover, which links less.
import * as assert from 'node:assert/strict';
import type * as RunRowsModule from '../../src/sidebar/runRows';
import type * as ChatRowsModule from '../../src/sidebar/chatRows';
import type * as StatusBarModule from '../../src/runs/statusBar';
import { markdownText } from '../../src/util/markdownText';
import { makeRun } from './chatTools.test';
import { chatConfirmation, confirmationMarkdown, kickoffConfirmation } from '../../src/chat/confirmations';
import { requireWithFakeVscode, type FakeMarkdownString } from './helpers/fakeVscode';
import { assertInert, HOSTILE, renderer } from './helpers/inertMarkdown';

describe('tooltips show crew and user text as text (#47)', () => {
  const runRows = requireWithFakeVscode<typeof RunRowsModule>(require.resolve('../../src/sidebar/runRows'));
  const chatRows = requireWithFakeVscode<typeof ChatRowsModule>(require.resolve('../../src/sidebar/chatRows'));
  const statusBar = requireWithFakeVscode<typeof StatusBarModule>(require.resolve('../../src/runs/statusBar'));

  it('markdownText: 11 hostile texts, one line or many, render with no link, image or formatting', () => {
    for (const text of HOSTILE) {
      assertInert(markdownText(text), [text], text);
    }
    const many = HOSTILE.join('\n');
    assertInert(markdownText(many), HOSTILE, 'all on their own lines');
    assert.equal(renderer.render(markdownText('a\nb')).match(/<br>/g)?.length, 1, 'a line break stays one');
    const shapes = markdownText('    indented\n===\n- item\n1. one');
    assertInert(shapes, ['indented', '===', '- item', '1. one'], 'no heading or list');
    assert.doesNotMatch(renderer.render(shapes), /<pre/, 'no code block');
  });

  it('the run tooltip: status message, warning, label, batch source, inputs and kickoff id', () => {
    for (const text of HOSTILE) {
      const run = makeRun({ crewName: text, label: text, message: text, warning: text, kickoffId: text, batch: { id: 'b', row: 3, source: text } as never });
      const tooltip = runRows.runTooltip(run, { [text]: text }) as unknown as FakeMarkdownString;
      assertInert(tooltip.value, [text], `run tooltip of ${text}`);
      // Our own icons still render: only the crew's are broken.
      assert.ok(tooltip.supportThemeIcons);
    }
  });

  it('the task tooltip: its output', () => {
    for (const text of HOSTILE) {
      const tooltip = runRows.taskTooltip({ output: `${text}\n${text}` } as never) as unknown as FakeMarkdownString;
      assertInert(tooltip.value, [text], `task tooltip of ${text}`);
    }
  });

  it('the crew tooltip: name, URL and the platform words', () => {
    for (const text of HOSTILE) {
      const item = runRows.crewTreeItem({ name: text, url: `https://crew.example/${text}`, source: 'user' } as never, {
        hasChildren: false,
        activity: undefined,
        hasToken: true,
        health: 'ready',
        deployment: { state: 'failed', words: text, firstError: text },
      });
      assertInert((item.tooltip as unknown as FakeMarkdownString).value, [text, 'https://crew.example/'], `crew tooltip of ${text}`);
    }
  });

  it('the chat session tooltip: the first message and the session id', () => {
    for (const text of HOSTILE) {
      const item = chatRows.chatSessionTreeItem({ type: 'chatSession', crewUrl: 'https://crew.example', sessionId: text }, { id: text, firstMessage: text, lastActivity: Date.now() } as never);
      assertInert((item.tooltip as unknown as FakeMarkdownString).value, [text], `chat session tooltip of ${text}`);
    }
  });

  it('the status bar tooltip: run labels and crew names', () => {
    for (const text of HOSTILE) {
      const runs = [makeRun({ id: 'r1', label: text, crewName: text }), makeRun({ id: 'r2', label: text, crewName: text, needsFeedback: true })];
      let tooltip: unknown;
      const store = { list: () => runs, onDidChange: () => ({ dispose: () => undefined }) };
      new statusBar.RunsStatusBar(store as never, undefined, (inspection) => (tooltip = inspection.tooltip()));
      assertInert((tooltip as FakeMarkdownString).value, [text], `status bar tooltip of ${text}`);
    }
  });

  it('a chat tool\'s confirmation: crew name and URL, every input and message', () => {
    for (const text of HOSTILE) {
      const kickoff = confirmationMarkdown(kickoffConfirmation({ name: text, url: `https://crew.example/${text}` }, { [text]: text }));
      assertInert(kickoff, [text], `kickoff confirmation of ${text}`);
      assertInert(confirmationMarkdown(chatConfirmation({ name: text, url: 'https://crew.example' }, text, text)), [text], `chat confirmation of ${text}`);
    }
  });
});
