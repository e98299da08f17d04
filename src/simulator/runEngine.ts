// One simulated run. Its state is a pure function of time: `advance(now)` replays what happened
// since the last look, so there are no timers to leak, and `finishedAt` is the exact moment the
// run ended, not the moment somebody polled.

import { randomUUID } from 'node:crypto';
import { interpolate, placeholderValues, renderOutput } from './outputs';
import type { CompletedTaskInfo, ResumeRecord, RunInfo, Scenario, SimRunPhase, TaskConfig } from './types';
import { isPlainObject } from '../util/objects';

export interface CompletedTask extends CompletedTaskInfo {
  index: number;
  /** Set for `{ json }` outputs. */
  json?: unknown;
}

/**
 * One execution of a task (a retry after feedback is another): what the event log is drawn from. How it ends
 * follows from the run (its duration, scenario, stop time), so only what does not is kept here.
 */
export interface TaskAttempt {
  index: number;
  /** How many attempts at this task came before (0 for the first). */
  retry: number;
  /** Real ms timestamps. */
  startedAt: number;
  /** When a human answered the pause after it (a flow's paused method ends then). */
  resumedAt?: number;
}

/** A slow tool call takes this many times its task's own duration, on top of it. */
const SLOW_TOOL_FACTOR = 2;

export interface RunSetup {
  crewId: string;
  /** The crew's (or flow's) display name, as events name it. */
  crewName?: string;
  kind: 'crew' | 'flow';
  /** Snapshot: changing the crew later does not change a run in flight. */
  tasks: TaskConfig[];
  inputs: Record<string, unknown>;
  defaults?: Record<string, string>;
  meta?: unknown;
  scenario: Scenario;
  failureMessage?: string;
  /** One tool call of the first task takes much longer (and the task with it). */
  slowTool?: boolean;
  timeScale: number;
  pendingMs: number;
  notFoundForMs: number;
  now: number;
}

/** Index of the task that raises, or -1. */
function failingTaskIndex(scenario: Scenario): number {
  if (scenario === 'fail') {
    return 0;
  }
  const match = /^failAtTask:(\d+)$/.exec(scenario);
  return match ? Number(match[1]) : -1;
}

export class SimRun {
  readonly id: string;
  readonly kickoffIds: string[];
  readonly crewId: string;
  readonly crewName: string;
  readonly kind: 'crew' | 'flow';
  readonly tasks: readonly TaskConfig[];
  /** A UUID per task, stable across retries: what POST /resume calls `task_id`. */
  readonly taskIds: readonly string[];
  readonly inputs: Record<string, unknown>;
  readonly meta: unknown;
  readonly scenario: Scenario;
  readonly createdAt: number;
  readonly completed: CompletedTask[] = [];
  readonly resumes: ResumeRecord[] = [];
  /** Every task execution so far, oldest first. */
  readonly attempts: TaskAttempt[] = [];

  phase: SimRunPhase = 'pending';
  /** Start of the current phase: pending, or the running task. */
  phaseStartedAt: number;
  /** When the run first left PENDING (progress.started_at). */
  runningSince?: number;
  /** When anything last changed (progress.updated_at). */
  updatedAt: number;
  currentTaskIndex = 0;
  finishedAt?: number;
  failure?: string;
  /** `hitl-resume` once a live resume gave the run a new kickoff id. */
  origin: 'api' | 'hitl-resume' = 'api';

  private readonly placeholderValues: Record<string, string>;
  private readonly failingTask: number;
  private readonly failureMessage?: string;
  private readonly slowTool: boolean;
  private readonly timeScale: number;
  private readonly pendingMs: number;
  private readonly notFoundUntil: number;
  private readonly feedbackByTask: string[][];

