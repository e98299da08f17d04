// Send-once marks (runTracking/sendOnce.ts) in a folder of their own, removed when the test process ends.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SendOnce } from '../../../src/runTracking/sendOnce';

const folders: string[] = [];
process.once('exit', () => folders.forEach((folder) => fs.rmSync(folder, { recursive: true, force: true })));

/** A new folder of marks; `windowId` names the window that holds them. */
export function tempSends(windowId = 'window-1'): SendOnce {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'crew-runs-sends-'));
  folders.push(folder);
  return new SendOnce(folder, windowId);
}
