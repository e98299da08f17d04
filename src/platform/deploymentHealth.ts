// The deployment status of every imported crew (online / deploying / failed / unknown, with the platform's own
// words), refreshed when the window gains focus and on a slow timer, with at most MAX_IN_FLIGHT requests in flight and
// MAX_PER_SECOND started a second (a refresh has no hurry; a 429 costs a crew its status), Retry-After honoured.
import * as vscode from 'vscode';
import type { SendOnce } from '../runTracking/sendOnce';
import { errorText } from '../util/errorText';
import type { PlatformAccount, PlatformSignIn } from './account';
import { eachBounded, Pacer, type PaceClock, systemPaceClock } from './bounded';
import type { ImportedCrew, ImportedCrews } from './importedCrews';
import type { DeploymentState } from './parse';
import { PlatformError, type PlatformClient, redeploySendFailure } from './platformClient';
import type * as FollowModule from './redeployFollow';
import type { FollowedDeployment, FollowOptions } from './redeployFollow';
import type * as SendModule from './redeploySend';
import type { RedeploySend, RedeploySender } from './redeploySend';
import type { DeploymentHealthEntry } from './redeployWatch';

export const MAX_IN_FLIGHT = 4;
/** Status requests started per second: 100 crews take about 20 s, each shown as its answer comes. */
export const MAX_PER_SECOND = 5;
/** A crew answered 429 is asked again after the Retry-After this many times before it shows "status unavailable". */
const RATE_LIMITED_RETRIES = 3;
const TIMER_MS = 5 * 60_000;
/** Focus refreshes closer together than this are skipped. */
const FOCUS_GAP_MS = 30_000;

export type { DeploymentHealthEntry } from './redeployWatch';

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
    /** The machine-wide send-once marks (runTracking/sendOnce.ts): a redeploy goes out once. */
    private readonly sends?: Pick<SendOnce, 'claim' | 'peek' | 'forget'>,
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
    const firstError = entry.firstError ?? (entry.state === 'failed' && before?.state === 'failed' && before.words === entry.words ? before.firstError : undefined);
    if (before?.state !== entry.state || before?.words !== entry.words || before?.firstError !== firstError) {
      this.entries.set(crewUrl, firstError ? { ...entry, firstError } : { state: entry.state, words: entry.words });
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
   * Follows a redeploy until the platform says online or failed after it was seen to start, keeping an imported
   * crew's row (`crewUrl`) current, and tells the user how it ended, with its logs one click away. The Redeploy
   * command follows with a progress notification, the chat tool in the background (redeployFollow.ts, loaded now).
   */
  async followRedeploy(signIn: PlatformSignIn, deployment: FollowedDeployment, options?: FollowOptions): Promise<DeploymentState | undefined> {
    // Both in dist/deployActions.js (esbuild.js), required on the first redeploy.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { followRedeploy } = require('./redeployFollow') as typeof FollowModule;
    return followRedeploy({ client: this.client, health: this, log: this.log, clock: this.paceClock ?? systemPaceClock }, signIn, deployment, options);
  }

  /** Sends a redeploy once machine-wide (redeploySend.ts): the command and the chat tool both go through it. */
  async sendRedeploy(signIn: PlatformSignIn, deployment: FollowedDeployment): Promise<RedeploySend> {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { sendRedeploy } = require('./redeploySend') as typeof SendModule;
    return sendRedeploy(this.sender(), signIn, deployment);
  }

  /** What sending a redeploy takes (redeploySend.ts), for the command too. */
  sender(): RedeploySender {
    if (!this.sends) {
      throw new Error('No send-once marks: this window cannot redeploy.');
    }
    return { client: this.client, sends: this.sends, health: this, log: this.log, sendFailure: redeploySendFailure, now: () => (this.paceClock ?? systemPaceClock).now() };
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
