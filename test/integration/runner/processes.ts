// Process plumbing for the runner: free ports, process groups, leftover checks.
import { execFileSync } from 'child_process';
import * as net from 'net';

export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

interface ProcessRow {
  pid: number;
  pgid: number;
  state: string;
  args: string;
}

function listProcesses(): ProcessRow[] {
  const output = execFileSync('ps', ['-eo', 'pid=,pgid=,stat=,args='], { encoding: 'utf8' });
  return output
    .split('\n')
    .map((line) => line.trim().match(/^(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/))
    .filter((match): match is RegExpMatchArray => match !== null)
    .map((match) => ({ pid: Number(match[1]), pgid: Number(match[2]), state: match[3], args: match[4] }));
}

/** Live (non-zombie) processes in the group or whose command line mentions `marker`. */
export function survivors(groupId: number | undefined, marker?: string): string[] {
  return listProcesses()
    .filter((row) => row.pid !== process.pid && !row.state.startsWith('Z'))
    .filter((row) => row.pgid === groupId || (marker !== undefined && row.args.includes(marker)))
    .filter((row) => !row.args.startsWith('ps '))
    .map((row) => `${row.pid} ${row.args.slice(0, 160)}`);
}

function signalGroup(groupId: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-groupId, signal);
    return true;
  } catch {
    return false; // ESRCH: the group is gone.
  }
}

/** SIGTERM the group, wait up to `graceMs`, then SIGKILL whatever is left. */
export async function killProcessGroup(groupId: number, graceMs = 3000): Promise<void> {
  if (!signalGroup(groupId, 'SIGTERM')) {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    // Zombies still count for kill(0), so look at the process table instead.
    if (survivors(groupId).length === 0) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  signalGroup(groupId, 'SIGKILL');
}

/** Live processes whose command line mentions `marker` (e.g. a run's temp folder), by pid. */
export function pidsMentioning(marker: string): number[] {
  return listProcesses()
    .filter((row) => row.pid !== process.pid && !row.state.startsWith('Z') && !row.args.startsWith('ps ') && row.args.includes(marker))
    .map((row) => row.pid);
}
