// What the chat tools and the @crews participant can do, over the extension's own services: find
// crews and runs, read inputs, kick off, wait, give feedback. Structured results, no UI and no
// text for the model (toolResults.ts and participant.ts word them). Runs go through the same
// recording path as the palette (startRun, sendResume), so they show in the tree and are polled.
import * as l10n from '@vscode/l10n';
import { classifySendFailure } from '../runTracking/sendOnce';
import { CrewApiError } from '../api/errors';
import type { CrewInputs, InputSpec, RunEvent } from '../api/types';
import { normaliseCrewUrl } from '../api/url';
import { startRun } from '../runTracking/startRun';
import { isAnswerAlreadyGiven, isAnswerUncertain, sendResume } from '../runTracking/sendResume';
import type { Crew } from '../crews/crewConfig';
import type { CrewHealth } from '../crews/crewRegistry';
import { hasValue, type Inputs, inputsProblem } from '../api/inputValues';
import { isRequiredInput } from '../kickoff/core/inputPresets';
import { isFinished, type RunDetails, type RunRecord } from '../runTracking/model';
import type { ChatServices } from './chatServices';
import { describeError } from '../ui/errorMessages';
import { TOOL } from './toolNames';
import { errorText } from '../util/errorText';

export type CrewLookup = { kind: 'found'; crew: Crew } | { kind: 'unknown'; known: string[] } | { kind: 'ambiguous'; matches: Crew[] };

export interface CrewInfo {
  name: string;
  url: string;
  source: Crew['source'];
  hasToken: boolean;
  health: CrewHealth;
  /** What GET /inputs said, when it answered in this window. */
  inputs?: CrewInputs;
}

/**
 * `specs` as the crew describes them (descriptions, defaults, allowed values, required flags); a crew
 * that does not describe its inputs (`described: false`, `reason` in its words) has none listed.
 */
export type InputsOutcome =
  | { ok: true; described: boolean; reason?: string; specs: InputSpec[]; names: string[]; required: string[] }
  | { ok: false; problem: string };

export type KickoffOutcome =
  | { kind: 'started'; run: RunRecord }
  /** Nothing was sent: these required inputs have no value. */
  | { kind: 'missing'; missing: string[]; names: string[] }
  /** Nothing was sent: these inputs are not the crew's. */
  | { kind: 'unknownInputs'; unknown: string[]; names: string[] }
  /** Nothing was sent (`sent: false`), or the kickoff failed or may have started (`sent: true`). */
  | { kind: 'problem'; message: string; sent: boolean; mayHaveStarted?: boolean };

export type RunQuery = { runId?: string; kickoffId?: string; crew?: string };
export type RunLookup = { kind: 'found'; run: RunRecord } | { kind: 'none'; message: string };

/** vscode.CancellationToken, or anything shaped like it (the participant's tests). */
export interface Cancellation {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: () => void): { dispose(): void };
}

export type FeedbackOutcome = { kind: 'sent'; run: RunRecord } | { kind: 'problem'; message: string; sent: boolean; mayHaveActed?: boolean };

const instances = new WeakMap<ChatServices, CrewActions>();

/** One per window, shared by the tools and the participant (they share what /inputs answered). */
export function crewActionsFor(services: ChatServices): CrewActions {
  let actions = instances.get(services);
  if (!actions) {
    actions = new CrewActions(services);
    instances.set(services, actions);
  }
  return actions;
}

export class CrewActions {
  /** Inputs per crew URL, as GET /inputs last answered in this window. */
  private readonly knownInputs = new Map<string, CrewInputs>();

  constructor(private readonly services: ChatServices) {}

  private apiError(error: unknown): CrewApiError | undefined {
    return error instanceof CrewApiError ? error : undefined;
  }

  /** A crew by URL or by name (case-insensitive). Only crews the registry offers: never an untrusted workspace's. */
  findCrew(reference: string): CrewLookup {
    const crews = this.services.crews.list();
    const text = reference.trim();
    const url = normaliseCrewUrl(text);
    const byUrl = url.ok ? crews.find((c) => c.url === url.url) : undefined;
    if (byUrl) {
      return { kind: 'found', crew: byUrl };
    }
    const byName = crews.filter((c) => c.name.toLowerCase() === text.toLowerCase());
    if (byName.length === 1) {
      return { kind: 'found', crew: byName[0] };
    }
    if (byName.length > 1) {
      return { kind: 'ambiguous', matches: byName };
    }
    return { kind: 'unknown', known: crews.map((c) => c.name) };
  }

  async listCrews(): Promise<CrewInfo[]> {
    return Promise.all(
      this.services.crews.list().map(async (crew) => ({
        name: crew.name,
        url: crew.url,
        source: crew.source,
        hasToken: await this.services.crews.hasToken(crew.url),
        health: this.services.crews.healthOf(crew.url),
        inputs: this.knownInputs.get(crew.url),
      })),
    );
  }

