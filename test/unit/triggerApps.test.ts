// The platform's automation triggers (issue #51): the apps list and a trigger's sample payload read tolerantly and
// bounded (10,000 apps, a 50 MB or 10,000-level payload, one that is no object), slugs that could name another route
// refused before any request, the payload remembered per crew and trigger, and the simulator's routes.

import * as assert from 'node:assert/strict';
import { jsonOfRead, readJsonBody } from '../../src/api/jsonBody';
import { type InputValue, MAX_INPUT_VALUE_LENGTH } from '../../src/api/inputValues';
import { PlatformClient, PlatformError } from '../../src/platform/platformClient';
import {
  fetchSamplePayload,
  isSafeSlug,
  listTriggerApps,
  MAX_TRIGGER_APPS,
  MAX_TRIGGERS_PER_APP,
  PAYLOAD_READ_LIMITS,
  parseSamplePayload,
  parseTriggerApps,
  type PlatformGet,
} from '../../src/platform/triggerApps';
import { latestTrigger, MAX_REMEMBERED_PAYLOAD, MAX_TRIGGERS_PER_CREW, rememberedPayload, rememberPayload, type TriggerRef } from '../../src/platform/triggerPayloads';
import { placeholderValues, interpolate } from '../../src/simulator/outputs';
import { demoTriggerApps, triggerReply } from '../../src/simulator/platformTriggers';
import { startSimulator, triggerDemoCrew, type Simulator } from '../../src/simulator/server';
import type { SharedValues } from '../../src/util/sharedValues';
import { deepJsonText } from '../fixtures/hostileCorpus';

const TOKEN = 'pat-trigger-secret-42';

/** A reply as the platform client reads it: bytes on the reader's side, the value on the host's. */
function read(text: string, limits = PAYLOAD_READ_LIMITS): unknown {
  return jsonOfRead(readJsonBody(Buffer.from(text), TOKEN, limits).read);
}

function memoryStore(): SharedValues {
  const values = new Map<string, string>();
  const get = <T>(key: string) => (values.has(key) ? (JSON.parse(values.get(key)!) as T) : undefined);
  return { get, change: async (key, update) => void values.set(key, JSON.stringify(update(get(key)) ?? null)) };
}

describe('trigger slugs', () => {
  it('takes plain slugs and refuses anything that could name another route', () => {
    for (const slug of ['gmail', 'new_email_received', 'google-calendar', 'v2.1', 'A9']) {
      assert.ok(isSafeSlug(slug), slug);
    }
    for (const slug of ['../crews', '..', '.', '%2F', '..%2Fcrews', 'a/b', '/gmail', 'a?b=1', 'a#b', 'a\\b', 'a b', '', '-x', '_x', 'é', 'x'.repeat(201), 42, null, undefined, { slug: 'gmail' }]) {
      assert.ok(!isSafeSlug(slug), JSON.stringify(slug));
    }
  });

  it('asks nothing of the platform for a slug with path characters, and says why', async () => {
    const asked: string[][] = [];
    const get: PlatformGet = async (path) => {
      asked.push(path);
      return { sample_payload: {} };
    };
    for (const [app, trigger] of [['../crews', 'x'], ['gmail', '..%2F..%2Fcrews'], ['gmail', 'a/b'], ['gmail', 'new?x=1'], ['gmail#x', 'new'], ['gmail', '..']]) {
      const got = await fetchSamplePayload(get, app, { slug: trigger, name: 'New Email' });
      assert.deepEqual(got.ok ? 'ok' : got.problem, 'badSlug', `${app}/${trigger}`);
      assert.match(got.ok ? '' : got.message, /New Email has a name that is not a plain word.*nothing was asked of the platform/);
    }
    assert.deepEqual(asked, []);
    assert.equal((await fetchSamplePayload(get, 'gmail', { slug: 'new_email', name: 'New Email' })).ok, true);
    assert.deepEqual(asked, [['integrations', 'gmail', 'new_email', 'payload']]);
  });
});

