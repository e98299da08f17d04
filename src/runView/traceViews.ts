// What the trace's commands need and the run view's start does not: the span tree built on the host, the comparison
// of two runs, Export Trace. A bundle of its own (dist/traceViews.js, esbuild.js), required on first use.
export { comparisonContent } from './traceComparisonContent';
export { exportTrace } from './traceExport';
