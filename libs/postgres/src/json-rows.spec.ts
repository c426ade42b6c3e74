import { jsonRows, jsonTexts, rowLimit } from './json-rows';

describe('jsonRows', () => {
  it('writes a limit no lower than the count and at most twice it', () => {
    for (let count = 1; count <= 1000; count++) {
      expect(rowLimit(count)).toBeGreaterThanOrEqual(count);
      expect(rowLimit(count)).toBeLessThan(2 * count);
    }
    expect(rowLimit(0)).toBe(0);
    expect(jsonRows('c', 'k text', 3)).toBe('(select * from jsonb_to_recordset(?::jsonb) as c(k text) limit 4) as c');
    expect(jsonTexts(5)).toBe('(select jsonb_array_elements_text(?::jsonb) limit 8)');
  });

  it('gives batches of 1 to 64 rows seven texts, not one per size: each text is a statement prepared and planned apart', () => {
    const sizes = Array.from({ length: 64 }, (_, i) => i + 1);
    expect(new Set(sizes.map((n) => jsonRows('c', 'k text', n))).size).toBe(7);
    expect(new Set(sizes.map((n) => jsonTexts(n))).size).toBe(7);
  });

  it('refuses what is not a row count', () => {
    expect(() => jsonRows('c', 'k text', -1)).toThrow('jsonRows: -1 is not a row count');
    expect(() => jsonTexts(1.5)).toThrow('jsonTexts: 1.5 is not a row count');
  });
});
