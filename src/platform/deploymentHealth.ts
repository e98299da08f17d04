// The deployment status of every imported crew (online / deploying / failed / unknown, with the platform's own
// words), refreshed when the window gains focus and on a slow timer, with at most MAX_IN_FLIGHT requests in flight and
// MAX_PER_SECOND started a second (a refresh has no hurry; a 429 costs a crew its status), Retry-After honoured.
import * as vscode from 'vscode';
import { showError, showInfo } from '../ui/notify';
import { errorText } from '../util/errorText';
import type { PlatformAccount, PlatformSignIn } from './account';
import { eachBounded, Pacer, type PaceClock } from './bounded';
import type { ImportedCrew, ImportedCrews } from './importedCrews';
import type { DeploymentState } from './parse';
import { PlatformError, type PlatformClient } from './platformClient';

export const MAX_IN_FLIGHT = 4;
/** Status requests started per second: 100 crews take about 20 s, each shown as its answer comes. */
export const MAX_PER_SECOND = 5;
/** A crew answered 429 is asked again after the Retry-After this many times before it shows "status unavailable". */
const RATE_LIMITED_RETRIES = 3;
const TIMER_MS = 5 * 60_000;
/** Focus refreshes closer together than this are skipped. */
const FOCUS_GAP_MS = 30_000;
const FOLLOW_EVERY_MS = 1000;
/** A redeploy still not online or failed after this is left to the refreshes. */
const FOLLOW_FOR_MS = 20 * 60_000;

export interface DeploymentHealthEntry {
  state: DeploymentState;
  /** The platform's words ("Crew is Online"), or why the state is unknown. */
  words?: string;
}

