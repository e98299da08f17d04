/** Marks in the extension host's performance timeline (`performance.mark`); the bench reads them. */
export const CORE_STARTED_MARK = 'crewRuns.coreStarted';
