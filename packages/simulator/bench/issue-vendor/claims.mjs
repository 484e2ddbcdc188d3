// Wire-form claims for the issue vendor: N JSON lines, one B1 each, distinct Rx numbers.
const n = Number(process.argv[2] ?? 1000);
for (let i = 0; i < n; i++)
  console.log(
    JSON.stringify({
      '103-A3': 'B1',
      '101-A1': '610014',
      '104-A4': 'ADV',
      '302-C2': `ZX${String(9900000 + i)}`,
      '201-B1': '1234567890',
      '402-D2': String(500000 + i),
      '403-D3': 0,
      '407-D7': '00002143380',
      '442-E7': '30.000',
      '405-D5': 30,
      '401-D1': '20261130',
      '409-D9': '12.34',
    }),
  );
