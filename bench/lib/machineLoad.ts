// How busy the machine was with work other than the bench's own while a part ran: the CPU time of
// the whole machine (/proc/stat) minus that of the bench's process tree (this process and every
// descendant, looked at twice a second), in cores. A figure measured while other
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

const TICKS_PER_SECOND = 100; // USER_HZ on Linux.
/** How often the bench's processes are looked at: one that ends between two looks loses at most this much. */
const SAMPLE_MS = 500;

function machineBusyTicks(): number {
  const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal …: busy is all but idle and iowait.
  return cpu.reduce((sum, value, i) => (i === 3 || i === 4 ? sum : sum + (value || 0)), 0);
}

/** pid → [ppid, its own utime + stime, its start time] for every process. */
function processTable(): Map<number, [number, number, number]> {
  const table = new Map<number, [number, number, number]>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) {
      continue;
    }
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      // The command name may hold spaces and parentheses: fields start after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      table.set(Number(name), [Number(fields[1]), Number(fields[11]) + Number(fields[12]), Number(fields[19])]);
    } catch {
      // Gone meanwhile.
    }
  }
  return table;
}

/**
 * The bench's process tree, looked at every SAMPLE_MS: each process's own CPU time from when it was
 * first seen (or born) to when it was last seen. Own time only, never the children's it reaped: a
 * process that outlives its parent (a VS Code server's extension hosts once the server is killed) is
 * reaped by init, and its time would otherwise be lost, or counted twice.
 */
class TreeCpu {
  /** pid:start time → ticks when first seen (0 if born during the measurement), ticks when last seen. */
  private readonly seen = new Map<string, { first: number; last: number }>();

  constructor(private readonly root: number) {
    this.look(true);
  }

  /** Returns the tree's own ticks accounted so far. */
  look(initial = false): number {
    const table = processTable();
    const children = new Map<number, number[]>();
    for (const [pid, [ppid]] of table) {
      children.set(ppid, [...(children.get(ppid) ?? []), pid]);
    }
    const stack = [this.root];
    while (stack.length > 0) {
      const pid = stack.pop()!;
      const entry = table.get(pid);
      if (entry) {
        const key = `${pid}:${entry[2]}`;
        const known = this.seen.get(key);
        this.seen.set(key, { first: known?.first ?? (initial ? entry[1] : 0), last: entry[1] });
      }
      stack.push(...(children.get(pid) ?? []));
    }
    let ticks = 0;
    for (const { first, last } of this.seen.values()) {
      ticks += last - first;
    }
    return initial ? 0 : ticks;
  }
}

/** Starts measuring; the returned function ends it and says what the part ran beside. */
export function measureLoad(): () => LoadReading | undefined {
  if (process.platform !== 'linux') {
    return () => undefined;
  }
  let tree: TreeCpu;
  let machineStart: number;
  const startedAt = Date.now();
  try {
    tree = new TreeCpu(process.pid);
    machineStart = machineBusyTicks();
  } catch {
    return () => undefined;
  }
  const timer = setInterval(() => {
    try {
      tree.look();
    } catch {
      // /proc unreadable for a moment: the next look makes up for it.
    }
  }, SAMPLE_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    try {
      const benchTicks = tree.look();
      const machineTicks = machineBusyTicks() - machineStart;
      const seconds = (Date.now() - startedAt) / 1000;
      if (seconds <= 0) {
        return undefined;
      }
      const machine = machineTicks / TICKS_PER_SECOND / seconds;
      const bench = Math.max(0, benchTicks / TICKS_PER_SECOND / seconds);
      return { otherCores: Math.max(0, machine - bench), benchCores: bench, seconds };
    } catch {
      return undefined;
    }
  };
}

/** "other work 0.1 of 2 cores", with "HEAVY LOAD" when at or above HEAVY_OTHER_CORES. */
export function describeLoad(reading: LoadReading): string {
  const cores = os.cpus().length;
  const heavy = reading.otherCores >= HEAVY_OTHER_CORES ? ' — HEAVY LOAD: this part’s figures were measured beside other work' : '';
  return `other work ${reading.otherCores.toFixed(2)} of ${cores} cores, the bench ${reading.benchCores.toFixed(2)}${heavy}`;
}
