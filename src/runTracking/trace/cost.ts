// An estimate of what a run's model calls cost, from token counts and a price table. Only an estimate: providers
// change prices, bill tiers and batch discounts this cannot see, and a crew may name a model by a deployment alias.
import type { EventUsage } from '../../api/types';

/** USD per 1M tokens; `cachedInput` for prompt tokens read from the provider's cache (else they cost `input`). */
export interface ModelPrice {
  input: number;
  output: number;
  cachedInput?: number;
}

/** Prices by model name, matched tolerantly (findPrice). */
export type PriceTable = Record<string, ModelPrice>;

/**
 * List prices as published on 2025-08-01 by OpenAI, Anthropic and Google, an estimate and not a bill: USD per 1M
 * tokens, standard tier, the lower price where it depends on the prompt's length (Gemini Pro). Anthropic's cache
 * writes (1.25× input) are priced as plain input. A later model whose name extends a known one (`claude-sonnet-4-5`)
 * gets that one's price.
 */
export const DEFAULT_PRICES: Readonly<PriceTable> = {
  'gpt-4o': { input: 2.5, output: 10, cachedInput: 1.25 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cachedInput: 0.075 },
  'gpt-4.1': { input: 2, output: 8, cachedInput: 0.5 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cachedInput: 0.1 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4, cachedInput: 0.025 },
  'gpt-4-turbo': { input: 10, output: 30 },
  'gpt-3.5-turbo': { input: 0.5, output: 1.5 },
  o1: { input: 15, output: 60, cachedInput: 7.5 },
  'o1-mini': { input: 1.1, output: 4.4, cachedInput: 0.55 },
  o3: { input: 2, output: 8, cachedInput: 0.5 },
  'o3-mini': { input: 1.1, output: 4.4, cachedInput: 0.55 },
  'o4-mini': { input: 1.1, output: 4.4, cachedInput: 0.275 },
  'claude-3-5-sonnet': { input: 3, output: 15, cachedInput: 0.3 },
  'claude-3-7-sonnet': { input: 3, output: 15, cachedInput: 0.3 },
  'claude-sonnet-4': { input: 3, output: 15, cachedInput: 0.3 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cachedInput: 0.08 },
  'claude-3-haiku': { input: 0.25, output: 1.25, cachedInput: 0.03 },
  'claude-3-opus': { input: 15, output: 75, cachedInput: 1.5 },
  'claude-opus-4': { input: 15, output: 75, cachedInput: 1.5 },
  'gemini-2.0-flash': { input: 0.1, output: 0.4, cachedInput: 0.025 },
  'gemini-2.0-flash-lite': { input: 0.075, output: 0.3 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5, cachedInput: 0.075 },
  'gemini-2.5-pro': { input: 1.25, output: 10, cachedInput: 0.31 },
  'gemini-1.5-flash': { input: 0.075, output: 0.3 },
  'gemini-1.5-pro': { input: 1.25, output: 5 },
};

/** What a cost is estimated from: a model call (a span of kind `llm`), or run totals with the model they are of. */
export interface CostItem {
  model?: string;
  usage?: EventUsage;
  /** Spans of other kinds are skipped: only model calls are priced (a crew's totals would count them twice). */
  kind?: string;
}

export interface CostEstimate {
  /** Undefined when no tokens could be priced: then say tokens only. With `unpricedTokens`, a lower bound. */
  usd?: number;
  pricedTokens: number;
  /** Tokens of calls whose model has no price (or is unknown with no fallback), or that gave only a total. */
  unpricedTokens: number;
  /** Model names the table has no price for (the first few). */
  unknownModels: string[];
}

const MAX_UNKNOWN_MODELS = 20;
/** What may stand before a model's name in a longer one: a provider (`openai/`, `anthropic.`, `vertex_ai:`). */
const BEFORE = new Set(['/', '.', ':']);
/** What may follow it: a date or version (`-2024-08-06`, `@20240620`, `:0`). */
const AFTER = new Set(['-', '@', ':', '_', '/']);

/**
 * The price of `model`: the longest table name it contains, standing after nothing or a provider prefix and followed
 * by nothing or a version suffix (`openai/gpt-4o-2024-08-06` → `gpt-4o`; `gpt-4o-mini` → `gpt-4o-mini`, not
 * `gpt-4o`). Case and dots between digits do not matter (`claude-3.5-sonnet` is `claude-3-5-sonnet`).
 */
export function findPrice(model: string, table: Readonly<PriceTable> = DEFAULT_PRICES): { name: string; price: ModelPrice } | undefined {
  const wanted = canonical(model);
  let best: { name: string; price: ModelPrice; length: number } | undefined;
  for (const [name, price] of Object.entries(table)) {
    const key = canonical(name);
    if (key !== '' && (best === undefined || key.length > best.length) && containsAsName(wanted, key)) {
      best = { name, price, length: key.length };
    }
  }
  return best && { name: best.name, price: best.price };
}

/**
 * Estimates the cost of model calls. A call without a model is priced as `fallbackModel` when given; tokens that
 * cannot be priced are counted, never guessed.
 */
export function estimateCost(items: CostItem | readonly CostItem[], table: Readonly<PriceTable> = DEFAULT_PRICES, fallbackModel?: string): CostEstimate {
  const estimate: CostEstimate = { pricedTokens: 0, unpricedTokens: 0, unknownModels: [] };
  const prices = new Map<string, ModelPrice | undefined>();
  let usd = 0;
  let priced = false;
  for (const item of isItemList(items) ? items : [items]) {
    if ((item.kind !== undefined && item.kind !== 'llm') || !item.usage) {
      continue;
    }
    const prompt = count(item.usage.promptTokens);
    const completion = count(item.usage.completionTokens);
    const model = item.model?.trim() || fallbackModel?.trim() || undefined;
    if (model !== undefined && !prices.has(model)) {
      prices.set(model, findPrice(model, table)?.price);
      if (!prices.get(model) && estimate.unknownModels.length < MAX_UNKNOWN_MODELS) {
        estimate.unknownModels.push(model);
      }
    }
    const price = model === undefined ? undefined : prices.get(model);
    if (!price || prompt + completion === 0) {
      // No price, or only a total: which part was input is unknown, so it is not guessed.
      estimate.unpricedTokens += prompt + completion || count(item.usage.totalTokens);
      continue;
    }
    const cached = price.cachedInput === undefined ? 0 : Math.min(prompt, count(item.usage.cachedPromptTokens));
    usd += ((prompt - cached) * price.input + cached * (price.cachedInput ?? price.input) + completion * price.output) / 1_000_000;
    estimate.pricedTokens += prompt + completion;
    priced = true;
  }
  if (priced) {
    estimate.usd = usd;
  }
  return estimate;
}

function isItemList(items: CostItem | readonly CostItem[]): items is readonly CostItem[] {
  return Array.isArray(items);
}

function canonical(name: string): string {
  return name.trim().toLowerCase().replace(/(\d)\.(?=\d)/g, '$1-');
}

function containsAsName(model: string, key: string): boolean {
  for (let at = model.indexOf(key); at >= 0; at = model.indexOf(key, at + 1)) {
    const end = at + key.length;
    if ((at === 0 || BEFORE.has(model[at - 1])) && (end === model.length || AFTER.has(model[end]))) {
      return true;
    }
  }
  return false;
}

function count(value: number | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}
