/**
 * VirtualList: a windowed list of fixed-height rows. Only the rows in view (plus `overscan`)
 * are in the DOM, so 100,000 items cost ~50 nodes. Fed by any feature panel (frames, stderr,
 * requests); owns only scroll state. With `stickToBottom` it follows new rows while the user
 * is at the bottom, stops when they scroll up, and offers a "↓ new" button to resume.
 *
 * Hot path (a log taking 20 batches a second): while following, the bottom window is computed
 * during render, so a batch costs one render and one commit (no scroll state round trip), and
 * the scroll position follows in the next animation frame (no forced synchronous layout).
 * With `keyByPosition`, rows are keyed by their slot in the window: a log that slides by a
 * whole window per batch updates text in place instead of unmounting and mounting every row.
 */
import {
  type CSSProperties,
  type ReactElement,
  type ReactNode,
  type UIEvent,
  useCallback,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type WheelEvent,
} from 'react';
import { BOTTOM_SLACK_PX, computeWindow, isAtBottom } from './virtual-window.js';

export { computeWindow, isAtBottom } from './virtual-window.js';

export interface VirtualListProps<T> {
  items: readonly T[];
  /** Fixed row height in px. */
  rowHeight: number;
  /** A px height, or '100%' to fill the parent (measured with ResizeObserver). */
  height: number | '100%';
  renderRow(item: T, index: number): ReactNode;
  getKey(item: T, index: number): string | number;
  overscan?: number;
  stickToBottom?: boolean;
  /** Key rows by window slot instead of `getKey` (cheaper for fast-sliding logs). */
  keyByPosition?: boolean;
  className?: string;
}

const SCROLLER_STYLE: CSSProperties = {
  height: '100%',
  overflowX: 'hidden',
  overflowY: 'auto',
  // Anchoring would fight our own scrollTop writes when rows are added at the bottom.
  overflowAnchor: 'none',
  position: 'relative',
};

const JUMP_STYLE: CSSProperties = {
  position: 'absolute',
  right: 12,
  bottom: 8,
  padding: '2px 10px',
  font: 'inherit',
  fontSize: '12px',
  cursor: 'pointer',
  borderRadius: 10,
  border: '1px solid var(--ps-accent, #4c8dff)',
  background: 'var(--ps-bg, #0f1115)',
  color: 'var(--ps-accent, #4c8dff)',
  boxShadow: '0 1px 4px rgba(0, 0, 0, 0.35)',
};

