// `rxgate-sim --metrics-port`: the router's OpenTelemetry instruments (and the limiter's and
// breakers' it wires) served for Prometheus to scrape, by OpenTelemetry's own Prometheus
// exporter. Its packages are optional peers of @rxgate/simulator, imported only here and only
// when a port is asked for: the testing kit and a run without the flag never load them.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RouterTelemetryOptions } from '@rxgate/router';
import { ScenarioError } from './scenario.js';

/** A Prometheus endpoint: its URL, the meter that feeds it, and `close()`. */
export interface PrometheusEndpoint {
  readonly url: string;
  readonly telemetry: RouterTelemetryOptions;
  /**
   * The page a scrape gets now, without a request: collected and serialized as the exporter
   * serves it. A virtual run's test takes it at a simulated instant (a request takes real I/O).
   */
  scrape(): Promise<string>;
  close(): Promise<void>;
}

const PACKAGES = '@opentelemetry/api @opentelemetry/sdk-metrics @opentelemetry/exporter-prometheus';

/** Serves `/metrics` on 127.0.0.1:`port` (0: a free port). */
export async function servePrometheus(port: number): Promise<PrometheusEndpoint> {
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new ScenarioError('--metrics-port', [
      { path: '--metrics-port', message: `must be a port number (0-65535): ${port}` },
    ]);
  let sdk: typeof import('@opentelemetry/sdk-metrics');
  let exporter: typeof import('@opentelemetry/exporter-prometheus');
  try {
    [sdk, exporter] = await Promise.all([
      import('@opentelemetry/sdk-metrics'),
      import('@opentelemetry/exporter-prometheus'),
    ]);
  } catch {
    throw new ScenarioError('--metrics-port', [
      {
        path: '--metrics-port',
        message: `needs OpenTelemetry's Prometheus exporter: npm install ${PACKAGES}`,
      },
    ]);
  }
  // The exporter's own server takes no port 0; its request handler is served from ours.
  const reader = new exporter.PrometheusExporter({ preventServerStart: true });
  const server = createServer((req, res) => {
    if (req.url === '/metrics' || req.url?.startsWith('/metrics?')) reader.getMetricsRequestHandler(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  server.unref(); // never what keeps a finished run's process alive
  const bound = (server.address() as AddressInfo).port;
  const provider = new sdk.MeterProvider({ readers: [reader] });
  const serializer = new exporter.PrometheusSerializer();
  return {
    url: `http://127.0.0.1:${bound}/metrics`,
    telemetry: { meter: provider.getMeter('@rxgate/simulator') },
    scrape: async () => serializer.serialize((await reader.collect()).resourceMetrics),
    close: async () => {
      await provider.shutdown();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
