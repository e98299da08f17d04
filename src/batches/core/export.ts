// Export Results: every row (skipped ones too) with its inputs, state, kickoff id, full output and
// error, as JSON Lines or as CSV whose input columns make it a batch source again. Pure: no `vscode`.
import type { Inputs } from '../../api/inputValues';
import type { BatchStore } from './batchStore';
import type { Batch } from './model';

export interface ExportedRow {
  row: number;
  inputs: Inputs;
  state: string;
  kickoff_id: string;
  output: string;
  error: string;
}

/** Rows as exported: every row (skipped ones too), with the full output from the batch's outputs file. */
export async function exportedRows(store: Pick<BatchStore, 'readOutputs'>, batch: Batch): Promise<ExportedRow[]> {
  const outputs = await store.readOutputs(batch.id);
  return batch.rows.map((row) => ({
    row: row.index + 1,
    inputs: row.inputs,
    state: row.status === 'sent' ? (row.result?.state ?? 'running') : row.status,
    kickoff_id: row.kickoffId ?? '',
    output: outputs.get(row.index)?.output ?? '',
    error: outputs.get(row.index)?.error ?? (row.status !== 'sent' ? (row.note ?? '') : ''),
  }));
}

export function resultsAsJsonl(rows: ExportedRow[]): string {
  return rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
}

/**
 * A crew's text that a spreadsheet would run as a formula (= + - @, after any spaces or invisible
 * characters, or a tab/CR first) gets a leading apostrophe, as spreadsheets themselves write literal
 * text. NFKC first: spreadsheets read fullwidth and small forms (＝ ﹦ ＋ － ＠) as the ASCII ones.
 * Only the crew's columns: the inputs are the user's own and must read back unchanged.
 */
function inertCell(text: string): string {
  return /^[\t\r]|^[\s\p{Cf}]*[=+\-@]/u.test(text.normalize('NFKC')) ? `'${text}` : text;
}

/**
 * The inputs as columns of their own (so the file is a batch source again), then the results. A column with
 * any value that is not text is written as JSON under a `name:json` header, so it reads back with its types.
 */
export function resultsAsCsv(rows: ExportedRow[], inputColumns: string[]): string {
  const json = new Set(inputColumns.filter((c) => rows.some((r) => r.inputs[c] !== undefined && typeof r.inputs[c] !== 'string')));
  const cell = (r: ExportedRow, c: string) => (json.has(c) ? (r.inputs[c] === undefined ? '' : JSON.stringify(r.inputs[c])) : String(r.inputs[c] ?? ''));
  const header = ['row', ...inputColumns.map((c) => (json.has(c) ? `${c}:json` : c)), 'state', 'kickoff_id', 'output', 'error'];
  const lines = rows.map((r) => [String(r.row), ...inputColumns.map((c) => cell(r, c)), r.state, r.kickoff_id, inertCell(r.output), inertCell(r.error)].map(csvField).join(','));
  return [header.map(csvField).join(','), ...lines].join('\r\n') + '\r\n';
}

/** One CSV field, quoted when it has to be. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) || /^\s|\s$/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}
