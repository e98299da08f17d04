// `npm run screenshots`: copies the README pictures the integration suite "README pictures" saved
// in test-results/ into docs/images/, so the README always shows the real UI. With `pngquant` on the
// PATH they are quantised too (a third of the bytes): they ship in the package, which has a size limit.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

const repoRoot = path.resolve(__dirname, '..', '..');
const from = path.resolve(process.env.CREW_RUNS_TEST_RESULTS_DIR ?? path.join(repoRoot, 'test-results'));
const to = path.join(repoRoot, 'docs', 'images');
fs.mkdirSync(to, { recursive: true });
const pictures = fs.readdirSync(from).filter((name) => /^readme-.*\.png$/.test(name));
if (pictures.length === 0) {
  console.error(`No readme-*.png in ${from}: run the "README pictures" integration tests first.`);
  process.exit(1);
}
const quantise = spawnSync('pngquant', ['--version']).status === 0;
if (!quantise) {
  console.warn('pngquant is not installed: the pictures are copied as they are (apt-get install pngquant).');
}
for (const name of pictures) {
  const target = path.join(to, name.replace(/^readme-/, ''));
  if (!quantise || spawnSync('pngquant', ['--quality=70-95', '--speed=1', '--force', '--output', target, path.join(from, name)]).status !== 0) {
    fs.copyFileSync(path.join(from, name), target);
  }
  console.log(`docs/images/${path.basename(target)} (${Math.round(fs.statSync(target).size / 1024)} KB)`);
}
