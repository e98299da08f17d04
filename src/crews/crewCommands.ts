import * as vscode from 'vscode';
import { CrewApiError } from '../api/errors';
import type { CrewInputs } from '../api/types';
import { defaultCrewName, normaliseCrewUrl, originOf } from '../api/url';
import type { Crew } from './crewConfig';
import { checkToken, type TokenKind } from '../api/tokenRules';
import type { CrewServices } from './crewServices';
import { askPick, askText } from '../ui/quickInput';
import { describeError, describeTokenProblem, describeUrlProblemLocalized } from '../ui/errorMessages';
import { pickCrew } from './pickCrew';
import { withDefaultScheme } from './urlInput';
import { confirmAction, showError, showInfo, showStatusMessage, showWarning } from '../ui/notify';
import { inertLine } from '../util/inertText';
import { errorText } from '../util/errorText';

/** Arguments that let tests and the demo script add a crew without prompts. */
export interface AddCrewArguments {
  url: string;
  name?: string;
  token: string;
  tokenKind?: TokenKind;
}

export function registerCrewCommands(services: CrewServices): vscode.Disposable[] {
  const { crews } = services;
  return [
    // Always interactive: no command argument carries a token (tests add crews through the test API).
    vscode.commands.registerCommand('crewRuns.addCrew', () => addCrewInteractively(services)),
    vscode.commands.registerCommand('crewRuns.setToken', async (arg?: unknown) => {
      const crew = await pickCrew(crews, arg, vscode.l10n.t('Set the token of which crew?'));
      if (crew) {
        await setTokenInteractively(services, crew);
      }
    }),
    vscode.commands.registerCommand('crewRuns.forgetToken', async (arg?: unknown) => {
      const crew = await pickCrew(crews, arg, vscode.l10n.t('Forget the token of which crew?'));
      const forget = vscode.l10n.t('Forget Token');
      if (
        crew &&
        (await confirmAction(
          vscode.l10n.t('Forget the token of {0}?', crew.name),
          vscode.l10n.t('It is deleted from this machine ({0}). Kickoffs, checks and feedback for this crew need it set again.', crew.url),
          forget,
        ))
      ) {
        await forgetToken(services, crew);
        void showInfo(vscode.l10n.t('The token of {0} was deleted from this machine.', crew.name));
      }
    }),
    vscode.commands.registerCommand('crewRuns.removeCrew', async (arg?: unknown) => {
      const crew = await pickCrew(crews, arg, vscode.l10n.t('Remove which crew?'));
      if (!crew) {
        return;
      }
      const remove = vscode.l10n.t('Remove Crew');
      const answer = await showWarning(
        vscode.l10n.t('Remove {0}?', crew.name),
        { modal: true, detail: vscode.l10n.t('Its token is deleted from this machine too. Runs in the history stay until you remove them.') },
        remove,
      );
      if (answer === remove) {
        await crews.remove(crew);
      }
    }),
    vscode.commands.registerCommand('crewRuns.renameCrew', async (arg?: unknown) => {
      const crew = await pickCrew(crews, arg, vscode.l10n.t('Rename which crew?'));
      if (!crew) {
        return;
      }
      const name = await vscode.window.showInputBox({
        title: inertLine(vscode.l10n.t('Rename {0}', crew.name)),
        value: crew.name,
        validateInput: (value) => (value.trim() ? undefined : vscode.l10n.t('A crew needs a name.')),
      });
      if (name?.trim()) {
        await crews.rename(crew, name.trim());
      }
    }),
    vscode.commands.registerCommand('crewRuns.copyCrewUrl', async (arg?: unknown) => {
      const crew = await pickCrew(crews, arg, vscode.l10n.t('Copy the URL of which crew?'));
      if (crew) {
        await vscode.env.clipboard.writeText(crew.url);
        showStatusMessage(vscode.l10n.t('Copied {0}', crew.url), 3000);
      }
    }),
    vscode.commands.registerCommand('crewRuns.checkConnection', async (arg?: unknown) => {
      const crew = await pickCrew(crews, arg, vscode.l10n.t('Check which crew?'));
      if (!crew) {
        return;
      }
      const result = await checkConnection(services, crew);
      if (result.ok) {
        void showInfo(
          result.inputs.described
            ? vscode.l10n.t('{0} is ready. {1}', crew.name, describeInputs(result.inputs))
            : vscode.l10n.t('{0} is connected; {1}', crew.name, describeInputs(result.inputs)),
        );
      } else {
        await offerFix(services, crew, result.error);
      }
      return result.ok;
    }),
  ];
}

