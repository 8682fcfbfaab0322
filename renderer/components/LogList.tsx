/**
 * The body of a log panel (frames, stderr): its rows virtualized and following the bottom, or a
 * line saying why there are none. The panel's frame — a column with a toolbar of filters and a
 * count above the list — is log.css (`ps-log`, `ps-log-toolbar`, `ps-log-count`).
 */
import type { ReactElement } from 'react';
import { VirtualList, type VirtualListProps } from './VirtualList.js';
import './log.css';

export type LogListProps<T> = Omit<VirtualListProps<T>, 'height'> & {
  /** Shown instead of the list when it is not null (no rows yet, or none match). */
  empty: string | null;
};

export function LogList<T>({ empty, ...list }: LogListProps<T>): ReactElement {
  return (
    <div className="ps-log-list">
      {empty !== null ? (
        <p className="ps-log-empty">{empty}</p>
      ) : (
        <VirtualList {...list} height="100%" />
      )}
    </div>
  );
}
