// Reading a table of inputs: JSON Lines, CSV with a header row (RFC 4180 quoting: quoted fields with
// commas, doubled quotes and line breaks), or a JSON array of objects. Every value becomes text, the
// way a kickoff sends it. Pure: no `vscode` here.

import * as l10n from '@vscode/l10n';

export type SourceFormat = 'jsonl' | 'csv' | 'json';

export interface ParsedTable {
  format: SourceFormat;
  /** Column names in first-seen order. */
  columns: string[];
  rows: Record<string, string>[];
  /** Lines (1-based) that could not be read, with why; those rows are left out. */
  problems: { line: number; message: string }[];
}

/** Guards against a pasted binary or a runaway file: a batch is a table someone can review. */
export const MAX_ROWS = 10_000;
export const MAX_SOURCE_CHARS = 50_000_000;

export function formatOfFileName(name: string): SourceFormat | undefined {
  const lower = name.toLowerCase();
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) {
    return 'jsonl';
  }
  if (lower.endsWith('.csv')) {
    return 'csv';
  }
  return lower.endsWith('.json') ? 'json' : undefined;
}

/** The format a text is in, when its file name does not say: `[` JSON array, `{` JSON Lines, else CSV. */
export function sniffFormat(text: string): SourceFormat {
  const start = text.replace(/^\uFEFF/, '').trimStart();
  if (start.startsWith('[')) {
    return 'json';
  }
  return start.startsWith('{') ? 'jsonl' : 'csv';
}

export function parseTable(text: string, format: SourceFormat = sniffFormat(text)): ParsedTable {
  if (text.length > MAX_SOURCE_CHARS) {
    return { format, columns: [], rows: [], problems: [{ line: 1, message: l10n.t('The file is too large for a batch.') }] };
  }
  const body = text.replace(/^\uFEFF/, '');
  switch (format) {
    case 'jsonl':
      return parseJsonLines(body);
    case 'json':
      return parseJsonArray(body);
    case 'csv':
      return parseCsv(body);
  }
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) {
    return '';
  }
  return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function objectRow(value: unknown): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return undefined;
  }
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, cellText(v)]));
}

function collect(format: SourceFormat, entries: { line: number; value: unknown }[], problems: ParsedTable['problems']): ParsedTable {
  const columns: string[] = [];
  const seen = new Set<string>();
  const rows: Record<string, string>[] = [];
  for (const { line, value } of entries) {
    const row = objectRow(value);
    if (!row) {
      problems.push({ line, message: l10n.t('Not an object of input names to values.') });
      continue;
    }
    if (rows.length >= MAX_ROWS) {
      problems.push({ line, message: l10n.t('More than {0} rows; the rest are left out.', MAX_ROWS) });
      break;
    }
    for (const key of Object.keys(row)) {
      if (!seen.has(key)) {
        seen.add(key);
        columns.push(key);
      }
    }
    rows.push(row);
  }
  return { format, columns, rows, problems };
}

function parseJsonLines(text: string): ParsedTable {
  const problems: ParsedTable['problems'] = [];
  const entries: { line: number; value: unknown }[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    if (!raw.trim()) {
      return;
    }
    try {
      entries.push({ line: index + 1, value: JSON.parse(raw) });
    } catch {
      problems.push({ line: index + 1, message: l10n.t('Not valid JSON.') });
    }
  });
  return collect('jsonl', entries, problems);
}

function parseJsonArray(text: string): ParsedTable {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { format: 'json', columns: [], rows: [], problems: [{ line: 1, message: l10n.t('Not valid JSON.') }] };
  }
  if (!Array.isArray(value)) {
    return { format: 'json', columns: [], rows: [], problems: [{ line: 1, message: l10n.t('A JSON batch is an array of objects.') }] };
  }
  // Elements have no line numbers of their own: problems name the element (1-based).
  return collect('json', value.map((v, i) => ({ line: i + 1, value: v })), []);
}

/** RFC 4180 records: each with the line it starts on. */
export function csvRecords(text: string): { line: number; fields: string[] }[] {
  const records: { line: number; fields: string[] }[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let recordLine = 1;
  let fieldStarted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else {
          quoted = false;
        }
      } else {
        if (c === '\n') {
          line++;
        }
        field += c;
      }
      continue;
    }
    if (c === '"' && !fieldStarted) {
      quoted = true;
      fieldStarted = true;
    } else if (c === ',') {
      fields.push(field);
      field = '';
      fieldStarted = false;
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') {
        i++;
      }
      fields.push(field);
      records.push({ line: recordLine, fields });
      fields = [];
      field = '';
      fieldStarted = false;
      line++;
      recordLine = line;
    } else {
      field += c;
      fieldStarted = true;
    }
  }
  if (field !== '' || fieldStarted || fields.length > 0) {
    fields.push(field);
    records.push({ line: recordLine, fields });
  }
  // Blank lines are not rows.
  return records.filter((r) => !(r.fields.length === 1 && r.fields[0] === ''));
}

function parseCsv(text: string): ParsedTable {
  const records = csvRecords(text);
  const header = records.shift();
  if (!header) {
    return { format: 'csv', columns: [], rows: [], problems: [{ line: 1, message: l10n.t('The CSV has no header row.') }] };
  }
  const columns = header.fields.map((name) => name.trim());
  const problems: ParsedTable['problems'] = [];
  const duplicate = columns.find((name, i) => name !== '' && columns.indexOf(name) !== i);
  if (duplicate !== undefined) {
    return { format: 'csv', columns: [], rows: [], problems: [{ line: header.line, message: l10n.t('The header names "{0}" twice.', duplicate) }] };
  }
  const rows: Record<string, string>[] = [];
  for (const record of records) {
    if (record.fields.length !== columns.length) {
      problems.push({ line: record.line, message: l10n.t('Has {0} fields; the header has {1}.', record.fields.length, columns.length) });
      continue;
    }
    if (rows.length >= MAX_ROWS) {
      problems.push({ line: record.line, message: l10n.t('More than {0} rows; the rest are left out.', MAX_ROWS) });
      break;
    }
    rows.push(Object.fromEntries(columns.map((name, i) => [name, record.fields[i]]).filter(([name]) => name !== '')));
  }
  return { format: 'csv', columns: columns.filter((name) => name !== ''), rows, problems };
}

/** One CSV field, quoted when it has to be. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) || /^\s|\s$/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}
