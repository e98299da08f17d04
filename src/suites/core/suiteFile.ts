// Reading a suite file (YAML, with the `yaml` package): the suite and every problem at its line and column, the
// rest still usable. Loaded on first use only (it brings `yaml` and `ajv`): never from the main bundle.
//
// The format (docs/features.md, schemas/crew-suite.schema.json):
//   name: Research crew smoke tests        # optional: the file's name without `.crew-suite.yaml`
//   crew: https://my-crew.crewai.com       # a URL, or the name of a crew configured in the editor
//   concurrency: 4                         # runs at a time, 1–16
//   cases:
//     - name: writes about cats
//       inputs: { topic: cats, audience: { age: 7 } }   # any JSON value per input
//       repeat: 3
//       checks:
//         state: succeeded                 # or failed: the case expects its run to fail
//         contains: [cats, "/fel(ine|ix)/i"]
//         notContains: error
//         equals: "exact text"             # or any JSON value: the output read as JSON
//         jsonSchema: { type: object, required: [title] }
//         maxSeconds: 60
//         maxTokens: 20000
//         judge: { criteria: "Friendly and accurate", threshold: 0.7 }
import * as l10n from '@vscode/l10n';
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Alias, type Document, type Node, type Pair } from 'yaml';
import { valueProblem, type Inputs, type InputValue } from '../../api/inputValues';
import { SUITE_LIMITS } from './limits';
import { parseTextMatcher, patternProblem } from './pattern';
import { compileSchema } from './schemaCheck';
import type { Check, CheckType, CrewReference, LeftOutCheck, ParsedSuite, SourceRange, Suite, SuiteCase, SuiteProblem } from './types';

/**
 * Where suites live: files named `*.crew-suite.yaml` (or `.yml`) anywhere in the workspace. The schema
 * (schemas/crew-suite.schema.json) is contributed for the same pattern.
 */
export const SUITE_FILE_GLOB = '**/*.crew-suite.{yaml,yml}';

/** Whether a path (any separator) names a suite file. */
export function isSuiteFileName(path: string): boolean {
  return /\.crew-suite\.ya?ml$/i.test(path);
}

/** The check types a suite may use, in the order they are run. */
export const CHECK_TYPES: readonly CheckType[] = ['state', 'contains', 'notContains', 'equals', 'jsonSchema', 'maxSeconds', 'maxTokens', 'judge'];

const SUITE_FIELDS = new Set(['name', 'description', 'crew', 'concurrency', 'cases']);
const CASE_FIELDS = new Set(['name', 'description', 'inputs', 'repeat', 'checks']);
const JUDGE_FIELDS = new Set(['criteria', 'threshold']);
const DEFAULT_THRESHOLD = 0.7;
/** Aliases a value may expand (a "billion laughs" file expands far more). */
const MAX_ALIAS_COUNT = 1000;

/**
 * Reads a suite file's text. Never throws: a file that is no YAML mapping, or too large, gives an empty suite and
 * the problem; an unknown check type, a wrong type of value, a bad pattern or schema leaves out that check (a case
 * without a usable name or inputs, that case) and says so at its place. `fallbackName` names a suite without `name:`
 * (the file's name, without its extension).
 */
export function parseSuite(text: string, fallbackName: string): ParsedSuite {
  try {
    return new SuiteReader(text, fallbackName).read();
  } catch (error) {
    // The reader catches what it knows; this is the net for what it does not (a stack overflow in a library).
    const start = { line: 0, character: 0 };
    return {
      suite: { name: fallbackName, concurrency: SUITE_LIMITS.defaultConcurrency, cases: [], range: { start, end: start } },
      problems: [{ range: { start, end: { line: 0, character: 1 } }, severity: 'error', message: l10n.t('The suite file could not be read: {0}', error instanceof Error ? firstLine(error.message) : String(error)) }],
    };
  }
}

class SuiteReader {
  private readonly problems: SuiteProblem[] = [];
  private readonly lines = new LineCounter();
  private doc!: Document.Parsed;
  /** The key of the pair being read: where a problem of its missing value is shown. */
  private at: Node | null = null;

  constructor(
    private readonly text: string,
    private readonly fallbackName: string,
  ) {}

