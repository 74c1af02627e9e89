// A fuzz worker's entry: worker threads do not inherit tsx's hooks on Node 20, so register them here.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
