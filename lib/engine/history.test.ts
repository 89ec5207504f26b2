// The histogram arithmetic of the history: bucket bounds, quantiles within their bucket, bounded names.
import { describe, expect, it } from 'vitest';
import { HIST_BOUNDS_MS, HIST_BUCKETS, histBucket, histQuantile, historyCommand } from './history';

describe('history histograms', () => {
  it('puts a value in the first bucket whose upper bound holds it', () => {
    expect(histBucket(0)).toBe(0);
    expect(histBucket(1)).toBe(0);
    expect(histBucket(2)).toBe(1);
    expect(histBucket(1000)).toBe(HIST_BOUNDS_MS.indexOf(1000));
    expect(histBucket(1001)).toBe(HIST_BOUNDS_MS.indexOf(1000) + 1);
    expect(histBucket(10 * 3600_000)).toBe(HIST_BUCKETS - 1);
  });

  it('reads quantiles inside the bucket of the exact value, capped by the maximum', () => {
    const counts = new Array<number>(HIST_BUCKETS).fill(0);
    // 90 values of ~20 ms, 10 of ~4 s
    counts[histBucket(20)] = 90;
    counts[histBucket(4000)] = 10;
    const p50 = histQuantile(counts, 0.5, 4100)!;
    expect(p50).toBeGreaterThan(10);
    expect(p50).toBeLessThanOrEqual(25);
    const p95 = histQuantile(counts, 0.95, 4100)!;
    expect(p95).toBeGreaterThan(2500);
    expect(p95).toBeLessThanOrEqual(4100);
    expect(histQuantile(new Array<number>(HIST_BUCKETS).fill(0), 0.5)).toBeNull();
  });

  it('keeps names and calls sql text (sql)', () => {
    expect(historyCommand('demo.echo')).toBe('demo.echo');
    expect(historyCommand('dbo.usp_Load')).toBe('dbo.usp_Load');
    expect(historyCommand('SELECT 1; WAITFOR DELAY 0:0:1')).toBe('(sql)');
  });
});
