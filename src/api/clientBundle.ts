// Entry of dist/client.js (esbuild.js, lazyModules): the crew API client and the reading of every body,
// loaded by the first request (lazyClient.ts).
export { CrewClient } from './client';
