// The suite file's JSON Schema (schemas/crew-suite.schema.json, contributed for *.crew-suite.yaml through
// yamlValidation: completion and checks as you type) agrees with the reader (src/suites/core/suiteFile.ts).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv from 'ajv';
import { parse } from 'yaml';
import { CHECK_TYPES, parseSuite } from '../../src/suites/core/suiteFile';

const repoRoot = path.resolve(__dirname, '..', '..', '..');
const schema = JSON.parse(fs.readFileSync(path.join(repoRoot, 'schemas', 'crew-suite.schema.json'), 'utf8')) as {
  definitions: { checks: { properties: Record<string, unknown> } };
};
const validate = new Ajv({ strict: false }).compile(schema);

describe('suite file schema', () => {
  it('is contributed for *.crew-suite.yaml and .yml, and packaged', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { contributes: { yamlValidation: { fileMatch: string[]; url: string }[] } };
    assert.deepEqual(manifest.contributes.yamlValidation, [{ fileMatch: ['*.crew-suite.yaml', '*.crew-suite.yml'], url: './schemas/crew-suite.schema.json' }]);
    assert.match(fs.readFileSync(path.join(repoRoot, '.vscodeignore'), 'utf8'), /^!schemas\/crew-suite\.schema\.json$/m);
  });

  it('names exactly the check types the reader knows', () => {
    assert.deepEqual(Object.keys(schema.definitions.checks.properties).sort(), [...CHECK_TYPES].sort());
  });

  it('accepts the demo suite, which the reader reads without a problem', () => {
    const text = fs.readFileSync(path.join(repoRoot, 'test', 'fixtures', 'suites', 'demo.crew-suite.yaml'), 'utf8');
    assert.ok(validate(parse(text)), JSON.stringify(validate.errors));
    const parsed = parseSuite(text, 'demo');
    assert.deepEqual(parsed.problems, []);
    assert.equal(parsed.suite.cases.length, 4);
  });

  it('flags what the reader flags: an unknown check type, a wrong state, a case without a name', () => {
    for (const bad of [
      'cases:\n  - name: a\n    checks: { smells: nice }\n',
      'cases:\n  - name: a\n    checks: { state: maybe }\n',
      'cases:\n  - inputs: {}\n',
      'cases:\n  - name: a\n    checks: { judge: { threshold: 2, criteria: x } }\n',
    ]) {
      assert.equal(validate(parse(bad)), false, bad);
      assert.ok(parseSuite(bad, 'x').problems.some((p) => p.severity === 'error'), bad);
    }
  });
});
