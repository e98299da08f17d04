// Issue "First impressions" 13: what the manifest tells a user (settings, walkthrough)
// says what the code does.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { POLLER_DEFAULTS } from '../../src/runTracking/pollTimes';

const root = path.join(__dirname, '..', '..', '..');
/** The integration tests' workbench window, in which the pictures are taken. */
const WINDOW_WIDTH = 1280;
const nls = JSON.parse(readFileSync(path.join(root, 'package.nls.json'), 'utf8')) as Record<string, string>;
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  contributes: {
    walkthroughs: { steps: { media: { markdown?: string; image?: string } }[] }[];
  };
};

describe('manifest text (first impressions)', () => {
  it('the polling setting states the first interval and the growth factor the poller uses', () => {
    const description = nls['crewRuns.pollMaxIntervalSeconds.description'];
    assert.ok(description.includes(`every ${POLLER_DEFAULTS.fastIntervalMs / 1000} s`), description);
    assert.ok(description.includes(`${POLLER_DEFAULTS.backoffFactor}×`), description);
  });

  it('every walkthrough step shows a picture that is in the package', () => {
    const ignore = readFileSync(path.join(root, '.vscodeignore'), 'utf8');
    for (const step of manifest.contributes.walkthroughs[0].steps) {
      const markdown = step.media.markdown;
      assert.ok(markdown, 'the step has Markdown');
      const body = readFileSync(path.join(root, markdown), 'utf8');
      const images = [...body.matchAll(/!\[[^\]]+\]\(([^)]+)\)/g)].map((m) => path.join(path.dirname(markdown), m[1]));
      assert.ok(images.length > 0, `${markdown} shows a picture`);
      for (const image of images) {
        assert.ok(existsSync(path.join(root, image)), `${image} exists`);
        // A whole-window screenshot shrunk into the walkthrough's column is too small to read (#52, finding 14).
        const width = readFileSync(path.join(root, image)).readUInt32BE(16); // A PNG's IHDR width.
        assert.ok(width < WINDOW_WIDTH, `${image} is cut to what it shows (${width} px wide, the whole window is ${WINDOW_WIDTH})`);
        assert.ok(ignore.includes(`!${path.dirname(image).split(path.sep).join('/')}/`), `${image} is packaged (.vscodeignore)`);
      }
    }
  });

  it("@crews says it needs a language model, as VS Code calls no participant without one; the docs do not promise otherwise (#52)", () => {
    // VS Code's extension host looks up the request's model before calling a participant and answers "Language model
    // unavailable" when there is none (1.96 and today's): /run, /status and the rest never run without a model.
    assert.match(nls['chat.crews.description'], /needs a (language|chat) model/i);
    const features = readFileSync(path.join(root, 'docs', 'features.md'), 'utf8');
    assert.doesNotMatch(features, /works without a model/i, 'docs/features.md');
    assert.match(features, /`@crews`[^\n]*needs a language model/i, 'docs/features.md says so where it shows @crews');
  });
});
