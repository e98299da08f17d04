// Signing in to the platform with a personal access token, and choosing the organization: asked through quick
// inputs, checked against /me/organizations before anything is saved.
import * as vscode from 'vscode';
import { normaliseCrewUrl, originOf } from '../api/url';
import { checkToken } from '../api/tokenRules';
import { errorText } from '../util/errorText';
import { describeTokenProblem, describeUrlProblemLocalized } from '../ui/errorMessages';
import { showError, showWarning } from '../ui/notify';
import { askPick, askText } from '../ui/quickInput';
import type { Organization } from './parse';
import { PlatformError, type PlatformClient } from './platformClient';
import { cliPaths, cliSignInExists, readCliSignIn } from './cliSignIn';
import { PLATFORM_URL_SETTING, readPlatformUrl } from './platformUrl';
import type { PlatformSignIn } from './account';

/** What the organizations route told about a token. */
type OrganizationsCheck = { ok: true; organizations: Organization[] | undefined } | { ok: false; error: unknown };

async function checkOrganizations(client: PlatformClient, baseUrl: string, token: string): Promise<OrganizationsCheck> {
  try {
    const organizations = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Checking the token with {0}…', originOf(baseUrl)), cancellable: true },
      (_p, cancellation) => {
        const abort = new AbortController();
        cancellation.onCancellationRequested(() => abort.abort());
        return client.organizations({ baseUrl, token }, abort.signal);
      },
    );
    return { ok: true, organizations };
  } catch (error) {
    // An installation that does not serve the list: the token is checked by the first real call; the id is typed.
    if (error instanceof PlatformError && (error.kind === 'notFound' || error.status === 405)) {
      return { ok: true, organizations: undefined };
    }
    return { ok: false, error };
  }
}

/** Asks for a personal access token and the organization; undefined when the user gave up. Saves nothing. */
export async function askSignIn(client: PlatformClient): Promise<PlatformSignIn | undefined> {
  const platform = readPlatformUrl();
  if (!platform.ok) {
    void showError(vscode.l10n.t('The setting crewRuns.platform.url is not a usable platform URL: {0}', describeUrlProblemLocalized(platform.problem)));
    return undefined;
  }
  const baseUrl = platform.url;
  const title = vscode.l10n.t('Sign in to CrewAI ({0})', originOf(baseUrl));
  // The CLI's sign-in is offered only when it exists here, and read only when the user picks it.
  if (await cliSignInExists(cliPaths())) {
    const how = await askHow(title);
    if (how === undefined) {
      return undefined;
    }
    if (how === 'cli') {
      return signInWithCli(client, baseUrl, title);
    }
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
    const check = await checkOrganizations(client, baseUrl, token.token);
    if (!check.ok) {
      const again = vscode.l10n.t('Enter Again');
      const unauthorized = check.error instanceof PlatformError && check.error.kind === 'unauthorized';
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

async function askHow(title: string): Promise<'cli' | 'token' | undefined> {
  const picked = await askPick<vscode.QuickPickItem & { how: 'cli' | 'token' }>({
    title,
    placeholder: vscode.l10n.t('How do you want to sign in?'),
    items: [
      { how: 'cli', label: vscode.l10n.t('Use the CrewAI CLI’s sign-in'), detail: vscode.l10n.t('The sign-in of `crewai login` on this machine: its token is read now and kept in VS Code’s secret storage like a pasted one.') },
      { how: 'token', label: vscode.l10n.t('Paste a personal access token') },
    ],
  });
  return picked.kind === 'value' ? picked.value.how : undefined;
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
    const unauthorized = check.error instanceof PlatformError && check.error.kind === 'unauthorized';
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
  const typed = await askText({
    title,
    prompt: vscode.l10n.t('The organization id (a UUID, sent as X-Crewai-Organization-Id); empty for the token\'s default organization.'),
    validate: (value) => (!value.trim() || /^[A-Za-z0-9._~-]{1,200}$/.test(value.trim()) ? undefined : vscode.l10n.t('An organization id has only letters, digits and - . _ ~')),
  });
  return typed.kind === 'value' ? { uuid: typed.value.trim(), name: typed.value.trim() } : undefined;
}
