// The suites' commands: Open Run (a case's run, from its menu or its result's message), Pin as Baseline, Show Suite
// Summary, Export Suite Report… (JUnit XML and the Markdown summary), and the offer to run a redeployed crew's suites.
// Each acts on the test item it is given (the Test Explorer's menus), else asks which suite.
import * as vscode from 'vscode';
import { normaliseCrewUrl } from '../api/url';
import type { Services } from '../services';
import { showInfo } from '../ui/notify';
import { inertLine } from '../util/inertText';
import type { SuiteRunComparison } from './core/baseline';
import type { SuiteRunRecord } from './core/types';
import { resolveSuiteCrew } from './suiteCrew';
import type { SuiteHistory } from './suiteHistory';
import type { SuiteSummaries } from './suiteSummary';
import type { ItemRef, SuiteCore, SuiteExplorer, SuiteFile } from './testExplorer';

/** A suite's last run as this window knows it: whole (with expected and actual values) when it ran here. */
export interface LastRun {
  record: SuiteRunRecord;
  comparison?: SuiteRunComparison;
  pinned: boolean;
}

export interface SuiteCommandContext {
  services: Services;
  core: SuiteCore;
  explorer: SuiteExplorer;
  history: SuiteHistory;
  summaries: SuiteSummaries;
  /** This window's last run of each suite, by the suite's key. */
  last: Map<string, LastRun>;
  /** Runs these suites as their ▶ would (the offer after a redeploy). */
  runSuites(files: SuiteFile[]): Promise<void>;
}

export type SuiteCommands = ReturnType<typeof suiteCommands>;

