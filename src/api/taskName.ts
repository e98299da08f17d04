// The name given to a task the service did not name. The sentinel stays English: it is saved in run files and
// compared when tasks merge (runTracking/taskMerge.ts); only what is shown is translated.
import * as l10n from '@vscode/l10n';
import { UNNAMED_TASK } from './types';

export { UNNAMED_TASK } from './types';

/** A task's name as shown to the user. */
export function taskNameText(name: string): string {
  return name === UNNAMED_TASK ? l10n.t('Unnamed task') : name;
}
