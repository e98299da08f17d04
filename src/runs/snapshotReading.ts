// Entry of dist/snapshots.js (esbuild.js, lazyModules): folding a status into a run, merging its tasks and
// naming what changed, loaded by the first status folded into a run (transitions.ts), so activation does not carry it.
export { describeChanges } from './changes';
export { foldSnapshot } from './snapshotFold';
export { mergeTaskOutputs } from './taskMerge';
