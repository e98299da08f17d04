// esbuild.js bundles the module after `worker-source:` on its own and imports its code as a string.
declare module 'worker-source:*' {
  const source: string;
  export default source;
}
