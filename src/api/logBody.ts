// A deployment log's 2xx body, from its bytes to what the host shows of it, on the status reader's thread
// (statusReader.ts, HttpRequest.readLog): decoded and the token taken out (jsonBody.ts, as any reply), parsed once
// (JSON.parse within the budget, else the bounded reader keeping the last entries), and its last entries made into
// lines in one pass (logLines.ts: inert, cut, within MAX_LOG_TEXT_CHARS): the document's text, joined there, or the
// lines themselves. Only those cross to the host: no JSON for it to parse again. Pure.
import { readJsonBounded } from './boundedJson';
import { parsedWhole, redactedText } from './jsonBody';
import { LOG_READ_LIMITS, lastLogLines, logText, type LogLines, type LogText } from './logLines';

/** The body as JSON (a body that is no JSON has no lines, as a list that is no log). */
function logBodyValue(bytes: Uint8Array, token: string): unknown {
  const text = redactedText(bytes, token).trim();
  const whole = parsedWhole(text);
  if (whole) {
    return whole.value;
  }
  const read = text ? readJsonBounded(text, LOG_READ_LIMITS) : undefined;
  return read?.ok ? read.value : undefined;
}

/** The log's text, as its document shows it. */
export function readLogText(bytes: Uint8Array, token: string): LogText {
  return logText(logBodyValue(bytes, token));
}

/** The log's last lines. */
export function readLogLines(bytes: Uint8Array, token: string): LogLines {
  return lastLogLines(logBodyValue(bytes, token));
}
