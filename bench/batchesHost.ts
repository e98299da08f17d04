// Item "Batches", in the extension host: the bench table's rows for the batch the harness runs inside VS
// Code (./harness/hostBatch.ts) against a rate-limited simulator in its own process.
import type { HostBatchResult } from './harness/protocol';

export function hostBatchRows(r: HostBatchResult) {
  const item = '6 Batches';
  const duplicates = r.simulatorRuns === undefined ? undefined : r.simulatorRuns - r.distinctKickoffIds;
  const heapMb = Math.round((r.heapGrowthBytes / 1048576) * 10) / 10;
  return [
    {
      item,
      figure: `VS Code: rows kicking off or running at once (${r.rows} rows, concurrency ${r.concurrency} asked)`,
      value: r.peakRowsInFlight,
      unit: 'rows',
      target: `≤ ${r.concurrency}`,
      met: r.peakRowsInFlight <= r.concurrency,
      note: `${Math.round(r.seconds)} s; ${r.kickoffRequests ?? '?'} kickoff requests, ${r.rateLimitedKickoffs ?? '?'} refused with 429 and sent again later`,
    },
    { item, figure: 'VS Code: duplicate kickoffs (runs at the crew beyond one per row)', value: duplicates ?? 'unknown', unit: '', target: '0', met: duplicates === 0 },
    { item, figure: 'VS Code: lost rows (not sent, or no end recorded)', value: r.lostRows, unit: '', target: '0', met: r.lostRows === 0 },
    {
      item,
      figure: `VS Code: extension host heap growth over the ${r.rows}-row batch (gc forced)`,
      value: heapMb,
      unit: 'MB',
      target: '< 50 MB',
      met: r.heapGrowthBytes < 50 * 1048576,
    },
  ];
}
