import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CatalogueConfigError, createCatalogue, defaultCatalogue, loadDescriptions } from './catalogue.js';
import { normalizeRejectCode } from './reject-codes.js';

describe('reject-code catalogue', () => {
  it('normalises codes', () => {
    assert.equal(normalizeRejectCode('4'), '04');
    assert.equal(normalizeRejectCode(4), '04');
    assert.equal(normalizeRejectCode(' m3 '), 'M3');
    assert.equal(normalizeRejectCode('748'), '748');
    for (const bad of ['', 'TOOLONG', '4.5', -1, null, {}]) assert.equal(normalizeRejectCode(bad), undefined);
  });

  it('groups the documented codes', () => {
    const group = (c: string) => defaultCatalogue.lookup(c)?.group;
    assert.equal(group('92'), 'host-transient');
    assert.equal(group('93'), 'host-planned');
    assert.equal(group('85'), 'host-data');
    assert.equal(group('PZ'), 'repair-product');
    assert.equal(group('748'), 'repair-routing');
    assert.equal(group('831'), 'other-payer');
    assert.equal(group('PK'), 'submitter-fix');
    assert.equal(group('925'), 'terminal');
    assert.equal(group('3W'), 'retry-later');
    assert.equal(group('83'), 'duplicate');
    assert.equal(group('87'), 'reversal');
    assert.equal(group('XX'), 'unknown');
  });

  it('does not carry the crowd-sourced mistakes', () => {
    assert.notEqual(defaultCatalogue.lookup('69')?.group, 'host-transient');
    assert.equal(defaultCatalogue.lookup('85')?.group, 'host-data');
    assert.equal(defaultCatalogue.lookup('77')?.group, 'repair-product');
  });

  it('validates configuration and names the bad path', () => {
    assert.throws(
      () => createCatalogue({ overrides: { '70': { group: 'sometimes' as never } } }),
      (e) => e instanceof CatalogueConfigError && e.issues.some((i) => i.path === 'overrides.70.group'),
    );
    assert.throws(
      () => createCatalogue({ overrides: { 'NOT A CODE': { group: 'terminal' } } }),
      CatalogueConfigError,
    );
  });

  it('loads official descriptions from JSON or CSV', async () => {
    const json = join(tmpdir(), `rxgate-desc-${process.pid}.json`);
    const csv = join(tmpdir(), `rxgate-desc-${process.pid}.csv`);
    await writeFile(json, JSON.stringify({ '70': 'Official seventy' }));
    await writeFile(csv, 'code,description\n4,"Official zero-four"\n');
    const c = createCatalogue({
      descriptions: { ...(await loadDescriptions(json)), ...(await loadDescriptions(csv)) },
    });
    assert.equal(c.lookup('70')?.description, 'Official seventy');
    assert.equal(c.lookup('04')?.description, 'Official zero-four');
    assert.equal(c.lookup('04')?.label, 'Processor control number missing or invalid');
  });
});
