// Issue 14, finding 2: the numeric settings a workspace could set are clamped, user-only where they are the user's
// business, restricted in an untrusted workspace, and declared so in package.json.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { clampSetting, NUMBER_SETTINGS, readCrewRunsNumbers, readNumberSetting, type NumberSetting, type SettingsSource } from '../../src/util/crewRunsSettings';

interface Declared {
  type?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  scope?: string;
}

const manifest = JSON.parse(readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, Declared> } };
  capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } };
};
const NAMES = Object.keys(NUMBER_SETTINGS) as NumberSetting[];

function source(values: Record<string, { globalValue?: unknown; workspaceValue?: unknown; workspaceFolderValue?: unknown }>): SettingsSource {
  return { inspect: (key) => values[key] ?? {} };
}

const HOSTILE = { maxRunsPerCrew: 1, pollMaxIntervalSeconds: 0, pollUnfocusedFactor: -5, watchDeadlineHours: 0, requestTimeoutSeconds: 1e308, batchConcurrency: 100 };

describe('crewRuns settings (issue 14, finding 2)', () => {
  it('every number setting in package.json has a minimum and a maximum, and the reader knows it with the same range and default', () => {
    const numbers = Object.entries(manifest.contributes.configuration.properties).filter(([, d]) => d.type === 'number' || d.type === 'integer');
    assert.deepEqual(numbers.map(([key]) => key).sort(), NAMES.map((n) => `crewRuns.${n}`).sort());
    for (const [key, declared] of numbers) {
      const rule = NUMBER_SETTINGS[key.replace('crewRuns.', '') as NumberSetting];
      assert.deepEqual([declared.minimum, declared.maximum, declared.default], [rule.min, rule.max, rule.fallback], key);
    }
  });

  it('maxRunsPerCrew is application-scoped and every other number is restricted in untrusted workspaces', () => {
    const properties = manifest.contributes.configuration.properties;
    assert.equal(properties['crewRuns.maxRunsPerCrew'].scope, 'application');
    const restricted = manifest.capabilities.untrustedWorkspaces.restrictedConfigurations;
    for (const name of NAMES) {
      assert.ok(properties[`crewRuns.${name}`].scope === 'application' || restricted.includes(`crewRuns.${name}`), name);
    }
    assert.ok(restricted.includes('crewRuns.crews'));
  });

  it('no setting a workspace can set applies in Restricted Mode (a workspace could silence notifications)', () => {
    const restricted = manifest.capabilities.untrustedWorkspaces.restrictedConfigurations;
    for (const [key, declared] of Object.entries(manifest.contributes.configuration.properties)) {
      const userOnly = declared.scope === 'application' || declared.scope === 'machine';
      assert.ok(userOnly || restricted.includes(key), `${key} is neither user-only nor restricted`);
    }
  });

  it('clamps every value to its range and treats what is not a finite number as the default', () => {
    assert.equal(clampSetting('pollMaxIntervalSeconds', 0), 2);
    assert.equal(clampSetting('pollMaxIntervalSeconds', -1), 2);
    assert.equal(clampSetting('pollMaxIntervalSeconds', 1e9), 300);
    assert.equal(clampSetting('pollUnfocusedFactor', 0), 1);
    assert.equal(clampSetting('requestTimeoutSeconds', 0), 5);
    assert.equal(clampSetting('watchDeadlineHours', 0), 0.1);
    assert.equal(clampSetting('maxRunsPerCrew', 7.9), 7);
    for (const bad of [NaN, Infinity, -Infinity, '10', null, undefined, {}, [5]]) {
      for (const name of NAMES) {
        assert.equal(clampSetting(name, bad), NUMBER_SETTINGS[name].fallback, `${name} ${String(bad)}`);
      }
    }
  });

  it('a workspace never sets maxRunsPerCrew, even when trusted; the user still can', () => {
    assert.equal(readNumberSetting(source({ maxRunsPerCrew: { workspaceValue: 1 } }), 'maxRunsPerCrew', true), 50);
    assert.equal(readNumberSetting(source({ maxRunsPerCrew: { workspaceFolderValue: 1, globalValue: 200 } }), 'maxRunsPerCrew', true), 200);
    assert.equal(readNumberSetting(source({ maxRunsPerCrew: { globalValue: 10 } }), 'maxRunsPerCrew', true), 10);
  });

  it('an untrusted workspace\'s hostile numbers change nothing; a trusted one\'s apply, clamped', () => {
    const values = Object.fromEntries(NAMES.map((n) => [n, { workspaceValue: HOSTILE[n], globalValue: undefined }]));
    const untrusted = readCrewRunsNumbers(source(values), false);
    assert.deepEqual(untrusted, Object.fromEntries(NAMES.map((n) => [n, NUMBER_SETTINGS[n].fallback])));
    const trusted = readCrewRunsNumbers(source(values), true);
    assert.deepEqual(trusted, { maxRunsPerCrew: 50, pollMaxIntervalSeconds: 2, pollUnfocusedFactor: 1, watchDeadlineHours: 0.1, requestTimeoutSeconds: 600, batchConcurrency: 4 });
  });

  it('with VS Code\'s resolved get: trusted numbers come from it, user-only and untrusted ones never do', () => {
    const values = Object.fromEntries(NAMES.map((n) => [n, { workspaceValue: HOSTILE[n], globalValue: undefined }]));
    const resolved: SettingsSource = { ...source(values), get: (key) => (values as Record<string, { workspaceValue: unknown }>)[key]?.workspaceValue };
    assert.deepEqual(readCrewRunsNumbers(resolved, true), readCrewRunsNumbers(source(values), true));
    assert.deepEqual(readCrewRunsNumbers(resolved, false), Object.fromEntries(NAMES.map((n) => [n, NUMBER_SETTINGS[n].fallback])));
  });
});
