// Helpers shared by the integration suites (they run inside the extension host).
export { holdsFor, waitFor, WaitForOptions } from './waitFor';
export { ui, uiBridgeAvailable, selectors } from './ui';
export { addCrewWithToken, kickOffWithoutReview, EXTENSION_ID, getExtension, getExtensionApi, contributedCommands, executeCommand, showCrewRunsView } from './extension';
export { LOG_CHANNEL_NAME, channelLogFile, channelLogFiles, readLog, readAllLogs, waitForLog, readExtensionHostLog, readExtensionHostLogs } from './log';
export { reload, reloadSuite, ReloadSteps, setPhaseStatsProvider } from './reload';
