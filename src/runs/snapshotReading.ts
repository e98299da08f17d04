// Entry of dist/snapshots.js (esbuild.js, lazyModules): merging a status's tasks into a run and naming what
// changed, loaded by the first status folded into a run (transitions.ts), so activation does not carry it.
export { describeChanges } from './changes';
export { mergeTaskOutputs } from './taskMerge';
