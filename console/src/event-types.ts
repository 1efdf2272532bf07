import { EVENT_MESSAGES } from '../../src/common/events/event-types';

/**
 * Every event type the service writes, from the server's own list (bundled in, never copied): webhook subscriptions
 * choose from it, and the event search expands a prefix into it.
 */
export const EVENT_TYPES: string[] = Object.keys(EVENT_MESSAGES);
