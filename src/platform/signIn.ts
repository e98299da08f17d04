// Signing in to the platform with a personal access token, and choosing the organization: asked through quick
// inputs, checked against /me/organizations before anything is saved. Its own bundle (dist/signIn.js, esbuild.js
// lazyModules), loaded on the first sign-in: it holds functions only, and reads a PlatformError by its kind, never
// by its class (the class here would be a copy of the one that threw).
import * as vscode from 'vscode';
import { normaliseCrewUrl, originOf } from '../api/url';
import { checkToken } from '../api/tokenRules';
import { errorText } from '../util/errorText';
import { describeTokenProblem, describeUrlProblemLocalized } from '../ui/errorMessages';
import { showError, showWarning } from '../ui/notify';
import { askPick, askText } from '../ui/quickInput';
import type { Organization } from './parse';
import type { PlatformClient, PlatformError, PlatformErrorKind } from './platformClient';
import { cliPaths, cliSignInExists, readCliSignIn } from './cliSignIn';
import { PLATFORM_URL_SETTING, readPlatformUrl } from './platformUrl';
import type { PlatformSignIn } from './account';

/** The kind of a platform client's error (platformClient.ts), undefined for any other error. */
function kindOf(error: unknown): PlatformErrorKind | undefined {
  return error instanceof Error && error.name === 'PlatformError' ? (error as PlatformError).kind : undefined;
}

/** A platform the demo crews serve on this machine (the simulator's routes), with its personal token. */
export interface DemoPlatform {
  url: string;
  token: string;
}

/** What the organizations route told about a token. */
type OrganizationsCheck = { ok: true; organizations: Organization[] | undefined } | { ok: false; error: unknown };

/** One request that checks the token, under a cancellable progress notification. */
function checking<T>(baseUrl: string, request: (signal: AbortSignal) => Promise<T>): Thenable<T> {
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Checking the token with {0}…', originOf(baseUrl)), cancellable: true },
    (_p, cancellation) => {
      const abort = new AbortController();
      cancellation.onCancellationRequested(() => abort.abort());
      return request(abort.signal);
    },
  );
}

async function checkOrganizations(client: PlatformClient, baseUrl: string, token: string): Promise<OrganizationsCheck> {
  try {
    const organizations = await checking(baseUrl, (signal) => client.organizations({ baseUrl, token }, signal));
    return { ok: true, organizations };
  } catch (error) {
    // An installation that does not serve the list: the token is checked by the first real call; the id is typed.
    if (kindOf(error) === 'notFound' || (kindOf(error) && (error as PlatformError).status === 405)) {
      return { ok: true, organizations: undefined };
    }
    return { ok: false, error };
  }
}

/** The deployments route with the organization given (none: the token's default one), to check a token the organizations route refused. */
async function checkDeployments(client: PlatformClient, baseUrl: string, token: string, organizationId: string | undefined): Promise<{ ok: true } | { ok: false; error: unknown }> {
  try {
    await checking(baseUrl, (signal) => client.deployments({ baseUrl, token, organizationId }, signal));
    return { ok: true };
  } catch (error) {
    return { ok: false, error };
  }
}

/**
 * Asks for a personal access token and the organization; undefined when the user gave up. Saves nothing except,
 * when the user picks the demo's platform, the platform URL setting (the pick says so).
 */
