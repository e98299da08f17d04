import * as assert from 'node:assert/strict';
import { defaultCrewName, endpointUrl, isHostedCrew, isLoopbackHost, normaliseCrewUrl } from '../../src/api/url';
import { backoffDelay, jitter, MAX_RETRY_AFTER_MS, parseRetryAfter } from '../../src/api/retry';
import { HOSTILE_RETRY_AFTER } from '../fixtures/hostileCorpus';

describe('crew URLs', () => {
  it('normalises scheme, host case, default port and trailing slashes', () => {
    assert.deepEqual(normaliseCrewUrl('  HTTPS://My-Crew.CrewAI.com:443/ '), { ok: true, url: 'https://my-crew.crewai.com' });
    assert.deepEqual(normaliseCrewUrl('https://host.example/base/path///'), { ok: true, url: 'https://host.example/base/path' });
    assert.deepEqual(normaliseCrewUrl('https://host.example:8443'), { ok: true, url: 'https://host.example:8443' });
  });

  it('refuses plain http except on loopback', () => {
    assert.deepEqual(normaliseCrewUrl('http://crew.example.com'), { ok: false, problem: 'insecureHttp' });
    assert.deepEqual(normaliseCrewUrl('http://10.0.0.5:8080'), { ok: false, problem: 'insecureHttp' });
    assert.deepEqual(normaliseCrewUrl('http://127.0.0.1:8787/research'), { ok: true, url: 'http://127.0.0.1:8787/research' });
    assert.deepEqual(normaliseCrewUrl('http://localhost:3000'), { ok: true, url: 'http://localhost:3000' });
    assert.deepEqual(normaliseCrewUrl('http://[::1]:3000'), { ok: true, url: 'http://[::1]:3000' });
    // Lookalikes of loopback are not loopback.
    assert.deepEqual(normaliseCrewUrl('http://127.0.0.1.evil.example'), { ok: false, problem: 'insecureHttp' });
    assert.deepEqual(normaliseCrewUrl('http://localhost.evil.example'), { ok: false, problem: 'insecureHttp' });
  });

  it('names each problem', () => {
    assert.deepEqual(normaliseCrewUrl(''), { ok: false, problem: 'empty' });
    assert.deepEqual(normaliseCrewUrl('   '), { ok: false, problem: 'empty' });
    assert.deepEqual(normaliseCrewUrl('not a url'), { ok: false, problem: 'malformed' });
    assert.deepEqual(normaliseCrewUrl('ftp://crew.example.com'), { ok: false, problem: 'unsupportedScheme' });
    assert.deepEqual(normaliseCrewUrl('javascript:alert(1)'), { ok: false, problem: 'unsupportedScheme' });
    assert.deepEqual(normaliseCrewUrl('https://user:pass@crew.example.com'), { ok: false, problem: 'credentials' });
    assert.deepEqual(normaliseCrewUrl('https://crew.example.com/?a=1'), { ok: false, problem: 'queryOrFragment' });
    assert.deepEqual(normaliseCrewUrl('https://crew.example.com/#x'), { ok: false, problem: 'queryOrFragment' });
    assert.deepEqual(normaliseCrewUrl('https://crew.example.com/a\nb'), { ok: false, problem: 'malformed' });
    assert.deepEqual(normaliseCrewUrl(`https://crew.example.com/${'a'.repeat(3000)}`), { ok: false, problem: 'tooLong' });
  });

  it('recognises loopback hosts only', () => {
    assert.equal(isLoopbackHost('127.0.0.1'), true);
    assert.equal(isLoopbackHost('127.255.0.9'), true);
    assert.equal(isLoopbackHost('[::1]'), true);
    assert.equal(isLoopbackHost('128.0.0.1'), false);
    assert.equal(isLoopbackHost('127.0.0.256'), false);
    assert.equal(isLoopbackHost('example.com'), false);
  });

  it('escapes path segments of endpoints', () => {
    assert.equal(endpointUrl('https://h.example/base', 'status', 'a/b?c'), 'https://h.example/base/status/a%2Fb%3Fc');
  });

  it('suggests a title-cased name from the host (a hosted crew\'s hash left out), or the path on loopback', () => {
    assert.equal(defaultCrewName('https://my-crew-1a2b.crewai.com'), 'My Crew');
    assert.equal(defaultCrewName('https://market-crew-7f3e9c21.crewai.com'), 'Market Crew');
    assert.equal(defaultCrewName('http://127.0.0.1:8787/research'), 'Research');
    assert.equal(defaultCrewName('http://127.0.0.1:8787/market_crew'), 'Market Crew');
    assert.equal(defaultCrewName('https://crews.example.com/a'), 'Crews', 'elsewhere the host, as it is');
  });
});

describe('backoff arithmetic', () => {
  it('keeps jitter within ±spread', () => {
    assert.equal(jitter(1000, 0.2, () => 0), 800);
    assert.equal(jitter(1000, 0.2, () => 0.5), 1000);
    assert.equal(jitter(1000, 0.2, () => 0.999999), 1200);
  });

  it('grows exponentially up to the cap', () => {
    assert.deepEqual([0, 1, 2, 3, 10].map((n) => backoffDelay(n, 500, 5000)), [500, 1000, 2000, 4000, 5000]);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    assert.equal(parseRetryAfter('3'), 3000);
    assert.equal(parseRetryAfter('0.5'), 500);
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now), 10_000);
    assert.equal(parseRetryAfter('Wed, 31 Dec 2025 00:00:10 GMT', now), 0);
    assert.equal(parseRetryAfter('soon'), undefined);
    assert.equal(parseRetryAfter(undefined), undefined);
  });

  it('never lets a Retry-After make a timer fire at once or never (issue 14, finding 4)', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    // Huge but well-formed: capped at 10 minutes (a setTimeout over 2^31-1 ms fires at once).
    assert.equal(MAX_RETRY_AFTER_MS, 600_000);
    assert.equal(parseRetryAfter('3000000', now), MAX_RETRY_AFTER_MS);
    assert.equal(parseRetryAfter('601', now), MAX_RETRY_AFTER_MS);
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 01:00:00 GMT', now), MAX_RETRY_AFTER_MS);
    // Nonsense: as if absent.
    for (const value of ['-5', 'NaN', '1e3', '0x10', '9'.repeat(320), 'Fri, 31 Dec 9999 23:59:59 GMT', 'Infinity', '', '5 s', '-Thu, 01 Jan 2026 00:00:10 GMT']) {
      assert.equal(parseRetryAfter(value, now), undefined, JSON.stringify(value.slice(0, 40)));
    }
    assert.equal(parseRetryAfter(' 7 ', now), 7000);
    for (const value of HOSTILE_RETRY_AFTER) {
      const ms = parseRetryAfter(value, now);
      assert.ok(ms === undefined || (Number.isInteger(ms) && ms >= 0 && ms <= MAX_RETRY_AFTER_MS), `${value.slice(0, 40)} → ${ms}`);
    }
  });
});

describe('isHostedCrew', () => {
  it('is true for crews on the hosted service only', () => {
    assert.equal(isHostedCrew('https://my-crew-1a2b3c.crewai.com'), true);
    assert.equal(isHostedCrew('https://MY-CREW.CrewAI.com/'), true);
    for (const url of ['http://127.0.0.1:8787/crew', 'https://crews.example.com', 'https://crewai.com.evil.example', 'https://notcrewai.com', 'not a url', undefined]) {
      assert.equal(isHostedCrew(url), false, String(url));
    }
  });
});