  constructor(setup: RunSetup) {
    this.id = randomUUID();
    this.kickoffIds = [this.id];
    this.crewId = setup.crewId;
    this.crewName = setup.crewName ?? setup.crewId;
    this.kind = setup.kind;
    this.tasks = setup.tasks.map((task) => ({ ...task }));
    this.taskIds = this.tasks.map(() => randomUUID());
    this.inputs = setup.inputs;
    this.meta = setup.meta;
    this.scenario = setup.scenario;
    this.createdAt = setup.now;
    this.phaseStartedAt = setup.now;
    this.updatedAt = setup.now;
    this.placeholderValues = placeholderValues(setup.inputs, setup.defaults);
    this.failingTask = failingTaskIndex(setup.scenario);
    this.failureMessage = setup.failureMessage;
    this.slowTool = setup.slowTool ?? false;
    this.timeScale = setup.timeScale;
    this.pendingMs = setup.pendingMs * setup.timeScale;
    this.notFoundUntil = setup.now + (setup.scenario === 'notFoundAfterKickoff' ? setup.notFoundForMs * setup.timeScale : 0);
    this.feedbackByTask = this.tasks.map(() => []);
  }

  get kickoffId(): string {
    return this.kickoffIds[this.kickoffIds.length - 1];
  }

  get currentTask(): TaskConfig | undefined {
    return this.tasks[this.currentTaskIndex];
  }

  get lastCompleted(): CompletedTask | undefined {
    return this.completed[this.completed.length - 1];
  }

  /** Whether /status should pretend not to know this run (scenarios, not the paused knob). */
  hiddenAt(now: number): boolean {
    return this.scenario === 'lost' || now < this.notFoundUntil;
  }

  /** The task's description as the agent saw it: placeholders filled in. */
  taskDescription(index: number): string {
    const task = this.tasks[index];
    return interpolate(task.description ?? `Complete the ${task.name.replace(/_/g, ' ')}.`, this.placeholderValues);
  }

  expectedOutput(index: number): string | null {
    const expected = this.tasks[index].expectedOutput;
    return expected === undefined ? null : interpolate(expected, this.placeholderValues);
  }

  /** Real ms the given task takes in its current attempt. */
  taskDurationMs(index: number): number {
    return this.attemptDurationMs(index, this.feedbackByTask[index].length);
  }

  /** Real ms an attempt at a task takes: its own duration, plus the slow tool call's. */
  attemptDurationMs(index: number, retry: number): number {
    return this.baseDurationMs(index) + this.slowToolMs(index, retry);
  }

  /** Real ms the task takes without a slow tool. */
  baseDurationMs(index: number): number {
    return Math.max(0, this.tasks[index].durationMs * this.timeScale);
  }

  /** The extra real ms of the slow tool call: in the first attempt at the first task only. */
  slowToolMs(index: number, retry: number): number {
    return this.slowTool && index === 0 && retry === 0 ? this.baseDurationMs(index) * SLOW_TOOL_FACTOR : 0;
  }

  /** Whether the task raises when it would have finished. */
  failsAt(index: number): boolean {
    return index === this.failingTask;
  }

  /** The exception text of a failing task, as /status and the event log say it. */
  failureText(index: number): string {
    return this.failureMessage ?? `ValueError: Simulated failure in task '${this.tasks[index].name}'`;
  }

  /** Whether the task never finishes (the `hang` scenario's last task). */
  hangsAt(index: number): boolean {
    return this.scenario === 'hang' && index === this.tasks.length - 1;
  }

  /** Replays every transition due by `now`. */
  advance(now: number): void {
    for (;;) {
      if (this.phase === 'pending') {
        const end = this.phaseStartedAt + this.pendingMs;
        if (now < end) {
          return;
        }
        this.runningSince ??= end;
        this.startTaskOrFinish(end);
        continue;
      }
      if (this.phase !== 'running') {
        return;
      }
      const index = this.currentTaskIndex;
      if (this.hangsAt(index)) {
        return;
      }
      const end = this.phaseStartedAt + this.taskDurationMs(index);
      if (now < end) {
        return;
      }
      if (this.failsAt(index)) {
        this.phase = 'failed';
        this.failure = this.failureText(index);
        this.finish(end);
        return;
      }
      this.completeTask(index, end);
      if (this.tasks[index].humanInput) {
        this.phase = 'paused';
        return;
      }
      this.currentTaskIndex = index + 1;
      this.startTaskOrFinish(end);
    }
  }

