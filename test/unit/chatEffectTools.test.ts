// The feedback and kickoff tools act only on what the user confirmed: the run (or crew) is resolved once,
// in prepare; a confirmation is always shown; invoke never looks anything up again, and refuses when the
// run changed in between. Real CrewActions over a store the test moves, and a client that records /resume.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SendOnce } from '../../src/runTracking/sendOnce';
import { CrewActions } from '../../src/chat/crewActions';
import { ConfirmedPlans, giveConfirmedFeedback, kickOffConfirmed, prepareFeedback, prepareKickoff, type FeedbackPlan } from '../../src/chat/effectTools';
import type { Crew } from '../../src/crews/crewConfig';
import { emptyDetails, type RunDetails, type RunRecord } from '../../src/runTracking/model';
import type { ChatServices } from '../../src/chat/chatServices';
import { makeRun } from './chatTools.test';


const writer: Crew = { name: 'Writer', url: 'https://writer.example', source: 'user' };

/** The services CrewActions uses for feedback, with runs the test changes as a poll would. */
function world(runs: RunRecord[], details: Record<string, RunDetails> = {}) {
  const store = new Map(runs.map((r) => [r.id, r]));
  const resumes: { executionId: string; taskId: string; isApprove: boolean; humanFeedback: string }[] = [];
  let crews: Crew[] = [writer];
  const services = {
    runs: {
      get: (id: string) => store.get(id),
      list: () => [...store.values()],
      findByKickoffId: (k: string) => [...store.values()].find((r) => r.kickoffId === k),
      readDetails: async (id: string) => details[id] ?? emptyDetails(),
      addFeedbackRound: async () => undefined,
      setTaskId: async () => undefined,
    },
    client: {
      resume: async (_url: string, request: (typeof resumes)[number]) => {
        resumes.push(request);
        return { kind: 'accepted' };
      },
    },
    crews: { list: () => crews },
    poller: { pokeRun: () => undefined },
    log: { info: () => undefined, warn: () => undefined, error: () => undefined },
    sends: new SendOnce(fs.mkdtempSync(path.join(os.tmpdir(), 'effect-tools-')), 'window'),
  } as unknown as ChatServices;
  return {
    actions: new CrewActions(services),
    resumes,
    /** A poll lands: the run's record changes. */
    poll: (id: string, patch: Partial<RunRecord>) => void store.set(id, { ...store.get(id)!, ...patch }),
    setCrews: (next: Crew[]) => void (crews = next),
  };
}

const waiting = (patch: Partial<RunRecord> = {}) => makeRun({ id: 'run-a', kickoffId: 'k-a', label: 'draft', state: 'awaitingFeedback', needsFeedback: true, taskId: 'review_task', ...patch });

