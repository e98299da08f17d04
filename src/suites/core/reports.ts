// A suite run as a report: JUnit XML (every text escaped, invalid XML characters dropped) for a CI system, and a
// Markdown summary (the crew's text made inert) for a pull request.
import type { SuiteRunComparison } from './baseline';
import type { SuiteRunRecord } from './types';

/** JUnit XML: one `<testsuite>` for the suite, one `<testcase>` per item, `<failure>`/`<error>`/`<skipped>` with the messages. */
export function junitXml(record: SuiteRunRecord): string {
  void record;
  throw new Error('junitXml: not written yet');
}

/** A Markdown summary: the tally, the comparison with the baseline when given, then a table of items that did not pass. */
export function markdownSummary(record: SuiteRunRecord, comparison?: SuiteRunComparison): string {
  void record;
  void comparison;
  throw new Error('markdownSummary: not written yet');
}
