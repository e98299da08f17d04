import * as vscode from 'vscode';
import type { TaskOutput } from '../api/types';
import type { Crew } from '../crews/crewConfig';
import type { CrewRegistry } from '../crews/crewRegistry';
import type { ChatSessionStore } from '../flowChat/core/chatSessions';
import { type ChatSessionNode, type ChatsNode, chatSessionAge, chatSessionTreeItem, chatsTreeItem } from './chatRows';
import { isFinished, type RunRecord } from '../runTracking/model';
import type { RunStore } from '../runTracking/runStore';
import { type CrewDeployment, crewActivity, crewTreeItem, labelOrdinals, runRow, runTooltip, taskTooltip, taskTreeItem } from './runRows';

export type CrewsTreeNode = CrewNode | RemovedCrewsNode | OlderRunsNode | RunNode | TaskNode | ChatsNode | ChatSessionNode;

/**
 * The runs of a crew past the newest ones, a page at a time: a long history's first look builds a
 * hundred rows, not thousands (each row is work here and in VS Code). `crewUrl` is undefined under
 * "Removed crews"; `from` is the index (newest first) of its first run.
 */
export interface OlderRunsNode {
  readonly type: 'olderRuns';
  readonly crewUrl: string | undefined;
  readonly from: number;
}

/** Runs listed right under a crew; each "Older runs" node holds the next PAGE and, if any, another one. */
const FIRST_PAGE = 100;
const PAGE = 500;

/** Runs of crews no longer configured: reachable until removed from the history. */
export interface RemovedCrewsNode {
  readonly type: 'removedCrews';
}

const REMOVED_CREWS: RemovedCrewsNode = { type: 'removedCrews' };

export interface CrewNode {
  readonly type: 'crew';
  /** Updated in place: VS Code knows a node by its identity, and a reveal resolves the parent it last fetched. */
  crew: Crew;
}

export interface RunNode {
  readonly type: 'run';
  readonly runId: string;
}

export interface TaskNode {
  readonly type: 'task';
  readonly runId: string;
  readonly task: TaskOutput;
  readonly index: number;
  readonly current?: boolean;
}

