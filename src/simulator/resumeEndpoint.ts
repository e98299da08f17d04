// POST /resume of a simulated crew: human feedback for a paused run, in the live service's camelCase or the
// documented snake_case; a live resume continues the run under a new kickoff id.

import { randomUUID } from 'node:crypto';
import { isPlainObject } from '../util/objects';
import * as dialects from './dialects';
import type { Reply } from './types';
import { parseJson } from './http';
import { SimRun } from './runEngine';
import { statusNow } from './runEndpoints';
import type { ResumeRecord, ResumeStyle } from './types';
import { type CrewState, DEFAULT_PENDING_MS, dialectOf, type SimWorld } from './world';

function resumeStyle(body: Record<string, unknown>): ResumeStyle {
  const snake = ['execution_id', 'task_id', 'human_feedback', 'is_approve'].some((key) => key in body);
  const camel = ['executionId', 'taskId', 'humanFeedback', 'isApprove'].some((key) => key in body);
  return snake && camel ? 'mixed' : snake ? 'snake' : camel ? 'camel' : 'neither';
}

export function resume(world: SimWorld, crew: CrewState, text: string): Reply {
  const { config } = crew;
  const dialect = dialectOf(world, crew);
  const now = Date.now();
  const parsed = parseJson(text);
  const body = parsed.ok ? parsed.value : parsed.raw;
  const record: ResumeRecord = { time: now, crewId: config.id, body, style: isPlainObject(body) ? resumeStyle(body) : 'neither', status: 0 };
  world.resumes.push(record);
  const answer = (reply: Reply): Reply => {
    record.status = reply.status;
    return reply;
  };
  if (!parsed.ok) {
    return answer(dialects.malformedJson(dialect));
  }
  const fields = isPlainObject(parsed.value) ? parsed.value : {};
  const pick = (...keys: string[]): unknown => keys.map((key) => fields[key]).find((value) => value !== undefined);
  // The live service only knows camelCase; the docs name snake_case (and show camelCase on the same page).
  const executionId = dialect === 'live' ? fields.executionId : pick('execution_id', 'executionId');
  const taskId = dialect === 'live' ? fields.taskId : pick('task_id', 'taskId');
  const feedbackValue = dialect === 'live' ? fields.humanFeedback : pick('human_feedback', 'humanFeedback');
  const approveValue = dialect === 'live' ? fields.isApprove : pick('is_approve', 'isApprove');
  // Link the attempt to its run even when it is refused, so tests can see what a client tried.
  const namedRun = world.runs.get(String(fields.executionId ?? fields.execution_id ?? ''));
  if (namedRun?.crewId === config.id) {
    record.runId = namedRun.id;
  }
  const missing = [
    ...(typeof executionId === 'string' && executionId ? [] : [dialect === 'live' ? 'executionId' : 'execution_id']),
    ...(typeof taskId === 'string' && taskId ? [] : [dialect === 'live' ? 'taskId' : 'task_id']),
  ];
  if (missing.length > 0) {
    return answer(dialect === 'live' ? dialects.liveResumeValidation(missing) : dialects.docsResumeValidation(missing));
  }
  const feedback = typeof feedbackValue === 'string' ? feedbackValue : '';
  const isApprove = approveValue !== false && approveValue !== 'false';

  const run = world.runs.get(executionId as string);
  if (!run || run.crewId !== config.id) {
    if (dialect === 'live' && config.liveResumeAcceptsUnknownExecution) {
      return answer(acceptUnknownLiveResume(world, crew, record));
    }
    return answer(dialects.executionNotFound(dialect));
  }
  run.advance(now);
  if (run.phase !== 'paused') {
    return answer(dialects.notPendingHumanInput(dialect));
  }
  const index = run.currentTaskIndex;
  if (taskId !== run.taskIds[index] && !(dialect === 'docs' && taskId === run.tasks[index].name)) {
    return answer(dialects.taskNotFound(dialect));
  }
  record.action = isApprove ? 'approve' : 'retry';
  run.resumes.push(record);
  if (config.resumeLagMs) {
    // The pause as it was answered, reported on for a while by a status that lags behind.
    (crew.laggingPauses ??= new Map()).set(run, { until: now + config.resumeLagMs, reply: statusNow(world, crew, run, now) });
  }
  if (dialect === 'live') {
    const newId = randomUUID();
    run.addKickoffId(newId);
    world.runs.set(newId, run);
    record.newKickoffId = newId;
    if (isApprove) {
      run.approve(now, true);
    } else {
      run.retry(now, feedback, true);
    }
    return answer(dialects.kickoffReply(newId));
  }
  if (!isApprove) {
    run.retry(now, feedback, false);
    return answer(dialects.docsResumeReply('retrying'));
  }
  const phase = run.approve(now, false);
  return answer(dialects.docsResumeReply(phase === 'succeeded' ? 'completed' : 'resumed'));
}

/** What the live service was seen to do: a new kickoff id whose run fails at once. */
function acceptUnknownLiveResume(world: SimWorld, crew: CrewState, record: ResumeRecord): Reply {
  const run = new SimRun({
    crewId: crew.config.id,
    kind: crew.config.kind,
    tasks: [{ name: 'resume', agent: 'Crew', durationMs: 0, output: '' }],
    inputs: {},
    scenario: 'fail',
    failureMessage: "TypeError: 'NoneType' object is not subscriptable",
    timeScale: world.timeScale,
    pendingMs: crew.config.pendingMs ?? DEFAULT_PENDING_MS,
    notFoundForMs: 0,
    now: Date.now(),
  });
  run.origin = 'hitl-resume';
  world.runs.set(run.id, run);
  record.newKickoffId = run.id;
  return dialects.kickoffReply(run.id);
}