  read(): ParsedSuite {
    const start = { line: 0, character: 0 };
    const suite: Suite = { name: this.fallbackName, concurrency: SUITE_LIMITS.defaultConcurrency, cases: [], range: { start, end: start } };
    if (this.text.length > SUITE_LIMITS.fileBytes) {
      this.problems.push({ range: suite.range, severity: 'error', message: l10n.t('The suite file is larger than {0} MB: it is not read.', SUITE_LIMITS.fileBytes / 1024 / 1024) });
      return { suite, problems: this.problems };
    }
    this.doc = parseDocument(this.text, { lineCounter: this.lines, uniqueKeys: true, prettyErrors: false, strict: false });
    for (const error of this.doc.errors) {
      this.problemAt(error.pos, 'error', l10n.t('YAML: {0}', firstLine(error.message)));
    }
    for (const warning of this.doc.warnings) {
      this.problemAt(warning.pos, 'warning', l10n.t('YAML: {0}', firstLine(warning.message)));
    }
    const root = this.deref(this.doc.contents);
    if (!isMap(root)) {
      if (root || this.doc.errors.length === 0) {
        this.problem(root, 'error', l10n.t('A suite file is a mapping with name, crew and cases.'));
      }
      return { suite, problems: this.problems };
    }
    for (const pair of root.items) {
      const key = this.keyOf(pair);
      this.at = pair.key as Node;
      const value = this.deref(pair.value as Node | null);
      switch (key) {
        case 'name': {
          const name = this.string(value, 'name');
          if (name !== undefined) {
            suite.name = this.clippedName(name, value);
            suite.range = this.range(pair.key as Node);
          }
          break;
        }
        case 'crew':
          suite.crew = this.crew(value);
          break;
        case 'concurrency': {
          const n = this.integer(value, 'concurrency', 1, SUITE_LIMITS.concurrency);
          if (n !== undefined) {
            suite.concurrency = n;
          }
          break;
        }
        case 'cases':
          suite.cases = this.cases(value);
          break;
        case 'description':
          break;
        default:
          this.unknownField(pair, key, SUITE_FIELDS);
      }
    }
    if (!root.items.some((pair) => this.keyOf(pair) === 'cases')) {
      this.problem(root, 'error', l10n.t('The suite has no cases: add a "cases:" list.'), true);
    }
    return { suite, problems: this.problems };
  }

  private crew(node: Node | null): CrewReference | undefined {
    const crew = this.string(node, 'crew');
    if (crew === undefined) {
      return undefined;
    }
    const trimmed = crew.trim();
    if (/^https?:\/\//i.test(trimmed)) {
      try {
        new URL(trimmed);
        return { kind: 'url', url: trimmed };
      } catch {
        this.problem(node, 'error', l10n.t('"{0}" is not a valid URL.', trimmed));
        return undefined;
      }
    }
    if (trimmed === '') {
      this.problem(node, 'error', l10n.t('"crew" is empty: give a crew URL or the name of a configured crew.'));
      return undefined;
    }
    return { kind: 'name', name: trimmed };
  }

  private cases(node: Node | null): SuiteCase[] {
    if (!isSeq(node)) {
      this.problem(node, 'error', l10n.t('"cases" must be a list of cases ("- name: …").'));
      return [];
    }
    const cases: SuiteCase[] = [];
    const names = new Map<string, number>();
    const items = node.items as (Node | null)[];
    if (items.length > SUITE_LIMITS.cases) {
      this.problem(items[SUITE_LIMITS.cases], 'warning', l10n.t('Only the first {0} cases are read: the {1} after them are left out.', SUITE_LIMITS.cases.toLocaleString('en-US'), (items.length - SUITE_LIMITS.cases).toLocaleString('en-US')));
    }
    for (const [index, item] of items.slice(0, SUITE_LIMITS.cases).entries()) {
      const suiteCase = this.suiteCase(this.deref(item), index);
      if (!suiteCase) {
        continue;
      }
      const seen = names.get(suiteCase.name) ?? 0;
      names.set(suiteCase.name, seen + 1);
      if (seen > 0) {
        let renamed = `${suiteCase.name} (${seen + 1})`;
        while (names.has(renamed)) {
          renamed = `${renamed}'`;
        }
        names.set(renamed, 1);
        this.problemRange(suiteCase.range, 'warning', l10n.t('Another case is named "{0}": this one is called "{1}".', suiteCase.name, renamed));
        suiteCase.name = renamed;
      }
      cases.push(suiteCase);
    }
    return cases;
  }

