// What every webview page's HTML shell shares: its Content Security Policy, HTML escaping and the page
// itself (head, a loading note, one nonce script). Pure: no `vscode` here (the hosts pass URIs in).
import { randomBytes } from 'node:crypto';

/** Scripts only by nonce, styles and fonts only from the extension; no <base> can redirect relative URLs
 *  and no form can post anywhere, whatever the page ends up holding. `workers`: the page may start workers
 *  from blob: URLs, which only its own (nonce) script can make; a worker cannot touch the page's DOM. */
export function pageCsp(cspSource: string, nonce: string, workers = false): string {
  return [
    "default-src 'none'",
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
    ...(workers ? ['worker-src blob:'] : []),
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface PageShell {
  /** The webview's `cspSource`. */
  cspSource: string;
  /** `vscode.env.language`. */
  language: string;
  title: string;
  /** Stylesheet URIs (webview URIs as strings), in order. */
  styles: string[];
  script: string;
  /** Shown until the script has built the page. */
  loading: string;
  /** `data-*` attributes of <body> (names without the prefix). */
  data?: Record<string, string>;
  /** The page starts a worker from a blob: URL (see pageCsp). */
  workers?: boolean;
}

/** The whole HTML of a page: a fresh nonce each time, so a reloaded page never reuses one. */
export function pageHtml(shell: PageShell): string {
  const nonce = randomBytes(16).toString('hex');
  const data = Object.entries(shell.data ?? {})
    .map(([name, value]) => ` data-${name}="${escapeHtml(value)}"`)
    .join('');
  return `<!DOCTYPE html>
<html lang="${escapeHtml(shell.language)}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${pageCsp(shell.cspSource, nonce, shell.workers)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${shell.styles.map((href) => `<link rel="stylesheet" href="${escapeHtml(href)}">`).join('\n')}
<title>${escapeHtml(shell.title)}</title>
</head>
<body${data}>
<main id="root" aria-live="polite"><p>${escapeHtml(shell.loading)}</p></main>
<script nonce="${nonce}" src="${escapeHtml(shell.script)}"></script>
</body>
</html>`;
}
