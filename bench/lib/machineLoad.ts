// How busy the machine was with work other than the bench's own while a part ran: the CPU time of
// the whole machine (/proc/stat) minus that of the bench's process tree (this process and every
// descendant, the children they already reaped included), in cores. A figure measured while other
// work took a real share of the cores is marked as such in the report, not silently met or missed.
// Linux only; elsewhere nothing is measured.
import * as fs from 'node:fs';
import * as os from 'node:os';

/** Other work at or above this many cores, on average over a part, marks its rows "under load". */
export const HEAVY_OTHER_CORES = 0.5;

export interface LoadReading {
  /** Cores busy with work outside the bench's process tree, on average over the part. */
  otherCores: number;
  /** Cores busy with the bench's own processes, on average. */
  benchCores: number;
  seconds: number;
}

interface Sample {
  at: number;
  machineTicks: number;
  treeTicks: number;
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux.

function machineBusyTicks(): number {
  const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal …: busy is all but idle and iowait.
  return cpu.reduce((sum, value, i) => (i === 3 || i === 4 ? sum : sum + (value || 0)), 0);
}

/** pid → [ppid, utime + stime + cutime + cstime] for every process. */
function processTable(): Map<number, [number, number]> {
  const table = new Map<number, [number, number]>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) {
      continue;
    }
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      // The command name may hold spaces and parentheses: fields start after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      table.set(Number(name), [Number(fields[1]), Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])]);
    } catch {
      // Gone meanwhile.
    }
  }
  return table;
}

function treeTicks(root: number): number {
  const table = processTable();
  const children = new Map<number, number[]>();
  for (const [pid, [ppid]] of table) {
    children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  let ticks = 0;
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    ticks += table.get(pid)?.[1] ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return ticks;
}

function sample(): Sample | undefined {
  if (process.platform !== 'linux') {
    return undefined;
  }
  try {
    return { at: Date.now(), machineTicks: machineBusyTicks(), treeTicks: treeTicks(process.pid) };
  } catch {
    return undefined;
  }
}

/** Starts measuring; the returned function ends it and says what the part ran beside. */
export function measureLoad(): () => LoadReading | undefined {
  const start = sample();
  return () => {
    const end = sample();
    if (!start || !end || end.at <= start.at) {
      return undefined;
    }
    const seconds = (end.at - start.at) / 1000;
    const machine = (end.machineTicks - start.machineTicks) / TICKS_PER_SECOND / seconds;
    const bench = Math.max(0, (end.treeTicks - start.treeTicks) / TICKS_PER_SECOND / seconds);
    return { otherCores: Math.max(0, machine - bench), benchCores: bench, seconds };
  };
}

/** "other work 0.1 of 2 cores", with "HEAVY LOAD" when at or above HEAVY_OTHER_CORES. */
export function describeLoad(reading: LoadReading): string {
  const cores = os.cpus().length;
  const heavy = reading.otherCores >= HEAVY_OTHER_CORES ? ' — HEAVY LOAD: this part’s figures were measured beside other work' : '';
  return `other work ${reading.otherCores.toFixed(2)} of ${cores} cores, the bench ${reading.benchCores.toFixed(2)}${heavy}`;
}
