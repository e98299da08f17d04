// registerChat in editors that expose chat differently (issue #35): no `vscode.lm`/`vscode.chat` at
// all, or stubs that throw. Nothing may throw out of activation, no notification is shown (there is
// no `window` in these stubs: using it would throw), the log says what is left out, and the context
// keys that un-hide the tools and @crews in the manifest are set only for what was registered.
// The real host without the namespaces is the integration session `withoutChat`.
import * as assert from 'node:assert/strict';
import Module from 'node:module';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as RegisterChatModule from '../../src/chat/registerChat';
import { TOOL } from '../../src/chat/toolNames';

interface FakeEditor {
  lm?: { registerTool: (name: string, tool: unknown) => { dispose(): void } };
  chat?: { createChatParticipant: (id: string, handler: unknown) => { iconPath?: unknown; dispose(): void } };
}

interface Recorded {
  contextKeys: Record<string, unknown>;
  logged: { level: 'info' | 'warn'; message: string }[];
  disposed: string[];
}

/** registerChat loaded against `editor` as its `vscode` module. */
function registerWith(editor: FakeEditor): { disposables: { dispose(): void }[]; recorded: Recorded } {
  const recorded: Recorded = { contextKeys: {}, logged: [], disposed: [] };
  const vscode = {
    ...editor,
    commands: {
      executeCommand: async (command: string, key: string, value: unknown) => {
        assert.equal(command, 'setContext');
        recorded.contextKeys[key] = value;
      },
    },
    Uri: { joinPath: (...parts: unknown[]) => ({ parts }) },
  };
  const modulePath = require.resolve('../../src/chat/registerChat');
  const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const load = loader._load;
  loader._load = function (request: string, ...rest: unknown[]) {
    return request === 'vscode' ? vscode : load.call(this, request, ...rest);
  };
  delete require.cache[modulePath];
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { registerChat } = require(modulePath) as typeof RegisterChatModule;
    const log = {
      info: (message: string) => recorded.logged.push({ level: 'info', message }),
      warn: (message: string) => recorded.logged.push({ level: 'warn', message }),
    };
    const services = {} as never; // Never needed: nothing is invoked here.
    const disposables = registerChat(services, {} as never, log);
    return { disposables, recorded };
  } finally {
    loader._load = load;
    delete require.cache[modulePath];
  }
}

