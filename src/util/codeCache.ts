// Loads a CommonJS file as `require` would, through V8's code cache: the first load compiles it and can
// save what V8 compiled by then; every later load (each window, each start) takes that instead of parsing
// and compiling the file again. The cache is keyed by the file's content (its length and CRC-32, as Node's own
// compile cache checks a source), its path and Node's version; anything V8 refuses, or any cache that cannot be
// read, means a normal compile. Plain Node, no vscode.
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { createRequire, wrap } from 'node:module';
import * as path from 'node:path';
import * as vm from 'node:vm';
import * as zlib from 'node:zlib';

export interface CachedModule<T> {
  exports: T;
  /** True when V8 took the saved cache. */
  fromCache: boolean;
  /**
   * Saves what V8 has compiled of the file by now (call it once the start-up code has run, so its
   * functions are in it too), replacing older caches of the same file. Nothing to do when the load
   * came from the cache; false when it could not be saved (the next load compiles, as without one).
   */
  persist(): Promise<boolean>;
}

export function loadWithCodeCache<T>(file: string, cacheDir: string): CachedModule<T> {
  // The bytes are hashed as read; an ASCII file (our bundles: esbuild escapes the rest) is one byte a character,
  // taken as it is, where decoding UTF-8 and hashing the string cost a start about a millisecond more.
  const bytes = fs.readFileSync(file);
  const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  const name = path.basename(file, '.js');
  const key = cacheKey(file, bytes);
  const cacheFile = path.join(cacheDir, `${name}-${key}.bin`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    cachedData = undefined; // None yet.
  }
  const script = new vm.Script(wrap(source), { filename: file, cachedData });
  const fromCache = cachedData !== undefined && !script.cachedDataRejected;
  // A require of the file's own: relative paths from its folder, and VS Code's `vscode` module, which the
  // extension host gives by the requiring file's path.
  const module = { exports: {} as unknown };
  const run = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: { exports: unknown }, filename: string, dirname: string) => void;
  run.call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
  return {
    exports: module.exports as T,
    fromCache,
    persist: async () => {
      if (fromCache) {
        return true;
      }
      try {
        const data = script.createCachedData();
        await fs.promises.mkdir(cacheDir, { recursive: true });
        const others = (await fs.promises.readdir(cacheDir)).filter((entry) => entry.startsWith(`${name}-`) && entry !== path.basename(cacheFile));
        await Promise.all(others.map((entry) => fs.promises.rm(path.join(cacheDir, entry), { force: true })));
        // Written whole or not at all: another window may be reading it.
        const partial = `${cacheFile}.${process.pid}.tmp`;
        await fs.promises.writeFile(partial, data);
        await fs.promises.rename(partial, cacheFile);
        return true;
      } catch {
        return false;
      }
    },
  };
}

/** Node's version, the file's path, its length and checksum: CRC-32 where Node has it (20.15 on; VS Code 1.96 ships 20.18), else SHA-256. */
function cacheKey(file: string, bytes: Buffer): string {
  const where = `${process.version}\0${process.arch}\0${file}`;
  if (typeof zlib.crc32 === 'function') {
    return [zlib.crc32(where), bytes.length, zlib.crc32(bytes)].map((n) => n.toString(16)).join('-');
  }
  return createHash('sha256').update(where).update(bytes).digest('hex').slice(0, 32);
}