describe('feedback tool: acts only on the run the user confirmed', () => {
  it('with no run id, asks for one: nothing is sent, even with a single waiting run (no "newest" guess)', async () => {
    const { actions, resumes } = world([waiting()]);
    const prepared = await prepareFeedback(actions, { approve: true });
    assert.equal(prepared.confirmation.title, 'Nothing will be sent', 'still a confirmation');
    assert.match(prepared.confirmation.intro, /No run id was given/);
    const result = await giveConfirmedFeedback(actions, prepared.plan);
    assert.match(result, /^Nothing was sent: name the run by its runId \(crewRuns_listRuns with state "needsFeedback"/);
    for (const input of [{ crew: 'Writer', approve: true }, { kickoffId: 'k-a', approve: true }]) {
      assert.equal((await prepareFeedback(actions, input)).plan.kind, 'refuse', JSON.stringify(input));
    }
    assert.deepEqual(resumes, []);
  });

  it('confirms everything the resume carries: run, kickoff id, the task id the model chose, the text', async () => {
    const { actions, resumes } = world([waiting()]);
    const prepared = await prepareFeedback(actions, { runId: 'run-a', approve: false, feedback: 'Shorter', taskId: 'task-from-model' });
    assert.equal(prepared.confirmation.title, 'Request changes to draft?');
    assert.deepEqual(prepared.confirmation.lines, [
      ['Run ID', 'run-a'],
      ['Kickoff ID', 'k-a'],
      ['Task ID', 'task-from-model (chosen by the model)'],
      ['Feedback', 'Shorter'],
    ]);
    assert.match(await giveConfirmedFeedback(actions, prepared.plan), /^Sent the feedback to "draft" \(run id run-a/);
    assert.deepEqual(resumes.map((r) => [r.executionId, r.taskId, r.isApprove, r.humanFeedback]), [['k-a', 'task-from-model', false, 'Shorter']]);
  });

  it('a run not waiting when the user was asked is never answered, even when a poll makes it wait before invoke', async () => {
    const w = world([waiting({ state: 'running', needsFeedback: false })]);
    const prepared = await prepareFeedback(w.actions, { runId: 'run-a', approve: true });
    assert.equal(prepared.confirmation.title, 'Nothing will be sent');
    w.poll('run-a', { state: 'awaitingFeedback', needsFeedback: true });
    assert.match(await giveConfirmedFeedback(w.actions, prepared.plan), /^Nothing was sent: "draft" is not waiting for feedback \(state: running\)/);
    assert.deepEqual(w.resumes, []);
  });

  it('refuses when the run changed between confirmation and invoke: resumed and waiting again, or on another task', async () => {
    const w = world([waiting()]);
    const first = await prepareFeedback(w.actions, { runId: 'run-a', approve: true });
    w.poll('run-a', { kickoffId: 'k-b' }); // Resumed elsewhere and waiting again, under a new kickoff id.
    assert.match(await giveConfirmedFeedback(w.actions, first.plan), /^Nothing was sent:\n[\s\S]*draft changed since the user confirmed: it now waits under another kickoff id/);

    const second = await prepareFeedback(w.actions, { runId: 'run-a', approve: true });
    w.poll('run-a', { taskId: 'second_review' });
    assert.match(await giveConfirmedFeedback(w.actions, second.plan), /changed since the user confirmed: it now waits on another task/);

    const third = await prepareFeedback(w.actions, { runId: 'run-a', approve: true });
    w.poll('run-a', { state: 'running', needsFeedback: false });
    assert.match(await giveConfirmedFeedback(w.actions, third.plan), /is not waiting for feedback/);
    assert.deepEqual(w.resumes, [], 'nothing sent to a run the user did not confirm');
  });

  it('takes the task id from the crew\'s status when none is remembered, and says so in the confirmation', async () => {
    const details = { 'run-a': { ...emptyDetails(), lastSnapshot: { state: 'awaitingFeedback' as const, tasks: [], raw: {}, feedback: { taskId: 'from-status' } } } };
    const { actions, resumes } = world([waiting({ taskId: undefined })], details);
    const prepared = await prepareFeedback(actions, { runId: 'run-a', approve: true });
    assert.deepEqual(prepared.confirmation.lines[2], ['Task ID', 'from-status']);
    await giveConfirmedFeedback(actions, prepared.plan);
    assert.deepEqual(resumes.map((r) => r.taskId), ['from-status']);
  });

  it('an invoke without its prepare sends nothing', async () => {
    const { actions, resumes } = world([waiting()]);
    assert.match(await giveConfirmedFeedback(actions, undefined), /^Nothing was sent: this call was not confirmed by the user/);
    assert.deepEqual(resumes, []);
  });
});

describe('kickoff tool: acts only on the crew the user confirmed', () => {
  it('confirms an unknown crew as "nothing will be sent", and sends nothing when it appears before invoke', async () => {
    const w = world([]);
    w.setCrews([]);
    const prepared = prepareKickoff(w.actions, { crew: 'Writer', inputs: { topic: 'x' } });
    assert.equal(prepared.confirmation.title, 'Nothing will be sent');
    w.setCrews([writer]);
    const result = await kickOffConfirmed(w.actions, prepared.plan);
    assert.ok('text' in result);
    assert.match(result.text, /^Nothing was sent: there is no crew "Writer"/);
  });

  it('refuses when the confirmed crew was removed or renamed before invoke', async () => {
    const w = world([]);
    const prepared = prepareKickoff(w.actions, { crew: 'Writer', inputs: { topic: 'x' } });
    assert.equal(prepared.confirmation.title, 'Kick off Writer?');
    w.setCrews([{ ...writer, name: 'Renamed' }]);
    const result = await kickOffConfirmed(w.actions, prepared.plan);
    assert.ok('text' in result);
    assert.match(result.text, /^Nothing was sent: crew "Writer" was removed or changed since the user confirmed/);
  });
});

describe('confirmed plans', () => {
  it('hand each prepare\'s plan to the invoke of the same input once, whatever the key order', () => {
    const plans = new ConfirmedPlans<FeedbackPlan>();
    plans.remember({ runId: 'a', approve: true }, { kind: 'refuse', text: 'first' });
    plans.remember({ approve: true, runId: 'a' }, { kind: 'refuse', text: 'latest' });
    assert.deepEqual(plans.take({ runId: 'a', approve: true }), { kind: 'refuse', text: 'latest' }, 'the latest confirmation of the same call');
    assert.equal(plans.take({ runId: 'a', approve: true }), undefined, 'once');
    plans.remember({ runId: 'a', approve: true }, { kind: 'refuse', text: 'x' });
    assert.equal(plans.take({ runId: 'b', approve: true }), undefined, 'not for another input');
  });
});
