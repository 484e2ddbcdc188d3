// A node:test reporter for mutation runs: the first failing test ends the process with exit
// code 1 (Stryker's command runner reads a non-zero exit as "killed"). A killed mutant then
// costs the tests up to its first failure, not the whole suite. A todo test's failure is not
// a failure (node:test leaves the exit code alone for it), so it does not bail.
export default async function* bail(source) {
  for await (const event of source) {
    if (event.type === 'test:fail' && !event.data.todo) {
      process.stderr.write(`bail: ${event.data.name} failed (${event.data.file ?? ''})\n`);
      process.exit(1);
    }
    if (event.type === 'test:pass') yield '.';
  }
}