describe('trigger apps list', () => {
  it('reads the documented shape, connected apps first, each group in the platform’s order', () => {
    const { apps, overCap, skipped } = parseTriggerApps({
      apps: [
        { name: 'Slack', slug: 'slack', is_connected: false, description: 'Messages', triggers: [{ slug: 'new_message', name: 'New Message' }] },
        { name: 'Gmail', slug: 'gmail', is_connected: true, description: 'Mail', triggers: [{ slug: 'new_email', name: 'New Email', description: 'An email arrives' }] },
        { name: 'HubSpot', slug: 'hubspot', is_connected: false, triggers: [] },
        { name: 'Calendar', slug: 'calendar', isConnected: 'true', unknown: { deep: [1] } },
      ],
    });
    assert.deepEqual(
      apps.map((a) => [a.slug, a.connected, a.triggers.map((t) => t.slug)]),
      [
        ['gmail', true, ['new_email']],
        ['calendar', true, []],
        ['slack', false, ['new_message']],
        ['hubspot', false, []],
      ],
    );
    assert.deepEqual(apps[0].triggers[0], { slug: 'new_email', name: 'New Email', description: 'An email arrives' });
    assert.deepEqual([overCap, skipped], [false, 0]);
  });

  it('never fails the list for an odd entry: skips those without a usable slug or listed twice, and bad triggers', () => {
    const { apps, skipped } = parseTriggerApps([
      null,
      'gmail',
      { name: 'No slug' },
      { slug: '../crews', name: 'Escape' },
      { slug: '%2Fcrews', name: 'Encoded' },
      { slug: 'gmail', name: 'Gmail\n[x](command:evil)', is_connected: true, triggers: [{ slug: 'a/b' }, { slug: 'ok', name: 42 }, { slug: 'ok' }, 'x', { slug: '?q' }] },
      { slug: 'gmail', name: 'Twice' },
    ]);
    assert.equal(skipped, 6);
    assert.equal(apps.length, 1);
    assert.doesNotMatch(apps[0].name, /\n/, 'a name is one line');
    assert.deepEqual(apps[0].triggers, [{ slug: 'ok', name: 'ok', description: undefined }]);
    assert.deepEqual(parseTriggerApps({ error: 'nope' }).apps, []);
    assert.deepEqual(parseTriggerApps('nonsense').apps, []);
  });

  it('keeps at most MAX_TRIGGER_APPS of a 10,000-app list (said as over the cap) and MAX_TRIGGERS_PER_APP triggers each', () => {
    const triggers = Array.from({ length: 1000 }, (_, i) => ({ slug: `t${i}`, name: `Trigger ${i}` }));
    const body = JSON.stringify({ apps: Array.from({ length: 10_000 }, (_, i) => ({ slug: `app${i}`, name: `App ${i}`, is_connected: i % 2 === 0, triggers: i < 3 ? triggers : [] })) });
    const { apps, overCap } = parseTriggerApps(read(body, undefined));
    assert.equal(apps.length, MAX_TRIGGER_APPS);
    assert.equal(overCap, true);
    assert.ok(apps.slice(0, MAX_TRIGGER_APPS / 2).every((a) => a.connected) && apps.slice(MAX_TRIGGER_APPS / 2).every((a) => !a.connected));
    assert.equal(apps[0].triggers.length, MAX_TRIGGERS_PER_APP);
    // Exactly the cap is not over it.
    assert.equal(parseTriggerApps({ apps: Array.from({ length: MAX_TRIGGER_APPS }, (_, i) => ({ slug: `a${i}` })) }).overCap, false);
  });
});

