// Which suite items a test run request chose: whole suites, cases (every repeat) or single repeats, less what it
// excludes at any of those levels. Plain Node: the Test Explorer hands over what its test items stand for.
import type { SuiteItem } from './core/types';

/** What one test item stands for: a suite (by its key), one of its cases, or one run of a case. */
export interface ItemChoice {
  suiteKey: string;
  caseName?: string;
  /** A repeat's item id (`name #2`); the case's own name, or undefined, for the whole case. */
  itemId?: string;
}

/**
 * The chosen items per suite key, each suite's in its own order; suites with none left out. `include` undefined:
 * every suite (the Testing view's Run All).
 */
export function chooseItems(suites: readonly { key: string; items: readonly SuiteItem[] }[], include: readonly ItemChoice[] | undefined, exclude: readonly ItemChoice[] = []): Map<string, SuiteItem[]> {
  const chosen = new Map<string, { all: boolean; cases: Set<string>; items: Set<string> }>();
  for (const choice of include ?? suites.map((suite): ItemChoice => ({ suiteKey: suite.key }))) {
    let entry = chosen.get(choice.suiteKey);
    if (!entry) {
      entry = { all: false, cases: new Set(), items: new Set() };
      chosen.set(choice.suiteKey, entry);
    }
    if (choice.caseName === undefined) {
      entry.all = true;
    } else if (choice.itemId !== undefined && choice.itemId !== choice.caseName) {
      entry.items.add(choice.itemId);
    } else {
      entry.cases.add(choice.caseName);
    }
  }
  const excluded = new Set(exclude.map((choice) => [choice.suiteKey, choice.caseName, choice.itemId !== choice.caseName ? choice.itemId : undefined].filter((part) => part !== undefined).join('\n')));
  const isExcluded = (key: string, item: SuiteItem) => excluded.has(key) || excluded.has(`${key}\n${item.caseName}`) || excluded.has(`${key}\n${item.caseName}\n${item.id}`);
  const result = new Map<string, SuiteItem[]>();
  for (const suite of suites) {
    const entry = chosen.get(suite.key);
    if (!entry) {
      continue;
    }
    const items = suite.items.filter((item) => (entry.all || entry.cases.has(item.caseName) || entry.items.has(item.id)) && !isExcluded(suite.key, item));
    if (items.length > 0) {
      result.set(suite.key, items);
    }
  }
  return result;
}
