/**
 * VirtualList: a windowed list of fixed-height rows. Only the rows in view (plus `overscan`)
 * are in the DOM, so 100,000 items cost ~50 nodes. Fed by any feature panel (frames, stderr,
 * requests); owns only scroll state. With `stickToBottom` it follows new rows while the user
 * is at the bottom, stops when they scroll up, and offers a "↓ new" button to resume.
 */
import {
  type CSSProperties,
  type ReactElement,
  type ReactNode,
  type UIEvent,
  useCallback,
  useLayoutEffect,
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

  const stopFollowing = useCallback((): void => {
    followingRef.current = false;
    setFollowing(false);
  }, []);

  // Where the last automatic scroll left scrollTop: a position above it (and not at the
  // bottom) means the user scrolled up before their scroll event arrived.
  const autoTopRef = useRef(0);

  // Follow new rows (and viewport changes) while at the bottom. Runs before paint, and the
  // synchronous setFirstRow renders the bottom window in the same frame (no blank flash).
  // biome-ignore lint/correctness/useExhaustiveDependencies: items.length is the trigger (new rows)
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!stickToBottom || !followingRef.current || !el || viewport <= 0) return;
    const userMoved =
      el.scrollTop + BOTTOM_SLACK_PX < autoTopRef.current &&
      !isAtBottom(el.scrollTop, el.clientHeight, el.scrollHeight);
    if (userMoved) {
      stopFollowing();
      return;
    }
    el.scrollTop = el.scrollHeight;
    autoTopRef.current = el.scrollTop;
    setFirstRow(Math.floor(el.scrollTop / rowHeight));
  }, [items.length, viewport, rowHeight, stickToBottom, stopFollowing]);

  const onScroll = useCallback(
    (event: UIEvent<HTMLDivElement>): void => {
      const el = event.currentTarget;
      setFirstRow(Math.floor(el.scrollTop / rowHeight));
      if (!stickToBottom) return;
      const atBottom = isAtBottom(el.scrollTop, el.clientHeight, el.scrollHeight);
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

  // One extra row of height covers the partly visible row below the quantized position.
  const win = computeWindow({
    scrollTop: firstRow * rowHeight,
    height: viewport + rowHeight,
    rowHeight,
    count: items.length,
    overscan,
  });

  const rows: ReactNode[] = [];
  for (let i = win.start; i < win.end; i++) {
    const item = items[i];
    rows.push(
      <div key={getKey(item, i)} data-index={i} style={{ height: rowHeight, overflow: 'hidden' }}>
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