/** Crews → their runs (newest first) → the tasks seen so far. */
export class CrewsTreeProvider implements vscode.TreeDataProvider<CrewsTreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<CrewsTreeNode | CrewsTreeNode[] | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly fetched = new vscode.EventEmitter<void>();
  /** After VS Code asked for some node's children: a reveal that came before the tree had the node can try again. */
  readonly onDidFetchChildren = this.fetched.event;
  // Stable node objects, so a change to one run refreshes only that run's row.
  private readonly runNodes = new Map<string, RunNode>();
  private readonly crewNodes = new Map<string, CrewNode>();
  private readonly olderNodes = new Map<string, OlderRunsNode>();
  private readonly chatsNodes = new Map<string, ChatsNode>();
  private readonly sessionNodes = new Map<string, ChatSessionNode>();
  /** What each drawn session row says of its last activity ("5 min ago"): redrawn as that moves on. */
  private readonly sessionAges = new Map<ChatSessionNode, string>();
  private sessionTimer: ReturnType<typeof setInterval> | undefined;
  /** The crew of each run seen, so a removed run's crew is still known. */
  private readonly crewOfRun = new Map<string, string>();
  /** Crews last drawn without runs: their first run changes their row's id, which only a full refresh shows. */
  private readonly drawnIdle = new Set<string>();
  /** Whether the top level was last given a "Removed crews" node. */
  private removedShown = false;
  private readonly disposables: vscode.Disposable[] = [];
  private stopHidden: (crewUrl: string) => boolean = () => false;
  private deployment: (crewUrl: string) => CrewDeployment | undefined = () => undefined;
  /** Whether a crew chats (undefined: not known yet, which asks). */
  private chats: (crewUrl: string) => boolean | undefined = () => false;
  /** What each drawn run row shows (RunRow.key): a change that leaves it the same redraws nothing. */
  private readonly shown = new Map<string, string>();
  /** Runs whose label an older run of their crew has: their ordinal (2, 3…) follows the label. */
  private readonly sameLabel = new Map<string, number>();
  /** Each crew's activity as last drawn (`1 running`). */
  private readonly activityShown = new Map<string, string | undefined>();
  /** When each drawn run row's text next changes with time alone (its age, its elapsed minutes). */
  private readonly ageDue = new Map<string, number>();
  /** Set for the earliest of `ageDue` while any row shows a time. */
  private ageTimer: ReturnType<typeof setTimeout> | undefined;
  private ageTimerAt = Infinity;

  constructor(
    private readonly crews: CrewRegistry,
    private readonly runs: RunStore,
    private readonly sessions: ChatSessionStore,
  ) {
    this.disposables.push(
      this.changed,
      this.fetched,
      crews.onDidChange(() => this.changed.fire(undefined)),
      runs.onDidChange(({ runIds }) => this.onRunsChanged(runIds)),
      sessions.onDidChange((crewUrl) => this.onSessionsChanged(crewUrl)),
    );
  }

  /** A crew's chat sessions came, went or moved: its row and what is under it (all rows when it had none drawn). */
  private onSessionsChanged(crewUrl: string): void {
    const node = this.crewNodes.get(crewUrl);
    if (!node || !this.crews.get(crewUrl)) {
      return;
    }
    for (const [key, session] of this.sessionNodes) {
      if (session.crewUrl === crewUrl && !this.sessions.get(crewUrl, session.sessionId)) {
        this.sessionNodes.delete(key);
        this.sessionAges.delete(session);
      }
    }
    // A crew drawn without children gets a twistie and another id: only a full refresh shows that.
    this.changed.fire(this.drawnIdle.has(crewUrl) || !this.hasChildren(crewUrl) ? undefined : node);
  }

  private hasChildren(crewUrl: string): boolean {
    return this.runs.list(crewUrl).length > 0 || this.sessions.list(crewUrl).length > 0;
  }

  private onRunsChanged(runIds: string[]): void {
    const known = runIds.map((id) => this.runNodes.get(id));
    const added = runIds.some((id, i) => !known[i] && this.runs.get(id));
    const removed = runIds.some((id, i) => (known[i] || this.crewOfRun.has(id)) && !this.runs.get(id));
    if (added || removed) {
      const groups = this.groupsOf(runIds);
      for (const id of runIds.filter((id) => !this.runs.get(id))) {
        this.runNodes.delete(id);
        this.shown.delete(id);
        this.ageDue.delete(id);
        this.sameLabel.delete(id);
        this.crewOfRun.delete(id);
      }
      // Only the crews whose runs came or went: VS Code rebuilds every expanded row below what is
      // refreshed (and keeps a little of each row it ever built), so a batch must not rebuild the
      // long histories of other crews at each new run.
      this.changed.fire(groups ?? undefined);
      return;
    }
    const redraw: CrewsTreeNode[] = known.filter((n): n is RunNode => n !== undefined && this.rowChanged(n.runId));
    const crewUrls = new Set(runIds.map((id) => this.runs.get(id)?.crewUrl));
    for (const url of crewUrls) {
      const node = url === undefined ? undefined : this.crewNodes.get(url);
      if (node && this.activityShown.has(node.crew.url) && this.activityShown.get(node.crew.url) !== crewActivity(this.runs.list(node.crew.url))) {
        redraw.push(node);
      }
    }
    if (redraw.length) {
      this.changed.fire(redraw);
    }
  }

  /**
   * The crews (or "Removed crews") whose lists these runs are in, or undefined when that cannot be
   * told (a drawn run gone before its crew was noted) or the top level changes ("Removed crews" comes
   * or goes). A run gone that was never drawn or seen (the oldest, pruned by the history cap) changes
   * no row drawn.
   */
  private groupsOf(runIds: string[]): CrewsTreeNode[] | undefined {
    const crewUrls = new Set<string>();
    for (const id of runIds) {
      const crewUrl = this.runs.get(id)?.crewUrl ?? this.crewOfRun.get(id);
      if (crewUrl === undefined) {
        if (this.runNodes.has(id)) {
          return undefined;
        }
        continue;
      }
      this.crewOfRun.set(id, crewUrl);
      crewUrls.add(crewUrl);
    }
    const groups = new Set<CrewsTreeNode>();
    for (const crewUrl of crewUrls) {
      // Once per crew: a load or reload names every run.
      if (this.drawnIdle.has(crewUrl) === this.hasChildren(crewUrl)) {
        return undefined;
      }
      groups.add(this.groupNode(this.crews.get(crewUrl) ? crewUrl : undefined));
    }
    return groups.has(REMOVED_CREWS) && this.orphanRuns().length > 0 !== this.removedShown ? undefined : [...groups];
  }

  /** True when a drawn run's row would now look different (a change to what is not shown redraws nothing). */
  private rowChanged(runId: string): boolean {
    const run = this.runs.get(runId);
    const shown = this.shown.get(runId);
    return run !== undefined && shown !== undefined && shown !== this.row(run).key;
  }

  /** Notes when a drawn row's time next moves on, and wakes then (not before: a long history costs nothing meanwhile). */
  private noteAge(runId: string, changesAt: number | undefined): void {
    if (changesAt === undefined) {
      this.ageDue.delete(runId);
      return;
    }
    this.ageDue.set(runId, changesAt);
    if (changesAt < this.ageTimerAt) {
      this.scheduleAges(changesAt);
    }
  }

  private scheduleAges(at: number): void {
    clearTimeout(this.ageTimer);
    this.ageTimerAt = at;
    // At least a second apart: a clock set back must not spin the timer.
    this.ageTimer = setTimeout(() => this.tickAges(), Math.max(1000, at - Date.now()));
  }

  /** Redraws only the rows whose age or elapsed time now reads differently; sleeps until the next one is due. */
  private tickAges(): void {
    this.ageTimer = undefined;
    this.ageTimerAt = Infinity;
    const now = Date.now();
    const redraw: RunNode[] = [];
    let next = Infinity;
    for (const [id, due] of this.ageDue) {
      if (due > now) {
        next = Math.min(next, due);
        continue;
      }
      const run = this.runs.get(id);
      if (!run || !this.shown.has(id)) {
        this.ageDue.delete(id);
        continue;
      }
      const row = this.row(run, now);
      if (row.key !== this.shown.get(id)) {
        redraw.push(this.runNode(id));
      }
      if (row.changesAt === undefined) {
        this.ageDue.delete(id);
      } else {
        this.ageDue.set(id, row.changesAt);
        next = Math.min(next, row.changesAt);
      }
    }
    if (next < Infinity) {
      this.scheduleAges(next);
    }
    if (redraw.length) {
      this.changed.fire(redraw);
    }
  }

  private row(run: RunRecord, now = Date.now()) {
    return runRow(run, { stopHidden: this.stopHidden(run.crewUrl), ordinal: this.sameLabel.get(run.id) }, now);
  }

  /** Notes the runs whose label another of `runs` shares (a preset, Run Again), so their rows tell them apart. */
  private markSameLabels(runs: readonly RunRecord[]): void {
    const ordinals = labelOrdinals(runs);
    for (const run of runs) {
      const ordinal = ordinals.get(run.id);
      if (ordinal === undefined) {
        this.sameLabel.delete(run.id);
      } else {
        this.sameLabel.set(run.id, ordinal);
      }
    }
  }

  /** The deployment status of crews imported from the platform (undefined for the others). */
  setDeployments(deployment: (crewUrl: string) => CrewDeployment | undefined, onDidChange: (listener: () => unknown) => vscode.Disposable): void {
    this.deployment = deployment;
    this.disposables.push(onDidChange(() => this.changed.fire(undefined)));
  }

  /** Runs of crews for which this says true get `noStop` in their contextValue (Stop Run hidden). */
  setStopHidden(hidden: (crewUrl: string) => boolean, onDidChange: (listener: () => unknown) => vscode.Disposable): void {
    this.stopHidden = hidden;
    this.disposables.push(onDidChange(() => this.changed.fire(undefined)));
  }

  /**
   * Crews for which this says true get `chats` in their contextValue (Chat with Flow offered). Asked only for
   * crews drawn with a token; an answer redraws only its crew's row.
   */
  setChatSupport(chats: (crewUrl: string) => boolean | undefined, onDidChange: (listener: (crewUrl: string) => unknown) => vscode.Disposable): void {
    this.chats = chats;
    this.disposables.push(
      onDidChange((crewUrl) => {
        const node = this.crewNodes.get(crewUrl);
        if (node && this.crews.get(crewUrl)) {
          this.changed.fire(node);
        }
      }),
    );
  }

  getChildren(element?: CrewsTreeNode): CrewsTreeNode[] | Thenable<CrewsTreeNode[]> {
    queueMicrotask(() => this.fetched.fire());
    if (!element) {
      const crews: CrewsTreeNode[] = this.crews.list().map((crew) => this.crewNode(crew));
      this.removedShown = this.orphanRuns().length > 0;
      return this.removedShown ? [...crews, REMOVED_CREWS] : crews;
    }
    if (element.type === 'crew') {
      const chats: CrewsTreeNode[] = this.sessions.list(element.crew.url).length ? [this.chatsNode(element.crew.url)] : [];
      return [...chats, ...this.page(element.crew.url, 0)];
    }
    if (element.type === 'chats') {
      return this.sessions.list(element.crewUrl).map((s) => this.chatSessionNode(element.crewUrl, s.id));
    }
    if (element.type === 'removedCrews' || element.type === 'olderRuns') {
      const crewUrl = element.type === 'olderRuns' ? element.crewUrl : undefined;
      return this.page(crewUrl, element.type === 'olderRuns' ? element.from : 0);
    }
    if (element.type === 'run') {
      return this.taskNodes(element.runId);
    }
    return [];
  }

  getParent(element: CrewsTreeNode): CrewsTreeNode | undefined {
    if (element.type === 'crew' || element.type === 'removedCrews') {
      return undefined;
    }
    if (element.type === 'task') {
      return this.runNode(element.runId);
    }
    if (element.type === 'chats') {
      return this.groupNode(element.crewUrl);
    }
    if (element.type === 'chatSession') {
      return this.chatsNode(element.crewUrl);
    }
    if (element.type === 'olderRuns') {
      return element.from === FIRST_PAGE ? this.groupNode(element.crewUrl) : this.olderNode(element.crewUrl, element.from - PAGE);
    }
    const run = this.runs.get(element.runId);
    if (!run) {
      return undefined;
    }
    const crewUrl = this.crews.get(run.crewUrl) ? run.crewUrl : undefined;
    const index = this.runsOf(crewUrl).findIndex((r) => r.id === run.id);
    return index < FIRST_PAGE ? this.groupNode(crewUrl) : this.olderNode(crewUrl, FIRST_PAGE + Math.floor((index - FIRST_PAGE) / PAGE) * PAGE);
  }

  async getTreeItem(element: CrewsTreeNode): Promise<vscode.TreeItem> {
    if (element.type === 'crew') {
      return this.crewItem(element.crew);
    }
    if (element.type === 'removedCrews') {
      const item = new vscode.TreeItem(vscode.l10n.t('Removed crews'), vscode.TreeItemCollapsibleState.Collapsed);
      item.id = 'removedCrews';
      item.description = String(this.orphanRuns().length);
      item.tooltip = vscode.l10n.t('Runs of crews that are no longer configured. Remove them from the history when done.');
      item.iconPath = new vscode.ThemeIcon('archive');
      item.contextValue = 'removedCrews';
      return item;
    }
    if (element.type === 'olderRuns') {
      const count = this.runsOf(element.crewUrl).length - element.from;
      const item = new vscode.TreeItem(vscode.l10n.t('Older runs'), vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `olderRuns:${element.crewUrl ?? ''}:${element.from}`;
      item.description = String(count);
      item.tooltip = vscode.l10n.t('{0} older runs, newest first', count);
      item.iconPath = new vscode.ThemeIcon('history');
      item.contextValue = 'olderRuns';
      return item;
    }
    if (element.type === 'run') {
      return this.runItem(element.runId);
    }
    if (element.type === 'chats') {
      return chatsTreeItem(element, this.sessions.list(element.crewUrl).length);
    }
    if (element.type === 'chatSession') {
      return this.sessionItem(element);
    }
    return taskTreeItem(element);
  }

  async resolveTreeItem(item: vscode.TreeItem, element: CrewsTreeNode): Promise<vscode.TreeItem> {
    if (element.type === 'run') {
      const run = this.runs.get(element.runId);
      if (run) {
        item.tooltip = runTooltip(run, (await this.runs.readDetails(run.id)).inputs ?? {});
      }
    } else if (element.type === 'task') {
      item.tooltip = taskTooltip(element.task);
    }
    return item;
  }

  /** `arg` when it is a chat session row this tree drew and still lists (not a look-alike from a command link). */
  chatSessionOfRow(arg: unknown): ChatSessionNode | undefined {
    const node = [...this.sessionNodes.values()].find((n) => n === arg);
    return node && this.sessions.get(node.crewUrl, node.sessionId) ? node : undefined;
  }

  /** The run is in the history this tree shows (a reveal of one that is not fails). */
  hasRun(runId: string): boolean {
    return this.runs.get(runId) !== undefined;
  }

  /** The node of a run, for reveal(). */
  runNode(runId: string): RunNode {
    let node = this.runNodes.get(runId);
    if (!node) {
      node = { type: 'run', runId };
      this.runNodes.set(runId, node);
    }
    return node;
  }

  dispose(): void {
    clearTimeout(this.ageTimer);
    clearInterval(this.sessionTimer);
    vscode.Disposable.from(...this.disposables).dispose();
  }

  /** A crew's runs (newest first), or those of removed crews when `crewUrl` is undefined. */
  private runsOf(crewUrl: string | undefined): RunRecord[] {
    return crewUrl === undefined ? this.orphanRuns() : this.runs.list(crewUrl);
  }

  /** The runs from index `from` on, up to a page, then an "Older runs" node for the rest. */
  private page(crewUrl: string | undefined, from: number): CrewsTreeNode[] {
    const runs = this.runsOf(crewUrl);
    if (from === 0) {
      this.markSameLabels(runs);
    }
    const end = from + (from === 0 ? FIRST_PAGE : PAGE);
    const nodes: CrewsTreeNode[] = runs.slice(from, end).map((run) => {
      this.crewOfRun.set(run.id, run.crewUrl);
      return this.runNode(run.id);
    });
    if (runs.length > end) {
      nodes.push(this.olderNode(crewUrl, end));
    }
    return nodes;
  }

  private chatsNode(crewUrl: string): ChatsNode {
    let node = this.chatsNodes.get(crewUrl);
    if (!node) {
      node = { type: 'chats', crewUrl };
      this.chatsNodes.set(crewUrl, node);
    }
    return node;
  }

  private chatSessionNode(crewUrl: string, sessionId: string): ChatSessionNode {
    const key = `${crewUrl}\n${sessionId}`;
    let node = this.sessionNodes.get(key);
    if (!node) {
      node = { type: 'chatSession', crewUrl, sessionId };
      this.sessionNodes.set(key, node);
    }
    return node;
  }

  private sessionItem(node: ChatSessionNode): vscode.TreeItem {
    const session = this.sessions.get(node.crewUrl, node.sessionId);
    const item = chatSessionTreeItem(node, session);
    if (session) {
      this.sessionAges.set(node, String(item.description)); // chatSessionAge(session), as drawn.
      this.sessionTimer ??= setInterval(() => this.tickSessionAges(), 60_000);
    }
    return item;
  }

  /** Redraws the session rows whose "… ago" moved on; stops when none is drawn. */
  private tickSessionAges(): void {
    const redraw: ChatSessionNode[] = [];
    for (const [node, shown] of this.sessionAges) {
      const session = this.sessions.get(node.crewUrl, node.sessionId);
      if (!session) {
        this.sessionAges.delete(node);
      } else if (chatSessionAge(session) !== shown) {
        redraw.push(node);
      }
    }
    if (!this.sessionAges.size) {
      clearInterval(this.sessionTimer);
      this.sessionTimer = undefined;
    } else if (redraw.length) {
      this.changed.fire(redraw);
    }
  }

  private groupNode(crewUrl: string | undefined): CrewsTreeNode {
    const crew = crewUrl === undefined ? undefined : this.crews.get(crewUrl);
    return crew ? this.crewNode(crew) : REMOVED_CREWS;
  }

  private olderNode(crewUrl: string | undefined, from: number): OlderRunsNode {
    const key = `${crewUrl ?? ''}\n${from}`;
    let node = this.olderNodes.get(key);
    if (!node) {
      node = { type: 'olderRuns', crewUrl, from };
      this.olderNodes.set(key, node);
    }
    return node;
  }

  private orphanRuns(): RunRecord[] {
    return this.runs.list().filter((run) => !this.crews.get(run.crewUrl));
  }

  private crewNode(crew: Crew): CrewNode {
    const cached = this.crewNodes.get(crew.url);
    if (cached) {
      cached.crew = crew; // The registry makes a new Crew on every change; the node stays the one VS Code holds.
      return cached;
    }
    const node: CrewNode = { type: 'crew', crew };
    this.crewNodes.set(crew.url, node);
    return node;
  }

  private async crewItem(crew: Crew): Promise<vscode.TreeItem> {
    const runs = this.runs.list(crew.url);
    const activity = crewActivity(runs);
    this.activityShown.set(crew.url, activity);
    if (this.hasChildren(crew.url)) {
      this.drawnIdle.delete(crew.url);
    } else {
      this.drawnIdle.add(crew.url);
    }
    const hasToken = await this.crews.hasToken(crew.url);
    const chats = hasToken && this.chats(crew.url) === true;
    return crewTreeItem(crew, { hasChildren: this.hasChildren(crew.url), activity, hasToken, health: hasToken ? this.crews.healthOf(crew.url) : 'noToken', deployment: this.deployment(crew.url), chats });
  }

  private runItem(runId: string): vscode.TreeItem {
    const run = this.runs.get(runId);
    if (!run) {
      return new vscode.TreeItem(vscode.l10n.t('(removed)'));
    }
    const row = this.row(run);
    this.shown.set(run.id, row.key);
    this.noteAge(run.id, row.changesAt);
    const item = new vscode.TreeItem(row.label, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = `run:${run.id}`;
    item.description = row.description;
    item.iconPath = row.icon;
    item.contextValue = row.contextValue;
    item.command = { command: 'crewRuns.openRun', title: vscode.l10n.t('Open Run'), arguments: [{ runId: run.id }] };
    return item;
  }

  private async taskNodes(runId: string): Promise<TaskNode[]> {
    const details = await this.runs.readDetails(runId);
    const nodes: TaskNode[] = details.tasks.map((task, index) => ({ type: 'task', runId, task, index }));
    const run = this.runs.get(runId);
    if (run && !isFinished(run) && run.currentTask && !details.tasks.some((t) => t.name === run.currentTask)) {
      nodes.push({ type: 'task', runId, task: { name: run.currentTask, output: '' }, index: nodes.length, current: true });
    }
    return nodes;
  }
}