  private suiteCase(node: Node | null, index: number): SuiteCase | undefined {
    if (!isMap(node)) {
      this.problem(node, 'error', l10n.t('A case is a mapping with name, inputs and checks.'));
      return undefined;
    }
    const suiteCase: SuiteCase = { name: '', inputs: {}, repeat: 1, checks: [], range: this.range(node) };
    let usable = true;
    for (const pair of node.items) {
      const key = this.keyOf(pair);
      this.at = pair.key as Node;
      const value = this.deref(pair.value as Node | null);
      switch (key) {
        case 'name': {
          const name = this.string(value, 'name');
          if (name === undefined || name.trim() === '') {
            usable = false;
          } else {
            suiteCase.name = this.clippedName(name.trim(), value);
          }
          break;
        }
        case 'inputs': {
          const inputs = this.inputs(value);
          if (inputs === undefined) {
            usable = false;
          } else {
            suiteCase.inputs = inputs;
          }
          break;
        }
        case 'repeat': {
          const n = this.integer(value, 'repeat', 1, SUITE_LIMITS.repeat);
          if (n !== undefined) {
            suiteCase.repeat = n;
          }
          break;
        }
        case 'checks': {
          const { checks, leftOut } = this.checks(value);
          suiteCase.checks = checks;
          if (leftOut.length > 0) {
            suiteCase.leftOut = leftOut;
          }
          break;
        }
        case 'description':
          break;
        default:
          this.unknownField(pair, key, CASE_FIELDS);
      }
    }
    if (suiteCase.name === '') {
      if (usable) {
        this.problem(node, 'error', l10n.t('Case {0} has no name: it is left out.', index + 1), true);
      }
      return undefined;
    }
    if (!usable) {
      const start = suiteCase.range.start;
      this.problemRange({ start, end: { line: start.line, character: start.character + 1 } }, 'error', l10n.t('The case "{0}" is left out until its problems are fixed.', suiteCase.name));
      return undefined;
    }
    return suiteCase;
  }

  private inputs(node: Node | null): Inputs | undefined {
    if (node === null || (isScalar(node) && node.value === null)) {
      return {};
    }
    if (!isMap(node)) {
      this.problem(node, 'error', l10n.t('"inputs" must be a mapping of input names to values.'));
      return undefined;
    }
    const value = this.toJs(node);
    if (value === undefined) {
      return undefined;
    }
    const inputs = value as Record<string, unknown>;
    for (const [name, input] of Object.entries(inputs)) {
      const problem = valueProblem(name, input);
      if (problem) {
        this.problem(node, 'error', problem.message);
        return undefined;
      }
    }
    return inputs as Record<string, InputValue>;
  }

  /** The case's checks, and those written that could not be read (each also a problem at its place). */
  private checks(node: Node | null): { checks: Check[]; leftOut: LeftOutCheck[] } {
    const checks: Check[] = [];
    const leftOut: LeftOutCheck[] = [];
    if (node === null || (isScalar(node) && node.value === null)) {
      return { checks, leftOut };
    }
    if (!isMap(node)) {
      this.problem(node, 'error', l10n.t('"checks" must be a mapping of check types to what they expect ("contains: cats").'));
      leftOut.push({ written: 'checks', message: this.problems[this.problems.length - 1].message, range: this.range(node) });
      return { checks, leftOut };
    }
    for (const pair of node.items) {
      const key = this.keyOf(pair);
      this.at = pair.key as Node;
      const value = this.deref(pair.value as Node | null);
      const problemsBefore = this.problems.length;
      if (!(CHECK_TYPES as readonly string[]).includes(key)) {
        this.problem(pair.key as Node, 'error', l10n.t('Unknown check type "{0}": the checks are {1}.', key, CHECK_TYPES.join(', ')));
      } else {
        checks.push(...this.check(key as CheckType, value));
      }
      const error = this.problems.slice(problemsBefore).find((problem) => problem.severity === 'error');
      if (error) {
        leftOut.push({ written: key, message: error.message, range: error.range });
      }
    }
    return { checks, leftOut };
  }

