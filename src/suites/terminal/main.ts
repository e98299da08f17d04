// `npm run suite -- <file.crew-suite.yaml> [--crew-url URL] [--junit out.xml]` (dist/suite-cli.js, plain Node): runs a
// suite's cases against a deployed crew for CI. The crew's token comes from CREW_RUNS_TOKEN and is never printed (the
// client redacts it from every error). What the crew wrote reaches the terminal without control characters.
// Exit code: 0 every item passed (or was skipped), 1 an item failed or could not be checked, 2 the suite could not run.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as l10n from '@vscode/l10n';
import { CrewClient } from '../../api/client';
import { normaliseCrewUrl } from '../../api/url';
import { stripControls } from '../../util/inertText';
import { SUITE_LIMITS } from '../core/limits';
import { junitXml, markdownSummary } from '../core/reports';
import { parseSuite } from '../core/suiteFile';
import { outcomeLine, suiteRunFailed, tallySuiteRun } from '../core/suiteRun';
import { parseSuiteCliArgs, SUITE_CLI_USAGE, SuiteUsageError, type SuiteCliOptions } from './cliArgs';
import { runSuiteFromTerminal } from './runSuite';

export const TOKEN_VARIABLE = 'CREW_RUNS_TOKEN';

const out = (text: string): void => void process.stdout.write(`${stripControls(text)}\n`);
const err = (text: string): void => void process.stderr.write(`${stripControls(text)}\n`);

async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  let options: SuiteCliOptions | 'help';
  try {
    options = parseSuiteCliArgs(argv);
  } catch (error) {
    if (error instanceof SuiteUsageError) {
      err(`${error.message}\n\n${SUITE_CLI_USAGE}`);
      return 2;
    }
    throw error;
  }
  if (options === 'help') {
    out(SUITE_CLI_USAGE);
    return 0;
  }

  let text: string;
  try {
    const stat = await fs.stat(options.suiteFile);
    if (stat.size > SUITE_LIMITS.fileBytes) {
      err(l10n.t('{0}: the suite file is larger than {1} MB.', options.suiteFile, SUITE_LIMITS.fileBytes / 1024 / 1024));
      return 2;
    }
    text = await fs.readFile(options.suiteFile, 'utf8');
  } catch (error) {
    err(l10n.t('Cannot read {0}: {1}', options.suiteFile, error instanceof Error ? error.message : String(error)));
    return 2;
  }
  const { suite, problems } = parseSuite(text, path.basename(options.suiteFile).replace(/\.crew-suite\.ya?ml$/i, '').replace(/\.ya?ml$/i, ''));
  for (const problem of problems) {
    err(`${options.suiteFile}:${problem.range.start.line + 1}:${problem.range.start.character + 1}: ${problem.severity}: ${problem.message}`);
  }
  if (suite.cases.length === 0) {
    err(l10n.t('{0}: no case to run.', options.suiteFile));
    return 2;
  }

  const crewInput = options.crewUrl ?? (suite.crew?.kind === 'url' ? suite.crew.url : undefined);
  if (crewInput === undefined) {
    err(
      suite.crew?.kind === 'name'
        ? l10n.t('The suite names the crew "{0}", a crew configured in VS Code. From a terminal, give its URL: --crew-url URL.', suite.crew.name)
        : l10n.t('The suite names no crew: give its URL with --crew-url URL, or "crew: URL" in the suite.'),
    );
    return 2;
  }
  const crewUrl = normaliseCrewUrl(crewInput);
  if (!crewUrl.ok) {
    err(l10n.t('"{0}" is not a crew URL that can be used ({1}).', crewInput, crewUrl.problem));
    return 2;
  }
  const token = env[TOKEN_VARIABLE]?.trim();
  if (!token) {
    err(l10n.t("Set the environment variable {0} to the crew's token (the crew's Status tab shows it).", TOKEN_VARIABLE));
    return 2;
  }

  const client = new CrewClient({ getToken: async () => token, userAgent: 'crew-runs-suite-cli' });
  const concurrency = options.concurrency ?? suite.concurrency;
  out(l10n.t('Suite "{0}": {1} case(s) against {2}, {3} at a time.', suite.name, suite.cases.length, crewUrl.url, concurrency));
  try {
    const record = await runSuiteFromTerminal({
      suite,
      suiteFile: options.suiteFile,
      crewUrl: crewUrl.url,
      client,
      concurrency,
      timeoutSeconds: options.timeoutSeconds,
      report: out,
    });
    if (options.junitFile) {
      await fs.writeFile(options.junitFile, junitXml(record));
    }
    if (options.markdownFile) {
      await fs.writeFile(options.markdownFile, markdownSummary(record));
    }
    const tally = tallySuiteRun(record);
    out(l10n.t('Suite "{0}": {1} ({2} s).', suite.name, outcomeLine(tally), Math.round((record.finishedAt! - record.startedAt) / 1000)));
    return suiteRunFailed(record) ? 1 : 0;
  } finally {
    await client.dispose();
  }
}

main(process.argv.slice(2), process.env).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    err(l10n.t('The suite could not run: {0}', error instanceof Error ? error.message : String(error)));
    process.exitCode = 2;
  },
);
