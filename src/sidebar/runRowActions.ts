// How many inline action icons a run row shows when it is selected or hovered. They take the row's
// room from the right, so the label is cut to leave the state in sight even then. Mirrors the
// `view/item/context` inline entries of package.json (a unit test keeps the two in step).

/** The run row's contextValue words that decide its inline actions. */
export function runRowActionCount(contextValue: string): number {
  const has = (word: string) => new RegExp(`\\b${word}\\b`).test(contextValue);
  return [
    has('needsFeedback'), // Give Feedback
    has('finished'), // Run Again
    has('stopped'), // Resume Watching
    (has('watching') || has('stopped')) && !has('noStop'), // Stop Run
  ].filter(Boolean).length;
}
