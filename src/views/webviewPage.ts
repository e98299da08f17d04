// What every webview page's HTML shell shares: its Content Security Policy and HTML escaping.
// Pure: no `vscode` here.

/** Scripts only by nonce, styles and fonts only from the extension; no <base> can redirect relative URLs
 *  and no form can post anywhere, whatever the page ends up holding. */
export function pageCsp(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
