// Issue 49: an estimated cost of a run's model calls, from a price table keyed by model name.
import * as assert from 'node:assert/strict';
import type { RunEvent } from '../../src/api/types';
import { DEFAULT_PRICES, estimateCost, findPrice, type PriceTable } from '../../src/runTracking/trace/cost';
import { Trace } from '../../src/runTracking/trace/traceModel';

const TABLE: PriceTable = {
  'gpt-4o': { input: 2.5, output: 10, cachedInput: 1.25 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'claude-3-5-sonnet': { input: 3, output: 15, cachedInput: 0.3 },
  'gemini-2.0-flash': { input: 0.1, output: 0.4 },
};

const near = (actual: number | undefined, expected: number) => assert.ok(actual !== undefined && Math.abs(actual - expected) < 1e-9, `${actual} ≠ ${expected}`);

describe('trace cost estimate (issue 49)', () => {
  it('finds a model through provider prefixes and dated or versioned suffixes; the longest name wins', () => {
    const cases: [string, string | undefined][] = [
      ['gpt-4o', 'gpt-4o'],
      ['GPT-4o', 'gpt-4o'],
      ['openai/gpt-4o-2024-08-06', 'gpt-4o'],
      ['azure/gpt-4o-mini', 'gpt-4o-mini'],
      ['gpt-4o-mini-2024-07-18', 'gpt-4o-mini'],
      ['anthropic/claude-3-5-sonnet-20241022', 'claude-3-5-sonnet'],
      ['anthropic/claude-3.5-sonnet', 'claude-3-5-sonnet'],
      ['bedrock/us.anthropic.claude-3-5-sonnet-20240620-v1:0', 'claude-3-5-sonnet'],
      ['vertex_ai/claude-3-5-sonnet@20240620', 'claude-3-5-sonnet'],
      ['gemini/gemini-2.0-flash-001', 'gemini-2.0-flash'],
      ['chatgpt-4o-latest', undefined],
      ['gpt-4', undefined],
      ['ollama/llama3', undefined],
      ['', undefined],
    ];
    assert.deepEqual(
      cases.map(([model]) => [model, findPrice(model, TABLE)?.name]),
      cases,
    );
  });

  it('prices input, cached input and output per million tokens', () => {
    const estimate = estimateCost({ model: 'openai/gpt-4o-2024-08-06', usage: { promptTokens: 1_000_000, cachedPromptTokens: 400_000, completionTokens: 100_000 } }, TABLE);
    near(estimate.usd, 0.6 * 2.5 + 0.4 * 1.25 + 0.1 * 10);
    assert.deepEqual({ ...estimate, usd: undefined }, { usd: undefined, pricedTokens: 1_100_000, unpricedTokens: 0, unknownModels: [] });
    // Without a cached price, cached prompt tokens cost as much as the others.
    near(estimateCost({ model: 'gpt-4o-mini', usage: { promptTokens: 1_000_000, cachedPromptTokens: 500_000 } }, TABLE).usd, 0.15);
  });

  it('prices the model calls of a trace, and only them', () => {
    let n = 0;
    const ev = (type: string, fields: Partial<RunEvent>): RunEvent => ({ key: `id:e${++n}`, id: `e${n}`, type, at: n, ...fields });
    const trace = new Trace();
    trace.add([
      ev('crew_kickoff_started', {}),
      ev('llm_call_started', { callId: '1', model: 'anthropic/claude-3-5-sonnet-20241022' }),
      ev('llm_call_completed', { callId: '1', usage: { promptTokens: 2_000, completionTokens: 1_000 } }),
      ev('llm_call_started', { callId: '2', model: 'my-finetune' }),
      ev('llm_call_completed', { callId: '2', usage: { promptTokens: 10, completionTokens: 5 } }),
      ev('crew_kickoff_completed', { usage: { promptTokens: 1e9, completionTokens: 1e9 } }),
    ]);
    const estimate = estimateCost(trace.spans, TABLE);
    near(estimate.usd, (2_000 * 3 + 1_000 * 15) / 1e6);
    assert.deepEqual([estimate.pricedTokens, estimate.unpricedTokens, estimate.unknownModels], [3_000, 15, ['my-finetune']]);
  });

  it('prices calls without a model as the fallback model; without one, says tokens only', () => {
    const totals = { usage: { promptTokens: 1_000_000, completionTokens: 1_000_000 } };
    near(estimateCost(totals, TABLE, 'gemini-2.0-flash').usd, 0.5);
    assert.deepEqual(estimateCost(totals, TABLE), { pricedTokens: 0, unpricedTokens: 2_000_000, unknownModels: [] });
    assert.deepEqual(estimateCost(totals, TABLE, 'my-own-model'), { pricedTokens: 0, unpricedTokens: 2_000_000, unknownModels: ['my-own-model'] });
    // A call's own model wins over the fallback.
    near(estimateCost({ model: 'gpt-4o', ...totals }, TABLE, 'gemini-2.0-flash').usd, 12.5);
  });

  it('counts tokens it cannot split into input and output, never guesses, and lists unknown models once', () => {
    const estimate = estimateCost(
      [
        { model: 'gpt-4o', usage: { totalTokens: 500 } },
        { model: 'mystery', usage: { promptTokens: 5, completionTokens: 5 } },
        { model: 'mystery', usage: { promptTokens: -5, completionTokens: Number.NaN } },
        { model: 'gpt-4o' },
      ],
      TABLE,
    );
    assert.deepEqual(estimate, { pricedTokens: 0, unpricedTokens: 510, unknownModels: ['mystery'] });
  });

  it('the default table prices the common models, tolerant of how crews name them', () => {
    for (const model of ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'openai/gpt-4.1-mini', 'o3-mini', 'anthropic/claude-3-7-sonnet-20250219', 'claude-sonnet-4-20250514', 'gemini/gemini-2.0-flash']) {
      assert.ok(findPrice(model), model);
    }
    assert.equal(findPrice('openai/gpt-4.1-mini-2025-04-14')?.name, 'gpt-4.1-mini');
    assert.equal(findPrice('o3-mini-2025-01-31')?.name, 'o3-mini');
    for (const [name, price] of Object.entries(DEFAULT_PRICES)) {
      assert.ok(price.input > 0 && price.output >= price.input && (price.cachedInput ?? 0) <= price.input, name);
    }
  });
});