describe('trigger sample payload', () => {
  it('reads {"sample_payload": {…}} (and the usual variants) as an object', () => {
    const payload = { result: { id: 'm1', snippet: 'Hello', labelIds: ['INBOX'] } };
    assert.deepEqual(parseSamplePayload({ sample_payload: payload }, 'New Email'), { ok: true, payload });
    assert.deepEqual(parseSamplePayload({ samplePayload: payload }, 'New Email'), { ok: true, payload });
    assert.deepEqual(parseSamplePayload({ data: { sample_payload: payload } }, 'New Email'), { ok: true, payload });
    assert.deepEqual(parseSamplePayload(read(JSON.stringify({ sample_payload: payload })), 'New Email'), { ok: true, payload });
  });

  it('says plainly when there is no payload or it is not an object', () => {
    const problem = (body: unknown) => {
      const got = parseSamplePayload(body, 'New Email');
      return got.ok ? 'ok' : `${got.problem}: ${got.message}`;
    };
    assert.equal(problem({}), 'missing: The platform gave no sample payload for New Email.');
    assert.equal(problem('text'), 'missing: The platform gave no sample payload for New Email.');
    assert.equal(problem({ sample_payload: [1, 2] }), 'notObject: The sample payload of New Email is a list, not a JSON object: a crew receives crewai_trigger_payload as an object, so it cannot be used.');
    assert.match(problem({ sample_payload: 'hello' }), /^notObject: .* is text, not a JSON object/);
    assert.match(problem({ sample_payload: null }), /^notObject: .* is null, not a JSON object/);
    assert.match(problem({ sample_payload: 3 }), /^notObject: .* is a number, not a JSON object/);
  });

  it('refuses a payload nested 10,000 levels, read without recursion, in plain words', () => {
    const got = parseSamplePayload(read(`{"sample_payload": ${deepJsonText(10_000)}}`), 'Deep');
    assert.equal(got.ok ? 'ok' : got.problem, 'tooDeep');
    assert.match(got.ok ? '' : got.message, /^The sample payload of Deep is nested too deeply to send as an input \(over 64 levels\)\.$/);
    // At the limit it is taken: 64 levels below the payload.
    assert.equal(parseSamplePayload(read(`{"sample_payload": ${deepJsonText(64)}}`), 'Deep').ok, true);
  });

  it('refuses a 50 MB payload in plain words, and one of a million entries', () => {
    const long = `{"sample_payload": {"body": "${'x'.repeat(50 * 1024 * 1024)}"}}`;
    const one = parseSamplePayload(read(long), 'Big');
    assert.equal(one.ok ? 'ok' : one.problem, 'tooLarge');
    assert.equal(one.ok ? '' : one.message, `The sample payload of Big is too large to send as an input (over ${MAX_INPUT_VALUE_LENGTH.toLocaleString('en-US')} characters).`);
    // More entries than the reader keeps (its marks of what it left out are the main bundle's, not this one's):
    // what it kept is already over an input's limits, so a payload is never sent cut short.
    const many = `{"sample_payload": {"rows": [${'"",'.repeat(1_100_000)}""]}}`;
    const entries = parseSamplePayload(read(many), 'Many');
    assert.equal(entries.ok ? 'ok' : entries.problem, 'tooLarge');
    // Just under an input's limit it is taken whole.
    const fits = { body: 'y'.repeat(MAX_INPUT_VALUE_LENGTH - 20) };
    assert.deepEqual(parseSamplePayload(read(JSON.stringify({ sample_payload: fits })), 'Fits'), { ok: true, payload: fits });
  });
});

describe('remembered trigger payloads', () => {
  const CREW = 'https://inbox.example.com';
  const payloads = (store: SharedValues) => ({
    get: (crew: string, ref: TriggerRef) => rememberedPayload(store, crew, ref),
    latest: (crew: string) => latestTrigger(store, crew),
    remember: (crew: string, ref: TriggerRef, payload: Record<string, InputValue>, now?: number) => rememberPayload(store, crew, ref, payload, now),
  });

  it('remembers the payload per crew and trigger, and which trigger was used last', async () => {
    const memory = payloads(memoryStore());
    assert.equal(memory.latest(CREW), undefined);
    assert.ok(await memory.remember(CREW, { app: 'gmail', trigger: 'new_email' }, { result: { id: 'a' } }, 1000));
    assert.ok(await memory.remember(CREW, { app: 'slack', trigger: 'new_message' }, { text: 'b' }, 2000));
    assert.ok(await memory.remember('https://other.example.com', { app: 'gmail', trigger: 'new_email' }, { other: true }, 3000));
    assert.deepEqual(memory.get(CREW, { app: 'gmail', trigger: 'new_email' }), { result: { id: 'a' } });
    assert.deepEqual(memory.get(CREW, { app: 'slack', trigger: 'new_message' }), { text: 'b' });
    assert.equal(memory.get(CREW, { app: 'gmail', trigger: 'thread_updated' }), undefined);
    assert.deepEqual(memory.latest(CREW), { app: 'slack', trigger: 'new_message' });
    await memory.remember(CREW, { app: 'gmail', trigger: 'new_email' }, { result: { id: 'c' } }, 4000);
    assert.deepEqual(memory.latest(CREW), { app: 'gmail', trigger: 'new_email' });
    assert.deepEqual(memory.get(CREW, { app: 'gmail', trigger: 'new_email' }), { result: { id: 'c' } });
  });

  it(`keeps the ${MAX_TRIGGERS_PER_CREW} most recent triggers per crew, never a large payload, and ignores damaged entries`, async () => {
    const store = memoryStore();
    const memory = payloads(store);
    for (let i = 0; i < MAX_TRIGGERS_PER_CREW + 5; i++) {
      await memory.remember(CREW, { app: 'app', trigger: `t${i}` }, { i }, i);
    }
    assert.equal(memory.get(CREW, { app: 'app', trigger: 't4' }), undefined, 'the oldest are dropped');
    assert.deepEqual(memory.get(CREW, { app: 'app', trigger: 't5' }), { i: 5 });
    assert.equal(await memory.remember(CREW, { app: 'app', trigger: 'big' }, { body: 'x'.repeat(MAX_REMEMBERED_PAYLOAD) }), false);
    assert.equal(memory.get(CREW, { app: 'app', trigger: 'big' }), undefined);
    await store.change('crewRuns.triggerPayloads', () => ({ [CREW]: { 'a/b': { payload: 'not an object', at: 1 }, 'a/c': { payload: { ok: 1 }, at: 'soon' }, 'a/d': { payload: { ok: 1 }, at: 2 } } }));
    assert.equal(memory.get(CREW, { app: 'a', trigger: 'b' }), undefined);
    assert.equal(memory.get(CREW, { app: 'a', trigger: 'c' }), undefined);
    assert.deepEqual(memory.get(CREW, { app: 'a', trigger: 'd' }), { ok: 1 });
  });
});