export type ConnectionCheck = { ok: true; inputs: CrewInputs } | { ok: false; error: unknown };

/** What a crew said about its inputs, as the end of a sentence. */
function describeInputs(inputs: CrewInputs): string {
  if (!inputs.described) {
    return vscode.l10n.t('this crew does not describe its inputs ({0}). Kick Off asks for their names and values.', inputs.reason);
  }
  const names = inputs.inputs.map((spec) => spec.name);
  return names.length ? vscode.l10n.t('It expects: {0}.', names.join(', ')) : vscode.l10n.t('It expects no inputs.');
}

/** GET /inputs under a progress indicator (with the saved token, or `token` being tried); the crew's health in the tree follows the answer. */
export async function checkConnection(services: CrewServices, crew: Crew, token?: string): Promise<ConnectionCheck> {
  const { crews, client, log } = services;
  if (!token && !(await crews.hasToken(crew.url))) {
    crews.setHealth(crew.url, 'noToken');
    return { ok: false, error: new CrewApiError('noToken', 'No token is stored for this crew.') };
  }
  // A token being tried (Add Crew, Set Token) says nothing about the saved one: the crew's row keeps its health
  // unless the new token works.
  const trying = token !== undefined;
  if (!trying) {
    crews.setHealth(crew.url, 'checking');
  }
  try {
    const inputs = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: inertLine(vscode.l10n.t('Checking the connection to {0}…', crew.name)), cancellable: true },
      (_progress, cancellation) => {
        const abort = new AbortController();
        cancellation.onCancellationRequested(() => abort.abort());
        return client.getInputs(crew.url, { token, signal: abort.signal });
      },
    );
    crews.setHealth(crew.url, 'ready');
    // A crew that once lacked POST /stop may have been redeployed with it: offer Stop Run again.
    await services.stops.forget(crew.url);
    log.info(
      `Connection to ${crew.name} (${crew.url}) is fine; inputs: ${inputs.described ? inputs.inputs.map((spec) => spec.name).join(', ') || '(none)' : `not described (${inputs.reason})`}`,
    );
    return { ok: true, inputs };
  } catch (error) {
    if (!trying) {
      crews.setHealth(crew.url, healthAfter(error));
    }
    log.warn(`Connection check of ${crew.name} (${crew.url}) failed: ${errorText(error)}`);
    return { ok: false, error };
  }
}

function healthAfter(error: unknown): 'tokenRejected' | 'noToken' | 'unreachable' | 'unknown' {
  if (error instanceof CrewApiError) {
    return error.kind === 'unauthorized' ? 'tokenRejected' : error.kind === 'noToken' ? 'noToken' : 'unreachable';
  }
  return 'unknown';
}

/** After a failed check: say what happened and offer the one thing that fixes it. */
export async function offerFix(services: CrewServices, crew: Crew, error: unknown): Promise<void> {
  const message = describeError(error, crew.name);
  if (error instanceof CrewApiError && (error.kind === 'unauthorized' || error.kind === 'noToken')) {
    const setToken = vscode.l10n.t('Set Token…');
    if ((await showError(message, setToken)) === setToken) {
      await setTokenInteractively(services, crew);
    }
    return;
  }
  const retry = vscode.l10n.t('Try Again');
  if ((await showError(message, retry)) === retry) {
    await vscode.commands.executeCommand('crewRuns.checkConnection', crew);
  }
}

