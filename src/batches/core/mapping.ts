// Columns → a crew's inputs, and which rows cannot be sent because a required input is missing.
// Pure: no `vscode` here.
import type { InputSpec } from '../../api/types';
import { hasValue, type Inputs, type InputValue, valueProblem } from '../../api/inputValues';
import { isRequiredInput } from '../../crews/inputPresets';

export interface RowProblem {
  /** 0-based index in the table. */
  row: number;
  missing: string[];
  tooLong?: string;
}

export interface MappedTable {
  /** The inputs each row sends (only the crew's inputs; empty optional ones left out). */
  inputs: Inputs[];
  /** Crew inputs no column provides. */
  unmappedInputs: string[];
  /** The required ones among them. */
  missingColumns: string[];
  /** Columns that are not inputs of the crew (not sent). */
  ignoredColumns: string[];
  /** Rows missing a required input or with a value too long; they are skipped, never sent. */
  problems: RowProblem[];
}

/**
 * `specs`: the inputs GET /inputs described (required flags as the crew gave them, see isRequiredInput);
 * undefined when the crew did not tell (then every column is sent as it is and nothing is known to be
 * required). Column names match input names exactly, else ignoring case and surrounding spaces.
 */
export function mapColumns(columns: string[], rows: Inputs[], specs: InputSpec[] | undefined): MappedTable {
  if (!specs) {
    return { inputs: rows.map((row) => ({ ...row })), unmappedInputs: [], missingColumns: [], ignoredColumns: [], problems: longValues(rows) };
  }
  const inputNames = specs.map((spec) => spec.name);
  const optional = new Set(specs.filter((spec) => !isRequiredInput(spec)).map((spec) => spec.name));
  const columnFor = new Map<string, string>();
  for (const name of inputNames) {
    const column = columns.find((c) => c === name) ?? columns.find((c) => c.trim().toLowerCase() === name.toLowerCase());
    if (column !== undefined) {
      columnFor.set(name, column);
    }
  }
  const used = new Set(columnFor.values());
  const inputs = rows.map((row) =>
    Object.fromEntries(
      inputNames
        .map((name): [string, InputValue] => [name, row[columnFor.get(name) ?? ''] ?? ''])
        .filter(([name, value]) => !(optional.has(name) && value === '')),
    ),
  );
  const problems: RowProblem[] = [];
  inputs.forEach((values, row) => {
    const missing = inputNames.filter((name) => !optional.has(name) && !hasValue(values[name]));
    const tooLong = Object.keys(values).find((name) => valueProblem(name, values[name]) !== undefined);
    if (missing.length > 0 || tooLong !== undefined) {
      problems.push({ row, missing, ...(tooLong !== undefined ? { tooLong } : {}) });
    }
  });
  return {
    inputs,
    unmappedInputs: inputNames.filter((name) => !columnFor.has(name)),
    missingColumns: [],
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
