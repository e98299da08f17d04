import * as vscode from 'vscode';
import { defaultCrewName, normaliseCrewUrl } from '../api/url';
import { checkToken } from '../api/tokenRules';
import type { CrewServices } from './crewServices';
import { showInfo } from '../ui/notify';
import { addCrewDirectly } from './crewCommands';

const OFFERED_KEY = 'crewRuns.environmentImportOffered';

/**
 * CrewAI's own tools read CREWAI_API_URL and CREWAI_BEARER_TOKEN. When they are set for a crew
 * we do not know yet, offer once to import it.
 */
export async function offerEnvironmentImport(services: CrewServices, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const url = env.CREWAI_API_URL;
  const token = env.CREWAI_BEARER_TOKEN;
  if (!url || !token) {
    return;
  }
  const normalised = normaliseCrewUrl(url);
  const checked = checkToken(token);
  if (!normalised.ok || !checked.ok || services.crews.get(normalised.url)) {
    return;
  }
  // Offered once across windows: the first to add the URL under the key's lock offers it.
  let first = false;
  await services.shared.change<unknown>(OFFERED_KEY, (stored) => {
    const offered = Array.isArray(stored) ? stored.filter((url): url is string => typeof url === 'string') : [];
    first = !offered.includes(normalised.url);
    return first ? [...offered, normalised.url] : offered;
  });
  if (!first) {
    return;
  }
  const importCrew = vscode.l10n.t('Import Crew');
  const choice = await showInfo(
    vscode.l10n.t('CREWAI_API_URL and CREWAI_BEARER_TOKEN are set for {0}. Add it to your crews? The token goes to VS Code\'s secret storage.', normalised.url),
    importCrew,
    vscode.l10n.t('Not Now'),
  );
  if (choice === importCrew) {
    await addCrewDirectly(services, { url: normalised.url, name: defaultCrewName(normalised.url), token: checked.token });
    await vscode.commands.executeCommand('crewRuns.checkConnection', normalised.url);
  }
}