export function VirtualList<T>(props: VirtualListProps<T>): ReactElement {
  const {
    items,
    rowHeight,
    height,
    renderRow,
    getKey,
    overscan = 8,
    stickToBottom = false,
    keyByPosition = false,
  } = props;
  const scrollRef = useRef<HTMLDivElement>(null);
  const [measured, setMeasured] = useState(0);
  const viewport = height === '100%' ? measured : height;
  // Scroll position quantized to whole rows: scrolling within a row does not re-render.
  const [firstRow, setFirstRow] = useState(0);
  const followingRef = useRef(true);
  const [following, setFollowing] = useState(true);

  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (height !== '100%' || !el) return;
    setMeasured(el.clientHeight);
    const observer = new ResizeObserver(() => setMeasured(el.clientHeight));
    observer.observe(el);
    return () => observer.disconnect();
  }, [height]);

  // Leaving follow mode: the scroll state takes over from the bottom window, at where the
  // view is now (firstRow is not kept up to date while following).
  const stopFollowing = useCallback((): void => {
    followingRef.current = false;
    setFollowing(false);
    const el = scrollRef.current;
    if (el) setFirstRow(Math.floor(el.scrollTop / rowHeight));
  }, [rowHeight]);

  // Where the last automatic scroll left scrollTop: a position above it (and not at the
  // bottom) means the user scrolled up before their scroll event arrived.
  const autoTopRef = useRef(0);

  // Follow new rows (and viewport changes) while at the bottom. The bottom window is already
  // rendered (see `win`); only the scroll position moves, in the next animation frame, before
  // its paint: there the layout this needs is the one the frame does anyway (reading scrollTop
  // right after a commit would force an extra synchronous layout per batch), and batches
  // committed between two frames share it.
  const followFrameRef = useRef(0);
  const follow = useCallback((): void => {
    followFrameRef.current = 0;
    const el = scrollRef.current;
    if (!el || !followingRef.current) return;
    // The user may have dragged the scrollbar before its scroll event arrived.
    const top = el.scrollTop;
    const userMoved =
      top + BOTTOM_SLACK_PX < autoTopRef.current &&
      !isAtBottom(top, el.clientHeight, el.scrollHeight);
    if (userMoved) {
      stopFollowing();
      return;
    }
    const bottom = Math.max(0, el.scrollHeight - el.clientHeight);
    if (top !== bottom) el.scrollTop = bottom;
    autoTopRef.current = bottom;
  }, [stopFollowing]);

  // Scheduled from a layout effect so the frame cannot paint before it runs.
  // biome-ignore lint/correctness/useExhaustiveDependencies: items.length is the trigger (new rows)
  useLayoutEffect(() => {
    if (!stickToBottom || !followingRef.current || viewport <= 0) return;
    if (followFrameRef.current === 0) followFrameRef.current = requestAnimationFrame(follow);
  }, [items.length, viewport, rowHeight, stickToBottom, follow]);

  useLayoutEffect(
    () => () => {
      cancelAnimationFrame(followFrameRef.current);
      followFrameRef.current = 0;
    },
    [],
  );

  const onScroll = useCallback(
    (event: UIEvent<HTMLDivElement>): void => {
      const el = event.currentTarget;
      const row = Math.floor(el.scrollTop / rowHeight);
      if (!stickToBottom) {
        setFirstRow(row);
        return;
      }
      const atBottom = isAtBottom(el.scrollTop, el.clientHeight, el.scrollHeight);
      // Following renders the bottom window itself: our own scroll writes cost no render.
      if (!atBottom || !followingRef.current) setFirstRow(row);
      if (atBottom !== followingRef.current) {
        followingRef.current = atBottom;
        setFollowing(atBottom);
      }
      if (atBottom) autoTopRef.current = el.scrollTop;
    },
    [rowHeight, stickToBottom],
  );

  // A wheel turn upwards stops following at once, before the scroll event (which a batch of
  // new rows could otherwise beat, snapping the view back to the bottom).
  const onWheel = useCallback(
    (event: WheelEvent<HTMLDivElement>): void => {
      const el = event.currentTarget;
      // Content that fits cannot scroll: a wheel there must not leave the user unfollowed.
      const scrollable = el.scrollHeight > el.clientHeight;
      if (stickToBottom && scrollable && event.deltaY < 0 && followingRef.current) stopFollowing();
    },
    [stickToBottom, stopFollowing],
  );

  const jumpToBottom = useCallback((): void => {
    const el = scrollRef.current;
    followingRef.current = true;
    setFollowing(true);
    if (!el) return;
    el.scrollTop = el.scrollHeight;
    autoTopRef.current = el.scrollTop;
  }, []);

  // Rows are fixed boxes: a row's new text never relays out anything outside it.
  const rowStyle = useMemo<CSSProperties>(
    () => ({ height: rowHeight, overflow: 'hidden', contain: 'strict' }),
    [rowHeight],
  );

  // One extra row of height covers the partly visible row below the quantized position.
  // Following: the bottom window (computeWindow clamps the position to the last full page).
  const win = computeWindow({
    scrollTop: stickToBottom && following ? items.length * rowHeight : firstRow * rowHeight,
    height: viewport + rowHeight,
    rowHeight,
    count: items.length,
    overscan,
  });

  const rows: ReactNode[] = [];
  for (let i = win.start; i < win.end; i++) {
    const item = items[i];
    rows.push(
      <div key={keyByPosition ? i - win.start : getKey(item, i)} data-index={i} style={rowStyle}>
        {renderRow(item, i)}
      </div>,
    );
  }

  const outerStyle: CSSProperties = {
    position: 'relative',
    height: height === '100%' ? '100%' : height,
    minHeight: 0,
  };
  const className = props.className ? `ps-vlist ${props.className}` : 'ps-vlist';

  return (
    <div className={className} style={outerStyle} data-following={stickToBottom && following}>
      <div
        ref={scrollRef}
        className="ps-vlist-scroller"
        style={SCROLLER_STYLE}
        onScroll={onScroll}
        onWheel={onWheel}
      >
        <div style={{ height: win.totalHeight, position: 'relative' }}>
          <div
            style={{
              position: 'absolute',
              top: 0,
              left: 0,
              right: 0,
              transform: `translateY(${win.offsetTop}px)`,
            }}
          >
            {rows}
          </div>
        </div>
      </div>
      {stickToBottom && !following && items.length > 0 ? (
        <button
          type="button"
          className="ps-vlist-jump"
          style={JUMP_STYLE}
          onClick={jumpToBottom}
          title="Jump to the newest row and follow new rows"
          data-testid="vlist-jump"
        >
          ↓ new
        </button>
      ) : null}
    </div>
  );
}
