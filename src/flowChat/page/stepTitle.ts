// A chat step's title in words (the page's, unit-tested in plain Node): "Used search_knowledge_base" for the
// flow's `tool_usage_finished`, "Using …" while it runs, "… failed"; another event's name as words
// ("agent_execution_started" → "Agent execution started"). Never the raw event name.

/** The words, each with `{0}` for the tool's name (the host's, translated). */
export interface StepWords {
  toolUsed: string;
  toolUsing: string;
  toolFailed: string;
  /** An event without a usable name. */
  step: string;
}

export function stepTitle(event: string, tool: string | undefined, words: StepWords): string {
  const fill = (pattern: string) => pattern.split('{0}').join(tool ?? '');
  if (tool !== undefined && /^tool_usage_(finished|completed|ended)$/i.test(event)) {
    return fill(words.toolUsed);
  }
  if (tool !== undefined && /^tool_usage_started$/i.test(event)) {
    return fill(words.toolUsing);
  }
  if (tool !== undefined && /^tool_usage_(error|failed)$/i.test(event)) {
    return fill(words.toolFailed);
  }
  const named = event.replace(/[_\s]+/g, ' ').trim();
  const title = named ? named[0].toUpperCase() + named.slice(1) : words.step;
  return tool === undefined ? title : `${title}: ${tool}`;
}
