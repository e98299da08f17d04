// `node dist/suite-cli.js <suite.crew-suite.yaml> [flags]`: the arguments, read with node:util parseArgs. Pure.
import { parseArgs } from 'node:util';
import * as l10n from '@vscode/l10n';

export interface SuiteCliOptions {
  suiteFile: string;
  crewUrl?: string;
  junitFile?: string;
  markdownFile?: string;
  /** Overrides the suite's `concurrency`. */
  concurrency?: number;
  /** The whole suite's deadline: items still running then are errors ("still running at the deadline"). */
  timeoutSeconds: number;
}

export const DEFAULT_TIMEOUT_SECONDS = 3600;

export const SUITE_CLI_USAGE = `Usage: npm run suite -- <file.crew-suite.yaml> [flags]   (or: node dist/suite-cli.js …)

Runs a suite's cases against a deployed crew: its deterministic checks (judge checks need the editor's language
model and are skipped here). The crew's token is read from the environment variable CREW_RUNS_TOKEN.

  --crew-url URL       the crew to run against (default: the suite's "crew:" when it is a URL)
  --junit FILE         write the results as JUnit XML
  --markdown FILE      write a Markdown summary
  --concurrency N      runs at a time (default: the suite's, else 4; at most 16)
  --timeout SECONDS    stop waiting after this long; runs still going are errors (default ${DEFAULT_TIMEOUT_SECONDS})
  --help               show this text

Exit code: 0 when every case passed or was skipped, 1 when a case failed or could not be checked, 2 when the suite
could not run (bad arguments, no token, a suite without cases).
`;

/** Arguments the user got wrong: said with the usage text, exit code 2. */
export class SuiteUsageError extends Error {}

/** Reads the arguments; throws a SuiteUsageError when they are wrong. */
export function parseSuiteCliArgs(argv: readonly string[]): SuiteCliOptions | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        'crew-url': { type: 'string' },
        junit: { type: 'string' },
        markdown: { type: 'string' },
        concurrency: { type: 'string' },
        timeout: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new SuiteUsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help) {
    return 'help';
  }
  if (positionals.length !== 1) {
    throw new SuiteUsageError(positionals.length === 0 ? l10n.t('Name one suite file.') : l10n.t('Name only one suite file (got {0}).', positionals.length));
  }
  const options: SuiteCliOptions = { suiteFile: positionals[0], timeoutSeconds: DEFAULT_TIMEOUT_SECONDS };
  if (values['crew-url'] !== undefined) {
    options.crewUrl = values['crew-url'];
  }
  if (values.junit !== undefined) {
    options.junitFile = values.junit;
  }
  if (values.markdown !== undefined) {
    options.markdownFile = values.markdown;
  }
  if (values.concurrency !== undefined) {
    options.concurrency = wholeNumber('--concurrency', values.concurrency, 1, 16);
  }
  if (values.timeout !== undefined) {
    options.timeoutSeconds = wholeNumber('--timeout', values.timeout, 1, 7 * 24 * 3600);
  }
  return options;
}

function wholeNumber(flag: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new SuiteUsageError(l10n.t('{0} needs a whole number from {1} to {2}, got {3}.', flag, min, max, text));
  }
  return n;
}
