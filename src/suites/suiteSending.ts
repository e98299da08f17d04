// A suite item's kickoff through the one kickoff path (startRun: recorded at once, watched by the poller,
// shown in the crews tree as an eval run), and what a failure means for the suite run, by the send-once rule
// (runTracking/sendOnce.ts queuedKickoffFailure): a kickoff that may have reached the crew is never sent again.
import * as l10n from '@vscode/l10n';
import type { Crew } from '../crews/crewConfig';
import { queuedKickoffFailure } from '../runTracking/sendOnce';
import { startRun } from '../runTracking/startRun';
import type { Services } from '../services';
import { describeError } from '../ui/errorMessages';
import { errorText } from '../util/errorText';
import type { SuiteCase, SuiteItem } from './core/types';
import type { ItemSendOutcome } from './suiteRunner';

export async function sendSuiteItem(services: Services, crew: Crew, suiteName: string, suiteCase: SuiteCase, item: SuiteItem, place: number): Promise<ItemSendOutcome> {
  try {
    const run = await startRun(services, crew, suiteCase.inputs, undefined, {
      rememberInputs: false,
      logContext: `(suite ${suiteName}, ${item.id})`,
      batch: { source: `${suiteName} › ${item.id}`, row: place, suite: true },
    });
    return { kind: 'sent', runId: run.id };
  } catch (error) {
    const message = describeError(error, crew.name);
    services.log.warn(`[${crew.name}] Suite ${suiteName}, ${item.id}: ${errorText(error)}`);
    const failure = queuedKickoffFailure(error);
    switch (failure.kind) {
      case 'uncertain':
        return { kind: 'uncertain', message: l10n.t('{0} The run may or may not have started: it is not sent again. If it did, it is in the Crew Runs view or the crew\'s dashboard.', message) };
      case 'refused':
        return { kind: 'refused', message: l10n.t('The crew refused the kickoff: {0}', message) };
      default:
        return { ...failure, message };
    }
  }
}