  /** Human approved the paused task. `continueAfterPending`: a live resume starts a new (pending) task. */
  approve(now: number, continueAfterPending: boolean): SimRunPhase {
    this.markResumed(now);
    this.currentTaskIndex += 1;
    this.continueAt(now, continueAfterPending);
    return this.phase;
  }

  /** Human asked for changes: the paused task runs again with the feedback, then pauses again. */
  retry(now: number, feedback: string, continueAfterPending: boolean): void {
    this.markResumed(now);
    this.feedbackByTask[this.currentTaskIndex].push(feedback);
    this.completed.pop();
    this.continueAt(now, continueAfterPending);
  }

  /** POST /stop: a run that has not ended stops now (the service revokes its Celery task). */
  stop(now: number): boolean {
    this.advance(now);
    if (this.phase === 'succeeded' || this.phase === 'failed' || this.phase === 'stopped') {
      return false;
    }
    this.phase = 'stopped';
    this.finish(now);
    return true;
  }

  /** A live resume: the run goes on under a new kickoff id. */
  addKickoffId(id: string): void {
    this.kickoffIds.push(id);
    this.origin = 'hitl-resume';
  }

  info(): RunInfo {
    return {
      id: this.id,
      kickoffId: this.kickoffId,
      kickoffIds: [...this.kickoffIds],
      crewId: this.crewId,
      inputs: this.inputs,
      scenario: this.scenario,
      phase: this.phase,
      createdAt: this.createdAt,
      finishedAt: this.finishedAt,
      currentTaskIndex: this.currentTaskIndex,
      completedTasks: this.completed.map(({ name, agent, output, startedAt, finishedAt, feedback }) => ({
        name,
        agent,
        output,
        startedAt,
        finishedAt,
        feedback: [...feedback],
      })),
      pausedTaskId: this.phase === 'paused' ? this.taskIds[this.currentTaskIndex] : undefined,
      pausedTaskName: this.phase === 'paused' ? this.tasks[this.currentTaskIndex].name : undefined,
      resumes: [...this.resumes],
      failure: this.failure,
    };
  }

  private continueAt(now: number, continueAfterPending: boolean): void {
    this.updatedAt = now;
    if (continueAfterPending) {
      this.phase = 'pending';
      this.phaseStartedAt = now;
    } else {
      this.startTaskOrFinish(now);
    }
  }

  private startTaskOrFinish(at: number): void {
    this.updatedAt = at;
    if (this.currentTaskIndex >= this.tasks.length) {
      this.phase = 'succeeded';
      this.finish(at);
      return;
    }
    this.phase = 'running';
    this.phaseStartedAt = at;
    this.attempts.push({ index: this.currentTaskIndex, retry: this.feedbackByTask[this.currentTaskIndex].length, startedAt: at });
  }

  private markResumed(at: number): void {
    const attempt = this.attempts[this.attempts.length - 1];
    if (attempt) {
      attempt.resumedAt = at;
    }
  }

  private completeTask(index: number, at: number): void {
    const task = this.tasks[index];
    const feedback = [...this.feedbackByTask[index]];
    let { text, json } = renderOutput(task.output, this.placeholderValues);
    if (feedback.length > 0) {
      if (isPlainObject(json)) {
        // A JSON output stays parseable: the revision goes into a field, not a trailing line.
        json = { ...json, revised_after_feedback: feedback.map((item) => `Revised after feedback: ${item}`) };
        text = JSON.stringify(json, null, 2);
      } else {
        json = undefined;
        text = [text, '', ...feedback.map((item) => `Revised after feedback: ${item}`)].join('\n');
      }
    }
    this.completed.push({ index, name: task.name, agent: task.agent, output: text, json, startedAt: this.phaseStartedAt, finishedAt: at, feedback });
    this.updatedAt = at;
  }

  private finish(at: number): void {
    this.finishedAt = at;
    this.updatedAt = at;
  }
}
