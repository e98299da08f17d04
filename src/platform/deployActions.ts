// What a redeploy and its CI step need and activation does not: sending it once, following it, Copy CI Redeploy
// Step. A bundle of its own (dist/deployActions.js, esbuild.js), loaded on first use; it holds only functions;
// what it needs of the main bundle's objects (the client, the marks, the health) is handed in. DeploymentHealth
// loads it as './redeployFollow' and './redeploySend' (esbuild.js maps both here): neither imports it back.
export { followRedeploy } from './redeployFollow';
export { redeployUnderWay, sendRedeploy } from './redeploySend';
export { redeployCrew } from './redeploy';
export { copyCiRedeployStep } from './ciStepCommand';