/** Runs `body` with `vscode` as the module `vscode` (for code that loads later than registerWith). */
async function withVscode<T>(vscode: object, body: () => Promise<T>): Promise<T> {
  const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const load = loader._load;
  loader._load = function (request: string, ...rest: unknown[]) {
    return request === 'vscode' ? vscode : load.call(this, request, ...rest);
  };
  try {
    return await body();
  } finally {
    loader._load = load;
  }
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

function workingLm(recorded: string[]): FakeEditor['lm'] {
  return {
    registerTool: (name) => {
      recorded.push(name);
      return { dispose: () => recorded.push(`disposed ${name}`) };
    },
  };
}

const workingChat: FakeEditor['chat'] = { createChatParticipant: () => ({ dispose: () => undefined }) };

describe('registerChat in editors without (working) chat', () => {
  it('no vscode.lm and no vscode.chat: registers nothing, throws nothing, sets no context key, logs why', async () => {
    const { disposables, recorded } = registerWith({});
    await settle();
    assert.deepEqual(disposables, []);
    assert.deepEqual(recorded.contextKeys, {}, 'the tools and @crews stay hidden');
    assert.deepEqual(recorded.logged.map((entry) => entry.level), ['info', 'info']);
    assert.match(recorded.logged[0].message, /no language model tools API/);
    assert.match(recorded.logged[1].message, /no chat API/);
  });

  it('both APIs: six tools and the participant, and both context keys set', async () => {
    const registered: string[] = [];
    const { disposables, recorded } = registerWith({ lm: workingLm(registered), chat: workingChat });
    await settle();
    assert.deepEqual(registered, Object.values(TOOL));
    assert.equal(disposables.length, Object.values(TOOL).length + 1);
    assert.deepEqual(recorded.contextKeys, { 'crewRuns.chatTools': true, 'crewRuns.chatParticipant': true });
    assert.deepEqual(recorded.logged, []);
  });

  it('a registerTool that throws part-way: no half tool set, @crews still offered, a warning in the log only', async () => {
    const calls: string[] = [];
    const lm: FakeEditor['lm'] = {
      registerTool: (name) => {
        if (calls.filter((call) => !call.startsWith('disposed')).length === 2) {
          throw new Error('Tools are not supported in this editor');
        }
        return workingLm(calls)!.registerTool(name, {});
      },
    };
    const { disposables, recorded } = registerWith({ lm, chat: workingChat });
    await settle();
    assert.deepEqual(calls, [TOOL.listCrews, TOOL.describeInputs, `disposed ${TOOL.listCrews}`, `disposed ${TOOL.describeInputs}`]);
    assert.equal(disposables.length, 1, 'only the participant');
    assert.deepEqual(recorded.contextKeys, { 'crewRuns.chatParticipant': true });
    assert.equal(recorded.logged.length, 1);
    assert.equal(recorded.logged[0].level, 'warn');
    assert.match(recorded.logged[0].message, /crew tools .* not available here: Tools are not supported in this editor/);
  });

  it('a createChatParticipant that throws: the tools still work, @crews stays hidden', async () => {
    const registered: string[] = [];
    const chat: FakeEditor['chat'] = {
      createChatParticipant: () => {
        throw new Error('chatParticipant must be declared in package.json: crewRuns.crews');
      },
    };
    const { disposables, recorded } = registerWith({ lm: workingLm(registered), chat });
    await settle();
    assert.equal(disposables.length, Object.values(TOOL).length);
    assert.deepEqual(recorded.contextKeys, { 'crewRuns.chatTools': true });
    assert.match(recorded.logged[0].message, /@crews chat participant is not available here/);
  });

  it("registers the tools and @crews without loading what they do: @crews' first request loads it (its own bundle)", async () => {
    // What the tools and @crews do, and what only they import: not loaded by registration (dist/chat.js, esbuild.js).
    const lazy = ['chatHandlers', 'participantHost', 'tools', 'participant', 'crewActions'].map((name) => require.resolve(`../../src/chat/${name}`));
    const kept = lazy.map((file) => require.cache[file]);
    lazy.forEach((file) => delete require.cache[file]);
    const loaded = () => lazy.filter((file) => require.cache[file] !== undefined).map((file) => path.basename(file, '.js'));
    let handler: ((...args: unknown[]) => Promise<unknown>) | undefined;
    const chat: FakeEditor['chat'] = {
      createChatParticipant: (_id, given) => {
        handler = given as typeof handler;
        return { dispose: () => undefined };
      },
    };
    const markdown: string[] = [];
    try {
      const { recorded } = registerWith({ lm: workingLm([]), chat });
      await settle();
      assert.deepEqual(recorded.contextKeys, { 'crewRuns.chatTools': true, 'crewRuns.chatParticipant': true }, 'both offered');
      assert.deepEqual(loaded(), [], 'nothing of what they do is loaded yet');
      assert.ok(handler, 'the participant has its handler');
      const stream = { markdown: (value: { value: string }) => markdown.push(value.value) };
      const vscode = { MarkdownString: class { isTrusted = true; supportHtml = true; constructor(readonly value: string) {} } };
      await withVscode(vscode, () => handler!({ prompt: '', command: undefined }, { history: [] }, stream, { isCancellationRequested: false }));
      assert.deepEqual(loaded().sort(), ['chatHandlers', 'crewActions', 'participant', 'participantHost', 'tools'], 'the first request loaded it');
      assert.match(markdown.join(''), /\/run <crew>/, 'and answered with the commands');
    } finally {
      lazy.forEach((file, i) => (kept[i] ? (require.cache[file] = kept[i]) : delete require.cache[file]));
    }
  });

  it('the manifest hides the tools and @crews behind exactly those context keys', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
      contributes: { languageModelTools: { name: string; when?: string }[]; chatParticipants: { id: string; when?: string }[] };
    };
    for (const tool of manifest.contributes.languageModelTools) {
      assert.equal(tool.when, 'crewRuns.chatTools', `${tool.name} is hidden until the tools are registered`);
    }
    assert.deepEqual(manifest.contributes.chatParticipants.map((participant) => participant.when), ['crewRuns.chatParticipant']);
  });
});
