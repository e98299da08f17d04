// Columns → a crew's inputs, and which rows cannot be sent because a required input is missing.
// Pure: no `vscode` here.
import type { InputSpec } from '../../api/types';
import { hasValue, type Inputs, type InputValue, valueProblem } from '../../api/inputValues';
import { isRequiredInput } from '../../kickoff/core/inputPresets';

export interface RowProblem {
  /** 0-based index in the table. */
  row: number;
  /** Required inputs that have a column but no value in this row. */
  missing: string[];
  tooLong?: string;
}

export interface MappedTable {
  /** The inputs each row sends: the crew's inputs that have a column (empty optional ones left out). */
  inputs: Inputs[];
  /** Crew inputs no column provides. */
  unmappedInputs: string[];
  /** The required ones among them: with any, no row can be sent. Said once for the table, never per row. */
  missingColumns: string[];
  /** Columns that are not inputs of the crew (not sent). */
  ignoredColumns: string[];
  /** Rows missing a required input that has a column, or with a value too long; they are skipped, never sent. */
  problems: RowProblem[];
}

/**
 * `specs`: the inputs GET /inputs described (required flags as the crew gave them, see isRequiredInput);
 * undefined when the crew did not tell (then every column is sent as it is and nothing is known to be
 * required). Column names match input names exactly, else ignoring case and surrounding spaces. A row costs its
 * columns, not the crew's inputs: those without a column are the table's, said once (a crew declaring 10,000
 * made every row list all of them: 2,000 rows, +920 MB).
 */
export function mapColumns(columns: string[], rows: Inputs[], specs: InputSpec[] | undefined): MappedTable {
  if (!specs) {
    return { inputs: rows.map((row) => ({ ...row })), unmappedInputs: [], missingColumns: [], ignoredColumns: [], problems: longValues(rows) };
  }
  const exact = new Set(columns);
  const loose = new Map<string, string>();
  for (const column of columns) {
    const key = column.trim().toLowerCase();
    if (!loose.has(key)) {
      loose.set(key, column);
    }
  }
  // Input name → its column, in the crew's order.
  const mapped: { name: string; column: string; optional: boolean }[] = [];
  const unmapped: InputSpec[] = [];
  for (const spec of specs) {
    const column = exact.has(spec.name) ? spec.name : loose.get(spec.name.toLowerCase());
    if (column === undefined) {
      unmapped.push(spec);
    } else {
      mapped.push({ name: spec.name, column, optional: !isRequiredInput(spec) });
    }
  }
  const used = new Set(mapped.map((m) => m.column));
  const inputs: Inputs[] = [];
  const problems: RowProblem[] = [];
  rows.forEach((row, index) => {
    const values: [string, InputValue][] = [];
    const missing: string[] = [];
    let tooLong: string | undefined;
    for (const { name, column, optional } of mapped) {
      const value = Object.hasOwn(row, column) ? row[column] : '';
      if (!(optional && value === '')) {
        values.push([name, value]);
      }
      if (!optional && !hasValue(value)) {
        missing.push(name);
      }
      if (tooLong === undefined && valueProblem(name, value) !== undefined) {
        tooLong = name;
      }
    }
    inputs.push(Object.fromEntries(values));
    if (missing.length > 0 || tooLong !== undefined) {
      problems.push({ row: index, missing, ...(tooLong !== undefined ? { tooLong } : {}) });
    }
  });
  return {
    inputs,
    unmappedInputs: unmapped.map((spec) => spec.name),
    missingColumns: unmapped.filter(isRequiredInput).map((spec) => spec.name),
    ignoredColumns: columns.filter((c) => !used.has(c)),
    problems,
  };
}

function longValues(rows: Inputs[]): RowProblem[] {
  return rows.flatMap((values, row) => {
    const tooLong = Object.keys(values).find((name) => valueProblem(name, values[name]) !== undefined);
    return tooLong === undefined ? [] : [{ row, missing: [], tooLong }];
  });
}