  private check(type: CheckType, node: Node | null): Check[] {
    const range = this.range(node);
    switch (type) {
      case 'state': {
        const state = this.string(node, 'state');
        if (state === 'succeeded' || state === 'failed') {
          return [{ type, expected: state, range }];
        }
        if (state !== undefined) {
          this.problem(node, 'error', l10n.t('"state" is "succeeded" or "failed", not "{0}".', state));
        }
        return [];
      }
      case 'contains':
      case 'notContains': {
        const entries = isSeq(node) ? (node.items as (Node | null)[]).map((item) => this.deref(item)) : [node];
        const checks: Check[] = [];
        for (const entry of entries) {
          const text = this.string(entry, type, true);
          if (text === undefined) {
            continue;
          }
          if (text.length > SUITE_LIMITS.expectedChars) {
            this.problem(entry, 'error', l10n.t('The text to look for is longer than {0} MB: the check is left out.', SUITE_LIMITS.expectedChars / 1024 / 1024));
            continue;
          }
          const matcher = parseTextMatcher(text);
          const problem = matcher.kind === 'pattern' ? patternProblem(matcher.source, matcher.flags) : undefined;
          if (problem) {
            this.problem(entry, 'error', problem);
            continue;
          }
          checks.push({ type, matcher, range: this.range(entry) });
        }
        return checks;
      }
      case 'equals': {
        const expected = isScalar(node) && typeof node.value === 'string' ? node.value : this.toJs(node);
        if (expected === undefined) {
          return [];
        }
        const size = typeof expected === 'string' ? expected.length : (JSON.stringify(expected)?.length ?? 0);
        if (size > SUITE_LIMITS.expectedChars) {
          this.problem(node, 'error', l10n.t('The expected output is larger than {0} MB: the check is left out. Check a part of it with "contains" or "jsonSchema".', SUITE_LIMITS.expectedChars / 1024 / 1024));
          return [];
        }
        return [{ type, expected, range }];
      }
      case 'jsonSchema': {
        if (!isMap(node) && !(isScalar(node) && typeof node.value === 'boolean')) {
          this.problem(node, 'error', l10n.t('"jsonSchema" must be a JSON Schema (a mapping).'));
          return [];
        }
        const schema = this.toJs(node);
        if (schema === undefined) {
          return [];
        }
        const compiled = compileSchema(schema);
        if ('error' in compiled) {
          this.problem(node, 'error', compiled.error as string);
          return [];
        }
        return [{ type, schema: schema as Record<string, unknown> | boolean, range }];
      }
      case 'maxSeconds':
      case 'maxTokens': {
        const n = this.number(node, type);
        if (n === undefined) {
          return [];
        }
        return [type === 'maxSeconds' ? { type, seconds: n, range } : { type, tokens: n, range }];
      }
      case 'judge': {
        const entries = isSeq(node) ? (node.items as (Node | null)[]).map((item) => this.deref(item)) : [node];
        return entries.flatMap((entry) => this.judge(entry));
      }
    }
  }

  private judge(node: Node | null): Check[] {
    if (isScalar(node) && typeof node.value === 'string') {
      const criteria = this.criteria(node.value, node);
      return criteria === undefined ? [] : [{ type: 'judge', criteria, threshold: DEFAULT_THRESHOLD, range: this.range(node) }];
    }
    if (!isMap(node)) {
      this.problem(node, 'error', l10n.t('"judge" is a mapping: criteria (in words) and threshold (0–1).'));
      return [];
    }
    let criteria: string | undefined;
    let threshold = DEFAULT_THRESHOLD;
    for (const pair of node.items) {
      const key = this.keyOf(pair);
      this.at = pair.key as Node;
      const value = this.deref(pair.value as Node | null);
      if (key === 'criteria') {
        const text = this.string(value, 'criteria');
        criteria = text === undefined ? undefined : this.criteria(text, value);
      } else if (key === 'threshold') {
        const n = this.number(value, 'threshold');
        if (n !== undefined && n > 1) {
          this.problem(value, 'error', l10n.t('"threshold" is a score from 0 to 1.'));
          return [];
        }
        threshold = n ?? threshold;
      } else {
        this.unknownField(pair, key, JUDGE_FIELDS);
      }
    }
    if (criteria === undefined) {
      this.problem(node, 'error', l10n.t('A judge needs "criteria": what a good output is, in words.'), true);
      return [];
    }
    return [{ type: 'judge', criteria, threshold, range: this.range(node) }];
  }

  private criteria(text: string, node: Node | null): string | undefined {
    if (text.trim() === '') {
      this.problem(node, 'error', l10n.t('The judge\'s criteria are empty.'));
      return undefined;
    }
    if (text.length > SUITE_LIMITS.criteriaChars) {
      this.problem(node, 'error', l10n.t('The judge\'s criteria are longer than {0} characters.', SUITE_LIMITS.criteriaChars));
      return undefined;
    }
    return text.trim();
  }

