import * as vscode from 'vscode';
import type { RunDetails, RunRecord } from '../runTracking/model';
import { oneLine } from '../util/inertText';
import type { NoticeRelay, RelayedNotice } from '../storage/noticeRelay';
import type { PollResult, TokenNeed } from '../runTracking/poller';
import type { Services } from '../services';
import { showError, showInfo, showWarning } from '../ui/notify';
import { changeLines } from './runChangeText';

type NotificationLevel = 'all' | 'failuresAndFeedback' | 'off';

/** Largest final output written to the log; the run view and Open Output in Editor show all of it. */
const MAX_LOGGED_OUTPUT = 20_000;
/** A failure notice's reason: its error's first line, cut to this. */
const MAX_REASON_CHARS = 200;

/**
 * Tells the user what the runs polled by this window do: a log line per meaningful change, the
 * final output once, a notification when a run ends or waits for feedback. Only the write that made a
 * change decides a notice, and a change is written once across windows (compare-and-set on the run's
 * record file, RunStore.write): a window whose copy is stale finds the change already stored and says
 * nothing. The notice is shown in the focused window when another one has the focus (NoticeRelay).
 * A run that really leaves a state and comes back to it (a new feedback round) is announced again.
 */
export class RunReporter implements vscode.Disposable {
  /** Last problem logged per run, so a flaky network does not flood the log with the same line. */
  private readonly lastProblem = new Map<string, string>();
  private readonly disposables: vscode.Disposable[] = [];

  /** `activeRunView`: the run whose view the user has in front, if any (its own page says how it ended). */
  constructor(
    private readonly services: Services,
    private readonly relay: NoticeRelay,
    private readonly activeRunView: () => string | undefined = () => undefined,
  ) {
    this.disposables.push(
      services.poller.onDidPoll((result) => void this.onPoll(result)),
      services.poller.onDidNeedToken((need) => void this.onNeedToken(need)),
      relay.listen((notice) => void this.onRelayed(notice)),
    );
  }

  dispose(): void {
    vscode.Disposable.from(...this.disposables).dispose();
  }

  private async onPoll(result: PollResult): Promise<void> {
    const run = this.services.runs.get(result.runId);
    if (!run) {
      return;
    }
    const prefix = `[${run.crewName} · ${run.label}]`;
    if (!result.ok) {
      const problem = result.error ?? 'unknown problem';
      if (this.lastProblem.get(run.id) !== problem) {
        this.lastProblem.set(run.id, problem);
        this.services.log.warn(`${prefix} Status check failed: ${problem} (still watching)`);
      }
      return;
    }
    if (this.lastProblem.delete(run.id)) {
      this.services.log.info(`${prefix} Status checks work again.`);
    }
    for (const { text, error } of changeLines(result.changes ?? [])) {
      // A run's error is worth the error level, and once.
      this.services.log[error ? 'error' : 'info'](`${prefix} ${text}`);
    }
    // The store decided the notice against the run's latest stored version: only the window whose
    // write ended the run (or made it wait) hears of it, however the runs move between windows.
    if (result.notice === 'ended') {
      const details = await this.services.runs.readDetails(run.id);
      this.logFinalOutput(run, details, prefix);
      // A batch's rows end quietly: the batch says how they went, once, at its end.
      if (!run.batch && (await this.relay.deliver({ runId: run.id, kind: 'ended' })) === 'here') {
        this.notify(run, run.state === 'succeeded' ? 'success' : 'failure', details.error);
      }
    } else if (result.notice === 'waiting' && (await this.relay.deliver({ runId: run.id, kind: 'waiting' })) === 'here') {
      this.notify(run, 'feedback');
    }
  }

  /** A notice another window decided, for this focused window: the run as its record file has it now. */
  private async onRelayed({ runId, kind }: RelayedNotice): Promise<void> {
    await this.services.runs.refresh(runId);
    const run = this.services.runs.get(runId);
    if (!run) {
      return;
    }
    if (kind === 'waiting') {
      this.notify(run, 'feedback');
      return;
    }
    const details = await this.services.runs.readDetails(runId);
    this.services.log.info(`[${run.crewName} · ${run.label}] ${run.state === 'succeeded' ? 'Succeeded' : run.state === 'cancelled' ? 'Cancelled' : 'Failed'} (polled in another window).`);
    this.notify(run, run.state === 'succeeded' ? 'success' : 'failure', details.error);
  }