  /** GET /inputs: the one place the chat reads a crew's inputs (the client's parser decides what they are). */
  async readInputs(crew: Crew, signal?: AbortSignal): Promise<InputsOutcome> {
    if (!(await this.services.crews.hasToken(crew.url))) {
      return { ok: false, problem: describeError(new CrewApiError('unauthorized', 'no token'), crew.name) };
    }
    try {
      const inputs = await this.services.client.getInputs(crew.url, { signal });
      this.services.crews.setHealth(crew.url, 'ready');
      this.knownInputs.set(crew.url, inputs);
      const specs = inputs.described ? inputs.inputs : [];
      return {
        ok: true,
        described: inputs.described,
        ...(inputs.described ? {} : { reason: inputs.reason }),
        specs,
        names: specs.map((spec) => spec.name),
        required: specs.filter(isRequiredInput).map((spec) => spec.name),
      };
    } catch (error) {
      const apiError = this.apiError(error);
      if (apiError) {
        this.services.crews.setHealth(crew.url, apiError.kind === 'unauthorized' ? 'tokenRejected' : 'unreachable');
      }
      return { ok: false, problem: describeError(error, crew.name) };
    }
  }

  /**
   * Checks the inputs against GET /inputs, then kicks off through the palette's path. Nothing is
   * sent when a required input is missing, an input is not the crew's, or a value is too long.
   */
  async kickOff(crew: Crew, given: Inputs): Promise<KickoffOutcome> {
    const inputs = await this.readInputs(crew);
    if (!inputs.ok) {
      return { kind: 'problem', message: inputs.problem, sent: false };
    }
    const missing = inputs.required.filter((n) => !hasValue(given[n]));
    if (missing.length > 0) {
      return { kind: 'missing', missing, names: inputs.names };
    }
    const unknown = inputs.names.length > 0 ? Object.keys(given).filter((n) => !inputs.names.includes(n)) : [];
    if (unknown.length > 0) {
      return { kind: 'unknownInputs', unknown, names: inputs.names };
    }
    const problem = inputsProblem(given);
    if (problem) {
      return { kind: 'problem', message: problem.message, sent: false };
    }
    // As the wizard sends them: an empty optional input (as the crew says, else a flow's `id`) is left out.
    const optional = (n: string) => !isRequiredInput(inputs.specs.find((spec) => spec.name === n) ?? { name: n });
    const toSend = Object.fromEntries(Object.entries(given).filter(([n, v]) => !(optional(n) && !hasValue(v))));
    try {
      return { kind: 'started', run: await startRun(this.services, crew, toSend) };
    } catch (error) {
      this.services.log.warn(`Kickoff of ${crew.name} from the chat failed: ${errorText(error)}`);
      const apiError = this.apiError(error);
      if (apiError?.kind === 'missingInputs') {
        return { kind: 'missing', missing: apiError.missingInputs ?? [], names: inputs.names };
      }
      // A lost or unreadable answer, or a 5xx, may hide a started run: never kick off again by ourselves.
      const mayHaveStarted = classifySendFailure(error) === 'mayHaveActed';
      return { kind: 'problem', message: describeError(error, crew.name), sent: true, mayHaveStarted };
    }
  }

  /** By local run id, by kickoff id (also an earlier one), else the newest run of a crew, else the newest run. */
  findRun(query: RunQuery): RunLookup {
    const { runs } = this.services;
    if (query.runId) {
      const run = runs.get(query.runId.trim());
      return run ? { kind: 'found', run } : { kind: 'none', message: l10n.t('No run with run id {0}.', query.runId) };
    }
    if (query.kickoffId) {
      const run = runs.findByKickoffId(query.kickoffId.trim());
      return run ? { kind: 'found', run } : { kind: 'none', message: l10n.t('No recorded run has kickoff id {0}.', query.kickoffId) };
    }
    if (query.crew) {
      const crew = this.findCrew(query.crew);
      const url = crew.kind === 'found' ? crew.crew.url : undefined;
      const run = url ? runs.list(url)[0] : runs.list().find((r) => r.crewName.toLowerCase() === query.crew?.trim().toLowerCase());
      return run ? { kind: 'found', run } : { kind: 'none', message: l10n.t('No runs of crew "{0}" are recorded.', query.crew) };
    }
    const newest = runs.list()[0];
    return newest ? { kind: 'found', run: newest } : { kind: 'none', message: l10n.t('No runs are recorded yet.') };
  }

  listRuns(filter: { crew?: string; state?: string; limit?: number }): RunRecord[] {
    const crew = filter.crew ? this.findCrew(filter.crew) : undefined;
    const url = crew?.kind === 'found' ? crew.crew.url : undefined;
    const state = filter.state?.trim();
    return this.services.runs
      .list(url)
      .filter((r) => !filter.crew || url || r.crewName.toLowerCase() === filter.crew.trim().toLowerCase())
      .filter((r) => !state || r.state === state || (state === 'needsFeedback' && r.needsFeedback) || (state === 'active' && !isFinished(r)))
      .slice(0, Math.max(1, Math.min(filter.limit ?? 20, 100)));
  }

  readDetails(run: RunRecord): Promise<RunDetails> {
    return this.services.runs.readDetails(run.id);
  }

