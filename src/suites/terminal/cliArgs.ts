// `node dist/suite-cli.js <suite.crew-suite.yaml> [--crew-url URL] [--junit out.xml] [--markdown out.md]
// [--concurrency N] [--timeout SECONDS]`: the arguments, read with node:util parseArgs.

export interface SuiteCliOptions {
  suiteFile: string;
  crewUrl?: string;
  junitFile?: string;
  markdownFile?: string;
  concurrency?: number;
  /** The whole suite's deadline: items still running then are errors ("still running after …"). */
  timeoutSeconds: number;
}

export const SUITE_CLI_USAGE = '';

/** Reads the arguments; throws a usage error (its message for the terminal) when they are wrong. */
export function parseSuiteCliArgs(argv: readonly string[]): SuiteCliOptions | 'help' {
  void argv;
  throw new Error('parseSuiteCliArgs: not written yet');
}
