/** stderr feature: the bounded, virtualized stderr panel. */
export { StderrPanel, type StderrPanelProps } from './StderrPanel.js';
