/**
 * Imports a module that needs an optional peer dependency, or says which package to install
 * (instead of a module-not-found trace from inside our dist).
 */
export async function withPeer<T>(load: () => Promise<T>, peer: string, what: string): Promise<T> {
  try {
    return await load();
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' && String(e).includes(`'${peer}'`))
      throw new Error(`${what} needs ${peer}, an optional peer of @rxgate/simulator: npm install ${peer}`);
    throw e;
  }
}
