// The worker thread of the delivery pool (HooksService): one DeliveryCheck in, one DeliveryVerdict out.
import { parentPort } from 'node:worker_threads';
import { checkDelivery, type DeliveryCheck } from './delivery-check';

parentPort?.on('message', (check: DeliveryCheck) => parentPort?.postMessage(checkDelivery(check)));
