/** Frames feature: the virtualized frame log and the paged single-frame viewer. */

export { FramesPanel, type FramesPanelProps } from './FramesPanel.js';
export { FrameViewer, type FrameViewerProps } from './FrameViewer.js';