export async function askSignIn(client: PlatformClient, demo?: DemoPlatform): Promise<PlatformSignIn | undefined> {
  const platform = readPlatformUrl();
  if (!platform.ok && !demo) {
    void showError(vscode.l10n.t('The setting crewRuns.platform.url is not a usable platform URL: {0}', describeUrlProblemLocalized(platform.problem)));
    return undefined;
  }
  const baseUrl = platform.ok ? platform.url : undefined;
  const title = vscode.l10n.t('Sign in to CrewAI ({0})', baseUrl ? originOf(baseUrl) : demo?.url ?? '');
  // The demo's platform is offered while the demo crews run here; the CLI's sign-in only when it exists here,
  // and read only when the user picks it.
  const cli = await cliSignInExists(cliPaths());
  if (demo || cli) {
    // With the demo's platform among the choices, the title names no one platform.
    const how = await askHow(demo ? vscode.l10n.t('Sign in to CrewAI') : title, { demo, cli, baseUrl });
    if (how === undefined) {
      return undefined;
    }
    if (how === 'demo' && demo) {
      return signInToDemo(client, demo, baseUrl, title);
    }
    if (how === 'cli' && baseUrl) {
      return signInWithCli(client, baseUrl, title);
    }
  }
  if (!baseUrl) {
    return undefined;
  }
  for (;;) {
    const answer = await askText({
      title,
      password: true,
      quietUntilEdited: true,
      prompt: vscode.l10n.t(
        'Paste a personal access token (in the CrewAI web app: Settings → Account → Personal Access Token, at {0}). It is kept in VS Code\'s secret storage and sent only to {1}.',
        baseUrl,
        originOf(baseUrl),
      ),
      validate: (value) => describeTokenProblem(checkToken(value)),
    });
    if (answer.kind !== 'value') {
      return undefined;
    }
    const token = checkToken(answer.value);
    if (!token.ok) {
      continue;
    }
    let check = await checkOrganizations(client, baseUrl, token.token);
    if (!check.ok && (kindOf(check.error) === 'unauthorized' || kindOf(check.error) === 'forbidden')) {
      // Refused to list the organizations: a token that is wrong, or one the list is closed to while an
      // organization's own routes take it. The deployments route tells which; the id is then typed.
      const refusal = check.error as PlatformError;
      const probe = await checkDeployments(client, baseUrl, token.token, undefined);
      const probeKind = probe.ok ? undefined : kindOf(probe.error);
      const taken = probe.ok || probeKind === 'forbidden' || probeKind === 'notFound' || probeKind === 'invalid';
      if (taken) {
        const signIn = await signInWithTypedOrganization(client, baseUrl, token.token, title, refusal);
        if (signIn === 'again') {
          continue;
        }
        return signIn;
      }
      check = { ok: false, error: probe.ok ? refusal : probe.error };
    }
    if (!check.ok) {
      const again = vscode.l10n.t('Enter Again');
      const unauthorized = kindOf(check.error) === 'unauthorized';
      const message = unauthorized
        ? vscode.l10n.t('{0} refused this token: it is wrong or has expired. Create a new personal access token and sign in again.', originOf(baseUrl))
        : vscode.l10n.t('Could not sign in: {0}', errorText(check.error));
      if ((await showError(message, again)) === again) {
        continue;
      }
      return undefined;
    }
    const organization = await chooseOrganization(check.organizations, title);
    if (!organization) {
      return undefined;
    }
    return { baseUrl, token: token.token, organizationId: organization.uuid || undefined, organizationName: organization.name || undefined };
  }
}

type How = 'demo' | 'cli' | 'token';

async function askHow(title: string, offer: { demo?: DemoPlatform; cli: boolean; baseUrl?: string }): Promise<How | undefined> {
  const { demo, cli, baseUrl } = offer;
  const items: (vscode.QuickPickItem & { how: How })[] = [];
  if (demo) {
    items.push({
      how: 'demo',
      label: vscode.l10n.t('The demo’s platform'),
      description: demo.url,
      // Short: a longer detail is cut off, and what it changes must show.
      detail: demo.url === baseUrl ? vscode.l10n.t('On this machine, with the demo’s own token.') : vscode.l10n.t('On this machine, with the demo’s own token. Sets crewRuns.platform.url to it.'),
    });
  }
  if (cli && baseUrl) {
    items.push({ how: 'cli', label: vscode.l10n.t('Use the CrewAI CLI’s sign-in'), detail: vscode.l10n.t('The sign-in of `crewai login` on this machine: its token is read now and kept in VS Code’s secret storage like a pasted one.') });
  }
  if (baseUrl) {
    items.push({ how: 'token', label: vscode.l10n.t('Paste a personal access token'), description: originOf(baseUrl) });
  }
  const picked = await askPick({ title, placeholder: vscode.l10n.t('How do you want to sign in?'), items });
  return picked.kind === 'value' ? picked.value.how : undefined;
}

