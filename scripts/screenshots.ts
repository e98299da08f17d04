// `npm run screenshots`: copies the README pictures the integration suite "README pictures" saved
// in test-results/ into docs/images/, so the README always shows the real UI.
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
for (const name of pictures) {
  fs.copyFileSync(path.join(from, name), path.join(to, name.replace(/^readme-/, '')));
  console.log(`docs/images/${name.replace(/^readme-/, '')}`);
}
