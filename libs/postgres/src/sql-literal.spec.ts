import { Client } from 'pg';
import { quoteText } from './sql-literal';

const pgLiteral = (text: string): string => Client.prototype.escapeLiteral.call(undefined, text);

describe('quoteText', () => {
  it.each([
    ['empty', ''],
    ['plain', 'hello'],
    ['a quote', "it's"],
    ['only quotes', "''"],
    ['a backslash', 'C:\\path'],
    ['quotes and backslashes', `{"text":"say \\"hi\\" it's \\\\ done"}`],
    ['a trailing backslash', 'end\\'],
    ['unicode and newlines', 'héllo 👋\nline\ttab'],
    ['a JSON payload', JSON.stringify({ to: { appUserId: 'u_1' }, text: "l'été \\o/", media: null, n: [1, 2] })],
  ])('writes %s exactly as pg escapeLiteral does', (_name, text) => {
    expect(quoteText(text)).toBe(pgLiteral(text));
  });

  it('keeps a backslash literal under standard strings: E form with the backslash doubled', () => {
    expect(quoteText("a\\'b")).toBe(" E'a\\\\''b'");
  });
});
