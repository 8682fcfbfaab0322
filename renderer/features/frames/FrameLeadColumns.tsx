/** A frame's first five columns (time, direction, kind, id, method), as the frames log and the
 *  payload search's hits both show them. */
import type { ReactElement } from 'react';
import type { FrameSummary } from '../../../shared/frames.js';
import { directionArrow, directionLabel, formatId, formatTime } from './format.js';

export function FrameLeadColumns({
  frame,
}: {
  frame: Pick<FrameSummary, 't' | 'dir' | 'kind' | 'id' | 'method'>;
}): ReactElement {
  return (
    <>
      <span className="ps-col-time">{formatTime(frame.t)}</span>
      <span className="ps-col-dir" title={directionLabel(frame.dir)}>
        {directionArrow(frame.dir)}
      </span>
      <span className="ps-col-kind">{frame.kind}</span>
      <span className="ps-col-id">{formatId(frame.id)}</span>
      <span className="ps-col-method">{frame.method ?? ''}</span>
    </>
  );
}
