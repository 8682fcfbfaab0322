/** Frames feature: the virtualized frame log, its payload search and the paged single-frame viewer. */

export { FramesPanel, type FramesPanelProps } from './FramesPanel.js';
export { FrameViewer, type FrameViewerProps } from './FrameViewer.js';
export { SessionFramesPanel, useFindInFrame, useFrameSummary } from './SessionFramesPanel.js';
export type { FetchPage, FramePages, ViewerState } from './useFramePages.js';