/**
 * The demo's platform (the simulator the demo crews run in): its token is the demo's own, checked as a pasted one
 * is; the platform URL setting becomes the demo's once the check passed (the pick said so).
 */
async function signInToDemo(client: PlatformClient, demo: DemoPlatform, configuredUrl: string | undefined, title: string): Promise<PlatformSignIn | undefined> {
  const url = normaliseCrewUrl(demo.url);
  if (!url.ok) {
    return undefined;
  }
  const check = await checkOrganizations(client, url.url, demo.token);
  if (!check.ok) {
    void showError(vscode.l10n.t('Could not sign in to the demo’s platform: {0}', errorText(check.error)));
    return undefined;
  }
  const organization = await chooseOrganization(check.organizations, title);
  if (!organization) {
    return undefined;
  }
  if (url.url !== configuredUrl) {
    await vscode.workspace.getConfiguration().update(PLATFORM_URL_SETTING, url.url, vscode.ConfigurationTarget.Global);
  }
  return { baseUrl: url.url, token: demo.token, organizationId: organization.uuid || undefined, organizationName: organization.name || undefined };
}

/**
 * The organizations list was refused to a token the platform otherwise takes: the user types the organization id,
 * and the token is checked with it. 'again' when the token should be asked for again.
 */
async function signInWithTypedOrganization(client: PlatformClient, baseUrl: string, token: string, title: string, refusal: PlatformError): Promise<PlatformSignIn | 'again' | undefined> {
  let prompt = vscode.l10n.t(
    '{0} did not list your organizations for this token ({1}), but takes the token. Type your organization id (a UUID, sent as X-Crewai-Organization-Id); empty for the token\'s default organization.',
    originOf(baseUrl),
    refusal.status ?? refusal.kind,
  );
  for (;;) {
    const organization = await askOrganizationId(title, prompt);
    if (!organization) {
      return undefined;
    }
    const check = await checkDeployments(client, baseUrl, token, organization.uuid || undefined);
    if (check.ok) {
      return { baseUrl, token, organizationId: organization.uuid || undefined, organizationName: organization.name || undefined };
    }
    if (kindOf(check.error) === 'aborted') {
      return undefined;
    }
    if (kindOf(check.error) === 'unauthorized') {
      const again = vscode.l10n.t('Enter Again');
      const answer = await showError(vscode.l10n.t('{0} refused this token: it is wrong or has expired. Create a new personal access token and sign in again.', originOf(baseUrl)), again);
      return answer === again ? 'again' : undefined;
    }
    if (kindOf(check.error) === 'forbidden' || kindOf(check.error) === 'notFound') {
      // Not this organization's member, or no such organization: the id is asked for again, saying why.
      prompt = vscode.l10n.t('{0} did not take this token for the organization {1}: {2} Type another organization id; empty for the token\'s default organization.', originOf(baseUrl), organization.uuid || vscode.l10n.t('(default)'), errorText(check.error));
      continue;
    }
    void showError(vscode.l10n.t('Could not sign in: {0}', errorText(check.error)));
    return undefined;
  }
}

/**
 * The CLI's sign-in (cliSignIn.ts): its token, checked like a pasted one; its platform URL (CLI settings
 * `enterprise_base_url`) made the platform URL setting only when the user agrees; its organization (`org_uuid`)
 * used without asking. An expired one is said as such: the user runs `crewai login` again.
 */
