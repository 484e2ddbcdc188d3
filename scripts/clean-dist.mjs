// Every package's build starts from an empty dist/: a file whose source is gone (or is now
// left out of the build, as tests and fixtures are) must not linger and get packed.
import { rmSync } from 'node:fs';

rmSync('dist', { recursive: true, force: true });