export function suiteCommands(context: SuiteCommandContext) {
  const { services, core, explorer, history, summaries } = context;

  /** The suite run a command reads: this window's last one, else the newest kept. */
  const lastRun = async (file: SuiteFile): Promise<LastRun | undefined> => {
    const newest = await history.latest(file.key);
    const here = context.last.get(file.key);
    if (here && (!newest || newest.id <= here.record.id)) {
      return here;
    }
    if (!newest) {
      return undefined;
    }
    const baseline = await history.baselineFor(file.key, newest);
    const ran = new Set(newest.items.map((item) => item.itemId));
    return {
      record: newest,
      pinned: baseline?.pinned ?? false,
      comparison: baseline && core.compareSuiteRuns(newest, { ...baseline.record, items: baseline.record.items.filter((item) => ran.has(item.itemId)) }),
    };
  };

  /** A command's suite (and case): from its test item or result message, else the only suite, else a pick. */
  const target = async (arg: unknown, placeHolder: string): Promise<ItemRef | undefined> => {
    const test = (arg as { test?: unknown } | undefined)?.test ?? arg;
    const given = isTestItem(test) ? explorer.refOf(test) : undefined;
    if (given) {
      return given;
    }
    await explorer.settled();
    const files = explorer.list();
    if (files.length === 0) {
      void showInfo(vscode.l10n.t('No test suites in this workspace: a suite is a file named *.crew-suite.yaml.'));
      return undefined;
    }
    if (files.length === 1) {
      return { file: files[0] };
    }
    const picked = await vscode.window.showQuickPick(
      files.map((file) => ({ label: inertLine(file.parsed.suite.name), description: vscode.workspace.asRelativePath(file.uri), file })),
      { placeHolder },
    );
    return picked && { file: picked.file };
  };

  const summaryOf = (last: LastRun) => suiteSummaryMarkdown(core, last);

  return {

    async openRun(arg?: unknown): Promise<void> {
      const ref = await target(arg, vscode.l10n.t('Open a run of which suite?'));
      if (!ref) {
        return;
      }
      const last = await lastRun(ref.file);
      const items = (last?.record.items ?? []).filter(
        (item) => item.runId !== undefined && (ref.caseName === undefined || item.caseName === ref.caseName) && (ref.itemId === undefined || item.itemId === ref.itemId),
      );
      if (items.length === 0) {
        void showInfo(vscode.l10n.t('No run of this yet: run it from the Testing view first.'));
        return;
      }
      const chosen =
        items.length === 1
          ? items[0]
          : (await vscode.window.showQuickPick(
              items.map((item) => ({ label: inertLine(item.itemId), description: item.outcome, item })),
              { placeHolder: vscode.l10n.t('Open the run of which case?') },
            ))?.item;
      if (!chosen?.runId) {
        return;
      }
      if (!services.runs.get(chosen.runId)) {
        void showInfo(vscode.l10n.t('That run is no longer in the run history (the oldest runs of a crew are dropped).'));
        return;
      }
      await vscode.commands.executeCommand('crewRuns.openRun', { runId: chosen.runId });
    },

    async pinBaseline(arg?: unknown): Promise<void> {
      const ref = await target(arg, vscode.l10n.t('Pin the last run of which suite as its baseline?'));
      if (!ref) {
        return;
      }
      const last = await lastRun(ref.file);
      if (!last) {
        void showInfo(vscode.l10n.t('Suite "{0}" has not run yet: run it, then pin its run as the baseline.', ref.file.parsed.suite.name));
        return;
      }
      await history.pin(ref.file.key, last.record.id);
      void showInfo(
        vscode.l10n.t(
          'Suite "{0}": its run of {1} ({2}) is the baseline now; later runs are compared with it.',
          ref.file.parsed.suite.name,
          new Date(last.record.startedAt).toLocaleString(),
          core.outcomeLine(core.tallySuiteRun(last.record)),
        ),
      );
    },

    async showSummary(arg?: unknown): Promise<void> {
      const ref = await target(arg, vscode.l10n.t('Show the summary of which suite?'));
      if (!ref) {
        return;
      }
      const last = await lastRun(ref.file);
      if (!last) {
        void showInfo(vscode.l10n.t('Suite "{0}" has not run yet.', ref.file.parsed.suite.name));
        return;
      }
      await summaries.show(summaries.set(ref.file.key, ref.file.parsed.suite.name, summaryOf(last)));
    },

    async exportReport(arg?: unknown): Promise<void> {
      const ref = await target(arg, vscode.l10n.t('Export the report of which suite\'s last run?'));
      if (!ref) {
        return;
      }
      const last = await lastRun(ref.file);
      if (!last) {
        void showInfo(vscode.l10n.t('Suite "{0}" has not run yet: run it, then export its report.', ref.file.parsed.suite.name));
        return;
      }
      const name = ref.file.parsed.suite.name.replace(/[^\p{L}\p{N}._-]+/gu, '-').replace(/^-+|-+$/g, '').slice(0, 80) || 'suite';
      const folder = vscode.workspace.getWorkspaceFolder(ref.file.uri)?.uri ?? vscode.Uri.joinPath(ref.file.uri, '..');
      const target_ = await vscode.window.showSaveDialog({
        defaultUri: vscode.Uri.joinPath(folder, `${name}.junit.xml`),
        filters: { [vscode.l10n.t('JUnit XML')]: ['xml'] },
        title: vscode.l10n.t('Export Suite Report (JUnit XML; the Markdown summary goes beside it)'),
      });
      if (!target_) {
        return;
      }
      const markdown = target_.with({ path: target_.path.replace(/(\.junit)?\.xml$/i, '') + '.md' });
      const encoder = new TextEncoder();
      await vscode.workspace.fs.writeFile(target_, encoder.encode(core.junitXml(last.record)));
      await vscode.workspace.fs.writeFile(markdown, encoder.encode(summaryOf(last)));
      void showInfo(vscode.l10n.t('Wrote {0} and {1}.', vscode.workspace.asRelativePath(target_), vscode.workspace.asRelativePath(markdown)));
    },

    /**
     * After a redeploy (platform/redeploy.ts): offers to run the suites that name this crew; true when it offered.
     * Never runs without the user's click (another extension or a link may call it).
     */
    async runForCrew(arg?: unknown): Promise<boolean> {
      const given = typeof arg === 'string' ? arg : (arg as { crewUrl?: unknown; url?: unknown } | undefined)?.crewUrl ?? (arg as { url?: unknown } | undefined)?.url;
      const url = typeof given === 'string' ? normaliseCrewUrl(given) : undefined;
      const crew = url?.ok ? services.crews.get(url.url) : undefined;
      if (!crew) {
        return false;
      }
      await explorer.settled();
      const files = explorer.list().filter((file) => {
        const resolved = resolveSuiteCrew(services.crews, file.parsed.suite.crew);
        return 'crew' in resolved && resolved.crew.url === crew.url && file.parsed.suite.cases.length > 0;
      });
      if (files.length === 0 || !vscode.workspace.isTrusted) {
        return false;
      }
      const runs = files.reduce((sum, file) => sum + core.suiteItems(file.parsed.suite).length, 0);
      const run = vscode.l10n.t('Run Suite');
      const names = files.map((file) => `"${file.parsed.suite.name}"`).join(', ');
      void showInfo(vscode.l10n.t('{0} was redeployed. Run its test suite {1} ({2} runs) to see whether it still does what it should?', crew.name, names, runs), run).then((choice) => {
        if (choice === run) {
          void context.runSuites(files);
        }
      });
      return true;
    },
  };
}

/** A suite run's summary: the core's Markdown, and what it was compared with. */
export function suiteSummaryMarkdown(core: SuiteCore, last: LastRun): string {
  const note = last.comparison
    ? last.pinned
      ? vscode.l10n.t('Compared with the pinned baseline (Pin as Baseline in the suite\'s menu).')
      : vscode.l10n.t('Compared with the previous run that ran these cases.')
    : vscode.l10n.t('No earlier run to compare with.');
  return `${core.markdownSummary(last.record, last.comparison)}\n_${note}_\n`;
}

function isTestItem(value: unknown): value is vscode.TestItem {
  return typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string' && typeof (value as { children?: unknown }).children === 'object';
}