export async function setTokenInteractively(services: CrewServices, crew: Crew): Promise<boolean> {
  // The URL in every token prompt: a workspace crew may be named like the user's own at another address.
  const title = vscode.l10n.t('Set Token for {0} ({1})', crew.name, crew.url);
  const kind = await askTokenKind(title, undefined, undefined, (await services.tokens.kind(crew.url)) ?? 'organization');
  if (kind.kind !== 'value') {
    return false;
  }
  for (;;) {
    const token = await askToken(title, crew.url);
    if (token.kind !== 'value') {
      return false;
    }
    const check = await checkConnection(services, crew, token.value);
    if (check.ok || !(check.error instanceof CrewApiError && check.error.kind === 'unauthorized')) {
      if (!check.ok) {
        const keep = vscode.l10n.t('Save Anyway');
        const answer = await showWarning(describeError(check.error, crew.name), keep);
        if (answer !== keep) {
          return false;
        }
      }
      await services.tokens.set(crew.url, token.value, kind.value);
      services.crews.setHealth(crew.url, check.ok ? 'ready' : 'unreachable');
      void showInfo(vscode.l10n.t('The token of {0} was saved.', crew.name));
      return true;
    }
    const again = vscode.l10n.t('Enter Again');
    if ((await showError(describeError(check.error, crew.name), again)) !== again) {
      return false;
    }
  }
}

/** Deletes the crew's token (after the question; the test API calls it without one). */
export async function forgetToken(services: CrewServices, crew: Crew): Promise<void> {
  await services.tokens.delete(crew.url);
  services.crews.setHealth(crew.url, 'noToken');
}

async function addCrewInteractively(services: CrewServices): Promise<Crew | undefined> {
  const title = vscode.l10n.t('Add Crew');
  const totalSteps = 4;
  let url = '';
  let name = '';
  let kind: TokenKind = 'organization';
  let step = 1;
  for (;;) {
    if (step === 1) {
      const answer = await askText({
        title,
        step,
        totalSteps,
        value: url || 'https://',
        quietUntilEdited: !url,
        prompt: vscode.l10n.t('The crew\'s base URL, from its Status tab in CrewAI (e.g. https://my-crew-1a2b3c.crewai.com); a host alone means https://.'),
        validate: (value) => {
          const result = normaliseCrewUrl(withDefaultScheme(value));
          return result.ok ? undefined : describeUrlProblemLocalized(result.problem);
        },
      });
      if (answer.kind !== 'value') {
        return undefined;
      }
      const normalised = normaliseCrewUrl(withDefaultScheme(answer.value));
      if (!normalised.ok) {
        continue;
      }
      const existing = services.crews.get(normalised.url);
      if (existing) {
        void showInfo(vscode.l10n.t('{0} is already in your crews as {1}.', normalised.url, existing.name));
        return existing;
      }
      if (url !== normalised.url) {
        name = '';
      }
      url = normalised.url;
      step = 2;
    } else if (step === 2) {
      const answer = await askText({
        title,
        step,
        totalSteps,
        value: name || defaultCrewName(url),
        prompt: vscode.l10n.t('A name for this crew, shown in the sidebar.'),
        canGoBack: true,
        validate: (value) => (value.trim() ? undefined : vscode.l10n.t('A crew needs a name.')),
      });
      if (answer.kind === 'back') {
        step = 1;
        continue;
      }
      if (answer.kind !== 'value') {
        return undefined;
      }
      name = answer.value.trim();
      step = 3;
    } else if (step === 3) {
      const answer = await askTokenKind(title, step, totalSteps, kind);
      if (answer.kind === 'back') {
        step = 2;
        continue;
      }
      if (answer.kind !== 'value') {
        return undefined;
      }
      kind = answer.value;
      step = 4;
    } else {
      const answer = await askToken(title, url, step, totalSteps);
      if (answer.kind === 'back') {
        step = 3;
        continue;
      }
      if (answer.kind !== 'value') {
        return undefined;
      }
      const crew: Crew = { url, name, source: 'user' };
      const check = await checkConnection(services, crew, answer.value);
      if (!check.ok) {
        if (check.error instanceof CrewApiError && check.error.kind === 'unauthorized') {
          const again = vscode.l10n.t('Enter Again');
          if ((await showError(describeError(check.error, name), again)) === again) {
            continue;
          }
          return undefined;
        }
        const save = vscode.l10n.t('Save Anyway');
        const edit = vscode.l10n.t('Edit URL');
        const choice = await showWarning(describeError(check.error, name), save, edit);
        if (choice === edit) {
          step = 1;
          continue;
        }
        if (choice !== save) {
          return undefined;
        }
      }
      await saveCrew(services, crew, answer.value, kind, check.ok);
      void showInfo(
        !check.ok
          ? vscode.l10n.t('Added {0}. Check its connection once it can be reached.', name)
          : check.inputs.described
            ? vscode.l10n.t('Added {0}. {1}', name, describeInputs(check.inputs))
            : vscode.l10n.t('Added {0}: connected; {1}', name, describeInputs(check.inputs)),
      );
      return crew;
    }
  }
}

