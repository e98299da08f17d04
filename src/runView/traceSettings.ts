// The trace's cost settings (crewRuns.trace.modelPrices, crewRuns.trace.crewModels), read when a view needs them:
// the user's prices over the built-in, dated table; a crew's model by its URL or its name.

import * as vscode from 'vscode';
import { DEFAULT_PRICES, type PriceTable } from '../runTracking/trace/cost';
import { isPlainObject } from '../util/objects';
import type { TraceSettings } from './traceFeed';

export const TRACE_SETTINGS = 'crewRuns.trace';

export function readTraceSettings(): TraceSettings {
  const config = vscode.workspace.getConfiguration(TRACE_SETTINGS);
  const prices: PriceTable = { ...DEFAULT_PRICES };
  const own = config.get<unknown>('modelPrices');
  if (isPlainObject(own)) {
    for (const [model, price] of Object.entries(own)) {
      if (isPlainObject(price) && isPrice(price['input']) && isPrice(price['output'])) {
        prices[model] = { input: price['input'], output: price['output'], ...(isPrice(price['cachedInput']) ? { cachedInput: price['cachedInput'] } : {}) };
      }
    }
  }
  const models = config.get<unknown>('crewModels');
  const modelOf = isPlainObject(models) ? models : {};
  return {
    prices,
    modelFor: (crew) => {
      const model = modelOf[crew.url] ?? modelOf[crew.url.replace(/\/$/, '')] ?? modelOf[crew.name];
      return typeof model === 'string' && model.trim() ? model.trim() : undefined;
    },
  };
}

function isPrice(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}
