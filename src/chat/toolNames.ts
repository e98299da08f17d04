// The crew tools' names: the same in package.json (contributes.languageModelTools), registration and results.
export const TOOL = {
  listCrews: 'crewRuns_listCrews',
  describeInputs: 'crewRuns_describeInputs',
  kickoff: 'crewRuns_kickoff',
  getRun: 'crewRuns_getRun',
  listRuns: 'crewRuns_listRuns',
  giveFeedback: 'crewRuns_giveFeedback',
  listDeployments: 'crewRuns_listDeployments',
  deploymentLogs: 'crewRuns_deploymentLogs',
  redeploy: 'crewRuns_redeploy',
  chatWithFlow: 'crewRuns_chatWithFlow',
} as const;

export type ToolName = (typeof TOOL)[keyof typeof TOOL];
