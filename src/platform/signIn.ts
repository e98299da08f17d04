// Signing in to the platform with a personal access token, and choosing the organization: asked through quick
// inputs, checked against /me/organizations before anything is saved.
import * as vscode from 'vscode';
import { originOf } from '../api/url';
import { checkToken } from '../crews/tokenRules';
import { errorText } from '../util/errorText';
import { describeTokenProblem, describeUrlProblemLocalized } from '../views/errorMessages';
import { showError, showWarning } from '../views/notify';
import { askPick, askText } from '../views/quickInput';
import type { Organization } from './parse';
import { PlatformError, type PlatformClient } from './platformClient';
import { readPlatformUrl } from './platformUrl';
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
