// Item "Suites" (issue #50): discovering 50 suite files of 200 cases each takes ≤ 10× reading and parsing them with
// the same parser. Plain Node, in a process of its own (main.ts runs it): the discovery measured is the suite core's
// share of it — find the files under a workspace folder, read each, parse it on the suite reader's worker thread
// (src/suites/core/parseThread.ts, as the extension does) and build its items (one per case and repeat) — against
// the reference: the same files read and parsed on this thread with the same parser, nothing else.
// The Test Explorer's own part in a VS Code host (findFiles, test items) adds to the first, not the second.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SuiteParser } from '../src/suites/core/parseThread';
import { parseSuite, isSuiteFileName } from '../src/suites/core/suiteFile';
import { suiteItems } from '../src/suites/core/suiteRun';
import { median, round } from './lib/stats';
import { tempDir } from './lib/fixtures';

export interface SuiteDiscoveryResult {
  files: number;
  casesPerFile: number;
  rounds: number;
  discoveryMs: number;
  /** The same discovery with each file parsed on this thread (no worker). */
  inThreadMs: number;
  referenceMs: number;
  items: number;
  problems: number;
}

const FILES = 50;
const CASES = 200;

/** A suite file of `cases` cases, each with inputs and a few checks, like a team's. */
function suiteText(index: number, cases: number): string {
  const lines = [`name: Suite ${index}`, 'crew: https://bench.example.com/crew', 'concurrency: 4', 'cases:'];
  for (let i = 0; i < cases; i++) {
    lines.push(
      `  - name: case ${i} of suite ${index}`,
      `    inputs: { topic: "topic ${i}", audience: { team: "t${i % 7}", size: ${i} } }`,
      `    repeat: ${1 + (i % 3)}`,
      '    checks:',
      '      state: succeeded',
      `      contains: ["topic ${i}", "/team t\\\\d+/i"]`,
      '      notContains: error',
      '      maxSeconds: 120',
      '      jsonSchema: { type: object, required: [summary] }',
    );
  }
  return lines.join('\n') + '\n';
}

function writeWorkspace(root: string): string[] {
  const files: string[] = [];
  for (let i = 0; i < FILES; i++) {
    const dir = path.join(root, `pkg${i % 5}`, 'tests');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `suite${i}.crew-suite.yaml`);
    fs.writeFileSync(file, suiteText(i, CASES));
    files.push(file);
    // Files discovery must look past.
    fs.writeFileSync(path.join(dir, `notes${i}.yaml`), 'a: 1\n');
  }
  return files;
}

async function discover(root: string, parser?: SuiteParser): Promise<{ items: number; problems: number }> {
  const entries = await fs.promises.readdir(root, { recursive: true });
  const found = await Promise.all(
    entries.filter(isSuiteFileName).map(async (entry) => {
      const text = await fs.promises.readFile(path.join(root, entry), 'utf8');
      return parser ? parser.parse(text, path.basename(entry)) : parseSuite(text, path.basename(entry));
    }),
  );
  let items = 0;
  let problems = 0;
  for (const parsed of found) {
    items += suiteItems(parsed.suite).length;
    problems += parsed.problems.length;
  }
  return { items, problems };
}

async function readAndParse(files: readonly string[]): Promise<number> {
  let cases = 0;
  for (const file of files) {
    cases += parseSuite(await fs.promises.readFile(file, 'utf8'), path.basename(file)).suite.cases.length;
  }
  return cases;
}

export async function suiteDiscoveryBench(rounds = 5): Promise<SuiteDiscoveryResult> {
  const root = tempDir('crew-runs-bench-suites-');
  try {
    const files = writeWorkspace(root);
    const discovery: number[] = [];
    const inThread: number[] = [];
    const reference: number[] = [];
    let found = { items: 0, problems: 0 };
    const parser = new SuiteParser();
    // One warm-up of each (the worker's start, the parser's and ajv's first compiles), then alternating rounds.
    await discover(root, parser);
    await discover(root);
    await readAndParse(files);
    for (let i = 0; i < rounds; i++) {
      let started = performance.now();
      found = await discover(root, parser);
      discovery.push(performance.now() - started);
      started = performance.now();
      await discover(root);
      inThread.push(performance.now() - started);
      started = performance.now();
      const cases = await readAndParse(files);
      reference.push(performance.now() - started);
      if (cases !== FILES * CASES) {
        throw new Error(`parsed ${cases} cases, not ${FILES * CASES}`);
      }
    }
    await parser.dispose();
    return { files: FILES, casesPerFile: CASES, rounds, discoveryMs: median(discovery), inThreadMs: median(inThread), referenceMs: median(reference), ...found };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

export function suiteDiscoveryRows(r: SuiteDiscoveryResult) {
  const ratio = r.referenceMs > 0 ? round(r.discoveryMs / r.referenceMs, 2) : undefined;
  return [
    {
      item: '11 Suites',
      figure: `discovering ${r.files} suite files of ${r.casesPerFile} cases each (find, read, parse on the reader's thread, ${r.items} items; plain Node, median of ${r.rounds})`,
      value: round(r.discoveryMs, 1),
      unit: 'ms',
      target: '≤ 10× reading and parsing them',
      met: ratio !== undefined && ratio <= 10 && r.problems === 0,
      reference: 'the same files read and parsed with the same parser',
      referenceValue: round(r.referenceMs, 1),
      ratio,
      note: `${r.problems} problems; parsed on this thread instead: ${round(r.inThreadMs, 1)} ms; the Test Explorer's share in a VS Code host is not in this figure`,
    },
  ];
}

if (require.main === module) {
  suiteDiscoveryBench().then(
    (result) => console.log(JSON.stringify(result)),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
