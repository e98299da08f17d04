// Where the time of a CPU profile went (the harness writes them with CREW_RUNS_BENCH_PROFILE=1):
//   node out-bench/bench/lib/profileSummary.js bench-results/profiles [top]
// Self time by script and by function, averaged over the .cpuprofile files of the folder.
import * as fs from 'node:fs';
import * as path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export function summarise(files: string[], top = 25): string {
  const byScript = new Map<string, number>();
  const byFunction = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, us: number) => map.set(key, (map.get(key) ?? 0) + us);
  for (const file of files) {
    const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
    const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
    profile.samples.forEach((id, i) => {
      const frame = nodes.get(id)!.callFrame;
      const script = frame.url ? path.basename(frame.url) : `(${frame.functionName || 'native'})`;
      add(byScript, script, profile.timeDeltas[i]);
      add(byFunction, `${frame.functionName || '(anonymous)'} ${script}:${frame.lineNumber + 1}:${frame.columnNumber + 1}`, profile.timeDeltas[i]);
    });
  }
  const table = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([key, us]) => `${(us / 1000 / files.length).toFixed(2).padStart(8)} ms  ${key}`);
  return [`${files.length} profile(s), ms per profile`, 'by script:', ...table(byScript), 'by function:', ...table(byFunction)].join('\n');
}

if (require.main === module) {
  const dir = process.argv[2] ?? 'bench-results/profiles';
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).map((f) => path.join(dir, f));
  console.log(summarise(files, Number(process.argv[3] ?? 25)));
}
