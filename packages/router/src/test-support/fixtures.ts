/** A valid B1 claim in wire form (the vendor contract's examples). */
export function rawClaim(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    '103-A3': 'B1',
    '101-A1': '610014',
    '104-A4': 'ADV',
    '301-C1': 'GRP7',
    '302-C2': 'ZX9900112',
    '310-CA': 'ANA',
    '201-B1': '1234567890',
    '402-D2': '000123456',
    '403-D3': 0,
    '407-D7': '00002143380',
    '442-E7': '30.000',
    '405-D5': 30,
    '401-D1': '20261130',
    '409-D9': '12.34',
    ...overrides,
  };
}

export const SECRET = 'test-secret-0123456789abcdef-0123456789';
