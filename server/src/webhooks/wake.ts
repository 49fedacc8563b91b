import { EventEmitter } from 'node:events';

/** In-process signal "deliveries are waiting", so a delivery leaves right after its commit. */
const bell = new EventEmitter();
bell.setMaxListeners(0);

export function wakeDeliveryWorkers(): void {
	bell.emit('wake');
}

export function onWake(listener: () => void): () => void {
	bell.on('wake', listener);
	return () => bell.off('wake', listener);
}