  private logFinalOutput(run: RunRecord, details: RunDetails, prefix: string): void {
    if (run.state === 'succeeded' && details.finalOutput) {
      const text = details.finalOutput.text;
      const shown = text.length > MAX_LOGGED_OUTPUT ? `${text.slice(0, MAX_LOGGED_OUTPUT)}\n… (${text.length - MAX_LOGGED_OUTPUT} more characters: open the run to see all)` : text;
      this.services.log.info(`${prefix} Final output:\n${shown}`);
    }
  }

  /** `error`: the failed run's error, whose first line says why in the notice (all of it is in the run view and the log). */
  private notify(run: RunRecord, kind: 'success' | 'failure' | 'feedback', error?: string): void {
    const level = vscode.workspace.getConfiguration('crewRuns').get<NotificationLevel>('notifications', 'all');
    if (level === 'off' || (level === 'failuresAndFeedback' && kind === 'success')) {
      return;
    }
    // The run's view in front says it all: no "succeeded" toast, and no Open Run for what is open.
    const inFront = this.activeRunView() === run.id;
    if (inFront && kind === 'success') {
      return;
    }
    const open = vscode.l10n.t('Open Run');
    const opens = inFront ? [] : [open];
    const showOutput = vscode.l10n.t('Show Output');
    const showLog = vscode.l10n.t('Show Log');
    const feedback = vscode.l10n.t('Give Feedback');
    let shown: Thenable<string | undefined>;
    if (kind === 'success') {
      shown = showInfo(vscode.l10n.t('{0} on {1} succeeded.', run.label, run.crewName), open, showOutput);
    } else if (kind === 'failure') {
      // A failed run has no output to show: the log has its error and what led to it.
      const reason = error?.split('\n').find((line) => line.trim());
      shown = showError(
        run.state === 'cancelled'
          ? vscode.l10n.t('{0} on {1} was cancelled.', run.label, run.crewName)
          : reason
            ? vscode.l10n.t('{0} on {1} failed: {2}', run.label, run.crewName, oneLine(reason, MAX_REASON_CHARS))
            : vscode.l10n.t('{0} on {1} failed.', run.label, run.crewName),
        ...opens,
        showLog,
      );
    } else {
      shown = showWarning(vscode.l10n.t('{0} on {1} is waiting for your feedback.', run.label, run.crewName), feedback, ...opens);
    }
    void shown.then((choice) => {
      if (choice === open) {
        void vscode.commands.executeCommand('crewRuns.openRun', { runId: run.id });
      } else if (choice === showOutput || choice === showLog) {
        this.services.log.show(true);
      } else if (choice === feedback) {
        void vscode.commands.executeCommand('crewRuns.giveFeedback', { runId: run.id });
      }
    });
  }

  /**
   * Says why the crew's runs paused and offers Set Token. Resuming is the poller's own rule (any token
   * change resumes the crew), so this only opens the command. A removed crew is not asked about: its
   * runs wait under "Removed crews".
   */
  private async onNeedToken({ crewUrl, reason }: TokenNeed): Promise<void> {
    const crew = this.services.crews.get(crewUrl);
    if (!crew) {
      return;
    }
    this.services.crews.setHealth(crewUrl, reason === 'refused' ? 'tokenRejected' : 'noToken');
    const setToken = vscode.l10n.t('Set Token…');
    const choice =
      reason === 'refused'
        ? await showError(vscode.l10n.t('{0} rejected its token; watching its runs is paused until you set a new one.', crew.name), setToken)
        : await showWarning(vscode.l10n.t('{0} has no token stored; watching its runs is paused until you set one.', crew.name), setToken);
    if (choice === setToken) {
      await vscode.commands.executeCommand('crewRuns.setToken', crew);
    }
  }
}
