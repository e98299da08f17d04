// Child process of sharedFiles.test.ts (compiled by tsc, run with plain node): a window that adds 1 to a shared counter
// `<times>` times through a real SharedFiles, each a read-modify-write from what is saved.
//
//   node sharedFilesWriter.js <dir> <times>
import { SharedFiles } from '../../../src/storage/sharedFiles';

async function main(): Promise<void> {
  const [dir, times] = process.argv.slice(2);
  const files = new SharedFiles(dir, { info: () => undefined, warn: (m) => console.error(m), error: (m) => console.error(m) });
  for (let i = 0; i < Number(times); i++) {
    await files.change('counter.json', (saved) => JSON.stringify({ count: (saved === undefined ? 0 : (JSON.parse(saved) as { count: number }).count) + 1, by: process.pid }));
  }
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
