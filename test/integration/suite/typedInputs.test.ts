// Issue 52, finding 4: a typed input is checked before anything is sent, in words for its type. The Interview
// Crew served self-hosted declares max_score an integer and interview_data an object: 7.5 and "ten" are
// refused in the step ("max_score takes a whole number, for example 10"), not by the crew's 422; JSON that
// lacks its closing brace says so, where a one-line box can show it, and the example stays in sight.
import * as assert from 'assert';
import { demoCrews, startSimulator, type Simulator } from '../../../src/simulator/server';
import { addCrewWithToken, executeCommand, ui } from '../helpers';
import { type Api, clearNotifications, closeQuickInput, pressInQuickInput, removeAllCrews, removeRunsOf, replaceValue, testApi, waitForQuickInput } from './support/kit';

describe('Typed inputs checked before sending', function () {
  this.timeout(180_000);
  let api: Api;
  let sim: Simulator;
  const kickoffs = () => sim.requestLog.entries.filter((e) => e.endpoint === 'kickoff');

  before(async function () {
    if (!ui.available()) {
      this.skip(); // Drives quick inputs through the browser runner's page.
    }
    api = await testApi();
    const interview = demoCrews().find((c) => c.id === 'interview-crew');
    assert.ok(interview);
    sim = await startSimulator({ timeScale: 0.01, crews: [{ ...interview, id: 'typed', name: 'Typed Interview', pendingMs: 100 }] });
    await addCrewWithToken({ url: sim.crewUrl('typed'), name: 'Typed Interview', token: sim.crews[0].orgToken });
  });

  after(async () => {
    await closeQuickInput();
    await clearNotifications();
    if (api && sim) {
      await api.presets.forgetUnfinished(sim.crewUrl('typed'));
      await removeRunsOf(api, [sim.crewUrl('typed')]);
      await removeAllCrews(api);
    }
    await sim?.close();
  });

  it('JSON that lacks its closing brace says what is missing, and the example stays in sight', async () => {
    const done = executeCommand<string | undefined>('crewRuns.kickOff', sim.crewUrl('typed'));
    await waitForQuickInput(/interview_data \(1\/3\)[\s\S]*As JSON/);
    await replaceValue('{"topic": "Rust", "questions_and_answers": [{"question": "Why?", "answer": "Safety"}]');
    const shown = await waitForQuickInput(/is not valid JSON/);
    console.log(`      the step says: ${JSON.stringify(shown.slice(shown.indexOf('interview_data')))}`);
    assert.match(shown, /a closing "}" is missing at the end/, 'it says what is missing');
    assert.doesNotMatch(shown, /line 1, column/, 'no line and column in a one-line box');
    assert.match(shown, /\{"topic": "…", "questions_and_answers": \[\{"question": "…", "answer": "…"\}\]\}/, 'the example is still shown');
    await ui.screenshot('typed-inputs-json-missing-brace', { selector: '.quick-input-widget' });

    await replaceValue('{"topic": "Rust", "questions_and_answers": [{"question": "Why?", "answer": "Safety"}]}', { enter: true });
    await waitForQuickInput(/max_score \(2\/3\)/);
    for (const typed of ['7.5', 'ten']) {
      await replaceValue(typed);
      const step = await waitForQuickInput(/max_score takes a whole number, for example 10\./, `"${typed}" refused in words for an integer`);
      assert.doesNotMatch(step, /not valid JSON/);
      await pressInQuickInput('Enter');
      await waitForQuickInput(/max_score \(2\/3\)[\s\S]*takes a whole number/, 'Enter does not leave the step');
    }
    await ui.screenshot('typed-inputs-whole-number', { selector: '.quick-input-widget' });
    await replaceValue('7', { enter: true });
    await waitForQuickInput(/review \(3\/3\)/);
    await closeQuickInput();
    assert.strictEqual(await done, undefined);
    assert.strictEqual(kickoffs().length, 0, 'nothing was sent to the crew');
  });
});