  private string(node: Node | null, field: string, allowNumbers = false): string | undefined {
    if (isScalar(node) && typeof node.value === 'string') {
      return node.value;
    }
    if (allowNumbers && isScalar(node) && (typeof node.value === 'number' || typeof node.value === 'boolean')) {
      return node.source ?? String(node.value);
    }
    this.problem(node, 'error', l10n.t('"{0}" must be text.', field));
    return undefined;
  }

  private number(node: Node | null, field: string): number | undefined {
    if (isScalar(node) && typeof node.value === 'number' && Number.isFinite(node.value) && node.value >= 0) {
      return node.value;
    }
    this.problem(node, 'error', l10n.t('"{0}" must be a number of at least 0.', field));
    return undefined;
  }

  private integer(node: Node | null, field: string, min: number, max: number): number | undefined {
    if (!(isScalar(node) && typeof node.value === 'number' && Number.isInteger(node.value))) {
      this.problem(node, 'error', l10n.t('"{0}" must be a whole number from {1} to {2}.', field, min, max));
      return undefined;
    }
    const clamped = Math.min(max, Math.max(min, node.value));
    if (clamped !== node.value) {
      this.problem(node, 'warning', l10n.t('"{0}" is {1} at most (and {2} at least): {3} is used.', field, max, min, clamped));
    }
    return clamped;
  }

  private clippedName(name: string, node: Node | null): string {
    const oneLine = name.replace(/\s+/g, ' ').trim();
    if (oneLine.length <= SUITE_LIMITS.nameChars) {
      return oneLine;
    }
    this.problem(node, 'warning', l10n.t('The name is longer than {0} characters: it is cut.', SUITE_LIMITS.nameChars));
    return oneLine.slice(0, SUITE_LIMITS.nameChars);
  }

  private unknownField(pair: Pair, key: string, known: ReadonlySet<string>): void {
    this.problem(pair.key as Node, 'warning', l10n.t('Unknown field "{0}" is ignored (known: {1}).', key, [...known].join(', ')));
  }

  /** A value as JSON data; aliases expanded within bounds. Undefined (and a problem) when it cannot be. */
  private toJs(node: Node | null): unknown {
    if (node === null) {
      return null;
    }
    try {
      return node.toJS(this.doc, { maxAliasCount: MAX_ALIAS_COUNT });
    } catch (error) {
      this.problem(node, 'error', l10n.t('This value cannot be read: {0}', error instanceof Error ? firstLine(error.message) : String(error)));
      return undefined;
    }
  }

  private keyOf(pair: Pair): string {
    const key = pair.key as Node | null;
    return isScalar(key) ? String(key.value) : '';
  }

  /** An alias's target (one level: a YAML alias names an anchored node, never another alias). */
  private deref(node: unknown): Node | null {
    if (isAlias(node)) {
      const target = (node as Alias).resolve(this.doc);
      return (target as Node | undefined) ?? null;
    }
    return (node as Node | null | undefined) ?? null;
  }

  private range(node: Node | null | undefined): SourceRange {
    const range = node?.range ?? this.at?.range;
    if (!range) {
      const at = { line: 0, character: 0 };
      return { start: at, end: at };
    }
    return { start: this.position(range[0]), end: this.position(range[1]) };
  }

  private position(offset: number): { line: number; character: number } {
    const { line, col } = this.lines.linePos(offset);
    return { line: line - 1, character: col - 1 };
  }

  /** `startOnly`: a whole mapping's problem is shown at its first line, not over all of it. */
  private problem(node: Node | null | undefined, severity: SuiteProblem['severity'], message: string, startOnly = false): void {
    const range = this.range(node);
    this.problemRange(startOnly ? { start: range.start, end: { line: range.start.line, character: range.start.character + 1 } } : range, severity, message);
  }

  private problemRange(range: SourceRange, severity: SuiteProblem['severity'], message: string): void {
    this.problems.push({ range, severity, message });
  }

  private problemAt(pos: [number, number], severity: SuiteProblem['severity'], message: string): void {
    this.problemRange({ start: this.position(pos[0]), end: this.position(Math.max(pos[0], pos[1])) }, severity, message);
  }
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0];
}

