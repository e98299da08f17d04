// What the integration tests may see of the suites in the Test Explorer (only where extension.ts made an inspection, through the
// test API): the items as drawn, the results as reported, and a way to run items as the ▶ does. Types only.
import type * as vscode from 'vscode';
import type { JudgeModel } from './core/judge';

export interface InspectedTestItem {
  /** The TestItem's id: a suite's is its file's URI; a case's its name; a repeat's its item id (`name #2`). */
  id: string;
  label: string;
  description?: string;
  /** 0-based lines of its range in the suite file. */
  lines?: [number, number];
  error?: string;
  children: InspectedTestItem[];
}

export interface InspectedMessage {
  text: string;
  expected?: string;
  actual?: string;
  /** 0-based line of its location. */
  line?: number;
  contextValue?: string;
}

export interface InspectedResult {
  /** The ids from the suite down to the item: [suite file URI, case name] or [suite file URI, case name, item id]. */
  path: string[];
  state: 'enqueued' | 'started' | 'passed' | 'failed' | 'errored' | 'skipped';
  messages: InspectedMessage[];
  /** Lines written to the test's output, as written (without the line breaks). */
  output: string[];
  durationMs?: number;
}

export interface SuitesInspection {
  /** The Test Explorer's items of the Crew Suites controller, once discovery has settled. */
  items(): Promise<InspectedTestItem[]>;
  /** Every result this window reported, oldest first. */
  results(): InspectedResult[];
  /** Lines written to the test runs' output that belong to no one test (pauses, summaries). */
  runOutput(): string[];
  /** The test item at an id path (from a suite down), as the Test Explorer's menus hand it to a command. */
  item(path: string[]): vscode.TestItem | undefined;
  /** Runs the items at these id paths (each from a suite down) as the ▶ does; resolves when the test run ended. */
  run(paths: string[][]): Promise<void>;
  /** Stops the test runs `run` started, as the Testing view's Stop does. */
  cancel(): void;
  /** The judge of later test runs: a stand-in model, none (undefined), or the editor's own ('editor', the default). */
  setJudge(model: JudgeModel | undefined | 'editor'): void;
  /** The Markdown of the last summary made (a suite run compared with its baseline). */
  lastSummary(): string | undefined;
  /** Suite run records this window kept, newest last. */
  suiteRunIds(): string[];
}
