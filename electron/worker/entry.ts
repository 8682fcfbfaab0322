/**
 * The transport worker thread's entry: one TransportWorker for the session that started this
 * thread (engine/transport/transport.ts passes its WorkerStartConfig as workerData).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { WorkerStartConfig } from '../wire/protocol.js';
import { TransportWorker } from './transport-worker.js';

if (!parentPort) throw new Error('the transport worker must run in a worker thread');
await TransportWorker.start(parentPort, workerData as WorkerStartConfig);