  /** The run's kept event log (redacted when read), oldest first: what its trace is built from. */
  async readEvents(run: RunRecord): Promise<RunEvent[]> {
    return (await this.services.runs.readEvents(run.id)).events;
  }

  current(run: RunRecord): RunRecord {
    return this.services.runs.get(run.id) ?? run;
  }

  /**
   * Resolves once the run ends, waits for feedback, stops being watched, `ms` pass or the token is
   * cancelled; with the run as it is then. Each change is reported to `onChange`.
   */
  waitForRun(runId: string, ms: number, token?: Cancellation, onChange?: (run: RunRecord) => void): Promise<RunRecord | undefined> {
    const settled = (run: RunRecord | undefined) => !run || isFinished(run) || run.needsFeedback || !run.watching;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        subscription.dispose();
        cancelled?.dispose();
        resolve(this.services.runs.get(runId));
      };
      const subscription = this.services.runs.onDidChange((e) => {
        if (!e.runIds.includes(runId)) {
          return;
        }
        const run = this.services.runs.get(runId);
        if (run) {
          onChange?.(run);
        }
        if (settled(run)) {
          done();
        }
      });
      const timer = setTimeout(done, Math.max(0, ms));
      const cancelled = token?.onCancellationRequested(done);
      if (settled(this.services.runs.get(runId)) || token?.isCancellationRequested) {
        done();
      }
    });
  }

  /** The task id a resume for `run` would carry: the one given (the model's), else the one remembered, else the status's. */
  feedbackTaskId(run: RunRecord, details: RunDetails, given?: string): string | undefined {
    return given?.trim() || run.taskId || details.lastSnapshot?.feedback?.taskId;
  }

  /**
   * POST /resume for a run that waits for feedback; nothing is sent when it does not wait or no task id is
   * known. With `confirmed` (what the user confirmed), nothing is sent either when the run no longer waits
   * under that kickoff id or would be answered for another task: the run changed since the confirmation.
   */
  async giveFeedback(run: RunRecord, answer: { approve: boolean; feedback: string; taskId?: string }, confirmed?: { kickoffId: string; taskId: string }): Promise<FeedbackOutcome> {
    const details = await this.services.runs.readDetails(run.id);
    // Read after the await: a poll may have landed meanwhile.
    const current = this.current(run);
    if (!current.needsFeedback) {
      return { kind: 'problem', message: `${current.label} is not waiting for feedback (state: ${current.state}).`, sent: false };
    }
    if (!answer.approve && !answer.feedback.trim()) {
      return { kind: 'problem', message: l10n.t('Requesting changes needs feedback text that says what should change.'), sent: false };
    }
    const taskId = this.feedbackTaskId(current, details, answer.taskId);
    if (!taskId) {
      return {
        kind: 'problem',
        // Only the model sees this one (the participant always has the task id): it stays English.
        message:
          'The crew did not say which task waits, so its task ID is needed: the user finds it in the CrewAI dashboard (the paused task of this execution) or in the human-input webhook payload (task_id). Call again with taskId.',
        sent: false,
      };
    }
    if (confirmed && (current.kickoffId !== confirmed.kickoffId || taskId !== confirmed.taskId)) {
      return {
        kind: 'problem',
        // Only the model sees this one (the tools confirm; the participant does not): it stays English.
        message: `${current.label} changed since the user confirmed: it now waits ${taskId !== confirmed.taskId ? 'on another task' : 'under another kickoff id'}. Read it again with ${TOOL.getRun} and ask the user again.`,
        sent: false,
      };
    }
    try {
      await sendResume(this.services, current, {
        approve: answer.approve,
        feedback: answer.feedback.trim(),
        taskId,
        output: details.lastSnapshot?.feedback?.output,
      });
      if (answer.taskId && !current.taskId) {
        await this.services.runs.setTaskId(current.id, taskId);
      }
      return { kind: 'sent', run: this.current(current) };
    } catch (error) {
      if (isAnswerAlreadyGiven(error)) {
        return { kind: 'problem', message: error.message, sent: false };
      }
      if (isAnswerUncertain(error)) {
        this.services.poller.pokeRun(current.id);
        // Only the model sees this one: it stays English. Never an invitation to send again.
        return { kind: 'problem', message: `${error.message} Its status is being checked: read the run again with ${TOOL.getRun}; if it still waits, only the user can choose to answer again, from the review.`, sent: false };
      }
      this.services.log.warn(`[${current.crewName} · ${current.label}] Feedback from the chat not sent: ${errorText(error)}`);
      if (this.apiError(error)?.kind === 'badRequest') {
        this.services.poller.pokeRun(current.id);
      }
      // A lost or unreadable answer may hide feedback the crew took: never offered to send it again blindly.
      const acted = classifySendFailure(error) === 'mayHaveActed';
      if (acted) {
        this.services.poller.pokeRun(current.id);
      }
      return { kind: 'problem', message: describeError(error, current.crewName), sent: true, mayHaveActed: acted };
    }
  }
}
