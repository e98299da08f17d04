// Raw DEFLATE the host sent (outputs' segments, a long trace), inflated natively by the page: a few ms for a few MB,
// against several times more bytes through the workbench.

/** The page can inflate: the host may deflate what it sends (the page says so in `ready` and `loadMore`). */
export const canInflate = ((): boolean => {
  try {
    return typeof DecompressionStream === 'function' && new DecompressionStream('deflate-raw') instanceof DecompressionStream;
  } catch {
    return false; // 'deflate-raw' came later than the stream itself.
  }
})();

export function inflate(bytes: Uint8Array): Promise<string> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  return new Response(stream).text();
}
