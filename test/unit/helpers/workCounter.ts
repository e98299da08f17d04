// The work a table reader does, counted without a clock: every character its string primitives look at
// (indexOf, includes, replaceAll, charCodeAt: what the readers scan with), every JSON.parse and whether it threw.
// Past a budget the next primitive throws, so that a quadratic reader fails at once instead of running for minutes
// (a throw from JSON.parse may be caught by the reader; the next scan is not).

export interface Work {
  visits: number;
  parses: number;
  throws: number;
}

export interface WorkBudget {
  visits?: number;
  throws?: number;
}

export async function countWork<T>(run: (work: Work) => Promise<T> | T, budget: WorkBudget = {}): Promise<{ result: T; work: Work }> {
  const work: Work = { visits: 0, parses: 0, throws: 0 };
  const proto = String.prototype;
  const { indexOf, includes, replaceAll, charCodeAt } = proto;
  const parse = JSON.parse;
  const check = () => {
    if (work.visits > (budget.visits ?? Infinity) || work.throws > (budget.throws ?? Infinity)) {
      throw new Error(`over the work budget: ${JSON.stringify(work)} (budget ${JSON.stringify(budget)})`);
    }
  };
  const startOf = (text: string, from?: number) => Math.max(0, Math.min(Math.trunc(from ?? 0) || 0, text.length));
  proto.indexOf = function (this: string, search: string, from?: number): number {
    const start = startOf(this, from);
    const at = indexOf.call(this, search, from);
    work.visits += at < 0 ? this.length - start : at - start + search.length;
    check();
    return at;
  };
  proto.includes = function (this: string, search: string, from?: number): boolean {
    const start = startOf(this, from);
    const at = indexOf.call(this, search, from);
    work.visits += at < 0 ? this.length - start : at - start + search.length;
    check();
    return includes.call(this, search, from);
  };
  proto.replaceAll = function (this: string, ...args: Parameters<string['replaceAll']>): string {
    work.visits += this.length;
    check();
    return replaceAll.apply(this, args as never);
  } as typeof replaceAll;
  proto.charCodeAt = function (this: string, index: number): number {
    work.visits++;
    check();
    return charCodeAt.call(this, index);
  };
  JSON.parse = function (text: string, reviver?: Parameters<typeof parse>[1]): unknown {
    work.parses++;
    work.visits += String(text).length;
    try {
      return parse(text, reviver);
    } catch (error) {
      work.throws++;
      throw error;
    }
  };
  try {
    return { result: await run(work), work };
  } finally {
    Object.assign(proto, { indexOf, includes, replaceAll, charCodeAt });
    JSON.parse = parse;
  }
}
