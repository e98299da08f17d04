// Entry of dist/client.js (esbuild.js, lazyModules): the crew API client and the reading of status bodies,
// loaded on first use: by the first request (lazyClient.ts) or the first status snapshot folded into a run
// (runs/transitions.ts; snapshots come from the client, so it is loaded by then in the extension).
export { CrewClient } from './client';
export { describeChanges, mergeTaskOutputs } from './normalize';
