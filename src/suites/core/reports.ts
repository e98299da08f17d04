// A suite run as a report: JUnit XML (every text escaped, characters XML cannot hold dropped) for a CI system, and a
// Markdown summary (the crew's and the model's text made inert) for a pull request.
import * as l10n from '@vscode/l10n';
import { markdownLine } from '../../util/markdownText';
import { comparisonSummary, type SuiteRunComparison } from './baseline';
import { outcomeLine, tallySuiteRun } from './suiteRun';
import type { CheckResult, SuiteItemResult, SuiteRunRecord } from './types';

/** The longest text an XML element or attribute of the report carries. */
const XML_TEXT_CHARS = 16 * 1024;

/** JUnit XML: one `<testsuite>` for the suite, one `<testcase>` per item, `<failure>`/`<error>`/`<skipped>` with the messages. */
export function junitXml(record: SuiteRunRecord): string {
  const tally = tallySuiteRun(record);
  const seconds = (s: number | undefined): string => (s ?? 0).toFixed(3);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(record.suiteName)}" tests="${tally.total}" failures="${tally.failed}" errors="${tally.error}" skipped="${tally.skipped}" time="${seconds(tally.durationSeconds)}">`,
    `  <testsuite name="${xml(record.suiteName)}" tests="${tally.total}" failures="${tally.failed}" errors="${tally.error}" skipped="${tally.skipped}" time="${seconds(tally.durationSeconds)}" timestamp="${new Date(record.startedAt).toISOString()}"${record.suiteFile ? ` file="${xml(record.suiteFile)}"` : ''}>`,
    '    <properties>',
    `      <property name="crewUrl" value="${xml(record.crewUrl)}"/>`,
    '    </properties>',
  ];
  for (const item of record.items) {
    lines.push(`    <testcase name="${xml(item.itemId)}" classname="${xml(record.suiteName)}" time="${seconds(item.durationSeconds)}">`);
    const details = itemDetails(item);
    if (item.outcome === 'failed') {
      const failed = item.checks.filter((c) => c.status === 'failed');
      lines.push(`      <failure message="${xml(firstLine(failed[0]?.message ?? item.error ?? ''))}" type="${xml(failed[0]?.type ?? 'run')}">${xml(details, true)}</failure>`);
    } else if (item.outcome === 'error') {
      const errored = item.checks.find((c) => c.status === 'error');
      lines.push(`      <error message="${xml(firstLine(errored?.message ?? item.error ?? ''))}" type="${xml(errored?.type ?? 'run')}">${xml(details, true)}</error>`);
    } else if (item.outcome === 'skipped') {
      lines.push(`      <skipped message="${xml(firstLine(item.checks.find((c) => c.status === 'skipped')?.message ?? ''))}"/>`);
    }
    lines.push(`      <system-out>${xml(details, true)}</system-out>`);
    lines.push('    </testcase>');
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}

/**
 * Text as an XML attribute value (or, `body`, as character data, where line breaks stay as they are): escaped, and
 * the characters XML 1.0 cannot hold dropped.
 */
export function xml(text: string, body = false): string {
  const bounded = text.length > XML_TEXT_CHARS ? `${text.slice(0, XML_TEXT_CHARS)}…` : text;
  return bounded
    .replace(/[^\t\n\r\u{20}-\u{D7FF}\u{E000}-\u{FFFD}\u{10000}-\u{10FFFF}]/gu, '')
    .replace(body ? /[&<>]/g : /[&<>"'\n\r\t]/g, (c) => XML_ESCAPES[c]);
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;', '\n': '&#10;', '\r': '&#13;', '\t': '&#9;' };

/** Every check's line, then the diff of the first failed equals check. */
function itemDetails(item: SuiteItemResult): string {
  const lines = item.checks.map((check) => `[${check.status}] ${check.type}: ${check.message}`);
  if (item.error) {
    lines.unshift(item.error);
  }
  const diff = item.checks.find((c) => c.diff)?.diff;
  if (diff) {
    lines.push(diff);
  }
  if (item.runId) {
    lines.push(`run: ${item.runId}`);
  }
  return lines.join('\n');
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0];
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}

/** A Markdown summary: the tally, the comparison with the baseline when given, then a table of items that did not pass. */
export function markdownSummary(record: SuiteRunRecord, comparison?: SuiteRunComparison): string {
  const tally = tallySuiteRun(record);
  const lines = [`## ${markdownLine(l10n.t('Suite {0}', record.suiteName))}`, ''];
  const measures = [outcomeLine(tally), l10n.t('{0} s', Math.round(tally.durationSeconds)), l10n.t('{0} tokens', tally.totalTokens)];
  if (tally.estimatedCostUsd !== undefined) {
    measures.push(l10n.t('about ${0}', tally.estimatedCostUsd.toFixed(4)));
  }
  // Our own words and figures as they are; the crew's URL, case names and messages escaped.
  lines.push(`**${measures.join(' · ')}** — ${l10n.t('against {0}', `\`${record.crewUrl.replace(/`/g, '')}\``)}`, '');
  if (comparison) {
    lines.push(`${l10n.t('Compared with the run of {0}:', readableTime(comparison.baselineStartedAt))} ${markdownLine(comparisonSummary(comparison))}`, '');
  }
  const notPassed = record.items.filter((item) => item.outcome !== 'passed');
  if (notPassed.length > 0) {
    lines.push(`| ${l10n.t('Case')} | ${l10n.t('Result')} | ${l10n.t('Why')} |`, '| --- | --- | --- |');
    for (const item of notPassed.slice(0, 200)) {
      const why = item.checks.find((c) => c.status === item.outcome) ?? item.checks.find((c: CheckResult) => c.status !== 'passed');
      lines.push(`| ${cell(item.itemId)} | ${cell(item.outcome)} | ${cell(why?.message ?? item.error ?? '')} |`);
    }
    if (notPassed.length > 200) {
      lines.push('', markdownLine(l10n.t('… and {0} more.', notPassed.length - 200)));
    }
  }
  return lines.join('\n') + '\n';
}

function cell(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return markdownLine(line.length > 300 ? `${line.slice(0, 299)}…` : line);
}

/** "2026-01-02 00:00 UTC": read at a glance, the same wherever the summary is made (an editor, CI). */
function readableTime(epochMs: number): string {
  const iso = new Date(epochMs).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
