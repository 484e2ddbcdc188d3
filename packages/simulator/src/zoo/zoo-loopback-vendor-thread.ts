// A worker's entry: a zoo vendor on a thread of its own (see runZooLoopback's vendorThread).
// It posts its port, and on "stop" what it admitted and refused in the measured span.
import { parentPort, workerData } from 'node:worker_threads';
import { type LoopbackVendorData, serveZooVendor } from './zoo-loopback-vendor.js';

const vendor = await serveZooVendor(workerData as LoopbackVendorData);
parentPort?.postMessage({ port: vendor.port });
parentPort?.once('message', async () => {
  parentPort?.postMessage(await vendor.stop());
  parentPort?.close();
});
