// The machine's yardstick for rows whose work has no natural reference: JSON.parse of one fixed 1 MB document
// (2,000 run-like records) four times, timed in the same process just before the figure it scales. A shared
// machine slows both alike, so "≤ N yardsticks" holds on a busy 2-core machine wherever it holds on a quiet one.
import { performance } from 'node:perf_hooks';

let text: string | undefined;

/** About 1 MB of JSON, the same on every machine and in every run. */
function yardstickText(): string {
  text ??= JSON.stringify(
    Array.from({ length: 2000 }, (_, i) => ({
      id: `run-${i}`,
      crew: { name: `Crew ${i % 17}`, url: `https://crew-${i % 17}.example.com` },
      state: ['running', 'succeeded', 'failed', 'waiting'][i % 4],
      inputs: { topic: `topic ${i}`, depth: i % 5, tags: ['a', 'b', 'c'].slice(0, (i % 3) + 1) },
      output: `Report ${i}: `.padEnd(380, 'the crew wrote a paragraph. '),
    })),
  );
  return text;
}

/** The yardstick's median over `rounds` rounds of four parses, in ms, and each round. */
export function yardstick(rounds = 7): { ms: number; rounds: number[] } {
  const source = yardstickText();
  JSON.parse(source); // warm: the first parse of a process is not what a figure's work pays
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    for (let n = 0; n < 4; n++) {
      JSON.parse(source);
    }
    times.push(performance.now() - started);
  }
  const sorted = [...times].sort((a, b) => a - b);
  return { ms: sorted[Math.floor(sorted.length / 2)], rounds: times };
}
