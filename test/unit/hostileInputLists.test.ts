// Issue #47: a crew declaring 10,000 required inputs. The list is capped where it enters (GET /inputs, and the
// names a 422 adds in Kick Off), the cap is said, and mapping a batch's rows costs rows × columns, with the inputs
// no column provides reported once for the table, not once per row.
import * as assert from 'node:assert/strict';
import { inputsLeftOut, MAX_INPUTS, parseInputsBody } from '../../src/api/inputsBody';
import { mapColumns } from '../../src/batches/core/mapping';
import { inputsCapNotice, inputsToAsk, withInputs } from '../../src/kickoff/core/inputSteps';
import type { InputSpec } from '../../src/api/types';
import { manyInputsBody } from '../fixtures/hostileTables';

describe('Hostile input lists (#47)', () => {
  it(`keeps the first ${MAX_INPUTS} of 10,000 declared inputs, in every shape of GET /inputs, and says how many more`, () => {
    const body = manyInputsBody(10_000);
    const names = body.inputs.map((input) => input.name);
    const shapes: unknown[] = [
      body,
      body.inputs,
      names,
      { inputs: names },
      { properties: Object.fromEntries(names.map((name) => [name, { type: 'string' }])), required: names },
      Object.fromEntries(names.map((name) => [name, 'string'])),
    ];
    for (const shape of shapes) {
      const specs = parseInputsBody(shape)!;
      assert.equal(specs.length, MAX_INPUTS);
      assert.deepEqual(specs.slice(0, 2).map((spec) => spec.name), ['input_0', 'input_1']);
      assert.equal(inputsLeftOut(specs), 10_000 - MAX_INPUTS);
      // The wizard asks one step per input kept.
      assert.equal(inputsToAsk(specs).length, MAX_INPUTS);
    }
    const few = parseInputsBody({ inputs: ['topic'] })!;
    assert.equal(inputsLeftOut(few), 0);
    assert.equal(inputsCapNotice('Research', few), undefined);
    assert.equal(
      inputsCapNotice('Research', parseInputsBody(body)!),
      `Research lists 10000 inputs; only the first ${MAX_INPUTS} are asked for and sent.`,
    );
  });

  it(`adds the names a 422 says are missing only up to ${MAX_INPUTS} inputs`, () => {
    const specs: InputSpec[] = [{ name: 'topic' }];
    const added = withInputs(specs, Array.from({ length: 10_000 }, (_, i) => `extra_${i}`));
    assert.equal(added.length, MAX_INPUTS);
    assert.deepEqual(withInputs(specs, ['topic', 'tone']).map((spec) => spec.name), ['topic', 'tone'], 'a name already listed is not added twice');
  });

  it('maps 2,000 rows against 10,000 declared required inputs in rows × columns (was +920 MB, 12 s), the inputs without a column said once', () => {
    const inputs = manyInputsBody(10_000).inputs;
    const rows = Array.from({ length: 2_000 }, (_, i) => ({ input_0: `value ${i}`, input_1: i % 2 ? 'x' : '', notes: 'n' }));
    const mapped = mapColumns(['input_0', 'input_1', 'notes'], rows, inputs);
    const columns = 3;
    const cells = mapped.inputs.reduce((sum, row) => sum + Object.keys(row).length, 0);
    assert.ok(cells <= rows.length * columns, `${cells} cells for ${rows.length} rows of ${columns} columns`);
    const listed = mapped.problems.reduce((sum, problem) => sum + problem.missing.length, 0);
    assert.ok(listed <= rows.length * columns, `${listed} missing names listed across the rows`);
    assert.deepEqual(mapped.inputs[1], { input_0: 'value 1', input_1: 'x' });
    assert.equal(mapped.unmappedInputs.length, 10_000 - 2);
    assert.deepEqual(mapped.missingColumns, mapped.unmappedInputs, 'every one of them is required: no row can be sent, said once');
    assert.deepEqual(mapped.problems[0], { row: 0, missing: ['input_1'] }, 'a row lists only what its own cells lack');
    assert.deepEqual(mapped.ignoredColumns, ['notes']);
  });
});
