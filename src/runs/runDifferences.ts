// What tells runs apart in a run picker when their labels are the same (a preset, Run Again): the first input
// whose value differs among them. Pure, tested in plain Node.
import { type Inputs, inputLine, sameValue } from '../api/inputValues';

export interface RunInputs {
  id: string;
  crewUrl: string;
  label: string;
  inputs: Inputs;
}

/** Per run id: the first input (in the run's own order) whose value is not the same in every run of its look-alikes. */
export function differingInputs(runs: readonly RunInputs[]): Map<string, { name: string; value: string }> {
  const groups = new Map<string, RunInputs[]>();
  for (const run of runs) {
    const key = `${run.crewUrl}\n${run.label}`;
    groups.set(key, [...(groups.get(key) ?? []), run]);
  }
  const result = new Map<string, { name: string; value: string }>();
  for (const group of groups.values()) {
    if (group.length < 2) {
      continue;
    }
    for (const run of group) {
      const name = Object.keys(run.inputs).find((n) => group.some((other) => !sameValue(other.inputs[n] ?? '', run.inputs[n])));
      if (name !== undefined) {
        result.set(run.id, { name, value: inputLine(run.inputs[name]) });
      }
    }
  }
  return result;
}

/** Runs whose label and crew another run shares: only their inputs need reading. */
export function lookAlikes<T extends Pick<RunInputs, 'crewUrl' | 'label'>>(runs: readonly T[]): T[] {
  const counts = new Map<string, number>();
  for (const run of runs) {
    const key = `${run.crewUrl}\n${run.label}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return runs.filter((run) => (counts.get(`${run.crewUrl}\n${run.label}`) ?? 0) > 1);
}
