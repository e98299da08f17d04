// What the user types as a crew URL, before it is checked: a bare host (`example.com`, `127.0.0.1:8787`)
// means https. Pure, tested in plain Node.

/** `example.com` → `https://example.com`; text that names a scheme (`http://…`, `ftp:…`, `javascript:…`) is left as typed. */
export function withDefaultScheme(typed: string): string {
  const text = typed.trim();
  // "name:" followed by a digit is a host and port (localhost:8787), not a scheme.
  return text === '' || /^[a-z][a-z0-9+.-]*:(?!\d)/i.test(text) ? text : `https://${text}`;
}
