// The catalogue at its edges: code spellings (docs/reject-codes.md: "trimmed and upper-cased,
// and a lone digit is padded"), lookups of codes it does not know, a payer's overrides and
// their errors, and descriptions loaded from the files a user has (JSON, CSV, TSV).
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  CatalogueConfigError,
  catalogueConfigSchema,
  createCatalogue,
  defaultCatalogue,
  loadDescriptions,
} from './catalogue.js';
import { normalizeRejectCode, REJECT_CODES } from './reject-codes.js';

describe('normalizeRejectCode', () => {
  it('pads a lone digit, 0 and 9 included, and nothing else', () => {
    assert.equal(normalizeRejectCode('0'), '00');
    assert.equal(normalizeRejectCode('9'), '09');
    assert.equal(normalizeRejectCode(0), '00');
    assert.equal(normalizeRejectCode(9), '09');
    assert.equal(normalizeRejectCode('A'), 'A');
    assert.equal(normalizeRejectCode('*'), '*');
  });

  it('up to four characters; a number only as a whole non-negative integer', () => {
    assert.equal(normalizeRejectCode('1234'), '1234');
    assert.equal(normalizeRejectCode(' abcd '), 'ABCD');
    assert.equal(normalizeRejectCode('12345'), undefined);
    assert.equal(normalizeRejectCode(1234), '1234');
    assert.equal(normalizeRejectCode(12345), undefined);
    for (const bad of [4.5, -4, Number.NaN, Number.POSITIVE_INFINITY, 1e21, '4-5', ' ', 'é'])
      assert.equal(normalizeRejectCode(bad), undefined, String(bad));
  });

  it('a list or any other value holding a code is no code', () => {
    for (const bad of [['70'], [70], { code: '70' }, true, 70n, Symbol('70')])
      assert.equal(normalizeRejectCode(bad), undefined, String(typeof bad));
  });
});

describe('lookups', () => {
  it('a known code: its code, group and label, and no description unless one was loaded', () => {
    const info = defaultCatalogue.lookup(' 4 ');
    assert.deepEqual(info, { code: '04', group: 'repair-routing', label: REJECT_CODES.get('04')!.label });
    assert.equal(Object.hasOwn(info!, 'description'), false);
  });

  it('an unknown code is unknown, labelled so; what is no code is no answer', () => {
    assert.deepEqual(defaultCatalogue.lookup('ZZ9'), {
      code: 'ZZ9',
      group: 'unknown',
      label: 'Unknown reject code',
    });
    assert.equal(defaultCatalogue.lookup('TOOLONG'), undefined);
    assert.equal(defaultCatalogue.lookup(null), undefined);
  });

  it('the same code twice gives the same answer', () => {
    assert.deepEqual(defaultCatalogue.lookup('70'), defaultCatalogue.lookup(70));
  });

  it('entries() lists every code of the table, overrides included', () => {
    assert.deepEqual(new Map(defaultCatalogue.entries()), REJECT_CODES);
    const c = createCatalogue({ overrides: { X1: { group: 'terminal' } } });
    const entries = new Map(c.entries());
    assert.equal(entries.size, REJECT_CODES.size + 1);
    assert.deepEqual(entries.get('X1'), { group: 'terminal', label: 'Payer-specific code' });
  });
});

describe('overrides', () => {
  it('a regrouped code keeps its label unless the payer gives one; a new code is payer-specific', () => {
    const c = createCatalogue({
      overrides: {
        '70': { group: 'terminal' },
        '75': { group: 'terminal', label: 'Plan PA wording' },
        Q9: { group: 'terminal' },
      },
    });
    assert.deepEqual(c.lookup('70'), { code: '70', group: 'terminal', label: REJECT_CODES.get('70')!.label });
    assert.deepEqual(c.lookup('75'), { code: '75', group: 'terminal', label: 'Plan PA wording' });
    assert.deepEqual(c.lookup('q9'), { code: 'Q9', group: 'terminal', label: 'Payer-specific code' });
    assert.equal(c.lookup('76')?.group, REJECT_CODES.get('76')!.group, 'other codes as before');
  });

  it('errors name every bad path, in the message too, and carry a stable code', () => {
    let error: unknown;
    try {
      createCatalogue({
        overrides: { '70': { group: 'x' as never }, '71': { group: 'terminal', label: '' } },
      });
    } catch (e) {
      error = e;
    }
    assert.ok(error instanceof CatalogueConfigError);
    assert.equal(error.name, 'CatalogueConfigError');
    assert.equal(error.code, 'RXGATE_CLASSIFIER_INVALID_CONFIG');
    assert.deepEqual(
      error.issues.map((i) => i.path),
      ['overrides.70.group', 'overrides.71.label'],
    );
    assert.ok(error.issues.every((i) => i.message.length > 0));
    assert.match(
      error.message,
      /^invalid catalogue configuration: overrides\.70\.group: .+; overrides\.71\.label: .+$/,
    );
  });

  it('an unknown option is an error at the root; a label may be long', () => {
    assert.throws(
      () => createCatalogue({ extra: 1 } as never),
      (e) => e instanceof CatalogueConfigError && e.issues[0]?.path === '(root)',
    );
    assert.equal(
      createCatalogue({ overrides: { '70': { group: 'terminal', label: 'A label of many words' } } }).lookup(
        '70',
      )?.label,
      'A label of many words',
    );
  });

  it('the schema says why a key is refused', () => {
    const r = catalogueConfigSchema.safeParse({ overrides: { 'NOT A CODE': { group: 'terminal' } } });
    assert.equal(r.success, false);
    assert.match(JSON.stringify(r.error?.issues), /not a reject code/);
  });
});

describe('loadDescriptions', () => {
  const file = async (name: string, text: string) => {
    const dir = await mkdtemp(join(tmpdir(), 'rxgate-desc-'));
    const path = join(dir, name);
    await writeFile(path, text);
    return path;
  };

  it('JSON, after blanks too', async () => {
    assert.deepEqual(await loadDescriptions(await file('a.json', '\n  {"70": "Seventy", "4": "Four"}')), {
      '70': 'Seventy',
      '4': 'Four',
    });
  });

  it('JSON with a key that is no code names the file and the key', async () => {
    const path = await file('b.json', '{"NOT A CODE": "x"}');
    await assert.rejects(
      loadDescriptions(path),
      (e) =>
        e instanceof CatalogueConfigError &&
        e.issues.length === 1 &&
        e.issues[0]!.path === `${path}:NOT A CODE`,
    );
  });

  it('CSV and TSV: quotes, blanks and a "{" in a description; lines without both parts skipped', async () => {
    const text = [
      '  "70" , "Seventy, quoted"  ',
      '4\tFour {tab}',
      '1234,Four characters',
      '75 ,Spaced',
      '76,',
      'not a line',
      '',
    ].join('\r\n');
    assert.deepEqual(await loadDescriptions(await file('c.csv', text)), {
      '70': 'Seventy, quoted',
      '04': 'Four {tab}',
      '1234': 'Four characters',
      '75': 'Spaced',
    });
  });
});
