// Which of the user's crews a suite runs against: the one its `crew:` names, by URL or by name. A crew that is not
// configured is never reached (it would have no token, and a suite must not send one anywhere): one clear problem.
import * as l10n from '@vscode/l10n';
import { normaliseCrewUrl } from '../api/url';
import type { Crew } from '../crews/crewConfig';
import type { CrewReference } from './core/types';

export function resolveSuiteCrew(crews: { list(): readonly Crew[]; get(url: string): Crew | undefined }, reference: CrewReference | undefined): { crew: Crew } | { problem: string } {
  if (!reference) {
    return { problem: l10n.t('The suite names no crew: add "crew:" with the URL or the name of one of your crews.') };
  }
  if (reference.kind === 'url') {
    const url = normaliseCrewUrl(reference.url);
    const crew = url.ok ? crews.get(url.url) : undefined;
    return crew ? { crew } : { problem: l10n.t('The suite runs against {0}, which is not one of your crews. Add it, with its token, to run the suite.', reference.url) };
  }
  const all = crews.list();
  const crew = all.find((c) => c.name === reference.name) ?? all.find((c) => c.name.toLocaleLowerCase() === reference.name.toLocaleLowerCase());
  return crew ? { crew } : { problem: l10n.t('The suite runs against the crew "{0}", which is not one of your crews. Add it (or name one of yours) to run the suite.', reference.name) };
}
