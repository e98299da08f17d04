import * as vscode from 'vscode';
import { readCrews, renamed, withCrew, withoutCrew, type Crew } from './crewConfig';
import type * as CrewFileCount from './crewFileCount';
import type { TokenStore } from './tokenStore';

export type CrewHealth = 'unknown' | 'checking' | 'ready' | 'noToken' | 'tokenRejected' | 'unreachable';

const SETTING = 'crewRuns.crews';

/** The crews the user can see: user and (trusted) workspace settings, plus the in-memory demo crew. */
export class CrewRegistry implements vscode.Disposable {
  private crews: Crew[] = [];
  private demoCrews: Crew[] = [];
  private readonly health = new Map<string, CrewHealth>();
  private readonly tokenPresence = new Map<string, boolean>();
  private hiddenWorkspaceCrews = 0;
  /** The last value of the crewRuns.hiddenWorkspaceCrews context key sent (unset reads as false). */
  private hiddenContext = false;
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly tokens: TokenStore,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.reload();
    this.disposables.push(
      this.changed,
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(SETTING)) {
          this.reload();
        }
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.reload()),
      ...this.watchUntrustedWorkspaceSettings(),
      tokens.onDidChange((url) => {
        this.tokenPresence.delete(url);
        this.health.delete(url);
        this.changed.fire();
      }),
    );
  }

  list(): readonly Crew[] {
    return [...this.crews, ...this.demoCrews.filter((d) => !this.crews.some((c) => c.url === d.url))];
  }

  get(url: string): Crew | undefined {
    return this.list().find((c) => c.url === url);
  }

  /** Workspace crews not shown because the workspace is not trusted. */
  get hiddenWorkspaceCrewCount(): number {
    return this.hiddenWorkspaceCrews;
  }

  healthOf(url: string): CrewHealth {
    return this.health.get(url) ?? 'unknown';
  }

  setHealth(url: string, health: CrewHealth): void {
    if (this.health.get(url) !== health) {
      this.health.set(url, health);
      this.changed.fire();
    }
  }

  /** Whether a token is stored, cached so the tree does not hit SecretStorage on every render. */
  async hasToken(url: string): Promise<boolean> {
    let present = this.tokenPresence.get(url);
    if (present === undefined) {
      present = await this.tokens.has(url);
      this.tokenPresence.set(url, present);
    }
    return present;
  }

  async addUserCrew(name: string, url: string): Promise<void> {
    const configuration = vscode.workspace.getConfiguration();
    const current = configuration.inspect<unknown>(SETTING)?.globalValue;
    await configuration.update(SETTING, withCrew(current, { name, url }), vscode.ConfigurationTarget.Global);
    this.reload();
  }

  async rename(crew: Crew, name: string): Promise<void> {
    if (crew.source === 'demo') {
      this.demoCrews = this.demoCrews.map((d) => (d.url === crew.url ? { ...d, name } : d));
      this.changed.fire();
      return;
    }
    const target = crew.source === 'workspace' ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
    const configuration = vscode.workspace.getConfiguration();
    const inspected = configuration.inspect<unknown>(SETTING);
    const current = crew.source === 'workspace' ? inspected?.workspaceValue : inspected?.globalValue;
    await configuration.update(SETTING, renamed(current, crew.url, name), target);
    this.reload();
  }

  /** Removes the crew from the setting it came from and deletes its token. */
  async remove(crew: Crew): Promise<void> {
    if (crew.source === 'demo') {
      this.demoCrews = this.demoCrews.filter((d) => d.url !== crew.url);
    } else {
      const configuration = vscode.workspace.getConfiguration();
      const inspected = configuration.inspect<unknown>(SETTING);
      const workspace = crew.source === 'workspace';
      const current = workspace ? inspected?.workspaceValue : inspected?.globalValue;
      await configuration.update(SETTING, withoutCrew(current, crew.url), workspace ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global);
    }
    // Only when no other source still lists the same URL (a user and a workspace entry may share it).
    this.reload();
    if (!this.get(crew.url)) {
      await this.tokens.delete(crew.url);
    }
    this.health.delete(crew.url);
    this.changed.fire();
  }

  addDemoCrew(crew: Omit<Crew, 'source'>): void {
    this.demoCrews = [...this.demoCrews.filter((d) => d.url !== crew.url), { ...crew, source: 'demo' }];
    this.changed.fire();
  }

  dispose(): void {
    vscode.Disposable.from(...this.disposables).dispose();
  }

  private reload(): void {
    const inspected = vscode.workspace.getConfiguration().inspect<unknown>(SETTING);
    const result = readCrews(inspected?.globalValue, inspected?.workspaceValue, vscode.workspace.isTrusted);
    for (const problem of result.problems) {
      this.log.warn(problem);
    }
    this.crews = result.crews;
    this.hiddenWorkspaceCrews = result.hiddenWorkspaceCrews;
    const hidden = result.hiddenWorkspaceCrews > 0;
    if (hidden !== this.hiddenContext) {
      // Unset reads as false: a trusted window (almost every start) sends nothing.
      this.hiddenContext = hidden;
      void vscode.commands.executeCommand('setContext', 'crewRuns.hiddenWorkspaceCrews', hidden);
    }
    this.changed.fire();
    if (!vscode.workspace.isTrusted) {
      void this.countHiddenWorkspaceCrews();
    }
  }

  /**
   * In an untrusted window VS Code does not even show us the workspace value of a restricted
   * setting, so the files are read (never used) just to tell the user that crews are hidden.
   */
  private async countHiddenWorkspaceCrews(): Promise<void> {
    let count = 0;
    // jsonc-parser loads only here, in an untrusted window (dist/crewFiles.js): most windows never need it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { countCrewEntries } = require('./crewFileCount') as typeof CrewFileCount;
    for (const file of workspaceSettingsFiles()) {
      try {
        count += countCrewEntries(new TextDecoder().decode(await vscode.workspace.fs.readFile(file)));
      } catch {
        // No settings file: nothing hidden there.
      }
    }
    if (count !== this.hiddenWorkspaceCrews && !vscode.workspace.isTrusted) {
      this.hiddenWorkspaceCrews = count;
      void vscode.commands.executeCommand('setContext', 'crewRuns.hiddenWorkspaceCrews', count > 0);
      this.changed.fire();
    }
  }

  private watchUntrustedWorkspaceSettings(): vscode.Disposable[] {
    if (vscode.workspace.isTrusted) {
      return [];
    }
    return (vscode.workspace.workspaceFolders ?? []).map((folder) => {
      const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, '.vscode/settings.json'));
      const recount = () => void this.countHiddenWorkspaceCrews();
      watcher.onDidCreate(recount);
      watcher.onDidChange(recount);
      watcher.onDidDelete(recount);
      return watcher;
    });
  }
}

function workspaceSettingsFiles(): vscode.Uri[] {
  const files = (vscode.workspace.workspaceFolders ?? []).map((folder) => vscode.Uri.joinPath(folder.uri, '.vscode', 'settings.json'));
  const workspaceFile = vscode.workspace.workspaceFile;
  return workspaceFile && workspaceFile.scheme !== 'untitled' ? [...files, workspaceFile] : files;
}
