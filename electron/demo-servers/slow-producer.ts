/**
 * Demo `slow-producer`: a long tool that streams progress and honours cancellation. The SDK
 * aborts the request's AbortSignal when notifications/cancelled arrives; the producer loop
 * checks it each step (and its sleep wakes on it), so work stops at once and no answer follows.
 */

import { registerProduce } from './lib/producer.js';
import { createDemoServer, registerEcho, runMain, startDemoServer } from './lib/server.js';

const server = createDemoServer('slow-producer');
registerProduce(server, { honourCancel: true });
registerEcho(server);
runMain(server.id, () => startDemoServer(server));
