// How long each part of the integration run takes, in seconds on a 2-core machine with three
// sessions at a time, from a run's test-results/timings.json. Only the order sessions start in and
// how the main suites are split depend on it: a wrong figure costs time, never a test. Update it
// when a file grows or shrinks a lot.

/** A test file or session not listed below. */
export const UNKNOWN_FILE_SECONDS = 20;

/** Test files of the main sessions. */
export const MAIN_FILE_SECONDS: Readonly<Record<string, number>> = {
  'activation.test.js': 1,
  'badInput.test.js': 52,
  'batches.test.js': 94,
  'crews.test.js': 37,
  'defaults.test.js': 25,
  'feedback.test.js': 122,
  'firstImpressionsApi.test.js': 15,
  'firstImpressionsDemo.test.js': 36,
  'firstImpressionsKickoff.test.js': 21,
  'firstImpressionsRunView.test.js': 10,
  'firstImpressionsTree.test.js': 26,
  'flowChatTrips.test.js': 20,
  'hostileOutput.test.js': 23,
  'hostileTables.test.js': 8,
  'jsonInputs.test.js': 20,
  'kickoff.test.js': 53,
  'lmTools.test.js': 23,
  'monitoring.test.js': 82,
  'newUserTrips.test.js': 45,
  'platform.test.js': 30,
  'demoPlatform.test.js': 45,
  'runView.test.js': 20,
  'security.test.js': 40,
  'selfHosted.test.js': 13,
  'spoofing.test.js': 17,
  'palette.test.js': 8,
  'stop.test.js': 7,
  'suites.test.js': 45,
  'trace.test.js': 60,
  'treeLabels.test.js': 70,
  'triggerPayload.test.js': 15,
  'typedInputs.test.js': 20,
  'traceCompare.test.js': 10,
  'viewedRuns.test.js': 5,
  'walkthrough.test.js': 66,
  'zz-readme.test.js': 27,
};

/** The other sessions, whole (server start and every phase included). */
export const SESSION_SECONDS: Readonly<Record<string, number>> = {
  flowChat: 69,
  flowChatFaults: 42,
  tokenRecovery: 68,
  twoWindows: 300,
  batchesReload: 42,
  chaos: 83,
  cutOff: 45,
  flowChatSessions: 30,
  reload: 49,
  reloadRuns: 48,
  untrusted: 59,
  floor: 308,
  withoutChat: 20,
  vsix: 15,
};
