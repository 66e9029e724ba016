import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatBytes, migrationSummary, storageSummary } from '../lib/format.mjs';

test('formatBytes uses bytes below 1 KB and one decimal above', () => {
  assert.equal(formatBytes(0), '0 bytes');
  assert.equal(formatBytes(1), '1 byte');
  assert.equal(formatBytes(1023), '1023 bytes');
  assert.equal(formatBytes(1536), '1.5 KB');
  assert.equal(formatBytes(5 * 1024 ** 3), '5.0 GB');
});

test('storageSummary names an unavailable cloud root and an interrupted migration', () => {
  const text = storageSummary({
    storageType: 'local', isCloudEnabled: true, isCloudAvailable: false, needsChoice: false, cloudProvider: 'syncthing',
    roots: { local: '/l', cloud: '/c' }, usage: { files: 3, bytes: 2048 },
    pendingMigration: { to: 'cloud', mode: 'copy', startedAt: 'x', filesTotal: 10, filesDone: 4 },
  });
  assert.equal(text, 'Storage: local (/l) · 3 files, 2.0 KB · cloud: syncthing at /c (unavailable) · interrupted migration to cloud: 4/10 files (run Migrate to resume)');
});

test('migrationSummary reports conflicts, placeholders left out and a resumed run', () => {
  const text = migrationSummary('cloud', { copied: 5, skipped: 1, conflicts: 2, bytes: 10, switched: true, resumed: true, notDownloaded: ['a'] });
  assert.equal(text, 'Now using cloud storage: 5 copied, 1 skipped, 2 conflicts kept both, 1 not downloaded (left out) (10 bytes, resumed).');
});

test('migrationSummary says so when the target already was the active root (a retried migrate)', () => {
  const text = migrationSummary('cloud', { copied: 0, skipped: 0, conflicts: 0, bytes: 0, switched: false, resumed: false, alreadyActive: true, notDownloaded: [] });
  assert.equal(text, 'Already using cloud storage: nothing to migrate.');
});
