// `npm run suite -- <suite.crew-suite.yaml> [--crew-url URL] [--junit out.xml]` (dist/suite-cli.js, plain Node): runs a
// suite's cases against a deployed crew for CI. The crew's token comes from CREW_RUNS_TOKEN and is never printed.
// Exit code: 0 every item passed (or was skipped), 1 an item failed or could not be evaluated, 2 the suite could not run.

export {};
