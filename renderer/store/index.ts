/**
 * The app's one store instance and the React hook over it. Components select narrowly:
 * `useApp((s) => s.bySession[id]?.frames)` re-renders only when the frames array changes.
 */
import { useStore } from 'zustand';
import { type AppStore, createAppStore } from './store';

export const appStore = createAppStore();

export function useApp<T>(selector: (state: AppStore) => T): T {
  return useStore(appStore, selector);
}

export type { AppStore } from './store';
export type { SessionData } from './types';
