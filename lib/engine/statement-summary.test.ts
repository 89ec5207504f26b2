// The database span's statement summary: operations and the objects they name, never a literal, number,
// variable or comment, and never longer than its bound.
import { describe, expect, it } from 'vitest';
import { MAX_SUMMARY, statementSummary } from './statement-summary';

describe('statementSummary', () => {
  it('names the operations and their objects, in order', () => {
    expect(
      statementSummary("UPDATE dbo.Orders SET state = 'paid' WHERE id = @id; SELECT * FROM dbo.Orders o JOIN dbo.Lines l ON 1 = 1"),
    ).toBe('UPDATE dbo.Orders SELECT dbo.Orders dbo.Lines');
    expect(statementSummary('INSERT INTO [sales].[Order Lines] (a) VALUES (1)')).toBe('INSERT sales.Order Lines');
    expect(statementSummary('DELETE FROM t WHERE x = 1')).toBe('DELETE t');
    expect(statementSummary('UPDATE TOP (10) q SET a = 1')).toBe('UPDATE q');
    expect(statementSummary('EXECUTE dbo.Rebuild @full = 1')).toBe('EXEC dbo.Rebuild');
    expect(statementSummary('MERGE INTO tgt USING src ON 1 = 1 WHEN MATCHED THEN DELETE;')).toBe('MERGE tgt src DELETE');
    expect(statementSummary('DROP TABLE IF EXISTS #work')).toBe('DROP #work');
  });

  it('leaves out literals, numbers, variables, parameters and comments', () => {
    const s = statementSummary(
      "-- secret comment\nSELECT N'secret', 'it''s', 42 /* secret */ FROM @rows; SELECT $p, :q FROM users WHERE pw = 'hunter2'",
    );
    expect(s).toBe('SELECT users');
    expect(s).not.toMatch(/secret|hunter2|42|@rows/);
  });

  it('is bounded, cut at a word', () => {
    const s = statementSummary(Array.from({ length: 200 }, (_, i) => `SELECT * FROM table_${i}`).join(';\n'));
    expect(s.length).toBeLessThanOrEqual(MAX_SUMMARY);
    expect(s.endsWith('SELECT') || /table_\d+$/.test(s)).toBe(true);
    expect(statementSummary('')).toBe('');
    expect(statementSummary('WAITFOR DELAY @d')).toBe('');
  });
});