/** A crew with its token, without asking (the environment import; the test API). */
export async function addCrewDirectly(services: CrewServices, args: AddCrewArguments): Promise<Crew | undefined> {
  const normalised = normaliseCrewUrl(args.url);
  if (!normalised.ok) {
    void showError(describeUrlProblemLocalized(normalised.problem));
    return undefined;
  }
  const token = checkToken(args.token);
  if (!token.ok) {
    void showError(describeTokenProblem(token) ?? '');
    return undefined;
  }
  const crew: Crew = { url: normalised.url, name: args.name?.trim() || defaultCrewName(normalised.url), source: 'user' };
  await saveCrew(services, crew, token.token, args.tokenKind ?? 'organization', false);
  return crew;
}

async function saveCrew(services: CrewServices, crew: Crew, token: string, kind: TokenKind, checked: boolean): Promise<void> {
  // Token first: a crew without its token would show as "token missing" for a moment.
  await services.tokens.set(crew.url, token, kind);
  await services.crews.addUserCrew(crew.name, crew.url);
  services.crews.setHealth(crew.url, checked ? 'ready' : 'unknown');
  services.log.info(`Added crew ${crew.name} (${crew.url}) with a ${kind} token.`);
}

function askTokenKind(title: string, step: number | undefined, totalSteps: number | undefined, current: TokenKind) {
  const items = [
    { label: vscode.l10n.t('Organization Bearer Token'), detail: vscode.l10n.t('Full crew operations. On the crew\'s Status tab: "Bearer Token".'), tokenKind: 'organization' as const },
    { label: vscode.l10n.t('User Bearer Token'), detail: vscode.l10n.t('Scoped to your user, with fewer permissions. On the Status tab: "User Bearer Token".'), tokenKind: 'user' as const },
  ];
  return askPick({
    title,
    step,
    totalSteps,
    placeholder: vscode.l10n.t('Which kind of token will you paste?'),
    items,
    activeItem: items.find((i) => i.tokenKind === current),
    canGoBack: step !== undefined && step > 1,
  }).then((r) => (r.kind === 'value' ? { kind: 'value' as const, value: r.value.tokenKind } : r));
}

function askToken(title: string, crewUrl: string, step?: number, totalSteps?: number) {
  return askText({
    title,
    step,
    totalSteps,
    password: true,
    prompt: vscode.l10n.t('Paste the token for {0}. It is kept in VS Code\'s secret storage and sent only to {1}.', crewUrl, originOf(crewUrl)),
    // The prompt names where the token goes; an empty-box message in its place would hide that before anything is typed.
    quietUntilEdited: true,
    canGoBack: step !== undefined && step > 1,
    validate: (value) => describeTokenProblem(checkToken(value)),
  }).then((r) => {
    if (r.kind !== 'value') {
      return r;
    }
    const check = checkToken(r.value);
    return check.ok ? { kind: 'value' as const, value: check.token } : { kind: 'cancel' as const };
  });
}

