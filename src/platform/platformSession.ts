// The sign-in a platform command works with (asking for one through the "CrewAI" account when there is none),
// and the platform's faults in words, with the one action that fixes each.
import * as vscode from 'vscode';
import type { ServicesWithPlatform } from './platformServices';
import { errorText } from '../util/errorText';
import { showError } from '../ui/notify';
import type { PlatformSignIn } from './account';
import { SignInEnded } from './authProvider';
import { PlatformError } from './platformClient';

/** The current sign-in, or the one the user makes now; undefined when they did not. */
export async function signedIn(services: ServicesWithPlatform): Promise<PlatformSignIn | undefined> {
  const current = await services.platform.account.current();
  if (current) {
    return current;
  }
  const unreadable = services.platform.account.unreadable();
  if (unreadable) {
    // Not a missing sign-in: asking for a token now would fail to keep it, for the same reason.
    void showError(vscode.l10n.t('Could not read your CrewAI sign-in. {0}', unreadable.message));
    return undefined;
  }
  // The command needs a sign-in: its token prompt (titled "Sign in to CrewAI") comes straight away.
  return (await signInNow(services)) ? services.platform.account.current() : undefined;
}

/** The sign-in flow of the "CrewAI" account; false when the user gave up. */
export async function signInNow(services: ServicesWithPlatform): Promise<boolean> {
  try {
    await services.platform.auth.createSession();
    return true;
  } catch (error) {
    if (!(error instanceof SignInEnded)) {
      void showError(vscode.l10n.t('Could not sign in: {0}', errorText(error)));
    }
    return false; // Cancelled, or refused and not tried again: each was said where it happened.
  }
}

export async function describePlatformError(error: unknown, what: string): Promise<void> {
  if (error instanceof PlatformError && error.kind === 'aborted') {
    return;
  }
  if (error instanceof PlatformError && error.kind === 'unauthorized') {
    const signIn = vscode.l10n.t('Sign In Again');
    const answer = await showError(vscode.l10n.t('{0}: the platform refused your personal access token (wrong or expired).', what), signIn);
    if (answer === signIn) {
      await vscode.commands.executeCommand('crewRuns.platform.signIn');
    }
    return;
  }
  if (error instanceof PlatformError && error.kind === 'notFound') {
    const switchOrg = vscode.l10n.t('Switch Organization…');
    const answer = await showError(vscode.l10n.t('{0}: {1}', what, errorText(error)), switchOrg);
    if (answer === switchOrg) {
      await vscode.commands.executeCommand('crewRuns.platform.switchOrganization');
    }
    return;
  }
  void showError(vscode.l10n.t('{0}: {1}', what, errorText(error)));
}
