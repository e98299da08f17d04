import * as l10n from '@vscode/l10n';
import { CrewApiError } from '../api/errors';
import { type CrewUrlProblem, isHostedCrew } from '../api/url';
import type { TokenCheck } from '../api/tokenRules';
import { errorText } from '../util/errorText';

/** A failed call in plain words for a notification; never contains a token (the client redacts). */
export function describeError(error: unknown, crewName: string): string {
  if (!(error instanceof CrewApiError)) {
    return l10n.t('Something went wrong talking to {0}: {1}', crewName, errorText(error));
  }
  const server = error.serverMessage ? ` ${l10n.t('The crew said: "{0}"', error.serverMessage)}` : '';
  // Advice about the hosted service's Status tab and token kinds only makes sense for a hosted crew.
  const hosted = isHostedCrew(error.origin);
  switch (error.kind) {
    case 'unauthorized':
      if (error.status === undefined) {
        return l10n.t('{0} has no token yet. Set its token first.', crewName);
      }
      if (error.status === 403) {
        return (hosted
          ? l10n.t('{0} does not allow this with its stored token (403). A User Bearer Token can do less than the organization Bearer Token.', crewName)
          : l10n.t('{0} does not allow this with its stored token (403).', crewName)) + server;
      }
      return (hosted
        ? l10n.t('{0} rejected the token (401). It may have been reset on the crew\'s Status tab.', crewName)
        : l10n.t('{0} rejected the token (401).', crewName)) + server;
    case 'noToken':
      return l10n.t('{0} has no token yet. Set its token first.', crewName);
    case 'notFound':
      return l10n.t('{0} answered 404 (not found).', crewName) + server;
    case 'missingInputs':
      return l10n.t('{0} needs these inputs: {1}.', crewName, (error.missingInputs ?? []).join(', ')) + server;
    case 'badRequest':
      return l10n.t('{0} refused the request ({1}).', crewName, String(error.status ?? 400)) + server;
    case 'rateLimited':
      // Said of what the user asked for (a kickoff, a resume, a check): it did not go through, and nothing
      // sends it again by itself (only polls are retried, and they say nothing).
      return error.retryAfterMs !== undefined
        ? l10n.t('{0} is limiting requests (429) and did not take this one. Try again in {1} s.', crewName, String(Math.ceil(error.retryAfterMs / 1000)))
        : l10n.t('{0} is limiting requests (429) and did not take this one. Try again in a moment.', crewName);
    case 'server':
      return l10n.t('{0} had a server error ({1}).', crewName, String(error.status ?? 500)) + server;
    case 'network':
      // The transport's own words start "Could not reach <origin>: <reason>": say it once, with the crew's name.
      return error.message.startsWith('Could not reach ')
        ? l10n.t('Could not reach {0} at {1}', crewName, error.message.slice('Could not reach '.length))
        : l10n.t('Could not reach {0}. {1}', crewName, error.message);
    case 'timeout':
      return l10n.t('{0} did not answer in time. A crew that has been idle can take a while to wake up.', crewName);
    case 'badResponse':
      return l10n.t('{0} sent a reply Crew Runs could not read. {1}', crewName, error.message);
    case 'refused':
      return error.urlProblem !== undefined ? describeUrlProblemLocalized(error.urlProblem) : error.message;
  }
}

export function describeUrlProblemLocalized(problem: CrewUrlProblem): string {
  switch (problem) {
    case 'empty':
      return l10n.t('Enter the crew URL, e.g. https://my-crew-1a2b3c.crewai.com');
    case 'unsupportedScheme':
      return l10n.t('A crew URL starts with https://');
    case 'credentials':
      return l10n.t('A crew URL must not contain a user name or password; the token is asked for next.');
    case 'queryOrFragment':
      return l10n.t('Use the crew\'s base URL, without ?query or #fragment.');
    case 'insecureHttp':
      return l10n.t('Plain http:// is only allowed for this machine (localhost); use https://');
    case 'tooLong':
      return l10n.t('That URL is too long to be a crew URL.');
    case 'malformed':
      return l10n.t('That is not a valid URL.');
  }
}

export function describeTokenProblem(check: TokenCheck): string | undefined {
  if (check.ok) {
    return undefined;
  }
  switch (check.problem) {
    case 'empty':
      return l10n.t('Paste the token from the crew\'s Status tab.');
    case 'whitespace':
      return l10n.t('A token has no spaces or line breaks; paste only the token.');
    case 'control':
      return l10n.t('The token contains control characters; paste only the token.');
    case 'tooLong':
      return l10n.t('That is too long to be a token.');
    case 'nonAscii':
      return l10n.t('A token has only plain ASCII letters, digits and symbols; this one has other characters (check what was copied).');
  }
}