export class DeploymentHealth implements vscode.Disposable {
  private readonly entries = new Map<string, DeploymentHealthEntry>();
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly disposables: vscode.Disposable[];
  private refreshing?: Promise<void>;
  /** The refresh that follows the one running, asked for while it ran. */
  private again?: Promise<void>;
  private lastRefresh = 0;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly account: PlatformAccount,
    private readonly imported: ImportedCrews,
    private readonly client: PlatformClient,
    private readonly log: vscode.LogOutputChannel,
    private readonly paceClock?: PaceClock,
  ) {
    this.timer = setInterval(() => void this.refresh(), TIMER_MS);
    this.disposables = [
      this.changed,
      { dispose: () => clearInterval(this.timer) },
      vscode.window.onDidChangeWindowState((s) => s.focused && Date.now() - this.lastRefresh > FOCUS_GAP_MS && void this.refresh()),
      account.onDidChange(() => void this.refresh()),
      imported.onDidChange(() => void this.refresh()),
    ];
  }

  get(crewUrl: string): DeploymentHealthEntry | undefined {
    return this.entries.get(crewUrl);
  }

  /** Set by a redeploy being followed. */
  set(crewUrl: string, entry: DeploymentHealthEntry): void {
    const before = this.entries.get(crewUrl);
    if (before?.state !== entry.state || before?.words !== entry.words) {
      this.entries.set(crewUrl, entry);
      this.changed.fire();
    }
  }

  /**
   * Asks the platform about every imported crew, one refresh at a time. A call during a refresh gets one more
   * right after it: the crews an import adds while a refresh runs (it saves them one by one) are asked about too.
   */
  refresh(): Promise<void> {
    if (this.refreshing) {
      this.again ??= this.refreshing
        .catch(() => undefined)
        .then(() => {
          this.again = undefined;
          return this.refresh();
        });
      return this.again;
    }
    this.refreshing = this.refreshOnce().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /**
   * Follows a redeploy until the platform says online or failed (undefined: cancelled, or still deploying after
   * FOLLOW_FOR_MS), keeping an imported crew's row (`crewUrl`) current, and tells the user how it ended, with its
   * logs one click away. The Redeploy command follows with a progress notification, the chat tool in the background.
   */
  async followRedeploy(
    signIn: PlatformSignIn,
    deployment: { uuid: string; name: string; crewUrl?: string },
    cancellation?: vscode.CancellationToken,
    onStatus?: (words: string | undefined) => void,
  ): Promise<DeploymentState | undefined> {
    const { uuid, name, crewUrl } = deployment;
    let final: DeploymentState | undefined;
    for (const until = Date.now() + FOLLOW_FOR_MS; !final && !cancellation?.isCancellationRequested && Date.now() < until; ) {
      // One listener per wait, removed with it: a 20-minute follow must not pile up 1,200 of them.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          listener?.dispose();
          resolve();
        }, FOLLOW_EVERY_MS);
        const listener = cancellation?.onCancellationRequested(() => {
          clearTimeout(timer);
          listener?.dispose();
          resolve();
        });
      });
      if (cancellation?.isCancellationRequested) {
        break;
      }
      try {
        const status = await this.client.status(signIn, uuid);
        if (crewUrl) {
          this.set(crewUrl, { state: status.state, words: status.status });
        }
        onStatus?.(status.status);
        final = status.state === 'online' || status.state === 'failed' ? status.state : undefined;
        if (final === 'failed') {
          announceRedeployEnd(name, crewUrl, final, status.status ?? '');
          return final;
        }
      } catch (error) {
        this.log.warn(`Following the redeploy of ${name}: ${errorText(error)}`);
      }
    }
    announceRedeployEnd(name, crewUrl, final, '');
    return final;
  }

  dispose(): void {
    vscode.Disposable.from(...this.disposables).dispose();
  }

  private async refreshOnce(): Promise<void> {
    this.lastRefresh = Date.now();
    const crews = this.imported.list();
    if (!crews.length) {
      return;
    }
    const signIn = await this.account.current();
    const pacer = new Pacer(MAX_PER_SECOND, this.paceClock);
    await eachBounded(crews, MAX_IN_FLIGHT, async (crew) => {
      if (!signIn || signIn.baseUrl !== crew.platformUrl) {
        this.set(crew.crewUrl, { state: 'unknown', words: vscode.l10n.t('not signed in to {0}', crew.platformUrl) });
        return;
      }
      for (let attempt = 0; ; attempt++) {
        await pacer.turn();
        try {
          const status = await this.client.status(signIn, crew.uuid);
          this.set(crew.crewUrl, { state: status.state, words: status.status });
          return;
        } catch (error) {
          if (error instanceof PlatformError && error.kind === 'rateLimited' && attempt < RATE_LIMITED_RETRIES) {
            pacer.holdFor(error.retryAfterMs ?? 1000);
            continue;
          }
          this.failed(crew, error);
          return;
        }
      }
    });
  }

  private failed(crew: ImportedCrew, error: unknown): void {
    const words = error instanceof PlatformError && error.kind === 'unauthorized' ? vscode.l10n.t('sign in again') : error instanceof PlatformError && error.kind === 'notFound' ? vscode.l10n.t('not found (another organization?)') : vscode.l10n.t('status unavailable');
    this.set(crew.crewUrl, { state: 'unknown', words });
    this.log.warn(`Deployment status of ${crew.name} (${crew.crewUrl}) could not be read: ${errorText(error)}`);
  }
}

/** How a followed redeploy ended, with the logs one click away for an imported crew (`crewUrl`). */
function announceRedeployEnd(name: string, crewUrl: string | undefined, final: DeploymentState | undefined, words: string): void {
  const showLogs = vscode.l10n.t('Show Deployment Logs');
  const logsAction = crewUrl ? [showLogs] : [];
  const open = (choice: string | undefined) => choice === showLogs && void vscode.commands.executeCommand('crewRuns.platform.showLogs', crewUrl);
  if (final === 'online') {
    void showInfo(vscode.l10n.t('{0} is online again.', name), ...logsAction).then(open);
  } else if (final === 'failed') {
    void showError(vscode.l10n.t('The redeploy of {0} failed: {1}', name, words), ...logsAction).then(open);
  } else {
    void showInfo(crewUrl ? vscode.l10n.t('{0} is still deploying; its row in the crews view follows it.', name) : vscode.l10n.t('{0} is still deploying.', name), ...logsAction).then(open);
  }
}
