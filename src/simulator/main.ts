// CLI: `npm run simulator -- [flags]` (or `node dist/simulator-cli.js [flags]`, built by esbuild.js). Starts the simulator on
// loopback, prints each crew's URL and tokens, and stops cleanly on Ctrl+C.

import { errorText } from '../util/errorText';
import { parseCliArgs, USAGE } from './cliArgs';
import { startSimulator } from './server';
import type { SimulatorOptions } from './types';

async function main(): Promise<void> {
  let options: SimulatorOptions | 'help';
  try {
    options = parseCliArgs(process.argv.slice(2));
  } catch (error) {
    console.error(`${errorText(error)}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (options === 'help') {
    console.log(USAGE);
    return;
  }
  const sim = await startSimulator(options);
  const dialect = options.dialect ?? 'live';
  console.log(`Crew simulator listening on ${sim.origin} (${dialect} dialect, time scale ${options.timeScale ?? 1})\n`);
  for (const crew of sim.crews) {
    console.log(`  ${crew.name} (${crew.kind})`);
    console.log(`    URL:        ${crew.url}`);
    console.log(`    org token:  ${crew.orgToken}`);
    console.log(`    user token: ${crew.userToken}\n`);
  }
  const first = sim.crews[0];
  if (first) {
    console.log(`Try: curl -H "Authorization: Bearer ${first.orgToken}" ${first.url}/inputs\n`);
  }
  console.log('Press Ctrl+C to stop.');

  let stopping = false;
  const stop = (): void => {
    if (stopping) {
      process.exit(1); // a second Ctrl+C: do not wait any longer
    }
    stopping = true;
    void sim.close().then(() => {
      console.log('\nSimulator stopped.');
      process.exit(0);
    });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

void main();
