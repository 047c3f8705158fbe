/**
 * One CSV line (RFC 4180, `\r\n`). A text cell that a spreadsheet would run as a formula (it begins
 * with `=`, `+`, `-`, `@`, a tab or a carriage return) gets a leading `'`, the OWASP guard against CSV
 * injection; cinelog's importers take it off again. Numbers are written as they are.
 */
export function csvLine(cells: readonly (string | number | boolean | null | undefined)[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'string') return String(value);
  const guarded = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(guarded) ? `"${guarded.replace(/"/g, '""')}"` : guarded;
}
