import * as assert from 'node:assert/strict';
import { defaultCrewName, endpointUrl, isHostedCrew, isLoopbackHost, normaliseCrewUrl } from '../../src/api/url';
import { backoffDelay, jitter, parseRetryAfter } from '../../src/api/retry';

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

  it('defaults a name from the host, or the path on loopback', () => {
    assert.equal(defaultCrewName('https://my-crew-1a2b.crewai.com'), 'my-crew-1a2b');
    assert.equal(defaultCrewName('http://127.0.0.1:8787/research'), 'research');
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