async function signInWithCli(client: PlatformClient, configuredUrl: string, title: string): Promise<PlatformSignIn | undefined> {
  const cli = await readCliSignIn(cliPaths());
  if (cli.kind === 'expired') {
    void showError(vscode.l10n.t('The CrewAI CLI’s sign-in expired on {0}: run `crewai login` again, then sign in here again.', cli.expiresAt.toLocaleString()));
    return undefined;
  }
  if (cli.kind !== 'ok') {
    const reason = cli.kind === 'unreadable' ? cli.reason : vscode.l10n.t('it is not there any more');
    void showError(vscode.l10n.t('Could not read the CrewAI CLI’s sign-in ({0}): run `crewai login` again, or paste a personal access token.', reason));
    return undefined;
  }
  let baseUrl = configuredUrl;
  if (cli.baseUrl) {
    const cliUrl = normaliseCrewUrl(cli.baseUrl);
    if (!cliUrl.ok) {
      void showError(vscode.l10n.t('The CrewAI CLI’s settings name a platform URL that is not usable ({0}): {1}', cli.baseUrl, describeUrlProblemLocalized(cliUrl.problem)));
      return undefined;
    }
    if (cliUrl.url !== configuredUrl) {
      // The CLI's token is for its platform only: never sent to another origin.
      const use = vscode.l10n.t('Use {0}', originOf(cliUrl.url));
      const answer = await showWarning(
        vscode.l10n.t('The CrewAI CLI is signed in to {0}, and Crew Runs uses {1}. Use {0} as your platform URL?', originOf(cliUrl.url), originOf(configuredUrl)),
        { modal: true, detail: vscode.l10n.t('This sets crewRuns.platform.url in your user settings.') },
        use,
      );
      if (answer !== use) {
        return undefined;
      }
      await vscode.workspace.getConfiguration().update(PLATFORM_URL_SETTING, cliUrl.url, vscode.ConfigurationTarget.Global);
      baseUrl = cliUrl.url;
    }
  }
  const check = await checkOrganizations(client, baseUrl, cli.token);
  if (!check.ok) {
    const unauthorized = kindOf(check.error) === 'unauthorized';
    void showError(
      unauthorized
        ? vscode.l10n.t('{0} refused the CrewAI CLI’s sign-in: run `crewai login` again, or paste a personal access token.', originOf(baseUrl))
        : vscode.l10n.t('Could not sign in: {0}', errorText(check.error)),
    );
    return undefined;
  }
  const organization = cli.organizationId ? { uuid: cli.organizationId, name: cli.organizationName ?? '' } : await chooseOrganization(check.organizations, title);
  if (!organization) {
    return undefined;
  }
  return { baseUrl, token: cli.token, organizationId: organization.uuid || undefined, organizationName: organization.name || undefined };
}

/**
 * One organization: that one. Several: a pick (with "type an id"). None listed, or no list served: the id
 * typed, or none (the platform's default organization). Undefined when the user gave up.
 */
export async function chooseOrganization(organizations: Organization[] | undefined, title: string, current?: string, alwaysAsk = false): Promise<Organization | undefined> {
  if (organizations && organizations.length === 1 && !alwaysAsk) {
    return organizations[0];
  }
  if (organizations && (organizations.length > 1 || (alwaysAsk && organizations.length === 1))) {
    const typeId = { label: vscode.l10n.t('Type an organization id…'), organization: undefined };
    const items = [
      ...organizations.map((o) => ({ label: o.name, description: o.uuid === current ? vscode.l10n.t('{0} · selected', o.uuid) : o.uuid, organization: o })),
      typeId,
    ];
    const picked = await askPick({ title, placeholder: vscode.l10n.t('Which organization\'s crews?'), items, activeItem: (current !== undefined && items.find((i) => i.organization?.uuid === current)) || items[0] });
    if (picked.kind !== 'value') {
      return undefined;
    }
    if (picked.value.organization) {
      return picked.value.organization;
    }
  } else if (organizations) {
    void showWarning(vscode.l10n.t('This token belongs to no organization the platform lists. Type an organization id, or leave it empty for the default one.'));
  }
  return askOrganizationId(title);
}

/** A typed organization id (empty: the token's default organization); undefined when the user gave up. */
async function askOrganizationId(title: string, prompt?: string): Promise<Organization | undefined> {
  const typed = await askText({
    title,
    prompt: prompt ?? vscode.l10n.t('The organization id (a UUID, sent as X-Crewai-Organization-Id); empty for the token\'s default organization.'),
    validate: (value) => (!value.trim() || /^[A-Za-z0-9._~-]{1,200}$/.test(value.trim()) ? undefined : vscode.l10n.t('An organization id has only letters, digits and - . _ ~')),
  });
  return typed.kind === 'value' ? { uuid: typed.value.trim(), name: typed.value.trim() } : undefined;
}
