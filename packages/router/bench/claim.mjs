// The claim both instruction benches send: the same fields, a new Rx number each.
export const raw = (i) => ({
  '103-A3': 'B1',
  '101-A1': '610014',
  '104-A4': 'ADV',
  '301-C1': 'GRP7',
  '302-C2': 'ZX9900112',
  '310-CA': 'ANA',
  '201-B1': '1234567890',
  '402-D2': String(i),
  '403-D3': 0,
  '407-D7': '00002143380',
  '442-E7': '30.000',
  '405-D5': 30,
  '401-D1': '20261130',
  '409-D9': '12.34',
});
