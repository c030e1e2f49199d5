/** A plain-text table with aligned columns. */
export function table(title: string, header: string[], rows: (string | number)[][]): string {
  const cells = [
    header,
    ...rows.map((row) => row.map((cell) => (typeof cell === 'number' ? (Number.isFinite(cell) ? String(cell) : '-') : cell))),
  ];
  const widths = header.map((_, i) => Math.max(...cells.map((row) => row[i].length)));
  const line = (row: string[]) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  return [`\n## ${title}`, line(cells[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}
