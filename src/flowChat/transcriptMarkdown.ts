// A conversation as a Markdown document (Open as Markdown). Everything the flow or its server wrote is untrusted:
// each message goes in a fence it cannot close (so no link, `command:` URI, image or HTML of it is ever
// rendered), and the notes (which quote the server's words) are escaped. Pure: no `vscode` here.
import { stripControls } from '../util/inertText';
import { escapeMarkdown, fenceFor } from '../util/markdownText';

export interface TranscriptEntry {
  role: 'user' | 'assistant';
  content: string;
  /** What the panel said under the message (a failed turn, a message not sent). */
  note?: string;
}

export interface TranscriptLabels {
  title: string;
  you: string;
  flow: string;
}

export function transcriptMarkdown(labels: TranscriptLabels, entries: readonly TranscriptEntry[]): string {
  const oneLine = (text: string) => escapeMarkdown(stripControls(text).replace(/\s+/g, ' ').trim());
  const parts = [`# ${oneLine(labels.title)}`];
  for (const entry of entries) {
    parts.push(`**${oneLine(entry.role === 'user' ? labels.you : labels.flow)}**`);
    const content = stripControls(entry.content);
    if (content !== '') {
      const fence = fenceFor(content);
      parts.push(`${fence}text\n${content}\n${fence}`);
    }
    if (entry.note) {
      parts.push(`_${oneLine(entry.note)}_`);
    }
  }
  return `${parts.join('\n\n')}\n`;
}