describe('the simulator’s trigger routes', () => {
  it('lists the demo apps and serves each trigger’s payload as an object; 404 without them, 405 for another method', () => {
    const apps = demoTriggerApps();
    assert.ok(apps.some((a) => a.connected && a.triggers.length >= 2), 'a connected app with two triggers');
    assert.ok(apps.some((a) => !a.connected), 'one not connected');
    const listed = triggerReply(apps, ['integrations', 'apps'], 'GET');
    assert.equal(listed.status, 200);
    assert.deepEqual(parseTriggerApps(listed.body).apps.map((a) => a.slug), ['gmail', 'google_calendar', 'slack']);
    for (const app of apps) {
      for (const trigger of app.triggers) {
        const reply = triggerReply(apps, ['integrations', app.slug, trigger.slug, 'payload'], 'GET');
        assert.equal(parseSamplePayload(reply.body, trigger.name).ok, true, `${app.slug}/${trigger.slug}`);
      }
    }
    assert.equal(triggerReply(apps, ['integrations', 'gmail', 'nope', 'payload'], 'GET').status, 404);
    assert.equal(triggerReply(false, ['integrations', 'apps'], 'GET').status, 404);
    assert.equal(triggerReply(apps, ['integrations', 'apps'], 'POST').status, 405);
  });

  it('the inbox crew quotes the fields of the payload it was given', () => {
    const crew = triggerDemoCrew();
    const payload = { result: { id: 'm-7', snippet: 'The edited snippet' } };
    const values = placeholderValues({ team: 'support', crewai_trigger_payload: payload });
    const first = crew.tasks[0].output;
    assert.equal(typeof first === 'string' ? interpolate(first, values) : '', 'Email m-7: “The edited snippet”');
    assert.equal(values['crewai_trigger_payload'], JSON.stringify(payload));
  });

  it('reads at most 200 fields of an object input by path', () => {
    const wide = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i]));
    const values = placeholderValues({ p: wide });
    assert.ok(Object.keys(values).length <= 201);
  });
});

describe('trigger apps through the client, against the simulator', function () {
  this.timeout(20_000);
  let sim: Simulator;
  let without: Simulator;
  const client = new PlatformClient();

  before(async () => {
    sim = await startSimulator({ crews: [], platform: { token: TOKEN } });
    without = await startSimulator({ crews: [], platform: { token: TOKEN, triggerApps: false } });
  });
  after(async () => {
    await client.dispose();
    await sim?.close();
    await without?.close();
  });

  const get =
    (s: () => Simulator, token = TOKEN): PlatformGet =>
    (path, signal, limits) =>
      client.getJson({ baseUrl: s().origin, token }, path, signal, limits);

  it('lists the organization’s apps and reads a payload, asking only the integrations routes', async () => {
    const { apps } = await listTriggerApps(get(() => sim));
    assert.deepEqual(apps.map((a) => [a.slug, a.connected]), [['gmail', true], ['google_calendar', true], ['slack', false]]);
    const gmail = apps[0];
    const payload = await fetchSamplePayload(get(() => sim), gmail.slug, gmail.triggers[0]);
    assert.ok(payload.ok);
    assert.match(JSON.stringify(payload.payload), /"snippet":/);
    assert.deepEqual(
      sim.requestLog.entries.map((e) => [e.path, e.status]),
      [
        ['/crewai_plus/api/v1/integrations/apps', 200],
        ['/crewai_plus/api/v1/integrations/gmail/new_email_received/payload', 200],
      ],
    );
  });

  it('a wrong token is 401, a platform without triggers 404, each a PlatformError of its kind', async () => {
    await assert.rejects(listTriggerApps(get(() => sim, 'wrong')), (e: unknown) => e instanceof PlatformError && e.kind === 'unauthorized');
    await assert.rejects(listTriggerApps(get(() => without)), (e: unknown) => e instanceof PlatformError && e.kind === 'notFound');
  });
});
