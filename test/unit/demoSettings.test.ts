// `npm run demo` turns VS Code's AI features off in its settings (it has no language model): the demo says so when it
// starts, and how to turn them on, instead of leaving a user to wonder where @crews and the crew tools went (#52, 7).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { demoOffNotes } from '../integration/runner/demoServer';
import { QUIET_USER_SETTINGS } from '../integration/runner/server';

describe("the demo's settings, in words", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crew-runs-demo-settings-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const settingsFile = (text: string) => {
    const file = path.join(dir, `settings-${Math.random().toString(36).slice(2)}.json`);
    fs.writeFileSync(file, text);
    return file;
  };

  it('says that the chat, the crew tools and @crews are off, why, and which setting turns them on', () => {
    const notes = demoOffNotes(settingsFile(JSON.stringify(QUIET_USER_SETTINGS, null, 2)));
    assert.equal(notes.length, 1, notes.join('\n'));
    for (const words of ['chat', 'crew tools', '@crews', 'language model', '"chat.disableAIFeatures": false']) {
      assert.ok(notes[0].includes(words), `${words} in: ${notes[0]}`);
    }
  });

  it("reads the demo's settings as they are now (comments and all): AI features turned on, nothing to say", () => {
    assert.deepEqual(demoOffNotes(settingsFile('{\n  // mine\n  "chat.disableAIFeatures": false,\n}\n')), []);
    assert.equal(demoOffNotes(settingsFile('{ /* kept */ "chat.disableAIFeatures": true, }')).length, 1);
    assert.deepEqual(demoOffNotes(path.join(dir, 'missing.json')), [], 'no settings file: VS Code’s defaults, nothing off');
  });
});
